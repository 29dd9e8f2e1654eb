"""When capture can't: the graphable parts before and after the break are graphs, the breaking
instruction runs eagerly (PyNative results), ``explain`` reports the break (reason, file, line,
source, hint), and ``fullgraph=True`` raises naming the construct and line."""
import os

import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import assert_same, line_of, randn
from runtime import Tensor, nn, ops

HERE = os.path.abspath(__file__)


def f_numpy_call(x):
    y = x * 2
    z = Tensor(np.tanh(y.asnumpy()))  # BREAK:asnumpy
    return z + 1


def f_opaque_call(x):
    y = x * 2
    z = Tensor(np.maximum(y, 0.0))  # BREAK:opaque
    return z + 1


def f_tensor_branch(x):
    y = x * 2
    if y.sum() > 0:  # BREAK:branch
        return y + 1
    return y - 1


def f_print(x):
    y = x * 2
    print("y is", y)  # BREAK:print
    return y + 1


def f_item(x):
    y = x.sum()
    k = float(y.item())  # BREAK:item
    return x * k


def f_while_on_tensor(x):
    while (x.sum() < 10):  # BREAK:while
        x = x + 1
    return x


CASES = [
    (f_numpy_call, "BREAK:asnumpy", "asnumpy()"),
    (f_opaque_call, "BREAK:opaque", "numpy.maximum"),
    (f_tensor_branch, "BREAK:branch", "branch on a tensor value"),
    (f_print, "BREAK:print", "print()"),
    (f_item, "BREAK:item", "item()"),
    (f_while_on_tensor, "BREAK:while", "tensor value"),
]
# graphs of the split frame (prefix before the break + what the resume functions capture)
GRAPHS = {"BREAK:asnumpy": 2, "BREAK:opaque": 2, "BREAK:branch": 2, "BREAK:print": 2, "BREAK:item": 2,
          "BREAK:while": None}  # 2 or 3: 3.12+ compile the loop test twice (top and bottom)


@pytest.mark.parametrize("fn,marker,reason", CASES, ids=[c[1] for c in CASES])
def test_break_splits_the_frame_and_is_explained(fn, marker, reason, rng, capsys):
    lineno, source = line_of(marker, fn)
    # correct results on several inputs (both branches of the data-dependent if)
    jitted = capture.jit(fn)
    for i in range(3):
        x = randn(rng, 3) + (5.0 if i % 2 else -5.0)
        assert_same(jitted(x), fn(x))
    capsys.readouterr()
    report = capture.explain(fn)(randn(rng, 3) - 5.0)
    if GRAPHS[marker] is None:
        assert report.graph_count in (2, 3), report.ops_per_graph
    else:
        assert report.graph_count == GRAPHS[marker], report.ops_per_graph
    assert report.graph_break_count == 1
    (b,) = report.break_reasons
    assert reason in b.reason, b.reason
    assert os.path.abspath(b.filename) == HERE
    assert b.lineno == lineno
    assert b.source == source
    assert b.hint
    text = str(report)
    assert f"{HERE}:{lineno}" in text and source in text and reason in text
    d = report.to_dict()["break_reasons"][0]
    assert d["lineno"] == lineno and d["source"] == source and reason in d["reason"]


@pytest.mark.parametrize("fn,marker,reason", CASES, ids=[c[1] for c in CASES])
def test_fullgraph_raises_naming_the_construct_and_line(fn, marker, reason, rng):
    lineno, source = line_of(marker, fn)
    jitted = capture.jit(fn, fullgraph=True)
    with pytest.raises(capture.FullGraphError) as info:
        jitted(randn(rng, 3))
    msg = str(info.value)
    assert reason in msg
    assert f"{HERE}:{lineno}" in msg
    assert source in msg
    assert fn.__name__ in msg


def test_break_in_a_frame_is_cached(rng):
    """After a break the frame's entry (prefix + resume) is cached: later calls don't retranslate."""
    with recording() as report:
        f = capture.jit(f_print)
        for _ in range(3):
            f(randn(rng, 3))
    assert len(report.breaks) == 1


class PrintingInner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)

    def construct(self, x):
        y = self.fc(x)
        print(y)  # BREAK:inner-print
        return y


class OuterNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pre = nn.Dense(3, 3)
        self.inner = PrintingInner()
        self.post = nn.Dense(3, 2)

    def construct(self, x):
        return self.post(self.inner(ops.relu(self.pre(x))))


def test_break_in_a_sub_cell_reports_the_inner_line_and_other_cells_still_compile(rng, capsys):
    net = OuterNet()
    lineno, source = line_of("BREAK:inner-print", PrintingInner)
    ms.set_context(mode=ms.GRAPH_MODE)
    report = capture.explain(net)(randn(rng, 2, 3))
    (b,) = report.break_reasons
    assert b.lineno == lineno and b.source == source and "print()" in b.reason
    assert b.frame == "OuterNet.construct"
    # the outer frame is split at the call of inner (pre+relu | inner eagerly | post); in GRAPH_MODE
    # the eager call of inner is captured on its own (fc | print eagerly | return)
    assert report.graph_count == 3
    for _ in range(3):
        x = randn(rng, 2, 3)
        ms.set_context(mode=ms.GRAPH_MODE)
        got = net(x)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        assert_same(got, net(x))
    out = capsys.readouterr().out
    assert out.count("[[") == 1 + 3 * 2  # the print really ran on every call (explain + 3 x 2)


