"""PyNative per-op overhead next to torch eager, measured interleaved in one process.

``python bench/pynative_micro.py [--rounds N] [--threads N] [--json PATH]`` prints, per case, ours
and torch's microseconds per call and their ratio. Each round times a block of calls of every
case's two sides back to back, so load that comes and goes shifts both alike; the medians over
the rounds are reported (the ratio is the median of the per-round ratios).

Cases (as in issue 38): one elementwise op on a 4x4 float32 tensor, ``nn.Dense(4, 4)`` on a 4x4
input, ``grad`` of ``(x * x).sum()``; plus the pieces they are made of: a unary op, a matmul with
``transpose_b``, a reduction, an op whose operands need dtype promotion, and one recorded op
under a gradient tape.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import runtime as ms
from runtime import Tensor, nn, ops


def ours_cases():
    x = Tensor(np.ones((4, 4), np.float32))
    xi = Tensor(np.ones((4, 4), np.int32))
    dense = nn.Dense(4, 4)
    grad_square_sum = ms.grad(lambda a: (a * a).sum())
    return {
        "add 4x4": lambda: x + x,
        "relu 4x4": lambda: ops.relu(x),
        "matmul 4x4 transpose_b": lambda: ops.matmul(x, x, transpose_b=True),
        "sum 4x4 axis=1": lambda: x.sum(axis=1),
        "add int32 + float32": lambda: xi + x,
        "Dense(4, 4) on 4x4": lambda: dense(x),
        "grad of (x*x).sum()": lambda: grad_square_sum(x),
    }


def torch_cases():
    import torch
    x = torch.ones(4, 4)
    xi = torch.ones(4, 4, dtype=torch.int32)
    dense = torch.nn.Linear(4, 4)

    def grad_square_sum():
        a = x.detach().requires_grad_(True)
        (a * a).sum().backward()
        return a.grad

    return {
        "add 4x4": lambda: x + x,
        "relu 4x4": lambda: torch.relu(x),
        "matmul 4x4 transpose_b": lambda: torch.matmul(x, x.T),
        "sum 4x4 axis=1": lambda: x.sum(dim=1),
        "add int32 + float32": lambda: xi + x,
        "Dense(4, 4) on 4x4": lambda: dense(x),
        "grad of (x*x).sum()": grad_square_sum,
    }


def _block_us(fn, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6


def measure(rounds=7, block_seconds=0.05, threads=None):
    """{case: {"ours_us", "torch_us", "ratio"}} (torch's entries None when it is not installed)."""
    try:
        import torch
        if threads:
            torch.set_num_threads(threads)
        theirs = torch_cases()
    except ImportError:
        theirs = {}
    ours = ours_cases()
    result = {}
    for name, fn in ours.items():
        other = theirs.get(name)
        fn()
        calls = max(10, int(block_seconds / max(_block_us(fn, 20) * 1e-6, 1e-7)))
        if other is not None:
            other()
            _block_us(other, calls // 10 + 1)
        mine, peer, ratios = [], [], []
        for _ in range(rounds):
            a = _block_us(fn, calls)
            mine.append(a)
            if other is not None:
                b = _block_us(other, calls)
                peer.append(b)
                ratios.append(a / b)
        result[name] = {"ours_us": statistics.median(mine),
                        "torch_us": statistics.median(peer) if peer else None,
                        "ratio": statistics.median(ratios) if ratios else None}
    return result


def format_rows(result) -> str:
    lines = [f"{'case':28s} {'ours us':>9s} {'torch us':>9s} {'ours/torch':>10s}"]
    for name, r in result.items():
        t = "-" if r["torch_us"] is None else f"{r['torch_us']:.2f}"
        q = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        lines.append(f"{name:28s} {r['ours_us']:9.2f} {t:>9s} {q:>10s}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=None, help="torch threads (ours: RUNTIME_BLAS_THREADS)")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    result = measure(args.rounds, threads=args.threads)
    print(format_rows(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
