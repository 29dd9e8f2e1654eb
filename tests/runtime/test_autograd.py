"""Tape autodiff: grad / value_and_grad / GradOperation against analytic and finite-difference oracles."""
import numpy as np
import pytest

import runtime as ms
from runtime import Parameter, Tensor, nn, ops
from gradcheck import check_grad


def test_grad_single_and_tuple_positions():
    f = lambda x, y: (x * y + x * x).sum()
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    gx = ms.grad(f)(x, y)
    np.testing.assert_allclose(gx.asnumpy(), [3 + 2, 4 + 4])
    gx, gy = ms.grad(f, grad_position=(0, 1))(x, y)
    np.testing.assert_allclose(gy.asnumpy(), [1.0, 2.0])


def test_value_and_grad_with_weights_and_aux():
    w = Parameter(Tensor([2.0, -1.0]), name="w")

    def f(x):
        y = (x * w).sum()
        return y, x * 2

    (val, aux), (gx, (gw,)) = ms.value_and_grad(f, grad_position=0, weights=[w], has_aux=True)(Tensor([1.0, 3.0]))
    assert val.item() == pytest.approx(-1.0)
    np.testing.assert_allclose(aux.asnumpy(), [2.0, 6.0])
    np.testing.assert_allclose(gx.asnumpy(), [2.0, -1.0])
    np.testing.assert_allclose(gw.asnumpy(), [1.0, 3.0])


def test_weights_only_gives_tuple_of_parameter_grads():
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((4, 3), np.float32))
    grads = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(x)
    assert isinstance(grads, tuple) and len(grads) == 2
    np.testing.assert_allclose(grads[0].asnumpy(), np.full((2, 3), 4.0))
    np.testing.assert_allclose(grads[1].asnumpy(), [4.0, 4.0])


def test_higher_order_grads():
    f = lambda x: (x * x * x).sum()
    x = Tensor([2.0, -1.5])
    g2 = ms.grad(ms.grad(f))(x)
    np.testing.assert_allclose(g2.asnumpy(), 6 * x.asnumpy(), rtol=1e-6)
    g3 = ms.grad(lambda x: ms.grad(ms.grad(f))(x).sum())(x)
    np.testing.assert_allclose(g3.asnumpy(), [6.0, 6.0], rtol=1e-6)


def test_nested_grad_no_perturbation_confusion():
    # d/dx [x * d/dy (x * y)] = d/dx [x * x] = 2x
    x = Tensor([3.0])
    out = ms.grad(lambda x: (x * ms.grad(lambda y: (x * y).sum())(Tensor([1.0]))).sum())(x)
    np.testing.assert_allclose(out.asnumpy(), [6.0])


def test_unused_input_gets_zero_grad():
    g = ms.grad(lambda x, y: (x * 2).sum(), grad_position=(0, 1))(Tensor([1.0]), Tensor([5.0, 6.0]))
    np.testing.assert_allclose(g[1].asnumpy(), [0.0, 0.0])


def test_gradoperation_variants_and_sens():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor([[1.0, 2.0], [3.0, 4.0]]), name="w")

        def construct(self, x, y):
            return ops.matmul(x, self.w) * y

    net = Net()
    x, y = Tensor([[1.0, 1.0]]), Tensor([[2.0, 3.0]])
    gx = ops.GradOperation()(net)(x, y)
    np.testing.assert_allclose(gx.asnumpy(), [[1 * 2 + 2 * 3, 3 * 2 + 4 * 3]])
    gall = ops.GradOperation(get_all=True)(net)(x, y)
    np.testing.assert_allclose(gall[1].asnumpy(), [[4.0, 6.0]])
    gw = ops.GradOperation(get_by_list=True)(net, net.trainable_params())(x, y)
    np.testing.assert_allclose(gw[0].asnumpy(), [[2.0, 3.0], [2.0, 3.0]])
    both = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(x, y)
    assert len(both) == 2 and len(both[0]) == 2 and len(both[1]) == 1
    sens = Tensor([[10.0, 0.0]])
    gs = ops.GradOperation(sens_param=True)(net)(x, y, sens)
    np.testing.assert_allclose(gs.asnumpy(), [[20.0, 60.0]])


def test_seed_example_gradoperation_matmul():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.z = Parameter(Tensor(np.array([1.0], np.float32)), name="z")

        def construct(self, x, y):
            return ops.matmul(x * self.z, y)

    class GradNetWrtX(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.grad_op = ops.GradOperation()

        def construct(self, x, y):
            return self.grad_op(self.net)(x, y)

    x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=ms.float32)
    y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=ms.float32)
    out = GradNetWrtX(Net())(x, y)
    np.testing.assert_allclose(out.asnumpy(), [[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]], rtol=1e-5)


