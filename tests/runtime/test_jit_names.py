"""ms.ms_function / ms.ms_class (deprecated 1.x names of jit / jit_class, with MindSpore's warning),
mindspore.common.JitConfig and Cell.set_jit_config."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops


def test_ms_function_warns_and_compiles_like_jit():
    def forward(x, w):
        return ops.matmul(x, w) + 1.0

    with pytest.warns(FutureWarning, match="'mindspore.ms_function' will be deprecated.*mindspore.jit"):
        compiled = ms.ms_function(forward)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    w = np.ones((4, 3), np.float32)
    np.testing.assert_allclose(compiled(Tensor(x), Tensor(w)).asnumpy(), x @ w + 1.0)
    assert type(compiled) is type(ms.jit(forward))
    with pytest.warns(FutureWarning):
        deco = ms.ms_function(jit_config=ms.JitConfig(jit_level="O0"))
    np.testing.assert_allclose(deco(forward)(Tensor(x), Tensor(w)).asnumpy(), x @ w + 1.0)


def test_ms_class_warns_and_returns_the_class():
    with pytest.warns(FutureWarning, match="'mindspore.ms_class'.*mindspore.jit_class"):
        @ms.ms_class
        class Scale:
            def __init__(self):
                self.k = 3.0

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.s = Scale()

        def construct(self, x):
            return x * self.s.k

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert Net()(Tensor([1.0, 2.0])).asnumpy().tolist() == [3.0, 6.0]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError):
        with pytest.warns(FutureWarning):
            ms.ms_class(3)


def test_common_jit_config_and_set_jit_config():
    from runtime.common import JitConfig
    assert JitConfig is ms.JitConfig
    net = nn.Dense(4, 2)
    x = Tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
    eager = net(x).asnumpy()
    cfg = JitConfig(jit_level="O0")
    net.set_jit_config(cfg)
    assert net(x).asnumpy().tolist() == eager.tolist()  # PyNative: unaffected
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-5, atol=1e-6)
        call = net.__dict__["_configured_call"]  # the compiled construct carries the config
        assert call.__func__.config.jit_config is cfg
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="JitConfig"):
        net.set_jit_config({"jit_level": "O0"})
    with pytest.raises(ValueError, match="jit_level"):
        JitConfig(jit_level="O9")


def test_adam_amsgrad_matches_the_formula():
    """nn.Adam(use_amsgrad=True) (used by the vmap tutorial): ApplyAdamWithAmsgrad's update."""
    w0 = np.array([0.5, -1.0, 2.0], np.float32)
    p = ms.Parameter(Tensor(w0.copy()), name="w")
    opt = nn.Adam([p], learning_rate=0.1, use_amsgrad=True)
    m = v = vhat = np.zeros(3)
    w = w0.astype(np.float64)
    grads = [np.array([1.0, -2.0, 0.5]), np.array([0.1, 3.0, -0.5]), np.array([-1.0, 0.1, 0.2])]
    for t, g in enumerate(grads, 1):
        opt((Tensor(g.astype(np.float32)),))
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        vhat = np.maximum(vhat, v)
        w = w - 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(vhat) + 1e-8)
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="use_nesterov"):
        nn.Adam([p], use_amsgrad=True, use_nesterov=True)
