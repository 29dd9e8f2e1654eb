"""``capture``: graph mode as a bytecode-capture JIT.

``jit`` / GRAPH_MODE / ``Cell.compile`` translate a frame's bytecode into the IR (at a graph break
the prefix is a graph, the breaking instruction runs eagerly and capture resumes after it), cache it per code object behind guards, and run it
with a backend. ``explain()`` reports graphs and breaks.

Example:
    >>> import capture, runtime as ms
    >>> f = capture.jit(lambda x: x * 2 + 1)
    >>> f(ms.Tensor([1.0]))
    Tensor(shape=[1], dtype=Float32, value=[3.])
"""
from runtime import context as _context

from . import bytecode_compat as _bc
from .api import GraphModeHandler, JitFunction, jit  # noqa: F401
from .dispatch import call_captured  # noqa: F401
from .backends import CountingBackend, register_backend  # noqa: F401
from .cache import RECOMPILE_LIMIT  # noqa: F401
from .cache import reset as _reset_caches
from .errors import FullGraphError, GraphBreak  # noqa: F401
from .explain import ExplainReport, explain  # noqa: F401
from .report import events  # noqa: F401
from . import frame_eval
from .frame_eval import disable, enable, enabled, is_enabled  # noqa: F401


def reset(code=None, disk=False) -> None:
    """Drop all compiled entries (or those of one code object) and the frame hook's decisions;
    ``disk=True`` also deletes the optimised schedules saved for later processes
    (``capture.persist``; the kernels' object files stay)."""
    _reset_caches(code)
    frame_eval.reset(code)
    if disk:
        from . import persist
        persist.clear()


if not _bc.SUPPORTED:  # pragma: no cover - depends on the interpreter
    import warnings
    warnings.warn(f"capture: Python {_bc.PY} is not supported (3.11-3.13); graph mode runs eagerly",
                  RuntimeWarning)
else:
    _context.set_graph_handler(GraphModeHandler())

# set_context(num_threads=...) sizes the compiled kernels' thread pool
from codegen.cpu import threads as _threads  # noqa: E402
_context.on_setting("num_threads", _threads.set_num_threads)
