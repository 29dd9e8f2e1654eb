"""Graph breaks that resume, and coverage of the Python language.

Each construct is either captured (one graph, no break) or broken cleanly: the part before the
break is a graph, the breaking instruction runs eagerly, capture resumes after it; explain()
reports the break once with the user's line. Every case is compared with PyNative on 3 inputs
(results and printed output)."""
import contextlib
import dataclasses
import functools
import math
import os

import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import assert_same, line_of, randn
from runtime import Parameter, Tensor, nn, ops

HERE = os.path.abspath(__file__)
SCALE = 2.0


def _helper(a, b=1.0, *rest, c=0.5, **kw):
    out = a * b + c
    for r in rest:
        out = out + r
    return out * kw.get("mul", 1.0)


def _gen(x, n):
    for i in range(n):
        yield x * (i + 1)


def _fact(n):
    return 1 if n <= 1 else n * _fact(n - 1)


def _rec(x, n):
    return x if n == 0 else _rec(x * 0.5 + 1.0, n - 1)


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float = 1.5
    layers: int = 2


CFG = Config()


class Plain:
    def __init__(self):
        self.factor = 3.0

    def apply(self, t):
        return t * self.factor


PLAIN = Plain()


# -- constructs that are captured whole ------------------------------------------------------------
def c_closure(x):
    k = 2.0

    def inner(t):
        return t * k

    def outer(t):
        return inner(t) + k
    return outer(x)


def c_calls(x):
    return _helper(x) + _helper(x, 2.0, x, x, c=1.0, mul=0.5) + _helper(*(x, 3.0), **{"c": 2.0})


def c_starred(x):
    a, *rest = [x, x * 2, x * 3]
    first, (second, third) = x, (x + 1, x + 2)
    return a + sum(rest, x) + first * second - third


def c_comprehensions(x):
    squares = [x * i for i in range(3)]
    table = {f"k{i}": x + i for i in range(2)}
    sizes = {len(v.shape) for v in squares}
    return squares[2] + table["k1"] * len(sizes)


def c_generators(x):
    total = sum(v * 2 for v in (x, x + 1))
    return total + sum(_gen(x, 3))


