"""Gradients and training through capture: a captured Cell under ``ms.grad`` /
``ms.value_and_grad``, the whole train step under ``@ms.jit`` (forward, backward and the
optimizer update in one graph), ``nn.TrainOneStepCell`` in GRAPH_MODE, and a small conv net;
each compared step by step with PyNative."""
import copy

import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import assert_same, randn
from runtime import Tensor, nn, ops

STEPS = 20


class MLP(nn.Cell):
    def __init__(self, din=6, hidden=16, classes=4):
        super().__init__()
        self.fc1 = nn.Dense(din, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(hidden, classes)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 3 * 3, 3)

    def construct(self, x):
        return self.fc(self.flatten(self.pool(self.relu(self.conv(x)))))


def _params(net):
    return {p.name: p.asnumpy().copy() for p in net.trainable_params()}


def _assert_params_close(a, b, rtol=1e-5, atol=1e-6):
    assert list(a) == list(b)
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)


def _data(rng, n=8, din=6, classes=4, steps=STEPS):
    xs = [Tensor(rng.standard_normal((n, din)).astype(np.float32)) for _ in range(steps)]
    ys = [Tensor(rng.integers(0, classes, n).astype(np.int32)) for _ in range(steps)]
    return xs, ys


def _twin(net_cls, seed=7):
    ms.set_seed(seed)
    a = net_cls()
    b = copy.deepcopy(a)
    _assert_params_close(_params(a), _params(b), rtol=0, atol=0)
    return a, b


# -- a captured Cell under the eager tape ----------------------------------------------------------------
def test_graph_mode_cell_under_grad_matches_pynative(rng):
    net = MLP()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, grad_position=0, weights=net.trainable_params())
    xs, ys = _data(rng, steps=3)
    with recording() as report:
        for x, y in zip(xs, ys):
            ms.set_context(mode=ms.PYNATIVE_MODE)
            want_loss, (want_dx, want_dw) = grad_fn(x, y)
            ms.set_context(mode=ms.GRAPH_MODE)
            loss, (dx, dw) = grad_fn(x, y)
            assert_same(loss, want_loss)
            assert_same(dx, want_dx)
            assert_same(dw, want_dw)
    assert report.graph_count >= 1 and report.breaks == []


def test_jitted_function_under_grad_matches_pynative(rng):
    w = ms.Parameter(Tensor(rng.standard_normal((3, 3)).astype(np.float32)), name="w")

    def f(x):
        return (ops.tanh(ops.matmul(x, w)) ** 2).sum()

    jf = ms.jit(f)
    for _ in range(3):
        x = randn(rng, 2, 3)
        assert_same(ms.grad(jf, grad_position=0, weights=[w])(x), ms.grad(f, grad_position=0, weights=[w])(x))
        assert_same(ms.grad(jf)(x), ms.grad(f)(x))


class SmoothNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 5)
        self.fc2 = nn.Dense(5, 2)

    def construct(self, x):
        return self.fc2(ops.tanh(self.fc1(x)))


def test_grad_of_a_graph_mode_cell_matches_finite_differences(rng):
    net = SmoothNet()
    ms.set_context(mode=ms.GRAPH_MODE)
    x = Tensor(rng.standard_normal((2, 3)).astype(np.float64).astype(np.float32))

    def scalar(x):
        return (net(x) ** 2).sum()

    g = ms.grad(scalar)(x).asnumpy()
    eps = 1e-2
    xn = x.asnumpy().astype(np.float64)
    fd = np.zeros_like(xn)
    for idx in np.ndindex(xn.shape):
        for sgn in (1, -1):
            xp = xn.copy()
            xp[idx] += sgn * eps
            fd[idx] += sgn * float(scalar(Tensor(xp.astype(np.float32))).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=2e-2, atol=2e-3)


# -- grads inside a captured function (graph autodiff) ------------------------------------------------------
def test_grad_inside_jit_matches_pynative(rng, check):
    net = MLP(din=3, hidden=4, classes=2)

    def f(x):
        return (net(x) ** 2).mean()

    def g(x):
        value, grads = ms.value_and_grad(f, grad_position=0, weights=net.trainable_params())(x)
        dx = ms.grad(f)(x)
        return value, grads, dx

    check(g, lambda i: ((randn(rng, 2, 3),), {}))


def test_grad_operation_inside_jit(rng, check):
    net = MLP(din=3, hidden=4, classes=2)
    weights = ms.ParameterTuple(net.trainable_params())
    grad_all = ops.GradOperation(get_all=True)
    grad_list = ops.GradOperation(get_by_list=True)
    grad_sens = ops.GradOperation(sens_param=True)

    def g(x, s):
        return grad_all(net)(x), grad_list(net, weights)(x), grad_sens(net)(x, s)

    check(g, lambda i: ((randn(rng, 2, 3), randn(rng, 2, 2)), {}))


