"""The training rows of ``python -m bench`` time each framework's step in a worker process of its
own (bench/step_worker.py), interleaved in rounds while the other workers are stopped."""
from __future__ import annotations

import importlib
import os
import sys

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, os.path.abspath(BENCH))


def _bench():
    return importlib.import_module("bench.__main__")


def test_workers_time_their_steps_in_interleaved_rounds_and_report_errors():
    b = _bench()
    workers = [b._Worker("ours_pynative_ms", "mlp", 4, None), b._Worker("ours_jit_step_ms", "mlp", 4, None),
               b._Worker("ours_jit_step_ms", "no-such-model", 4, None)]
    try:
        times = b.interleaved_ms(workers, repeats=4, rounds=2, block_seconds=0.01)
    finally:
        for w in workers:
            w.close()
    assert set(times) == {"ours_pynative_ms", "ours_jit_step_ms"}
    assert all(t > 0 for t in times.values())
    assert all(len(w.samples) == 2 for w in workers[:2])
    assert workers[2].error and "KeyError" in workers[2].error  # the bad column's cell stays empty
    assert all(w.proc.poll() is not None for w in workers)  # every worker exited


def test_peers_are_found_without_importing_them():
    b = _bench()
    assert not b._installed("a_module_name_that_does_not_exist")
    sys.modules.pop("tabnanny", None)
    assert b._installed("tabnanny") and "tabnanny" not in sys.modules


def test_a_worker_that_dies_while_timing_leaves_its_cell_empty():
    import signal
    b = _bench()
    workers = [b._Worker("ours_jit_step_ms", "mlp", 4, None), b._Worker("ours_pynative_ms", "mlp", 4, None)]
    try:
        os.killpg(workers[0].proc.pid, signal.SIGKILL)
        workers[0].proc.wait()
        times = b.interleaved_ms(workers, repeats=4, rounds=2, block_seconds=0.01)
    finally:
        for w in workers:
            w.close()
    assert set(times) == {"ours_pynative_ms"} and workers[0].error == "the worker died while timing"
