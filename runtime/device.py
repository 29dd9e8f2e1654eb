"""Array modules per device: numpy on the CPU, cupy on the GPU (optional extra ``[gpu]``).

A Tensor's data lives where its array does: a numpy array on the CPU, a CuPy array on the GPU.
``set_context(device_target="GPU")`` makes new tensors (and Parameters, initializers, creation
ops) GPU arrays; ops run where their tensor operands are, and operands on two devices are an
error (:func:`runtime.eager`). ``GPU.active`` stays false in a process that never asks for the
GPU, so the CPU path never checks devices.

Example:
    >>> from runtime.device import array_module, device_of
    >>> array_module("CPU").__name__
    'numpy'
    >>> import numpy as np; device_of(np.zeros(2))
    'CPU'
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
    if n is None:
        from graph import config as settings
        env = settings.get("RUNTIME_BLAS_THREADS")
        if env is not None:
            n = env
        else:
            from graph.cpus import usable_cores
            n = usable_cores()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional at import time; a plain install always has it
        return
    _blas_limit = threadpool_limits(limits=max(1, n), user_api="blas")


class _GPUState:
    """``GPU.active`` turns true once the GPU's array module has been handed out; until then eager
    execution never looks at devices (one attribute read on the CPU hot path)."""

    __slots__ = ("active",)

    def __init__(self):
        self.active = False


GPU = _GPUState()
DEVICES = ("CPU", "GPU")


def cupy_module():
    """The cupy module, or None when it is not installed or no GPU is usable."""
    global _cupy
    if _cupy is None:
        try:
            import cupy
            cupy.cuda.runtime.getDeviceCount()
            cupy.zeros(1)  # touches device memory: raises without a usable driver/device
            _cupy = cupy
        except Exception:  # ImportError, CUDARuntimeError...: no usable GPU
            _cupy = False
    return _cupy or None


def gpu_unavailable_reason() -> str:
    """Why ``device_target="GPU"`` cannot be used here (for error messages and test skips)."""
    try:
        import cupy
    except ImportError as e:
        return f"cupy is not installed ({e}); pip install '.[gpu]'"
    try:
        cupy.cuda.runtime.getDeviceCount()
        cupy.zeros(1)
    except Exception as e:
        return f"no usable CUDA device: {type(e).__name__}: {e}"
    return ""


def array_module(device_target: str):
    if device_target == "GPU":
        cp = cupy_module()
        if cp is None:
            raise ValueError("device_target='GPU' needs cupy and a CUDA GPU: "
                             f"{gpu_unavailable_reason() or 'unavailable'}")
        GPU.active = True
        return cp
    return np


def module_of(array):
    """numpy or cupy, whichever owns ``array``."""
    if type(array) is np.ndarray:
        return np
    gpu = _cupy
    if gpu and isinstance(array, gpu.ndarray):
        return gpu
    return np


def device_of(array) -> str:
    """"CPU" or "GPU": where ``array`` lives."""
    return "CPU" if module_of(array) is np else "GPU"


def context_module():
    """The array module of the context's ``device_target``."""
    from .context import _state
    return array_module(_state["device_target"])


def to_numpy(array):
    if type(array) is np.ndarray:
        return array
    if hasattr(array, "get"):
        return array.get()
    return np.asarray(array)


def to_device(array, target: str):
    """``array`` on ``target`` ("CPU" or "GPU"): itself when it is already there, else a copy."""
    if target == "CPU":
        return to_numpy(array)
    xp = array_module(target)
    return array if isinstance(array, xp.ndarray) else xp.asarray(array)


def place(array, like=None):
    """A host array created by the framework on the device of the array ``like`` (a constant
    combined with an operand), or without one on the context's device (zeros, initializers...)."""
    if not GPU.active:
        return array
    if like is not None:
        return to_device(array, device_of(like))
    from .context import _state
    return to_device(array, _state["device_target"])
