"""User-facing error helpers shared by every layer.

Errors name the op (functional and Primitive spelling), the offending shapes/dtypes/attributes, and
the user's ``file:line`` plus source text: the first stack frame outside this project's packages.

Example:
    >>> err = op_error(ValueError, "bias_add", "BiasAdd", "bias shape (4,) does not match (2, 3)")
    >>> type(err).__name__, str(err).splitlines()[0]
    ('ValueError', 'BiasAdd (ops.bias_add): bias shape (4,) does not match (2, 3)')
"""
from __future__ import annotations

import linecache
import os
import sys

_PKG_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the framework's top-level packages
FRAMEWORK_PACKAGES = ("graph", "runtime", "codegen", "capture")
#: directories whose frames are "ours" and never reported as the user's line
INTERNAL_DIRS = tuple(os.path.join(_PKG_ROOT, p) + os.sep for p in FRAMEWORK_PACKAGES)
_EXTRA_INTERNAL: list[str] = []


def add_internal_dir(path: str) -> None:
    """Treat frames under ``path`` as framework-internal (e.g. generated code)."""
    _EXTRA_INTERNAL.append(os.path.abspath(path) + os.sep)


def is_internal_file(filename: str) -> bool:
    if filename.startswith("<"):
        # generated code (the functional API is built with exec) counts as ours
        return filename.startswith(("<graph", "<runtime", "<capture"))
    return filename.startswith(INTERNAL_DIRS) or any(filename.startswith(p) for p in _EXTRA_INTERNAL)


def user_location(depth: int = 1):
    """(filename, lineno, source_line) of the innermost frame outside the framework, or None."""
    f = sys._getframe(depth)
    while f is not None:
        fn = f.f_code.co_filename
        if not is_internal_file(fn) and "/pytest" not in fn and "/_pytest/" not in fn and "pluggy" not in fn:
            return fn, f.f_lineno, linecache.getline(fn, f.f_lineno).strip()
        f = f.f_back
    return None


def format_location(loc) -> str:
    if not loc:
        return ""
    fn, line, src = loc
    return f"\n  at {fn}:{line}" + (f"\n    {src}" if src else "")


def op_label(name: str, prim: str | None) -> str:
    return f"{prim} (ops.{name})" if prim and prim.lower() != name.replace("_", "") else f"ops.{name}"


def op_error(exc_type, name: str, prim: str | None, message: str):
    """Build an exception naming the op; the user location is appended by the caller."""
    return exc_type(f"{prim or name} (ops.{name}): {message}")


class UserLocated:
    """Marker mixed into exceptions whose message already carries the user's location."""


def relocate(exc: BaseException, loc=None, extra: str = "") -> BaseException:
    """Return an exception of the same type whose message adds the user's location (once)."""
    if isinstance(exc, UserLocated):
        return exc
    loc = loc if loc is not None else user_location(2)
    base = type(exc)
    if not issubclass(base, (TypeError, ValueError)):
        base = ValueError
    cls = _LOCATED_TYPES.get(base)
    if cls is None:
        cls = type(base.__name__, (base, UserLocated), {"__module__": base.__module__})
        _LOCATED_TYPES[base] = cls
    new = cls(str(exc) + extra + format_location(loc))
    new.user_location = loc
    return new


_LOCATED_TYPES: dict[type, type] = {}
