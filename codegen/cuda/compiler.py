"""CUDA C -> PTX or cubin through NVRTC (CuPy's binding), cached on disk, loaded as a module.

NVRTC is called directly (``cupy.cuda.nvrtc``), so compiling needs no GPU: the compile-only test
tier and CI use :func:`compile_source` on machines without one. On a device the target is its own
architecture (``sm_XY``: a cubin the driver loads as is); without one, or when this NVRTC does not
know the device's architecture, it is ``compute_XY`` PTX (the driver JIT-compiles it).

Cache entries (:data:`CACHE`, a :class:`codegen.cpu.diskcache.Store`) are keyed by the sha256 of
the NVRTC version, the target architecture, the options, a hash of the code generator's sources and
the module's source text (which names every kernel, shape and op: the graph). The compiled image
embeds its key as the name of a device global (``msjit_cache_key_<key>``), so a valid entry
stored under another key, or another module re-wrapped under this one, is refused before the
driver sees it.

Example:
    >>> key = "0" * 64
    >>> marked = with_key_marker("__global__ void k() {}", key)
    >>> marked.endswith("__device__ const unsigned char msjit_cache_key_" + key + "[1] = {0};\\n")
    True
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
import time

from ..cpu.diskcache import Store, well_formed_elf
from .prelude import PRELUDE

#: compiler options shared by the runtime and the compile-only tier (no fast-math: the math
#: functions keep their documented accuracy, as the CPU kernels do; FMA contraction stays on)
OPTIONS = ("--std=c++17", "--fmad=true")
#: architecture of PTX compiled without a device (H100, the GPU these machines are lent)
DEFAULT_ARCH = 90
STATS = {"compiled": 0, "cache_hits": 0, "compile_s": 0.0}
_EM_CUDA = 190
_LOCK = threading.Lock()


class NVRTCUnavailable(RuntimeError):
    """cupy or its NVRTC library cannot be imported or loaded."""


def nvrtc():
    """CuPy's NVRTC binding; :class:`NVRTCUnavailable` with the reason when it cannot be used."""
    try:
        from cupy.cuda import nvrtc as binding
        binding.getVersion()
    except Exception as e:  # ImportError, or the NVRTC shared library missing
        raise NVRTCUnavailable(f"NVRTC is not usable: {type(e).__name__}: {e} "
                               "(pip install '.[gpu]' installs cupy-cuda12x and nvidia-cuda-nvrtc-cu12)") from None
    return binding


@functools.lru_cache(maxsize=None)
def nvrtc_version() -> tuple:
    return tuple(nvrtc().getVersion())


@functools.lru_cache(maxsize=None)
def supported_archs() -> tuple:
    try:
        return tuple(nvrtc().getSupportedArchs())
    except Exception:  # older NVRTC: no query; assume the architectures of the H100 generation
        return (DEFAULT_ARCH,)


def target_arch(device_cc: int | None) -> str:
    """``sm_XY`` for a device this NVRTC knows (a cubin), else ``compute_XY`` PTX."""
    archs = supported_archs()
    if device_cc is not None and device_cc in archs:
        return f"sm_{device_cc}"
    cc = device_cc if device_cc is not None else DEFAULT_ARCH
    usable = [a for a in archs if a <= cc] or [min(archs)]
    return f"compute_{max(usable)}"


@functools.lru_cache(maxsize=None)
def code_version() -> str:
    """Hash of the sources that decide what a module's text compiles to."""
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for name in ("compiler.py", "prelude.py"):
        with open(os.path.join(here, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def cache_key(source: str, arch: str) -> str:
    salt = f"nvrtc={nvrtc_version()} arch={arch} options={OPTIONS} code={code_version()}"
    return hashlib.sha256(f"{salt}\n{source}".encode()).hexdigest()


def key_marker(key: str) -> bytes:
    return f"msjit_cache_key_{key}".encode("ascii")


def with_key_marker(source: str, key: str) -> str:
    """The source plus a device global named after the key (it survives into PTX and cubin)."""
    return source + f"__device__ const unsigned char msjit_cache_key_{key}[1] = {{0}};\n"


def well_formed_image(data: bytes) -> bool:
    """PTX text (header, version, target) or a CUDA ELF executable (cubin)."""
    if data[:4] == b"\x7fELF":
        return well_formed_elf(data, 2, _EM_CUDA)
    head = data[:4096]
    return b".version" in head and b".target" in head and b".address_size" in head


#: PTX and cubins (the file suffix is the same for both; the payload says which it is)
CACHE = Store(".cuimg", b"MSJITC1\n", key_marker, well_formed_image)


class CompileError(RuntimeError):
    """NVRTC rejected a generated module (a code generator bug): the log and the source."""


def compile_source(source: str, arch: str, name: str = "msjit.cu") -> bytes:
    """NVRTC-compile ``source`` (prelude not added) for ``arch``: cubin for ``sm_XY``, PTX for
    ``compute_XY``."""
    binding = nvrtc()
    prog = binding.createProgram(source, name, [], [])
    try:
        try:
            binding.compileProgram(prog, [f"--gpu-architecture={arch}", *OPTIONS])
        except binding.NVRTCError as e:
            log = binding.getProgramLog(prog)
            numbered = "\n".join(f"{i + 1:5d} {line}" for i, line in enumerate(source.splitlines()))
            raise CompileError(f"NVRTC failed for {name} ({arch}): {e}\n{log}\n{numbered}") from None
        return binding.getCUBIN(prog) if arch.startswith("sm_") else binding.getPTX(prog)
    finally:
        binding.destroyProgram(prog)


def module_source(kernel_sources) -> str:
    """One compilation unit: the prelude and every kernel."""
    return PRELUDE + "\n" + "\n".join(kernel_sources)


def build_image(source: str, arch: str) -> bytes:
    """The compiled image of a module's source, from the disk cache or NVRTC."""
    key = cache_key(source, arch)
    image = CACHE.load(key)
    if image is not None:
        STATS["cache_hits"] += 1
        return image
    t0 = time.perf_counter()
    with _LOCK:
        image = compile_source(with_key_marker(source, key), arch)
    CACHE.store(key, image)
    STATS["compiled"] += 1
    STATS["compile_s"] += time.perf_counter() - t0
    return image


_ENTRY = re.compile(rb"\.entry\s+([A-Za-z_][A-Za-z0-9_$]*)\s*\(")


def ptx_entries(ptx: bytes) -> list[str]:
    """Names of the kernels (``.entry``) a PTX text defines."""
    return [m.decode() for m in _ENTRY.findall(ptx)]


def load_module(image: bytes):
    """A loaded ``cupy.cuda.function.Module`` (needs a device)."""
    from cupy.cuda import function
    module = function.Module()
    module.load(image)
    return module
