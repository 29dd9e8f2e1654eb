"""Parameter updates written into the parameter's own array (codegen/cpu/runner.py:
``_plan_inplace``, ``_take_donations``). Oracle: the same code in PyNative, which gives each
update a new array: every number equals it, and no array anybody but the Parameter can still
read changes, because such an array is never donated. The tests check that the updates really
were in place (the Parameter keeps its array), so a silently disabled path fails."""
import weakref

import numpy as np
import pytest

import capture
import runtime as ms
from capture.cache import cache_for
from runtime import Parameter, Tensor, ops

from codegen_helpers import small_train_step


def _runner(fn):
    (entry,) = cache_for(fn.__code__).entries
    return entry.runner


def _model():
    return small_train_step(seed=5)


def _batch(seed, labels=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 8) if labels is None else np.full(8, labels)
    return Tensor(rng.normal(size=(8, 6)).astype(np.float32)), Tensor(y.astype(np.int32))


def _state(net, opt):
    return [p.asnumpy().copy() for p in net.trainable_params() + list(opt.moments)]


def test_a_train_step_updates_every_parameter_and_moment_in_its_own_array():
    capture.reset()
    eager_net, eager_opt, eager_step = _model()
    net, opt, step = _model()
    jitted = capture.jit(step, backend="llvm")
    owners = net.trainable_params() + list(opt.moments)
    firsts = [weakref.ref(p.asnumpy()) for p in owners]  # (ids could be reused by new arrays)
    for i in range(6):
        want = float(eager_step(*_batch(i)).asnumpy())
        got = float(jitted(*_batch(i)).asnumpy())
        np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(_state(eager_net, eager_opt), _state(net, opt)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert all(first() is p.asnumpy() for first, p in zip(firsts, owners))
    runner = _runner(step)
    assert len(runner.inplace_inputs) == len(runner.update_slots) > len(owners)  # (and the step count)


def test_an_array_the_user_holds_is_copied_and_in_place_updates_resume_after():
    """While the user keeps ``asnumpy()`` of a weight (it shares the array), a step gives that
    weight a new array, as PyNative does; once the user lets go, its new array is updated in place."""
    capture.reset()
    net, opt, step = _model()
    eager_net, eager_opt, eager_step = _model()
    jitted = capture.jit(step, backend="llvm")
    w = net.trainable_params()[0]
    for i in range(3):
        jitted(*_batch(i))
        eager_step(*_batch(i))
    kept = w.asnumpy()
    before = kept.copy()
    jitted(*_batch(3))
    eager_step(*_batch(3))
    np.testing.assert_array_equal(kept, before)
    assert w.asnumpy() is not kept
    del kept
    now = weakref.ref(w.asnumpy())
    for i in range(4, 8):
        jitted(*_batch(i))
        eager_step(*_batch(i))
    assert now() is w.asnumpy()
    for a, b in zip(_state(eager_net, eager_opt), _state(net, opt)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["view", "read-only"])
def test_parameter_data_that_is_not_its_own_is_never_written(kind):
    """A Parameter whose data is a view of a bigger array, or read-only memory: the step must
    not write into it (the bigger array's owner would see it), so it gets a new array."""
    capture.reset()
    net, opt, step = _model()
    w = net.trainable_params()[0]
    # (set_data copies, as MindSpore's does; a Parameter's data is someone else's memory when the
    # framework put it there, e.g. the flat PyNative optimizer's views into one buffer)
    if kind == "view":
        base = np.zeros((2,) + tuple(w.shape), np.float32)
        base[0] = w.asnumpy()
        w._data = base[0]
        outside = base
    else:
        outside = w.asnumpy().copy()
        outside.flags.writeable = False
        w._data = outside
    assert w.asnumpy() is (base[0] if kind == "view" else outside) or w.asnumpy().base is not None
    before = outside.copy()
    jitted = capture.jit(step, backend="llvm")
    for i in range(4):
        jitted(*_batch(i))
    np.testing.assert_array_equal(outside, before)
    assert not np.array_equal(w.asnumpy(), before if kind == "read-only" else before[0])


def test_a_bad_label_raises_before_any_parameter_changes():
    """The compiled step flags the out-of-range label in the loss kernel; the updates later in
    the same native run must not happen (the error is the user's, and the step had no effect)."""
    capture.reset()
    net, opt, step = _model()
    jitted = capture.jit(step, backend="llvm")
    for i in range(3):
        jitted(*_batch(i))
    assert _runner(step).inplace_inputs
    before = _state(net, opt)
    with pytest.raises(ValueError, match="labels"):
        jitted(*_batch(9, labels=7))
    for a, b in zip(before, _state(net, opt)):
        np.testing.assert_array_equal(b, a)


def _pairs():
    """Update patterns beside the optimizer's: (name, make) with make() -> (function, params)."""
    def swap():
        a = Parameter(Tensor(np.arange(6, dtype=np.float32)), name="a")
        b = Parameter(Tensor(-np.arange(6, dtype=np.float32)), name="b")

        def f(x):
            old_a = a * 1.0
            ops.assign(a, b * 2.0 + x.sum())
            ops.assign(b, old_a - x.sum())
            return a * b
        return f, [a, b]

    def transpose():
        w = Parameter(Tensor(np.arange(16, dtype=np.float32).reshape(4, 4).copy()), name="w")

        def f(x):
            ops.assign(w, ops.transpose(w, (1, 0)) * 0.5 + x.sum())
            return w + 1.0
        return f, [w]

    def old_value_after():
        w = Parameter(Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4).copy()), name="w")

        def f(x):
            old = ops.reshape(w, (4, 3))  # a view of the old value, read after the update
            ops.assign(w, w * 0.9 + 0.1)
            return ops.matmul(w, old) + x.sum()  # (the product needs the new value too)
        return f, [w]

    def returned():
        w = Parameter(Tensor(np.ones(5, np.float32)), name="w")

        def f(x):
            ops.assign(w, w + x.sum())
            return w * 1.0, w
        return f, [w]
    def old_returned(keep):
        def make():
            w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

            def f(x):
                old = keep(w)  # the input itself (a no-op cast), or a view of it
                ops.assign(w, w + x.sum())
                return old
            return f, [w]
        return make
    # (name, make, whether the updates are written in place)
    return [("swap", swap, True), ("transpose", transpose, False), ("old value after", old_value_after, False),
            ("returned", returned, False),
            ("old value returned", old_returned(lambda w: ops.cast(w, ms.float32)), False),
            ("view of old value returned", old_returned(lambda w: ops.expand_dims(w, 0)), False)]


