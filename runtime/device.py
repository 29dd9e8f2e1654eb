"""Array modules per device: numpy on the CPU, cupy on the GPU (optional extra ``[gpu]``).

Example:
    >>> from runtime.device import array_module
    >>> array_module("CPU").__name__
    'numpy'
"""
from __future__ import annotations

import numpy as np

_cupy = None
_blas_limit = None


def limit_blas_threads(n: int | None = None) -> None:
    """Cap numpy's BLAS threads (default 1, or $RUNTIME_BLAS_THREADS).

    Eager ops are many small GEMMs (im2col convolutions, Dense layers at small batch) for which
    OpenBLAS's thread hand-off costs more than it gains, and on a loaded 2-core machine a
    2-thread OpenBLAS made the LeNet5 b32 step 7x slower (139 ms vs 21 ms) — see bench/.
    """
    global _blas_limit
    import os
    if n is None:
        n = int(os.environ.get("RUNTIME_BLAS_THREADS", "1"))
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional at import time; a plain install always has it
        return
    _blas_limit = threadpool_limits(limits=n, user_api="blas")


def cupy_module():
    """The cupy module, or None when it is not installed or no GPU is usable."""
    global _cupy
    if _cupy is None:
        try:
            import cupy  # noqa: F401
            cupy.cuda.runtime.getDeviceCount()
            _cupy = cupy
        except Exception:  # ImportError, CUDARuntimeError...: no usable GPU
            _cupy = False
    return _cupy or None


def array_module(device_target: str):
    if device_target == "GPU":
        cp = cupy_module()
        if cp is None:
            raise ValueError("device_target='GPU' needs cupy and a CUDA GPU (pip install .[gpu])")
        return cp
    return np


def module_of(array):
    """numpy or cupy, whichever owns ``array``."""
    if type(array) is np.ndarray or not hasattr(array, "__cuda_array_interface__"):
        return np
    return cupy_module() or np


def to_numpy(array):
    if type(array) is np.ndarray:
        return array
    if hasattr(array, "get"):
        return array.get()
    return np.asarray(array)
