"""Graph passes, fusion, memory planning and the optimisation pipeline (graph/passes).

Oracle: the reference interpreter on the *unoptimised* graph. Every pass (and every pipeline
level, executed through ``run_schedule``) must give the same outputs and parameter updates on
seeded random graphs that mix elementwise ops with broadcasting and Python scalars, reductions,
matmul, reshape/transpose chains, duplicated subexpressions, dead branches, constant subgraphs, a
dropout (its masks match because the op stream is reseeded before each run) and an assign to a
Parameter. Memory plans are checked against a liveness computation written here from the
schedule's kernel inputs/outputs, and ``run_schedule`` keeps planned values in their slots so a
bad plan also shows up as wrong numbers.
"""
import os

import numpy as np
import pytest

from graph.aval import AVal
from graph.dtypes import float16, float32, float64, int8, int32
from graph.interpret import run
from graph.ir import CONST, NODE, PARAM, Graph, Value
from graph.ops import F, rng as oprng
from graph.passes import (PIPELINES, cse, dce, fold_constants, fuse, hand_over_updates, optimize,
                          plan_memory, reduce_strength, run_schedule, schedule_nodes, simplify)
from graph.passes.fold import FOLD_LIMIT

B, D = 3, 4
GRAPH_PASSES = {"dce": dce, "cse": cse, "fold": fold_constants, "simplify": simplify,
                "updates": hand_over_updates, "strength": reduce_strength}


# -- random graphs ------------------------------------------------------------------------------------
def random_graph(seed: int, n_ops: int = 45):
    """A seeded random graph over shapes (B,D), (D,), (B,1), (B,), (D,D), (D,B) and ()."""
    r = np.random.default_rng(seed)
    g = Graph(f"rand{seed}")
    pool: dict[tuple, list] = {}

    def put(v):
        pool.setdefault(tuple(v.shape), []).append(v)
        return v

    def pick(shape):
        vals = pool[shape]
        return vals[int(r.integers(len(vals)))]

    x = put(g.add_input(AVal((B, D), float32), "x"))
    put(g.add_input(AVal((D,), float32), "y"))
    put(g.add_input(AVal((B, 1), float32), "z"))
    w = put(g.add_input(AVal((D, D), float32), "w", kind=PARAM))
    p = g.add_input(AVal((B, D), float32), "p", kind=PARAM)
    c1 = g.add_const(r.standard_normal(D).astype(np.float32), "c1")
    c2 = g.add_const(r.standard_normal((B, D)).astype(np.float32), "c2")
    put(c1), put(c2)
    put(F.mul(x, 0.5))
    unary = [F.neg, F.tanh, F.sigmoid, F.relu, F.abs, F.sin, lambda v: F.exp(F.tanh(v))]
    binary = [F.add, F.sub, F.mul, F.maximum, F.minimum]
    scalars = [1, 1.0, 0, 0.0, 2.5, -3, 0.5]
    made = []
    for _ in range(n_ops):
        kind = r.choice(["unary", "binary", "bcast", "scalar", "ident", "reduce", "matmul",
                         "layout", "dup", "const", "cast"],
                        p=[.14, .14, .1, .12, .08, .08, .05, .1, .08, .06, .05])
        if kind == "unary":
            shape = [(B, D), (D,), (B,), (B, 1)][int(r.integers(4))]
            if shape not in pool:
                shape = (B, D)
            v = unary[int(r.integers(len(unary)))](pick(shape))
        elif kind == "binary":
            a, b = pick((B, D)), pick((B, D))
            v = binary[int(r.integers(len(binary)))](a, b)
        elif kind == "bcast":
            other = pick([(D,), (B, 1)][int(r.integers(2))])
            a = pick((B, D))
            op = binary[int(r.integers(len(binary)))]
            v = op(a, other) if r.random() < 0.5 else op(other, a)
        elif kind == "scalar":
            s = scalars[int(r.integers(len(scalars)))]
            op = [F.add, F.mul, F.sub, F.div][int(r.integers(4))]
            a = pick((B, D))
            if op is F.div and s == 0:
                s = 2
            v = op(a, s) if r.random() < 0.7 or op in (F.sub, F.div) else op(s, a)
        elif kind == "ident":  # things simplification removes
            a = pick((B, D))
            v = [lambda: F.mul(a, 1.0), lambda: F.add(0.0, a), lambda: F.sub(a, 0),
                 lambda: F.div(a, 1), lambda: F.neg(F.neg(a)),
                 lambda: F.reshape(a, shape=(B, D)), lambda: F.transpose(a, perm=(0, 1)),
                 lambda: F.broadcast_to(a, shape=(B, D))][int(r.integers(8))]()
        elif kind == "reduce":
            a = pick((B, D))
            op = [F.reduce_sum, F.reduce_mean, F.reduce_max][int(r.integers(3))]
            axis = int(r.integers(2))
            keep = bool(r.random() < 0.4)
            v = op(F.relu(F.add(a, pick((D,)))) if r.random() < 0.5 else a, axis=axis, keep_dims=keep)
        elif kind == "matmul":
            v = F.matmul(pick((B, D)), w if r.random() < 0.5 else pick((D, D)))
            if r.random() < 0.5:
                put(F.tanh(v))
        elif kind == "layout":
            a = pick((B, D))
            choice = int(r.integers(3))
            if choice == 0:
                t = put(F.transpose(a, perm=(1, 0)))
                v = F.transpose(F.tanh(t), perm=(1, 0)) if r.random() < 0.5 else F.transpose(t, perm=(1, 0))
            elif choice == 1:
                v = F.reshape(F.reshape(a, shape=(D, B)), shape=(B, D))
            else:
                v = F.reshape(F.reshape(a, shape=(B * D,)), shape=(D, B))
        elif kind == "dup" and made:
            node = made[int(r.integers(len(made)))]
            v = g.add_node(node.op, node.inputs, node.attrs)
            if isinstance(v, tuple):
                v = v[0]
        elif kind == "const":
            v = F.add(F.mul(c2, F.exp(c1)), 1.0)
            if r.random() < 0.5:
                v = F.add(v, pick((B, D)))
        else:
            v = F.cast(pick((B, D)), dtype=float32)
        if isinstance(v, Value) and v.kind == NODE:
            made.append(v.producer)
        if isinstance(v, Value):
            put(v)
    dy, _mask = F.dropout(pick((B, D)), keep_prob=0.7)
    put(dy)
    F.dropout(F.add(c2, 1.0), keep_prob=0.5)  # unused, on a constant: neither removed nor folded
    F.assign(p, F.add(F.mul(p, 0.9), F.mul(pick((B, D)), 0.1)))
    candidates = [v for vs in pool.values() for v in vs if isinstance(v, Value) and v.kind == NODE]
    picked = r.choice(len(candidates), size=min(8, len(candidates)), replace=False)
    outs = [candidates[int(i)] for i in picked] + candidates[-2:]  # others are dead branches
    g.set_outputs(outs + [dy])
    g.verify()
    return g


