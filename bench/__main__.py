"""``python -m bench``: the comparison table (ours PyNative / GRAPH / @jit whole step vs PyTorch
eager and torch.compile when installed), printed and written to bench/results/latest.json.

Medians of repeated calls in one process, so the ratios are measured in the same run. Options:
``--quick`` (fewer repeats), ``--no-torch``, ``--backend numpy|llvm`` (graph backend), ``--json PATH``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runtime as ms  # noqa: E402
from runtime import nn  # noqa: E402

import models  # noqa: E402


def _median_ms(fn, args, repeats, warmup=3):
    for _ in range(warmup):
        fn(*args)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def _ours_jit_step(model, batch, backend):
    import capture
    ms.set_seed(0)
    net = models.LeNet5() if model == "lenet" else models.MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss), None, opt.parameters)

    def step(x, y):
        loss_value, grads = grad_fn(x, y)
        opt(grads)
        return loss_value

    return capture.jit(step, backend=backend), models._inputs(model, batch)


def train_row(model, batch, repeats, backend, torch_ok):
    row = {"case": f"{model} train b{batch}"}
    step, args = models.ours_train_step(model, batch)
    row["ours_pynative_ms"] = _median_ms(step, args, repeats)
    import capture
    capture.reset()
    old = os.environ.get("CAPTURE_BACKEND")
    if backend:
        os.environ["CAPTURE_BACKEND"] = backend
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        step, args = models.ours_train_step(model, batch)
        row["ours_graph_ms"] = _median_ms(step, args, repeats)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        if backend:
            if old is None:
                os.environ.pop("CAPTURE_BACKEND", None)
            else:
                os.environ["CAPTURE_BACKEND"] = old
    jstep, jargs = _ours_jit_step(model, batch, backend)
    row["ours_jit_step_ms"] = _median_ms(jstep, jargs, repeats)
    if torch_ok:
        tstep, targs = models.torch_train_step(model, batch)
        row["torch_eager_ms"] = _median_ms(tstep, targs, repeats)
        try:
            cstep, cargs = models.torch_train_step(model, batch, compiled=True)
            row["torch_compile_ms"] = _median_ms(cstep, cargs, repeats, warmup=5)
        except Exception as e:  # torch.compile needs a working C++ toolchain
            row["torch_compile_ms"] = None
            row["torch_compile_error"] = f"{type(e).__name__}: {e}"[:200]
    return row


def inference_row(repeats, backend, torch_ok):
    row = {"case": "lenet inference b32"}
    net, args = models.ours_inference("lenet", 32)
    row["ours_pynative_ms"] = _median_ms(net, args, repeats)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        row["ours_graph_ms"] = _median_ms(net, args, repeats)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    if torch_ok:
        fn, targs = models.torch_inference("lenet", 32)
        row["torch_eager_ms"] = _median_ms(fn, targs, repeats)
    return row


def chain_rows(repeats, backend):
    import capture
    from runtime import Tensor, ops
    rows = []
    for n in (10**3, 10**5, 10**6, 10**7):
        x = np.random.default_rng(0).normal(size=n).astype(np.float32)
        a, b, c = 1.5, 0.25, 0.75
        row = {"case": f"chain tanh(x*a+b)*c+exp(-x) n={n:.0e}"}
        row["numpy_ms"] = _median_ms(lambda x: np.tanh(x * a + b) * c + np.exp(-x), (x,), repeats)
        t = Tensor(x)
        f = lambda x: ops.tanh(x * a + b) * c + ops.exp(-x)  # noqa: E731
        row["ours_pynative_ms"] = _median_ms(f, (t,), repeats)
        capture.reset()
        jf = capture.jit(lambda x: ops.tanh(x * a + b) * c + ops.exp(-x), backend=backend)
        row["ours_graph_ms"] = _median_ms(jf, (t,), repeats)
        dst = np.empty_like(x)
        copy_ms = _median_ms(np.copyto, (dst, x), repeats)
        row["copy_ms"] = copy_ms
        # bytes moved by the fused kernel: read x, write the result
        row["graph_frac_of_copy_bw"] = copy_ms / row["ours_graph_ms"] if row["ours_graph_ms"] else None
        rows.append(row)
    return rows


_FIRST_STEP = r"""
import os, sys, time
sys.path.insert(0, {bench!r})
t0 = time.perf_counter()
import runtime as ms, models
ms.set_context(mode=ms.GRAPH_MODE)
step, args = models.ours_train_step("lenet", 32)
t1 = time.perf_counter()
step(*args)
print((time.perf_counter() - t1) * 1e3)
"""


def first_step_rows(backend):
    """First GRAPH-mode LeNet5 step in a fresh process: cold (empty compile cache) and warm."""
    rows = []
    with tempfile.TemporaryDirectory() as cache_dir:
        env = dict(os.environ, MSJIT_CACHE_DIR=cache_dir)
        if backend:
            env["CAPTURE_BACKEND"] = backend
        code = _FIRST_STEP.format(bench=os.path.dirname(os.path.abspath(__file__)))
        for label in ("cold", "warm"):
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
            ms_value = float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else None
            rows.append({"case": f"first GRAPH step lenet b32 ({label} process)", "ours_graph_ms": ms_value})
    return rows


COLUMNS = ["ours_pynative_ms", "ours_graph_ms", "ours_jit_step_ms", "torch_eager_ms", "torch_compile_ms",
           "numpy_ms", "copy_ms", "graph_frac_of_copy_bw"]


def print_table(rows):
    cols = [c for c in COLUMNS if any(c in r for r in rows)]
    width = max(len(r["case"]) for r in rows) + 2
    print("case".ljust(width) + "".join(c.replace("_ms", "").rjust(18) for c in cols))
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            cells.append(("-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))).rjust(18))
        print(r["case"].ljust(width) + "".join(cells))


def main(argv=None):
    p = argparse.ArgumentParser(description="benchmark table")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--backend", default=None)
    p.add_argument("--json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                  "latest.json"))
    args = p.parse_args(argv)
    repeats = 10 if args.quick else 30
    torch_ok = False
    if not args.no_torch:
        try:
            import torch  # noqa: F401
            torch_ok = True
        except ImportError:
            pass
    rows = []
    for model, batch in (("lenet", 32), ("lenet", 256), ("mlp", 32), ("mlp", 1024)):
        rows.append(train_row(model, batch, repeats if batch < 1000 else max(5, repeats // 3), args.backend,
                              torch_ok))
    rows.append(inference_row(repeats, args.backend, torch_ok))
    rows.extend(chain_rows(repeats, args.backend))
    rows.extend(first_step_rows(args.backend))
    print_table(rows)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json + ".tmp", "w") as f:
        json.dump({"rows": rows, "python": sys.version, "backend": args.backend}, f, indent=2)
    os.replace(args.json + ".tmp", args.json)
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
