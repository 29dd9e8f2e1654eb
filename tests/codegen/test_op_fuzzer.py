"""The differential op fuzzer (tests/codegen/op_fuzzer.py) in CI: a fixed-seed sample of its
targets - every codegen op in every dtype it accepts on the flat shape, plus a random draw of the
other shape classes, paths (chains, reductions) and the CUDA host emulation - against eager.

The long mode (1,000,000 cases) runs from the command line (see op_fuzzer's docstring), or here
with ``MSJIT_FUZZ_CASES=1000000``."""
import os

import numpy as np
import pytest

import op_fuzzer
from graph.ops import REGISTRY

#: the CI sample: compiled targets and compared cases (measured: about 20 s of CPU time, compilers
#: included; 124 s of wall time on a shared machine with a load average of 11 on 2 cores)
SAMPLE_TARGETS = 700
SAMPLE_CASES = 400_000


def _report_text(report):
    lines = [report.summary()]
    lines += [f"MISMATCH {m.target}: {m.count} values; {m.detail}" for m in report.failures[:40]]
    lines += [f"UNBUILDABLE {u}" for u in report.unbuildable[:40]]
    return "\n".join(lines)


def test_fixed_seed_sample_matches_eager():
    report = op_fuzzer.fuzz(SAMPLE_CASES, seed=0, batch=129, sample=SAMPLE_TARGETS, large=70_001)
    text = _report_text(report)
    print(text)
    assert report.total >= SAMPLE_CASES
    assert not report.failures and not report.unbuildable, text


def test_every_codegen_op_and_dtype_is_a_target():
    """The fuzzer's plan covers each registry op with a codegen kind, in each dtype its inference
    accepts, on both backends, every shape class and path (the sample keeps one flat CPU target
    per op, dtype and attribute set)."""
    targets = op_fuzzer.plan_targets(backends=("cpu", "cuda"))
    codegen = {n for n, op in REGISTRY.items() if op.kind in ("elementwise", "reduction")}
    assert {t.op for t in targets} == codegen
    assert {t.backend for t in targets} == {"cpu", "cuda"}
    assert {t.shape_class for t in targets} >= set(op_fuzzer.ELEMENTWISE_SHAPES) | set(op_fuzzer.REDUCE_LAYOUTS)
    assert {t.path for t in targets} == {"alone", "chain", "reduce_sum", "reduce_max", "reduce_min"}
    by_op = {}
    for t in targets:
        by_op.setdefault(t.op, set()).update(np.dtype(d).name for d in t.dtypes)
    assert by_op["floor_div"] >= {"int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"}
    assert "bool" in by_op["logical_and"] and "int64" in by_op["reduce_sum"]
    sample = op_fuzzer.plan_targets(backends=("cpu", "cuda"), sample=SAMPLE_TARGETS)
    flat_cpu = {(t.op, t.dtypes, str(t.attrs)) for t in targets if t.backend == "cpu" and t.path == "alone"
                and t.shape_class in ("flat", "all", "row")}
    assert flat_cpu <= {(t.op, t.dtypes, str(t.attrs)) for t in sample}


def test_value_pools_hold_the_edge_values():
    i32 = set(op_fuzzer.int_pool(np.dtype(np.int32)).tolist())
    assert {0, 1, -1, 2**31 - 1, -2**31, -2**31 + 1, 2**24 + 1, -(2**24 + 1)} <= i32
    i64 = set(op_fuzzer.int_pool(np.dtype(np.int64)).tolist())
    assert {2**53 + 1, -(2**63), 2**63 - 1} <= i64
    f32 = op_fuzzer.float_pool(np.dtype(np.float32))
    assert np.isnan(f32).any() and np.isinf(f32).sum() == 2
    assert (np.abs(f32) == np.finfo(np.float32).smallest_subnormal).any()
    assert (f32 >= 1e30).any() and (f32 < 0).any() and (np.signbit(f32) & (f32 == 0)).any()


