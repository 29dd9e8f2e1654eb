"""The kernel disk cache never trusts its files (issue 11 item 4): swapped, re-wrapped, forged,
truncated or garbage entries are refused before LLVM sees them and the kernel is recompiled --
never another graph's code, never a crash. Each scenario runs in a fresh process, so a crash
would show as a signal exit code."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from codegen.cpu import diskcache

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    sys.path.insert(0, {root!r})
    import runtime as ms
    from runtime import Tensor, ops
    from codegen.cpu import compiler
    f = ms.jit(lambda x: ops.tanh(x) * 2.0 + 1.0)
    g = ms.jit(lambda x, y: ops.exp(x) - y * 3.0)
    x = np.linspace(-2, 2, 64).astype(np.float32)
    a = f(Tensor(x)).asnumpy()
    b = g(Tensor(x), Tensor(x)).asnumpy()
    ok = bool(np.allclose(a, np.tanh(x) * 2 + 1, rtol=1e-5) and np.allclose(b, np.exp(x) - 3 * x, rtol=1e-5))
    print(json.dumps(dict(compiler.STATS, ok=ok)))
""")


def _run(cache_dir):
    env = dict(os.environ, MSJIT_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(root=ROOT)], env=env, capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-2000:]}"
    stats = json.loads(out.stdout.strip().splitlines()[-1])
    assert stats["ok"], "wrong numbers from the compiled kernels"
    return stats


def _entries(cache_dir):
    files = sorted(os.path.join(d, n) for d, _, names in os.walk(cache_dir) for n in names if n.endswith(".o"))
    return {os.path.basename(p)[:-2]: p for p in files}


def _payload(path):
    with open(path, "rb") as f:
        return f.read()[len(diskcache.MAGIC) + 64 + 32:]


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


@pytest.fixture
def warm_cache(tmp_path):
    first = _run(tmp_path)
    assert first["compiled"] >= 2
    entries = _entries(tmp_path)
    assert len(entries) >= 2
    hit = _run(tmp_path)
    assert hit["compiled"] == 0 and hit["cache_hits"] == first["compiled"]
    return tmp_path, entries, first["compiled"]


def _tamper(kind, entries):
    (ka, pa), (kb, pb) = list(entries.items())[:2]
    a, b = open(pa, "rb").read(), open(pb, "rb").read()
    if kind == "swapped":  # two valid files exchanged
        _write(pa, b)
        _write(pb, a)
    elif kind == "rewrapped":  # another graph's object under this key, with a valid checksum
        _write(pa, diskcache.wrap(ka, _payload(pb)))
    elif kind == "forged":  # garbage that carries the key and a valid checksum
        _write(pa, diskcache.wrap(ka, b"\x7fELF" + bytes(60) + diskcache.key_symbol(ka) + os.urandom(256)))
    elif kind == "truncated_object":  # a valid envelope around half an object
        obj = _payload(pa)
        _write(pa, diskcache.wrap(ka, obj[: len(obj) // 2] + diskcache.key_symbol(ka)))
    elif kind == "corrupt":
        _write(pa, a[:-7] + b"garbage")
    return 2 if kind == "swapped" else 1


@pytest.mark.parametrize("kind", ["swapped", "rewrapped", "forged", "truncated_object", "corrupt"])
def test_tampered_cache_entries_are_recompiled_never_loaded(warm_cache, kind):
    cache_dir, entries, _ = warm_cache
    bad = _tamper(kind, entries)
    stats = _run(cache_dir)
    assert stats["compiled"] == bad, stats  # exactly the tampered entries were rebuilt
    again = _run(cache_dir)  # and the rebuilt files are good
    assert again["compiled"] == 0


def test_unwrap_checks():
    key, other = "a" * 64, "b" * 64
    obj = b"object code with " + diskcache.key_symbol(key)
    assert diskcache.unwrap(other, diskcache.wrap(key, obj)) is None  # bound to its key
    assert diskcache.unwrap(key, diskcache.wrap(key, b"no key inside")) is None
    data = bytearray(diskcache.wrap(key, obj))
    data[-1] ^= 1
    assert diskcache.unwrap(key, bytes(data)) is None  # checksum
