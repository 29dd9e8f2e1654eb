"""MindSpore 2.x names added for issue 10: module paths, functional ops composed from the registry,
Tensor methods, ops.composite's MultitypeFuncGraph/HyperMap, and the ``import mindspore`` alias.
Each numeric check has a numpy oracle and runs in PyNative, under ms.jit and in GRAPH_MODE."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import capture
import runtime as ms
from runtime import Tensor, nn, ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _x(rng, *shape):
    return Tensor(rng.standard_normal(shape).astype(np.float32))


def test_module_paths_users_import_from():
    from runtime.common import dtype as mstype
    from runtime.common.parameter import Parameter
    from runtime.common.tensor import Tensor as CommonTensor
    from runtime.ops import composite as C, functional as F, operations as P
    from runtime.train.callback import LossMonitor
    from runtime.train.serialization import load_checkpoint, save_checkpoint  # noqa: F401
    assert mstype.float32 is ms.float32 and Parameter is ms.Parameter and CommonTensor is Tensor
    assert P.MatMul is ops.MatMul and P.AddN is ops.AddN and "MatMul" in P.__all__ and "add" not in P.__all__
    assert F.stop_gradient is ops.stop_gradient and F.partial is ops.partial and "MatMul" not in F.__all__
    assert C.GradOperation is ms.ops.GradOperation and LossMonitor is ms.LossMonitor
    assert ms.tensor([1, 2]).dtype == ms.int64 and ms.tensor([1.0], ms.float16).dtype == ms.float16
    assert ms.mutable((1, 2)) == (1, 2) and ms.ParallelMode.DATA_PARALLEL == "data_parallel"
    ms.set_context(jit_syntax_level=ms.STRICT)
    assert ms.get_context("jit_syntax_level") == ms.STRICT
    ms.set_context(jit_syntax_level=ms.LAX)
    with pytest.raises(ValueError, match="jit_syntax_level"):
        ms.set_context(jit_syntax_level=7)

    @ms.jit_class
    class Config:
        scale = 2.0
    assert Config.scale == 2.0
    with pytest.raises(TypeError, match="jit_class"):
        ms.jit_class(lambda: 0)


def _composites(x, y, mask):
    parts = ops.unstack(x, 1)
    return (ops.cat((x, y), 1), ops.permute(x, (2, 0, 1)), ops.unsqueeze(x, 0), ops.swapaxes(x, 0, 2),
            ops.addn([x, y, x]), ops.bmm(x, ops.swapaxes(y, 1, 2)), parts[1], ops.chunk(x, 2, 2)[1],
            ops.narrow(x, 2, 1, 2), ops.flip(x, (1, 2)), ops.masked_fill(x, mask, 0.5), ops.prod(y, 2),
            ops.var(x, 2, ddof=1), ops.std(x), ops.all(mask, 2), ops.any(mask), ops.isclose(x, x + 1e-7),
            ops.full_like(x, 3.0), ops.outer(x[0, 0], y[1, 1]), ops.tril(x), ops.triu(x, 1),
            ops.binary_cross_entropy_with_logits(x, ops.sigmoid(y)), ops.depend(x * 2, y),
            ops.AddN()((x, y)), ops.BatchMatMul(transpose_b=True)(x, y), ops.Unstack(axis=2)(x)[3])


def _numpy_composites(x, y, mask):
    sig = 1 / (1 + np.exp(-y))
    bce = np.mean(np.maximum(x, 0) - x * sig + np.log1p(np.exp(-np.abs(x))))
    return (np.concatenate([x, y], 1), x.transpose(2, 0, 1), x[None], x.transpose(2, 1, 0), 2 * x + y,
            x @ y.transpose(0, 2, 1), x[:, 1], x[:, :, 2:4], x[:, :, 1:3], x[:, ::-1, ::-1],
            np.where(mask, np.float32(0.5), x), y.prod(2), x.var(2, ddof=1), x.std(), mask.all(2), mask.any(),
            np.isclose(x, x + np.float32(1e-7)), np.full(x.shape, 3.0, np.float32), np.outer(x[0, 0], y[1, 1]),
            np.tril(x), np.triu(x, 1), bce, x * 2, x + y, x @ y.transpose(0, 2, 1), x[:, :, 3])


@pytest.mark.parametrize("mode", ["pynative", "jit", "graph"])
def test_composed_functional_ops_against_numpy(mode):
    rng = np.random.default_rng(7)
    x, y = _x(rng, 2, 3, 4), _x(rng, 2, 3, 4)
    mask = x > 0.3

    class Net(nn.Cell):
        def construct(self, x, y, mask):
            return _composites(x, y, mask)

    if mode == "pynative":
        got = _composites(x, y, mask)
    elif mode == "jit":
        got = ms.jit(_composites)(x, y, mask)
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = Net()(x, y, mask)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    want = _numpy_composites(x.asnumpy(), y.asnumpy(), mask.asnumpy())
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6, err_msg=f"output {i}")
    if mode == "jit":
        assert capture.explain(_composites)(x, y, mask).graph_break_count == 0


def test_constant_builders():
    assert ops.arange(5).dtype == ms.int64 and ops.arange(5).asnumpy().tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(ops.arange(1, 2, 0.25).asnumpy(), [1.0, 1.25, 1.5, 1.75])
    assert ops.arange(0, 1, 0.5).dtype == ms.float32
    np.testing.assert_array_equal(ops.eye(2, 3).asnumpy(), np.eye(2, 3))


def test_stop_gradient_cuts_the_gradient():
    rng = np.random.default_rng(3)
    a = _x(rng, 5)

    def f(a):
        return (ops.stop_gradient(a) * a + ops.StopGradient()(a * a)).sum()

    want = a.asnumpy()  # d/da (c * a) with c = a held constant; the second term contributes 0
    np.testing.assert_allclose(ms.grad(f)(a).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ms.jit(ms.grad(f))(a).asnumpy(), want, rtol=1e-6)


def test_tensor_methods_against_numpy():
    rng = np.random.default_rng(5)
    x = _x(rng, 2, 3, 4)
    a = x.asnumpy()
    idx = Tensor(np.array([2, 0], np.int32))
    cases = [
        (x.permute(2, 0, 1), a.transpose(2, 0, 1)), (x.permute((1, 0, 2)), a.transpose(1, 0, 2)),
        (x.swapaxes(0, 2), a.swapaxes(0, 2)), (x.gather(idx, 1), a[:, [2, 0]]), (x.std(), a.std()),
        (x.var(axis=1, ddof=1), a.var(1, ddof=1)), (x.pow(2), a ** 2), (x.split(3, 2)[1], a[:, :, 3:]),
        (x.add(1).sub(0.5).mul(2).div(4), (a + 0.5) / 2), (x.matmul(x.swapaxes(1, 2)), a @ a.transpose(0, 2, 1)),
        (x.softmax(), np.exp(a) / np.exp(a).sum(-1, keepdims=True)), (x.clamp(-0.5, 0.5), a.clip(-0.5, 0.5)),
        (x.tile((1, 2, 1)), np.tile(a, (1, 2, 1))), (x.masked_fill(x > 0, 0.0), np.where(a > 0, 0, a)),
        (x.chunk(3, 1)[2], a[:, 2:]), (x.narrow(1, 1, 2), a[:, 1:3]), (x.ravel(), a.ravel()),
        (x[0].expand_as(x), np.broadcast_to(a[0], a.shape)),
        (x.ravel().view_as(Tensor(np.zeros((4, 6), np.float32))), a.reshape(4, 6)),
        (x.long(), a.astype(np.int64)), (x.bool(), a.astype(bool)), (x.clone(), a),
    ]
    for got, want in cases:
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert x.numel() == x.nelement() == 24 and x.strides == a.strides and x.init_data() is x
    shared = np.zeros(3, np.float32)
    t = Tensor.from_numpy(shared)
    shared[1] = 4.0
    assert t.asnumpy().tolist() == [0.0, 4.0, 0.0]
    with pytest.raises(TypeError, match="from_numpy"):
        Tensor.from_numpy([1.0])


# -- ops.composite: MultitypeFuncGraph and HyperMap, as MindSpore's gradient clipping uses them -------
from runtime.ops import composite as C  # noqa: E402
from runtime.ops import functional as F  # noqa: E402

clip_grad = C.MultitypeFuncGraph("clip_grad")


@clip_grad.register("Number", "Tensor")
def _clip_grad(clip_value, grad):
    return ops.clip_by_value(grad, -clip_value, clip_value)


@clip_grad.register("Number", "Number")
def _clip_number(clip_value, grad):
    return min(max(grad, -clip_value), clip_value)


class ClipAll(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hyper_map = C.HyperMap()

    def construct(self, grads):
        return self.hyper_map(F.partial(clip_grad, 0.5), grads)


def test_multitype_func_graph_and_hyper_map():
    rng = np.random.default_rng(11)
    grads = (_x(rng, 3), (_x(rng, 2, 2), _x(rng, 4)))
    want = (np.clip(grads[0].asnumpy(), -0.5, 0.5),
            (np.clip(grads[1][0].asnumpy(), -0.5, 0.5), np.clip(grads[1][1].asnumpy(), -0.5, 0.5)))
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            got = ClipAll()(grads)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(got[0].asnumpy(), want[0])
        np.testing.assert_allclose(got[1][1].asnumpy(), want[1][1])
    assert clip_grad(0.5, 3) == 0.5
    assert C.Map()(lambda a, b: a * b, (1, 2), 3) == (3, 6)
    with pytest.raises(TypeError, match="clip_grad.*str"):
        clip_grad(0.5, "x")
    with pytest.raises(ValueError, match="unknown type name"):
        clip_grad.register("Tensr")


# -- import mindspore, unedited ------------------------------------------------------------------------
MINDSPORE_SCRIPT = textwrap.dedent("""
    import numpy as np
    import mindspore as ms
    import mindspore.nn as nn
    import mindspore.ops as ops
    from mindspore import Tensor, context
    from mindspore.common.initializer import Normal
    from mindspore.ops import operations as P
    import mindspore.common.dtype as mstype

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3, weight_init=Normal(0.02))
            self.matmul = P.MatMul(transpose_b=True)

        def construct(self, x):
            h = ops.relu(self.fc(x))
            return self.matmul(h, h) * 2

    context.set_context(mode=context.GRAPH_MODE)
    ms.set_seed(0)
    net = Net()
    x = Tensor(np.ones((2, 4)), mstype.float32)
    print("checksum %.6f" % float(net(x).asnumpy().sum()))
