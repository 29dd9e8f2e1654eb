"""The emitted assembly uses vector registers on AVX2/AVX-512 hosts, and the on-disk object cache
lets a second process skip LLVM optimisation and code generation (and survives corruption)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from codegen_helpers import graph_of, one_kernel
from graph.ops import F
from codegen.cpu import compiler, kernels, target

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _chain_ir(n=4096):
    g = graph_of(lambda x: F.add(F.mul(F.tanh(F.add(F.mul(x, 1.5), 0.3)), 0.7), F.exp(F.neg(x))),
                 ((n,), np.float32))
    plan = kernels.plan_fused(one_kernel(g).kernels[0], "chain")
    m = compiler.new_module("asm")
    kernels.emit_fused(m, plan)
    return str(m)


def test_vector_instructions_in_assembly():
    if target.has_feature("avx512f"):
        reg = "%zmm"
    elif target.has_feature("avx2"):
        reg = "%ymm"
    else:
        pytest.skip("host has neither AVX2 nor AVX-512")
    asm = compiler.assembly(_chain_ir())
    assert reg in asm, f"no {reg} registers in the chain kernel"
    assert "vfmadd" in asm  # contraction of the polynomial evaluations
    # our polynomial exp/tanh: no libm calls inside the vector loop
    assert "expf" not in asm and "tanhf" not in asm


def test_reduction_vectorizes():
    if not (target.has_feature("avx2") or target.has_feature("avx512f")):
        pytest.skip("no AVX2")
    g = graph_of(lambda x: F.reduce_sum(F.relu(F.add(x, 1.0)), axis=1), ((64, 4096), np.float32))
    plan = kernels.plan_fused(one_kernel(g).kernels[0], "rowsum")
    m = compiler.new_module("asm2")
    kernels.emit_fused(m, plan)
    asm = compiler.assembly(str(m))
    assert "%zmm" in asm or "%ymm" in asm


SCRIPT = textwrap.dedent("""
    import json, sys, time
    t0 = time.perf_counter()
    import numpy as np
    sys.path.insert(0, {root!r}); sys.path.insert(0, {here!r})
    from codegen_helpers import graph_of, one_kernel
    from graph.ops import F
    from codegen import compile_schedule
    from codegen.cpu import compiler
    g = graph_of(lambda x: F.add(F.mul(F.tanh(F.add(F.mul(x, 1.5), 0.3)), 0.7), F.exp(F.neg(x))),
                 ((1000,), np.float32))
    t1 = time.perf_counter()
    cg = compile_schedule(one_kernel(g))
    t2 = time.perf_counter()
    x = np.linspace(-3, 3, 1000).astype(np.float32)
    out, _ = cg([x])
    ok = bool(np.allclose(out[0], np.tanh(x * 1.5 + 0.3) * 0.7 + np.exp(-x), rtol=2e-6))
    print(json.dumps(dict(compiler.STATS, ok=ok, compile_call_s=t2 - t1)))
""")


def _run(cache_dir):
    env = dict(os.environ, MSJIT_CACHE_DIR=str(cache_dir))
    code = SCRIPT.format(root=ROOT, here=os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_disk_cache_hit_in_a_second_process(tmp_path):
    cold = _run(tmp_path)
    assert cold["ok"] and cold["compiled"] == 1 and cold["cache_hits"] == 0
    files = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path) for f in fs if f.endswith(".o")]
    assert len(files) == 1
    warm = _run(tmp_path)
    assert warm["ok"] and warm["compiled"] == 0 and warm["cache_hits"] == 1  # no LLVM codegen
    print(f"\ncompile_schedule: cold {cold['compile_call_s'] * 1e3:.1f} ms, "
          f"warm (disk cache) {warm['compile_call_s'] * 1e3:.1f} ms")
    # a corrupted entry is detected and recompiled
    with open(files[0], "r+b") as f:
        f.seek(60)
        f.write(b"\xff\xfe\xfd\xfc")
    again = _run(tmp_path)
    assert again["ok"] and again["compiled"] == 1 and again["cache_hits"] == 0
    # a truncated one too
    with open(files[0], "r+b") as f:
        f.truncate(100)
    again = _run(tmp_path)
    assert again["ok"] and again["compiled"] == 1
    assert _run(tmp_path)["cache_hits"] == 1
