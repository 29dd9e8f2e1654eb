"""The autodiff API against MindSpore 2.x's documented semantics (mindspore.grad, value_and_grad,
get_grad, ops.GradOperation, ops.stop_gradient, Cell.bprop): the return structure of every
combination, and values against hand-derived formulas or float64 central differences. Each case
runs in PyNative and, where the API applies there, under ``ms.jit`` and in GRAPH_MODE, which must
agree with PyNative.

References: the API pages of mindspore.grad / value_and_grad / get_grad / ops.GradOperation (2.x)
and MindSpore's own tests/st/gradient/test_grad_return_type.py (the structures for a single
Parameter as weights, no inputs, return_ids)."""
import numpy as np
import pytest

import runtime as ms
from runtime import Parameter, Tensor, nn, ops
from gradcheck import numeric_grad

MODES = ["pynative", "jit", "graph"]


@pytest.fixture(autouse=True)
def _no_warm_start_cache(monkeypatch):
    # capture's warm-start disk cache (an entry saved by an earlier process) keys a compiled
    # grad function by the code it runs, not by grad_position/weights: a later process can load
    # the graph of a different gradient (reported; capture/ is outside this change). Every
    # gradient here is compiled fresh so each mode is checked on its own graph.
    monkeypatch.setenv("CAPTURE_DISK_CACHE", "0")


