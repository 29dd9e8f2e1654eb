"""numpy's own BLAS, called from generated code through its C ABI (``cblas_?gemm``).

A matrix product run from Python is a ``np.matmul`` call per product (a few microseconds of glue
each); generated code that calls the same library's ``cblas_sgemm``/``cblas_dgemm`` directly lets
a run of kernels and products execute in one native call. The library is the one numpy is linked
against, found through threadpoolctl (so its thread settings are the ones
``runtime.device.limit_blas_threads`` manages): OpenBLAS builds, ILP64 (``*64_`` symbols,
64-bit integer arguments, as numpy's wheels ship) or LP64. Elsewhere (another BLAS, none found)
:func:`interface` is None and products stay ``np.matmul`` steps.

Generated code calls ``msjit_cblas_sgemm``/``msjit_cblas_dgemm``; :func:`interface` binds those
names to the library's functions for LLVM's loader, so objects in the disk cache never hold an
address. The integer width is part of every kernel description that calls them.

Inside compiled code our thread pool owns the cores: products are split over it like any other
kernel (codegen/cpu/native/gemm.py), so BLAS must run each call on the calling thread. While a
compiled graph with products runs, its call region sets the library to one thread
(``openblas_set_num_threads``, the library's one global setting: 0.2 us a switch, made from
native code: codegen/cpu/native_pool.py) and puts the previous count back when the last such
call ends, so numpy's own products outside compiled code
(PyNative) keep every core. Otherwise OpenBLAS's threads, woken by products inside a step, spin
on the same cores the pool's next kernels run on (LeNet5 b256 on 2 cores lost 3 ms a step to it).

Example:
    >>> from codegen.cpu import blas
    >>> api = blas.interface()
    >>> api is None or api.int_bits in (32, 64)
    True
"""
from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass


#: (symbol pattern, integer width) tried in order; {t} is s or d
_SYMBOLS = (("scipy_cblas_{t}gemm64_", 64), ("cblas_{t}gemm64_", 64),
            ("scipy_cblas_{t}gemm", 32), ("cblas_{t}gemm", 32))

#: (get, set) thread-count function names tried in order, for the library's symbol prefix
_THREAD_SYMBOLS = (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
                   ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
                   ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
                   ("openblas_get_num_threads", "openblas_set_num_threads"))

#: CBLAS enum values (cblas.h)
ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


@dataclass(frozen=True)
class Interface:
    int_bits: int  # width of the integer arguments (m, n, k, lda, ...)
    library: str  # path of the shared library

    def symbol(self, dtype_char: str) -> str:
        """Name generated code calls for ``s`` (float32) or ``d`` (float64) gemm."""
        return f"msjit_cblas_{dtype_char}gemm"


def _blas_library():
    try:
        __import__("numpy")  # loads the library threadpoolctl looks for
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - both are dependencies
        return None
    for lib in ThreadpoolController().lib_controllers:
        if lib.user_api == "blas" and lib.internal_api == "openblas":
            return lib.filepath
    return None


@functools.lru_cache(maxsize=None)
def interface() -> Interface | None:
    """The BLAS generated code can call (its gemm symbols registered with LLVM), or None."""
    path = _blas_library()
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    import llvmlite.binding as llvm
    for pattern, bits in _SYMBOLS:
        try:
            addrs = {t: ctypes.cast(getattr(lib, pattern.format(t=t)), ctypes.c_void_p).value for t in "sd"}
        except AttributeError:
            continue
        api = Interface(bits, path)
        for t, addr in addrs.items():
            llvm.add_symbol(api.symbol(t), addr)
        return api
    return None


@functools.lru_cache(maxsize=None)
def thread_switch():
    """``(get, set)``: the library's ``openblas_get_num_threads``/``openblas_set_num_threads``
    as ctypes function pointers, or ``()`` without such a library. Compiled calls with products
    set it to one thread while they run (``codegen.cpu.threads.Pool.call_region``)."""
    api = interface()
    if api is None:
        return ()
    lib = ctypes.CDLL(api.library)
    for get_name, set_name in _THREAD_SYMBOLS:
        get, set_ = getattr(lib, get_name, None), getattr(lib, set_name, None)
        if get is not None and set_ is not None:
            get.restype, get.argtypes = ctypes.c_int, []
            set_.restype, set_.argtypes = None, [ctypes.c_int]
            return get, set_
    return ()  # pragma: no cover - every OpenBLAS build exports them
