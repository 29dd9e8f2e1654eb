"""PyNative's eager kernels compile off the calling thread (runtime/background_compile.py): the
call that makes a signature warm submits the compile and runs numpy's path, as every call does
until the compile has finished; later calls run the compiled graph. Oracles: the registry's numpy
implementation of the op, a compile held back by the test (so "still pending" is a fact, not a
race), and processes that fork or exit while a compile is pending."""
import multiprocessing
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import codegen
from graph.ops import REGISTRY
from runtime import Tensor, background_compile, eager_kernels, ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def fresh():
    eager_kernels.reset()
    yield
    assert eager_kernels.wait_pending(timeout=600)
    eager_kernels.reset()


class HeldCompiler:
    """``codegen.compile_schedule`` that waits for :attr:`release` (at most ``hold`` seconds)
    before compiling, in the process that made it; each graph it returns counts its calls."""

    def __init__(self, monkeypatch, hold=10.0):
        self.real = codegen.compile_schedule
        self.release = threading.Event()
        self.started = threading.Event()
        self.finished = threading.Event()
        self.hold, self.pid, self.calls = hold, os.getpid(), []
        monkeypatch.setattr(codegen, "compile_schedule", self)

    def __call__(self, *args, **kwargs):
        self.started.set()
        if os.getpid() == self.pid:
            self.release.wait(self.hold)
        graph = self.real(*args, **kwargs)
        self.finished.set()

        def counted(arrays):
            self.calls.append(1)
            return graph(arrays)
        return counted


def _conv_operands(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 10, 9)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    want = REGISTRY["conv2d"].impl(np, x, w, **REGISTRY["conv2d"].normalize({}))
    return Tensor(x), Tensor(w), want


def test_the_call_that_makes_a_signature_warm_does_not_wait_for_its_compile(monkeypatch):
    held = HeldCompiler(monkeypatch, hold=5.0)
    x, w, want = _conv_operands()
    results = [ops.conv2d(x, w).asnumpy() for _ in range(eager_kernels.WARM_CALLS + 3)]
    # every call returned while the compile they submitted was still held back (before, the
    # third call compiled on the calling thread, so it returned only after the compile)
    assert held.started.wait(60)
    assert not held.finished.is_set()
    assert eager_kernels.wait_pending(timeout=0.05) is False
    assert list(eager_kernels._compiled.values()) == [eager_kernels._PENDING]
    for got in results:  # numpy's path, bit for bit
        np.testing.assert_array_equal(got, want)
    assert held.calls == []
    held.release.set()
    assert eager_kernels.wait_pending(timeout=600)
    got = ops.conv2d(x, w).asnumpy()  # the compiled graph now
    assert held.calls == [1]
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_one_compile_per_signature_however_many_calls_come_while_it_is_pending(monkeypatch):
    held = HeldCompiler(monkeypatch)
    x, w, _ = _conv_operands()
    for _ in range(eager_kernels.WARM_CALLS + 10):
        ops.conv2d(x, w)
    held.release.set()
    assert eager_kernels.wait_pending(timeout=600)
    assert background_compile.pending() == 0
    assert len(eager_kernels._compiled) == 1
    ops.conv2d(x, w)
    assert held.calls == [1]


def test_a_pending_vjp_compile_finishes_and_is_used(monkeypatch):
    """LayerNorm's backward rule, compiled in the background while gradients keep coming."""
    import runtime as ms
    held = HeldCompiler(monkeypatch)
    rng = np.random.default_rng(2)
    x = Tensor(rng.standard_normal((3, 4, 8)).astype(np.float32))
    gamma = Tensor(rng.uniform(0.5, 1.5, 8).astype(np.float32))
    beta = Tensor(rng.standard_normal(8).astype(np.float32))
    weights = Tensor(rng.standard_normal((3, 4, 8)).astype(np.float32))
    layer_norm = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1, epsilon=1e-5)
    grad = ms.grad(lambda a, g: (layer_norm(a, g, beta)[0] * weights).sum(), grad_position=(0, 1))
    before = [[t.asnumpy() for t in grad(x, gamma)] for _ in range(eager_kernels.WARM_CALLS + 2)]
    assert held.calls == []  # (the forward's compile and the rule's are both held)
    held.release.set()
    assert eager_kernels.wait_pending(timeout=600)
    after = [t.asnumpy() for t in grad(x, gamma)]
    assert len(held.calls) == 2  # the compiled forward and the compiled rule, once each
    for run in before[1:]:
        for got, want in zip(run, before[0]):
            np.testing.assert_array_equal(got, want)  # all numpy's path
    for got, want in zip(after, before[0]):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_a_reset_drops_the_result_of_a_compile_still_in_progress(monkeypatch):
    held = HeldCompiler(monkeypatch)
    x, w, _ = _conv_operands()
    for _ in range(eager_kernels.WARM_CALLS + 1):
        ops.conv2d(x, w)
    assert held.started.wait(60)
    eager_kernels.reset()
    held.release.set()
    assert eager_kernels.wait_pending(timeout=600)
    assert not eager_kernels._compiled


