"""ms.vmap: in_axes/out_axes, nesting, every batching rule against the per-example loop, the
fallback loop, vmap(grad) per-sample gradients (the TD(0) per-sample-gradients tutorial's
computation), grad(vmap), and compiled under ms.jit with parameters read live (no stale
constants). The oracle is always the function applied to one example at a time."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops
from graph.ops import REGISTRY
from runtime.vmap_rules import RULES, apply_batched, loop

RNG = np.random.default_rng(0)


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return x.asnumpy()


def per_example(fn, args, in_axes):
    """The oracle: ``fn`` on each example, results stacked on axis 0."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(a.shape[ax] for a, ax in zip(args, axes) if ax is not None)
    outs = []
    for i in range(size):
        ex = [a if ax is None else Tensor(np.take(a.asnumpy(), i, axis=ax)) for a, ax in zip(args, axes)]
        outs.append(fn(*ex))
    if isinstance(outs[0], tuple):
        return [np.stack([_np(o[k]) for o in outs]) for k in range(len(outs[0]))]
    return np.stack([_np(o) for o in outs])


def _close(got, want, tol=1e-5):
    if isinstance(want, list):
        for g, w in zip(got, want):
            _close(g, w, tol)
        return
    np.testing.assert_allclose(_np(got), want, rtol=tol, atol=tol)


def test_documented_example_and_axes():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    w = Tensor([1.0, 10.0, 100.0])
    assert ms.vmap(lambda r, m: (r * m).sum(), in_axes=(0, None))(x, w).asnumpy().tolist() == [210.0, 543.0]
    a = Tensor(RNG.standard_normal((3, 4, 5)).astype(np.float32))
    b = Tensor(RNG.standard_normal((5, 4)).astype(np.float32))

    def f(u, v):
        return ops.matmul(u, v), (u * 2).sum()
    out = ms.vmap(f, in_axes=(1, 1), out_axes=(1, 0))(a, b)  # u: (3, 5), v: (5,) per example
    want = per_example(f, (a, b), (1, 1))
    _close(out[0], np.moveaxis(want[0], 0, 1))
    _close(out[1], want[1])
    # nested in_axes over a tuple argument, and an unbatched output broadcast along the batch
    g = ms.vmap(lambda pair, c: (pair[0] + pair[1] * c, c), in_axes=((0, None), None))
    p0 = Tensor(RNG.standard_normal((4, 2)).astype(np.float32))
    p1 = Tensor(RNG.standard_normal(2).astype(np.float32))
    res, c_out = g((p0, p1), Tensor(np.float32(3.0)))
    _close(res, p0.asnumpy() + p1.asnumpy() * 3.0)
    assert c_out.shape == (4,) and np.all(c_out.asnumpy() == 3.0)


def test_nested_vmap_equals_double_loop():
    x = Tensor(RNG.standard_normal((3, 4, 5)).astype(np.float32))
    w = Tensor(RNG.standard_normal((5, 2)).astype(np.float32))

    def f(row, m):
        return ops.softmax(ops.matmul(row, m), -1).sum() + ops.tanh(row).mean()
    inner = ms.vmap(f, in_axes=(0, None))
    outer = ms.vmap(inner, in_axes=(1, None), out_axes=1)
    got = outer(x, w)
    want = np.array([[f(Tensor(x.asnumpy()[i, j]), w).asnumpy() for j in range(4)] for i in range(3)])
    assert got.shape == (3, 4)
    _close(got, want)


