"""Run a Cell (or a function) the way each execution mode would: PyNative, under ``ms.jit``, as a
Cell in GRAPH_MODE, or in PyNative with the frame hook on (``capture.enabled()``, as
``python -m capture run`` does) -- for tests that compare every mode against one oracle.

``MODES`` are the first three; ``HOOK_MODES`` adds ``"hook"``. In "hook" mode the call must have
run compiled code (the hook captured the Cell's ``construct``), so a hook that silently left the
call eager fails the test instead of passing it on PyNative's numbers."""
import runtime as ms
from runtime import nn

MODES = ["pynative", "jit", "graph"]
HOOK_MODES = MODES + ["hook"]


def run_hooked(cell, *args):
    """``cell(*args)`` in PyNative with the frame hook on; asserts that a compiled graph ran."""
    import capture
    from capture.explain import recording
    with recording() as report, capture.enabled():
        out = cell(*args)
    assert report.compiled_calls >= 1, (
        f"the frame hook ran no compiled graph for {type(cell).__name__}: {report}")
    return out


def run_cell(mode, cell, *args):
    """``cell(*args)`` in ``mode`` ("pynative", "jit", "graph" or "hook")."""
    if mode == "pynative":
        return cell(*args)
    if mode == "jit":
        return ms.jit(cell.construct)(*args)
    if mode == "hook":
        return run_hooked(cell, *args)
    if mode != "graph":
        raise ValueError(f"run_cell: unknown mode {mode!r}; expected one of {HOOK_MODES}")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return cell(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def run_fn(mode, fn, *args):
    """``fn(*args)`` in ``mode``: as is, under ``ms.jit``, or as a Cell's construct in GRAPH_MODE
    or under the frame hook."""
    if mode == "jit":
        return ms.jit(fn)(*args)

    class Net(nn.Cell):
        def construct(self, *a):
            return fn(*a)
    return fn(*args) if mode == "pynative" else run_cell(mode, Net(), *args)
