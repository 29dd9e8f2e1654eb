"""Issue 34, robustness item 1: a disk-cache entry that is not a regular file is a miss.

A symbolic link to ``/dev/zero`` used to be read until memory ran out (an uncaught MemoryError), a
FIFO hung the program. Every cache the framework reads (kernels' object files, capture's
schedules) goes through :meth:`codegen.cpu.diskcache.Store.load`, which opens without following
links and without blocking, checks ``fstat`` and reads with a bound.

Each scenario runs in a fresh process with a memory limit and a timeout, so the old behaviour
shows as a failure (MemoryError, a kill, a timeout), never as a hung test run."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""
    import json, os, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # an endless read fails fast
    sys.path.insert(0, {root!r})
    import numpy as np
    import runtime as ms
    from runtime import Tensor, ops
    from capture import persist
    from codegen.cpu import compiler
    f = ms.jit(lambda x: ops.tanh(x) * 2.0 + 1.0)
    x = np.linspace(-2, 2, 16).astype(np.float32)
    ok = bool(np.allclose(f(Tensor(x)).asnumpy(), np.tanh(x) * 2 + 1, rtol=1e-5))
    print(json.dumps(dict(ok=ok, kernels=compiler.STATS, schedules=getattr(persist, "STATS", {{}}))))
""")


def _run(cache_dir):
    env = dict(os.environ, MSJIT_CACHE_DIR=str(cache_dir))
    env.pop("CAPTURE_DISK_CACHE", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(root=ROOT)], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-3000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ok"], "wrong numbers"
    return out


def _entries(cache_dir, suffix):
    return sorted(os.path.join(d, n) for d, _, names in os.walk(cache_dir) for n in names if n.endswith(suffix))


def _replace(path, kind, tmp_path):
    os.remove(path)
    if kind == "symlink_to_dev_zero":
        os.symlink("/dev/zero", path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        os.mkdir(path)
    elif kind == "symlink_to_a_valid_entry":
        # even a link to a good file of the same key is not followed (the entry is written anew)
        target = tmp_path / "elsewhere"
        target.write_bytes(b"")
        os.symlink(str(target), path)
    elif kind == "dangling_symlink":
        os.symlink(str(tmp_path / "nowhere"), path)


KINDS = ["symlink_to_dev_zero", "fifo", "directory", "symlink_to_a_valid_entry", "dangling_symlink"]


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="POSIX only")
@pytest.mark.parametrize("kind", KINDS)
def test_a_cache_entry_that_is_not_a_regular_file_is_a_miss(tmp_path, kind):
    cache = tmp_path / "cache"
    first = _run(cache)
    assert first["kernels"]["compiled"] >= 1
    paths = _entries(cache, ".o") + _entries(cache, ".sched")
    assert any(p.endswith(".sched") for p in paths) and any(p.endswith(".o") for p in paths)
    for p in paths:
        _replace(p, kind, tmp_path)
    again = _run(cache)  # no hang, no MemoryError: every entry is a miss and is compiled
    assert again["kernels"]["cache_hits"] == 0 and again["kernels"]["compiled"] == first["kernels"]["compiled"]
    assert again["schedules"]["hits"] == 0
    if kind != "directory":  # (a directory in the way cannot be replaced: the entry stays a miss)
        third = _run(cache)  # the entries were written anew, as regular files
        assert third["kernels"]["compiled"] == 0 and third["schedules"]["hits"] >= 1


def test_read_regular_file_refuses_what_is_not_one(tmp_path):
    from codegen.cpu import diskcache
    good = tmp_path / "good"
    good.write_bytes(b"abc")
    assert diskcache.read_regular_file(str(good)) == b"abc"
    assert diskcache.read_regular_file(str(good), limit=2) is None  # larger than the bound
    link = tmp_path / "link"
    os.symlink(str(good), link)
    assert diskcache.read_regular_file(str(link)) is None
    assert diskcache.read_regular_file(str(tmp_path)) is None
    assert diskcache.read_regular_file(str(tmp_path / "missing")) is None
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        assert diskcache.read_regular_file(str(fifo)) is None
