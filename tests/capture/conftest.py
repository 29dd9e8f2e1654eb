"""Fixtures for the capture tests: every test starts with empty capture caches and
PYNATIVE_MODE, and ends the same way (the graph-mode handler and the per-code caches are
process-global)."""
import gc
import os

import numpy as np
import pytest

import capture
import runtime as ms
from capture_helpers import Checker

import forked


def pytest_configure(config):
    """GC stress (``CAPTURE_TEST_GC_STRESS=1``): a full collection after every compile, before its
    graph first runs (graph.config ``CAPTURE_COLLECT_AFTER_COMPILE``), and cyclic collections
    every 100 allocations, so what capture holds only weakly dies between tracing and running, as
    it may in any program (found: a builtin bound method guarded by identity came back as a dead
    referent)."""
    if os.environ.get("CAPTURE_TEST_GC_STRESS") == "1":
        os.environ["CAPTURE_COLLECT_AFTER_COMPILE"] = "1"
        gc.set_threshold(100, 3, 3)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Crash-proof mode (CAPTURE_TEST_FORK=1, tests/capture/forked.py): the test body runs in a
    forked child, so a crash fails this one test, named, and the suite goes on."""
    if forked.enabled():
        forked.run_forked(pyfuncitem)
        return True
    return None


@pytest.fixture(autouse=True)
def _fresh_capture(tmp_path_factory, monkeypatch):
    # generated resume code that fails its check (stack depth, exception table) is an error
    # here, never a silent fallback to eager
    monkeypatch.setattr(capture.resume, "RAISE_ON_INVALID_CODE", True)
    capture.reset()
    # IR dumps (analyze_fail_*.ir of user errors) go to a temporary folder, never the checkout
    dumps = tmp_path_factory.mktemp("graphs")
    ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False, save_graphs_path=str(dumps))
    yield
    capture.reset()
    ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False, save_graphs_path=".")


@pytest.fixture
def check():
    return Checker()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
