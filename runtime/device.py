"""Array modules per device: numpy on the CPU, cupy on the GPU (optional extra ``[gpu]``).

Example:
    >>> from runtime.device import array_module
    >>> array_module("CPU").__name__
    'numpy'
"""
from __future__ import annotations

import numpy as np

_cupy = None


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