def run(mode, fn, *args):
    """``fn(*args)`` in PyNative, under ``ms.jit``, or in GRAPH_MODE (a grad function called from
    uncaptured code in GRAPH_MODE is compiled, as MindSpore compiles it)."""
    if mode == "pynative":
        return fn(*args)
    if mode == "jit":
        return ms.jit(lambda *a: fn(*a))(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def same(out, expect, rtol=1e-5, atol=1e-6):
    """``out`` has exactly ``expect``'s structure (tuples, Tensors, ints, strs) and values."""
    if isinstance(expect, (np.ndarray, Tensor)):
        assert isinstance(out, Tensor), f"expected a Tensor, got {type(out).__name__}: {out!r}"
        e = expect.asnumpy() if isinstance(expect, Tensor) else expect
        if isinstance(expect, Tensor):
            assert out.dtype == expect.dtype
        np.testing.assert_allclose(out.asnumpy().astype(np.float64), np.asarray(e, np.float64),
                                   rtol=rtol, atol=atol)
    elif isinstance(expect, tuple):
        assert isinstance(out, tuple), f"expected a tuple, got {type(out).__name__}: {out!r}"
        assert len(out) == len(expect), f"expected {len(expect)} items, got {len(out)}: {out!r}"
        for o, e in zip(out, expect):
            same(o, e, rtol, atol)
    else:
        assert type(out) is type(expect) and out == expect, f"{out!r} != {expect!r}"


def i32(*v):
    return Tensor(np.array(v, np.int32))


class WB(nn.Cell):
    """w * x + b * y (MindSpore's own return-structure test network, int32)."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(i32(6), name="w")
        self.b = Parameter(i32(2), name="b")

    def construct(self, x, y):
        return self.w * x + self.b * y


# ---- mindspore.grad: the return structure of each combination ----------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_grad_structure_positions_and_weights(mode):
    net = WB()
    x, y = i32(10), i32(20)
    params = net.trainable_params()
    cases = [
        (dict(grad_position=0), i32(6)),
        (dict(grad_position=(0,)), (i32(6),)),
        (dict(grad_position=(1, 0)), (i32(2), i32(6))),
        (dict(grad_position=None, weights=params), (i32(10), i32(20))),
        (dict(grad_position=0, weights=params), (i32(6), (i32(10), i32(20)))),
        (dict(grad_position=(0, 1), weights=params), ((i32(6), i32(2)), (i32(10), i32(20)))),
        # a 1-element list stays a tuple (a lone Parameter: see the xfail test below)
        (dict(grad_position=None, weights=[net.w]), (i32(10),)),
    ]
    for kwargs, expect in cases:
        same(run(mode, ms.grad(net, **kwargs), x, y), expect)


@pytest.mark.parametrize("mode", MODES)
def test_grad_with_a_network_without_parameters_gives_empty_weight_grads(mode):
    class Net(nn.Cell):
        def construct(self, x, y):
            return 3 * x + y

    net = Net()
    x, y = i32(10), i32(20)
    same(run(mode, ms.grad(net, 0, net.trainable_params()), x, y), (i32(3), ()))
    same(run(mode, ms.grad(net, None, net.trainable_params()), x, y), ())


def test_grad_argument_errors():
    net = WB()
    with pytest.raises(ValueError):
        ms.grad(net, grad_position=None, weights=None)
    with pytest.raises(RuntimeError):  # MindSpore: an empty grad_position raises at the call
        ms.grad(net, grad_position=(), weights=net.trainable_params())(i32(1), i32(2))
    with pytest.raises(TypeError):
        ms.grad(net, grad_position=1.5)(i32(1), i32(2))
    with pytest.raises(TypeError):
        ms.grad(net, has_aux=1)


@pytest.mark.parametrize("mode", MODES)
def test_grad_values_match_finite_differences(mode):
    rng = np.random.default_rng(1)
    xn, yn = rng.standard_normal((2, 3)), rng.standard_normal((3,))

    def fn(x, y):
        return (ops.sin(x) * ops.exp(y) + x * x * y).sum()

    def f64(arrs):
        x, y = arrs
        return float((np.sin(x) * np.exp(y) + x * x * y).sum())

    gx, gy = run(mode, ms.grad(fn, grad_position=(0, 1)), Tensor(xn.astype(np.float32)), Tensor(yn.astype(np.float32)))
    arrs = [xn.copy(), yn.copy()]
    np.testing.assert_allclose(gx.asnumpy(), numeric_grad(f64, arrs, 0), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), numeric_grad(f64, arrs, 1), rtol=1e-4, atol=1e-5)


# ---- has_aux ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_grad_has_aux_returns_gradient_and_aux_tuple(mode):
    # docs example: fn returns (x * exp(y) * z**2, z); grad(fn, (1, 2), None, True) -> (gradient, (z,))
    def fn(x, y, z):
        return x * ops.exp(y) * ops.pow(z, 2), z

    x, y, z = Tensor([3.0, 3.0]), Tensor([0.0, 0.0]), Tensor([5.0, 5.0])
    (gy, gz), aux = run(mode, ms.grad(fn, (1, 2), None, True), x, y, z)
    np.testing.assert_allclose(gy.asnumpy(), [75.0, 75.0])
    np.testing.assert_allclose(gz.asnumpy(), [30.0, 30.0])
    same(aux, (np.array([5.0, 5.0]),))


@pytest.mark.parametrize("mode", MODES)
def test_has_aux_differentiates_only_the_first_output(mode):
    w = Parameter(Tensor([2.0, -1.0]), name="w")

    def fn(x):
        return (x * w).sum(), (x * x * 100).sum(), x * 3  # the aux outputs must not contribute

    x = Tensor([1.0, 3.0])
    (gx, (gw,)), aux = run(mode, ms.grad(fn, 0, [w], has_aux=True), x)
    np.testing.assert_allclose(gx.asnumpy(), [2.0, -1.0])
    np.testing.assert_allclose(gw.asnumpy(), [1.0, 3.0])
    same(aux, (np.array(1000.0), np.array([3.0, 9.0])))
    # weights only: (weight grads, aux)
    (gw,), aux = run(mode, ms.grad(fn, None, [w], has_aux=True), x)
    np.testing.assert_allclose(gw.asnumpy(), [1.0, 3.0])
    assert len(aux) == 2


def test_has_aux_needs_more_than_one_output():
    with pytest.raises((TypeError, ValueError)):
        ms.grad(lambda x: x * 2, has_aux=True)(Tensor([1.0]))


# ---- value_and_grad -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_value_and_grad_structures(mode):
    net = WB()
    x, y = i32(10), i32(20)
    out, g = run(mode, ms.value_and_grad(net, grad_position=1), x, y)
    same(out, i32(100))
    same(g, i32(2))
    out, (gp, gw) = run(mode, ms.value_and_grad(net, 0, net.trainable_params()), x, y)
    same(out, i32(100))
    same((gp, gw), (i32(6), (i32(10), i32(20))))


@pytest.mark.parametrize("mode", MODES)
def test_value_and_grad_has_aux_returns_all_outputs_as_value(mode):
    # docs example: value_and_grad(fn, (1, 2), None, True) -> ((out1, out2), gradient)
    def fn(x, y, z):
        return x * ops.exp(y) * ops.pow(z, 2), z

    x, y, z = Tensor([3.0, 3.0]), Tensor([0.0, 0.0]), Tensor([5.0, 5.0])
    (out1, out2), (gy, gz) = run(mode, ms.value_and_grad(fn, (1, 2), None, True), x, y, z)
    np.testing.assert_allclose(out1.asnumpy(), [75.0, 75.0])
    np.testing.assert_allclose(out2.asnumpy(), [5.0, 5.0])
    np.testing.assert_allclose(gy.asnumpy(), [75.0, 75.0])
    np.testing.assert_allclose(gz.asnumpy(), [30.0, 30.0])


@pytest.mark.parametrize("mode", MODES)
def test_multiple_outputs_without_aux_differentiate_their_sum(mode):
    def fn(x, y):
        return x * y, ops.sin(x), (y * y).sum()

    xn, yn = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    (o1, o2, o3), (gx, gy) = run(mode, ms.value_and_grad(fn, (0, 1)), Tensor(xn.astype(np.float32)),
                                 Tensor(yn.astype(np.float32)))
    np.testing.assert_allclose(o1.asnumpy(), xn * yn, rtol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), yn + np.cos(xn), rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), xn + 2 * yn, rtol=1e-6)


# ---- return_ids / get_grad ----------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_return_ids_pairs_gradients_with_positions_and_parameter_names(mode):
    net = WB()
    x, y = i32(10), i32(20)
    params = net.trainable_params()
    cases = [
        (dict(grad_position=0), (0, i32(6))),
        (dict(grad_position=(0, 1)), ((0, i32(6)), (1, i32(2)))),
        (dict(grad_position=0, weights=params), ((0, i32(6)), (("w", i32(10)), ("b", i32(20))))),
        (dict(grad_position=(1,), weights=params), (((1, i32(2)),), (("w", i32(10)), ("b", i32(20))))),
        (dict(grad_position=None, weights=params), (("w", i32(10)), ("b", i32(20)))),
    ]
    for kwargs, expect in cases:
        same(run(mode, ms.grad(net, return_ids=True, **kwargs), x, y), expect)
    out, g = run(mode, ms.value_and_grad(net, 1, return_ids=True), x, y)
    same(out, i32(100))
    same(g, (1, i32(2)))


@pytest.mark.parametrize("mode", MODES)
def test_return_ids_with_has_aux(mode):
    def fn(x, y):
        return (x * y).sum(), y

    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    g, aux = run(mode, ms.grad(fn, (0, 1), has_aux=True, return_ids=True), x, y)
    same(g, ((0, np.array([3.0, 4.0])), (1, np.array([1.0, 2.0]))))
    same(aux, (np.array([3.0, 4.0]),))


def test_get_grad_by_position_and_by_parameter():
    # MindSpore's test: outputs (x * y * w, x, w) -> d/dx = y * w + 1, d/dw = x * y + 1
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor([2.0, 2.0]), name="w")

        def construct(self, x, y):
            return x * y * self.w, x, self.w

    net = Net()
    res = ms.grad(net, 0, net.trainable_params(), return_ids=True)(Tensor([1.0, 2.0]), Tensor([3.0, 3.0]))
    np.testing.assert_allclose(ms.get_grad(res, 0).asnumpy(), [7.0, 7.0])
    np.testing.assert_allclose(ops.get_grad(res, net.w).asnumpy(), [4.0, 7.0])
    with pytest.raises(RuntimeError):
        ms.get_grad(res, 1)


# ---- ops.GradOperation --------------------------------------------------------------------------

def _gradop_net(op, net, *weights):
    """GradOperation used the way MindSpore's examples do: inside a Cell's construct."""
    class GradNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net
            self.grad_op = op

        def construct(self, *args):
            return self.grad_op(self.net, *weights)(*args)
    return GradNet()


@pytest.mark.parametrize("mode", MODES)
def test_grad_operation_structures(mode):
    net = WB()
    x, y = i32(10), i32(20)
    params = net.trainable_params()
    G = ops.GradOperation
    cases = [
        (G(), (), i32(6)),
        (G(get_all=True), (), (i32(6), i32(2))),
        (G(get_by_list=True), (params,), (i32(10), i32(20))),
        (G(get_all=True, get_by_list=True), (params,), ((i32(6), i32(2)), (i32(10), i32(20)))),
        (G(get_all=True, get_by_list=True), (None,), ((i32(6), i32(2)), ())),
    ]
    for op, weights, expect in cases:
        same(run(mode, op(net, *weights), x, y), expect)


@pytest.mark.parametrize("mode", MODES)
def test_a_single_parameter_as_weights_gives_one_tensor(mode):
    # MindSpore (tests/st/gradient/test_grad_return_type.py): a lone Parameter -> its gradient
    net = WB()
    x, y = i32(10), i32(20)
    same(run(mode, ms.grad(net, None, net.w), x, y), i32(10))
    same(run(mode, ms.grad(net, 0, net.b), x, y), (i32(6), i32(20)))
    same(run(mode, ms.grad(net, 0, net.w, return_ids=True), x, y), ((0, i32(6)), ("w", i32(10))))
    same(run(mode, ops.GradOperation(get_by_list=True)(net, net.w), x, y), i32(10))
    same(run(mode, ops.GradOperation(get_all=True, get_by_list=True)(net, net.w), x, y),
         ((i32(6), i32(2)), i32(10)))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_grad_operation_without_inputs(mode):
    net = WB()

    class NoInput(nn.Cell):
        def construct(self):
            return net.w + net.b

    same(run(mode, ops.GradOperation()(NoInput())), ())
    same(run(mode, ops.GradOperation(get_all=True)(NoInput())), ())
    same(run(mode, ops.GradOperation(get_all=True, get_by_list=True)(NoInput(), net.trainable_params())),
         ((), (i32(1), i32(1))))


@pytest.mark.parametrize("mode", MODES)
def test_grad_operation_inside_a_cell(mode):
    net = WB()
    gn = _gradop_net(ops.GradOperation(get_all=True, get_by_list=True), net, net.trainable_params())
    x, y = i32(10), i32(20)
    if mode == "pynative":
        out = gn(x, y)
    elif mode == "jit":
        out = ms.jit(gn.construct)(x, y)
    else:
        out = run("graph", gn, x, y)
    same(out, ((i32(6), i32(2)), (i32(10), i32(20))))


@pytest.mark.parametrize("mode", MODES)
def test_grad_operation_sens_param(mode):
    def fn(x, y):
        return x * y, x + y

    xn, yn = np.array([1.0, 2.0], np.float32), np.array([3.0, -4.0], np.float32)
    s1, s2 = np.array([0.5, 2.0], np.float32), np.array([-1.0, 3.0], np.float32)
    gx, gy = run(mode, ops.GradOperation(get_all=True, sens_param=True)(fn), Tensor(xn), Tensor(yn),
                 (Tensor(s1), Tensor(s2)))
    np.testing.assert_allclose(gx.asnumpy(), s1 * yn + s2)
    np.testing.assert_allclose(gy.asnumpy(), s1 * xn + s2)
    g = run(mode, ops.GradOperation(sens_param=True)(lambda x: x * x), Tensor(xn), Tensor(s1))
    np.testing.assert_allclose(g.asnumpy(), 2 * xn * s1)


# ---- integer inputs, stop_gradient, tuple outputs -----------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_integer_input_gradient_is_computed_in_its_dtype(mode):
    # MindSpore's own tests: int32 inputs get int32 gradients with the real values (not zeros)
    net = WB()
    g = run(mode, ms.grad(net, (0, 1)), i32(10), i32(20))
    same(g, (i32(6), i32(2)))


@pytest.mark.parametrize("mode", MODES)
def test_stop_gradient_blocks_only_its_branch(mode):
    def fn(x, y):
        z = x * y
        return (ops.stop_gradient(z) * x + z).sum()

    xn, yn = np.array([1.5, -2.0], np.float32), np.array([3.0, 0.5], np.float32)
    gx, gy = run(mode, ms.grad(fn, (0, 1)), Tensor(xn), Tensor(yn))
    np.testing.assert_allclose(gx.asnumpy(), xn * yn + yn, rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), xn, rtol=1e-6)
    # fully stopped: zeros of the input's shape
    g = run(mode, ms.grad(lambda x: ops.stop_gradient(x * 2).sum()), Tensor(xn))
    same(g, np.zeros(2))


@pytest.mark.parametrize("mode", MODES)
def test_unused_input_gets_zeros(mode):
    gx, gy = run(mode, ms.grad(lambda x, y: (x * 2).sum(), (0, 1)), Tensor([1.0, 2.0]), Tensor([[1.0], [2.0]]))
    same((gx, gy), (np.array([2.0, 2.0]), np.zeros((2, 1))))


# ---- Parameter(requires_grad=False) ----------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_frozen_parameter_is_not_in_trainable_params(mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor([2.0, 3.0]), name="w")
            self.frozen = Parameter(Tensor([5.0, 7.0]), name="frozen", requires_grad=False)

        def construct(self, x):
            return (x * self.w * self.frozen).sum()

    net = Net()
    assert [p.name for p in net.trainable_params()] == ["w"]
    x = Tensor([1.0, -1.0])
    gx, (gw,) = run(mode, ms.grad(net, 0, net.trainable_params()), x)
    np.testing.assert_allclose(gx.asnumpy(), [10.0, 21.0])
    np.testing.assert_allclose(gw.asnumpy(), [5.0, -7.0])


# ---- Cell.bprop -----------------------------------------------------------------------------------

class MulWithBprop(nn.Cell):
    """The tutorial's example: construct = x * y, bprop returns (x + 1, y + 1)."""

    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return x + 1, y + 1


@pytest.mark.parametrize("mode", MODES)
def test_cell_bprop_replaces_the_gradient_of_construct(mode):
    xn, yn = np.array([0.5, 0.6], np.float32), np.array([0.01, 0.3], np.float32)
    gx, gy = run(mode, ops.GradOperation(get_all=True)(MulWithBprop()), Tensor(xn), Tensor(yn))
    np.testing.assert_allclose(gx.asnumpy(), xn + 1, rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), yn + 1, rtol=1e-6)