# every rule against the loop: (op, per-example operand shapes (None: unbatched scalar), which are batched, attrs)
CASES = [
    ("add", [(3, 4), (4,)], [True, False], {}), ("mul", [(3, 4), (3, 4)], [True, True], {}),
    ("where", [(3,), (3,), (2, 3)], [True, False, True], {}), ("exp", [(2, 3)], [True], {}),
    ("reduce_sum", [(3, 4)], [True], {"axis": 1, "keep_dims": True}),
    ("reduce_max", [(3, 4)], [True], {"axis": None}), ("reduce_mean", [(2, 3, 4)], [True], {"axis": (-1, 0)}),
    ("argmax", [(3, 4)], [True], {"axis": 0}), ("cumsum", [(3, 4)], [True], {"axis": -1}),
    ("softmax", [(3, 4)], [True], {"axis": 0}), ("log_softmax", [(3, 4)], [True], {"axis": -1}),
    ("logsumexp", [(3, 4)], [True], {"axis": 1}), ("sort", [(3, 4)], [True], {"axis": 0}),
    ("reshape", [(3, 4)], [True], {"shape": (2, -1)}), ("transpose", [(2, 3, 4)], [True], {"perm": (2, 0, 1)}),
    ("transpose", [(2, 3)], [True], {"perm": None}), ("expand_dims", [(3, 4)], [True], {"axis": -1}),
    ("squeeze", [(3, 1, 4)], [True], {"axis": None}), ("broadcast_to", [(4,)], [True], {"shape": (3, 4)}),
    ("tile", [(2, 3)], [True], {"multiples": (2, 1, 2)}), ("concat", [(2, 3), (1, 3)], [True, False], {"axis": 0}),
    ("stack", [(2, 3), (2, 3)], [False, True], {"axis": -1}), ("split", [(4, 6)], [True], {"axis": 1, "output_num": 3}),
    ("slice", [(4, 6)], [True], {"begin": (1, 2), "size": (2, 3)}),
    ("getitem", [(4, 6)], [True], {"index": (("slice", 1, None, 2), -1)}),
    ("matmul", [(3, 4), (4, 5)], [True, False], {}), ("matmul", [(4,), (4, 5)], [True, True], {}),
    ("matmul", [(5, 4), (4,)], [False, True], {"transpose_a": False}),
    ("matmul", [(3, 4), (5, 4)], [True, False], {"transpose_b": True}),
    ("matmul", [(4,), (4,)], [True, True], {}), ("matmul", [(4,), (4,)], [True, False], {}),
    ("matmul", [(4,), (4, 3)], [False, True], {}), ("matmul", [(2, 3, 4), (4, 2)], [True, True], {}),
    ("gather", [(5, 3), (4,)], [True, False], {"axis": 0}), ("gather", [(5, 3), (2,)], [False, True], {"axis": 1}),
    ("layer_norm", [(3, 4), (4,), (4,)], [True, False, False], {"begin_norm_axis": 1, "begin_params_axis": 1}),
    ("conv2d", [(2, 3, 6, 6), (4, 3, 3, 3)], [True, False], {"pad_mode": "valid"}),
    ("max_pool2d", [(2, 3, 6, 6)], [True], {"kernel_size": 2, "stride": 2}),
    ("bias_add", [(2, 3, 4, 4), (3,)], [True, False], {}),
    ("strided_slice", [(4, 6)], [True], {"begin": (0, 1), "end": (4, 6), "strides": (2, 2)}),
    ("strided_slice", [(4, 6, 2)], [True], {"begin": (1, 0), "end": (3, 5), "strides": (1, 2), "end_mask": 1,
                                            "shrink_axis_mask": 2}),
    ("softmax_cross_entropy", [(4, 5), (4, 5)], [True, False], {}),
    ("unsorted_segment_sum", [(5, 3), "segments"], [True, False], {"num_segments": 4}),
    # ops without a rule: the loop
    ("sparse_softmax_cross_entropy", [(3, 5), "labels"], [True, True], {}),
]


def _operand(shape, batched, size):
    if shape == "labels":
        return Tensor(RNG.integers(0, 5, (size, 3) if batched else (3,)).astype(np.int32))
    if shape == "segments":
        return Tensor(np.array([0, 3, 0, 1, 3], np.int32))
    full = ((size,) if batched else ()) + tuple(shape)
    return Tensor(RNG.standard_normal(full).astype(np.float32))