def test_composite_function_gradient_matches_finite_differences():
    def f(x, w):
        h = ops.tanh(ops.matmul(x, w))
        return ops.log_softmax(h * 2.0 + 1.0)

    rng = np.random.default_rng(1)
    check_grad(f, rng.normal(size=(3, 4)), rng.normal(size=(4, 5)))


def test_grad_of_non_tensor_argument_is_a_clear_error():
    # MindSpore (issue 40): a position holding a non-Tensor gets () as its gradient; a function
    # that returns no Tensor at all is still a clear error
    assert ms.grad(lambda x, y: y * x, grad_position=0)(3.0, Tensor([1.0])) == ()
    with pytest.raises(TypeError, match="must return Tensors"):
        ms.grad(lambda x: x * 2)(3.0)
    with pytest.raises(ValueError, match="out of range"):
        ms.grad(lambda x: x, grad_position=3)(Tensor([1.0]))
    with pytest.raises(TypeError, match="grad_position"):
        ms.grad(lambda x: x, grad_position="a")(Tensor([1.0]))


def test_no_recording_outside_grad():
    from runtime import tape
    assert not tape.ACTIVE
    x = Tensor([1.0])
    for _ in range(3):
        x = x * 2
    assert not tape.ACTIVE


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_grad_with_aux_returns_the_gradient_and_the_aux_outputs(mode):
    # MindSpore 2.x: fn returns (out1, out2...); grad(..., has_aux=True) returns (gradient, (out2...))
    def fn(x, y, z):
        return x * ops.exp(y) * ops.pow(z, 2), z, y + 1

    grad_fn = ms.grad(fn, grad_position=(1, 2), has_aux=True)
    if mode == "jit":
        grad_fn = ms.jit(grad_fn)
    x, y, z = Tensor([-2.0, 3.0]), Tensor([0.5, -1.0]), Tensor([1.5, 2.0])
    (gy, gz), aux = grad_fn(x, y, z)
    xn, yn, zn = x.asnumpy(), y.asnumpy(), z.asnumpy()
    np.testing.assert_allclose(gy.asnumpy(), xn * np.exp(yn) * zn ** 2, rtol=1e-6)
    np.testing.assert_allclose(gz.asnumpy(), xn * np.exp(yn) * 2 * zn, rtol=1e-6)
    assert isinstance(aux, tuple) and len(aux) == 2
    np.testing.assert_allclose(aux[0].asnumpy(), zn)
    np.testing.assert_allclose(aux[1].asnumpy(), yn + 1)


@pytest.mark.parametrize("mode", ["pynative", "jit", "graph_cell"])
def test_gradient_for_an_integer_input_is_computed_in_its_dtype(mode):
    # MindSpore 2.x: integer inputs are differentiated like float ones and the gradient comes back
    # in the input's dtype -- not zeros. Where an int operand meets a float one, the implicit cast's
    # bprop casts that use's cotangent back to int (truncation toward zero), use by use.
    def fn(x, w):
        return (x * w).sum() + (x * x).sum() * 2 + x[0:1].sum() * 3

    grad_fn = ms.grad(fn, grad_position=(0, 1))
    if mode == "jit":
        grad_fn = ms.jit(grad_fn)
    if mode == "graph_cell":
        inner = grad_fn

        class Net(nn.Cell):
            def construct(self, x, w):
                return inner(x, w)
        grad_fn = ms.jit(Net().construct)
    xn, wn = np.array([3, -4, 5], np.int32), np.array([0.5, 1.25, 2.0], np.float32)
    gx, gw = grad_fn(Tensor(xn), Tensor(wn))
    assert gx.dtype == ms.int32 and gw.dtype == ms.float32
    expect = np.trunc(wn) + 4 * xn + np.array([3, 0, 0])
    np.testing.assert_array_equal(gx.asnumpy(), expect.astype(np.int32))
    np.testing.assert_allclose(gw.asnumpy(), xn.astype(np.float32))
    # a bool input still gets no gradient: zeros, as for a path that does not reach the output
    gb = ms.grad(lambda b, y: (ops.cast(b, ms.float32) * y).sum())(Tensor(np.array([True, False])),
                                                                      Tensor(wn[:2]))
    np.testing.assert_array_equal(gb.asnumpy(), [False, False])