def inputs_for(g: Graph, seed: int = 0):
    r = np.random.default_rng(1000 + seed)
    return [r.standard_normal(v.shape).astype(v.dtype.np) for v in g.inputs]


def run_graph(g, arrays):
    oprng.seed(123)
    return run(g, arrays)


def run_sched(s, arrays):
    oprng.seed(123)
    return run_schedule(s, arrays)


def assert_same(a, b):
    (oa, ua), (ob, ub) = a, b
    assert len(oa) == len(ob)
    for x, y in zip(oa, ob):
        assert np.asarray(x).shape == np.asarray(y).shape and np.asarray(x).dtype == np.asarray(y).dtype
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=0)
    assert ua.keys() == ub.keys()
    for k in ua:
        np.testing.assert_allclose(ua[k], ub[k], rtol=1e-6, atol=0)


def check_locations(old: Graph, new: Graph):
    old_locs = {n.loc for n in old.nodes}
    assert all(n.loc in old_locs for n in new.nodes)


SEEDS = range(24)


@pytest.mark.parametrize("seed", SEEDS)
def test_each_pass_keeps_results_on_random_graphs(seed):
    g = random_graph(seed)
    arrays = inputs_for(g, seed)
    want = run_graph(g, arrays)
    text = g.format()
    for name, p in GRAPH_PASSES.items():
        g2 = p(g)
        g2.verify()
        assert g2 is not g and g.format() == text  # functional: the argument is untouched
        check_locations(g, g2)
        assert_same(want, run_graph(g2, arrays))
    chained = g
    for name in ["dce", "cse", "fold", "simplify", "dce", "cse", "simplify", "fold"]:
        chained = GRAPH_PASSES[name](chained)
        chained.verify()
        assert_same(want, run_graph(chained, arrays))
    assert chained.op_count() < g.op_count()


@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
@pytest.mark.parametrize("seed", SEEDS)
def test_pipeline_levels_keep_results(seed, level):
    g = random_graph(seed)
    arrays = inputs_for(g, seed)
    want = run_graph(g, arrays)
    sched = optimize(g, level, verify=True)
    check_schedule(sched)
    assert_same(want, run_sched(sched, arrays))
    if level != "O0":
        check_memory_plan(sched)
        assert len(sched.kernels) < len(g.nodes)


@pytest.mark.parametrize("seed", range(8))
def test_fusion_without_other_passes_keeps_results(seed):
    g = random_graph(seed, n_ops=70)
    arrays = inputs_for(g, seed)
    sched = plan_memory(fuse(g))
    check_schedule(sched)
    check_memory_plan(sched)
    assert_same(run_graph(g, arrays), run_sched(sched, arrays))


# -- schedule checks written independently of the passes ----------------------------------------------
def check_schedule(sched):
    """Every node in exactly one kernel; kernels only read earlier kernels' outputs; fused kernels
    are elementwise of one shape with at most a trailing reduction; side effects keep graph order."""
    g = sched.graph
    seen = [id(n) for k in sched.kernels for n in k.nodes]
    assert sorted(seen) == sorted(id(n) for n in g.nodes)
    available = {v.id for v in g.inputs} | {c.id for c in g.consts}
    node_pos = {id(n): i for i, n in enumerate(g.nodes)}
    for k in sched.kernels:
        produced = {o.id for n in k.nodes for o in n.outputs}
        for n in k.nodes:
            for v in n.inputs:
                if isinstance(v, Value) and v.id not in produced:
                    assert v.id in available, f"{k.name} reads {v!r} before it is produced"
                    assert v in k.inputs
        assert [node_pos[id(n)] for n in k.nodes] == sorted(node_pos[id(n)] for n in k.nodes)
        if k.kind == "fused":
            body = [n for n in k.nodes if n is not k.reduce]
            assert all(n.op.kind == "elementwise" for n in body)
            assert len({n.outputs[0].shape for n in body}) <= 1
            if k.reduce is not None:
                assert k.nodes[-1] is k.reduce and k.reduce.op.kind == "reduction"
        else:
            assert len(k.nodes) == 1 and k.nodes[0].op.kind == k.kind
        available |= {o.id for o in k.outputs}
    used_outside = {v.id for v in g.outputs if isinstance(v, Value)} | {v.id for v in g.updates.values()}
    assert used_outside <= available
    effects = [n for k in sched.kernels for n in k.nodes if n.op.kind in ("random", "state")]
    assert [node_pos[id(n)] for n in effects] == sorted(node_pos[id(n)] for n in effects)


def check_memory_plan(sched):
    """No two values live at the same time share a slot (an in-place output may take the slot of
    an input that dies at its kernel); slots are big enough; escaping values are not planned."""
    kernels = sched.kernels
    define, last = {}, {}
    for i, k in enumerate(kernels):
        for v in k.inputs:
            last[v.id] = i
        for o in k.outputs:
            define[o.id] = i
    for vid, i in define.items():
        last.setdefault(vid, i)
    for i in reversed(range(len(kernels))):  # a view's operands live as long as the view
        k = kernels[i]
        if k.kind == "view":
            end = max(last.get(o.id, i) for o in k.nodes[0].outputs)
            for v in k.nodes[0].inputs:
                if isinstance(v, Value) and v.id in define:
                    last[v.id] = max(last[v.id], end)
    values = {o.id: o for k in kernels for o in k.outputs}
    g = sched.graph
    escaping = {v.id for v in g.outputs if isinstance(v, Value)} | {v.id for v in g.updates.values()}
    assert not escaping & set(sched.buffers)
    by_slot: dict[int, list] = {}
    for vid, slot in sched.buffers.items():
        v = values[vid]
        assert sched.slot_sizes[slot] >= v.aval.size * v.aval.dtype.itemsize
        by_slot.setdefault(slot, []).append(vid)
    for slot, vids in by_slot.items():
        vids.sort(key=lambda v: define[v])
        for a, b in zip(vids, vids[1:]):
            if sched.inplace.get(b) == a:
                assert last[a] == define[b]
                assert values[a].aval == values[b].aval
                assert kernels[define[b]].kind == "fused"
            else:
                assert last[a] < define[b], f"slot {slot}: {a} (live {define[a]}..{last[a]}) and {b} overlap"


