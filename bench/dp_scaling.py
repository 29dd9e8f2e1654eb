"""Data-parallel scaling on this machine: step time, communication time and overlap, 1 -> N ranks.

    python bench/dp_scaling.py                          # one process (the whole machine)
    python -m runtime.launch -n 2 bench/dp_scaling.py   # two ranks (each its share of the cores)

Each configuration trains an MLP (784-1024-1024-10, 1.86 M parameters: 7.5 MB of float32
gradients) with a whole train step under ``@ms.jit`` (forward, backward, bucketed all-reduce,
Momentum update: one compiled graph) on random data, and rank 0 prints one JSON line:

* ``step_ms``: median wall time of a step (``step_ms_min``: the fastest); ``samples_per_s``: ranks x
  per-rank batch / median step;
* ``comm_ms``: the same buckets all-reduced alone (no computation to hide behind), the median of
  repeated exchanges: what communication costs when nothing overlaps it;
* ``blocked_ms``: per step, the time the step really waited for communication (time blocked in
  the collectives' waits); ``overlap`` = 1 - blocked / comm, the share of the communication the
  rest of the step hid.

Options: ``--batch`` per-rank batch (64), ``--steps`` timed steps (40), ``--bucket-mb`` bucket sizes
to try (25 = one bucket for this model, and 2), ``--no-progress`` (compiled steps do not let MPI
progress the exchanges between their kernels: shows what that buys), ``--no-reduce`` (replicas
that do not exchange gradients: the step's cost without communication).
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
from graph.ops import comm
from runtime import Tensor, nn
from runtime.communication import get_rank, init
from runtime.parallel import reducer


def _model():
    ms.set_seed(0)
    return nn.SequentialCell([nn.Dense(784, 1024), nn.ReLU(), nn.Dense(1024, 1024), nn.ReLU(), nn.Dense(1024, 10)])


def _comm_ms(params, buckets, repeats=20):
    """Median time of all-reducing these buckets alone (blocking; the same bytes as a step)."""
    world = comm.world()
    if world.size == 1:
        return 0.0
    flats = [np.concatenate([params[i].asnumpy().ravel() for i in b]) for b in buckets]
    times = []
    for _ in range(repeats):
        world.all_reduce(np, np.zeros(1, np.float32), "sum")  # line the ranks up
        t0 = time.perf_counter()
        pending = [world.start_all_reduce(np, f, "sum") for f in flats]
        for p in pending:
            p.wait()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def measure(batch, steps, bucket_mb, reduce=True):
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL if reduce else ms.ParallelMode.STAND_ALONE,
                                 gradients_mean=True, comm_fusion={"allreduce": {"mode": "size", "config": bucket_mb}})
    net = _model()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                                     reduction="mean")),
                                None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    rng = np.random.default_rng(get_rank())
    x = Tensor(rng.normal(size=(batch, 784)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, batch).astype(np.int32))
    for _ in range(5):  # compile, warm up
        step(x, y)
    world = comm.world()
    times, blocked = [], []
    for _ in range(steps):
        b0 = getattr(world, "blocked_seconds", 0.0)
        t0 = time.perf_counter()
        step(x, y).asnumpy()
        times.append(time.perf_counter() - t0)
        blocked.append(getattr(world, "blocked_seconds", 0.0) - b0)
    params = net.trainable_params()
    buckets = reducer.buckets_for(params)
    step_ms = statistics.median(times) * 1e3
    comm_ms = _comm_ms(params, buckets) if reduce else 0.0
    blocked_ms = statistics.median(blocked) * 1e3
    return {
        "ranks": world.size, "batch_per_rank": batch, "reduce": reduce,
        "bucket_mb": bucket_mb if reduce else None, "buckets": len(buckets) if reduce else 0,
        "threads_per_rank": ms.get_context("num_threads") or int(os.environ.get("MSJIT_THREADS", "0")) or None,
        "step_ms": round(step_ms, 2), "step_ms_min": round(min(times) * 1e3, 2),
        "samples_per_s": round(world.size * batch / step_ms * 1e3, 1),
        "comm_ms": round(comm_ms, 2), "blocked_ms": round(blocked_ms, 2),
        "overlap": round(1 - blocked_ms / comm_ms, 2) if comm_ms > 0 else None,
        "load_average": round(os.getloadavg()[0], 2),
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, nargs="+", default=[64])
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--bucket-mb", type=float, nargs="+", default=[25.0, 2.0])
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--no-reduce", action="store_true",
                   help="stand-alone replicas (no gradient exchange): the step's cost without communication")
    args = p.parse_args(argv)
    if args.no_progress:
        from codegen.cpu import runner
        runner._with_progress = lambda step: step
    init()
    for batch in args.batch:
        for mb in args.bucket_mb:
            result = measure(batch, args.steps, mb, reduce=not args.no_reduce)
            result["progress_between_kernels"] = not args.no_progress
            if get_rank() == 0:
                print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
