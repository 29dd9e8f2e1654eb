"""Run MindSpore scripts unedited: ``alias_mindspore()`` makes ``import mindspore`` (and every
``mindspore.X.Y`` this framework has as ``runtime.X.Y``) resolve to this framework.

The alias is refused when the real MindSpore is installed: a script that imports it must get it.
``python -m capture run --mindspore script.py`` installs the alias before running the script.

Example:
    >>> import runtime.compat
    >>> runtime.compat.alias_mindspore()
    >>> import mindspore as ms
    >>> from mindspore import nn, ops
    >>> ms is runtime.compat.runtime_package() and nn.Dense(2, 1).weight.shape
    (1, 2)
    >>> runtime.compat.remove_alias()
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

ALIASED = "mindspore"
TARGET = "runtime"


def runtime_package():
    return importlib.import_module(TARGET)


def _target_name(fullname: str) -> str:
    return TARGET + fullname[len(ALIASED):]


class _MindSporeAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``mindspore[.X...]`` as the already-importable ``runtime[.X...]`` module object
    itself (so ``mindspore.nn is runtime.nn``: one module, one set of classes)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIASED and not fullname.startswith(ALIASED + "."):
            return None
        name = _target_name(fullname)
        if name not in sys.modules:
            try:
                if importlib.util.find_spec(name) is None:
                    return None
            except ModuleNotFoundError:
                return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module(_target_name(spec.name))  # its own name/spec are kept

    def exec_module(self, module):
        pass  # already executed under its real name


_FINDER = _MindSporeAlias()


def real_mindspore_installed() -> bool:
    loaded = sys.modules.get(ALIASED)
    if loaded is not None:
        return loaded is not sys.modules.get(TARGET)
    return importlib.machinery.PathFinder.find_spec(ALIASED) is not None


def alias_mindspore() -> None:
    """Install the ``mindspore`` -> ``runtime`` import alias (idempotent).

    Raises RuntimeError when the real MindSpore is installed or already imported."""
    if _FINDER in sys.meta_path:
        return
    if real_mindspore_installed():
        raise RuntimeError("alias_mindspore: the real MindSpore is installed; refusing to shadow it "
                           "(uninstall it, or change the script's imports to `runtime`)")
    runtime_package()
    # modules already loaded (some, like runtime.dataset.vision, exist only in sys.modules) are
    # entered under their MindSpore names directly; the finder serves the rest on demand
    for name, module in list(sys.modules.items()):
        if name == TARGET or name.startswith(TARGET + "."):
            sys.modules.setdefault(ALIASED + name[len(TARGET):], module)
    sys.meta_path.insert(0, _FINDER)


def remove_alias() -> None:
    """Undo :func:`alias_mindspore` (aliased module names are dropped from ``sys.modules``)."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == ALIASED or n.startswith(ALIASED + ".")]:
        if sys.modules[name] is sys.modules.get(_target_name(name)):
            del sys.modules[name]
