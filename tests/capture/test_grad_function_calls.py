"""Issue 13 item 2: in GRAPH_MODE or under the frame hook, a ``grad``/``value_and_grad``/
``GradOperation`` function called from code that is not captured (a training loop in ``main()``
with prints and timers, which the hook leaves alone) runs as one compiled forward + backward
graph instead of recording and walking the tape -- with the tape's numbers; a grad function
whose forward breaks keeps the tape; nothing changes in PyNative without the hook, under an
outer tape or with ``CAPTURE_GRAD_FUNCTIONS=0``."""
import numpy as np
import pytest

import capture
import runtime as ms
from capture import dispatch, frame_eval
from capture.explain import recording
from runtime import Tensor, autograd, nn, ops

pytestmark = pytest.mark.skipif(not frame_eval.AVAILABLE, reason="the C frame hook is not built here")


def _model(seed=0):
    ms.set_seed(seed)
    net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 3)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return net, loss_fn, opt


def _batches(n=5):
    rng = np.random.default_rng(3)
    return [(Tensor(rng.standard_normal((8, 6)).astype(np.float32)), Tensor(rng.integers(0, 3, 8).astype(np.int32)))
            for _ in range(n)]


def _train_inline(batches, log_forward=False):
    """A loop the hook does not capture (it breaks inside the loop: ``float(loss.asnumpy())``)
    calling the grad function and the optimizer."""
    net, loss_fn, opt = _model()

    def forward_fn(x, y):
        logits = net(x)
        if log_forward:
            print("logits", logits.shape)  # a break in the forward: not one graph
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters, has_aux=True)
    losses, grad_norms = [], []
    for x, y in batches:
        (loss, _), grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss.asnumpy()))
        grad_norms.append(float(sum((g * g).sum().asnumpy() for g in grads)))
    return losses, grad_norms, [p.asnumpy().copy() for p in net.trainable_params()], grad_fn


def _same(got, want):
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4)
    for a, b in zip(got[2], want[2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_grad_function_called_from_an_uncaptured_loop_is_one_compiled_graph():
    batches = _batches()
    want = _train_inline(batches)
    capture.reset()
    with recording() as report, capture.enabled():
        got = _train_inline(batches)
    _same(got, want)
    grad_fn = got[3]
    assert callable(getattr(grad_fn, dispatch._CAPTURED_CALL))
    assert report.user_functions == ["grad of _train_inline.<locals>.forward_fn"]
    # the grad function's forward + backward, and the optimizer: two graphs, compiled once each
    assert report.graph_break_count == 0 and report.graph_count == 2


def test_a_grad_function_whose_forward_breaks_keeps_the_tape(capsys):
    batches = _batches(3)
    want = _train_inline(batches, log_forward=True)
    capsys.readouterr()
    capture.reset()
    with recording() as report, capture.enabled():
        got = _train_inline(batches, log_forward=True)
    _same(got, want)
    assert capsys.readouterr().out.count("logits") == 3  # printed once per call, as eagerly
    assert getattr(got[3], dispatch._CAPTURED_CALL) is False
    # (the forward itself is captured up to its print, as before: the tape records that graph)
    assert not any(name.startswith("grad of") for name in report.user_functions)


def test_grad_operation_functions_and_errors_behave_as_on_the_tape():
    w = ms.Parameter(Tensor(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)), name="w")

    def fn(x):
        return (ops.matmul(x, w) ** 2).sum()

    grad_all = ops.GradOperation(get_all=True, get_by_list=True)(fn, [w])
    x = Tensor(np.array([[0.5, 1.5]], np.float32))
    want = grad_all(x)
    capture.reset()
    with capture.enabled():
        got = [grad_all(x) for _ in range(3)]
        with pytest.raises(ValueError) as compiled_error:
            grad_all(Tensor(np.ones((1, 3), np.float32)))  # a shape the matmul refuses
    with pytest.raises(ValueError) as eager_error:
        ms.grad(fn)(Tensor(np.ones((1, 3), np.float32)))
    assert type(compiled_error.value) is type(eager_error.value)
    for g in got:
        np.testing.assert_allclose(g[0][0].asnumpy(), want[0][0].asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(g[1][0].asnumpy(), want[1][0].asnumpy(), rtol=1e-6)


def test_no_hook_an_outer_tape_or_the_switch_keep_the_tape(monkeypatch):
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    cube = ms.grad(lambda t: (t * t * t).sum())
    cube(x)  # hook off: the tape
    assert getattr(cube, dispatch._CAPTURED_CALL, None) is None
    second = ms.grad(lambda t: cube(t).sum())  # grad of a grad: under an outer tape
    with capture.enabled():
        np.testing.assert_allclose(second(x).asnumpy(), 6 * x.asnumpy(), rtol=1e-6)
    assert getattr(cube, dispatch._CAPTURED_CALL, None) is None
    monkeypatch.setattr(autograd, "CALL_HANDLER", None)
    monkeypatch.setenv("CAPTURE_GRAD_FUNCTIONS", "0")
    square = ms.grad(lambda t: (t * t).sum())
    with capture.enabled():
        np.testing.assert_allclose(square(x).asnumpy(), 2 * x.asnumpy(), rtol=1e-6)
    assert autograd.CALL_HANDLER is None and getattr(square, dispatch._CAPTURED_CALL, None) is None


def test_in_graph_mode_a_grad_function_is_one_compiled_graph_without_the_hook():
    """As MindSpore compiles a grad function in GRAPH_MODE: the same loop, no hook, no jit."""
    batches = _batches()
    want = _train_inline(batches)
    capture.reset()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _train_inline(batches)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _same(got, want)
    assert callable(getattr(got[3], dispatch._CAPTURED_CALL))
    again = _train_inline(batches[:2])  # back in PyNative: the tape
    assert getattr(again[3], dispatch._CAPTURED_CALL, None) is None
