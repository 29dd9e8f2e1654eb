"""What the examples share: the ``--mode`` flag, one run's record, and the summary that compares
PyNative with GRAPH mode (accuracy, step times, the speed-up).

Step times are wall-clock seconds of each training step (the network, backward and optimizer,
data loading excluded). GRAPH mode's first steps include capture and compilation, so medians
leave out the first ``WARMUP_STEPS`` steps; the first step is printed on its own.
"""
from __future__ import annotations

import dataclasses
import statistics
import time

import runtime as ms

MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}
#: steps left out of the medians (capture and compilation happen in the first ones)
WARMUP_STEPS = 3


def add_mode_argument(parser):
    parser.add_argument("--mode", choices=["pynative", "graph", "both"], default="both",
                        help="execution mode; 'both' trains once in each from the same seed and prints the "
                             "GRAPH-mode speed-up (default)")


def modes_to_run(mode_arg):
    return ["pynative", "graph"] if mode_arg == "both" else [mode_arg]


@dataclasses.dataclass
class RunResult:
    """One training run: the mode, held-out accuracy, per-step seconds and losses."""
    mode: str
    accuracy: float
    step_times: list
    losses: list
    total_s: float

    def median_step_s(self):
        warm = self.step_times[WARMUP_STEPS:] or self.step_times
        return statistics.median(warm)


class StepRecorder(ms.train.Callback):
    """``Model.train`` callback: seconds and loss of every training step (data loading excluded)."""

    def __init__(self):
        super().__init__()
        self.times, self.losses = [], []

    def on_train_step_begin(self, run_context):
        self._t0 = time.perf_counter()

    def on_train_step_end(self, run_context):
        loss = run_context.original_args().net_outputs
        self.losses.append(float(loss.asnumpy()))  # reading the loss waits for the step to finish
        self.times.append(time.perf_counter() - self._t0)


def print_summary(results):
    """One line per mode, then the speed-up when both modes ran."""
    for r in results:
        print(f"  {r.mode:8s}  accuracy {r.accuracy * 100:6.2f}%   loss {r.losses[0]:.4f} -> {r.losses[-1]:.4f}   "
              f"median step {r.median_step_s() * 1e3:8.2f} ms   first step {r.step_times[0] * 1e3:8.1f} ms   "
              f"({len(r.step_times)} steps, {r.total_s:.1f} s total)")
    by_mode = {r.mode: r for r in results}
    if "pynative" in by_mode and "graph" in by_mode:
        speedup = by_mode["pynative"].median_step_s() / by_mode["graph"].median_step_s()
        print(f"  GRAPH-mode speed-up (median step, PyNative / GRAPH): {speedup:.2f}x")