@pytest.mark.parametrize("name,shapes,batched,attrs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rules_equal_the_loop(name, shapes, batched, attrs):
    op = REGISTRY[name]
    size = 3
    values = [_operand(s, b, size) for s, b in zip(shapes, batched)]
    if name == "where":
        values[0] = Tensor(RNG.random((size, 3)) > 0.5)
    if name in ("gather",):
        n = values[0].shape[-2 if batched[0] else 0] if attrs["axis"] == 0 else values[0].shape[-1]
        values[1] = Tensor(RNG.integers(0, n, values[1].shape).astype(np.int32))
    attrs = op.normalize(attrs)
    got = apply_batched(op, values, batched, attrs, size)
    want = loop(op, values, batched, attrs, size)
    _close(got, _np(want) if not isinstance(want, tuple) else [_np(w) for w in want])
    # and the rule is a rule: it is used (not the loop) for every op in RULES
    assert (name in RULES or op.kind in ("elementwise", "reduction")) == (name != "sparse_softmax_cross_entropy")


def test_vmap_of_grad_gives_per_sample_gradients_td0():
    """The per-sample-gradients tutorial's computation (TD(0) with a linear value function):
    the per-sample gradient of each sample's TD loss with respect to the weights."""
    num_states = 6
    w = Tensor(RNG.standard_normal(4).astype(np.float32))
    states = Tensor(RNG.standard_normal((num_states, 4)).astype(np.float32))
    next_states = Tensor(RNG.standard_normal((num_states, 4)).astype(np.float32))
    rewards = Tensor(RNG.standard_normal(num_states).astype(np.float32))
    gamma = 0.9

    def td_loss(weights, s, r, s_next):
        v = ops.matmul(s, weights)
        target = ops.stop_gradient(r + gamma * ops.matmul(s_next, weights))
        return ops.square(target - v)

    per_sample = ms.vmap(ms.grad(td_loss), in_axes=(None, 0, 0, 0))(w, states, rewards, next_states)
    want = per_example(ms.grad(td_loss), (w, states, rewards, next_states), (None, 0, 0, 0))
    _close(per_sample, want)
    # the closed form: -2 (r + gamma v' - v) s
    sn, rn, nn_, wn = states.asnumpy(), rewards.asnumpy(), next_states.asnumpy(), w.asnumpy()
    delta = rn + gamma * nn_ @ wn - sn @ wn
    _close(per_sample, -2 * delta[:, None] * sn, 1e-4)


def test_per_sample_gradients_of_network_parameters():
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Dense(3, 5), nn.Tanh(), nn.Dense(5, 2)])
    loss_fn = nn.MSELoss()

    def loss(x, y):
        return loss_fn(net(ops.expand_dims(x, 0)), ops.expand_dims(y, 0))
    grad_fn = ms.grad(loss, None, net.trainable_params())
    xs = Tensor(RNG.standard_normal((4, 3)).astype(np.float32))
    ys = Tensor(RNG.standard_normal((4, 2)).astype(np.float32))
    got = ms.vmap(grad_fn)(xs, ys)
    want = per_example(grad_fn, (xs, ys), (0, 0))
    assert [g.shape for g in got] == [(4, 5, 3), (4, 5), (4, 2, 5), (4, 2)]
    _close(list(got), want)
    # the mean of the per-sample gradients is the batch gradient
    batch = ms.grad(lambda x, y: loss_fn(net(x), y), None, net.trainable_params())(xs, ys)
    _close(ops.mean(got[0], 0), batch[0].asnumpy())


def test_grad_of_vmap_and_higher_order():
    x = Tensor(RNG.standard_normal((3, 4)).astype(np.float64))
    g = ms.grad(lambda t: ms.vmap(lambda r: (ops.sin(r) * r).sum())(t).sum())(x)
    xn = x.asnumpy()
    _close(g, np.cos(xn) * xn + np.sin(xn))
    hess_diag = ms.vmap(ms.grad(ms.grad(lambda s: ops.sin(s) * s)))(Tensor(xn[0]))
    _close(hess_diag, 2 * np.cos(xn[0]) - xn[0] * np.sin(xn[0]))


def test_vmap_compiles_under_jit_and_reads_parameters_live():
    import capture
    net = nn.Dense(3, 2)
    per_sample = ms.vmap(ms.grad(lambda x: (net(ops.expand_dims(x, 0)) ** 2).sum(), None, net.trainable_params()))
    step = ms.jit(lambda xs: per_sample(xs))
    xs = Tensor(RNG.standard_normal((4, 3)).astype(np.float32))
    report = capture.explain(step)(xs)
    assert report.graph_break_count == 0 and report.graph_count >= 1, report
    _close(list(step(xs)), [_np(g) for g in per_sample(xs)])
    net.weight.set_data(net.weight.asnumpy() * 3.0)  # the compiled graph must see the new weights
    _close(list(step(xs)), [_np(g) for g in per_sample(xs)])


def test_errors():
    x = Tensor(np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="different sizes"):
        ms.vmap(lambda a, b: a + b)(x, Tensor(np.zeros((4, 2), np.float32)))
    with pytest.raises(ValueError, match="at least one"):
        ms.vmap(lambda a: a, in_axes=None)(x)
    with pytest.raises(ValueError, match="in_axes has 2 entries"):
        ms.vmap(lambda a: a, in_axes=(0, 0))(x)
    with pytest.raises(ValueError, match="out of range"):
        ms.vmap(lambda a: a, in_axes=2)(x)
    with pytest.raises(ValueError, match="cannot read the values"):
        ms.vmap(lambda a: float(a.sum()))(x)
    with pytest.raises(ValueError, match="out_axes is None"):
        ms.vmap(lambda a: a * 2, out_axes=None)(x)
    with pytest.raises(ValueError, match="3 models"):
        ms.vmap(nn.CellList([nn.Dense(2, 2) for _ in range(3)]))(Tensor(np.zeros((4, 2), np.float32)))


