"""The reference interpreter against PyNative results, and graph autodiff (``append_vjp``) against
finite differences and eager ``ms.grad`` on random small graphs.

Each computation is written once with ``graph.ops.F``: called on IR Values it builds a graph,
called on eager Tensors it runs in PyNative, so both sides run the same registered ops.
"""
import numpy as np
import pytest

import runtime as ms
from gradcheck import numeric_grad
from graph.aval import AVal
from graph.autodiff import append_vjp
from graph.dtypes import from_numpy
from graph.interpret import run
from graph.ir import PARAM, Graph
from graph.ops import F
from runtime import Tensor


def build(fn, arrays, name="g", param_idx=()):
    """Graph of ``fn`` applied to Values standing for ``arrays``."""
    g = Graph(name)
    ins = [g.add_input(AVal(a.shape, from_numpy(a.dtype)), f"a{i}", kind=PARAM if i in param_idx else "input")
           for i, a in enumerate(arrays)]
    out = fn(*ins)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    g.set_outputs(outs)
    g.verify()
    return g, ins, outs


def eager(fn, arrays):
    out = fn(*[Tensor(a) for a in arrays])
    return list(out) if isinstance(out, (tuple, list)) else [out]


CASES = {
    "elementwise_broadcast": (lambda x, y: F.add(F.mul(F.tanh(x), y), F.sigmoid(F.sub(x, 1.0))),
                              [(3, 4), (4,)], np.float32),
    "int_times_float_scalar": (lambda x: F.add(F.mul(x, 2.5), 1), [(5,)], np.int32),
    "mixed_dtypes": (lambda x, y: F.div(F.add(x, y), 3), [(2, 3), (2, 3)], (np.int32, np.float64)),
    "bool_and_compare": (lambda x, y: F.where(F.greater(x, y), x, F.neg(y)), [(4,), (4,)], np.float32),
    "reductions": (lambda x: (F.reduce_sum(x, axis=1), F.reduce_mean(x, axis=0, keep_dims=True),
                              F.reduce_max(x), F.argmax(x, axis=1)), [(3, 5)], np.float32),
    "softmax_family": (lambda x: (F.softmax(x, axis=-1), F.log_softmax(x, axis=0), F.logsumexp(x, axis=1)),
                       [(3, 4)], np.float32),
    "matmul_transposes": (lambda a, b: (F.matmul(a, b, transpose_b=True), F.matmul(a, b, transpose_a=True)),
                          [(4, 4), (4, 4)], np.float32),
    "shape_ops": (lambda x: (F.reshape(F.transpose(x, perm=(1, 0)), shape=(2, 6)),
                             F.concat(x, x, axis=0), F.split(x, axis=1, output_num=2)[1],
                             F.expand_dims(x, axis=0), F.getitem(x, index=(1, slice(0, 3, 2)))),
                  [(3, 4)], np.float32),
    "cast": (lambda x: F.cast(F.mul(x, 3.7), dtype=ms.int32), [(3,)], np.float32),
    "conv_pool": (lambda x, w: F.max_pool2d(F.relu(F.conv2d(x, w, pad_mode="same")), kernel_size=2, stride=2),
                  [(2, 3, 6, 6), (4, 3, 3, 3)], np.float32),
}


def _arrays(rng, shapes, dtypes):
    dtypes = dtypes if isinstance(dtypes, tuple) else (dtypes,) * len(shapes)
    out = []
    for s, dt in zip(shapes, dtypes):
        a = rng.standard_normal(s) * 3
        out.append(a.astype(dt))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_interpreter_matches_pynative(case, rng):
    fn, shapes, dtypes = CASES[case]
    for _ in range(3):
        arrays = _arrays(rng, shapes, dtypes)
        g, ins, outs = build(fn, arrays, case)
        got, updates = run(g, arrays, check=True)
        want = eager(fn, arrays)
        assert updates == {}
        assert len(got) == len(want)
        for gv, wv, v in zip(got, want, outs):
            w = wv.asnumpy()
            assert gv.dtype == w.dtype == v.dtype.np, (case, gv.dtype, w.dtype, v.aval)
            assert gv.shape == w.shape == v.shape
            np.testing.assert_allclose(gv, w, rtol=1e-6, atol=1e-7, err_msg=case)


def test_interpreter_updates_and_trace(rng):
    p0 = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal(3).astype(np.float32)

    def step(p, x):
        return F.assign(p, F.sub(p, F.mul(x, 0.5)))

    g, ins, outs = build(step, [p0, x], param_idx=(0,))
    seen = []
    (out,), updates = run(g, [p0, x], trace=lambda node, arrs: seen.append(node.op.name))
    np.testing.assert_allclose(updates[0], p0 - x * 0.5, rtol=1e-6)
    np.testing.assert_allclose(out, updates[0])
    assert seen == ["mul", "sub", "assign"]
    with pytest.raises(ValueError, match="expected 2 inputs"):
        run(g, [p0])


def test_interpreter_check_flags_a_lying_infer_rule(rng):
    g, ins, outs = build(lambda x: F.relu(x), [np.ones((2,), np.float32)])
    g.nodes[0].outputs[0].aval = AVal((2,), from_numpy(np.float64))
    with pytest.raises(AssertionError, match="relu"):
        run(g, [np.ones((2,), np.float32)], check=True)


# -- graph autodiff ------------------------------------------------------------------------------------------
UNARY = [F.tanh, F.sigmoid, F.square, F.neg, F.sin, F.cos, F.softplus,
         lambda v: F.exp(F.tanh(v)), lambda v: F.softmax(v, axis=-1), lambda v: F.log_softmax(v, axis=0),
         lambda v: F.gelu(v), lambda v: F.reshape(F.transpose(v, perm=(1, 0)), shape=(3, 4)),
         lambda v: F.div(v, F.add(F.square(v), 1.0)), lambda v: F.mul(v, 0.5)]
