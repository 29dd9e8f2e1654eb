"""Data-dependent selections (unique, nonzero, masked_select) and the scatter family
(tensor_scatter_*, scatter_nd, ScatterNdUpdate, gather_nd, gather with batch_dims), against
MindSpore 2.x's documented examples and numpy oracles, in PyNative, ms.jit and GRAPH_MODE.
The data-dependent ones break the graph under capture; explain() names the op and the reason."""
import numpy as np
import pytest

import capture
import runtime as ms
from runtime import Parameter, Tensor, nn, ops
from tests.modes import MODES, run_cell


class Fn(nn.Cell):
    """A Cell over a function, to run it in each mode."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


def _np(t):
    return tuple(_np(a) for a in t) if isinstance(t, tuple) else t.asnumpy()


# -- documented examples ----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_unique_documented_example(mode):
    x = Tensor(np.array([1, 2, 5, 2]), ms.int32)
    y, idx = run_cell(mode, Fn(lambda a: ops.Unique()(a)), x)
    assert y.dtype == ms.int32 and idx.dtype == ms.int32
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 5])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 1, 2, 1])


@pytest.mark.parametrize("mode", MODES)
def test_unique_matches_numpy_and_keeps_shape_of_idx(mode):
    a = np.random.default_rng(0).integers(0, 5, size=(3, 4)).astype(np.float32)
    y, idx = run_cell(mode, Fn(ops.unique), Tensor(a))
    want_y, want_idx = np.unique(a, return_inverse=True)
    np.testing.assert_array_equal(y.asnumpy(), want_y)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx.reshape(a.shape))
    np.testing.assert_array_equal(y.asnumpy()[idx.asnumpy()], a)


@pytest.mark.parametrize("mode", MODES)
def test_nonzero_documented_example(mode):
    x = Tensor(np.array([[[1, 0], [-5, 0]]]), ms.int32)
    out = run_cell(mode, Fn(ops.nonzero), x)
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0, 0], [0, 1, 0]])
    rows, cols, deps = ops.nonzero(x, as_tuple=True)
    np.testing.assert_array_equal(cols.asnumpy(), [0, 1])
    a = np.random.default_rng(1).normal(size=(4, 5)) > 0.3
    np.testing.assert_array_equal(run_cell(mode, Fn(ops.nonzero), Tensor(a)).asnumpy(), np.argwhere(a))


@pytest.mark.parametrize("mode", MODES)
def test_masked_select_documented_example_and_broadcast(mode):
    x = Tensor(np.array([1, 2, 3, 4]), ms.int64)
    mask = Tensor(np.array([1, 0, 1, 0]), ms.bool_)
    np.testing.assert_array_equal(run_cell(mode, Fn(ops.masked_select), x, mask).asnumpy(), [1, 3])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    m = np.array([True, False, True])
    got = run_cell(mode, Fn(ops.masked_select), Tensor(a), Tensor(m)).asnumpy()
    np.testing.assert_array_equal(got, np.broadcast_to(a, (2, 3))[np.broadcast_to(m, (2, 3))])


def test_masked_select_gradient_matches_finite_differences():
    m = Tensor(np.array([[True, False, True]]))
    w = np.array([1.0, 2.0, 3.0, 4.0], np.float32)

    def f(a):
        return (ops.masked_select(a, m) * Tensor(w)).sum()

    a = np.random.default_rng(2).normal(size=(2, 3)).astype(np.float32)
    g = ms.grad(f)(Tensor(a)).asnumpy()
    # the selected elements in row-major order get weights 1..4; the others get nothing
    np.testing.assert_allclose(g, [[1, 0, 2], [3, 0, 4]])
    # x broadcast against the mask: the cotangent sums over the broadcast axis
    g_b = ms.grad(lambda r: ops.masked_select(r, Tensor(np.array([[True], [False], [True]]))).sum())(
        Tensor(np.ones((1, 2), np.float32)))
    np.testing.assert_allclose(g_b.asnumpy(), [[2, 2]])


def test_mask_must_be_bool():
    with pytest.raises(TypeError, match="bool"):
        ops.masked_select(Tensor([1.0, 2.0]), Tensor([1.0, 0.0]))


@pytest.mark.parametrize("mode", MODES)
def test_tensor_scatter_family_documented_examples(mode):
    x = Tensor(np.array([[-0.1, 0.3, 3.6], [0.4, 0.5, -3.2]]), ms.float32)
    idx = Tensor(np.array([[0, 0], [0, 0]]), ms.int32)
    up = Tensor(np.array([1.0, 2.2]), ms.float32)
    want = {
        "update": [[2.2, 0.3, 3.6], [0.4, 0.5, -3.2]],  # the last write wins on the CPU backend
        "add": [[3.1, 0.3, 3.6], [0.4, 0.5, -3.2]],
        "sub": [[-3.3, 0.3, 3.6], [0.4, 0.5, -3.2]],
        "max": [[2.2, 0.3, 3.6], [0.4, 0.5, -3.2]],
        "min": [[-0.1, 0.3, 3.6], [0.4, 0.5, -3.2]],
        "mul": [[-0.22, 0.3, 3.6], [0.4, 0.5, -3.2]],
        "div": [[-0.1 / 1.0 / 2.2, 0.3, 3.6], [0.4, 0.5, -3.2]],
    }
    for name, expect in want.items():
        fn = getattr(ops, "tensor_scatter_" + name)
        prim = getattr(ops, "TensorScatter" + name.capitalize())()
        np.testing.assert_allclose(run_cell(mode, Fn(fn), x, idx, up).asnumpy(), expect, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(prim(x, idx, up).asnumpy(), expect, rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("mode", MODES)
def test_scatter_slices_and_scatter_nd_against_numpy(mode):
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 3, 2)).astype(np.float32)
    rows = np.array([[3], [1]], np.int32)
    u = rng.normal(size=(2, 3, 2)).astype(np.float32)
    want = a.copy()
    want[[3, 1]] = u
    got = run_cell(mode, Fn(ops.tensor_scatter_update), Tensor(a), Tensor(rows), Tensor(u))
    np.testing.assert_allclose(got.asnumpy(), want)
    # documented ScatterNd example: repeated rows accumulate
    indices = Tensor(np.array([[0, 1], [1, 1]]), ms.int32)
    updates = Tensor(np.array([3.2, 1.1]), ms.float32)
    out = run_cell(mode, Fn(lambda i, v: ops.scatter_nd(i, v, (3, 3))), indices, updates)
    np.testing.assert_allclose(out.asnumpy(), [[0, 3.2, 0], [0, 1.1, 0], [0, 0, 0]], rtol=1e-6)
    dup = ops.ScatterNd()(Tensor(np.array([[1], [1]], np.int32)), Tensor([1.0, 2.0]), (3,))
    np.testing.assert_allclose(dup.asnumpy(), [0, 3, 0])
    g = run_cell(mode, Fn(ops.gather_nd), Tensor(a), Tensor(np.array([[3, 2], [0, 1]], np.int32)))
    np.testing.assert_allclose(g.asnumpy(), a[[3, 0], [2, 1]])


def test_scatter_gradients_match_finite_differences():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(3, 2)).astype(np.float64)
    u = rng.normal(size=(2, 2)).astype(np.float64)
    idx = Tensor(np.array([[2], [0]], np.int32))
    w = rng.normal(size=(3, 2))

    for name in ("update", "add", "sub"):
        fn = getattr(ops, "tensor_scatter_" + name)

        def loss(x, v):
            return (fn(x, idx, v) * Tensor(w)).sum()

        gx, gu = ms.grad(loss, grad_position=(0, 1))(Tensor(a), Tensor(u))
        for arr, got, pos in ((a, gx, 0), (u, gu, 1)):
            fd = np.zeros_like(arr)
            for k in np.ndindex(arr.shape):
                d = np.zeros_like(arr)
                d[k] = 1e-6
                args_p = [Tensor(a), Tensor(u)]
                args_m = [Tensor(a), Tensor(u)]
                args_p[pos] = Tensor(arr + d)
                args_m[pos] = Tensor(arr - d)
                fd[k] = (float(loss(*args_p).asnumpy()) - float(loss(*args_m).asnumpy())) / 2e-6
            np.testing.assert_allclose(got.asnumpy(), fd, atol=1e-6, err_msg=f"{name} input {pos}")


def test_scatter_errors_are_clear():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="updates must have shape"):
        ops.tensor_scatter_update(x, Tensor(np.array([[0]], np.int32)), Tensor(np.zeros((2,), np.float32)))
    with pytest.raises(ValueError, match="indices must be in"):
        ops.tensor_scatter_add(x, Tensor(np.array([[5]], np.int32)), Tensor(np.zeros((1, 3), np.float32)))
    with pytest.raises(TypeError, match="Parameter"):
        ops.ScatterNdUpdate()(x, Tensor(np.array([[0]], np.int32)), Tensor(np.zeros((1, 3), np.float32)))


def test_scatter_nd_update_writes_the_parameter_documented_example():
    p = Parameter(Tensor(np.array([[-0.1, 0.3, 3.6], [0.4, 0.5, -3.2]]), ms.float32), name="x")
    out = ops.ScatterNdUpdate()(p, Tensor(np.array([[0, 0], [1, 1]]), ms.int32), Tensor([1.0, 2.2]))
    want = [[1.0, 0.3, 3.6], [0.4, 2.2, -3.2]]
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    ops.ScatterNdAdd()(p, Tensor(np.array([[0, 0]], np.int32)), Tensor([1.0]))
    assert abs(float(p.asnumpy()[0, 0]) - 2.0) < 1e-6


def _gather_batch_oracle(params, idx, axis, b):
    out = np.empty(params.shape[:axis] + idx.shape[b:] + params.shape[axis + 1:], params.dtype)
    for bi in np.ndindex(params.shape[:b]):
        out[bi] = np.take(params[bi], idx[bi], axis=axis - b)
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis,b,ishape", [(1, 1, (2, 4)), (2, 1, (2, 3)), (2, 2, (2, 3, 2)), (-1, 1, (2, 5))])
def test_gather_batch_dims_against_loop(mode, axis, b, ishape):
    rng = np.random.default_rng(5)
    params = rng.normal(size=(2, 3, 4)).astype(np.float32)
    n = params.shape[axis]
    idx = rng.integers(-n, n, size=ishape).astype(np.int32)
    got = run_cell(mode, Fn(lambda p, i: ops.gather(p, i, axis, batch_dims=b)), Tensor(params), Tensor(idx))
    np.testing.assert_allclose(got.asnumpy(), _gather_batch_oracle(params, idx, axis % 3, b))
    g = ms.grad(lambda p: ops.gather(p, Tensor(idx), axis, batch_dims=b).sum())(Tensor(params)).asnumpy()
    want = np.zeros_like(params)
    for bi in np.ndindex(params.shape[:b]):
        moved = np.moveaxis(want[bi], axis % 3 - b, 0)
        np.add.at(moved, idx[bi] % n, 1.0)
    np.testing.assert_allclose(g, want)


def test_gather_d_is_gather_elements():
    x = Tensor(np.array([[1, 2], [3, 4]]), ms.int32)
    index = Tensor(np.array([[0, 0], [1, 0]]), ms.int32)
    np.testing.assert_array_equal(ops.gather_d(x, 1, index).asnumpy(), [[1, 1], [4, 3]])


# -- graph capture: a graph break, explained --------------------------------------------------------
@pytest.mark.parametrize("name", ["unique", "nonzero", "masked_select"])
def test_data_dependent_ops_break_the_graph_and_say_why(name):
    mask = Tensor(np.array([True, False, True, True]))

    def f(x):
        y = x * 2.0
        if name == "masked_select":
            z = ops.masked_select(y, mask)
        elif name == "unique":
            z = ops.unique(y)[0]
        else:
            z = ops.nonzero(y).astype(ms.float32)
        return z + 1.0

    x = Tensor(np.array([1.0, 0.0, 1.0, 3.0], np.float32))
    report = capture.explain(f)(x)
    assert report.graph_break_count >= 1
    assert any("data-dependent output shape" in b.reason and name in b.reason for b in report.break_reasons), \
        report.break_reasons
    np.testing.assert_allclose(report.result.asnumpy(), f(x).asnumpy())
    np.testing.assert_allclose(ms.jit(f)(x).asnumpy(), f(x).asnumpy())


@pytest.mark.parametrize("mode", MODES)
def test_mindspore_numpy_unique_matches_numpy(mode):
    import runtime.numpy as mnp
    a = np.array([[1, 2, 3], [2, 4, 5]], np.int32)
    np.testing.assert_array_equal(run_cell(mode, Fn(mnp.unique), Tensor(a)).asnumpy(), [1, 2, 3, 4, 5])
    y, inv = run_cell(mode, Fn(lambda t: mnp.unique(t, return_inverse=True)), Tensor(a))
    np.testing.assert_array_equal(inv.asnumpy(), np.unique(a.reshape(-1), return_inverse=True)[1])


def test_mindspore_parameter_names_as_keywords():
    x = Tensor(np.zeros((2, 2), np.float32))
    i = Tensor(np.array([[1, 0]], np.int32))
    out = ops.tensor_scatter_update(input_x=x, indices=i, updates=Tensor([5.0]))
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0], [5, 0]])
    np.testing.assert_array_equal(ops.masked_select(input=Tensor([1.0, 2.0]), mask=Tensor([False, True])).asnumpy(), [2])
    np.testing.assert_array_equal(ops.unique(input=Tensor(np.array([3, 3], np.int32)))[0].asnumpy(), [3])
    np.testing.assert_array_equal(ops.gather_nd(input_x=x, indices=i).asnumpy(), [0])


def test_vmap_under_the_frame_hook_runs_the_mapped_function_on_the_batch():
    """``python -m capture run`` hooks every user frame; the function vmap maps gets batched
    tensors, which the hook must leave alone (it used to try to capture them and crash)."""
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    u = Tensor(np.array([[1.0], [2.0]], np.float32))
    rows = Tensor(np.array([[1]], np.int32))

    def scatter_one(a, v):
        return ops.tensor_scatter_update(a, rows, v) * 2.0

    def loss(w, a):
        return (w * a).sum()

    want = np.stack([np.asarray(scatter_one(x[i], u[i]).asnumpy()) for i in range(2)])
    want_g = x.asnumpy()
    with capture.enabled():
        got = ops.vmap(scatter_one)(x, u)
        per_sample = ops.vmap(ms.grad(loss), in_axes=(None, 0))(Tensor(np.ones(3, np.float32)), x)
    np.testing.assert_allclose(got.asnumpy(), want)
    np.testing.assert_allclose(per_sample.asnumpy(), want_g)


@pytest.mark.parametrize("mode", ["hook"])
def test_scatter_and_batched_gather_under_the_frame_hook(mode):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[2], [0]], np.int32)
    u = np.ones((2, 4), np.float32)
    want = a.copy()
    np.add.at(want, (idx[:, 0],), u)
    got = run_cell(mode, Fn(lambda x, i, v: ops.tensor_scatter_add(x, i, v) * 1.0), Tensor(a), Tensor(idx), Tensor(u))
    np.testing.assert_allclose(got.asnumpy(), want)
    bi = np.array([[0, 3], [1, 1], [2, 0]], np.int32)
    got = run_cell(mode, Fn(lambda p, i: ops.gather(p, i, 1, batch_dims=1) + 0.0), Tensor(a), Tensor(bi))
    np.testing.assert_allclose(got.asnumpy(), np.take_along_axis(a, bi, axis=1))


@pytest.mark.parametrize("mode", MODES)
def test_tensor_scatter_elements_documented_examples(mode):
    x = Tensor(np.array([[1, 2, 3, 4, 5]]), ms.float32)
    idx = Tensor(np.array([[2, 4]]), ms.int32)
    upd = Tensor(np.array([[8, 8]]), ms.float32)
    out = run_cell(mode, Fn(lambda a, i, u: ops.tensor_scatter_elements(a, i, u, 1, "add")), x, idx, upd)
    np.testing.assert_allclose(out.asnumpy(), [[1, 2, 11, 4, 13]])
    x = Tensor(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), ms.float32)
    idx = Tensor(np.array([[1, 0, 2], [0, 2, 1]]), ms.int32)
    upd = Tensor(np.array([[0, 0, 0], [0, 0, 0]]), ms.float32)
    out = run_cell(mode, Fn(lambda a, i, u: ops.TensorScatterElements(0, "add")(a, i, u)), x, idx, upd)
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy())
    rng = np.random.default_rng(6)
    a = rng.normal(size=(3, 4)).astype(np.float32)
    i = np.array([[3, 0], [1, 1], [2, -1]], np.int32)
    u = rng.normal(size=(3, 2)).astype(np.float32)
    want = a.copy()
    np.add.at(want, (np.arange(3)[:, None].repeat(2, 1), i % 4), u)
    got = ops.tensor_scatter_elements(Tensor(a), Tensor(i), Tensor(u), axis=1, reduction="add")
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    # the Tensor methods
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(t.masked_select(t > 2.0).asnumpy(), [3, 4, 5])
    np.testing.assert_array_equal(t.nonzero().asnumpy(), np.argwhere(t.asnumpy()))
    np.testing.assert_array_equal(t.gather(Tensor(np.array([[2], [0]], np.int32)), 1, 1).asnumpy(), [[2], [3]])


@pytest.mark.parametrize("mode", MODES + ["hook"])
def test_gather_primitive_takes_axis_at_call_time_and_batch_dims(mode):
    params = Tensor(np.array([1, 2, 3, 4, 5, 6, 7]), ms.float32)
    idx = Tensor(np.array([0, 2, 4, 2, 6]), ms.int32)

    class Net(nn.Cell):
        def __init__(self, batch_dims=0):
            super().__init__()
            self.gather = ops.Gather(batch_dims)

        def construct(self, p, i, scale):
            return self.gather(p, i, 0) * scale if p.ndim == 1 else self.gather(p, i, 1) * scale

    out = run_cell(mode, Net(), params, idx, Tensor(1.0))
    np.testing.assert_allclose(out.asnumpy(), [1, 3, 5, 3, 7])
    p2 = np.arange(12, dtype=np.float32).reshape(3, 4)
    i2 = np.array([[3, 0], [1, 1], [2, 2]], np.int32)
    out = run_cell(mode, Net(1), Tensor(p2), Tensor(i2), Tensor(1.0))
    np.testing.assert_allclose(out.asnumpy(), np.take_along_axis(p2, i2, axis=1))


@pytest.mark.parametrize("mode", MODES + ["hook"])
def test_scatter_nd_update_on_a_parameter_inside_a_cell(mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scatter = ops.ScatterNdUpdate()
            self.x = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="x")

        def construct(self, indices, updates):
            self.scatter(self.x, indices, updates)
            return self.x * 1.0

    net = Net()
    out = run_cell(mode, net, Tensor(np.array([[2], [0]], np.int32)), Tensor(np.array([[1.0, 2.0], [3.0, 4.0]],
                                                                                       np.float32)))
    want = [[3, 4], [0, 0], [1, 2]]
    np.testing.assert_allclose(out.asnumpy(), want)
    np.testing.assert_allclose(net.x.asnumpy(), want)


@pytest.mark.parametrize("name", ["tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_max", "gather_nd"])
@pytest.mark.parametrize("axes", [(0, None, None), (0, 0, 0), (None, 0, 0), (None, None, 0), (0, 0, None)])
def test_vmap_rules_for_scatter_and_gather_nd_equal_the_loop(name, axes):
    from runtime.vmap_rules import RULES
    assert name in RULES  # batched in one call, not looped
    rng = np.random.default_rng(7)
    B = 3
    x = rng.normal(size=(B, 4, 2)).astype(np.float32)
    idx = np.stack([rng.permutation(4)[:2] for _ in range(B)])[..., None].astype(np.int32)  # (B, 2, 1)
    upd = rng.normal(size=(B, 2, 2)).astype(np.float32)
    fn = getattr(ops, name)
    if name == "gather_nd":
        axes = axes[:2]
        if axes == (None, None):
            return
        args = [x if axes[0] is not None else x[0], idx if axes[1] is not None else idx[0]]
    else:
        args = [a if ax is not None else a[0] for a, ax in zip((x, idx, upd), axes)]
    got = ops.vmap(fn, in_axes=axes)(*[Tensor(a) for a in args]).asnumpy()
    want = np.stack([fn(*[Tensor(a[i] if ax is not None else a) for a, ax in zip(args, axes)]).asnumpy()
                     for i in range(B)])
    np.testing.assert_allclose(got, want)
    jitted = ms.jit(lambda *a: ops.vmap(fn, in_axes=axes)(*a))(*[Tensor(a) for a in args]).asnumpy()
    np.testing.assert_allclose(jitted, want)


def test_scatter_family_on_parameters_documented_examples():
    def param():
        return Parameter(Tensor(np.array([[-0.1, 0.3, 3.6], [0.4, 0.5, -3.2]]), ms.float32), name="x")
    # ScatterUpdate: positions along axis 0
    p = param()
    ops.ScatterUpdate()(p, Tensor(np.array([0, 1]), ms.int32),
                        Tensor(np.array([[2.0, 1.2, 1.0], [3.0, 1.2, 1.0]]), ms.float32))
    np.testing.assert_allclose(p.asnumpy(), [[2.0, 1.2, 1.0], [3.0, 1.2, 1.0]])
    # ScatterAdd accumulates repeated positions
    p = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="y")
    ops.ScatterAdd()(p, Tensor(np.array([[0, 1], [1, 1]]), ms.int32), Tensor(np.ones((2, 2, 3), np.float32)))
    np.testing.assert_allclose(p.asnumpy(), [[1, 1, 1], [3, 3, 3]])
    for name, ufunc in (("Max", np.maximum), ("Min", np.minimum), ("Mul", np.multiply), ("Div", np.divide),
                        ("Sub", np.subtract)):
        p = param()
        want = p.asnumpy().copy()
        ufunc.at(want, ([0, 1], [2, 0]), np.array([2.0, 4.0], np.float32))
        getattr(ops, "ScatterNd" + name)()(p, Tensor(np.array([[0, 2], [1, 0]]), ms.int32), Tensor([2.0, 4.0]))
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6, err_msg=name)
        assert getattr(ops, "scatter_nd_" + name.lower()) is getattr(ops, "ScatterNd" + name).function
    assert ops.ScatterUpdate().use_locking is True and ops.ScatterAdd().use_locking is False


# ---- gradients of tensor_scatter_max / min / mul / div ----------------------------------------------
# Oracles: float64 central differences (with distinct and with repeated index rows; max/min away
# from ties), the hand-derived tie split of MindSpore's TensorScatterMax/Min bprop, and for a zero
# update of mul the distinct-row formula g * x. GRAPH_MODE and jit must equal PyNative.

def _scatter_case(seed, repeated):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 2.0, (4, 3))
    idx = np.array([[2], [0], [2]] if repeated else [[2], [0], [3]], np.int32)
    upd = rng.uniform(0.5, 2.0, (3, 3))
    return x, idx, upd


@pytest.mark.parametrize("mode", ["max", "min", "mul", "div"])
@pytest.mark.parametrize("repeated", [False, True])
def test_tensor_scatter_gradients_equal_finite_differences(mode, repeated):
    from gradcheck import check_grad
    x, idx, upd = _scatter_case(11, repeated)
    fn = getattr(ops, "tensor_scatter_" + mode)
    check_grad(lambda a, u: fn(a, Tensor(idx), u), x, upd)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["max", "min", "mul", "div"])
def test_tensor_scatter_gradients_in_every_mode_equal_pynative(mode, op):
    x, idx, upd = (a.astype(np.float32) if a.dtype.kind == "f" else a for a in _scatter_case(3, False))
    fn = getattr(ops, "tensor_scatter_" + op)
    grad = ms.grad(lambda a, u: (fn(a, Tensor(idx), u) * Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))).sum(),
                   (0, 1))
    want = grad(Tensor(x), Tensor(upd))
    got = run_cell(mode, Fn(grad), Tensor(x), Tensor(upd)) if mode != "pynative" else want
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


def test_tensor_scatter_mul_gradient_at_a_zero_update():
    x = Tensor(np.array([[1.5, -2.0], [3.0, 4.0]], np.float32))
    idx = Tensor(np.array([[1], [0]], np.int32))
    upd = Tensor(np.array([[0.0, 2.0], [5.0, 0.0]], np.float32))
    gx, gu = ms.grad(lambda a, u: ops.tensor_scatter_mul(a, idx, u).sum(), (0, 1))(x, upd)
    np.testing.assert_allclose(gx.asnumpy(), [[5.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(gu.asnumpy(), [[3.0, 4.0], [1.5, -2.0]])  # d(x u)/du = x


def test_tensor_scatter_max_splits_the_gradient_among_ties():
    x = Tensor(np.array([[1.0, 5.0], [2.0, 2.0]], np.float32))
    idx = Tensor(np.array([[0], [0], [1]], np.int32))
    upd = Tensor(np.array([[1.0, 3.0], [0.0, 5.0], [2.0, 1.0]], np.float32))
    # out = [[1, 5], [2, 2]]: (0,0) is attained by x and update 0 (2 ways), (0,1) by x and update 1,
    # (1,0) by x and update 2, (1,1) by x alone
    gx, gu = ms.grad(lambda a, u: ops.tensor_scatter_max(a, idx, u).sum(), (0, 1))(x, upd)
    np.testing.assert_allclose(gx.asnumpy(), [[0.5, 0.5], [0.5, 1.0]])
    np.testing.assert_allclose(gu.asnumpy(), [[0.5, 0.0], [0.0, 0.5], [0.5, 0.0]])


# ---- unique_consecutive / UniqueConsecutive, unique_with_pad / UniqueWithPad --------------------------

def _runs_oracle(values):
    """(kept, idx, counts) of the runs of equal consecutive items, by a plain Python loop."""
    kept, idx, counts = [], [], []
    for v in values:
        if not kept or v != kept[-1]:
            kept.append(v)
            counts.append(0)
        counts[-1] += 1
        idx.append(len(kept) - 1)
    return kept, idx, counts


@pytest.mark.parametrize("mode", MODES + ["hook"])
def test_unique_consecutive_documented_example(mode):
    x = Tensor(np.array([1, 1, 2, 2, 3, 1, 1, 2]), ms.int32)
    output, idx, counts = run_cell(mode, Fn(lambda t: ops.unique_consecutive(t * 1, True, True, None)), x)
    np.testing.assert_array_equal(output.asnumpy(), [1, 2, 3, 1, 2])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 0, 1, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(counts.asnumpy(), [2, 2, 1, 2, 1])
    assert output.dtype == ms.int32


def test_unique_consecutive_return_forms_axis_and_primitive():
    rng = np.random.default_rng(4)
    flat = rng.integers(0, 3, 40).astype(np.float32)
    kept, idx, counts = _runs_oracle(flat.tolist())
    x = Tensor(flat.reshape(5, 8))
    np.testing.assert_array_equal(ops.unique_consecutive(x).asnumpy(), kept)
    out, i = ops.unique_consecutive(x, return_idx=True)
    np.testing.assert_array_equal(i.asnumpy(), np.reshape(idx, (5, 8)))
    out, c = ops.unique_consecutive(x, return_counts=True)
    np.testing.assert_array_equal(c.asnumpy(), counts)
    # along an axis: runs of equal slices
    m = np.array([[1, 1, 2, 2, 1], [0, 0, 0, 0, 3]], np.int64)
    cols = [tuple(col) for col in m.T]
    kept, idx, counts = _runs_oracle(cols)
    out, i, c = ops.UniqueConsecutive(return_idx=True, return_counts=True, axis=1)(Tensor(m))
    np.testing.assert_array_equal(out.asnumpy(), np.array(kept).T)
    np.testing.assert_array_equal(i.asnumpy(), idx)
    np.testing.assert_array_equal(c.asnumpy(), counts)
    out, _, _ = ops.UniqueConsecutive(axis=-2)(Tensor(np.array([[1, 2], [1, 2], [3, 4]], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="axis"):
        ops.unique_consecutive(Tensor(m), axis=2)
    out, i, c = Tensor(m).unique_consecutive(True, True, 1)  # the Tensor method
    np.testing.assert_array_equal(c.asnumpy(), counts)


@pytest.mark.parametrize("mode", MODES + ["hook"])
def test_unique_with_pad_documented_examples(mode):
    # static shapes: it compiles (no graph break)
    y, idx = run_cell(mode, Fn(lambda t: ops.UniqueWithPad()(t, 8)),
                      Tensor(np.array([1, 1, 5, 5, 4, 4, 3, 3, 2, 2]), ms.int32))
    np.testing.assert_array_equal(y.asnumpy(), [1, 5, 4, 3, 2, 8, 8, 8, 8, 8])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    y, idx = run_cell(mode, Fn(lambda t: ops.unique_with_pad(t, 0)), Tensor(np.array([1, 2, 5, 2, 3, 5]), ms.int32))
    np.testing.assert_array_equal(y.asnumpy(), [1, 2, 5, 3, 0, 0])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 1, 2, 1, 3, 2])
    assert y.dtype == idx.dtype == ms.int32


def test_unique_with_pad_against_a_python_oracle_and_errors():
    rng = np.random.default_rng(9)
    x = rng.integers(-5, 5, 30).astype(np.int64)
    order = list(dict.fromkeys(x.tolist()))  # first occurrences
    y, idx = ops.unique_with_pad(Tensor(x), -100)
    assert y.dtype == ms.int64
    np.testing.assert_array_equal(y.asnumpy(), order + [-100] * (30 - len(order)))
    np.testing.assert_array_equal(idx.asnumpy(), [order.index(v) for v in x.tolist()])
    np.testing.assert_array_equal(Tensor(x).unique_with_pad(-100)[0].asnumpy(), y.asnumpy())
    with pytest.raises(ValueError, match="1-D"):
        ops.unique_with_pad(Tensor(np.zeros((2, 2), np.int32)), 0)
    with pytest.raises(TypeError, match="int32 or int64"):
        ops.unique_with_pad(Tensor([1.0, 2.0]), 0)
