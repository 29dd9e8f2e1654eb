"""First training step in a fresh process: PyNative, GRAPH_MODE cold (empty caches) and GRAPH_MODE
warm (the disk caches an earlier process filled: optimised schedules and kernels; the frames are
translated anew, capture/persist.py).

Each sample is a new interpreter; the three kinds run interleaved, round after round, so their
ratios share the machine's conditions. Reported per model: the median first-step time of each
kind, the warm/PyNative ratio (of wall times, and of the main thread's CPU times, which a loaded
machine disturbs less), and the time from ``import`` to the first step's result (``setup+first``:
graph mode's set-up imports and initialises the compiler).

    python -m bench.warm_start                    # lenet, mlp, encoder (a Transformer encoder); 5 rounds
    python -m bench.warm_start --rounds 3 --models lenet mlp --profile   # + where the warm step's time goes
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
MODELS = ("lenet", "mlp", "encoder")

_WORKER = r"""
import json, sys, time
root, bench, mode, model, batch, profile = sys.argv[1:7]
sys.path[:0] = [root, bench]
t0 = time.perf_counter()
import runtime as ms, models
if mode == "graph":
    ms.set_context(mode=ms.GRAPH_MODE)
step, args = models.ours_train_step(model, int(batch))
phases = {}
if profile == "1" and mode == "graph":
    import functools
    import capture.compile_policy as cp, capture.guards as gd, codegen
    from capture import persist
    def timed(mod, name, label):
        f = getattr(mod, name)
        @functools.wraps(f)
        def g(*a, **k):
            s = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                phases[label] = phases.get(label, 0.0) + (time.perf_counter() - s) * 1e3
        setattr(mod, name, g)
    timed(cp, "translate", "translate")
    timed(gd.GuardSet, "compile", "guards")
    timed(codegen, "schedule_graph", "passes")
    timed(codegen, "compile_schedule", "kernels+runner")
    timed(persist, "cached_schedule", "schedule (cache or passes)")
    timed(cp, "_compile_entry", "compile total")
t1, c1 = time.perf_counter(), time.thread_time()
step(*args)
t2, c2 = time.perf_counter(), time.thread_time()
warm = False
if mode == "graph":
    from capture import cache
    warm = any(e.warm_start for c in cache._CACHES.values() for e in c.entries)
print(json.dumps({"first_ms": (t2 - t1) * 1e3, "first_cpu_ms": (c2 - c1) * 1e3, "setup_first_ms": (t2 - t0) * 1e3,
                  "warm": warm, "phases": phases}))
"""


def _sample(python, root, mode, model, batch, cache_dir, profile=False):
    env = dict(os.environ, MSJIT_CACHE_DIR=cache_dir)
    env.pop("CAPTURE_DISK_CACHE", None)
    out = subprocess.run([python, "-c", _WORKER, root, BENCH, mode, model, str(batch), "1" if profile else "0"],
                         capture_output=True, text=True, env=env, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"{mode} {model}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(models=MODELS, rounds=5, batch=32, python=sys.executable, root=ROOT, profile=False):
    """{model: {"pynative_ms", "cold_ms", "warm_ms", "warm_over_pynative", ...}} (medians)."""
    result = {}
    for model in models:
        samples = {"pynative": [], "cold": [], "warm": []}
        phases = []
        for _ in range(rounds):
            with tempfile.TemporaryDirectory() as cache_dir:
                samples["pynative"].append(_sample(python, root, "pynative", model, batch, cache_dir))
                # (profiled like the warm one: the timing wrappers are frames the graph's source
                # locations may name, and locations are part of a schedule's key)
                cold = _sample(python, root, "graph", model, batch, cache_dir, profile)
                if cold["warm"]:
                    raise RuntimeError("a cold process found a warm cache")
                samples["cold"].append(cold)
                warm = _sample(python, root, "graph", model, batch, cache_dir, profile)
                samples["warm"].append(warm)
                phases.append(warm["phases"])
        row = {}
        for kind, runs in samples.items():
            row[f"{kind}_ms"] = statistics.median(r["first_ms"] for r in runs)
            row[f"{kind}_setup_first_ms"] = statistics.median(r["setup_first_ms"] for r in runs)
            # (the main thread's CPU time: less sensitive to a loaded machine than wall time)
            row[f"{kind}_cpu_ms"] = statistics.median(r["first_cpu_ms"] for r in runs)
        row["warm_hit"] = all(r["warm"] for r in samples["warm"])
        row["warm_over_pynative"] = row["warm_ms"] / row["pynative_ms"]
        row["cold_over_pynative"] = row["cold_ms"] / row["pynative_ms"]
        row["warm_over_pynative_cpu"] = row["warm_cpu_ms"] / row["pynative_cpu_ms"]
        if profile:
            row["warm_phases_ms"] = {k: statistics.median(p.get(k, 0.0) for p in phases) for k in phases[0]}
        result[model] = row
    return result


def rows(result, batch=32):
    """Table rows for ``python -m bench`` (column ``ours_graph_ms``; the ratio in the case name)."""
    out = []
    for model, r in result.items():
        out.append({"case": f"first step {model} b{batch}: PyNative", "ours_pynative_ms": r["pynative_ms"]})
        out.append({"case": f"first step {model} b{batch}: GRAPH cold process", "ours_graph_ms": r["cold_ms"]})
        out.append({"case": f"first step {model} b{batch}: GRAPH warm process "
                            f"({r['warm_over_pynative']:.2f}x PyNative's)", "ours_graph_ms": r["warm_ms"]})
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.warm_start", description=__doc__.split("\n\n")[0])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--python", default=sys.executable, help="interpreter of the framework measured")
    p.add_argument("--root", default=ROOT, help="checkout of the framework measured (default: this one)")
    p.add_argument("--profile", action="store_true", help="also time the warm first step's phases")
    args = p.parse_args(argv)
    result = measure(args.models, args.rounds, args.batch, args.python, args.root, args.profile)
    for model, r in result.items():
        print(f"{model} b{args.batch}: first step PyNative {r['pynative_ms']:.1f} ms, GRAPH cold {r['cold_ms']:.1f} ms, "
              f"GRAPH warm {r['warm_ms']:.1f} ms = {r['warm_over_pynative']:.2f}x PyNative "
              f"(setup+first: {r['pynative_setup_first_ms']:.0f} / {r['cold_setup_first_ms']:.0f} / "
              f"{r['warm_setup_first_ms']:.0f} ms; main-thread CPU of the first step: warm/PyNative "
              f"{r['warm_over_pynative_cpu']:.2f}x; warm hit: {r['warm_hit']})")
        if "warm_phases_ms" in r:
            print("   warm phases (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in r["warm_phases_ms"].items()))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
