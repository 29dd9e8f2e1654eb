"""Compiling the parts of a big module on several cores at once.

LLVM compiles independent modules concurrently when each lives in an ``LLVMContext`` of its own
(with its own target machine and pass pipeline): that is how its parallel code generation and
ThinLTO back ends work. llvmlite, however, puts every call into the library behind one
process-wide lock (``llvmlite.binding.ffi.lib._lock``), so threads calling it would take turns.
This module lets *its own* compile threads past that lock while they work on their private
contexts, and nothing else:

- a part is parsed into a fresh context, optimised, emitted and disposed of (module, target
  machine, context, in that order) by the one thread that made it; nothing of it outlives the call;
- every other thread, and any llvmlite call a compile thread makes outside :func:`_compile_part`,
  still takes llvmlite's lock as before;
- the cyclic garbage collector is paused while compile threads run: a collection on such a thread
  could otherwise finalise some *other* llvmlite object (of the shared global context) there,
  without the lock, while another thread uses that context.

Where llvmlite's lock is not the object this module knows (another llvmlite version), or one
thread is all the process may use, the parts compile one after another on the calling thread,
exactly as a single module would. The object code of a part never depends on which thread or how
many threads compiled it (each part is cached under its own key: codegen/cpu/compiler.py).

Measured on the task's 2-core VM (loaded by other work): a 5,001-op graph whose 415 fused kernels
form 831 functions took 14.2 s in LLVM as 4 parts on one thread and 8.9 s on two.
"""
from __future__ import annotations

import contextlib
import gc
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import llvmlite.binding as llvm
from llvmlite.binding import ffi

from graph import forksafe

from . import target, threads

_local = threading.local()  # .unlocked: this thread is inside _compile_part


class _LockUnlessCompiling:
    """Stands in for llvmlite's inner RLock: acquired as before, except by a compile thread inside
    :func:`_compile_part` (whose LLVM objects are all its own)."""

    def __init__(self, inner):
        self.inner = inner

    def acquire(self, *args, **kwargs):
        if getattr(_local, "unlocked", False):
            return True
        return self.inner.acquire(*args, **kwargs)

    def release(self):
        if not getattr(_local, "unlocked", False):
            self.inner.release()

    __enter__ = acquire

    def __exit__(self, *exc):
        self.release()


def _install() -> bool:
    """Let compile threads past llvmlite's lock; False where that lock is not the known object."""
    outer = getattr(getattr(ffi, "lib", None), "_lock", None)
    inner = getattr(outer, "_lock", None)
    if isinstance(inner, _LockUnlessCompiling):
        return True
    if inner is None or not hasattr(inner, "acquire") or not hasattr(inner, "release"):
        return False
    outer._lock = _LockUnlessCompiling(inner)
    return True


_state = {"executor": None, "lock": threading.Lock(), "paused": 0, "gc_was_enabled": False}
forksafe.renew_in_child(_state, "lock", threading.Lock)
forksafe.on_fork_child(lambda: _state.update(executor=None, paused=0))  # (its threads are not in the child)


def workers() -> int:
    """Compile threads used for one module's parts: the kernels' thread count (every usable core
    unless ``set_num_threads``/``MSJIT_THREADS`` says otherwise)."""
    return max(1, threads.n_threads())


def _executor(n: int) -> ThreadPoolExecutor | None:
    if n < 2 or not _install():
        return None
    with _state["lock"]:
        ex = _state["executor"]
        if ex is None or ex._max_workers < n:
            if ex is not None:
                ex.shutdown(wait=False)
            ex = _state["executor"] = ThreadPoolExecutor(n, thread_name_prefix="msjit-llvm")
        return ex


def _pause_gc():
    with _state["lock"]:
        if _state["paused"] == 0:
            _state["gc_was_enabled"] = gc.isenabled()
            gc.disable()
        _state["paused"] += 1


def _resume_gc(_future=None):
    with _state["lock"]:
        _state["paused"] -= 1
        if _state["paused"] == 0 and _state["gc_was_enabled"]:
            gc.enable()


@contextlib.contextmanager
def collection_paused():
    """The cyclic garbage collector paused for the block (pauses nest and overlap across threads:
    its earlier state comes back when the last one ends). For work that allocates many objects
    that stay alive, such as compiling a frame: collections during it would traverse them for
    nothing, and a full one (25-73 ms measured in a warm first step) can land there.

    >>> import gc
    >>> with collection_paused():
    ...     gc.isenabled()
    False
    """
    _pause_gc()
    try:
        yield
    finally:
        _resume_gc()


def _compile_part(text: str, speed_level: int) -> bytes:
    """IR text -> object bytes, in a context, module and target machine of this call's own."""
    from .compiler import _optimize
    _local.unlocked = True
    try:
        ctx = llvm.create_context()
        try:
            mod = llvm.parse_assembly(text, context=ctx)
            try:
                mod.verify()
                tm = target.jit_target_machine()  # (a fresh one: the cached one is shared)
                try:
                    _optimize(mod, speed_level, tm)
                    return tm.emit_object(mod)
                finally:
                    tm.close()
            finally:
                mod.close()
        finally:
            ctx.close()
    finally:
        _local.unlocked = False


class PartCompiler:
    """``submit(ir_text) -> Future[bytes]`` for each part of one module, compiled on the compile
    threads while the caller builds the next part (or at once, on the calling thread, where there
    are none). Use as a context manager: leaving it waits for every part.

    Example:
        >>> from codegen.cpu import compiler
        >>> m = compiler.new_module("doc")
        >>> with PartCompiler(parts=2) as parts:
        ...     futures = [parts.submit(str(m)) for _ in range(2)]
        >>> all(len(f.result()) > 0 for f in futures)
        True
    """

    def __init__(self, parts: int, speed_level: int = 3):
        self.speed_level = speed_level
        self.executor = _executor(min(parts, workers())) if parts > 1 else None
        self.futures: list[Future] = []

    def submit(self, text: str) -> Future:
        if self.executor is None:
            from .compiler import compile_ir
            f: Future = Future()
            try:
                with target.LOCK:
                    f.set_result(compile_ir(text, self.speed_level)[1])
            except BaseException as e:  # (handed to whoever asks for the result)
                f.set_exception(e)
        else:
            _pause_gc()
            f = self.executor.submit(_compile_part, text, self.speed_level)
            f.add_done_callback(_resume_gc)
        self.futures.append(f)
        return f

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for f in self.futures:
            try:
                f.exception()  # waits; the results and errors stay with each future
            except BaseException:
                pass
