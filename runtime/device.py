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
    """Set numpy's BLAS threads: ``n``, else ``$RUNTIME_BLAS_THREADS``, else every core this
    process may run on (as torch and JAX do by default).

    Measured on the 2-core bench machine (idle, ``python -m bench --quick``): BLAS on 2 threads
    instead of 1 took the LeNet5 b32 train step from 2.98 to 2.05 ms and MLP b1024 from 12.4 to
    6.4 ms. On a machine shared with other busy processes OpenBLAS's spinning threads can cost
    far more than they gain (a LeNet5 b32 step once went from 21 to 139 ms): set
    ``RUNTIME_BLAS_THREADS=1`` there.
    """
    global _blas_limit
    import os
    if n is None:
        env = os.environ.get("RUNTIME_BLAS_THREADS")
        if env:
            n = int(env)
        else:
            try:
                n = len(os.sched_getaffinity(0))
            except (AttributeError, OSError):
                n = os.cpu_count() or 1
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional at import time; a plain install always has it
        return
    _blas_limit = threadpool_limits(limits=max(1, n), user_api="blas")


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