# -- DCE ------------------------------------------------------------------------------------------------------
def _graph(*shapes, params=()):
    g = Graph("t")
    vals = [g.add_input(AVal(s, float32), f"a{i}", kind=PARAM if i in params else "input")
            for i, s in enumerate(shapes)]
    return g, vals


def test_dce_removes_dead_nodes_and_constants_but_keeps_assign_and_dropout():
    g, (x, w) = _graph((2, 3), (2, 3), params=(1,))
    y = F.tanh(x)
    F.exp(F.add(x, g.add_const(np.ones(3, np.float32))))  # dead, with a constant
    F.dropout(x, keep_prob=0.5)  # outputs unused: still consumes the random stream
    F.assign(w, F.mul(w, 2.0))  # its value is only an update
    g.set_outputs([y])
    g2 = dce(g)
    g2.verify()
    assert [n.op.name for n in g2.nodes] == ["tanh", "dropout", "mul", "assign"]
    assert g2.consts == [] and len(g2.inputs) == 2 and g2.inputs[1].kind == PARAM
    assert list(g2.updates) == [g2.inputs[1]] and g2.updates[g2.inputs[1]] is g2.nodes[-1].outputs[0]
    assert_same(run_graph(g, [np.ones((2, 3), np.float32)] * 2), run_graph(g2, [np.ones((2, 3), np.float32)] * 2))


# -- CSE -------------------------------------------------------------------------------------------------------
def test_cse_merges_duplicates_and_identical_constants():
    g, (x,) = _graph((4,))
    a = F.add(F.tanh(x), 1.0)
    b = F.add(F.tanh(x), 1.0)
    c1 = g.add_const(np.arange(4, dtype=np.float32))
    c2 = g.add_const(np.arange(4, dtype=np.float32))
    g.set_outputs([F.mul(a, c1), F.mul(b, c2), F.reduce_sum(a, axis=0), F.reduce_sum(b, axis=0)])
    g2 = cse(g)
    g2.verify()
    assert [n.op.name for n in g2.nodes] == ["tanh", "add", "mul", "reduce_sum"]
    assert g2.outputs[0] is g2.outputs[1] and g2.outputs[2] is g2.outputs[3]
    assert len(g2.consts) == 1


def test_cse_tells_scalar_types_and_attrs_apart_and_never_merges_random():
    g = Graph("t")
    x = g.add_input(AVal((3,), int32), "x")
    f = g.add_input(AVal((3, 2), float32), "f")
    outs = [F.mul(x, 2), F.mul(x, 2.0), F.reduce_sum(f, axis=0), F.reduce_sum(f, axis=1),
            F.dropout(f, keep_prob=0.5)[0], F.dropout(f, keep_prob=0.5)[0], F.add(f, 0.0), F.add(f, -0.0)]
    g.set_outputs(outs)
    g2 = cse(g)
    g2.verify()
    assert len(g2.nodes) == len(g.nodes)
    assert outs[0].dtype is not outs[1].dtype


# -- constant folding ------------------------------------------------------------------------------------------
def test_folding_turns_constant_subgraphs_into_constants():
    g, (x,) = _graph((2, 3))
    c = g.add_const(np.full((2, 3), 2.0, np.float32), "c")
    k = F.reduce_sum(F.exp(F.mul(c, 0.5)), axis=1, keep_dims=True)  # all constant
    g.set_outputs([F.add(x, k)])
    g2 = fold_constants(g)
    g2.verify()
    assert [n.op.name for n in g2.nodes] == ["add"]
    folded = g2.nodes[0].inputs[1]
    assert folded.kind == CONST and folded.shape == (2, 1)
    np.testing.assert_allclose(folded.data, np.exp(np.float32(1.0)) * 3, rtol=1e-6)
    a = np.ones((2, 3), np.float32)
    assert_same(run_graph(g, [a]), run_graph(g2, [a]))


def test_folding_evaluates_shape_only_ops_of_computed_values_and_zero_d_results():
    """A gradient's seed, ``ones_like(loss) / n`` with ``loss`` computed at run time, is a
    constant: ones_like reads only its operand's shape. 0-d results fold too (they came back
    1-d from ascontiguousarray and were left in the graph)."""
    g, (x,) = _graph((4,))
    loss = F.reduce_mean(F.mul(x, x))
    seed = F.broadcast_to(F.reshape(F.div(F.ones_like(loss), 4.0), shape=(1,)), shape=(4,))
    g.set_outputs([loss, F.mul(x, seed), F.zeros_like(x)])
    g2 = fold_constants(g)
    g2.verify()
    assert [n.op.name for n in g2.nodes] == ["mul", "reduce_mean", "mul"]
    assert g2.outputs[2].kind == CONST
    a = np.arange(4, dtype=np.float32)
    assert_same(run_graph(g, [a]), run_graph(g2, [a]))
    g0, (s,) = _graph(())
    g0.set_outputs([F.add(s, F.mul(g0.add_const(np.float32(2.0)), 3.0))])
    folded = fold_constants(g0)
    assert [n.op.name for n in folded.nodes] == ["add"] and folded.nodes[0].inputs[1].shape == ()


def test_folding_evaluates_nodes_without_tensor_operands():
    """``fill`` and ``range`` (graph/ops/creation.py: ``ops.ones((n, n))``, ``ops.arange(n)`` of
    sizes a shape-generic graph keeps symbolic) are constants once the sizes are known."""
    from graph.ops import REGISTRY
    g, (x,) = _graph((3, 3))
    ones = g.add_node(REGISTRY["fill"], [], REGISTRY["fill"].normalize({"shape": (3, 3), "value": 1.0}))
    steps = g.add_node(REGISTRY["range"], [], REGISTRY["range"].normalize({"start": 0, "limit": 3, "dtype": float32}))
    g.set_outputs([F.add(F.mul(x, ones), steps)])
    g2 = fold_constants(g)
    g2.verify()
    assert [n.op.name for n in g2.nodes] == ["mul", "add"]
    a = np.arange(9, dtype=np.float32).reshape(3, 3)
    assert_same(run_graph(g, [a]), run_graph(g2, [a]))
    np.testing.assert_array_equal(run_graph(g2, [a])[0][0], a + np.arange(3))


