"""A seeded generator of small random programs that compute with the sizes of their input, for
differential testing of shape-generic capture (capture/dynamic.py, capture/symbolic_sizes.py,
graph/ops/creation.py) against PyNative: see test_fuzz_sizes.py.

Each program is ``def prog(x):`` over a float32 matrix of shape (n, m) that keeps that shape
through every statement. The statements use the sizes the way model code does: arithmetic on
them (``n * m``, ``n // 2 + 1``, ``1.0 / math.sqrt(n)``, ``float(m) ** 0.5``), tensors made from
them (``ops.arange(m)``, ``ops.ones((n, m))``, ``ops.full``, ``ops.eye(m)``, ``ops.triu``/``tril``
masks, ``ops.sequence_mask``), reshapes and slices given them (``x.reshape(1, n * m)``,
``x[:n // 2]``), reductions divided by them, and Python reads that must keep a size specialised
(a branch on ``n``, ``min(n, 4)``). Run over a sequence of shapes, every call must equal eager,
whatever the number of translations.

    python tests/capture/fuzzgen_sizes.py 7    # prints program 7
"""
from __future__ import annotations

import math
import random

import numpy as np

import runtime as ms
from runtime import ops

_C = ["0.5", "1.5", "0.25", "2.0", "-1.0", "0.75"]

#: statements keeping x an (n, m) float32 matrix; {c} is a constant, {k} a small int
_STATEMENTS = [
    "x = x + ops.arange(m).astype(ms.float32) * {c}",
    "x = x + ops.arange(0.0, n / 2, 0.5).reshape(-1, 1) * {c}",
    "x = x * (1.0 / math.sqrt(n))",
    "x = x / float(m) ** 0.5 + {c}",
    "x = x.reshape(n * m).view(n, m) * {c}",
    "x = x.reshape(1, n * m).reshape(n, -1) + {c}",
    "x = ops.reshape(x, (m, n)).T * {c}",
    "x = x + ops.triu(ops.ones((n, m), ms.float32), {k})",
    "x = x - ops.tril(ops.full((n, m), {c}), {k})",
    "x = ops.tril(x, {k}) + ops.triu(x, {k} + 1) * {c}",
    "x = x + x.sum(axis=0) / n",
    "x = x - x.sum(axis=1, keepdims=True) / m",
    "x = x - x.mean(axis=1, keep_dims=True) * {c}",
    "x = ops.cat([x[: n // 2], x[n // 2:] * {c}], axis=0)",
    "x = ops.cat([x[:, 1:], ops.zeros((n, 1), ms.float32)], axis=1)",
    "x = x * ops.sequence_mask(ops.full((n,), m // 2 + 1, ms.int32), m).astype(ms.float32) + {c}",
    "x = ops.matmul(x, ops.eye(m) * {c}) + x",
    "x = x + ops.full((n, m), {c} * n)",
    "x = x * (n - 1) + m % 3",
    "x = ops.softmax(x + ops.triu(ops.full((n, m), -1e4), 1), axis=-1)",
    "x = ops.cat([x[:n - 1], x[n - 1:] * {c}], axis=0)",
    "x = x + len(x) * {c}",
    "x = x * (m / n) + (n * m) ** 0.5",
    "x = x + ops.ones_like(x) * (m // 2)",
]
#: statements whose Python reads a size's value (a branch, ``min``, ``range``): they keep it
#: specialised, and the program must still equal eager at every size
_READS = [
    "x = x * 2.0 if n > 5 else x - 1.0",
    "x = ops.cat([x[:min(n, 4)] * {c}, x[min(n, 4):]], axis=0)",
    "x = x + sum(range(m)) * {c}",
]


def generate(seed: int) -> str:
    """The source of ``def prog(x):`` number ``seed``."""
    r = random.Random(seed)
    lines = ["def prog(x):", "    n, m = x.shape"]
    for _ in range(r.randint(2, 6)):
        stmt = r.choice(_STATEMENTS + _READS).format(c=r.choice(_C), k=r.randint(-1, 1))
        lines.append("    " + stmt)
    lines.append("    return x")
    return "\n".join(lines) + "\n"


def reads_a_size(source: str) -> bool:
    """Whether program ``source`` has a statement of :data:`_READS`."""
    return any(stmt.split("{")[0] in source for stmt in _READS)


def compile_program(source: str):
    namespace = {"ops": ops, "ms": ms, "math": math}
    exec(compile(source, "<fuzz-sizes>", "exec"), namespace)  # (generated test code)
    return namespace["prog"]


def shapes(seed: int, calls: int = 8):
    """``calls`` (n, m) shapes, sizes 2..9, some repeated (a repeated size is compiled once it
    recurs: capture.dynamic.TIER_UP_CALLS)."""
    r = random.Random(seed * 7919 + 1)
    out = []
    while len(out) < calls:
        if out and r.random() < 0.3:
            out.append(r.choice(out))
        else:
            out.append((r.randint(2, 9), r.randint(2, 9)))
    return out


def inputs(seed: int, shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1])))
