"""Issue 9 reproducers that capture used to get silently wrong: each compares the captured
function with eager Python (results, types, and that a later change is seen)."""
import collections
import functools
import itertools
import operator
import types
import typing

import numpy as np

import capture
import runtime as ms
from capture_helpers import assert_same, check_like_eager, randn
from runtime import Tensor, ops


def test_substring_and_constant_containment(check, rng):
    def f(x):
        # B: `in` on strings is substring containment; ranges, sets and tuples by value
        flags = ("ab" in "abc", "x" in "abc", 3 in range(5), 2.0 in {1, 2}, "k" in {"k": 1}, 5 not in (1, 2))
        return x * 2, flags

    check(f, lambda i: ((randn(rng, 3),), {}))


def test_containment_against_tensors_is_not_guessed():
    def f(x):
        return 3 in [x, 1]  # compares 3 == x, whose answer depends on x's value

    for value in (3.0, 4.0):
        x = Tensor(np.array([value], np.float32))
        report = capture.explain(f)(x)
        assert report.result == f(x) == (value == 3.0)
        assert report.graph_break_count == 1 and "traced values" in str(report.breaks[0])


def test_a_tensor_looks_like_a_tensor(check, rng):
    def f(x):
        # C: the user-visible class, never the symbolic stand-in
        return x + 1, x.__class__.__name__, ms.is_tensor(x), type(x).__name__, isinstance(x, Tensor)

    check(f, lambda i: ((randn(rng, 2, 2),), {}))


def test_partial_attributes(check, rng):
    def f(x):
        p = functools.partial(ops.add, 1.0)
        # E: the attributes of a partial object, and real absence
        return p(x), hasattr(p, "func"), hasattr(p, "args"), hasattr(p, "nope"), len(p.args), p.func is ops.add

    check(f, lambda i: ((randn(rng, 3),), {}))


def test_hasattr_on_tensors(check, rng):
    def f(x):
        return x * 1, hasattr(x, "shape"), hasattr(x, "no_such_attribute"), hasattr(x, "asnumpy")

    check(f, lambda i: ((randn(rng, 3),), {}))


class Flags:
    pass


def test_a_missing_attribute_is_guarded(rng):
    # F: getattr(obj, name, default) that found no attribute must notice when it appears
    obj = Flags()

    def f(x):
        if getattr(obj, "flag", False):
            return x + 1
        return x - 1

    jf = capture.jit(f)
    x = randn(rng, 3)
    assert_same(jf(x), f(x))
    obj.flag = True
    assert_same(jf(x), x + 1)
    del obj.flag
    assert_same(jf(x), x - 1)
    report = capture.explain(f)(x)
    assert any("obj.flag does not exist" in g or "flag does not exist" in g for g in report.guards[0])


def test_hasattr_that_cannot_be_decided_breaks_instead_of_guessing(rng):
    class Weird:
        @property
        def value(self):
            raise RuntimeError("computed lazily")

    w = Weird()

    def f(x):
        try:
            ok = hasattr(w, "value")
        except RuntimeError:
            ok = "raised"
        return x + 1, ok

    x = randn(rng, 2)
    want = f(x)
    got = capture.jit(f)(x)
    assert_same(got, want)


# -- A: namedtuples, tuple subclasses and OrderedDict keep their type ---------------------------------
Point = collections.namedtuple("Point", "x y")


class Pair(typing.NamedTuple):
    first: Tensor
    second: float = 2.0

    def total(self):
        return self.first * self.second

    @property
    def doubled(self):
        return self.first * 2


ORIGIN = Point(0.0, 1.0)


def test_namedtuple_built_in_the_graph_keeps_its_type(check, rng):
    def f(x):
        p = Point(x, x + 1)
        q = p._replace(y=p.x * 3)
        return p, q, q._asdict(), p.y, p[0] + ORIGIN.y, Pair(x).total(), Pair(x, 0.5).doubled

    check(f, lambda i: ((randn(rng, 3),), {}))


