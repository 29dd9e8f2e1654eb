"""One LLVM module per schedule -> optimised PIC object code -> loaded function pointers.

The cache key is the sha256 of the host CPU, its features, the llvmlite version, the content hash
of the framework's sources (:func:`codegen.cpu.diskcache.framework_fingerprint`) and the canonical description of every kernel of the schedule
(:func:`build_described`; or of the LLVM IR text with :func:`build`); a hit loads the ``.o`` from
the disk cache without building IR, parsing, optimising or generating code (see :mod:`codegen.cpu.diskcache`). ``STATS`` counts what happened
(tests read it to check that a second process skips LLVM codegen).
"""
from __future__ import annotations

import ctypes
import hashlib
import threading
import time
import weakref

import llvmlite.binding as llvm
from llvmlite import ir

from graph import forksafe

from . import diskcache, target

STATS = {"compiled": 0, "cache_hits": 0, "compile_s": 0.0, "load_s": 0.0}

KERNEL_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)

#: loaded libraries (weakly): an engine lives exactly as long as the Library holding it, and a
#: runner holds its Library for as long as it may call the kernels' function pointers
_LIBRARIES: "weakref.WeakSet[Library]" = weakref.WeakSet()
_LOCK = threading.Lock()
forksafe.renew_in_child(globals(), "_LOCK", threading.Lock)


def new_module(name="msjit") -> ir.Module:
    triple, _, _ = target.host()
    m = ir.Module(name=name)
    m.triple = triple
    m.data_layout = str(target.target_machine().target_data)
    return m


def _optimize(mod, speed_level=3):
    if speed_level == 0:  # the IR as written (instruction selection still optimises)
        return
    tm = target.target_machine()
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def compile_ir(text: str, speed_level: int = 3):
    """IR text -> (optimised module, object bytes)."""
    mod = llvm.parse_assembly(text)
    mod.verify()
    _optimize(mod, speed_level)
    return mod, target.target_machine().emit_object(mod)


def assembly(text: str) -> str:
    """Optimised assembly of IR text (for tests and debugging)."""
    mod = llvm.parse_assembly(text)
    _optimize(mod)
    return target.target_machine().emit_assembly(mod)


class Library:
    """Loaded object code: ``address(name)`` of its exported kernels."""

    def __init__(self, obj: bytes):
        with _LOCK:
            ee = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target.jit_target_machine())
            ee.add_object_file(llvm.ObjectFileRef.from_data(obj))
            ee.finalize_object()
        self.ee = ee
        _LIBRARIES.add(self)

    def address(self, name: str) -> int:
        addr = self.ee.get_function_address(name)
        if not addr:
            raise RuntimeError(f"codegen: symbol {name} missing from the compiled object")
        return addr

    def cfunc(self, name: str):
        return KERNEL_CFUNC(self.address(name))


#: libraries loaded once for the life of the process (the thread pool's workers run its code):
#: not counted by :func:`live_libraries`, which watches the per-graph ones
_PROCESS_LIBRARIES: "list[Library]" = []


def keep_for_process(library: Library) -> Library:
    """Mark a library as loaded once per process (never unloaded, not counted as live)."""
    _PROCESS_LIBRARIES.append(library)
    _LIBRARIES.discard(library)
    return library


def live_libraries() -> int:
    """How many loaded per-graph libraries (execution engines) are alive (tests watch this stay
    flat)."""
    return len(_LIBRARIES)


def code_version() -> str:
    """What decides the code a kernel description compiles to: the content of the framework's
    source files (:func:`diskcache.framework_fingerprint`; every file, not a hand-kept list of
    those thought to matter)."""
    return diskcache.framework_fingerprint()


def build_described(description: str, make_module, speed_level: int = 3) -> Library:
    """Load the object for a canonical kernel description from the disk cache, or build the
    module with ``make_module()`` and compile it (``speed_level`` 0: no IR optimisation passes).
    A hit builds no IR at all."""
    target._init()
    key = hashlib.sha256("\n".join([target.cache_salt(), code_version(), description,
                                     f"O{speed_level}"]).encode()).hexdigest()
    return build(None, key=key, make_module=make_module, speed_level=speed_level)


def _embed_key(module: ir.Module, key: str) -> None:
    """Put the cache key into the object as a constant: a cached file whose code was compiled for
    another key is refused before it is loaded (:func:`diskcache.unwrap`)."""
    data = bytearray(diskcache.key_symbol(key))
    arr = ir.ArrayType(ir.IntType(8), len(data))
    g = ir.GlobalVariable(module, arr, name="msjit_cache_key")
    g.global_constant = True
    g.initializer = ir.Constant(arr, data)


def build(module: ir.Module | None, key: str | None = None, make_module=None, speed_level: int = 3) -> Library:
    """Compile (or load from the disk cache) a module; return the loaded library."""
    target._init()
    t0 = time.perf_counter()
    if key is None:
        text = str(module)
        key = hashlib.sha256((target.cache_salt() + "\n" + text).encode()).hexdigest()
    obj = diskcache.load(key)
    if obj is not None:
        try:
            lib = Library(obj)
            STATS["cache_hits"] += 1
            STATS["load_s"] += time.perf_counter() - t0
            return lib
        except Exception:  # unloadable object: recompile and overwrite
            diskcache.discard(key)
    if module is None:
        module = make_module()
    _embed_key(module, key)
    text = str(module)
    with target.LOCK:
        _, obj = compile_ir(text, speed_level)
    diskcache.store(key, obj)
    lib = Library(obj)
    STATS["compiled"] += 1
    STATS["compile_s"] += time.perf_counter() - t0
    return lib