def test_model_ensembling_over_a_cell_list():
    """The vmap tutorial's model ensembling: every model on one input (in_axes=None), model i on
    input i (in_axes=0), and an ensembled training step updating each model with its own data."""
    ms.set_seed(0)
    nets = nn.CellList([nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)]) for _ in range(3)])
    x = Tensor(RNG.standard_normal((5, 3)).astype(np.float32))
    out = ms.vmap(nets, in_axes=None)(x)
    assert out.shape == (3, 5, 2)
    for i in range(3):
        _close(out[i], nets[i](x).asnumpy())
    xs = Tensor(RNG.standard_normal((3, 5, 3)).astype(np.float32))
    out = ms.vmap(nets, in_axes=0, out_axes=1)(xs)
    assert out.shape == (5, 3, 2)
    for i in range(3):
        _close(out[:, i], nets[i](xs[i]).asnumpy())

    class TrainOneStepNet(nn.Cell):
        def __init__(self, net, lr):
            super().__init__()
            self.loss_fn = nn.WithLossCell(net, nn.MSELoss())
            self.weight = ms.ParameterTuple(net.trainable_params())
            self.opt = nn.SGD(self.weight, learning_rate=lr)

        def construct(self, batch, targets):
            loss = self.loss_fn(batch, targets)
            grads = ms.grad(self.loss_fn, grad_position=None, weights=self.weight)(batch, targets)
            self.opt(grads)
            return loss

    before = [n[0].weight.asnumpy().copy() for n in nets]
    ys = Tensor(RNG.standard_normal((3, 5, 2)).astype(np.float32))
    expected = []
    for i in range(3):  # the oracle: each model's own gradient step on its own data
        g = ms.grad(lambda a, b: nn.MSELoss()(nets[i](a), b), None, nets[i].trainable_params())(xs[i], ys[i])
        expected.append(before[i] - 0.1 * g[0].asnumpy())
    losses = ms.vmap(nn.CellList([TrainOneStepNet(n, 0.1) for n in nets]))(xs, ys)
    assert losses.shape == (3,)
    for i in range(3):
        _close(nets[i][0].weight, expected[i])


def test_grad_through_vmap_sums_the_examples_for_closed_over_tensors():
    """A tensor from outside the vmap (closed over) used by every example and outside it too:
    its gradient adds the examples' contributions once each (not the outside use B times)."""
    x = Tensor(np.array([1.0, 2.0, 3.0]))
    rows = Tensor(RNG.standard_normal((4, 3)))
    g = ms.grad(lambda t: ms.vmap(lambda r: r * t * t)(rows).sum() + (t * 2).sum())(x)
    _close(g, 2 * x.asnumpy() * rows.asnumpy().sum(0) + 2)
    # a Hessian-vector product as jvp(grad) and as the vjp of grad (the Jacobians tutorial's hvp)
    f = lambda t: ops.sin(t).sum()
    v = Tensor(RNG.standard_normal(3))
    hvp_fwd = ms.jvp(ms.grad(f), x, v)[1]
    hvp_rev = ms.vjp(ms.grad(f), x)[1](v)[0]
    _close(hvp_fwd, -np.sin(x.asnumpy()) * v.asnumpy())
    _close(hvp_rev, -np.sin(x.asnumpy()) * v.asnumpy())


def test_compiled_cell_inside_vmap_of_grad_in_graph_mode():
    """GRAPH_MODE: a Cell called on batched tensors runs its construct on them; a compiled
    region's backward met with batched cotangents runs once per example."""
    net = nn.Dense(3, 2)
    xs = Tensor(RNG.standard_normal((4, 3)).astype(np.float32))
    per_ex = ms.vmap(ms.grad(lambda x: (net(ops.expand_dims(x, 0)) ** 2).sum()))
    want = per_ex(xs).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = per_ex(xs).asnumpy()
        jac = ms.jacrev(net)(xs)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    w = net.weight.asnumpy()
    np.testing.assert_allclose(jac.asnumpy(), np.einsum("ik,jl->ijkl", np.eye(4), w), rtol=1e-5, atol=1e-6)
