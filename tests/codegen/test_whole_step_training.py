"""A whole train step (value_and_grad + optimizer) compiled by the LLVM backend equals PyNative
step by step over 50 steps (losses and final parameters, rtol 1e-5)."""
import numpy as np
import pytest

import capture
from capture.cache import cache_for
import runtime as ms
from runtime import Tensor, nn, ops

from codegen_helpers import tutorial_train_step


def _model():
    ms.set_seed(11)
    net = nn.SequentialCell([nn.Dense(20, 32), nn.ReLU(), nn.Dense(32, 32), nn.Tanh(), nn.Dense(32, 5)])
    return net, tutorial_train_step(net, nn.Adam(net.trainable_params(), 0.01))


@pytest.mark.parametrize("backend", ["llvm"])
def test_50_steps_equal_pynative(backend):
    rng = np.random.default_rng(0)
    data = [(Tensor(rng.normal(size=(16, 20)).astype(np.float32)),
             Tensor(rng.integers(0, 5, 16).astype(np.int32))) for _ in range(5)]
    capture.reset()
    eager_net, eager_step = _model()
    eager_losses = [float(eager_step(*data[i % 5]).asnumpy()) for i in range(50)]
    graph_net, graph_step = _model()
    jitted = capture.jit(graph_step, backend=backend)
    graph_losses = [float(jitted(*data[i % 5]).asnumpy()) for i in range(50)]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    for a, b in zip(eager_net.trainable_params(), graph_net.trainable_params()):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)
    report = capture.explain(jitted)(*data[0])
    assert report.graph_count == 1 and report.graph_break_count == 0


@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
def test_jit_config_level_reaches_the_pass_pipeline(level, monkeypatch):
    from graph import passes
    seen = []
    original = passes.optimize

    def spy(graph, lvl="O1", *args, **kwargs):
        seen.append(lvl)
        return original(graph, lvl, *args, **kwargs)

    monkeypatch.setattr(passes, "optimize", spy)
    capture.reset()
    f = capture.jit(lambda x: ops.tanh(x * 2.0 + 1.0) * 3.0, backend="llvm",
                    jit_config=ms.JitConfig(jit_level=level))
    x = Tensor(np.linspace(-1, 1, 7).astype(np.float32))
    np.testing.assert_allclose(f(x).asnumpy(), np.tanh(x.asnumpy() * 2 + 1) * 3, rtol=1e-6)
    assert seen == [level]


def test_parameter_updates_are_handed_over_not_copied(monkeypatch):
    """The optimizer's new values are the compiled graph's updates themselves: no assign step
    copies them, every update is memory of its own (never an input's or another update's), and
    results still equal PyNative (the 50-step test above)."""
    import codegen
    compiled = []
    original = codegen.compile_schedule

    def spy(schedule, name=None, **kwargs):
        compiled.append(original(schedule, name, **kwargs))
        return compiled[-1]

    monkeypatch.setattr(codegen, "compile_schedule", spy)
    capture.reset()
    net, step = _model()
    jitted = capture.jit(step, backend="llvm")
    rng = np.random.default_rng(1)
    x = Tensor(rng.normal(size=(16, 20)).astype(np.float32))
    y = Tensor(rng.integers(0, 5, 16).astype(np.int32))
    jitted(x, y)
    (runner,) = compiled
    assert "assign" not in runner.describe()
    assert len(runner.graph.updates) >= 3 * 6  # 6 weights and their two Adam moments at least
    inputs = [p.asnumpy() for p in net.trainable_params()]
    for _ in range(2):
        before = [p._data for p in net.trainable_params()]
        jitted(x, y)
        after = [p._data for p in net.trainable_params()]
        for i, a in enumerate(after):
            assert a.flags.owndata and a.flags.c_contiguous
            assert not any(np.shares_memory(a, b) for b in before + after[:i] + after[i + 1:])
    assert any(not np.array_equal(a, p.asnumpy()) for a, p in zip(inputs, net.trainable_params()))


class _LeNet5(nn.Cell):
    """The MindSpore tutorial LeNet5 (examples/lenet_demo.py), with padding in its first layer so
    the padded code paths of the generated conv/pool kernels train too."""

    def __init__(self, pad_first):
        super().__init__()
        self.conv1 = (nn.Conv2d(1, 6, 5, pad_mode="pad", padding=2) if pad_first
                      else nn.Conv2d(1, 6, 5, pad_mode="valid"))
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


@pytest.mark.parametrize("pad_first, steps, direct", [(False, 50, False), (False, 50, True), (True, 10, False)],
                         ids=["tutorial", "tutorial-direct-conv1", "padded"])
def test_lenet5_whole_step_equals_pynative(pad_first, steps, direct, monkeypatch):
    """LeNet5's whole train step compiled (convolutions lowered to generated im2col/col2im and
    BLAS, generated pooling and pooling gradient) equals PyNative step by step: the tutorial
    network over 50 Momentum steps. The compiled filter gradients sum their products in another
    order than the eager ones (per image, then over the batch), about 1e-7 apart per step; the
    padded variant's trajectory amplifies that faster (1.5e-4 after 50 steps), so it is compared
    over its first 10. ``direct``: the first layer is computed as a direct convolution (as it is
    from batch 256 on), the other layers through columns."""
    if direct:
        from graph.passes import lower
        monkeypatch.setattr(lower, "DIRECT_MIN_COLUMNS", 0)

    def model():
        ms.set_seed(3)
        net = _LeNet5(pad_first)
        return net, tutorial_train_step(net, nn.Momentum(net.trainable_params(), 0.01, 0.9))

    rng = np.random.default_rng(0)
    size = 28 if pad_first else 32
    data = [(Tensor(rng.normal(size=(8, 1, size, size)).astype(np.float32)),
             Tensor(rng.integers(0, 10, 8).astype(np.int32))) for _ in range(5)]
    capture.reset()
    eager_net, eager_step = model()
    eager_losses = [float(eager_step(*data[i % 5]).asnumpy()) for i in range(steps)]
    graph_net, graph_step = model()
    jitted = capture.jit(graph_step, backend="llvm")
    graph_losses = [float(jitted(*data[i % 5]).asnumpy()) for i in range(steps)]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    for a, b in zip(eager_net.trainable_params(), graph_net.trainable_params()):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)
    assert eager_losses[-1] < eager_losses[0]
    # every update is written into the parameter's own array, so from the second step on a step
    # is one native call: its pointers restored from the one snapshot, the reshapes of the
    # filters (run first on full calls) not needed at all
    (entry,) = cache_for(graph_step.__code__).entries
    runner = entry.runner
    assert len(runner.inplace_inputs) == len(runner.update_slots)
    assert runner.snapshots.hits == steps - 1 and len(runner.fast_steps) == 1
    report = capture.explain(jitted)(*data[0])
    assert report.graph_count == 1 and report.graph_break_count == 0