def test_folding_skips_random_state_big_results_and_failing_ops():
    g, (p,) = _graph((3,), params=(0,))
    c = g.add_const(np.ones(3, np.float32))
    d = F.dropout(c, keep_prob=0.5)[0]
    F.assign(p, c)
    big = F.broadcast_to(g.add_const(np.float32(1.0)), shape=(FOLD_LIMIT + 1,))
    small = F.broadcast_to(g.add_const(np.float32(1.0)), shape=(5,))
    g.set_outputs([d, F.reduce_sum(big), small])
    g2 = fold_constants(g)
    g2.verify()
    names = [n.op.name for n in g2.nodes]
    assert names == ["dropout", "assign", "broadcast_to", "reduce_sum"]
    assert g2.outputs[2].kind == CONST and g2.outputs[2].shape == (5,)


# -- simplification ----------------------------------------------------------------------------------------------
def test_simplify_removes_identities():
    g, (x, y) = _graph((2, 3), (3,))
    v = F.mul(x, 1.0)
    v = F.add(0, v)
    v = F.sub(v, 0.0)
    v = F.div(v, 1)
    v = F.neg(F.neg(v))
    v = F.cast(v, dtype=float32)
    v = F.reshape(F.reshape(v, shape=(3, 2)), shape=(2, 3))
    v = F.transpose(F.transpose(v, perm=(1, 0)), perm=(1, 0))
    v = F.broadcast_to(v, shape=(2, 3))
    v = F.mul(v, g.add_const(np.ones(3, np.float32)))  # all-ones constant, no shape change
    keep = F.mul(y, g.add_const(np.ones((2, 3), np.float32)))  # broadcasts y: must stay
    g.set_outputs([F.tanh(v), keep])
    g2 = dce(simplify(g))
    g2.verify()
    assert [n.op.name for n in g2.nodes] == ["mul", "tanh"]
    assert g2.nodes[1].inputs[0] is g2.inputs[0]
    a = [np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(3, dtype=np.float32)]
    assert_same(run_graph(g, a), run_graph(g2, a))


def test_simplify_keeps_identities_that_change_dtype_and_folds_layout_chains():
    g = Graph("t")
    x = g.add_input(AVal((2, 3, 4), int32), "x")
    f = F.mul(x, 1.0)  # int32 * 1.0 is float32: not an identity
    r = F.reshape(F.reshape(F.cast(f, dtype=float32), shape=(6, 4)), shape=(4, 6))
    t = F.transpose(F.transpose(f, perm=(1, 2, 0)), perm=(2, 0, 1))  # composes to the identity
    t2 = F.transpose(F.transpose(f, perm=(1, 2, 0)), perm=(1, 0, 2))
    g.set_outputs([r, t, t2])
    g2 = dce(simplify(g))
    g2.verify()
    assert [n.op.name for n in g2.nodes] == ["mul", "reshape", "transpose"]
    assert g2.nodes[1].inputs[0] is g2.nodes[0].outputs[0] and g2.nodes[1].attrs["shape"] == (4, 6)
    assert g2.outputs[1] is g2.nodes[0].outputs[0]
    a = [np.arange(24, dtype=np.int32).reshape(2, 3, 4)]
    assert_same(run_graph(g, a), run_graph(g2, a))


# -- strength reduction ------------------------------------------------------------------------------------------
def _ops(g):
    return [n.op.name for n in g.nodes]


@pytest.mark.parametrize("dtype", [float32, float64])
def test_powers_by_a_constant_become_products_roots_and_reciprocals(dtype):
    g = Graph("t")
    x = g.add_input(AVal((5,), dtype), "x")
    g.set_outputs([F.pow(x, 2), F.pow(x, 3.0), F.pow(x, 1), F.pow(x, 0.5), F.pow(x, -1), F.pow(x, 2.5),
                   F.pow(x, 0)])
    g2 = reduce_strength(g)
    g2.verify()
    assert _ops(g2) == ["mul", "mul", "mul", "identity", "sqrt", "div", "pow", "pow"]
    square, cube, one, root, recip, other, zero = g2.outputs
    assert square.producer.inputs == (g2.inputs[0], g2.inputs[0])
    assert cube.producer.inputs[0].producer.op.name == "mul" and cube.producer.inputs[1] is g2.inputs[0]
    assert recip.producer.inputs[0] == 1.0 and other.producer.inputs[1] == 2.5
    # the graph's meaning is numpy's power: the reference interpreter gives the same numbers
    xs = np.array([-np.inf, -2.5, -1.0, -0.0, 0.0, 1e-3, 0.75, 3.0, 1e30, np.inf, np.nan], dtype.np)
    xs = np.resize(xs, 5 * 3).reshape(3, 5)
    for row in xs:
        with np.errstate(all="ignore"):
            want, _ = run(g, [row])
            got, _ = run(g2, [row])
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=4 * np.finfo(dtype.np).eps, equal_nan=True)
            assert a.dtype == b.dtype


def test_strength_reduction_keeps_promoted_powers_and_rounds_float16_cubes_once():
    g = Graph("t")
    i = g.add_input(AVal((4,), int8), "i")
    h = g.add_input(AVal((4,), float16), "h")
    y = g.add_input(AVal((4,), float32), "y")
    g.set_outputs([F.pow(i, 2), F.pow(i, 2.0), F.pow(h, 3), F.pow(h, 2.0004), F.pow(y, y), F.pow(h, 0.5)])
    g2 = reduce_strength(g)
    g2.verify()
    # int8 ** 2 wraps in int8 as numpy's; int8 ** 2.0 is float32 (pow proper); the float16 cube
    # multiplies in float32 and rounds once; 2.0004 is 2 in float16 (the scalar as a float16 kernel
    # reads it); a tensor exponent stays; numpy's float16 power by 0.5 is pow, not sqrt
    assert _ops(g2) == ["mul", "pow", "cast", "mul", "mul", "cast", "mul", "pow", "pow"]
    assert [n.attrs.get("dtype") for n in g2.nodes if n.op.name == "cast"] == [float32, float16]
    ints = np.array([100, -7, 3, 127], np.int8)
    halves = np.array([1.1, -3.3, 30.0, 65504.0], np.float16)
    got, _ = run(g2, [ints, halves, np.ones(4, np.float32)])
    np.testing.assert_array_equal(got[0], (ints.astype(np.int64) ** 2).astype(np.int8))  # wraps
    wide = halves.astype(np.float32)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got[2], (wide * wide * wide).astype(np.float16))
        np.testing.assert_array_equal(got[3], halves * halves)
    with np.errstate(invalid="ignore"):
        got, _ = run(g2, [ints, np.array([-np.inf, -0.0, 4.0, -1.0], np.float16), np.ones(4, np.float32)])
    assert got[5][0] == np.inf and not np.signbit(got[5][1]) and got[5][2] == 2.0 and np.isnan(got[5][3])
    g = Graph("t")
    i = g.add_input(AVal((4,), int8), "i")
    g.set_outputs([F.pow(i, -1)])  # an integer has no reciprocal: pow proper (docs/numerics.md)
    assert _ops(reduce_strength(g)) == ["pow"]