def test_the_fuzzer_finds_float32_integer_division(monkeypatch):
    """The fuzzer fails on the bug of issue 35: integer floor division through float32."""
    from codegen.cpu.emitter import LLVMEmitter

    def float32_floor_div(self, x, y):
        return self.floor(self.div(x, y))  # the old expression: int32 operands go through float32

    monkeypatch.setattr(LLVMEmitter, "floor_div", float32_floor_div)
    monkeypatch.setenv("MSJIT_NO_CACHE", "1")  # a cached kernel of the real emitter must not answer
    report = op_fuzzer.fuzz(30_000, ops=["floor_div"], backends=("cpu",), seed=3, batch=129, sample=12)
    assert any("floor_div" in m.target and "int" in m.target for m in report.failures), _report_text(report)


def _strength_reduced_pow_targets(backends):
    """The fuzzer's targets of ``x ** c`` for float tensors and the exponents the pipeline's
    strength pass rewrites (graph/passes/simplify.py)."""
    return [t for t in op_fuzzer.plan_targets(ops=["pow"], backends=backends, batch=129)
            if t.shape_class == "scalar" and t.scalar in op_fuzzer.STRENGTH_EXPONENTS
            and np.dtype(t.dtypes[0]).kind == "f"]


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_powers_by_a_constant_match_eager_as_the_pipeline_rewrites_them(backend, monkeypatch):
    """Eager's power by 0.5 is numpy's: a square root (NaN for -inf, -0 for -0), which ``pow``
    proper is not; the fuzzer compiles these targets through the strength pass, as every pipeline
    level does, and they match eager. Without the pass (``rendered`` doing nothing: what the
    emitters would give if they stopped rewriting and the pipeline did not either) they do not."""
    import cuda_host
    if backend == "cuda" and cuda_host.CXX is None:
        pytest.skip("no host C++ compiler for the CUDA C")
    targets = _strength_reduced_pow_targets((backend,))
    assert {t.scalar for t in targets} == set(op_fuzzer.STRENGTH_EXPONENTS)
    assert {np.dtype(t.dtypes[0]).name for t in targets} == {"float16", "float32", "float64"}

    def run(targets):
        report = op_fuzzer.Report()
        compiled = [op_fuzzer.Compiled(t, op_fuzzer.build_graph(t), i) for i, t in enumerate(targets)]
        op_fuzzer.build_cuda_modules(compiled)
        rng = np.random.default_rng(4)
        for _ in range(3):
            for c in compiled:
                op_fuzzer.run_target_once(c, rng, report)
        return report
    report = run(targets)
    assert report.total > 0 and not report.failures, _report_text(report)
    monkeypatch.setattr(op_fuzzer, "rendered", lambda graph: graph)
    monkeypatch.setenv("MSJIT_NO_CACHE", "1")
    unrewritten = run([t for t in targets if t.scalar == 0.5])
    assert unrewritten.failures, _report_text(unrewritten)


def test_ulp_distance_orders_signed_zero_and_denormals():
    f = np.float32
    got = np.array([0.0, -0.0, np.finfo(f).smallest_subnormal, 1.0, np.inf], f)
    want = np.array([-0.0, -0.0, 0.0, np.nextafter(f(1), f(2)), np.finfo(f).max], f)
    assert op_fuzzer.ulp_distance(got, want).tolist() == [1, 0, 1, 1, 1]


@pytest.mark.skipif(not os.environ.get("MSJIT_FUZZ_CASES"), reason="long mode: set MSJIT_FUZZ_CASES")
def test_long_mode():
    report = op_fuzzer.fuzz(int(os.environ["MSJIT_FUZZ_CASES"]), seed=int(os.environ.get("MSJIT_FUZZ_SEED", 0)),
                            log=print)
    text = _report_text(report)
    print(text)
    assert not report.failures and not report.unbuildable, text
