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


def _optimize(mod, speed_level=3, tm=None):
    """Run the optimisation pipeline on ``mod`` for target machine ``tm`` (default: the shared one)."""
    if speed_level == 0:  # the IR as written (instruction selection still optimises)
        return
    tm = tm or target.target_machine()
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    try:
        mpm.run(mod, pb)
    finally:  # (disposed here, by this thread: parallel_compile's threads own what they made)
        mpm.close()
        pb.close()
        pto.close()


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
    """Loaded object code: ``address(name)`` of its exported kernels. ``obj`` is one object file,
    or a list of them (a module compiled as parts, whose references to each other's symbols are
    resolved as they load together)."""

    def __init__(self, obj: "bytes | list[bytes]"):
        with _LOCK:
            ee = llvm.create_mcjit_compiler(llvm.parse_assembly(""), target.jit_target_machine())
            for o in ([obj] if isinstance(obj, (bytes, bytearray)) else obj):
                ee.add_object_file(llvm.ObjectFileRef.from_data(o))
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


def _described_key(description: str, speed_level: int) -> str:
    target._init()
    return hashlib.sha256("\n".join([target.cache_salt(), code_version(), description,
                                      f"O{speed_level}"]).encode()).hexdigest()


def build_described(description: str, make_module, speed_level: int = 3) -> Library:
    """Load the object for a canonical kernel description from the disk cache, or build the
    module with ``make_module()`` and compile it (``speed_level`` 0: no IR optimisation passes).
    A hit builds no IR at all."""
    return build(None, key=_described_key(description, speed_level), make_module=make_module,
                 speed_level=speed_level)


def build_parts(description: str, make_parts, n_parts: int, speed_level: int = 3) -> Library:
    """:func:`build_described` for a module made as ``n_parts`` parts: ``make_parts()`` yields
    their modules one at a time, and each is compiled on the compile threads
    (codegen/cpu/parallel_compile.py) while the next one is built. The parts may call each other's
    exported functions (declared where they are used): the objects load into one library. Each
    part is cached under a key of its own, derived from the description's, so a hit builds no IR."""
    if n_parts <= 1:
        return build_described(description, lambda: next(iter(make_parts())), speed_level)
    from .parallel_compile import PartCompiler
    t0 = time.perf_counter()
    whole = _described_key(description, speed_level)
    keys = [hashlib.sha256(f"{whole}\npart {i} of {n_parts}".encode()).hexdigest() for i in range(n_parts)]
    lib = _load_cached(keys, t0)
    if lib is not None:
        return lib
    with PartCompiler(n_parts, speed_level) as parts:
        made = 0
        for key, module in zip(keys, make_parts()):
            _embed_key(module, key, name=f"msjit_cache_key.{made}")
            parts.submit(str(module))
            made += 1
    if made != n_parts:
        raise RuntimeError(f"codegen: {description.splitlines()[0]!r} made {made} parts, not {n_parts}")
    return _store_and_load(keys, [f.result() for f in parts.futures], t0)


def _load_cached(keys, t0) -> "Library | None":
    """The library of the objects cached under ``keys`` (one object per key), or None when one
    is missing or the objects do not load (their files are then discarded: recompiled)."""
    objs = [diskcache.load(k) for k in keys]
    if any(o is None for o in objs):
        return None
    try:
        lib = Library(objs)
    except Exception:  # unloadable objects: recompile and overwrite
        for k in keys:
            diskcache.discard(k)
        return None
    STATS["cache_hits"] += 1
    STATS["load_s"] += time.perf_counter() - t0
    return lib


def _store_and_load(keys, objs, t0) -> Library:
    """Cache freshly compiled ``objs`` under ``keys`` and load them as one library."""
    for key, obj in zip(keys, objs):
        diskcache.store(key, obj)
    lib = Library(objs)
    STATS["compiled"] += 1
    STATS["compile_s"] += time.perf_counter() - t0
    return lib


def _embed_key(module: ir.Module, key: str, name: str = "msjit_cache_key") -> None:
    """Put the cache key into the object as a constant: a cached file whose code was compiled for
    another key is refused before it is loaded (:func:`diskcache.unwrap`)."""
    data = bytearray(diskcache.key_symbol(key))
    arr = ir.ArrayType(ir.IntType(8), len(data))
    g = ir.GlobalVariable(module, arr, name=name)
    g.global_constant = True
    g.initializer = ir.Constant(arr, data)


def build(module: ir.Module | None, key: str | None = None, make_module=None, speed_level: int = 3) -> Library:
    """Compile (or load from the disk cache) a module; return the loaded library."""
    target._init()
    t0 = time.perf_counter()
    if key is None:
        text = str(module)
        key = hashlib.sha256((target.cache_salt() + "\n" + text).encode()).hexdigest()
    lib = _load_cached([key], t0)
    if lib is not None:
        return lib
    if module is None:
        module = make_module()
    _embed_key(module, key)
    text = str(module)
    with target.LOCK:
        _, obj = compile_ir(text, speed_level)
    return _store_and_load([key], [obj], t0)