def c_try(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    finally:
        z = 2.0
    return y * z


def c_assert(x):
    assert x.shape[0] == 3, "needs 3 elements"
    return x * 2


def c_lambda(x):
    f = lambda t, s=2.0: t * s + 1
    return f(x) + (lambda: x)()


def c_partial(x):
    p = functools.partial(_helper, b=3.0)
    return p(x, c=1.0)


def c_math(x):
    return x * math.sqrt(4.0) + math.cos(0.0) + math.floor(2.7) * math.pi


def c_fstring(x):
    tag = f"{x.shape[0]:d}-{SCALE!r}-{'a' * 2}"
    return x * len(tag)


def c_dataclass(x):
    out = x
    for _ in range(CFG.layers):
        out = out * CFG.scale
    return out


def c_recursion(x):
    return _rec(x, 3) * _fact(4)


def c_chained(x):
    k = x.shape[0]
    if 0 < k <= 3 < 10:
        return x + 1
    return x - 1


def c_global(x):
    return x * SCALE


def c_plain_method(x):
    return PLAIN.apply(x) + PLAIN.factor


CAPTURED = [c_closure, c_calls, c_starred, c_comprehensions, c_generators, c_try, c_assert, c_lambda,
            c_partial, c_math, c_fstring, c_dataclass, c_recursion, c_chained, c_global, c_plain_method]


def _run_both(fn, rng, capsys, calls=3, make=None, kwargs=None):
    """(report of the first captured call); asserts eager-equal results/prints on ``calls`` inputs."""
    make = make or (lambda i: (randn(rng, 3) + (2.0 if i % 2 else -2.0),))
    report = None
    for i in range(calls):
        args = make(i)
        kw = kwargs(args) if kwargs else {}
        want = fn(*args, **kw)
        want_out = capsys.readouterr().out
        if i == 0:
            report = capture.explain(fn)(*args, **kw)
            got = report.result
        else:
            got = capture.jit(fn)(*args, **kw)
        got_out = capsys.readouterr().out
        assert_same(got, want)
        assert got_out == want_out, (got_out, want_out)
    return report


@pytest.mark.parametrize("fn", CAPTURED, ids=[f.__name__ for f in CAPTURED])
def test_construct_is_captured_whole(fn, rng, capsys):
    report = _run_both(fn, rng, capsys)
    assert report.graph_break_count == 0, [str(b) for b in report.break_reasons]
    assert report.graph_count == 1


class WithProperty(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

    @property
    def doubled(self):
        return self.w * 2

    def construct(self, x):
        return x + self.doubled


def test_property_on_a_cell_is_captured(rng):
    net = WithProperty()
    report = capture.explain(net)(randn(rng, 3))
    assert report.graph_count == 1 and report.graph_break_count == 0
    for _ in range(3):
        x = randn(rng, 3)
        assert_same(capture.jit(net.construct)(x), net.construct(x))


# -- constructs that break and resume --------------------------------------------------------------
def b_print(x):
    y = x * 2
    print("y =", y, "n =", 3)  # RESUME:print
    return y + 1


def b_branch(x):
    y = x * 2
    if y.sum() > 0:  # RESUME:branch
        z = y + 1
    else:
        z = y - 1
    return z * 3


def b_while(x):
    n = 0
    while x.sum() < 4.0 and n < 5:  # RESUME:while
        x = x + 1.0
        n += 1
    return x * 2, n


def b_numpy(x):
    y = x * 2
    a = y.asnumpy()  # RESUME:numpy
    b = np.tanh(a) + a.mean()
    return Tensor(b.astype(np.float32)) + y


def b_fstring_of_tensor(x):
    y = x + 1
    msg = f"value {y}"  # RESUME:fstring
    return y * len(msg) / len(msg)


def b_raise_in_try(x):
    y = x * 2
    try:
        if x.shape[0] == 3:
            raise ValueError("three")  # RESUME:raise
        y = y + 100
    except ValueError:
        y = y - 1
    return y * 3


def b_assert_on_tensor(x):
    y = x * 2
    assert (y * y).sum() >= 0, "negative"  # RESUME:assert
    return y + 1


def b_with(x):
    y = x * 2
    with contextlib.nullcontext():  # RESUME:with
        y = y + 1
    return y * 3


_NULL = contextlib.nullcontext()


def b_print_inside_with(x):
    y = x * 2
    with _NULL:
        print("inside", y)  # RESUME:with-print
        y = y + 1
    return y * 3


def _printing_helper(t):
    t = t + 1
    print("helper", t)  # RESUME:helper (reported at the innermost user line)
    return t * 2


def b_inlined_helper(x):
    y = x * 3
    z = _printing_helper(y)  # the whole call runs eagerly, capture resumes after it
    return z - y


def b_loop_prints(x):
    acc = []
    for i in range(3):
        x = x * 0.5 + i
        print("step", i, x)  # RESUME:loop
        acc.append(x)
    return acc


BROKEN = [
    # fn, marker, reason fragment, graphs (None: version dependent)
    (b_print, "RESUME:print", "print()", 2),
    (b_branch, "RESUME:branch", "tensor value", 2),
    (b_while, "RESUME:while", "tensor value", None),
    (b_numpy, "RESUME:numpy", "asnumpy()", 2),
    (b_fstring_of_tensor, "RESUME:fstring", "formatting a tensor", 2),
    (b_assert_on_tensor, "RESUME:assert", "tensor value", 2),
    (b_print_inside_with, "RESUME:with-print", "print()", 1),
    (b_inlined_helper, "RESUME:helper", "print()", 2),
    (b_loop_prints, "RESUME:loop", "print()", None),
]


#: a raise caught in the frame and a `with` were breaks before issue 33; traced now (as in TorchDynamo)
NO_LONGER_BROKEN = [b_raise_in_try, b_with]


@pytest.mark.parametrize("fn", NO_LONGER_BROKEN, ids=[f.__name__ for f in NO_LONGER_BROKEN])
def test_raise_and_with_are_traced_without_a_break(fn, rng, capsys):
    report = _run_both(fn, rng, capsys)
    assert report.graph_break_count == 0, [str(b) for b in report.break_reasons]
    assert report.graph_count == 1


@pytest.mark.parametrize("fn,marker,reason,graphs", BROKEN, ids=[c[1] for c in BROKEN])
def test_break_resumes_with_eager_results(fn, marker, reason, graphs, rng, capsys):
    report = _run_both(fn, rng, capsys)
    lineno, source = line_of(marker, fn)
    assert report.graph_break_count >= 1
    at_marker = [b for b in report.break_reasons if b.lineno == lineno]
    assert len(at_marker) == 1, [str(b) for b in report.break_reasons]  # reported once
    b = at_marker[0]
    assert reason in b.reason, b.reason
    assert (os.path.abspath(b.filename), b.lineno, b.source) == (HERE, lineno, source)
    assert b.hint is not None
    assert not report.resume_fallbacks, report.resume_fallbacks
    if graphs is not None:
        assert report.graph_count == graphs, report.ops_per_graph
    else:
        assert report.graph_count >= 2, report.ops_per_graph
    text = str(report)
    assert f"{HERE}:{lineno}" in text and "Graph break count" in text


def test_one_print_in_the_middle_gives_two_graphs_and_one_break(rng, capsys):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(3, 4)
            self.b = nn.Dense(4, 2)

        def construct(self, x):
            h = ops.relu(self.a(x))
            print("hidden", h.shape)
            return self.b(h)

    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    x = randn(rng, 2, 3)
    report = capture.explain(net)(x)
    assert report.graph_count == 2 and report.graph_break_count == 1
    assert report.ops_per_graph[0] >= 3 and report.ops_per_graph[1] >= 2
    assert "Graph 2" in str(report)
    capsys.readouterr()
    for _ in range(3):
        x = randn(rng, 2, 3)
        ms.set_context(mode=ms.GRAPH_MODE)
        got = net(x)
        got_out = capsys.readouterr().out
        ms.set_context(mode=ms.PYNATIVE_MODE)
        want = net(x)
        assert_same(got, want)
        assert got_out == capsys.readouterr().out == "hidden (2, 4)\n"


def test_both_branches_of_a_tensor_condition_are_graphs(rng):
    backend = capture.CountingBackend()
    f = capture.jit(b_branch, backend=backend)
    for sign in (1.0, -1.0, 1.0, -1.0):
        x = Tensor(np.abs(rng.standard_normal(3)).astype(np.float32) * sign)
        assert_same(f(x), b_branch(x))
    assert backend.graph_count == 3  # prefix, then-branch, else-branch (cached afterwards)


def test_breaks_are_cached(rng):
    f = capture.jit(b_print)
    with recording() as report:
        for _ in range(4):
            f(randn(rng, 3))
    assert len(report.breaks) == 1 and len(report.compiles) == 2


# -- side effects keep their order -------------------------------------------------------------------
class Stateful(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
        self.history = []
        self.stats = {}
        self.calls = 0

    def construct(self, x):
        y = x * self.w
        print("before", y)
        self.history.append(float(y.sum().asnumpy()))
        self.stats["last"] = len(self.history)
        self.calls = self.calls + 1
        ops.assign(self.w, self.w * 0.5)
        print("after", self.calls)
        return y + self.w


def test_side_effects_persist_in_order(rng, capsys):
    eager, graph = Stateful(), Stateful()
    jitted = capture.jit(graph.construct)
    for _ in range(3):
        x = randn(rng, 3)
        want = eager.construct(x)
        want_out = capsys.readouterr().out
        got = jitted(x)
        got_out = capsys.readouterr().out
        assert_same(got, want)
        assert got_out == want_out
    assert graph.history == pytest.approx(eager.history)
    assert graph.stats == eager.stats and graph.calls == eager.calls == 3
    np.testing.assert_allclose(graph.w.asnumpy(), eager.w.asnumpy())


def test_mutation_of_an_argument_list_persists(rng):
    def f(x, log):
        y = x * 2
        log.append(y)
        return y + len(log)

    la, lb = [], []
    jf = capture.jit(f)
    for _ in range(3):
        x = randn(rng, 3)
        assert_same(jf(x, lb), f(x, la))
    assert len(la) == len(lb) == 3
    for a, b in zip(la, lb):
        assert_same(b, a)


def test_closure_written_before_a_break(rng, capsys):
    def make():
        count = 0

        def f(x):
            nonlocal count
            count = count + 1
            print("call", count)
            return x * count
        return f, lambda: count

    fe, ge = make()
    fc, gc = make()
    jf = capture.jit(fc)
    for _ in range(3):
        x = randn(rng, 3)
        want = fe(x)
        want_out = capsys.readouterr().out
        got = jf(x)
        assert capsys.readouterr().out == want_out
        assert_same(got, want)
    assert ge() == gc() == 3


def test_user_exception_after_a_break_propagates(rng):
    def f(x):
        y = x * 2
        print("y", y.shape)
        if x.shape[0] == 3:
            raise KeyError("boom")
        return y

    with pytest.raises(KeyError, match="boom"):
        capture.jit(f)(randn(rng, 3))
    assert_same(capture.jit(f)(randn(rng, 2)).shape, (2,))


def test_fullgraph_still_raises_at_the_first_break(rng):
    with pytest.raises(capture.FullGraphError, match="print"):
        capture.jit(b_print, fullgraph=True)(randn(rng, 3))


def test_frame_hook_resumes_too(rng, capsys):
    if not capture.frame_eval.AVAILABLE:
        pytest.skip("C helper not built")

    class Net(nn.Cell):
        def construct(self, x):
            y = x * 2
            print("mid", y.shape)
            if y.sum() > 0:
                return y + 1
            return y - 1

    net = Net()
    with recording() as report:
        for sign in (1.0, -1.0, 1.0):
            x = Tensor(np.abs(rng.standard_normal(3)).astype(np.float32) * sign)
            want = net.construct(x)
            want_out = capsys.readouterr().out
            with capture.enabled():
                got = net(x)
            assert capsys.readouterr().out == want_out
            assert_same(got, want)
    assert report.compiles and report.breaks  # the hook path splits the frame too


def test_gradients_through_a_split_frame(rng):
    def f(x):
        y = ops.tanh(x * 2)
        print("y", y.shape)
        return (y * y).sum()

    x = randn(rng, 3)
    ge = ms.grad(f)(x)
    gc = ms.grad(capture.jit(f))(x)
    assert_same(gc, ge)


# -- regressions: cells, comprehensions, containers, signatures, super() across a break -------------------
def r_cell_live(x):
    k = 2.0
    g = lambda t: t * k
    y = g(x)
    print("y", y)
    return y * k


def r_closure_live(x):
    k = 2.0

    def inner(t):
        return t * k
    y = inner(x)
    print("y", y)
    k = 3.0
    return inner(y)  # a closure over a cell of the frame is live at the break: the frame runs eagerly


def r_break_in_comprehension(x):
    out = [print("v", v) for v in (x, x + 1)]
    return x * len(out)


def r_containers(x):
    y = x + 1
    z = {"a": y, "b": [y, 2]}
    print("z")
    z["b"].append(3)
    return z["a"] * len(z["b"])


def r_signature(x, *args, scale=2.0, **kw):
    y = x * scale
    print("n", len(args), sorted(kw))
    return y + sum(args) + kw.get("b", 0)


class _Base(nn.Cell):
    def construct(self, x):
        return x * 2


class _Derived(_Base):
    def construct(self, x):
        y = x + 1
        print("derived")
        return super().construct(y) + 1


class _Blocks(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3) for _ in range(3)])

    def construct(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            print("layer", i, x.shape)
        return x


@pytest.mark.parametrize("name", ["cell_live", "closure_live", "comprehension", "containers", "signature",
                                  "super", "cell_list"])
def test_resume_regressions(name, rng, capsys):
    derived, blocks = _Derived(), _Blocks()
    fn, make, graphs = {
        "cell_live": (r_cell_live, None, 2),
        "closure_live": (r_closure_live, None, 0),
        "comprehension": (r_break_in_comprehension, None, 2),
        "containers": (r_containers, None, 2),
        "signature": (r_signature, "sig", 2),
        "super": (derived.construct, None, 2),
        "cell_list": (blocks.construct, None, 3),
    }[name]
    kw_fn = None
    if make == "sig":
        def make(i):
            x = randn(rng, 3)
            return x, x, x * 2
        kw_fn = lambda args: {"b": args[0], "scale": 3.0}
    report = _run_both(fn, rng, capsys, make=make, kwargs=kw_fn)
    assert report.graph_count == graphs, report.ops_per_graph
    assert report.graph_break_count >= 1
    if name == "closure_live":
        assert report.resume_fallbacks and "closure" in report.resume_fallbacks[0][1]
    else:
        assert not report.resume_fallbacks


def _break_in_handler(x):
    y = ops.cos(x)
    try:
        raise KeyError("k")
    except KeyError:
        print("handled", 1)  # (a graph break while the KeyError is being handled)
        y = y + 1
    return ops.sin(y)


def test_a_break_inside_an_except_handler_resumes_at_its_try_statement(capsys):
    """The code before the try statement is a graph; the try statement runs eagerly in a resume
    function (tests/capture/test_handler_resume.py has the differential cases)."""
    x = Tensor(np.array([0.5, 1.0], np.float32))
    want = _break_in_handler(x)
    eager_out = capsys.readouterr().out
    capture.reset()
    jitted = capture.jit(_break_in_handler)
    with recording() as report:
        got = jitted(x)
    assert_same(got, want)
    assert capsys.readouterr().out == eager_out
    assert not [b for b in report.breaks if b.internal]
    assert not report.resume_fallbacks, report.resume_fallbacks
    assert report.graph_count >= 1


def test_a_frame_that_cannot_resume_still_captures_the_frames_it_calls(rng):
    """A jitted train step whose loss cell breaks (masked_select: a data-dependent shape) under
    value_and_grad cannot resume ('a gradient function is live at the break') and runs eagerly; the
    loss cell it calls is still captured around its break, as in GRAPH_MODE (the step used to run all
    eagerly with the frame hook off: no graph at all). Results, gradients and updates equal PyNative."""
    class MaskedLoss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)

        def construct(self, x):
            y = ops.tanh(self.fc(x))
            return ops.masked_select(y, x > 0).sum() * 2

    def make_step():
        ms.set_seed(0)
        net = MaskedLoss()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        grad_fn = ms.value_and_grad(net, None, opt.parameters)

        def step(x):
            loss, grads = grad_fn(x)
            opt(grads)
            return loss
        return net, step

    xs = [randn(rng, 3, 4) for _ in range(3)]
    net_e, step_e = make_step()
    eager = [step_e(x).asnumpy() for x in xs]
    net_c, step_c = make_step()
    jitted = capture.jit(step_c)
    with recording() as report:
        compiled = [jitted(x).asnumpy() for x in xs]
    for a, b in zip(compiled, eager):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for p_c, p_e in zip(net_c.trainable_params(), net_e.trainable_params()):
        np.testing.assert_allclose(p_c.asnumpy(), p_e.asnumpy(), rtol=1e-5, atol=1e-6)
    assert report.resume_fallbacks and "gradient function" in report.resume_fallbacks[0][1]
    assert any("MaskedLoss.construct" in c.frame for c in report.compiles), [c.frame for c in report.compiles]
    assert report.compiled_calls >= len(xs)
    assert not capture.frame_eval.is_enabled()  # (capture without the frame hook, as before)
    assert ms.context.CELL_CAPTURE.depth == 0


def _depth(n):
    return 0 if n == 0 else 1 + _depth(n - 1)


def r_closure_live_then_recursion(x):
    k = 2.0

    def inner(t):
        return t * k
    y = inner(x)
    print("y", y.shape)
    k = 3.0  # a closure over a cell of the frame is live at the break: the frame runs eagerly
    return inner(y) + _depth(900)


def test_a_frame_that_cannot_resume_keeps_plain_pythons_recursion_depth(capsys):
    """The eager run of a frame that cannot resume captures the Cells it calls without the frame hook,
    whose installation would make CPython 3.12 stop at ~750 nested Python calls (cpython#105003):
    a recursion eager code runs must run there too."""
    x = Tensor(np.ones(3, np.float32))
    with recording() as report:
        out = capture.jit(r_closure_live_then_recursion)(x)
    assert report.resume_fallbacks
    np.testing.assert_allclose(out.asnumpy(), r_closure_live_then_recursion(x).asnumpy())
