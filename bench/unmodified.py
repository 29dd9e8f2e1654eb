"""Unmodified scripts under ``python -m capture run``: what capture gives a plain PyNative
training script, and what the frame hook costs a script that never touches the framework.

Three generated scripts, each run in fresh processes, interleaved round by round:

- ``step_fn``: the MindSpore tutorial's pattern (a ``train_step`` function calling a
  ``value_and_grad`` function and the optimizer) on LeNet5, batch 32, run as ``python script.py``,
  as ``python -m capture run script.py`` and with ``@ms.jit`` on ``train_step``;
- ``inline``: the same loop with the step written inline in ``main()``;
- ``pure_python``: a Python-only workload (function calls, dicts, a list sort), plain vs under
  ``capture run`` (the hook's cost on frames it skips).

Each script prints JSON: ms per step after warm-up, the first step's ms and the first 60 losses.

Run: ``python -m bench.unmodified [--steps 200] [--rounds 3] [--json out.json]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

_LENET = '''
import json, os, sys, time
import numpy as np
import runtime as ms
from runtime import nn

class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

STEPS = int(os.environ.get("BENCH_STEPS", "200"))
ms.set_seed(0)
model = LeNet5()
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
optimizer = nn.Momentum(model.trainable_params(), 0.01, 0.9)
rng = np.random.default_rng(0)
data = [(ms.Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32)),
         ms.Tensor(rng.integers(0, 10, 32).astype(np.int32))) for _ in range(16)]

def forward_fn(x, y):
    logits = model(x)
    return loss_fn(logits, y), logits

grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
'''

_STEP_FN = _LENET + '''
def train_step(x, y):
    (loss, _), grads = grad_fn(x, y)
    optimizer(grads)
    return loss

if os.environ.get("BENCH_JIT"):
    train_step = ms.jit(train_step)

def main():
    times, losses = [], []
    for step in range(STEPS):
        x, y = data[step % len(data)]
        t0 = time.perf_counter()
        loss = train_step(x, y)
        losses.append(float(loss.asnumpy()))
        times.append(time.perf_counter() - t0)
    print(json.dumps({"first_ms": times[0] * 1e3, "ms": sorted(times[10:])[len(times[10:]) // 2] * 1e3,
                      "losses": losses[:60]}))

main()
'''

_INLINE = _LENET + '''
def main():
    times, losses = [], []
    for step in range(STEPS):
        x, y = data[step % len(data)]
        t0 = time.perf_counter()
        (loss, _), grads = grad_fn(x, y)
        optimizer(grads)
        losses.append(float(loss.asnumpy()))
        times.append(time.perf_counter() - t0)
    print(json.dumps({"first_ms": times[0] * 1e3, "ms": sorted(times[10:])[len(times[10:]) // 2] * 1e3,
                      "losses": losses[:60]}))

main()
'''

_PURE = '''
import json, time

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def words(n):
    counts = {}
    for i in range(n):
        w = "w%d" % (i % 97)
        counts[w] = counts.get(w, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

t0 = time.perf_counter()
for _ in range(5):
    fib(20)
    words(20000)
print(json.dumps({"ms": (time.perf_counter() - t0) * 1e3}))
'''

_SCRIPTS = {"step_fn": _STEP_FN, "inline": _INLINE, "pure_python": _PURE}
# (script, variant) -> how it is launched
_VARIANTS = [("step_fn", "python"), ("step_fn", "capture run"), ("step_fn", "@ms.jit"),
             ("inline", "python"), ("inline", "capture run"),
             ("pure_python", "python"), ("pure_python", "capture run")]


def _run(folder, script, variant, steps):
    path = os.path.join(folder, f"{script}.py")
    env = dict(os.environ, BENCH_STEPS=str(steps))
    env.pop("BENCH_JIT", None)
    cmd = [sys.executable, path]
    if variant == "capture run":
        cmd = [sys.executable, "-m", "capture", "run", path]
    elif variant == "@ms.jit":
        env["BENCH_JIT"] = "1"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"{script} ({variant}) failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(steps=200, rounds=3):
    """{(script, variant): [result per round]} measured in interleaved rounds."""
    results = {key: [] for key in _VARIANTS}
    with tempfile.TemporaryDirectory() as folder:
        for name, text in _SCRIPTS.items():
            with open(os.path.join(folder, f"{name}.py"), "w") as f:
                f.write(textwrap.dedent(text))
        for _ in range(rounds):
            for script, variant in _VARIANTS:
                results[(script, variant)].append(_run(folder, script, variant, steps))
    return results


def summarize(results) -> dict:
    med = {k: statistics.median(r["ms"] for r in v) for k, v in results.items()}
    first = {k: statistics.median(r["first_ms"] for r in v) for k, v in results.items() if "first_ms" in v[0]}

    def same_losses(a, b):
        la, lb = results[a][0]["losses"], results[b][0]["losses"]
        return max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(la, lb))

    return {
        "ms_per_step": {f"{s} / {v}": round(m, 3) for (s, v), m in med.items() if s != "pure_python"},
        "first_step_ms": {f"{s} / {v}": round(m, 1) for (s, v), m in first.items()},
        "speedup_capture_run_step_fn": med[("step_fn", "python")] / med[("step_fn", "capture run")],
        "speedup_capture_run_inline": med[("inline", "python")] / med[("inline", "capture run")],
        "capture_run_vs_jit_step_fn": med[("step_fn", "capture run")] / med[("step_fn", "@ms.jit")],
        "max_rel_loss_diff_60_steps": {
            "step_fn capture run": same_losses(("step_fn", "capture run"), ("step_fn", "python")),
            "inline capture run": same_losses(("inline", "capture run"), ("inline", "python")),
        },
        "pure_python_ms": {"python": med[("pure_python", "python")],
                           "capture run": med[("pure_python", "capture run")]},
        "hook_overhead_pure_python": med[("pure_python", "capture run")] / med[("pure_python", "python")] - 1,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default=None, help="also write the summary here")
    args = ap.parse_args(argv)
    summary = summarize(measure(args.steps, args.rounds))
    print(json.dumps(summary, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