class ReverseGrad(nn.Cell):
    """Identity forward, negated and scaled gradient (uses out and dout)."""

    def construct(self, x):
        return x

    def bprop(self, x, out, dout):
        return (-2 * dout,)


@pytest.mark.parametrize("mode", MODES)
def test_cell_bprop_inside_a_network_chains_with_the_rest(mode):
    rev = ReverseGrad()

    def fn(x):
        return (ops.sin(rev(x * x)) * 3).sum()

    xn = np.array([0.3, -0.7], np.float32)
    out, g = run(mode, ms.value_and_grad(fn), Tensor(xn))
    np.testing.assert_allclose(out.asnumpy(), (np.sin(xn * xn) * 3).sum(), rtol=1e-6)
    # chain rule with the custom VJP -2 in place of d(identity) = 1
    np.testing.assert_allclose(g.asnumpy(), 3 * np.cos(xn * xn) * (-2) * 2 * xn, rtol=1e-5)
    # forward without differentiation is construct's
    same(run(mode, rev, Tensor(xn)), xn)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_cell_bprop_receives_out_and_dout(mode):
    seen = {}

    class Square(nn.Cell):
        def construct(self, x):
            return x * x

        def bprop(self, x, out, dout):
            seen["out"], seen["dout"] = out.asnumpy(), dout.asnumpy()
            return (dout * 2 * x,)

    xn, sn = np.array([1.0, -3.0], np.float32), np.array([0.5, 2.0], np.float32)
    g = run(mode, ops.GradOperation(sens_param=True)(Square()), Tensor(xn), Tensor(sn))
    np.testing.assert_allclose(g.asnumpy(), 2 * xn * sn)
    np.testing.assert_allclose(seen["out"], xn * xn)
    np.testing.assert_allclose(seen["dout"], sn)


