"""Run a Cell (or a function) the way each execution mode would: PyNative, under ``ms.jit``, or
as a Cell in GRAPH_MODE -- for tests that compare all three against one oracle."""
import runtime as ms
from runtime import nn

MODES = ["pynative", "jit", "graph"]


def run_cell(mode, cell, *args):
    """``cell(*args)`` in ``mode`` ("pynative", "jit" or "graph")."""
    if mode == "pynative":
        return cell(*args)
    if mode == "jit":
        return ms.jit(cell.construct)(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return cell(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def run_fn(mode, fn, *args):
    """``fn(*args)`` in ``mode``: as is, under ``ms.jit``, or as a Cell's construct in GRAPH_MODE."""
    if mode == "jit":
        return ms.jit(fn)(*args)

    class Net(nn.Cell):
        def construct(self, *a):
            return fn(*a)
    return fn(*args) if mode == "pynative" else run_cell(mode, Net(), *args)