def _forked_child(queue):
    try:
        x, w, want = _conv_operands()
        # the parent's compile is still held: the child must not wait for it, and must warm anew
        report = {"waited": eager_kernels.wait_pending(timeout=5),
                  "pending_marks": sum(v is eager_kernels._PENDING for v in eager_kernels._compiled.values())}
        for _ in range(eager_kernels.WARM_CALLS + 1):
            ops.conv2d(x, w)
        report["child_compiled"] = eager_kernels.wait_pending(timeout=300)
        got = ops.conv2d(x, w).asnumpy()
        report["error"] = float(np.abs(got - want).max())
        report["compiled"] = [k[0] for k, v in eager_kernels._compiled.items()
                              if v not in (eager_kernels._PENDING, eager_kernels._FAILED)]
        queue.put(report)
    except BaseException as e:  # (reported by the parent)
        queue.put({"exception": repr(e)})


# (forking with the compile thread alive is the point: Python 3.12+ warns about exactly that)
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_does_not_wait_on_its_parents_compile(monkeypatch):
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    held = HeldCompiler(monkeypatch, hold=60.0)
    x, w, _ = _conv_operands()
    for _ in range(eager_kernels.WARM_CALLS + 1):
        ops.conv2d(x, w)
    assert held.started.wait(60)  # the parent's worker is inside the (held) compile
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_forked_child, args=(queue,))
    proc.start()
    try:
        report = queue.get(timeout=300)
    finally:
        proc.join(60)
        if proc.is_alive():
            proc.kill()
            proc.join()
        held.release.set()
    assert "exception" not in report, report
    assert report["waited"] and report["pending_marks"] == 0
    assert report["child_compiled"] and report["compiled"] == ["conv2d"]
    assert report["error"] < 1e-4
    assert proc.exitcode == 0


_EXIT_SCRIPT = r"""
import atexit, sys, threading, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import codegen
from runtime import Tensor, eager_kernels, ops
# (registered before the worker's exit hook, so it runs after it: atexit runs the last first)
atexit.register(lambda: print("threads at exit:", sorted(t.name for t in threading.enumerate()), flush=True))
real = codegen.compile_schedule
def slow(*a, **k):
    time.sleep(1.0)
    return real(*a, **k)
codegen.compile_schedule = slow
x, w = Tensor(np.ones((1, 2, 6, 6), np.float32)), Tensor(np.ones((3, 2, 3, 3), np.float32))
for _ in range(eager_kernels.WARM_CALLS + 1):
    ops.conv2d(x, w)
print("pending at the end of the script:", eager_kernels._compiled and
      list(eager_kernels._compiled.values())[0] is eager_kernels._PENDING, flush=True)
"""


def test_the_interpreter_exits_cleanly_while_a_compile_is_pending():
    out = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT, ROOT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "pending at the end of the script: True" in out.stdout, out.stdout
    assert "threads at exit:" in out.stdout and "msjit-eager-compile" not in out.stdout, out.stdout
    assert "Traceback" not in out.stderr and "Fatal" not in out.stderr, out.stderr


def test_the_off_switch_submits_nothing(monkeypatch):
    held = HeldCompiler(monkeypatch)
    monkeypatch.setenv("MSJIT_EAGER_KERNELS", "0")
    x, w, want = _conv_operands()
    for _ in range(eager_kernels.WARM_CALLS + 3):
        np.testing.assert_array_equal(ops.conv2d(x, w).asnumpy(), want)
    assert background_compile.pending() == 0 and not held.started.is_set()
    assert not eager_kernels._compiled