@pytest.mark.parametrize("name,make,inplace", _pairs(), ids=[n for n, *_ in _pairs()])
def test_other_update_patterns_equal_pynative(name, make, inplace):
    """Swapping two parameters is written in place (the kernel reads both old values before it
    stores); an update from a transposed read, one whose old value a later product reads (through
    a view), a returned update and a returned old value (or a view of it) are not."""
    capture.reset()
    eager_fn, eager_params = make()
    fn, params = make()
    jitted = capture.jit(fn, backend="llvm")
    rng = np.random.default_rng(1)
    for _ in range(4):
        x = Tensor(rng.normal(size=3).astype(np.float32))
        want, got = eager_fn(x), jitted(x)
        for a, b in zip(want if isinstance(want, tuple) else [want], got if isinstance(got, tuple) else [got]):
            np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-6, atol=1e-6)  # (a product)
        for p, q in zip(eager_params, params):
            np.testing.assert_allclose(q.asnumpy(), p.asnumpy(), rtol=1e-6)
    runner = _runner(fn)
    assert len(runner.inplace_inputs) == (len(params) if inplace else 0)


def test_the_runner_contract_with_a_graph_built_directly():
    """A direct caller donates as the capture path does: each updated array referenced by the
    argument list and one owner. Donated arrays are written in place; without ``donate``
    nothing is. Oracle: the reference interpreter."""
    from graph.aval import AVal
    from graph.dtypes import from_numpy
    from graph.interpret import run
    from graph.ir import PARAM, Graph
    from graph.ops import F

    from codegen import compile_schedule, schedule_graph

    rng = np.random.default_rng(3)
    start = [rng.normal(size=(4, 5)).astype(np.float32) for _ in range(2)]
    x = rng.normal(size=(4, 5)).astype(np.float32)
    f32 = from_numpy(np.dtype(np.float32))
    g = Graph("two_params")
    p, q = (g.add_input(AVal((4, 5), f32), n, kind=PARAM) for n in "pq")
    xv = g.add_input(AVal((4, 5), f32), "x")
    F.assign(p, F.add(F.mul(p, 0.5), xv))
    F.assign(q, F.sub(q, F.mul(p, xv)))  # (reads p's old value)
    g.set_outputs([F.reduce_sum(F.mul(xv, 2.0))])
    g.verify()
    compiled = compile_schedule(schedule_graph(g))
    # q in place; p too unless its kernel runs before the one reading its old value (the
    # schedule puts it first today)
    inplace = compiled.inplace_inputs
    assert 1 in inplace
    owners = [a.copy() for a in start]  # what the Tensors would hold
    firsts = [weakref.ref(a) for a in owners]  # (a reference would keep them from being donated)
    want = [a.copy() for a in start]
    for _ in range(4):
        (ref_out,), ref_updates = run(g, [*want, x])
        arrays = [*owners, x]
        outs, updates = compiled(arrays, donate=True)
        del arrays
        assert sorted(updates) == [i for i in (0, 1) if i not in inplace]
        owners = [updates.get(i, owners[i]) for i in (0, 1)]
        want = [ref_updates[0], ref_updates[1]]
        np.testing.assert_allclose(outs[0], ref_out, rtol=1e-5)
        for i in (0, 1):  # (no loop variable left holding an owner's array: it would not be donated)
            np.testing.assert_allclose(owners[i], want[i], rtol=1e-6)
    assert [firsts[i]() is owners[i] for i in (0, 1)] == [i in inplace for i in (0, 1)]
    kept = [a.copy() for a in owners]
    arrays = [*owners, x]
    outs, updates = compiled(arrays, donate=False)  # not donated: no input changes
    assert sorted(updates) == [0, 1]
    for a, b in zip(arrays, kept):
        np.testing.assert_array_equal(a, b)
