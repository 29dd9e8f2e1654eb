"""``runtime.numpy.pad`` against numpy.pad (the oracle) for every supported mode, eager and under jit."""
import numpy as np
import pytest

import runtime as ms
import runtime.numpy as mnp

RNG = np.random.default_rng(0)
ARRAYS = {"1d": (RNG.standard_normal(5) * 10), "2d": (RNG.standard_normal((3, 4)) * 10)}
WIDTHS = {"1d": [(3, 4), 2, (9, 11)], "2d": [((1, 2), (3, 0)), ((5, 7), (2, 9))]}
MODES = [("constant", {}), ("constant", {"constant_values": "pairs"}), ("edge", {}), ("wrap", {}),
         ("reflect", {}), ("symmetric", {}), ("reflect", {"reflect_type": "odd"}),
         ("symmetric", {"reflect_type": "odd"}), ("maximum", {}), ("minimum", {}), ("mean", {}),
         ("mean", {"stat_length": 2}), ("maximum", {"stat_length": ((1, 2),)}),
         ("linear_ramp", {"end_values": (10, -3)}), ("linear_ramp", {}), ("empty", {})]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("mode,kw", MODES, ids=[f"{m}-{'-'.join(k) or 'default'}" for m, k in MODES])
def test_pad_matches_numpy(dtype, mode, kw):
    for name, base in ARRAYS.items():
        a = base.astype(dtype)
        for pw in WIDTHS[name]:
            kwargs = dict(kw)
            if kwargs.get("constant_values") == "pairs":
                kwargs["constant_values"] = ((1, 2), (3, 4)) if a.ndim == 2 else (5, 6)
            want = np.pad(a, pw, "constant" if mode == "empty" else mode, **kwargs)

            def f(t, pw=pw, kwargs=kwargs):
                return mnp.pad(t, pw, mode, **kwargs)
            for fn in (f, ms.jit(f)):
                got = fn(ms.Tensor(a)).asnumpy()
                assert got.dtype == want.dtype and got.shape == want.shape, (pw, got.dtype, got.shape)
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5, err_msg=f"{pw} {fn}")


def test_pad_rejects_bad_arguments():
    x = mnp.ones((2, 3))
    with pytest.raises(ValueError, match="mode"):
        mnp.pad(x, 1, mode="median")
    with pytest.raises(ValueError, match="padding function"):
        mnp.pad(x, 1, mode=lambda *a: a[0])
    with pytest.raises(TypeError, match="unexpected keyword"):
        mnp.pad(x, 1, mode="edge", ramp=3)
    with pytest.raises(ValueError, match="non-negative"):
        mnp.pad(x, -1)
    with pytest.raises(ValueError, match="reflect_type"):
        mnp.pad(x, 1, mode="reflect", reflect_type="both")
