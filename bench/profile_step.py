"""Where a compiled train step spends its time, per kind of kernel (codegen/cpu/profile.py).

``python bench/profile_step.py MODEL:BATCH [--rounds N] [--top K] [--threads T]`` builds the bench's whole
train step under ``@jit`` (bench/models.py: ``ours_jit_train_step``), runs it until it is compiled,
then times every kernel of its graph over ``--rounds`` calls and prints the time per kind of
kernel (im2col, products with their GFLOP/s, col2im, fused elementwise work, reductions...) and
the ``--top`` slowest kernels.
"""
from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))


def compiled_step(model, batch):
    """(the compiled graph of the train step, the arrays of its last call)."""
    from codegen.cpu import runner
    import models
    seen = []
    original = runner.CompiledGraph._python_call  # (the first calls of a graph go through it)

    def spy(self, arrays, *args, **kwargs):
        seen.append((self, list(arrays)))
        return original(self, arrays, *args, **kwargs)

    step, args = models.ours_jit_train_step(model, batch)
    runner.CompiledGraph._python_call = spy
    try:
        for _ in range(3):
            step(*args)
    finally:
        runner.CompiledGraph._python_call = original
    graph, arrays = max(seen, key=lambda s: len(s[0].schedule.kernels))
    return graph, arrays


def main():
    p = argparse.ArgumentParser()
    p.add_argument("rows", nargs="+", help="MODEL:BATCH")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--threads", type=int, default=None, help="kernel threads (default: the machine's)")
    args = p.parse_args()
    from codegen.cpu import profile, threads
    if args.threads:
        threads.set_num_threads(args.threads)
    for row in args.rows:
        model, batch = row.split(":")
        graph, arrays = compiled_step(model, int(batch))
        rows = profile.profile_call(graph, arrays, args.rounds)
        print(f"== {model} b{batch}: {len(rows)} kernels")
        print(profile.table(rows, args.top))


if __name__ == "__main__":
    main()