def test_cell_bprop_with_tuple_output_and_higher_order():
    class Two(nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

        def bprop(self, x, out, dout):
            d1, d2 = dout
            assert isinstance(out, tuple) and len(out) == 2
            return (d1 * x + d2 * x * x,)  # deliberately not construct's gradient

    xn = np.array([1.0, 2.0], np.float32)
    g = ms.grad(lambda x: sum(o.sum() for o in Two()(x)))(Tensor(xn))
    np.testing.assert_allclose(g.asnumpy(), xn + xn * xn)
    # second order through the bprop: d/dx sum(x + x^2) = 1 + 2x
    gg = ms.grad(lambda x: ms.grad(lambda z: sum(o.sum() for o in Two()(z)))(x).sum())(Tensor(xn))
    np.testing.assert_allclose(gg.asnumpy(), 1 + 2 * xn)


# ---- graph mode equals PyNative on a small training-style network ----------------------------------

def test_graph_and_jit_gradients_equal_pynative_for_a_dense_network():
    rng = np.random.default_rng(0)
    xs = Tensor(rng.standard_normal((8, 4)).astype(np.float32))
    ys = Tensor(rng.standard_normal((8, 2)).astype(np.float32))
    results = {}
    for mode in MODES:
        ms.set_seed(3)
        net = nn.Dense(4, 2)
        loss_fn = nn.MSELoss()

        def forward(x, y):
            logits = net(x)
            return loss_fn(logits, y), logits

        (loss, logits), (gx, gws) = run(mode, ms.value_and_grad(forward, 0, net.trainable_params(), has_aux=True),
                                        xs, ys)
        results[mode] = [loss.asnumpy(), logits.asnumpy(), gx.asnumpy()] + [g.asnumpy() for g in gws]
    # oracle: the analytic gradient of mean((x W^T + b - y)^2)
    for a, b in zip(results["pynative"], results["jit"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(results["pynative"], results["graph"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    logits = results["pynative"][1]
    d = 2 * (logits - ys.asnumpy()) / logits.size
    ms.set_seed(3)
    w = nn.Dense(4, 2).weight.asnumpy()
    np.testing.assert_allclose(results["pynative"][2], d @ w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results["pynative"][3], d.T @ xs.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results["pynative"][4], d.sum(0), rtol=1e-5, atol=1e-6)


class DoubleWithSquareBprop(nn.Cell):
    """construct = 2x with a bprop that ignores ``out`` and ``dout``: the first derivative is x^2
    (the bprop's output), the second 2x. A region compiled by capture must not hand the unused
    ``out`` a zero cotangent, or the tape runs the bprop again on it and adds x^2 (issue 40)."""

    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return (x * x,)


@pytest.mark.parametrize("mode", MODES + ["hook"])
def test_second_order_grad_through_a_bprop_that_ignores_out_and_dout(mode):
    import capture
    from capture.explain import recording
    xn = np.array([1.0, 2.0, 3.0], np.float32)
    second = ops.grad(ops.grad(DoubleWithSquareBprop()))
    if mode == "hook":  # as under ``python -m capture run``: the bprop frame itself is compiled
        with recording() as report, capture.enabled():
            gg = second(Tensor(xn))
            ggj = ms.jit(lambda x: second(x))(Tensor(xn))
        assert report.compiled_calls >= 1, report
        np.testing.assert_allclose(ggj.asnumpy(), 2 * xn)
    else:
        gg = run(mode, second, Tensor(xn))
    np.testing.assert_allclose(gg.asnumpy(), 2 * xn)
    np.testing.assert_allclose(run("pynative", ops.grad(DoubleWithSquareBprop()), Tensor(xn)).asnumpy(), xn * xn)


# ---- integer inputs through tensor-valued control flow (a graph broken into regions) ------------
# A branch on a tensor value splits a GRAPH_MODE/jit function into compiled regions, each one a tape
# entry with a compiled backward. Integer inputs must take part there as on the eager tape (they
# got 0 before). Oracle: the same control flow on Python floats, differentiated by central
# differences (the derivatives here are whole numbers, so the int32 result must equal them).

def _central_difference(f, args, i, eps=1e-3):
    lo, hi = list(args), list(args)
    lo[i] -= eps
    hi[i] += eps
    return (f(*hi) - f(*lo)) / (2 * eps)


def _while_square(x, y):
    while x < y:
        x = x * x + 1
    return x


def _if_cube(x, y):
    if x < y:
        return x * x * 3
    return y


def _if_in_while(x, y, i):
    # the shape of the "if inside while" example of MindSpore's control-flow tutorial
    out = x
    while i < 3:
        if x + i < y:
            out = out + x
        else:
            out = out + y
        out = out + 1
        i = i + 1
    return out


class _WhileSquare(nn.Cell):
    def construct(self, x, y):
        while x < y:
            x = x * x + 1
        return x


class _IfCube(nn.Cell):
    def construct(self, x, y):
        if x < y:
            return x * x * 3
        return y


class _IfInWhile(nn.Cell):
    def construct(self, x, y, i):
        out = x
        while i < 3:
            if x + i < y:
                out = out + x
            else:
                out = out + y
            out = out + 1
            i = i + 1
        return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("net, fn, args, position", [
    (_WhileSquare, _while_square, (2, 14), 0),     # 2 -> 5 -> 26: d/dx = 2*5 * 2*2 = 40
    (_IfCube, _if_cube, (2, 14), 0),          # 3x^2 at 2: 12
    (_IfCube, _if_cube, (20, 14), 1),         # the else branch returns y: 1
    (_IfInWhile, _if_in_while, (-3, 1, 0), 0),   # every step takes the if branch, out = 4x + 3: 4
    (_IfInWhile, _if_in_while, (5, 3, 0), 1),    # every step takes the else branch: 3
], ids=["while", "if-true", "if-false", "if-in-while-x", "if-in-while-y"])
def test_integer_input_gradient_through_tensor_control_flow(mode, net, fn, args, position):
    expect = round(_central_difference(fn, [float(a) for a in args], position))
    g = run(mode, ms.grad(net(), position), *(Tensor(np.array(a, np.int32)) for a in args))
    same(g, Tensor(np.array(expect, np.int32)))
    # the float version agrees (it always did): same number, float dtype
    gf = run(mode, ms.grad(net(), position), *(Tensor(np.array(a, np.float32)) for a in args))
    same(gf, Tensor(np.array(expect, np.float32)))


class _Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


class _PickByTensor(nn.Cell):
    """A CellList indexed by an integer Tensor (a graph break on the index's value)."""

    def __init__(self):
        super().__init__()
        self.cells = nn.CellList([_Scale(3), _Scale(7), _Scale(-2)])

    def construct(self, i, x):
        return self.cells[i](x) * x


@pytest.mark.parametrize("mode", MODES)
def test_integer_input_gradient_through_a_celllist_indexed_by_a_tensor(mode):
    for index, k in enumerate((3, 7, -2)):
        g = run(mode, ms.grad(_PickByTensor(), 1), Tensor(np.array(index, np.int32)),
                Tensor(np.array([5, -1], np.int32)))
        same(g, Tensor(np.array([2 * k * 5, 2 * k * -1], np.int32)))  # d(k x^2)/dx = 2 k x
