"""Differential fuzzing of exceptions and context managers (tests/capture/fuzzgen_exc.py): random
programs run in PyNative, under ``capture.jit`` and under the frame hook must give equal results,
raise the same exceptions, print the same lines and log the same events, with no internal capture
error hidden behind an eager rerun. (PYTEST_DONT_REWRITE)

CI runs ``FUZZ_EXC_PROGRAMS`` programs (default 200); a long run:
``FUZZ_EXC_PROGRAMS=10000 python -m pytest tests/capture/test_fuzz_exc.py -q`` (``FUZZ_EXC_START``
shifts the seeds). A failure prints the program's source and seed.
"""
import os

import pytest

import capture
from capture.explain import recording

import fuzzgen_exc
from test_fuzz import _run, _same_text, _same_value

N = int(os.environ.get("FUZZ_EXC_PROGRAMS", "200"))
START = int(os.environ.get("FUZZ_EXC_START", "0"))
CHUNK = 50


def _same_error(got, want):
    assert (got is None) == (want is None), (got, want)
    if want is not None:
        assert type(got) is type(want) and str(got) == str(want), (got, want)
        _same_error(got.__cause__, want.__cause__)
        assert got.__suppress_context__ == want.__suppress_context__
        if not want.__suppress_context__:
            assert type(got.__context__) is type(want.__context__), (got.__context__, want.__context__)


def _internal(report):
    bad = [f"internal error: {b.reason}\n{b.internal}" for b in report.breaks if b.internal]
    bad += [f"resume planning failed internally in {f}: {why}" for f, why in report.resume_fallbacks
            if not why.startswith(("NotResumable", "GraphBreak", "FullGraph"))]
    return bad


def run_program(seed, calls=2, hook=True):
    """Run program ``seed`` eagerly, jitted and under the frame hook; returns the breaks."""
    src = fuzzgen_exc.generate(seed)
    fname = f"<fuzz-exc program {seed}>"
    eager_fn = fuzzgen_exc.compile_program(src, fname)
    modes = [("jit", capture.jit(fuzzgen_exc.compile_program(src, fname)), False)]
    if hook:
        modes.append(("hook", fuzzgen_exc.compile_program(src, fname), True))
    breaks = 0
    for mode, fn, enable in modes:
        with recording() as report:
            for call in range(calls):
                args = fuzzgen_exc.inputs(seed, call)
                want, werr, wtext = _run(eager_fn, args)
                gargs = fuzzgen_exc.inputs(seed, call)
                if enable:
                    with capture.enabled():
                        got, gerr, gtext = _run(fn, gargs)
                else:
                    got, gerr, gtext = _run(fn, gargs)
                try:
                    _same_error(gerr, werr)
                    if werr is None:
                        _same_value(got, want)
                    _same_text(gtext, wtext)
                    assert gargs[-1] == args[-1], (gargs[-1], args[-1])  # the event log
                except AssertionError as e:
                    raise AssertionError(f"fuzz-exc program {seed} ({mode}, call {call}) differs: {e}\n{src}") from None
        bad = _internal(report)
        assert not bad, f"fuzz-exc program {seed} ({mode}): {bad[0]}\n{src}"
        if mode == "jit":
            breaks = len(report.break_reasons)
    return breaks


@pytest.mark.parametrize("chunk", range(START, START + N, CHUNK))
def test_random_exception_programs_match_pynative(chunk):
    for seed in range(chunk, min(chunk + CHUNK, START + N)):
        capture.reset()
        run_program(seed)


def test_generator_is_deterministic_and_covers_the_constructs():
    assert fuzzgen_exc.generate(5) == fuzzgen_exc.generate(5)
    text = "".join(fuzzgen_exc.generate(s) for s in range(80))
    for construct in ("try:", "except", "finally:", "else:", "raise ", " from ", "with Mgr", "contextlib.suppress",
                      "contextlib.nullcontext", "gen_mgr", "gen_catch", "continue", "print("):
        assert construct in text, construct


def test_most_programs_trace_without_a_break():
    """Exceptions are traced, not broken on: a good share of the programs run as one graph."""
    zero = 0
    for seed in range(40):
        src = fuzzgen_exc.generate(seed)
        if "print(" in src or "asnumpy" in src:
            continue
        capture.reset()
        zero += run_program(seed, hook=False) == 0
    assert zero >= 10, zero
