"""Differential fuzzing of shape-generic capture: random programs that compute with their input's
sizes (tests/capture/fuzzgen_sizes.py) run over a sequence of shapes under ``capture.jit`` must
equal PyNative at every call, whether a size was traced, re-instantiated from a generic entry,
interpreted or compiled once it recurred (``TIER_UP_CALLS`` is 2 here, so recurring sizes are
compiled by the backend).

CI runs ``FUZZ_SIZE_PROGRAMS`` programs (default 40); a long run:
``FUZZ_SIZE_PROGRAMS=2000 python -m pytest tests/capture/test_fuzz_sizes.py -q``
(``FUZZ_SIZE_START`` shifts the seeds). A failure prints the program's source, seed and shapes.
"""
import os

import numpy as np
import pytest

import capture
from capture import dynamic
from capture.explain import recording
from runtime import Tensor

import fuzzgen_sizes

N = int(os.environ.get("FUZZ_SIZE_PROGRAMS", "40"))
START = int(os.environ.get("FUZZ_SIZE_START", "0"))
CHUNK = 20


def run_program(seed):
    """Program ``seed`` over its shapes, captured and eager; returns (translations, re-instantiated
    sizes, generic?) for the summary test."""
    src = fuzzgen_sizes.generate(seed)
    prog = fuzzgen_sizes.compile_program(src)
    shapes = fuzzgen_sizes.shapes(seed)
    jitted = capture.jit(prog)
    with recording() as report:
        for k, shape in enumerate(shapes):
            x = fuzzgen_sizes.inputs(seed * 100 + k, shape)
            want = prog(Tensor(x)).asnumpy()
            try:
                got = jitted(Tensor(x)).asnumpy()
                assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
                np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4)
            except AssertionError as e:
                raise AssertionError(f"seed {seed}, call {k} of shapes {shapes}:\n{src}\n{e}") from None
    generic = any("is dynamic" in text for _frame, text in report.dynamic)
    return report.graph_count, len(report.reinstantiations), generic


@pytest.mark.parametrize("chunk", range(START, START + N, CHUNK))
def test_random_size_programs_equal_eager_at_every_size(chunk, monkeypatch):
    monkeypatch.setattr(dynamic, "TIER_UP_CALLS", 2)
    for seed in range(chunk, min(chunk + CHUNK, START + N)):
        capture.reset()
        run_program(seed)
    capture.reset()


def test_programs_that_read_no_size_become_shape_generic(monkeypatch):
    """Not a vacuous pass: a program none of whose statements reads a size's value in Python runs
    its later shapes from one generic entry, re-instantiated, not traced again: two translations
    when both dimensions change at the second call; when one changes first and the other later,
    one more per new combination of changed dimensions (a trace merges into the generic entry
    only the dimensions it differs in from the first trace: capture.dynamic.generalise)."""
    monkeypatch.setattr(dynamic, "TIER_UP_CALLS", 2)
    checked = reused = 0
    for seed in range(40):
        src = fuzzgen_sizes.generate(seed)
        if fuzzgen_sizes.reads_a_size(src):
            continue
        capture.reset()
        translations, reinstantiated, generic = run_program(seed)
        assert generic and translations <= 4, (seed, src, translations, reinstantiated)
        checked += 1
        reused += reinstantiated > 0
    capture.reset()
    assert checked >= 15 and reused >= checked // 2, (checked, reused)
