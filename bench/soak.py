"""Long-run soak: train with capture for many steps across recompiles, resets and checkpoint
saves, and report the process's resources at intervals -- all of them must stay flat.

``python -m bench.soak [--steps 50000] [--every 2500]`` prints one line per interval (RSS, open
files, threads, compiled entries, live execution engines) and a summary with the growth between
the first interval after warm-up and the last; the exit status is 1 when a resource grew past
its bound (``--max-rss-growth-mib``). CI runs a 2,000-step version (tests/e2e/test_soak.py).

Each step trains a small MLP through a jitted train step; every ``recompile_every`` steps the
batch size changes (a recompile), every ``reset_every`` steps ``capture.reset()`` drops every
compiled entry, and every ``save_every`` steps a checkpoint is written (atomically, into a temp
directory) and read back.

Example:
    >>> from bench.soak import run
    >>> report = run(steps=60, every=20, recompile_every=25, reset_every=40, save_every=30)
    >>> [r["step"] for r in report["samples"]]
    [20, 40, 60]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import threading

import numpy as np


def _rss_mib() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except OSError:  # not Linux: peak RSS is what the platform offers
        import resource
        scale = 1 if sys.platform == "darwin" else 1024
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2 ** 20


def _open_files() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


def sample(step: int) -> dict:
    """The resources this process holds now."""
    import capture
    from codegen.cpu import compiler
    gc.collect()
    return {"step": step, "rss_mib": round(_rss_mib(), 1), "open_files": _open_files(),
            "threads": threading.active_count(), "entries": sum(len(c.entries) for c in capture.cache._CACHES.values()),
            "engines": compiler.live_libraries()}


def run(steps=50_000, every=2_500, recompile_every=1_000, reset_every=10_000, save_every=5_000, seed=0,
        out=None) -> dict:
    """Train for ``steps`` steps; returns ``{"samples": [...], "growth": {...}, "final_loss": ...}``."""
    import capture
    import runtime as ms
    from runtime import Tensor, nn

    ms.set_seed(seed)
    rng = np.random.default_rng(seed)
    net = nn.SequentialCell([nn.Dense(32, 64), nn.ReLU(), nn.Dense(64, 10)])
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.SGD(net.trainable_params(), 0.05)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    @ms.jit
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    w_true = rng.standard_normal((32, 10)).astype(np.float32)
    batches = (16, 32, 48)
    samples, loss = [], float("nan")
    with tempfile.TemporaryDirectory(prefix="msjit-soak-") as tmp:
        ckpt = os.path.join(tmp, "soak.ckpt")
        for step in range(1, steps + 1):
            b = batches[(step // recompile_every) % len(batches)]
            x = rng.standard_normal((b, 32)).astype(np.float32)
            y = (x @ w_true).argmax(1).astype(np.int32)
            loss = float(train_step(Tensor(x), Tensor(y)).asnumpy())
            if step % reset_every == 0:
                capture.reset()
            if step % save_every == 0:
                ms.save_checkpoint(net, ckpt)
                ms.load_param_into_net(net, ms.load_checkpoint(ckpt))
            if step % every == 0:
                s = sample(step)
                s["loss"] = round(loss, 4)
                samples.append(s)
                if out is not None:
                    print(json.dumps(s), file=out, flush=True)
    first = samples[min(1, len(samples) - 1)] if samples else None  # after warm-up
    last = samples[-1] if samples else None
    growth = {k: last[k] - first[k] for k in ("rss_mib", "open_files", "threads", "entries", "engines")} if samples else {}
    return {"samples": samples, "growth": growth, "final_loss": loss}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=50_000)
    p.add_argument("--every", type=int, default=2_500)
    p.add_argument("--max-rss-growth-mib", type=float, default=50.0)
    a = p.parse_args(argv)
    report = run(steps=a.steps, every=a.every, out=sys.stdout)
    print(json.dumps({"growth": report["growth"], "final_loss": report["final_loss"]}))
    g = report["growth"]
    flat = (g.get("rss_mib", 0) <= a.max_rss_growth_mib and g.get("open_files", 0) <= 0
            and g.get("threads", 0) <= 0 and g.get("engines", 0) <= 8)
    return 0 if flat else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    raise SystemExit(main())
