"""Every docstring example in the project runs, as written, and shows what it says it shows."""
from __future__ import annotations

import doctest
import importlib
import os
import pkgutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("graph", "runtime", "codegen", "capture")
# Modules outside the packages that carry examples: the bench page writers and the test DOM helper.
EXTRA_DIRS = {"bench": ("svgcharts", "dashboard", "soak", "call_overhead", "models", "fma_peak"), "tests": ("htmldom",)}


def _module_names():
    names = []
    for pkg in PACKAGES:
        module = importlib.import_module(pkg)
        names.append(pkg)
        for info in pkgutil.walk_packages(module.__path__, prefix=pkg + "."):
            if not info.name.rsplit(".", 1)[-1].startswith("__"):
                names.append(info.name)
    for folder, mods in EXTRA_DIRS.items():
        path = os.path.join(ROOT, folder)
        if path not in sys.path:
            sys.path.insert(0, path)
        names.extend(mods)
    return names


def _with_examples():
    finder = doctest.DocTestFinder()
    out = []
    for name in _module_names():
        module = importlib.import_module(name)
        if any(t.examples for t in finder.find(module)):
            out.append(name)
    return out


@pytest.mark.parametrize("name", _with_examples())
def test_module_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples in {name} failed (see above)"


def test_the_example_collection_is_not_empty():
    assert len(_with_examples()) >= 20