def test_namedtuple_arguments_and_globals(check, rng):
    def f(p, pair):
        return Point(p.y, p.x), pair.first * pair.second + ORIGIN.x, pair._fields, len(p), p[::-1]

    check(f, lambda i: ((Point(randn(rng, 2), randn(rng, 2)), Pair(randn(rng, 2), 3.0)), {}))


def test_a_namedtuple_is_rebuilt_with_its_type_after_a_graph_break(rng):
    def f(x):
        p = Point(x + 1, x * 2)
        print("break")  # p is live across the break: rebuilt for the resumed code
        return p, type(p).__name__, p.y - 1

    x = randn(rng, 2)
    want = f(x)
    got = capture.jit(f)(x)
    assert_same(got, want)
    assert type(got[0]) is Point


def test_ordered_dict_keeps_its_type(check, rng):
    def f(x, d):
        made = collections.OrderedDict(b=x, a=x * 2)
        return made, d, type(d).__name__, d["k"] + 1

    check(f, lambda i: ((randn(rng, 2), collections.OrderedDict(k=randn(rng, 2))), {}))


# -- H: a self-referencing container runs eagerly instead of recursing forever ------------------------
def test_self_referencing_containers(rng):
    a = [1]
    a.append(a)
    d = {"x": 1}
    d["self"] = d

    def f(x, a, d):
        return x + len(a) + len(d)

    x = randn(rng, 2)
    assert_same(capture.jit(f)(x, a, d), f(x, a, d))

    def g(x):
        return x + len(a)  # the same list as a global

    assert_same(capture.jit(g)(x), g(x))


# -- D: writes to enclosing-function variables (nonlocal) happen, in the closure and its callees -----
def _counter_pair():
    count = 0
    total = None

    def bump():
        nonlocal count
        count += 1

    def step(x):
        nonlocal total
        bump()  # a callee writing a cell shared with step's own closure
        total = x * 2 if total is None else total + x
        return x + count

    return step, lambda: (count, total)


def test_nonlocal_writes_in_a_jitted_closure_and_its_callees(rng):
    eager_step, eager_state = _counter_pair()
    jit_step, jit_state = _counter_pair()
    jit_step = capture.jit(jit_step)
    for _ in range(3):  # the guard on the cell sees each new count: same numbers every call
        x = randn(rng, 3)
        assert_same(jit_step(x), eager_step(x))
        count, total = jit_state()
        want_count, want_total = eager_state()
        assert count == want_count
        assert_same(total, want_total)


def test_nonlocal_write_across_a_graph_break(rng):
    seen = []

    def make():
        calls = 0

        def f(x):
            nonlocal calls
            calls += 1
            y = x * 2
            seen.append(calls)  # list.append of a closure-held list: a side effect
            print("break")
            calls += 10
            return y + calls

        return f, lambda: calls

    f, calls = make()
    g, g_calls = make()
    g = capture.jit(g)
    for _ in range(2):
        x = randn(rng, 2)
        assert_same(g(x), f(x))
        assert g_calls() == calls()


# -- J: zip/enumerate/map/filter are iterators: what a loop leaves unconsumed stays ---------------------
def test_builtin_iterators_are_consumed_like_python(check, rng):
    def f(x):
        pairs = zip([1, 2, 3], [4, 5, 6])
        for a, b in pairs:
            x = x + a * b
            if a == 2:
                break
        numbered = enumerate([7, 8, 9], start=1)
        first = next(numbered)
        doubled = map(lambda v: v * 2, [1, 2, 3])
        head = next(doubled)
        odd = filter(lambda v: v % 2, range(6))
        evens = list(filter(None, [0, 1, 0, 2]))
        return x, list(pairs), first, list(numbered), head, list(doubled), list(odd), evens, type(pairs).__name__

    check(f, lambda i: ((randn(rng, 3),), {}))


def test_iterators_over_iterators_pull_lazily(check, rng):
    def f(xs):
        source = iter(xs)
        for i, x in enumerate(source):  # enumerate pulls from `source` one item at a time
            if i == 1:
                break
        rest = list(source)
        squares = map(lambda a, b: a * b, iter(xs), xs)
        return rest, next(squares), list(zip(iter(rest), [0])), [t * 2 for t in map(ops.abs, xs)]

    check(f, lambda i: (([randn(rng, 2) for _ in range(4)],), {}))