# -- fusion --------------------------------------------------------------------------------------------------------
def test_fusion_puts_an_elementwise_dag_in_one_kernel():
    g, (x, a, b) = _graph((8, 16), (16,), (8, 16))
    out = F.add(F.mul(F.tanh(F.add(F.mul(x, a), b)), 3.0), F.exp(F.neg(x)))
    g.set_outputs([out])
    s = fuse(g)
    assert len(s.kernels) == 1
    k = s.kernels[0]
    assert k.kind == "fused" and len(k.nodes) == 7 and k.reduce is None and k.shape == (8, 16)
    assert k.inputs == [x, a, b] and k.outputs == [out]
    arrays = inputs_for(g)
    np.testing.assert_allclose(run_sched(s, arrays)[0][0],
                               np.tanh(arrays[0] * arrays[1] + arrays[2]) * 3 + np.exp(-arrays[0]), rtol=1e-6)


def test_fusion_ends_a_group_with_one_reduction():
    g, (x, bias) = _graph((4, 5), (5,))
    h = F.relu(F.add(x, bias))
    s_ = F.reduce_sum(h, axis=1)
    g.set_outputs([s_, F.reduce_max(h, axis=0)])
    s = fuse(g)
    k = s.kernels[0]
    assert k.kind == "fused" and [n.op.name for n in k.nodes] == ["add", "relu", "reduce_sum"]
    assert k.reduce is k.nodes[-1] and k.shape == (4, 5)
    assert k.outputs == [h, s_]  # h is read by the second reduction: a kernel output
    assert [kk.kind for kk in s.kernels] == ["fused", "fused"] and s.kernels[1].reduce is not None
    arrays = inputs_for(g)
    np.testing.assert_allclose(run_sched(s, arrays)[0][0],
                               np.maximum(arrays[0] + arrays[1], 0).sum(axis=1), rtol=1e-6)


def test_fusion_recomputes_a_relu_mask_in_the_backward_kernel_instead_of_storing_it():
    """A ReLU's gradient mask ``cast(out > 0)`` needs only ``out``, which the next layer stores
    anyway: it moves into the one backward kernel that reads it (no mask written forward and read
    back later); a mask computed from a value the forward kernel does not store stays put."""
    g, (x, bias, w, gy) = _graph((6, 4), (4,), (4, 4), (6, 4))
    out = F.relu(F.add(x, bias))
    mask = F.cast(F.greater(out, 0.0), dtype=float32)
    hidden = F.matmul(out, w)  # the next layer reads out: it is stored
    gx = F.mul(F.matmul(F.mul(hidden, gy), F.transpose(w, perm=(1, 0))), mask)  # the gradient needs the forward
    g.set_outputs([hidden, gx, F.reduce_sum(gx, axis=(0,))])
    s = fuse(g)
    check_schedule(s)
    forward = next(k for k in s.kernels if any(n.op.name == "relu" for n in k.nodes))
    assert [n.op.name for n in forward.nodes] == ["add", "relu"] and forward.outputs == [out]
    backward = next(k for k in s.kernels if any(n.op.name == "reduce_sum" for n in k.nodes))
    assert [n.op.name for n in backward.nodes] == ["greater", "cast", "mul", "reduce_sum"]
    assert out in backward.inputs and mask not in backward.inputs
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))

    g, (x, gy) = _graph((6, 4), (6, 4))
    pre = F.mul(x, 3.0)
    y = F.exp(pre)
    mask = F.cast(F.greater(pre, 0.0), dtype=float32)  # pre is internal to the forward kernel
    g.set_outputs([F.matmul(y, F.transpose(y, perm=(1, 0))), F.mul(F.matmul(gy, F.transpose(y, perm=(1, 0))), F.reduce_sum(mask, axis=(1,), keep_dims=True))])
    s = fuse(g)
    check_schedule(s)
    forward = next(k for k in s.kernels if any(n.op.name == "exp" for n in k.nodes))
    assert any(n.op.name == "greater" for n in forward.nodes)
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_fusion_keeps_a_recomputable_mask_before_a_mutation_of_what_it_reads():
    """The mask of a parameter moves to its reader only if no state kernel runs in between: an
    assign there would change what the moved nodes read."""
    from graph.passes.fusion import _sink_recomputable
    from graph.passes.schedule import Kernel
    g, (x, p) = _graph((6, 4), (6, 4), params=(1,))
    h = F.mul(F.add(x, p), 2.0)
    mask = F.cast(F.greater(p, 0.0), dtype=float32)
    negated = F.neg(p)
    F.assign(p, negated)
    out = F.mul(h, mask)
    g.set_outputs([out])
    add, mul, greater, cast, neg, assign, last = g.nodes

    def kernels():
        return [Kernel("fused", [add, mul, greater, cast], [x, p], [h, mask]),
                Kernel("fused", [neg], [p], [negated]),
                Kernel("state", [assign], [p, negated], []),
                Kernel("fused", [last], [h, mask], [out])]
    assert [n.op.name for n in _sink_recomputable(g, kernels())[-1].nodes] == ["mul"]  # stays put
    no_state = [k for i, k in enumerate(kernels()) if i != 2]
    assert [n.op.name for n in _sink_recomputable(g, no_state)[-1].nodes] == ["greater", "cast", "mul"]


