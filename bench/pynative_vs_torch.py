"""PyNative train steps next to torch eager, interleaved in one process (issue 38's seven rows).

``python bench/pynative_vs_torch.py [MODEL:BATCH ...] [--rounds N] [--threads N] [--profile]``
prints ms per step for ours (PyNative, TrainOneStepCell + Momentum) and torch eager (SGD with
momentum) and the ratio, the median over rounds in which each side runs a block of steps in turn
(so load that comes and goes shifts both alike). ``python -m bench`` measures the same rows with
each framework in a process of its own; this script is the quick look, and ``--profile`` prints
where ours spends a step (cProfile, sorted by own time).

Transformer and LSTM carry the same weights in both frameworks (pynative_models.py).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

#: steps run before a profile: past the warm-up of PyNative's compiled kernels
WARM_STEPS = 4

ROWS = ("mlp:32", "lenet:32", "lenet:256", "mlp:1024", "transformer:16", "resnet18:32", "lstm:32")


def _block_ms(step, args, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        step(*args)
    return (time.perf_counter() - t0) / calls * 1e3


def measure(model, batch, rounds=5, block_seconds=0.5):
    import models
    ours, ours_args = models.ours_train_step(model, batch)
    try:
        theirs, their_args = models.torch_train_step(model, batch)
    except ImportError:
        theirs = None
    from runtime import eager_kernels
    for _ in range(WARM_STEPS):  # (heavy ops run compiled from a signature's third call: runtime/eager_kernels.py)
        ours(*ours_args)
    eager_kernels.wait_pending()  # (compiled off the step's thread: the steady state has them all)
    per = _block_ms(ours, ours_args, 1)
    calls = max(2, int(block_seconds / max(per / 1e3, 1e-6)))
    if theirs is not None:
        theirs(*their_args)
    a, b, r = [], [], []
    for _ in range(rounds):
        a.append(_block_ms(ours, ours_args, calls))
        if theirs is not None:
            b.append(_block_ms(theirs, their_args, calls))
            r.append(a[-1] / b[-1])
    return {"ours_ms": statistics.median(a), "torch_ms": statistics.median(b) if b else None,
            "torch_over_ours": statistics.median([1 / x for x in r]) if r else None}


def profile(model, batch, steps=3, top=25):
    import cProfile
    import pstats
    import models
    step, args = models.ours_train_step(model, batch)
    for _ in range(WARM_STEPS):  # (heavy ops run compiled from a signature's third call: runtime/eager_kernels.py)
        step(*args)
    from runtime import eager_kernels
    eager_kernels.wait_pending()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        step(*args)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rows", nargs="*", default=list(ROWS), help="MODEL:BATCH (default: the seven rows)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=None,
                   help="threads for both (torch.set_num_threads; ours: BLAS threads)")
    p.add_argument("--profile", action="store_true")
    args = p.parse_args(argv)
    if args.threads:
        os.environ["RUNTIME_BLAS_THREADS"] = str(args.threads)
        os.environ["BENCH_THREADS"] = str(args.threads)  # models.torch_net reads it
    import runtime as ms  # noqa: F401  (after the thread settings)
    print(f"{'row':16s} {'ours ms':>9s} {'torch ms':>9s} {'torch/ours':>10s}")
    for row in args.rows:
        model, batch = row.split(":")
        if args.profile:
            profile(model, int(batch))
            continue
        r = measure(model, int(batch), args.rounds)
        t = "-" if r["torch_ms"] is None else f"{r['torch_ms']:.2f}"
        q = "-" if r["torch_over_ours"] is None else f"{r['torch_over_ours']:.2f}"
        print(f"{row:16s} {r['ours_ms']:9.2f} {t:>9s} {q:>10s}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