BINARY = [F.add, F.sub, F.mul, lambda a, b: F.div(a, F.add(F.square(b), 1.0)),
          lambda a, b: F.matmul(F.matmul(a, b, transpose_b=True), b)]


def random_program(seed, n_ops=8):
    """A random computation over 3 inputs of shape (3, 4) and one of shape (4,) (broadcast)."""
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(n_ops):
        if rng.random() < 0.5:
            steps.append(("u", int(rng.integers(len(UNARY))), int(rng.integers(1 << 16))))
        else:
            steps.append(("b", int(rng.integers(len(BINARY))), int(rng.integers(1 << 16)),
                          int(rng.integers(1 << 16))))
    weights = Tensor(rng.uniform(0.5, 1.5, (3, 4)))  # a constant in the graph, an operand eagerly

    def program(x, y, z, b):
        pool = [x, y, z, F.add(x, b)]
        for step in steps:
            if step[0] == "u":
                pool.append(UNARY[step[1]](pool[step[2] % len(pool)]))
            else:
                pool.append(BINARY[step[1]](pool[step[2] % len(pool)], pool[step[3] % len(pool)]))
        total = pool[-1]
        for v in pool[4:-1]:
            total = F.add(total, F.mul(v, 0.1))
        return F.reduce_sum(F.mul(total, weights))

    return program


@pytest.mark.parametrize("seed", range(12))
def test_append_vjp_matches_finite_differences_and_eager_grad(seed):
    program = random_program(seed)
    rng = np.random.default_rng(100 + seed)
    arrays = [rng.standard_normal((3, 4)) for _ in range(3)] + [rng.standard_normal(4)]
    g, ins, (loss,) = build(program, arrays, f"random{seed}")
    grads = append_vjp(g, [loss], [F.ones_like(loss)], ins)
    unused = [i for i, gr in enumerate(grads) if gr is None]  # inputs the program never read
    grads = [F.zeros_like(v) if gr is None else gr for gr, v in zip(grads, ins)]
    g.set_outputs([loss] + grads)
    g.verify()
    outs, _ = run(g, arrays, check=True)
    # eager forward value and eager tape gradients
    want_loss = eager(program, arrays)[0].asnumpy()
    np.testing.assert_allclose(outs[0], want_loss, rtol=1e-10)
    eager_grads = ms.grad(program, grad_position=(0, 1, 2, 3))(*[Tensor(a) for a in arrays])
    for i, (gv, ev) in enumerate(zip(outs[1:], eager_grads)):
        assert gv.shape == arrays[i].shape
        np.testing.assert_allclose(gv, ev.asnumpy(), rtol=1e-9, atol=1e-12, err_msg=f"input {i}")

    def f(arrs):
        return float(run(fwd, arrs)[0][0])

    fwd, _, _ = build(program, arrays)
    for i in range(4):
        fd = numeric_grad(f, [a.copy() for a in arrays], i)
        np.testing.assert_allclose(outs[1 + i], fd, rtol=1e-5, atol=1e-7, err_msg=f"input {i}")
        if i in unused:
            assert not fd.any()


def test_append_vjp_unused_inputs_and_non_differentiable_ops():
    g = Graph("u")
    x = g.add_input(AVal((3,), from_numpy(np.float64)), "x")
    y = g.add_input(AVal((3,), from_numpy(np.float64)), "y")
    k = F.argmax(x, axis=0)  # no gradient flows through argmax
    loss = F.reduce_sum(F.mul(x, x))
    gx, gy, gk = append_vjp(g, [loss], [F.ones_like(loss)], [x, y, k])
    assert gy is None and gk is None
    g.set_outputs([gx])
    g.verify()
    xs = np.array([1.0, -2.0, 3.0])
    (out,), _ = run(g, [xs, np.zeros(3)])
    np.testing.assert_allclose(out, 2 * xs)


def test_append_vjp_multiple_outputs_and_seeds(rng):
    g = Graph("m")
    x = g.add_input(AVal((2, 3), from_numpy(np.float64)), "x")
    a, b = F.split(x, axis=1, output_num=3)[:2]
    s1, s2 = F.reduce_sum(F.tanh(a)), F.reduce_sum(F.mul(b, b))
    seed1 = g.add_const(np.array(2.0))
    seed2 = g.add_const(np.array(-1.0))
    (gx,) = append_vjp(g, [s1, s2], [seed1, seed2], [x])
    g.set_outputs([gx])
    xs = rng.standard_normal((2, 3))
    (got,), _ = run(g, [xs])

    def total(arrs):
        v = arrs[0]
        return float(2.0 * np.tanh(v[:, 0:1]).sum() - (v[:, 1:2] ** 2).sum())

    np.testing.assert_allclose(got, numeric_grad(total, [xs.copy()], 0), rtol=1e-6, atol=1e-9)


def test_backward_nodes_point_at_the_forward_location():
    g = Graph("loc")
    x = g.add_input(AVal((3,), from_numpy(np.float64)), "x")
    g.current_loc = ("user.py", 7, "y = tanh(x)")
    y = F.reduce_sum(F.tanh(x))
    g.current_loc = ("user.py", 9, "grad")
    (gx,) = append_vjp(g, [y], [F.ones_like(y)], [x])
    backward = g.nodes[3:]
    assert backward and all(n.loc[:2] == ("user.py", 7) for n in backward)
    assert g.current_loc == ("user.py", 9, "grad")
