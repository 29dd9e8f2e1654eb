"""A warm-start file is loaded only where the objects the graph was built from have the same
settings in the new process: the identity guards of one process decide nothing in another.

Each case runs a small script three times in fresh processes sharing one disk cache: with a
setting A (compiles and saves), with B (must compute B's result, not load A's graph) and with B
again (loads the entry B saved). Oracle: the result written by hand for each setting."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PRELUDE = """
import functools, json, sys
import numpy as np
import runtime as ms
from runtime import Tensor, nn, ops
from capture import cache
SETTING = int(sys.argv[1])
x = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))
y = Tensor(np.array([[0.5, 1.0, 2.0], [1.0, 1.0, 1.0]], np.float32))
"""
EPILOGUE = """
warm = any(e.warm_start for c in cache._CACHES.values() for e in c.entries)
print(json.dumps({"out": np.asarray(out.asnumpy()).tolist(), "warm": warm}))
"""

CASES = {
    # a gradient function's grad_position (a GRAPH_MODE grad call from Python)
    "grad-position": ("""
ms.set_context(mode=ms.GRAPH_MODE)
f = lambda a, b: (a * b * 2).sum()
out = ms.grad(f, SETTING)(x, y)
""", {0: [[1.0, 2.0, 4.0], [2.0, 2.0, 2.0]], 1: [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]}),
    # a GradOperation's flag (the function it returns, held by a closure)
    "grad-operation-flag": ("""
net = lambda a, b: (a * b * 2).sum()
g = ops.GradOperation(get_all=bool(SETTING))(net)
out = ms.jit(lambda a, b: g(a, b))(x, y)
out = out[1] if SETTING else out
""", {0: [[1.0, 2.0, 4.0], [2.0, 2.0, 2.0]], 1: [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]}),
    # a Primitive's attribute (a Cell attribute guarded by identity only)
    "primitive-attribute": ("""
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.red = ops.ReduceSum(keep_dims=bool(SETTING))
    def construct(self, a):
        return self.red(a, 1) * 2
ms.set_context(mode=ms.GRAPH_MODE)
net = Net()  # (kept: a dead Cell's entries leave the cache)
out = net(x)
""", {0: [12.0, 30.0], 1: [[12.0], [30.0]]}),
    # a functools.partial's bound argument
    "partial-argument": ("""
def scale(k, a):
    return a * k
p = functools.partial(scale, float(SETTING + 2))
out = ms.jit(lambda a: p(a))(x)
""", {0: [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], 1: [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]]}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_entry_is_loaded_only_for_the_same_settings(case, tmp_path):
    body, want = CASES[case]
    script = tmp_path / "script.py"
    script.write_text(PRELUDE + body + EPILOGUE)
    env = dict(os.environ, MSJIT_CACHE_DIR=str(tmp_path / "cache"), CAPTURE_DISK_CACHE="1", PYTHONPATH=ROOT)

    def run(setting):
        proc = subprocess.run([sys.executable, str(script), str(setting)], capture_output=True, text=True, env=env,
                              cwd=str(tmp_path), timeout=120)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    first, other, again = run(0), run(1), run(1)
    assert first["out"] == want[0] and not first["warm"]
    assert other["out"] == want[1], f"{case}: the entry saved for setting 0 was used for setting 1"
    assert again["out"] == want[1] and again["warm"], "the entry saved for setting 1 is loaded"
