"""``ms.jit`` and ``ms.JitConfig``: the user-facing entry points of graph mode.

``jit`` is ``capture.jit`` once the capture package is importable; until then (or if it fails to
import) it returns the function unchanged and says so in one warning, so scripts keep running.

Example:
    >>> import runtime as ms
    >>> cfg = ms.JitConfig(jit_level="O1")
    >>> cfg.jit_level
    'O1'
"""
from __future__ import annotations

from collections.abc import Callable

import warnings

_JIT_LEVELS = ("O0", "O1", "O2")
_EXEC_MODES = ("auto", "eager")


class JitConfig:
    """``JitConfig(jit_level="O1", exec_mode="auto", jit_syntax_level="STRICT", **options)``.

    O0: no fusion; O1: default passes; O2: all passes. Invalid values raise ValueError.
    """

    def __init__(self, jit_level="O1", exec_mode="auto", jit_syntax_level="STRICT", **options):
        if jit_level not in _JIT_LEVELS:
            raise ValueError(f"JitConfig: jit_level must be one of {list(_JIT_LEVELS)}, got {jit_level!r}")
        if exec_mode not in _EXEC_MODES:
            raise ValueError(f"JitConfig: exec_mode must be one of {list(_EXEC_MODES)}, got {exec_mode!r}")
        if jit_syntax_level not in ("STRICT", "COMPATIBLE", "LAX"):
            raise ValueError("JitConfig: jit_syntax_level must be 'STRICT', 'COMPATIBLE' or 'LAX', "
                             f"got {jit_syntax_level!r}")
        self.jit_level = jit_level
        self.exec_mode = exec_mode
        self.jit_syntax_level = jit_syntax_level
        self.options = dict(options)

    def __repr__(self):
        return f"JitConfig(jit_level={self.jit_level!r}, exec_mode={self.exec_mode!r})"


_warned = []


def jit(fn: Callable | None = None, *, fullgraph: bool = False, backend=None, jit_config=None,
        input_signature=None, **kwargs):
    """Compile ``fn`` (decorator or function transform); see ``capture.jit``."""
    try:
        import capture
        real = capture.jit
    except ImportError as e:
        real = None
        reason = str(e)
    if real is not None:
        return real(fn, fullgraph=fullgraph, backend=backend, jit_config=jit_config,
                    input_signature=input_signature, **kwargs)
    if jit_config is not None and not isinstance(jit_config, JitConfig):
        raise TypeError(f"jit: jit_config must be a JitConfig, got {type(jit_config).__name__}")
    if not _warned:
        _warned.append(True)
        warnings.warn(f"ms.jit: graph capture is unavailable ({reason}); functions run eagerly",
                      RuntimeWarning, stacklevel=2)
    if fn is None:
        return lambda f: f
    return fn
