"""Every registered op's ``impl(xp, ...)`` is array-module generic: run on the device stand-in
(tests/device_standin.py: arrays numpy refuses, as CuPy's), with each op's registry sample, it
returns device arrays equal to the numpy impl's results, never hands a device array to numpy,
and uses only functions, ufunc methods and array methods that CuPy has (checked by name on the
installed CuPy, which imports without a GPU)."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import device_standin as standin
from graph.ops import REGISTRY
from graph.ops.promotion import cast_operands, promotion_target
from test_registry import SAMPLES

# collectives exchange through MPI's host buffers by design (device arrays are staged through the
# host) and number their exchanges, so two runs differ: tests/distributed checks them
OPS = sorted(n for n, op in REGISTRY.items() if not op.communicates)


def _cupy():
    try:
        import cupy
    except ImportError as e:
        pytest.skip(f"cupy is not installed ({e}): names used by the impls cannot be checked against it "
                    "(pip install '.[gpu]')")
    return cupy


def _run(op, args, attrs, xp):
    target = promotion_target(op, args)
    if target is not None:
        args = cast_operands(op, args, target)
    return op.impl(xp, *args, **attrs)


def _on_device(a):
    return standin.xp.asarray(a) if isinstance(a, np.ndarray) else a


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.fixture(autouse=True)
def _standin_special_functions(monkeypatch):
    from graph.ops import emit
    monkeypatch.setitem(emit.SPECIAL_FUNCTIONS, standin.xp.__name__, standin.special.__name__)


def _run_on_standin(name):
    """Run op ``name``'s impl on its registry sample with numpy and with the stand-in; check the
    stand-in run stayed on the device and equals numpy; return the names it used."""
    op = REGISTRY[name]
    if name not in SAMPLES:
        pytest.fail(f"op {name!r} has no sample in tests/graph/test_registry.py SAMPLES")
    args, attrs = SAMPLES[name](np.random.default_rng(zlib.crc32(name.encode())))
    attrs = op.normalize(attrs)
    from graph.ops import rng
    rng.seed(7)
    want = _outputs(_run(op, [a.copy() if isinstance(a, np.ndarray) else a for a in args], attrs, np))
    standin.USED.clear()
    rng.seed(7)
    try:
        got = _outputs(_run(op, [_on_device(a) for a in args], attrs, standin.xp))
    except standin.HostConversion as e:
        pytest.fail(f"{name}: the impl hands device data to numpy (CuPy would raise): {e}")
    used = set(standin.USED)
    for i, (g, w) in enumerate(zip(got, want)):
        assert isinstance(g, standin.DeviceArray), \
            f"{name}: output {i} is a host {type(g).__name__}, not a device array (the impl left the device)"
        g = g.get()
        w = np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, f"{name}: output {i} {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        np.testing.assert_array_equal(g, w, err_msg=f"{name}: output {i}")
    return used


@pytest.mark.parametrize("name", OPS)
def test_impl_runs_on_the_device_standin(name):
    _run_on_standin(name)


def test_impls_use_only_names_cupy_has():
    cupy = _cupy()
    missing = {}
    for name in OPS:
        gone = standin.missing_on(cupy, _run_on_standin(name))
        if gone:
            missing[name] = gone
    assert not missing, f"impls use names CuPy does not have: {missing}"


def test_the_standin_refuses_what_cupy_refuses():
    """The stand-in would catch the usual mistakes: numpy functions on device arrays, implicit
    conversion, host arrays passed to device functions."""
    d = standin.xp.asarray(np.arange(4.0))
    for bad in (lambda: np.exp(d), lambda: np.asarray(d), lambda: np.sum(d), lambda: np.add.at(d, [0], 1.0),
                lambda: standin.xp.add(d, np.ones(4)), lambda: d + np.ones(4)):
        with pytest.raises(TypeError):
            bad()
    assert (d * 2 + 1).get().tolist() == [1.0, 3.0, 5.0, 7.0]
    standin.USED.clear()
    standin.xp.take_along_axis(d, standin.xp.asarray(np.array([1, 0])), axis=0)
    d.astype(np.float32)
    assert {"xp.take_along_axis", "ndarray.astype"} <= standin.USED
    assert standin.missing_on(_cupy(), {"xp.take_along_axis", "xp.no_such_function", "ndarray.ctypes"}) == \
        ["ndarray.ctypes", "xp.no_such_function"]