# -- the whole train step ---------------------------------------------------------------------------------------
def _train_step_fn(net, loss_fn, opt):
    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    return train_step


def test_whole_train_step_under_jit_matches_pynative_for_20_steps(rng):
    eager_net, graph_net = _twin(MLP)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    eager_step = _train_step_fn(eager_net, loss_fn, nn.Momentum(eager_net.trainable_params(), 0.1, 0.9))
    backend = capture.CountingBackend()
    graph_step = ms.jit(_train_step_fn(graph_net, loss_fn, nn.Momentum(graph_net.trainable_params(), 0.1, 0.9)),
                        backend=backend)
    xs, ys = _data(rng, steps=1)
    xs, ys = xs * STEPS, ys * STEPS  # one batch: the loss must go down
    losses = []
    with recording() as report:
        for x, y in zip(xs, ys):
            want = eager_step(x, y)
            got = graph_step(x, y)
            assert_same(got, want)
            losses.append(float(got.asnumpy()))
    assert report.breaks == [] and backend.graph_count == 1  # one graph: forward+backward+update
    g = backend.graphs[0]
    updated = {p.name for p in g.updates}
    assert {p.name for p in graph_net.trainable_params()} <= updated  # in-place updates in the graph
    assert len(updated) >= 2 * 4  # and the 4 momentum accumulators
    _assert_params_close(_params(graph_net), _params(eager_net))
    assert losses[-1] < losses[0]


def test_train_one_step_cell_in_graph_mode_matches_pynative(rng):
    eager_net, graph_net = _twin(MLP)

    def make(net):
        loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        return nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), 0.05, 0.9)).set_train()

    eager_train, graph_train = make(eager_net), make(graph_net)
    xs, ys = _data(rng)
    with recording() as report:
        for x, y in zip(xs, ys):
            ms.set_context(mode=ms.PYNATIVE_MODE)
            want = eager_train(x, y)
            ms.set_context(mode=ms.GRAPH_MODE)
            got = graph_train(x, y)
            assert_same(got, want)
    assert report.breaks == [] and report.graph_count == 1
    _assert_params_close(_params(graph_net), _params(eager_net))


def test_conv_net_train_step_matches_pynative(rng):
    eager_net, graph_net = _twin(ConvNet)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    eager_step = _train_step_fn(eager_net, loss_fn, nn.SGD(eager_net.trainable_params(), 0.05, momentum=0.9))
    graph_step = ms.jit(_train_step_fn(graph_net, loss_fn, nn.SGD(graph_net.trainable_params(), 0.05, momentum=0.9)))
    with recording() as report:
        for _ in range(5):
            x = Tensor(rng.standard_normal((4, 1, 8, 8)).astype(np.float32))
            y = Tensor(rng.integers(0, 3, 4).astype(np.int32))
            assert_same(graph_step(x, y), eager_step(x, y))
    assert report.breaks == [] and report.graph_count == 1
    _assert_params_close(_params(graph_net), _params(eager_net))


def test_conv_net_forward_in_graph_mode(rng, check):
    net = ConvNet()
    backend = check(net, lambda i: ((Tensor(rng.standard_normal((2, 1, 8, 8)).astype(np.float32)),), {}))
    names = [n.op.name for n in backend.graphs[0].nodes]
    assert names[:2] == ["conv2d", "bias_add"] and "max_pool2d" in names and "reshape" in names


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
def test_other_optimizers_in_a_jitted_step(rng, opt_name):
    eager_net, graph_net = _twin(MLP)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def opt(net):
        return getattr(nn, opt_name)(net.trainable_params(), learning_rate=0.01)

    eager_step = _train_step_fn(eager_net, loss_fn, opt(eager_net))
    graph_step = ms.jit(_train_step_fn(graph_net, loss_fn, opt(graph_net)), fullgraph=True)
    xs, ys = _data(rng, steps=5)
    for x, y in zip(xs, ys):
        assert_same(graph_step(x, y), eager_step(x, y))
    _assert_params_close(_params(graph_net), _params(eager_net))


def test_grad_variants_inside_jit(rng, check):
    w = ms.Parameter(Tensor(rng.standard_normal((3, 2)).astype(np.float32)), name="w")

    def f(x, y):
        out = ops.matmul(x, w) * y
        return out.sum(), out  # (loss, aux)

    def g(x, y):
        a = ms.grad(f, grad_position=(0, 1), has_aux=True)(x, y)
        (loss, aux), grads = ms.value_and_grad(f, grad_position=1, weights=[w], has_aux=True)(x, y)
        wonly = ms.grad(lambda x, y: f(x, y)[0], grad_position=None, weights=w)(x, y)
        return a, loss, aux, grads, wonly

    check(g, lambda i: ((randn(rng, 4, 3), randn(rng, 4, 2)), {}))