def test_a_lazy_iterator_live_at_a_break_runs_the_frame_eagerly(rng):
    def f(xs):
        pairs = enumerate(iter(xs))
        k, first = next(pairs)
        print("break")
        return [x + k for _, x in pairs], first

    xs = [randn(rng, 2) for _ in range(3)]
    assert_same(capture.jit(f)(xs), f(xs))


# -- G: a container the frame received comes back as the same object -----------------------------------
def test_returned_arguments_keep_their_identity(rng):
    def mutate(x, d, items):
        d["k"] = 1  # mutating outside containers breaks the graph; identity must survive it
        items.append(x)
        return d, items, x + 1

    def untouched(x, t, d):
        return t, d, x * 2

    x = randn(rng, 2)
    d, items = {"a": 1}, [1]
    got = capture.jit(mutate)(x, d, items)
    assert got[0] is d and got[1] is items and d == {"a": 1, "k": 1} and len(items) == 2
    jf = capture.jit(untouched)
    for _ in range(2):  # compiled and cached: still the caller's own objects
        t, d = (x, 3), {"b": x}
        got = jf(x, t, d)
        assert got[0] is t and got[1] is d
        assert_same(got[2], x * 2)


# -- K: what used to be internal capture errors --------------------------------------------------------
class AnswersEverything:
    def __getattr__(self, name):
        return 3  # even for __name__: capture must not trip over it


ANSWERS = AnswersEverything()


class Suppress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def test_objects_with_a_catch_all_getattr(check, rng):
    def f(x):
        return x + ANSWERS.foo + ANSWERS.__name__

    check(f, lambda i: ((randn(rng, 2),), {}))


def test_a_sequence_operand_raises_the_same_error_eagerly_and_captured(rng):
    def f(x):
        return (1, 2) / x

    x = randn(rng, 2)
    errors = []
    for run in (f, capture.jit(f)):
        try:
            run(x)
        except TypeError as e:
            errors.append(str(e).splitlines()[0])
    assert len(errors) == 2 and errors[0] == errors[1] and "unsupported operand tuple" in errors[0]


def test_with_suppressing_a_raise(rng):
    def f(x):
        with Suppress():
            raise ValueError("swallowed by __exit__")
        return x + 1

    x = randn(rng, 2)
    assert_same(capture.jit(f)(x), f(x))


def test_locals_eval_and_exec_see_every_local(rng):
    def f(x):
        y = x + 1
        names = locals()
        z = eval("y * 2")  # y is not otherwise live after this line
        return names["y"] * 3 + z, sorted(names)

    class Net(ms.nn.Cell):
        def construct(self, x):
            hidden = x * 2
            return eval("hidden + 1"), sorted(locals())

    x = randn(rng, 3)
    assert_same(capture.jit(f)(x), f(x))
    net = Net()
    want = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert_same(net(x), want)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    report = capture.explain(f)(x)
    assert any("reads the frame's local variables" in str(b) for b in report.breaks)


