"""docs/architecture.md names real modules: every file path and every dotted name of ours it
mentions (``capture/dispatch.py``, ``capture.dispatch.call_captured``) exists, so a rename that
leaves the map behind fails here instead of misleading the next reader."""
import importlib
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("capture", "codegen", "graph", "runtime")

_PATH = re.compile(r"(?<![\w/.])((?:%s|tests|docs)/[\w./-]*)" % "|".join(PACKAGES))
_DOTTED = re.compile(r"(?<![\w./])((?:%s)(?:\.[A-Za-z_]\w*)+)" % "|".join(PACKAGES))


def _paths(text):
    return sorted({m.group(1).rstrip(".") for m in _PATH.finditer(text)})


def _dotted(text):
    return sorted({m.group(1) for m in _DOTTED.finditer(text)})


def resolves(name: str) -> bool:
    """``a.b.c.d``: the longest importable module prefix, then attributes for the rest."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_the_page_names_modules_at_all():
    text = DOC.read_text(encoding="utf-8")
    assert len(_paths(text)) > 20 and len(_dotted(text)) > 30


@pytest.mark.parametrize("path", _paths(DOC.read_text(encoding="utf-8")) if DOC.exists() else [])
def test_every_path_exists(path):
    assert (ROOT / path).exists(), f"docs/architecture.md names {path}, which does not exist"


@pytest.mark.parametrize("name", _dotted(DOC.read_text(encoding="utf-8")) if DOC.exists() else [])
def test_every_dotted_name_resolves(name):
    assert resolves(name), f"docs/architecture.md names {name}, which does not resolve"


def test_the_checks_can_fail():
    assert not resolves("capture.dispatch.no_such_function")
    assert not resolves("capture.no_such_module")
    assert _paths("see `capture/dispatch.py` and codegen/cpu/") == ["capture/dispatch.py", "codegen/cpu/"]
    assert _dotted("calls capture.api.jit, then graph.passes.optimize.") == ["capture.api.jit",
                                                                             "graph.passes.optimize"]
