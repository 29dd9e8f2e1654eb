"""Device placement (issue 16 item 1), on the CuPy stand-in (tests/device_standin.py) so it runs
without a GPU: under ``set_context(device_target="GPU")`` tensors, Parameters, initializers and
creation ops hold device arrays; ops keep results on the device; ``asnumpy``/printing copy back;
operands on two devices are a clear error; ``Tensor.move_to``; PyNative training (tape autodiff,
optimizer updates) runs on the device and equals the CPU run; checkpoints save from and load onto
the device. Each test runs again with real CuPy where a GPU is usable (skipped without one); there
the training comparison with the CPU is within float32 tolerance instead of exact."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import device_standin as standin
import runtime as ms
from runtime import Parameter, Tensor, device, nn, ops

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))


@pytest.fixture(params=["standin", pytest.param("cupy", marks=pytest.mark.cuda_device)])
def gpu(request, monkeypatch):
    """device_target="GPU" served by the stand-in, or by CuPy on a real device (skipped without
    one); the CPU context comes back afterwards."""
    if request.param == "cupy":
        if device.cupy_module() is None:
            pytest.skip(f"no usable GPU: {device.gpu_unavailable_reason()}")
        monkeypatch.setattr(device.GPU, "active", device.GPU.active)
    else:
        from graph.ops import emit
        monkeypatch.setattr(device, "_cupy", standin.xp)
        monkeypatch.setattr(device.GPU, "active", False)
        monkeypatch.setitem(emit.SPECIAL_FUNCTIONS, standin.xp.__name__, standin.special.__name__)
    ms.set_context(device_target="GPU")
    yield device.cupy_module()
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)


def on_gpu(t):
    return type(t._data) is not np.ndarray and device.device_of(t._data) == "GPU"


def test_gpu_needs_cupy_and_a_device():
    reason = device.gpu_unavailable_reason()
    if not reason:
        pytest.skip("a usable GPU is present: device_target='GPU' is accepted here")
    with pytest.raises(ValueError, match="device_target='GPU' needs cupy and a CUDA GPU"):
        ms.set_context(device_target="GPU")
    assert ms.get_context("device_target") == "CPU"


def test_tensors_live_on_the_device_and_copy_back(gpu):
    x = Tensor([[1.0, 2.0], [3.0, 4.0]])
    assert on_gpu(x)
    a = x.asnumpy()
    assert type(a) is np.ndarray and a.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    a[0, 0] = 99.0  # a copy: the device data is untouched
    assert x.asnumpy()[0, 0] == 1.0
    assert repr(x) == "Tensor(shape=[2, 2], dtype=Float32, value=\n[[1., 2.],\n [3., 4.]])"
    assert str(x) == "[[1. 2.]\n [3. 4.]]"
    assert x.shape == (2, 2) and x.dtype == ms.float32 and x.sum().item() == 10.0
    assert f"{x.sum():.1f}" == "10.0" and float(x[1, 1]) == 4.0 and bool(x[0, 0] > 0)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_ops_keep_results_on_the_device(gpu):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    w = Tensor(np.ones((3, 4), np.float32))
    results = [x + 1, 1.0 - x, x * x, ops.matmul(x, w), ops.relu(x - 2), ops.reduce_sum(x, 1), x[1],
               ops.softmax(x), ops.concat([x, x]), ops.cast(x, ms.int32), x.reshape(3, 2).T, ops.argmax(x, 1),
               ops.zeros_like(x), x > 2]
    for r in results:
        assert on_gpu(r), r
    np.testing.assert_allclose((1.0 - x).asnumpy(), 1.0 - np.arange(6).reshape(2, 3))
    np.testing.assert_allclose(ops.matmul(x, w).asnumpy(), np.arange(6).reshape(2, 3) @ np.ones((3, 4)))


def test_creation_ops_initializers_and_parameters_follow_the_context(gpu):
    from runtime.common.initializer import Normal, initializer
    made = [ops.zeros((2, 3)), ops.ones((2,)), ops.fill(ms.float32, (2,), 3.0), ops.eye(3), ops.arange(5),
            ops.randn(2, 3), ops.linspace(Tensor(0.0), Tensor(1.0), 5), initializer(Normal(0.1), (3, 4)),
            initializer("zeros", (2,)), Tensor.from_numpy(np.ones(3, np.float32)),
            Parameter(np.ones(3, np.float32), name="p"), Parameter(initializer("ones", (2,)), name="q")]
    for t in made:
        assert on_gpu(t), t
    net = nn.Dense(4, 3)
    assert all(on_gpu(p) for p in net.trainable_params())
    p = net.weight
    p.set_data(np.zeros((3, 4), np.float32))  # host data follows the parameter to its device
    assert on_gpu(p) and p.asnumpy().sum() == 0


def test_setitem_with_host_values(gpu):
    x = Tensor(np.zeros((3, 3), np.float32))
    x[1] = np.array([1.0, 2.0, 3.0], np.float32)
    x[np.array([0, 2]), 0] = 5.0
    x[Tensor(np.array([2])), 2] = Tensor(np.array([7.0], np.float32))
    assert on_gpu(x)
    np.testing.assert_array_equal(x.asnumpy(), [[5, 0, 0], [1, 2, 3], [5, 0, 7]])


def test_mixing_devices_is_a_clear_error(gpu):
    g = Tensor([1.0, 2.0])
    ms.set_context(device_target="CPU")
    c = Tensor([1.0, 2.0])
    assert not on_gpu(c) and on_gpu(g)
    with pytest.raises(ValueError, match=r"Add \(ops.add\): input 0 is on the GPU and input 1 on the CPU"):
        g + c
    with pytest.raises(ValueError, match=r"ops.matmul\): input 0 is on the CPU and input 1 on the GPU.*move_to"):
        ops.matmul(c.reshape(1, 2), g.reshape(2, 1))
    # on the CPU context, creation ops make CPU tensors again
    assert not on_gpu(ops.zeros((2,)))


def test_move_to(gpu):
    g = Tensor([1.0, 2.0])
    c = g.move_to("CPU")
    assert not on_gpu(c) and c.asnumpy().tolist() == [1.0, 2.0]
    back = c.move_to("GPU")
    assert on_gpu(back) and (back + g).asnumpy().tolist() == [2.0, 4.0]
    same = g.move_to("GPU")
    assert on_gpu(same) and same._data is not g._data  # a new tensor, as MindSpore's
    with pytest.raises(ValueError, match="one of 'Ascend', 'GPU', 'CPU'"):
        g.move_to("TPU")
    with pytest.raises(ValueError, match="no Ascend device"):
        g.move_to("Ascend")
    with pytest.raises(ValueError, match="blocking must be a bool"):
        g.move_to("CPU", blocking=1)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match="only supported in PyNative mode"):
        g.move_to("CPU")


def _train(steps=3):
    from models import ours_train_step
    out = {}
    for model in ("lenet", "mlp"):
        step, (x, y) = ours_train_step(model, 8)
        losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
        out[model] = (losses, [p.asnumpy().copy() for p in step.network.trainable_params()],
                      all(type(p._data) is not np.ndarray for p in step.network.trainable_params()))
    return out


def test_pynative_training_on_the_device_equals_the_cpu(gpu, monkeypatch):
    if gpu is standin.xp:  # bit-identical only to numpy's own kernels, not the compiled convolutions
        monkeypatch.setenv("MSJIT_EAGER_KERNELS", "0")   # the CPU would use once warm (eager_kernels)
    on_device = _train()
    ms.set_context(device_target="CPU")
    on_cpu = _train()
    for model in ("lenet", "mlp"):
        losses, params, stayed = on_device[model]
        want_losses, want_params, _ = on_cpu[model]
        assert stayed, f"{model}: a parameter left the device"
        # the stand-in computes with numpy (bit-identical); CuPy's kernels round differently
        exact = gpu is standin.xp
        np.testing.assert_allclose(losses, want_losses, rtol=0 if exact else 1e-5)
        for a, b in zip(params, want_params):
            np.testing.assert_allclose(a, b, rtol=0 if exact else 1e-5, atol=0 if exact else 1e-6)
        assert losses[-1] < losses[0]


def test_tape_gradients_on_the_device(gpu):
    w = Parameter(Tensor(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)), name="w")
    x = Tensor(np.array([[0.3, -0.7]], np.float32))

    def f(x):
        return ops.reduce_sum(ops.tanh(ops.matmul(x, w)) ** 2)
    loss, (gx, gw) = ms.value_and_grad(f, 0, [w])(x)
    assert on_gpu(loss) and on_gpu(gx) and on_gpu(gw[0])
    xv, wv = x.asnumpy().astype(np.float64), w.asnumpy().astype(np.float64)
    t = np.tanh(xv @ wv)
    np.testing.assert_allclose(gw[0].asnumpy(), xv.T @ (2 * t * (1 - t * t)), rtol=1e-5)
    np.testing.assert_allclose(gx.asnumpy(), (2 * t * (1 - t * t)) @ wv.T, rtol=1e-5)


def test_checkpoints_save_from_and_load_onto_the_device(gpu, tmp_path):
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 2)])
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    want = {p.name: p.asnumpy() for p in net.trainable_params()}
    ms.set_seed(4)
    other = nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 2)])
    ms.load_param_into_net(other, ms.load_checkpoint(path))
    for p in other.trainable_params():
        assert on_gpu(p)
        np.testing.assert_array_equal(p.asnumpy(), want[p.name])
    ms.set_context(device_target="CPU")  # a GPU checkpoint loads into a CPU network too
    cpu_net = nn.SequentialCell([nn.Dense(4, 5), nn.ReLU(), nn.Dense(5, 2)])
    ms.load_param_into_net(cpu_net, ms.load_checkpoint(path))
    for p in cpu_net.trainable_params():
        assert type(p._data) is np.ndarray
        np.testing.assert_array_equal(p.asnumpy(), want[p.name])


def test_print_of_device_tensors(gpu, capsys):
    print(Tensor([1.5, 2.5]))
    ops.Print()("value:", Tensor([3]))
    out = capsys.readouterr().out
    assert "[1.5 2.5]" in out and "3" in out


def test_cpu_only_processes_never_check_devices():
    """The CPU hot path reads one flag: it stays off in a process that never asked for the GPU
    (this test runs after the GPU fixture's tests restored it)."""
    if device.cupy_module() is not None:
        pytest.skip("a usable GPU is present: the flag may have been set by other tests")
    assert device.GPU.active is False
    x = Tensor([1.0])
    assert type((x + x)._data) is np.ndarray


def _helpers(x):
    """Framework helpers that make host constants next to an operand (pad's base, tril's mask,
    layer_norm's default weight and bias)."""
    y = ops.pad(x, (1, 1, 2, 2))
    return y * 2.0, ops.tril(x[0, 0]), ops.layer_norm(x, (8,))


def test_helper_constants_trace_without_breaks():
    import capture
    x = Tensor(np.random.default_rng(0).random((2, 3, 8, 8)).astype(np.float32))
    capture.reset()
    report = capture.explain(_helpers)(x)
    assert report.graph_count == 1 and report.graph_break_count == 0, [b.reason for b in report.breaks]


def test_graph_mode_on_the_device_with_the_reference_backend(gpu):
    """Capture under device_target="GPU": the graph's constants are device arrays and the numpy
    backend (the reference interpreter) runs with the device's array module."""
    import capture
    capture.reset()
    x = Tensor(np.random.default_rng(0).random((2, 3, 8, 8)).astype(np.float32))
    want = [t.asnumpy() for t in _helpers(x)]
    counter = capture.CountingBackend()
    got = capture.jit(_helpers, backend=counter, fullgraph=True)(x)
    assert counter.graph_count == 1
    for g, w in zip(got, want):
        assert on_gpu(g)
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)


def test_optimizer_state_lives_on_the_device(gpu):
    """Optimizer state (RMSProp's ones-initialised mean squares, Adam's moments, Adagrad's
    accumulators, step counters) is made on the parameters' device and updated there."""
    for make in (lambda ps: nn.RMSProp(ps, 0.1), lambda ps: nn.Adam(ps, 0.01), lambda ps: nn.Adagrad(ps, 0.1)):
        net = nn.Dense(3, 2)
        opt = make(net.trainable_params())
        grads = tuple(ops.ones_like(p) for p in net.trainable_params())
        opt(grads)
        state = list(opt.parameters_and_names())
        assert len(state) > 2
        for name, p in state:
            assert on_gpu(p), name
        assert all(on_gpu(p) for p in net.trainable_params())


def test_cupy_arrays_make_gpu_tensors(gpu):
    if gpu is standin.xp:
        pytest.skip("real CuPy arrays need a device")
    t = Tensor(gpu.arange(3, dtype=gpu.float32))
    assert on_gpu(t) and (t * 2).asnumpy().tolist() == [0.0, 2.0, 4.0]
