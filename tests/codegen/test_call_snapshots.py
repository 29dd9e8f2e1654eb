"""Calls restored from a snapshot of the argument pointers (codegen/cpu/call_snapshots.py) give
the results of full calls. Oracle: the same train step in PyNative, step by step. Each test also
checks that snapshots were really used (``hits``), so a silently disabled fast path fails, and
that the cases they must not handle (arrays the user still holds, converted inputs, a Parameter
given new data) fall back to full calls without changing any number."""
import numpy as np
import pytest

import capture
from capture.cache import cache_for
from runtime import Tensor

from codegen_helpers import small_train_step

STEPS = 12


def _train_step():
    return small_train_step(seed=3)


def _batches(n, rng=None):
    rng = rng or np.random.default_rng(0)
    return [(Tensor(rng.normal(size=(8, 6)).astype(np.float32)), Tensor(rng.integers(0, 3, 8).astype(np.int32)))
            for _ in range(n)]


def _run(step_fn, batches, between=None):
    losses = []
    for i, (x, y) in enumerate(batches):
        if between is not None:
            between(i)
        losses.append(float(step_fn(x, y).asnumpy()))
    return losses


def _compare(between_eager=None, between_graph=None, batches=None):
    """(runner, graph losses, graph net) after checking them against PyNative."""
    batches = batches or _batches(STEPS)
    capture.reset()
    eager_net, eager_opt, eager_step = _train_step()
    want = _run(eager_step, batches, between_eager and (lambda i: between_eager(i, eager_net, eager_opt)))
    net, opt, step = _train_step()
    jitted = capture.jit(step, backend="llvm")
    got = _run(jitted, batches, between_graph and (lambda i: between_graph(i, net, opt)))
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(eager_net.trainable_params(), net.trainable_params()):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)
    (entry,) = cache_for(step.__code__).entries
    return entry.runner, net


def test_a_training_loop_runs_from_snapshots_with_a_new_batch_each_step():
    runner, _ = _compare()
    assert runner.snapshots is not None
    # every update is written in place: the first call records the one snapshot, the rest restore it
    assert len(runner.inplace_inputs) == len(runner.update_slots)
    assert runner.snapshots.hits == STEPS - 1


def test_arrays_the_user_holds_are_never_written():
    """A parameter's array the user kept (``asnumpy`` shares it) stays as it was: its pool must
    not hand it out again, and no snapshot may write into it."""
    held = []

    def keep(i, net, opt):
        held.append([(p.asnumpy(), p.asnumpy().copy()) for p in net.trainable_params() + list(opt.moments)])
    runner, _ = _compare(keep, keep)
    for arrays in held:
        for shared, copy in arrays:
            np.testing.assert_array_equal(shared, copy)


def test_held_arrays_now_and_then_fall_back_and_come_back():
    """The user keeps a parameter's array for three steps now and then: in a settled loop the
    snapshot of the second step after would write its update into that array (the pools
    alternate between two), so that call must run in full, and the array must not change."""
    held = []

    def sometimes_keep(i, net, opt):
        if i % 5 == 1:
            held.append([(p.asnumpy(), p.asnumpy().copy()) for p in net.trainable_params()])
        elif i % 5 == 4:
            for shared, copy in held.pop():
                np.testing.assert_array_equal(shared, copy)
    runner, _ = _compare(between_graph=sometimes_keep, batches=_batches(25))
    assert runner.snapshots.hits > 10


def test_inputs_that_need_a_copy_fall_back_to_full_calls():
    """A transposed (non-contiguous) batch and a float64 one are converted by the full call."""
    rng = np.random.default_rng(5)
    batches = _batches(STEPS, rng)
    for i in (4, 7):
        x, y = batches[i]
        # (no copy: the tensor keeps the Fortran layout; Tensor() copies into C order, as MindSpore does)
        batches[i] = (Tensor._of_owned_array(np.asfortranarray(x.asnumpy())), y)
    runner, _ = _compare(batches=batches)
    assert not batches[4][0].asnumpy().flags.c_contiguous
    assert runner.snapshots.hits > 0


def test_new_parameter_data_and_learning_rate_are_read():
    """``set_data`` gives a Parameter an array outside the pools, and a new learning rate is a
    new array: the calls after it must read them."""
    def change(i, net, opt):
        if i == 5:
            w = net.trainable_params()[0]
            w.set_data(Tensor(np.full(w.shape, 0.01, np.float32)))
        if i == 8:
            opt.learning_rate.set_data(Tensor(np.float32(0.02)))
    runner, _ = _compare(change, change)
    assert runner.snapshots.hits > 0


@pytest.mark.parametrize("threads", [1, 3])
def test_snapshots_with_split_kernels(threads, monkeypatch):
    from codegen.cpu import threads as pool_threads
    monkeypatch.setattr(pool_threads, "SPLIT_THRESHOLD", 1.0)
    pool_threads.set_num_threads(threads)
    try:
        runner, _ = _compare()
    finally:
        pool_threads.set_num_threads(None)
    assert runner.snapshots.hits > 0


def test_a_call_that_raises_leaves_the_next_ones_right():
    """A bad label makes the compiled call raise after it has bound this batch; the calls after
    it, given earlier batches again, must read those batches (not the failed call's)."""
    batches = _batches(6)
    bad = (Tensor(np.random.default_rng(9).normal(size=(8, 6)).astype(np.float32)),
           Tensor(np.full(8, 7, np.int32)))  # 7: out of range for 3 classes

    def run(step_fn):
        losses = []
        for i in range(14):
            if i == 8:
                with pytest.raises(Exception):
                    step_fn(*bad)
            x, y = batches[i % 6]
            losses.append(float(step_fn(x, y).asnumpy()))
        return losses
    capture.reset()
    *_, eager_step = _train_step()
    want = run(eager_step)
    *_, step = _train_step()
    got = run(capture.jit(step, backend="llvm"))
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert cache_for(step.__code__).entries[0].runner.snapshots.hits > 0


def test_a_returned_update_and_two_graphs_sharing_parameters(monkeypatch):
    """A step returning the Parameter it updates, and two graphs of one function (two batch
    sizes) updating the same Parameters in turn: each graph's inputs then come from the other's
    pools, which it must not trust. (Both sizes compiled at once: a shape-generic entry's second
    size would otherwise run interpreted until it recurs, capture.dynamic.TIER_UP_CALLS.)"""
    from capture import dynamic
    from runtime import Parameter, ops
    monkeypatch.setattr(dynamic, "TIER_UP_CALLS", 1)

    def make():
        w = Parameter(Tensor(np.linspace(-1, 1, 6).astype(np.float32)), name="w")
        m = Parameter(Tensor(np.zeros(6, np.float32)), name="m")

        def step(x):
            g = (x.sum(0) * w).tanh()
            ops.assign(m, m * 0.9 + g)
            ops.assign(w, w - 0.1 * m)
            return w
        return w, m, step

    rng = np.random.default_rng(2)
    xs = [Tensor(rng.normal(size=(4 if i % 3 else 5, 6)).astype(np.float32)) for i in range(15)]
    capture.reset()
    *_, eager = make()
    want = [eager(x).asnumpy().copy() for x in xs]
    w, m, step = make()
    jitted = capture.jit(step, backend="llvm")
    for x, expected in zip(xs, want):
        got = jitted(x)
        assert got is w  # as in eager: the Parameter itself, updated
        np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)
