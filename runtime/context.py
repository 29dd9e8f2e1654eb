"""Global execution context: mode (PyNative or Graph), device, graph dumps.

Graph mode reaches the compiler through a handler that ``capture`` registers here on import
(``set_graph_handler``); ``runtime`` never imports the compiler at module import.

Example:
    >>> import runtime as ms
    >>> ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    >>> ms.get_context("mode") == ms.PYNATIVE_MODE
    True
"""
from __future__ import annotations

import os
import threading
import warnings

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_MODES = {GRAPH_MODE: "GRAPH_MODE", PYNATIVE_MODE: "PYNATIVE_MODE"}
_DEVICES = ("CPU", "GPU")


def _check_mode(v):
    if isinstance(v, bool) or v not in _MODES:
        raise ValueError(f"set_context: mode must be ms.GRAPH_MODE (0) or ms.PYNATIVE_MODE (1), got {v!r}")
    return v


def _check_device(v):
    if not isinstance(v, str) or v.upper() not in _DEVICES:
        raise ValueError(f"set_context: device_target must be one of {list(_DEVICES)}, got {v!r}")
    v = v.upper()
    if v == "GPU":
        from .device import array_module
        array_module("GPU")  # raises a clear error when no GPU is usable
    return v


def _check_bool(key):
    def check(v):
        if not isinstance(v, (bool, int)) or (isinstance(v, int) and v not in (0, 1, 2, 3)):
            raise ValueError(f"set_context: {key} must be True/False, got {v!r}")
        return bool(v)
    return check


def _check_path(v):
    if not isinstance(v, (str, os.PathLike)):
        raise ValueError(f"set_context: save_graphs_path must be a path string, got {v!r}")
    return os.fspath(v)


def _check_nonneg_int(key):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"set_context: {key} must be a non-negative int, got {v!r}")
        return v
    return check


#: ``set_context(jit_syntax_level=...)`` values (MindSpore's names). Capture accepts the LAX
#: language everywhere (what it cannot compile runs eagerly), so the level is recorded, not enforced.
STRICT, COMPATIBLE, LAX = 0, 1, 2


def _check_syntax_level(v):
    if v not in (STRICT, COMPATIBLE, LAX) or isinstance(v, bool):
        raise ValueError(f"set_context: jit_syntax_level must be ms.STRICT, ms.COMPATIBLE or ms.LAX, got {v!r}")
    return v


def _check_threads(v):
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
        raise ValueError(f"set_context: num_threads must be a positive int or None (every core), got {v!r}")
    return v


_CHECKS = {
    "num_threads": _check_threads,
    "runtime_num_threads": _check_threads,  # MindSpore 2.x's name for the same setting
    "mode": _check_mode,
    "device_target": _check_device,
    "device_id": _check_nonneg_int("device_id"),
    "save_graphs": _check_bool("save_graphs"),
    "save_graphs_path": _check_path,
    "max_call_depth": _check_nonneg_int("max_call_depth"),
    "jit_syntax_level": _check_syntax_level,
}

_state = {
    "num_threads": None,
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "save_graphs": False,
    "save_graphs_path": ".",
    "max_call_depth": 1000,
    "jit_syntax_level": LAX,
}


def set_context(**kwargs) -> None:
    """Set context keys; unknown keys or invalid values raise ValueError listing the valid ones."""
    unknown = [k for k in kwargs if k not in _CHECKS]
    if unknown:
        raise ValueError(f"set_context: unknown key(s) {unknown}; valid keys: {sorted(_CHECKS)}")
    checked = {_ALIASES.get(k, k): _CHECKS[k](v) for k, v in kwargs.items()}
    _state.update(checked)
    for k, v in checked.items():
        for listener in _LISTENERS.get(k, ()):
            listener(v)
    if checked.get("mode") == GRAPH_MODE:
        # ready the compiler now rather than inside the first step
        handler = graph_handler()
        if handler is not None and hasattr(handler, "preload"):
            handler.preload()


#: keys that are another name of a setting
_ALIASES = {"runtime_num_threads": "num_threads"}
#: key -> callables told each new value (upper layers register: the compiler's thread pool)
_LISTENERS: dict = {}


def on_setting(key: str, listener) -> None:
    """Call ``listener(value)`` whenever ``set_context`` sets ``key`` (and now, with its value)."""
    _LISTENERS.setdefault(key, []).append(listener)
    listener(_state[key])


def get_context(key: str):
    key = _ALIASES.get(key, key)
    if key not in _state:
        raise ValueError(f"get_context: unknown key {key!r}; valid keys: {sorted(_state)}")
    return _state[key]


def is_graph_mode() -> bool:
    return _state["mode"] == GRAPH_MODE


def mode() -> int:
    return _state["mode"]


# -- static-graph syntax -------------------------------------------------------------------------
#: per thread: how many ``jit`` calls are running (capture.api enters :func:`static_graph_syntax`)
_static_syntax = threading.local()


class static_graph_syntax:
    """Context manager: the code run inside is a ``jit`` function's, written in MindSpore's
    static-graph syntax even in PyNative mode (``self.weight = 1`` fills a Parameter there, where
    plain PyNative code refuses it). Re-entrant, per thread."""

    def __enter__(self):
        _static_syntax.depth = getattr(_static_syntax, "depth", 0) + 1
        return self

    def __exit__(self, *exc):
        _static_syntax.depth -= 1
        return False


def in_static_graph_syntax() -> bool:
    """Whether the running code follows MindSpore's static-graph syntax: GRAPH_MODE, or inside a
    ``jit`` call."""
    return _state["mode"] == GRAPH_MODE or getattr(_static_syntax, "depth", 0) > 0


# -- cells captured outside GRAPH_MODE ------------------------------------------------------------------
class _CellCaptureScope(threading.local):
    depth = 0


#: per thread: while ``depth`` > 0 a Cell's ``construct`` (and a grad function) called on this thread
#: is captured as in GRAPH_MODE although the mode is PyNative. capture enters it for the eager run of
#: a jitted frame that cannot resume after a break: the cells that frame calls still compile.
CELL_CAPTURE = _CellCaptureScope()


class capturing_cells:
    """Context manager: Cells called inside are captured as in GRAPH_MODE (see ``CELL_CAPTURE``).
    Re-entrant, per thread."""

    def __enter__(self):
        CELL_CAPTURE.depth += 1
        return self

    def __exit__(self, *exc):
        CELL_CAPTURE.depth -= 1
        return False


# -- graph-mode hook ---------------------------------------------------------------------------------
_graph_handler = None
_warned = threading.Event()


def set_graph_handler(handler) -> None:
    """Called by ``capture`` on import: ``handler(cell, args, kwargs)`` runs a Cell captured."""
    global _graph_handler
    _graph_handler = handler


def graph_handler():
    """The registered graph-mode runner, importing ``capture`` on first use; None if unavailable."""
    global _graph_handler
    if _graph_handler is None:
        try:
            import capture  # noqa: F401  (registers the handler)
        except ImportError as e:
            if not _warned.is_set():
                _warned.set()
                warnings.warn(f"GRAPH_MODE: graph capture is unavailable ({e}); running eagerly", RuntimeWarning,
                              stacklevel=3)
            return None
    return _graph_handler


# ``mindspore.context`` also holds the auto-parallel context (``context.set_auto_parallel_context``,
# ``context.ParallelMode``); it lives in runtime.parallel
from .parallel.context import (ParallelMode, get_auto_parallel_context, reset_auto_parallel_context,  # noqa: E402,F401
                               set_auto_parallel_context)
