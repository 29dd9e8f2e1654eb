"""``python -m bench gpu``: the GPU comparison table (issue 16 item 5).

Workloads: LeNet5 train b256, MLP train b1024, a ResNet-18-sized CNN (CIFAR ResNet-18, 11.2M
parameters, batch norm) train b128, and the elementwise chain ``tanh(x*a+b)*c+exp(-x)`` at 1e8.
Ours in PyNative, GRAPH_MODE and ``@jit`` of the whole step (forward, backward, Momentum update)
with ``device_target="GPU"``, against PyTorch eager, ``torch.compile`` and JAX ``jit`` on the same
GPU when they are installed; the chain also against the measured device-to-device copy bandwidth
(``frac_of_copy_bw``: the chain reads and writes as many bytes as a copy). Every timing
synchronises the device (medians of repeated calls in one process, so ratios are from one run).
The issue's targets are checked at the end: ours ``@jit`` faster than torch eager on every
workload and within 1.2x of the fastest peer, the chain at >= 80% of the copy bandwidth.

Status: written and dry-run on the CPU (``--dry-run``: every row of ours at tiny sizes, which the
test suite runs), **not yet run on a GPU**: its numbers await a session with one.

Options: ``--quick`` (fewer repeats), ``--no-torch``, ``--no-jax``, ``--models lenet,mlp,resnet18``,
``--json PATH`` (default ``bench/results/gpu-latest.json``), ``--dry-run``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runtime as ms
from runtime import nn

import models

WORKLOADS = [("lenet", 256), ("mlp", 1024), ("resnet18", 128)]
CHAIN_N = 10 ** 8
RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
COLUMNS = ["ours_pynative_ms", "ours_graph_ms", "ours_jit_ms", "torch_eager_ms", "torch_compile_ms", "jax_jit_ms",
           "copy_ms", "frac_of_copy_bw", "ours_jit_gflops"]


def _median_ms(fn, args, repeats, sync, warmup=3):
    for _ in range(warmup):
        fn(*args)
    sync()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def _ours_sync():
    from runtime import device
    cp = device.cupy_module()
    return cp.cuda.Device().synchronize if cp is not None else (lambda: None)


def _torch_sync():
    import torch
    return torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)


def _guarded(row, key, measure):
    try:
        row[key] = measure()
    except Exception as e:  # a broken peer (no CUDA build, no toolchain) must not cost the table
        row[key] = None
        row[key.replace("_ms", "_error")] = f"{type(e).__name__}: {e}"[:200]


def train_row(model, batch, repeats, torch_ok, jax_ok, torch_device):
    import capture
    sync = _ours_sync()
    row = {"case": f"{model} train b{batch}"}
    step, args = models.ours_train_step(model, batch)
    row["ours_pynative_ms"] = _median_ms(step, args, repeats, sync)
    capture.reset()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        step, args = models.ours_train_step(model, batch)
        row["ours_graph_ms"] = _median_ms(step, args, repeats, sync)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    jstep, jargs = models.ours_jit_train_step(model, batch)
    row["ours_jit_ms"] = _median_ms(jstep, jargs, repeats, sync)
    row["ours_jit_gflops"] = models.train_step_flops(model, batch) / 1e9 / (row["ours_jit_ms"] / 1e3)
    if torch_ok:
        tsync = _torch_sync()
        _guarded(row, "torch_eager_ms", lambda: _median_ms(
            *models.torch_train_step(model, batch, device=torch_device), repeats, tsync))
        _guarded(row, "torch_compile_ms", lambda: _median_ms(
            *models.torch_train_step(model, batch, compiled=True, device=torch_device), repeats, tsync, warmup=5))
    if jax_ok:  # the step blocks until its loss is ready
        _guarded(row, "jax_jit_ms", lambda: _median_ms(*models.jax_train_step(model, batch), repeats, lambda: None,
                                                       warmup=5))
    return row


def chain_row(n, repeats, torch_ok, jax_ok, torch_device):
    import capture
    from runtime import Tensor, ops
    sync = _ours_sync()
    a, b, c = 1.5, 0.25, 0.75
    row = {"case": f"chain tanh(x*a+b)*c+exp(-x) n={n:.0e}"}
    x = Tensor(np.random.default_rng(0).normal(size=n).astype(np.float32))

    def chain(x):
        return ops.tanh(x * a + b) * c + ops.exp(-x)
    row["ours_pynative_ms"] = _median_ms(chain, (x,), repeats, sync)
    capture.reset()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        cell = _ChainCell()
        row["ours_graph_ms"] = _median_ms(cell, (x,), repeats, sync)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    capture.reset()
    row["ours_jit_ms"] = _median_ms(capture.jit(chain), (x,), repeats, sync)
    data = x._data
    dst = data.copy()

    def copy(src):
        dst[...] = src
    row["copy_ms"] = _median_ms(copy, (data,), repeats, sync)
    row["copy_gb_s"] = 2 * data.nbytes / (row["copy_ms"] / 1e3) / 1e9
    row["frac_of_copy_bw"] = row["copy_ms"] / row["ours_jit_ms"]
    if torch_ok:
        import torch
        tx = torch.as_tensor(np.random.default_rng(0).normal(size=n).astype(np.float32), device=torch_device)
        tsync = _torch_sync()

        def tchain(x):
            return torch.tanh(x * a + b) * c + torch.exp(-x)
        _guarded(row, "torch_eager_ms", lambda: _median_ms(tchain, (tx,), repeats, tsync))
        _guarded(row, "torch_compile_ms", lambda: _median_ms(torch.compile(tchain), (tx,), repeats, tsync, warmup=5))
    if jax_ok:
        def measure_jax():
            import jax
            import jax.numpy as jnp
            jx = jnp.asarray(np.random.default_rng(0).normal(size=n).astype(np.float32))
            jf = jax.jit(lambda x: jnp.tanh(x * a + b) * c + jnp.exp(-x))
            return _median_ms(lambda x: jf(x).block_until_ready(), (jx,), repeats, lambda: None, warmup=5)
        _guarded(row, "jax_jit_ms", measure_jax)
    return row


class _ChainCell(nn.Cell):
    def construct(self, x):
        from runtime import ops
        return ops.tanh(x * 1.5 + 0.25) * 0.75 + ops.exp(-x)


def check_targets(rows) -> list:
    """The issue's targets, one line each: ours @jit faster than torch eager on every workload and
    within 1.2x of the fastest peer; the chain at >= 80% of the copy bandwidth."""
    lines = []
    for r in rows:
        ours = r.get("ours_jit_ms")
        peers = {k: r[k] for k in ("torch_eager_ms", "torch_compile_ms", "jax_jit_ms") if r.get(k)}
        if ours and r.get("torch_eager_ms"):
            ok = ours < r["torch_eager_ms"]
            lines.append(f"{'ok  ' if ok else 'MISS'} {r['case']}: @jit {ours:.3f} ms vs torch eager {r['torch_eager_ms']:.3f} ms")
        if ours and peers:
            best = min(peers, key=peers.get)
            ok = ours <= 1.2 * peers[best]
            lines.append(f"{'ok  ' if ok else 'MISS'} {r['case']}: @jit within 1.2x of the fastest peer "
                         f"({best[:-3]} {peers[best]:.3f} ms): {ours / peers[best]:.2f}x")
        if r.get("frac_of_copy_bw") is not None:
            ok = r["frac_of_copy_bw"] >= 0.8
            lines.append(f"{'ok  ' if ok else 'MISS'} {r['case']}: {100 * r['frac_of_copy_bw']:.0f}% of the copy "
                         f"bandwidth ({r['copy_gb_s']:.0f} GB/s)")
    return lines


def _installed(name) -> bool:
    try:
        __import__(name)
        return True
    except Exception:
        return False


def main(argv=None, table=None) -> int:
    """``python -m bench gpu [options]``; ``table`` is the bench's table module (its
    ``format_table`` and ``COLUMNS``), passed by ``bench/__main__.py``."""
    if table is None:
        import bench.__main__ as table
    p = argparse.ArgumentParser(prog="python -m bench gpu", description="GPU benchmark table (issue 16)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--no-jax", action="store_true")
    p.add_argument("--json", default=os.path.join(RESULTS, "gpu-latest.json"))
    p.add_argument("--dry-run", action="store_true",
                   help="every row of ours on the CPU at tiny sizes (checks the bench itself runs; no numbers)")
    p.add_argument("--models", default=",".join(m for m, _ in WORKLOADS),
                   help="comma-separated subset of " + ", ".join(m for m, _ in WORKLOADS))
    args = p.parse_args(argv)
    dry = args.dry_run
    chosen = [w for w in WORKLOADS if w[0] in args.models.split(",")]
    if dry:
        workloads, chain_n, repeats, torch_device = [(m, 2) for m, _ in chosen], 10 ** 4, 1, "cpu"
    else:
        from runtime import device
        reason = device.gpu_unavailable_reason()
        if reason:
            print(f"python -m bench gpu needs a CUDA GPU: {reason} (--dry-run checks the bench on the CPU)")
            return 2
        ms.set_context(device_target="GPU")
        workloads, chain_n, repeats, torch_device = chosen, CHAIN_N, (10 if args.quick else 30), "cuda"
    torch_ok = not args.no_torch and _installed("torch")
    jax_ok = not args.no_jax and _installed("jax") and not dry
    rows = [train_row(m, b, repeats if m != "resnet18" else max(3, repeats // 3), torch_ok, jax_ok, torch_device)
            for m, b in workloads]
    rows.append(chain_row(chain_n, repeats, torch_ok, jax_ok, torch_device))
    print(table.format_table(rows, COLUMNS))
    targets = [] if dry else check_targets(rows)
    if targets:
        print("\n".join(["", "targets (issue 16):"] + targets))
    meta = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "dry_run": dry, "gpu": _gpu_name()}
    if not dry:
        from capture.webpage import write_atomically
        write_atomically(args.json, json.dumps({"meta": meta, "rows": rows, "targets": targets}, indent=2))
        print(f"wrote {args.json}")
    return 0


def _gpu_name() -> str | None:
    from runtime import device
    cp = device.cupy_module()
    if cp is None:
        return None
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props.get("name", b"")
    return name.decode() if isinstance(name, bytes) else str(name)
