"""Whole-step ``@jit`` time per thread configuration: our kernel pool (``MSJIT_THREADS``) and
numpy's BLAS (``RUNTIME_BLAS_THREADS``) sized independently, each configuration in its own fresh
process, interleaved round by round (so a busy moment of a shared machine hits every column).

Prints one row per workload: the median over rounds of each process's median step time (ms).
A configuration is ``POOLxBLAS`` (``0`` leaves that setting at its default, every core).

Run: ``python -m bench.thread_matrix [--rounds 5] [--steps 30] [--workloads lenet:256,mlp:1024]
[--configs 1x1,0x1,1x0,0x0] [--json out.json]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_STEP = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from bench.models import ours_jit_train_step
step, args = ours_jit_train_step({model!r}, {batch})
for _ in range(5):
    step(*args)
ts = []
for _ in range({steps}):
    t = time.perf_counter(); step(*args); ts.append(time.perf_counter() - t)
ts.sort()
print(json.dumps(ts[len(ts) // 2] * 1e3))
"""


def step_ms(model, batch, pool, blas, steps) -> float | None:
    """Median step time (ms) of a fresh process with the pool and BLAS sized ``pool``/``blas``
    threads (0: the default)."""
    env = dict(os.environ)
    for var, n in (("MSJIT_THREADS", pool), ("RUNTIME_BLAS_THREADS", blas)):
        if n:
            env[var] = str(n)
        else:
            env.pop(var, None)
    bench = os.path.dirname(os.path.abspath(__file__))
    code = _STEP.format(root=os.path.dirname(bench), model=model, batch=batch, steps=steps)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=os.path.dirname(bench), timeout=600)
    if out.returncode != 0:
        print(out.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.thread_matrix", description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--workloads", default="lenet:256,mlp:1024")
    p.add_argument("--configs", default="1x1,0x1,1x0,0x0")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    workloads = [(w.split(":")[0], int(w.split(":")[1])) for w in args.workloads.split(",")]
    configs = [tuple(int(n) for n in c.split("x")) for c in args.configs.split(",")]
    times = {(w, c): [] for w in workloads for c in configs}
    for _ in range(args.rounds):
        for w in workloads:
            for c in configs:
                t = step_ms(*w, *c, args.steps)
                if t is not None:
                    times[(w, c)].append(t)
    heads = [f"pool {c[0] or 'all'}, BLAS {c[1] or 'all'}" for c in configs]
    print("workload".ljust(14) + "".join(h.rjust(20) for h in heads))
    rows = []
    for w in workloads:
        meds = [statistics.median(times[(w, c)]) if times[(w, c)] else None for c in configs]
        rows.append({"workload": f"{w[0]} b{w[1]}", **{h: m for h, m in zip(heads, meds)}})
        print(f"{w[0]} b{w[1]}".ljust(14) + "".join(("-" if m is None else f"{m:.2f}").rjust(20) for m in meds))
    if args.json:
        from capture.webpage import write_atomically
        write_atomically(args.json, json.dumps({"rounds": args.rounds, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
