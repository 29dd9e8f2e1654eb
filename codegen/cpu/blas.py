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
