"""Differential fuzzing: random small programs (tests/capture/fuzzgen.py) run in PyNative and
captured must give equal results, print the same lines in the same order, and never crash.

CI runs ``FUZZ_PROGRAMS`` programs (default 300); a long run is one command:
``FUZZ_PROGRAMS=10000 python -m pytest tests/capture/test_fuzz.py -q`` (``FUZZ_START`` shifts the
seeds). A failure prints the program's source and seed.
"""
import contextlib
import io
import os
import re

import numpy as np
import pytest

import capture
from capture.explain import recording
from runtime import Tensor

import fuzzgen

N = int(os.environ.get("FUZZ_PROGRAMS", "300"))
START = int(os.environ.get("FUZZ_START", "0"))
CHUNK = 50
_NUM = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+(?:e[-+]?\d+)?|nan|-?inf")


def _same_value(got, want):
    if isinstance(want, Tensor):
        assert isinstance(got, Tensor), type(got)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same_value(g, w)
    elif isinstance(want, dict):
        assert type(got) is dict and list(got) == list(want), (got, want)
        for k in want:
            _same_value(got[k], want[k])
    elif isinstance(want, float):
        assert isinstance(got, float) and np.isclose(got, want, rtol=1e-5, atol=1e-5), (got, want)
    else:
        assert type(got) is type(want) and got == want, (got, want)


def _tokens(line):
    """The words of a printed line with numbers as ``#`` (numpy's padding inside brackets, which
    follows the digits printed, removed)."""
    return re.sub(r"\[\s+", "[", re.sub(r"\s+\]", "]", _NUM.sub("#", line))).split()


def _same_text(got, want):
    """Printed output equal up to float rounding of the printed numbers."""
    gl, wl = got.splitlines(), want.splitlines()
    assert len(gl) == len(wl), (got, want)
    for g, w in zip(gl, wl):
        if g == w:
            continue
        # numpy pads columns to the widest number, so spacing follows the digits: compare tokens
        assert _tokens(g) == _tokens(w), (g, w)
        gn = [float(v) for v in _NUM.findall(g)]
        wn = [float(v) for v in _NUM.findall(w)]
        np.testing.assert_allclose(gn, wn, rtol=1e-4, atol=1e-4)


def _run(fn, args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            out = fn(*args)
            err = None
        except Exception as e:  # the same exception must come from both
            out, err = None, e
    return out, err, buf.getvalue()


def run_program(seed, calls=2):
    """Run program ``seed`` eagerly and captured on ``calls`` inputs; returns (graphs, breaks)."""
    src = fuzzgen.generate(seed)
    fname = f"<fuzz program {seed}>"
    eager_fn, eager_state = fuzzgen.compile_program(src, fname)
    cap_fn, cap_state = fuzzgen.compile_program(src, fname)
    jitted = capture.jit(cap_fn)
    with recording() as report:
        for call in range(calls):
            args = fuzzgen.inputs(seed, call)
            want, werr, wtext = _run(eager_fn, args)
            got, gerr, gtext = _run(jitted, args)
            try:
                if werr is not None:
                    assert gerr is not None and type(gerr) is type(werr) and str(gerr) == str(werr), (werr, gerr)
                else:
                    assert gerr is None, f"captured run raised {type(gerr).__name__}: {gerr}"
                    _same_value(got, want)
                _same_text(gtext, wtext)
                _same_value(cap_state(), eager_state())  # outside state: objects, globals
            except AssertionError as e:
                raise AssertionError(f"fuzz program {seed} (call {call}) differs: {e}\n{src}") from None
    internal = [b for b in report.breaks if b.internal]
    assert not internal, f"fuzz program {seed}: internal capture error {internal[0]}\n{src}\n{internal[0].internal}"
    return len(report.compiles), len(report.break_reasons)


@pytest.mark.parametrize("chunk", range(START, START + N, CHUNK))
def test_random_programs_match_pynative(chunk):
    for seed in range(chunk, min(chunk + CHUNK, START + N)):
        capture.reset()
        run_program(seed)


def test_generator_is_deterministic_and_varied():
    assert fuzzgen.generate(3) == fuzzgen.generate(3)
    srcs = {fuzzgen.generate(s) for s in range(60)}
    assert len(srcs) == 60
    text = "".join(srcs)
    for construct in ("print(", ".sum() > 0", ".asnumpy()", "for ", "while ", "ops.assign(PRM"):
        assert construct in text, construct


def test_programs_do_split_into_graphs():
    """Sanity of the oracle: programs really capture graphs and break (not everything eager)."""
    graphs = breaks = 0
    for seed in range(30):
        capture.reset()
        g, b = run_program(seed, calls=1)
        graphs += g
        breaks += b
    assert graphs > 30 and breaks > 10, (graphs, breaks)
