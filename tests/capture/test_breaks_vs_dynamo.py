"""Graph-break counts of the constructs issue 33 named, against TorchDynamo's, in one table.

Each construct runs once eagerly and once under ``capture.jit``; the results must agree (values,
printed text, the event log) and the number of graph breaks must be at most TorchDynamo's for the
same construct. TorchDynamo's counts were measured with torch 2.13 (``torch.compile(fn,
backend="eager")``, the ``graph_break`` counters, same functions with ``torch.sin`` for ``ops.sin``);
where torch is installed, ``test_dynamo_counts_are_what_torch_measures`` measures them again.
Two constructs TorchDynamo does not count as breaks because it compiles no graph at all for the
frame, which runs eagerly: an exception that escapes the frame (``Observed exception``) and
``except*`` (no handler for CHECK_EG_MATCH). Capture compiles what precedes them and counts one
break. Running the module prints the table for a closing note::

    python tests/capture/test_breaks_vs_dynamo.py
"""
from __future__ import annotations

import contextlib
import io
import sys
import types

import numpy as np
import pytest

import capture
from capture.explain import recording
from capture_helpers import assert_same
from runtime import Tensor, ops


def _x():
    return Tensor(np.array([1.0, -2.0, 3.0], np.float32))


class Recording:
    """A user context manager that records entry and exit (and may swallow)."""

    def __init__(self, log, swallow=False):
        self.log, self.swallow = log, swallow

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(f"exit {kind.__name__ if kind else None}")
        return self.swallow


@contextlib.contextmanager
def scoped(log, tag):
    log.append(f"open {tag}")
    try:
        yield tag
    finally:
        log.append(f"close {tag}")


def steps(t, n):
    for i in range(n):
        yield t * (i + 1)


# -- the constructs ----------------------------------------------------------------------------------
def raise_caught(x, log):
    try:
        y = ops.sin(x)
        raise ValueError("inside")
    except ValueError as e:
        log.append(str(e))
        y = y * 2
    return y + 1


def raise_from_caught(x, log):
    try:
        try:
            {}["missing"]
        except KeyError as e:
            raise RuntimeError("wrapped") from e
    except RuntimeError as e:
        log.append(type(e.__cause__).__name__)
    return ops.cos(x)


def reraise_in_finally(x, log):
    y = x * 3
    try:
        try:
            raise IndexError("first")
        finally:
            log.append("finally")
    except IndexError:
        y = y - 1
    return y


def try_else_finally(x, log):
    try:
        y = x + 1
    except ZeroDivisionError:
        y = x
    else:
        log.append("else")
        y = y * 2
    finally:
        log.append("finally")
    return y


def with_user_manager_swallowing(x, log):
    y = x
    with Recording(log, swallow=True):
        y = x * 2
        raise KeyError("swallowed")
    return y + 1


def with_nullcontext(x, log):
    with contextlib.nullcontext(x) as v:
        return v * 2


def with_suppress(x, log):
    y = x
    with contextlib.suppress(ZeroDivisionError):
        y = y * 3
        1 // 0
    return y


def with_redirect_stdout_to_stringio(x, log):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("hidden")
    log.append(buf.getvalue())
    return x - 1


def with_generator_manager(x, log):
    with scoped(log, "a") as tag:
        y = x * 2
        log.append(tag)
    return y


def next_on_generator(x, log):
    g = steps(x, 3)
    return next(g) + next(g)


def generator_expression(x, log):
    return sum((x * c for c in (0.5, 1.5)), x)


def send_into_generator(x, log):
    def doubler():
        v = yield
        yield v * 2

    g = doubler()
    next(g)
    return g.send(x)


def dict_views(x, log):
    d = {"a": 1, "b": 2}
    common = d.keys() & {"a", "c"}
    return x * len(common), sorted(d.items())


def raise_escaping_the_frame(x, log):
    y = ops.sin(x)
    log.append("before")
    if x.shape[0] == 3:
        raise ValueError("escapes")
    return y


def except_star(x, log):
    y = ops.sin(x)
    try:
        raise ExceptionGroup("group", [ValueError("a"), KeyError("b")])
    except* ValueError as group:
        log.append(repr(group.exceptions))
        y = y * 2
    except* KeyError:
        log.append("key")
    return y + 1


