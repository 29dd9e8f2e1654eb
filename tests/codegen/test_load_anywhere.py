"""Loading compiled code never aborts the process (issue 11 item 3): objects reference other
sections only through 64-bit absolute relocations, so no section placement can overflow a 32-bit
offset (LLVM's ``RuntimeDyldELF ... isInt<32>(RealOffset)`` abort); hundreds of kernels compile and
load, cold and from the disk cache, in a process whose address space is large and fragmented."""
import json
import os
import platform
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from codegen.cpu import compiler, kernels
from codegen_helpers import graph_of, one_kernel
from graph.ops import F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
R_X86_64_64 = 1


def _relocation_types(obj: bytes):
    """Types of every relocation in an ELF64 little-endian object (parsed here, independently)."""
    e_shoff, = struct.unpack_from("<Q", obj, 40)
    _, e_shnum = struct.unpack_from("<HH", obj, 58)
    types = []
    for i in range(e_shnum):
        base = e_shoff + i * 64
        sh_type, = struct.unpack_from("<I", obj, base + 4)
        sh_offset, sh_size = struct.unpack_from("<QQ", obj, base + 24)
        if sh_type == 4:  # SHT_RELA: (r_offset, r_info, r_addend)
            for off in range(sh_offset, sh_offset + sh_size, 24):
                r_info, = struct.unpack_from("<Q", obj, off + 8)
                types.append(r_info & 0xFFFFFFFF)
    return types


@pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")),
                    reason="ELF x86-64 relocation check")
def test_objects_use_only_absolute_64_bit_relocations():
    g = graph_of(lambda x: F.add(F.mul(F.tanh(F.add(F.mul(x, 1.5), 0.3)), 0.7), F.exp(F.neg(x))),
                 ((4096,), np.float32))
    plan = kernels.plan_fused(one_kernel(g).kernels[0], "reloc")
    m = compiler.new_module("reloc")
    kernels.emit_fused(m, plan)
    _, obj = compiler.compile_ir(str(m))
    types = _relocation_types(obj)
    assert types, "expected relocations to the constant pool"
    assert set(types) == {R_X86_64_64}, f"32-bit or PC-relative relocations present: {sorted(set(types))}"


STRESS = textwrap.dedent("""
    import ctypes, json, sys
    import numpy as np
    sys.path.insert(0, {root!r})
    libc = ctypes.CDLL(None)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    holes = []
    def fragment():  # reserve 4 GiB of address space (no memory) between loads
        p = libc.mmap(None, 1 << 32, 0, 0x02 | 0x20 | 0x4000, -1, 0)
        if p not in (None, ctypes.c_void_p(-1).value):
            holes.append(p)
    import runtime as ms
    from runtime import Tensor, ops
    from codegen.cpu import compiler
    x = np.linspace(-1, 1, 64).astype(np.float32)
    bad = 0
    for i in range({n}):
        fragment()
        c = np.float32(1.0 + i / 1000)
        f = ms.jit(lambda t, c=float(c): ops.tanh(t * c) * ops.exp(t) + c)
        r = f(Tensor(x)).asnumpy()
        bad += not np.allclose(r, np.tanh(x * c) * np.exp(x) + c, rtol=1e-5, atol=1e-6)
    print(json.dumps(dict(compiler.STATS, bad=bad, reserved_gib=4 * len(holes))))
""")


def test_hundreds_of_kernels_load_in_a_fragmented_address_space(tmp_path):
    env = dict(os.environ, MSJIT_CACHE_DIR=str(tmp_path))
    code = STRESS.format(root=ROOT, n=200)
    runs = []
    for _ in range(2):  # cold, then every kernel from the disk cache
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-2000:]}"
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    assert cold["bad"] == warm["bad"] == 0
    assert cold["compiled"] >= 200 and warm["compiled"] == 0 and warm["cache_hits"] >= 200
    assert cold["reserved_gib"] >= 400