def test_graph_mode_cell_with_tensor_branch_is_correct_both_ways(rng):
    class Net(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                return x * 2
            return -x

    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    for sign in (1.0, -1.0, 1.0):
        x = Tensor(np.abs(rng.standard_normal(3)).astype(np.float32) * sign)
        want = net.construct(x)
        assert_same(net(x), want)


def test_unsupported_syntax_breaks_cleanly(rng):
    def with_block(x):
        import contextlib
        with contextlib.nullcontext():
            y = x + 1
        return y

    def raising(x):
        if x.shape[0] == 3:
            raise ValueError("three")
        return x

    x = randn(rng, 3)
    report = capture.explain(with_block)(x)
    # a `with` on a Python context manager is traced (issue 33: no break, as in TorchDynamo)
    assert report.graph_break_count == 0, [str(b) for b in report.breaks]
    assert_same(report.result, with_block(x))
    with pytest.raises(ValueError, match="three"):
        capture.jit(raising)(x)
    with recording() as report:
        y = randn(rng, 2)
        assert_same(capture.jit(raising)(y), y)  # the other shape compiles normally
    assert report.graph_count == 1


def test_mutating_outside_state_is_replayed_without_a_break(rng):
    log = []
    config = {"calls": 0}

    def f(x):
        log.append(1)
        return x * len(log)

    def g(x):
        config["calls"] = config["calls"] + 1
        return x * config["calls"]

    for fn in (f, g):
        report = capture.explain(fn)(randn(rng, 2))
        assert report.graph_break_count == 0
    assert log == [1] and config["calls"] == 1  # the graph's side effects happened once


def test_creating_objects_in_construct_breaks(rng):
    class Net(nn.Cell):
        def construct(self, x):
            layer = nn.Dense(3, 3)
            return layer(x)

    report = capture.explain(Net())(randn(rng, 2, 3))
    assert report.graph_break_count == 1
    # (a Cell with Parameters: its weights are drawn on every call eagerly; one without is traced)
    assert "creating a Dense (a Cell with Parameters)" in report.break_reasons[0].reason


def test_try_except_is_traced_when_nothing_raises(rng, check):
    def f(x):
        try:
            y = x + 1
        except ValueError:
            y = x
        finally:
            z = 2.0
        return y * z

    check(f, lambda i: ((randn(rng, 3),), {}))


def test_user_error_inside_try_is_handled_by_the_users_except(rng):
    def f(x, b):
        try:
            y = ops.bias_add(x, b)
        except ValueError:
            y = x * 10
        return y

    x, b = randn(rng, 3, 8), randn(rng, 4)
    report = capture.explain(f)(x, b)
    assert_same(report.result, x * 10)
    assert "inside a try/with block" in report.break_reasons[0].reason


def test_framework_print_breaks_instead_of_printing_a_symbol(rng, capsys):
    printer = ops.Print()

    def f(x):
        ops.Print()("a", x)  # BREAK:ops-print
        return x + 1

    def g(x):
        printer(x)
        ops.print_(x)
        return x

    lineno, source = line_of("BREAK:ops-print", f)
    report = capture.explain(f)(randn(rng, 2))
    (b,) = report.break_reasons
    assert "ops.Print" in b.reason and b.lineno == lineno
    assert capture.explain(g)(randn(rng, 2)).graph_break_count == 2  # two prints, two lines
    out = capsys.readouterr().out
    assert "SymTensor" not in out and out.count("[") >= 3  # printed real values, eagerly


@pytest.mark.parametrize("method", ["nonzero", "masked_select", "unique_consecutive", "bincount"])
def test_a_data_dependent_tensor_method_breaks_the_graph_and_runs_eagerly(method):
    """``x.nonzero()`` (a method of the traced tensor, not ``ops.nonzero(x)``): the graph breaks
    before the call and the resumed code calls the method of the *rebuilt* tensor (it called the
    symbolic stand-in's, whose op raised capture's GraphBreak out of the user's call)."""
    x = Tensor(np.array([[0, 1], [2, 0]], np.float32))
    ints = Tensor(np.array([1, 1, 3, 0, 3], np.int32))
    calls = {"nonzero": lambda x, i: x.nonzero() * 2, "masked_select": lambda x, i: x.masked_select(x > 0) + 1,
             "unique_consecutive": lambda x, i: i.unique_consecutive(), "bincount": lambda x, i: i.bincount()}
    fn = calls[method]
    want = fn(x, ints).asnumpy()
    np.testing.assert_array_equal(ms.jit(fn)(x, ints).asnumpy(), want)
    report = capture.explain(fn)(x, ints)
    assert report.graph_break_count == 1
    np.testing.assert_array_equal(report.result.asnumpy(), want)