def test_fusion_never_crosses_matmul_and_avoids_cycles():
    g, (x, w) = _graph((4, 4), (4, 4))
    a = F.mul(x, 2.0)
    m = F.matmul(a, w)
    y = F.add(a, m)  # fusing y into a's kernel would need the matmul inside it
    z = F.tanh(F.add(y, x))
    g.set_outputs([z])
    s = fuse(g)
    check_schedule(s)
    assert [k.kind for k in s.kernels] == ["fused", "extern", "fused"]
    assert [n.op.name for n in s.kernels[2].nodes] == ["add", "add", "tanh"]
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_fusion_merges_two_groups_only_when_independent():
    g, (x, w) = _graph((4, 4), (4, 4))
    a = F.exp(x)
    b = F.tanh(F.matmul(a, w))  # b's group depends on a's through the matmul
    c = F.add(a, b)
    d = F.sin(x)
    e = F.add(F.mul(c, d), 1.0)  # c's and d's groups are independent: they may merge
    g.set_outputs([e])
    s = fuse(g)
    check_schedule(s)
    kinds = [(k.kind, [n.op.name for n in k.nodes]) for k in s.kernels]
    assert ("extern", ["matmul"]) in kinds
    assert sum(1 for kind, _ in kinds if kind == "fused") == 2
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_fusion_does_not_merge_a_group_with_one_that_depends_on_it():
    g, (x, w) = _graph((4, 4), (4, 4))
    b0 = F.sin(x)  # group B starts first...
    a = F.exp(x)  # ...group A second
    b1 = F.add(b0, F.matmul(a, w))  # B now depends on A through the matmul
    n = F.mul(a, b1)  # n may join B or A, not both: B+A would contain the matmul's input and output
    g.set_outputs([n])
    s = fuse(g)
    check_schedule(s)
    assert [[n_.op.name for n_ in k.nodes] for k in s.kernels] == [["exp"], ["matmul"], ["sin", "add", "mul"]]
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_fusion_tracks_dependencies_a_group_gains_after_it_has_consumers():
    g, (x, w, v) = _graph((4, 4), (4, 4), (4,))
    g0 = F.exp(x)  # group G
    d = F.reduce_sum(F.matmul(g0, w), axis=0)  # D depends on G
    k = F.sin(v)  # group K, shape (4,)
    n = F.add(g0, k)  # joins G: now G depends on K, so D depends on K too
    k2 = F.add(k, d)  # joining K would close the cycle K -> G -> matmul -> D -> K
    g.set_outputs([k2, n])
    s = fuse(g)
    check_schedule(s)
    assert [[n_.op.name for n_ in kk.nodes] for kk in s.kernels] == [
        ["sin"], ["exp", "add"], ["matmul"], ["reduce_sum"], ["add"]]
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_fusion_keeps_side_effect_order_and_assign_after_readers():
    g, (x, p) = _graph((3, 3), (3, 3), params=(1,))
    d1 = F.dropout(x, keep_prob=0.5)[0]
    r = F.tanh(p)  # reads the old p
    F.assign(p, F.mul(d1, 2.0))
    d2 = F.dropout(F.add(x, 1.0), keep_prob=0.5)[0]
    g.set_outputs([F.add(r, d2), d1])
    s = fuse(g)
    check_schedule(s)
    pos = {n.op.name: i for i, k in enumerate(s.kernels) for n in k.nodes}
    assert pos["tanh"] < pos["assign"]
    effects = [n.op.name for k in s.kernels for n in k.nodes if n.op.kind in ("random", "state")]
    assert effects == ["dropout", "assign", "dropout"]
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


# -- parameter updates handed over ------------------------------------------------------------------------
def test_fresh_values_become_the_updates_and_their_assigns_disappear():
    g, (x, m, w) = _graph((3, 4), (3, 4), (3, 4), params=(1, 2))
    m2 = F.assign(m, F.add(F.mul(m, 0.9), x))  # a momentum update ...
    F.assign(w, F.sub(w, F.mul(m2, 0.1)))  # ... read by the weight update
    g.set_outputs([F.reduce_sum(x)])
    g2 = hand_over_updates(g)
    g2.verify()
    assert "assign" not in [n.op.name for n in g2.nodes]
    new_m, new_w = (g2.updates[p] for p in g2.params)
    assert new_m.producer.op.name == "add" and new_w.producer.op.name == "sub"
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_graph(g2, arrays))
    # with no assign between them, the moment and the weight update fuse into one kernel
    sched = optimize(g, "O1", verify=True)
    check_schedule(sched)
    fused = [k for k in sched.kernels if {"add", "sub"} <= {n.op.name for n in k.nodes}]
    assert len(fused) == 1 and {v.id for v in fused[0].outputs} >= {new.id for new in sched.graph.updates.values()}
    assert_same(run_graph(g, arrays), run_sched(sched, arrays))


def test_updates_that_need_a_copy_keep_their_assign():
    g, (x, v, a, b, c, d, e) = _graph((3, 4), (4,), (3, 4), (3, 4), (3, 4), (3, 4), (3, 4),
                                     params=(2, 3, 4, 5, 6))
    F.assign(a, v)  # broadcast (4,) -> (3, 4)
    F.assign(b, x)  # a graph input: the caller keeps it
    shared = F.tanh(x)
    F.assign(c, shared)  # one value to two parameters: they must not share memory
    F.assign(d, shared)
    out = F.exp(x)
    F.assign(e, out)  # also a graph output
    g.set_outputs([out, F.reshape(F.cast(x, dtype=float32), shape=(12,))])
    g2 = hand_over_updates(g)
    g2.verify()
    assert [n.op.name for n in g2.nodes].count("assign") == 5
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_graph(g2, arrays))


def test_a_cast_to_its_own_dtype_is_not_handed_over():
    g, (x, p) = _graph((3, 4), (3, 4), params=(1,))
    F.assign(p, F.cast(x, dtype=float32))  # the reference impl returns x itself
    g.set_outputs([])
    g2 = hand_over_updates(g)
    assert [n.op.name for n in g2.nodes] == ["cast", "assign"]
    arrays = inputs_for(g)
    _, updates = run_graph(g2, arrays)
    assert not np.shares_memory(updates[1], arrays[0])


def test_unfused_schedule_is_one_kernel_per_node():
    g = random_graph(3)
    s = schedule_nodes(g)
    check_schedule(s)
    assert len(s.kernels) == len(g.nodes) and all(len(k.nodes) == 1 for k in s.kernels)
    assert [k.nodes[0] for k in s.kernels] == g.nodes