""")


def _run_cli(tmp_path, script_text, *cli, extra_path=None):
    script = tmp_path / "ms_script.py"
    script.write_text(script_text)
    paths = [ROOT] + ([str(extra_path)] if extra_path else []) + [os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    cmd = [sys.executable, "-m", "capture", *cli, str(script)] if cli else [sys.executable, str(script)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=300)


def test_a_mindspore_script_runs_unedited(tmp_path):
    aliased = _run_cli(tmp_path, MINDSPORE_SCRIPT, "run", "--mindspore")
    assert aliased.returncode == 0, aliased.stderr
    ported = _run_cli(tmp_path, MINDSPORE_SCRIPT.replace("mindspore", "runtime"))
    assert ported.returncode == 0, ported.stderr
    assert aliased.stdout.split("checksum")[1] == ported.stdout.split("checksum")[1]
    assert "1 frame(s) captured" in aliased.stderr and "0 graph break(s)" in aliased.stderr
    plain = _run_cli(tmp_path, MINDSPORE_SCRIPT, "run")  # without the flag: Python's own error
    assert plain.returncode == 1 and "No module named 'mindspore'" in plain.stderr


def test_the_alias_refuses_to_shadow_a_real_mindspore(tmp_path):
    fake = tmp_path / "site" / "mindspore"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("REAL = True\n")
    result = _run_cli(tmp_path, "import mindspore\nprint(mindspore.REAL)\n", "run", "--mindspore",
                      extra_path=tmp_path / "site")
    assert result.returncode == 2 and "real MindSpore is installed" in result.stderr


def test_alias_in_process_is_the_same_modules():
    from runtime import compat
    compat.alias_mindspore()
    try:
        import mindspore
        import mindspore.dataset.vision as vision
        from mindspore.ops import functional as F2
        assert mindspore is ms and mindspore.nn is nn and F2 is F
        assert vision is ms.dataset.vision
        with pytest.raises(ModuleNotFoundError):
            import mindspore.not_a_module
    finally:
        compat.remove_alias()
    assert "mindspore" not in sys.modules


def test_primitives_take_call_time_attributes_by_keyword():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    a = x.asnumpy()

    def f(x):
        return ops.ReduceSum(keep_dims=True)(x, axis=2), ops.ReduceMean()(x, axis=(0, 2)), ops.ReduceMax()(x, 1)

    want = (a.sum(2, keepdims=True), a.mean((0, 2)), a.max(1))
    for got in (f(x), ms.jit(f)(x)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)
    with pytest.raises(TypeError, match="given twice"):
        ops.ReduceSum()(x, 1, axis=2)
    with pytest.raises(TypeError, match="unknown call-time attribute 'axs'"):
        ops.ReduceSum()(x, axs=2)
    with pytest.raises(TypeError, match="at most 1 call-time"):
        ops.ReduceSum()(x, 1, 2)
    with pytest.raises(TypeError, match="no attributes at call time"):
        ops.MatMul()(x[0], x[0].T, transpose_a=True)


def test_model_zoo_import_paths_for_loss_scaling_and_seed():
    from runtime import amp, compat
    compat.alias_mindspore()
    try:
        import mindspore
        import mindspore.train.loss_scale_manager as lsm
        from mindspore.train import (DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager,
                                     build_train_network)
        from mindspore.train.amp import build_train_network as train_amp_build
        from mindspore.common import set_seed
        from mindspore.common.seed import get_seed
        assert FixedLossScaleManager is mindspore.FixedLossScaleManager is lsm.FixedLossScaleManager \
            is amp.FixedLossScaleManager
        assert DynamicLossScaleManager is mindspore.DynamicLossScaleManager is lsm.DynamicLossScaleManager
        assert LossScaleManager is mindspore.LossScaleManager is amp.LossScaleManager
        assert build_train_network is mindspore.build_train_network is train_amp_build is amp.build_train_network
        assert set(lsm.__all__) == {"LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"}
        set_seed(21)
        assert get_seed() == 21 == ms.get_seed()
        a = ops.randn((3,)).asnumpy()
        ms.set_seed(21)
        np.testing.assert_array_equal(ops.randn((3,)).asnumpy(), a)  # the one global seed
    finally:
        compat.remove_alias()


def test_a_model_zoo_fixed_loss_scale_trains_like_no_scaling():
    # the model zoo's ResNet: FixedLossScaleManager(1024, drop_overflow_update=False) with the
    # optimizer's loss_scale=1024; power-of-two scaling is exact, so the weights equal plain training
    from runtime.train import FixedLossScaleManager, Model
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((8, 5)).astype(np.float32), rng.integers(0, 3, 8).astype(np.int32)

    def train(scaled):
        ms.set_seed(2)
        net = nn.Dense(5, 3)
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=1024.0 if scaled else 1.0)
        manager = FixedLossScaleManager(1024, drop_overflow_update=False) if scaled else None
        model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
                      loss_scale_manager=manager)
        data = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
        model.train(2, data)
        assert model.train_network.sens == (1024.0 if scaled else 1.0)  # the manager's scale is used
        return [p.asnumpy() for p in net.trainable_params()]

    for got, want in zip(train(True), train(False)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