def print_to_terminal(x, log):
    y = x * 2
    print("step")
    return y + 1


#: construct -> (function, TorchDynamo's graph breaks); None: TorchDynamo compiles no graph (the
#: frame runs eagerly), where capture compiles what precedes the construct
CONSTRUCTS = {
    "raise caught in the frame": (raise_caught, 0),
    "raise ... from, caught": (raise_from_caught, 0),
    "re-raise through finally": (reraise_in_finally, 0),
    "try/except/else/finally": (try_else_finally, 0),
    "with a user manager that swallows": (with_user_manager_swallowing, 0),
    "contextlib.nullcontext": (with_nullcontext, 0),
    "contextlib.suppress": (with_suppress, 0),
    "redirect_stdout into a StringIO": (with_redirect_stdout_to_stringio, 2),
    "@contextmanager manager": (with_generator_manager, 0),
    "next() on a generator": (next_on_generator, 0),
    "generator expression": (generator_expression, 0),
    "send() into a generator": (send_into_generator, 0),
    "dict views with set algebra": (dict_views, 0),
    "print to the terminal": (print_to_terminal, 1),
    "raise escaping the frame": (raise_escaping_the_frame, None),
    "except* (exception groups)": (except_star, None),
}


def _run(fn, capture_it):
    log, out = [], io.StringIO()
    real = sys.stdout
    sys.stdout = out
    try:
        with recording() as report:
            try:
                result = (capture.jit(fn) if capture_it else fn)(_x(), log)
            except Exception as e:  # an escaping exception is part of the result
                result = (type(e), str(e))
    finally:
        sys.stdout = real
    return result, log, out.getvalue(), report


def breaks_of(name):
    """(our breaks, TorchDynamo's) for one construct, after checking it means what eager means."""
    fn, dynamo = CONSTRUCTS[name]
    capture.reset()
    want, want_log, want_out, _ = _run(fn, False)
    got, got_log, got_out, report = _run(fn, True)
    assert not [b for b in report.breaks if b.internal], report.breaks
    assert_same(got, want)
    assert (got_log, got_out) == (want_log, want_out)
    return len(report.break_reasons), dynamo


@pytest.mark.parametrize("name", list(CONSTRUCTS))
def test_breaks_no_more_than_dynamo(name):
    ours, dynamo = breaks_of(name)
    if dynamo is None:  # TorchDynamo runs the frame eagerly; capture compiles up to the construct
        assert ours == 1, f"{name}: {ours} breaks"
    else:
        assert ours <= dynamo, f"{name}: {ours} breaks, TorchDynamo {dynamo}"


def _dynamo_breaks(fn):
    """TorchDynamo's graph breaks for ``fn`` (None where it gave the whole frame up, which then
    runs eagerly: an exception that escapes it is ``Observed exception``, ``except*``'s
    CHECK_EG_MATCH a ``Missing bytecode handler``)."""
    import torch
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    real = sys.stdout
    sys.stdout = io.StringIO()
    try:
        torch.compile(fn, backend="eager")(torch.tensor([1.0, -2.0, 3.0]), [])
    except ValueError:
        pass
    finally:
        sys.stdout = real
    if counters["unimplemented"] and not counters["graph_break"]:
        return None
    return sum(counters["graph_break"].values())


def test_dynamo_counts_are_what_torch_measures(monkeypatch):
    """The TorchDynamo column is measured, not remembered (where torch is installed)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(sys.modules[__name__], "ops", types.SimpleNamespace(sin=torch.sin, cos=torch.cos))
    measured = {name: _dynamo_breaks(fn) for name, (fn, _) in CONSTRUCTS.items()}
    assert measured == {name: dynamo for name, (_, dynamo) in CONSTRUCTS.items()}


def test_the_table_can_fail():
    """A construct that must break is counted: printing to the terminal is one break here too."""
    ours, _ = breaks_of("print to the terminal")
    assert ours == 1


if __name__ == "__main__":
    print(f"Python {sys.version.split()[0]}\n")
    print("| construct | ours | TorchDynamo |\n|---|---|---|")
    for name in CONSTRUCTS:
        ours, dynamo = breaks_of(name)
        print(f"| {name} | {ours} | {'no graph (frame runs eagerly)' if dynamo is None else dynamo} |")