# -- I: reads after an in-place parameter update see the new value, inside one graph ------------------
class Updating(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(Tensor(np.ones(2, np.float32)), name="p")

    def construct(self, y):
        before = self.p * 1
        ops.assign(self.p, y)
        after_assign = self.p + 0
        ops.assign_add(self.p, y)
        ops.AssignSub()(self.p, y * 0.5)
        return before, after_assign, self.p * 1


def _in_graph_mode(cell, *args):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return cell(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_reads_after_assign_see_the_new_value(rng):
    eager, graph = Updating(), Updating()
    for _ in range(2):
        y = randn(rng, 2)
        want = eager(y)
        got = _in_graph_mode(graph, y)
        assert_same(got, want)
        assert_same(graph.p * 1, eager.p * 1)
        np.testing.assert_allclose(want[2].asnumpy(), y.asnumpy() * 1.5, rtol=1e-6)
    assert capture.explain(Updating().construct)(y).graph_break_count == 0


class UpdatingThroughAName(ms.nn.Cell):
    """The Parameter read through a local name and a helper's argument taken before the update,
    and returned: in eager all of them are the Parameter object itself."""

    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="p")

    @staticmethod
    def bump(w, y):
        ops.assign(w, w + y)
        return w * 2.0

    def construct(self, y):
        w = self.p
        doubled = self.bump(w, y)
        same = ops.assign(w, w - 0.5)
        return doubled, w + 0, same, w


def test_a_name_taken_before_an_update_reads_the_new_value(rng):
    eager, graph = UpdatingThroughAName(), UpdatingThroughAName()
    for _ in range(3):
        y = randn(rng, 2)
        want = eager(y)
        got = _in_graph_mode(graph, y)
        assert got[2] is graph.p and got[3] is graph.p and want[2] is eager.p
        assert_same(got[:2], want[:2])
        assert_same(graph.p * 1, eager.p * 1)
    assert capture.explain(UpdatingThroughAName().construct)(y).graph_break_count == 0


def test_what_assign_returns_is_the_parameter():
    """``ops.assign`` returns its Parameter: ``is`` and ``isinstance`` say so under capture too,
    and an item assignment through that name writes the Parameter (eagerly, at a break)."""
    w = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="w")

    def body(y):
        r = ops.assign(w, w + y)
        flags = (r is w, isinstance(r, ms.Parameter))
        r[0] = 5.0
        return flags, w * 1

    def reset():
        w.set_data(Tensor(np.zeros(2, np.float32)))
    check_like_eager(body, lambda i: ((Tensor(np.full(2, i + 1.0, np.float32)),), {}),
                     state=lambda: w.asnumpy().copy(), reset=reset, breaks=None)


# -- a function made by the frame over the captured function's own free variables ------------------
def test_returned_closure_over_a_free_variable_of_the_frame(rng):
    scale = 3.0

    def f(x):
        def times(y):
            return y * scale
        return x + 1, times

    jitted = capture.jit(f)
    for _ in range(2):  # compiled, then a cache hit
        x = randn(rng, 2)
        want, got = f(x), jitted(x)
        assert_same(got[0], want[0])
        assert got[1].__closure__[0] is want[1].__closure__[0]  # the same cell: later writes are seen
        assert_same(got[1](x), want[1](x))
    assert capture.explain(f)(x).graph_break_count == 0


# -- helpers traced through a pure-Python polyfill stay the original objects as values -------------
class Holder:
    pass


def test_a_polyfilled_helper_is_the_original_object_as_a_value(rng):
    def f(x, holder):
        holder.fn = functools.reduce  # stored outside the frame (a side effect replayed after it)
        total = functools.reduce(operator.add, [x, x, x])  # called: the polyfill is traced
        return total, functools.reduce, itertools.chain, isinstance(functools.reduce, types.FunctionType)

    jitted = capture.jit(f)
    for _ in range(2):
        x, eager_holder, holder = randn(rng, 2), Holder(), Holder()
        want, got = f(x, eager_holder), jitted(x, holder)
        assert_same(got[0], want[0])
        assert got[1:] == want[1:] == (functools.reduce, itertools.chain, False)
        assert got[1] is functools.reduce and got[2] is itertools.chain and holder.fn is functools.reduce
    assert capture.explain(f)(x, Holder()).graph_break_count == 0


def test_a_module_attribute_reassigned_between_calls_is_seen(rng, tmp_path, monkeypatch):
    """``x * config.SCALE``: a user module's attribute is guarded like a global, so a new value
    recompiles instead of reusing the old one baked into the graph."""
    import importlib
    import sys
    (tmp_path / "issue9_config.py").write_text("SCALE = 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    config = importlib.import_module("issue9_config")
    try:
        def f(x):
            return x * config.SCALE

        jitted = capture.jit(f)
        x = randn(rng, 3)
        np.testing.assert_allclose(jitted(x).asnumpy(), x.asnumpy() * 2.0, rtol=1e-6)
        config.SCALE = 5.0
        np.testing.assert_allclose(jitted(x).asnumpy(), x.asnumpy() * 5.0, rtol=1e-6)
        np.testing.assert_allclose(jitted(x).asnumpy(), f(x).asnumpy(), rtol=1e-6)
    finally:
        sys.modules.pop("issue9_config", None)