# -- memory planning -----------------------------------------------------------------------------------------------
def test_memory_plan_reuses_slots_along_a_chain():
    g, (x, w) = _graph((8, 8), (8, 8))
    v = x
    for _ in range(6):
        v = F.matmul(v, w)  # externs: each value is live for one kernel
    g.set_outputs([F.reduce_sum(v)])
    s = plan_memory(fuse(g))
    check_memory_plan(s)
    assert len(s.buffers) == 6 and len(s.slot_sizes) == 2 and s.slot_sizes[0] == 8 * 8 * 4
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_memory_plan_writes_in_place_when_an_input_dies():
    g, (x, w) = _graph((8, 8), (8, 8))
    m = F.matmul(x, w)
    e = F.exp(F.tanh(m))  # m dies here: e may overwrite it
    m2 = F.matmul(e, w)
    keep = F.matmul(x, w)
    f = F.add(keep, m2)  # keep still alive after? no: both die here -> one of them is reused
    g.set_outputs([F.reduce_sum(F.mul(f, f)), F.reduce_sum(keep)])
    s = plan_memory(fuse(g))
    check_memory_plan(s)
    assert s.inplace.get(e.id) == m.id and s.buffers[e.id] == s.buffers[m.id]
    assert keep.id not in s.inplace.values()  # still read by a later kernel
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_memory_plan_never_plans_escaping_values_and_extends_views():
    g, (x, w) = _graph((4, 6), (6, 6))
    h = F.matmul(x, w)
    out = F.reshape(h, shape=(6, 4))  # escapes through a view: h must not be reused
    t = F.transpose(F.matmul(x, w), perm=(1, 0))  # a view of a planned value
    u = F.exp(F.mul(t, 2.0))
    g.set_outputs([out, F.reduce_sum(u)])
    s = plan_memory(fuse(g))
    check_memory_plan(s)
    assert h.id not in s.buffers and out.id not in s.buffers
    arrays = inputs_for(g)
    assert_same(run_graph(g, arrays), run_sched(s, arrays))


def test_run_schedule_catches_a_bad_memory_plan():
    """The slot-backed executor must notice two live values sharing a slot (the check can fail)."""
    g, (x, w) = _graph((4, 4), (4, 4))
    a = F.matmul(x, w)
    b = F.matmul(w, x)
    g.set_outputs([F.add(a, b)])
    s = plan_memory(fuse(g))
    assert s.buffers[a.id] != s.buffers[b.id]
    s.buffers[b.id] = s.buffers[a.id]
    with pytest.raises(AssertionError):
        check_memory_plan(s)
    arrays = inputs_for(g)
    with pytest.raises(AssertionError):
        assert_same(run_graph(g, arrays), run_sched(s, arrays))


# -- outputs in memory of their own ------------------------------------------------------------------------------------
def _outputs_share(level, graph, arrays):
    """For each output of two runs of the optimised graph: whether it shares memory with an input
    array, with an earlier output of the same run, or with the same output of the other run."""
    s = optimize(graph, level)
    first, _ = run_sched(s, arrays)
    second, _ = run_sched(s, arrays)
    return [any(np.shares_memory(o, a) for a in arrays) or any(np.shares_memory(o, p) for p in first[:k])
            or np.shares_memory(o, second[k]) for k, o in enumerate(first)]


@pytest.mark.parametrize("level", sorted(PIPELINES))
def test_outputs_the_passes_made_share_memory_get_their_own(level):
    """``x * 1`` simplified to the input, ``p + 0`` to a Parameter, a folded constant (one array
    for every run), two equal results CSE merges: each output gets memory of its own, as each
    op's result has eagerly."""
    g, (x, p) = _graph((2, 3), (2, 3), params=(1,))
    c = g.add_const(np.ones((2, 3), np.float32))
    g.set_outputs([F.mul(x, 1.0), F.add(p, 0.0), F.mul(F.add(c, 1.0), 2.0), F.tanh(x), F.tanh(x)])
    arrays = inputs_for(g)
    assert _outputs_share(level, g, arrays) == [False] * 5
    assert_same(run_graph(g, arrays), run_sched(optimize(g, level), arrays))


def test_an_output_that_is_a_view_of_an_input_stays_one():
    """A reshape of an input returned is what the user wrote (eagerly a view too): no copy; the
    same reshape of ``x * 1`` is copied (the passes made it a view of ``x``)."""
    from graph.passes import output_roots, own_outputs
    g, (x,) = _graph((2, 3))
    g.set_outputs([F.reshape(x, shape=(3, 2)), F.reshape(F.mul(x, 1.0), shape=(6,))])
    out = own_outputs(simplify(g), output_roots(g))
    assert [n.op.name for n in out.nodes] == ["reshape", "reshape", "identity"]
    assert out.outputs[0].producer.op.name == "reshape" and out.outputs[1].producer.op.name == "identity"
    assert own_outputs(g, output_roots(g)) is g  # nothing changed: the graph itself


# -- pipeline --------------------------------------------------------------------------------------------------------
def test_pipelines_are_inspectable_and_levels_differ():
    assert PIPELINES["O0"] == ["dce", "strength", "own_outputs", "unfused"]
    assert PIPELINES["O1"] == ["dce", "lower", "cse", "fold", "simplify", "dce", "updates", "strength", "own_outputs",
                               "fuse", "plan_memory"]
    assert PIPELINES["O2"][2][0] == "fixpoint"
    g = random_graph(5)
    s0, s1 = optimize(g, "O0"), optimize(g, "O1")
    assert all(len(k.nodes) == 1 for k in s0.kernels) and not s0.buffers
    assert len(s1.kernels) < len(s0.kernels) and s1.slot_sizes is not None
    with pytest.raises(ValueError, match="O3.*O0"):
        optimize(g, "O3")


def test_o2_reaches_a_fixpoint_that_o1_may_not():
    g, (x,) = _graph((3,))
    c = g.add_const(np.ones(3, np.float32))
    k = F.mul(F.add(c, -1.0), 5.0)  # folds to zeros: x + k becomes x + 0 only after folding
    v = F.add(x, F.reshape(F.reshape(k, shape=(1, 3)), shape=(3,)))
    g.set_outputs([F.tanh(v)])
    s2 = optimize(g, "O2", verify=True)
    assert [n.op.name for k in s2.kernels for n in k.nodes] == ["tanh"]