def test_the_tape_walk_hands_each_gradient_over_once_final():
    """backward(on_final=...) (data parallel starts bucket all-reduces from it): the last layer's
    weight gradient is handed over before the first layer's VJPs run, each exactly once, and
    equal to the plain walk's."""
    import graph.autodiff as autodiff
    import runtime.autograd as ag
    from runtime.tape import Tape
    rng = np.random.default_rng(0)
    w1 = ms.Parameter(Tensor(rng.standard_normal((4, 3)).astype(np.float32)), name="w1")
    w2 = ms.Parameter(Tensor(rng.standard_normal((3, 2)).astype(np.float32)), name="w2")
    x = Tensor(rng.standard_normal((5, 4)).astype(np.float32))
    tape = Tape()
    with tape:
        tape.watch(w1)
        tape.watch(w2)
        loss = ops.reduce_sum(ops.tanh(ops.matmul(ops.relu(ops.matmul(x, w1)), w2)))
    events = []
    real_vjp = ag.apply_vjp

    def counting_vjp(op, *rest):
        events.append(("vjp", op.name))
        return real_vjp(op, *rest)

    handed = {}

    def on_final(k, g):
        events.append(("final", k))
        handed[k] = g.asnumpy()

    ag.apply_vjp = counting_vjp
    try:
        grads = ag.backward(tape, [loss], [ops.ones_like(loss)], [w1, w2], on_final=on_final)
    finally:
        ag.apply_vjp = real_vjp
    assert autodiff.apply_vjp is real_vjp
    want = ag.backward(tape, [loss], [ops.ones_like(loss)], [w1, w2])
    assert [e for e in events if e[0] == "final"] == [("final", 1), ("final", 0)]
    vjps_after_w2 = events[events.index(("final", 1)) + 1:]
    assert ("vjp", "matmul") in vjps_after_w2  # the first layer's VJPs ran after w2's hand-over
    for k in (0, 1):
        np.testing.assert_array_equal(handed[k], want[k].asnumpy())
        np.testing.assert_array_equal(grads[k].asnumpy(), want[k].asnumpy())


def test_the_public_gradient_functions_carry_type_hints_that_resolve():
    """``grad``, ``value_and_grad``, ``get_grad``, ``backward`` and ``GradOperation`` are typed,
    and their hints resolve at run time (no name only a type checker knows)."""
    import inspect
    import typing

    from runtime import autograd
    for fn in (autograd.grad, autograd.value_and_grad, autograd.get_grad, autograd.backward,
               autograd.GradOperation.__init__, autograd.GradOperation.__call__, autograd.is_recording):
        hints = typing.get_type_hints(fn)
        params = [p for p in inspect.signature(fn).parameters if p != "self"]
        assert set(params) <= set(hints) and "return" in hints, fn.__qualname__
    weights = typing.get_type_hints(autograd.grad)["weights"]
    assert autograd.HasTrainableParams in typing.get_args(weights)


def test_the_tape_does_not_compute_cotangents_nothing_reads(monkeypatch):
    """A first layer's input is the data: the gradient with respect to it is read by no one, so
    the convolution's and the matrix product's rules skip it (graph.ops.core.input_needed). The
    parameters' gradients equal those of the run that also differentiates the input."""
    from graph.ops import REGISTRY
    monkeypatch.setenv("MSJIT_EAGER_KERNELS", "0")
    counts = {}
    for name in ("conv2d_backprop_input", "conv2d_backprop_filter", "matmul"):
        op = REGISTRY[name]

        def counted(xp, *a, _impl=op.impl, _name=name, **k):
            counts[_name] = counts.get(_name, 0) + 1
            return _impl(xp, *a, **k)
        monkeypatch.setattr(op, "impl", counted)
    ms.set_seed(0)
    conv, dense, head = nn.Conv2d(1, 4, 3), nn.Dense(4 * 6 * 6, 5), nn.Dense(7, 5)
    x = Tensor(np.random.default_rng(0).random((2, 1, 6, 6)).astype(np.float32))
    z = Tensor(np.random.default_rng(1).random((2, 7)).astype(np.float32))

    def loss(x, z):
        return (dense(ops.flatten(conv(x))) * head(z)).sum()
    params = conv.trainable_params() + dense.trainable_params() + head.trainable_params()
    only_params = ms.grad(loss, None, params)(x, z)
    # (2 forward products; backward: 2 weights and the dense layer's input, the convolution's output)
    assert counts == {"conv2d_backprop_filter": 1, "matmul": 2 + 3}, counts
    counts.clear()
    (gx, gz), with_inputs = ms.grad(loss, (0, 1), params)(x, z)
    assert counts == {"conv2d_backprop_input": 1, "conv2d_backprop_filter": 1, "matmul": 2 + 4}, counts
    for a, b in zip(only_params, with_inputs):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)
    # the cotangents skipped before, where asked for: dloss/dz = dense(...) @ head.weight
    np.testing.assert_allclose(gz.asnumpy(), dense(ops.flatten(conv(x))).asnumpy() @ head.weight.asnumpy(),
                               rtol=1e-5, atol=1e-6)
    assert gx.shape == x.shape