def test_dump_after_each_pass(tmp_path):
    g = random_graph(1)
    optimize(g, "O1", dump_dir=str(tmp_path))
    names = sorted(os.listdir(tmp_path))
    expected = ["00_input", "01_dce", "02_lower", "03_cse", "04_fold", "05_simplify", "06_dce", "07_updates",
                "08_strength", "09_own_outputs"]
    assert names == sorted([f"{n}.{e}" for n in expected for e in ("ir", "dot")]
                           + ["10_fuse.sched", "11_plan_memory.sched"])
    text = (tmp_path / "03_cse.ir").read_text()
    assert text.startswith("graph rand1(") and "return" in text and "update p <-" in text
    assert "slots:" in (tmp_path / "11_plan_memory.sched").read_text()
    d2 = tmp_path / "o2"
    optimize(g, "O2", dump_dir=str(d2))
    o2 = sorted(os.listdir(d2))
    assert o2[0] == "00_input.dot" and "03_cse.ir" in o2 and o2[-1].endswith("_plan_memory.sched")


def test_large_graph_compiles_without_recursion_or_blowup():
    g, (x,) = _graph((4, 4))
    v = x
    for i in range(3000):
        v = F.add(F.mul(v, 0.5), F.tanh(v)) if i % 50 else F.matmul(v, x)
    g.set_outputs([v])
    s = optimize(g, "O2")
    check_schedule(s)
    # 60 products, and between two of them 49 links of 3 elementwise ops, fused into kernels of at
    # most MAX_KERNEL_NODES nodes (LLVM's time grows faster than linearly with a kernel's size)
    from graph.passes.fusion import MAX_KERNEL_NODES
    fused = [k for k in s.kernels if k.kind == "fused"]
    assert len(s.kernels) - len(fused) == 60
    assert len(fused) == 60 * -(-49 * 3 // MAX_KERNEL_NODES)
    assert max(len(k.nodes) for k in fused) == MAX_KERNEL_NODES


def test_fusion_cuts_a_long_elementwise_chain_into_bounded_kernels():
    """A chain of 5,001 elementwise ops (``tanh(x*1.5+0.1)`` 1,667 times) is not one kernel:
    each fused kernel has at most MAX_KERNEL_NODES nodes, all nodes are kept, in order."""
    from graph.passes.fusion import MAX_KERNEL_NODES
    g, (x,) = _graph((4, 4))
    v = x
    for i in range(1667):
        v = F.tanh(F.add(F.mul(v, 1.5), 0.1))
    g.set_outputs([v])
    s = optimize(g, "O2")
    check_schedule(s)
    sizes = [len(k.nodes) for k in s.kernels]
    assert all(k.kind == "fused" for k in s.kernels)
    assert sum(sizes) == 3 * 1667 and max(sizes) <= MAX_KERNEL_NODES
    assert len(s.kernels) == -(-3 * 1667 // MAX_KERNEL_NODES)


def test_bias_add_is_lowered_and_fused_with_the_activation():
    """bias_add + relu become one fused kernel (bias read through a layout view)."""
    from graph.aval import AVal
    from graph.dtypes import float32
    from graph.interpret import run as _run
    from graph.ir import Graph as _Graph
    from graph.ops import F as _F
    from graph.passes import optimize as _optimize
    from graph.passes.execute import run_schedule as _run_schedule
    g = _Graph("bias_relu")
    x = g.add_input(AVal((2, 3, 4, 4), float32), "x")
    b = g.add_input(AVal((3,), float32), "b")
    g.set_outputs([_F.relu(_F.bias_add(x, b))])
    sched = _optimize(g, "O1")
    fused = [k for k in sched.kernels if k.kind == "fused"]
    assert len(fused) == 1 and {n.op.name for n in fused[0].nodes} == {"add", "relu"}
    assert all(n.op.name != "bias_add" for k in sched.kernels for n in k.nodes)
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(2, 3, 4, 4)).astype(np.float32), rng.normal(size=3).astype(np.float32)]
    want = np.maximum(arrays[0] + arrays[1].reshape(1, 3, 1, 1), 0)
    np.testing.assert_allclose(_run(g, arrays)[0][0], want, rtol=1e-6)
    np.testing.assert_allclose(_run_schedule(sched, arrays)[0][0], want, rtol=1e-6)


@pytest.mark.parametrize("dtype,begin", [(np.float32, -1), (np.float64, 1)])
def test_layer_norm_is_lowered_to_fused_reductions(dtype, begin):
    """layer_norm becomes the reductions and elementwise ops of its definition (no numpy step inside
    compiled code); its three outputs (y, mean, rstd) equal the op's numpy implementation, and a
    float16 or mixed-dtype layer_norm stays whole."""
    from graph.dtypes import float16, float64
    from graph.ops import REGISTRY
    from graph.passes.lower import lower_convolutions
    dt = float32 if dtype == np.float32 else float64
    g = Graph("ln")
    x = g.add_input(AVal((3, 4, 6), dt), "x")
    gamma = g.add_input(AVal((4, 6) if begin == 1 else (6,), dt), "gamma")
    beta = g.add_input(AVal(gamma.shape, dt), "beta")
    g.set_outputs(list(F.layer_norm(x, gamma, beta, begin_norm_axis=begin, begin_params_axis=begin, epsilon=1e-5)))
    sched = optimize(g, "O1")
    assert all(n.op.name != "layer_norm" for k in sched.kernels for n in k.nodes)
    assert all(k.kind == "fused" for k in sched.kernels), [k.kind for k in sched.kernels]
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=(3, 4, 6)).astype(dtype) * 3 + 1, rng.uniform(0.5, 1.5, gamma.shape).astype(dtype),
              rng.normal(size=gamma.shape).astype(dtype)]
    want = REGISTRY["layer_norm"].impl(np, *arrays, begin_norm_axis=begin, begin_params_axis=begin, epsilon=1e-5)
    got = run_schedule(sched, arrays)[0]
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-13)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **tol)
    for other in (float16, float64 if dt is float32 else float32):
        h = Graph("ln_kept")
        xs = h.add_input(AVal((2, 6), float16 if other is float16 else dt), "x")
        ps = [h.add_input(AVal((6,), other), n) for n in ("gamma", "beta")]
        h.set_outputs(list(F.layer_norm(xs, *ps)))
        assert [n.op.name for n in lower_convolutions(h).nodes] == ["layer_norm"]
