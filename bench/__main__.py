"""``python -m bench``: the comparison table (ours PyNative / GRAPH / @jit whole step vs PyTorch
eager, torch.compile and JAX jit when installed), printed for terminals and saved as JSON: this
run in ``bench/results/runs/<time>-<commit>.json`` (the history) and ``bench/results/latest.json``.

The ratios are measured in the same run: the columns of a training row are interleaved (rounds in
which every framework, each in a process of its own, runs a block of steps in turn while the
others are stopped; the median round is reported). Options:
``--quick`` (fewer repeats), ``--no-torch``, ``--no-jax``, ``--backend numpy|llvm`` (graph
backend), ``--json PATH``, ``--html PATH`` (the dashboard page: this run plus the saved history).

``python -m bench dashboard FILES... [--out dashboard.html]`` draws the dashboard from saved runs
without measuring anything. ``python -m bench dynamic [--quick]`` is the dynamic-shape row alone
(bench/dynamic_shapes.py). ``python -m bench gpu`` is the GPU table (bench/gpu.py).
"""
from __future__ import annotations

import argparse
import datetime
import glob
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runtime as ms

import fma_peak
import models


#: rounds of a training row and the shortest block (calls and seconds); see :func:`interleaved_ms`
ROUNDS = 5
MIN_BLOCK_CALLS = 5
BLOCK_SECONDS = 0.2


def _median_ms(fn, args, repeats, warmup=3):
    for _ in range(warmup):
        fn(*args)
    eager_kernels = sys.modules.get("runtime.eager_kernels")
    if eager_kernels is not None:  # (PyNative's kernels compile off-thread: the steady state has them)
        eager_kernels.wait_pending()
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


class _Worker:
    """One column of a training row: ``bench/step_worker.py`` running that framework's step in
    a process of its own, stopped (SIGSTOP) whenever another column is timed."""

    def __init__(self, column, model, batch, backend):
        self.column = column
        self.samples = []
        self.error = None
        self.per_call = None
        here = os.path.dirname(os.path.abspath(__file__))
        self.proc = subprocess.Popen([sys.executable, os.path.join(here, "step_worker.py"), column, model,
                                      str(batch), backend or ""], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1, start_new_session=True)
        first = self.proc.stdout.readline().strip()
        if first.startswith("ready "):
            self.per_call = float(first.split()[1]) / 1e3
            self.pause()
        else:
            self.error = first[len("error "):] if first.startswith("error ") else "the worker died"
            self.close()

    def _signal(self, sig):
        # the whole process group: torch.compile's compile workers are processes of their own
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:  # it has exited
            pass

    def pause(self):
        self._signal(signal.SIGSTOP)

    def block(self, calls, untimed):
        """Milliseconds per call of one timed block, or None when the worker failed (its error
        is kept, and its cell stays empty)."""
        self._signal(signal.SIGCONT)
        try:
            self.proc.stdin.write(f"run {calls} {untimed}\n")
            self.proc.stdin.flush()
            return float(self.proc.stdout.readline())
        except (OSError, ValueError):  # the worker died (a broken pipe, an empty line)
            self.error = "the worker died while timing"
            return None
        finally:
            if self.error is None:
                self.pause()

    def close(self):
        if self.proc.poll() is None:
            self._signal(signal.SIGCONT)
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def interleaved_ms(workers, repeats, rounds=ROUNDS, block_seconds=BLOCK_SECONDS):
    """Per worker (column), the median over ``rounds`` rounds of its mean call time in a block of
    calls; each round times every worker's block in turn, so load that comes and goes (other
    processes, turbo, thermal) shifts every column alike and the ratios of one row are measured
    under the same conditions. Each framework runs in its own process and every other worker is
    stopped meanwhile: no framework's idle threads (XLA's keep waking for seconds after JAX's
    last call) take cores from the one being timed. A block lasts about ``block_seconds`` (at
    least ``repeats / rounds`` calls) after a tenth as many untimed calls (the first calls after a
    pause are slow for every framework: threads asleep, caches cold)."""
    live = [w for w in workers if w.error is None]
    sizes = {id(w): max(repeats // rounds, MIN_BLOCK_CALLS, min(2000, int(block_seconds / max(w.per_call, 1e-6))))
             for w in live}
    for _ in range(rounds):
        for w in [w for w in live if w.error is None]:
            calls = sizes[id(w)]
            sample = w.block(calls, max(2, calls // 10))
            if sample is not None:
                w.samples.append(sample)
    return {w.column: statistics.median(w.samples) for w in live if w.error is None}


def train_row(model, batch, repeats, backend, torch_ok, jax_ok=False):
    """One training row: ours PyNative, GRAPH (TrainOneStepCell) and @jit whole step, PyTorch
    eager and torch.compile, JAX jit, each the median of interleaved rounds (:func:`interleaved_ms`)."""
    row = {"case": f"{model} train b{batch}"}
    columns = ["ours_pynative_ms", "ours_graph_ms", "ours_jit_step_ms"]
    columns += ["jax_jit_ms"] if jax_ok else []
    columns += ["torch_eager_ms", "torch_compile_ms"] if torch_ok else []
    workers = []
    try:
        for column in columns:
            workers.append(_Worker(column, model, batch, backend))
        row.update(interleaved_ms(workers, repeats))
    finally:
        for w in workers:
            w.close()
    for w in workers:
        if w.error is not None:
            row[w.column] = None
            row[w.column.replace("_ms", "_error")] = w.error[:200]
    row["gflop"] = models.train_step_flops(model, batch) / 1e9
    jit_ms = row.get("ours_jit_step_ms")
    row["ours_jit_gflops"] = row["gflop"] / (jit_ms / 1e3) if jit_ms else None
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


def first_step_rows(backend, rounds=3):
    """First training step in a fresh process, for LeNet5, the MLP and a Transformer encoder
    (bench/warm_start.py): PyNative, GRAPH_MODE cold (empty disk caches) and GRAPH_MODE warm (the
    caches an earlier process filled; the frames translated anew), interleaved; the warm row's
    case names its ratio to PyNative's first step."""
    import warm_start
    saved = os.environ.get("CAPTURE_BACKEND")
    if backend:
        os.environ["CAPTURE_BACKEND"] = backend
    try:
        result = warm_start.measure(rounds=rounds)
    except Exception as e:  # one failing worker must not lose the whole table
        print(f"first-step rows not measured: {type(e).__name__}: {e}")
        return []
    finally:
        if backend:
            if saved is None:
                os.environ.pop("CAPTURE_BACKEND", None)
            else:
                os.environ["CAPTURE_BACKEND"] = saved
    return warm_start.rows(result)


def dynamic_shape_rows(quick) -> list:
    """The dynamic-shape workload (bench/dynamic_shapes.py): batch and length drawn every step."""
    import dynamic_shapes
    try:
        return dynamic_shapes.rows(quick)
    except Exception as e:
        print(f"dynamic-shape row not measured: {type(e).__name__}: {e}")
        return []


COLUMNS = ["ours_pynative_ms", "ours_graph_ms", "ours_jit_step_ms", "ours_jit_specialised_ms", "torch_eager_ms", "torch_compile_ms",
           "jax_jit_ms", "ours_jit_gflops", "numpy_ms", "copy_ms", "graph_frac_of_copy_bw"]


def call_overhead_rows(calls) -> dict:
    """Per-call overhead of the ``@jit`` train steps at batch 32 (bench/call_overhead.py): what a
    step costs besides its kernels (guard, fetch, the runner's Python), printed and saved."""
    import call_overhead
    result = {}
    for model in ("lenet", "mlp"):
        r = result[f"{model} b32"] = call_overhead.measure(model, 32, calls=calls)
        print(f"per-call overhead, {model} b32 @jit step: {r['overhead_us']:.1f} us of {r['step_us']:.1f} us "
              f"(guard {r['guard_us']:.1f} us, argument fetch {r['fetch_us']:.1f} us; "
              f"{r['warm_overhead_us']:.1f} us with warm caches)")
    return result


def format_table(rows, columns=None) -> str:
    """The terminal table: one column per measured quantity, each as wide as its header needs.

    >>> print(format_table([{"case": "a", "graph_frac_of_copy_bw": 0.5, "ours_graph_ms": 1.25}]))
    case  ours_graph  graph_frac_of_copy_bw
    a          1.250                  0.500
    """
    cols = [c for c in (columns or COLUMNS) if any(c in r for r in rows)]
    heads = [c[:-3] if c.endswith("_ms") else c for c in cols]
    widths = [max(len(h), 10) + 2 for h in heads]
    case_width = max(len("case"), *(len(r["case"]) for r in rows)) + 2

    def cell(v):
        return "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))

    lines = ["case".ljust(case_width) + "".join(h.rjust(w) for h, w in zip(heads, widths))]
    for r in rows:
        lines.append(r["case"].ljust(case_width) + "".join(cell(r.get(c)).rjust(w) for c, w in zip(cols, widths)))
    return "\n".join(line.rstrip() for line in lines)


def measured_sgemm_peak_gflops(n=1024, rounds=5, repeats=5) -> float:
    """float32 matmul throughput of this machine's BLAS on all its cores (whatever limit the
    framework set for its own small GEMMs): the roofline achieved GFLOP/s is measured against.
    A peak is what the machine *can* do, so it is the best of several rounds (the fastest
    product), not a median that a loaded moment drags down; and it is never below the best this
    machine reached in earlier runs (:func:`stored_peak`), so a run measured under load still
    compares with the machine's real roof."""
    from threadpoolctl import threadpool_limits
    a = np.random.default_rng(0).normal(size=(n, n)).astype(np.float32)
    best_s = float("inf")
    with threadpool_limits(limits=os.cpu_count() or 1, user_api="blas"):
        np.matmul(a, a)
        for _ in range(rounds * repeats):
            t0 = time.perf_counter()
            np.matmul(a, a)
            best_s = min(best_s, time.perf_counter() - t0)
    return stored_peak("sgemm_peak_gflops", 2 * n ** 3 / best_s / 1e9)


def stored_peak(name: str, measured: float, path: str | None = None) -> float:
    """The larger of ``measured`` and the best ``name`` measured before on this machine (same
    CPU model and core count), which is kept in ``bench/results/peaks.json`` (written atomically;
    an unreadable file is ignored and rewritten).

    Example:
        >>> import tempfile, os
        >>> f = os.path.join(tempfile.mkdtemp(), "peaks.json")
        >>> stored_peak("sgemm", 90.0, f), stored_peak("sgemm", 70.0, f), stored_peak("sgemm", 95.0, f)
        (90.0, 90.0, 95.0)
    """
    from capture.webpage import write_atomically
    path = path or os.path.join(RESULTS, "peaks.json")
    machine = f"{_cpu_model()} x{os.cpu_count()}"
    try:
        with open(path) as f:
            peaks = json.load(f)
        if not isinstance(peaks, dict):
            peaks = {}
    except (OSError, ValueError):
        peaks = {}
    mine = peaks.get(machine) if isinstance(peaks.get(machine), dict) else {}
    before = mine.get(name)
    best = max(measured, before) if isinstance(before, (int, float)) else measured
    if best != before:
        peaks[machine] = {**mine, name: best}
        try:
            write_atomically(path, json.dumps(peaks, indent=2))
        except OSError:  # (a read-only checkout still benchmarks)
            pass
    return best


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=os.path.dirname(os.path.abspath(__file__)), timeout=10)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def run_meta(backend) -> dict:
    """What a run was measured on: the stamp every saved run and every dashboard line carries."""
    threads = None
    try:
        from codegen.cpu import threads as cpu_threads
        threads = cpu_threads.n_threads()
    except Exception:
        threads = None
    return {"time": datetime.datetime.now().isoformat(timespec="seconds"), "commit": _commit(),
            "machine": platform.node(), "cpu": _cpu_model(), "cpus": os.cpu_count(), "threads": threads,
            "python": platform.python_version(), "backend": backend,
            "blas_threads": os.environ.get("RUNTIME_BLAS_THREADS") or threads,
            "pinned_threads": os.environ.get("BENCH_THREADS"),
            "sgemm_peak_gflops": measured_sgemm_peak_gflops(), "fma_peak_gflops": _fma_peak_or_none()}


def _fma_peak_or_none():
    try:
        return fma_peak.measured_gflops()
    except Exception:  # no llvmlite target for this host: the table goes without the ceiling
        return None


def roofline_line(meta) -> str:
    """The run's two ceilings, printed under the table.

    >>> roofline_line({"sgemm_peak_gflops": 172.9, "fma_peak_gflops": 222.9})
    'roofline: sgemm 172.9 GFLOP/s (78% of the cores' FMA peak, 222.9 GFLOP/s)'
    """
    sgemm, fma = meta.get("sgemm_peak_gflops"), meta.get("fma_peak_gflops")
    line = f"roofline: sgemm {sgemm:.1f} GFLOP/s"
    return line + (f" ({100 * sgemm / fma:.0f}% of the cores' FMA peak, {fma:.1f} GFLOP/s)" if fma else "")


RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def save_run(run, latest_path, history=True) -> str | None:
    """Write ``run`` to ``latest_path`` and (unless ``history`` is False) to the history folder,
    each atomically; the history file."""
    from capture.webpage import write_atomically
    stamp = run["meta"]["time"].replace(":", "").replace("-", "")
    path = os.path.join(RESULTS, "runs", f"{stamp}-{run['meta']['commit'] or 'nogit'}.json") if history else None
    text = json.dumps(run, indent=2)
    for target in (path, latest_path):
        if target:
            write_atomically(target, text)
    return path


def dashboard_main(argv) -> int:
    import dashboard
    p = argparse.ArgumentParser(prog="python -m bench dashboard", description="benchmark dashboard from saved runs")
    p.add_argument("files", nargs="*", help="saved runs (default: bench/results/runs/*.json)")
    p.add_argument("--out", default="dashboard.html")
    args = p.parse_args(argv)
    files = args.files or sorted(glob.glob(os.path.join(RESULTS, "runs", "*.json")))
    runs = dashboard.load_runs(files)
    dashboard.save(runs, args.out)
    print(f"wrote {args.out} ({len(runs)} run{'s' if len(runs) != 1 else ''})")
    return 0 if runs else 1


def _installed(module) -> bool:
    """Whether a peer framework is installed, found without importing it: the timing happens in
    worker processes, and an imported peer's threads would share the machine with them (a broken
    peer then shows as an error in its cells)."""
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def one_thread_rows(args) -> list:
    """The training rows measured again in a fresh process with every framework on one thread
    and one core (thread settings of torch's OpenMP and XLA only take effect before they start;
    the workers pin themselves to the cores, bench/step_worker.py)."""
    out = os.path.join(tempfile.mkdtemp(prefix="bench-1t-"), "rows.json")
    cmd = [sys.executable, "-m", "bench", "--threads", "1", "--train-only", "--json", out]
    cmd += [flag for flag, on in (("--quick", args.quick), ("--no-torch", args.no_torch), ("--no-jax", args.no_jax)) if on]
    if args.backend:
        cmd += ["--backend", args.backend]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        return [{"case": "1-thread run failed", "error": done.stderr[-500:]}]
    with open(out) as f:
        return json.load(f)["rows"]


def pin_threads(n: int) -> None:
    """Every framework on ``n`` threads: ours (kernel pool and BLAS), torch, and JAX/XLA (whose
    flags must be set before jax is imported)."""
    os.environ["BENCH_THREADS"] = str(n)
    os.environ["RUNTIME_BLAS_THREADS"] = str(n)
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen="
                               + ("false" if n == 1 else "true") + f" intra_op_parallelism_threads={n}").strip()
    ms.set_context(num_threads=n)
    from runtime.device import limit_blas_threads
    limit_blas_threads(n)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["dashboard"]:
        return dashboard_main(argv[1:])
    if argv[:1] == ["gpu"]:
        import gpu
        return gpu.main(argv[1:], sys.modules[__name__])
    if argv[:1] == ["dynamic"]:
        import dynamic_shapes
        return dynamic_shapes.main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m bench", description="benchmark table (and dashboard)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--no-jax", action="store_true")
    p.add_argument("--backend", default=None)
    p.add_argument("--json", default=os.path.join(RESULTS, "latest.json"))
    p.add_argument("--html", default=None, help="also write the dashboard page (this run + saved history)")
    p.add_argument("--threads", type=int, default=None,
                   help="pin every framework to N threads (default: each at its own default, all cores)")
    p.add_argument("--train-only", action="store_true", help="only the training rows")
    p.add_argument("--no-1thread", action="store_true",
                   help="skip the second table (training rows with every framework on one thread)")
    args = p.parse_args(argv)
    if args.threads is not None:
        pin_threads(args.threads)
    repeats = 10 if args.quick else 30
    torch_ok = not args.no_torch and _installed("torch")
    jax_ok = not args.no_jax and _installed("jax")
    meta = run_meta(args.backend)
    rows = []
    for model, batch in (("lenet", 32), ("lenet", 256), ("mlp", 32), ("mlp", 1024),
                         ("transformer", 16), ("resnet18", 32), ("lstm", 32)):
        rows.append(train_row(model, batch, repeats if batch < 1000 else max(5, repeats // 3), args.backend,
                              torch_ok, jax_ok))
    if not args.train_only:
        rows.append(inference_row(repeats, args.backend, torch_ok))
        rows.extend(chain_rows(repeats, args.backend))
        rows.extend(dynamic_shape_rows(args.quick))
        rows.extend(first_step_rows(args.backend, rounds=1 if args.quick else 3))
    print(format_table(rows))
    print(roofline_line(meta))
    run = {"meta": meta, "rows": rows}
    if not args.train_only:
        run["call_overhead_us"] = call_overhead_rows(1000 if args.quick else 3000)
    if args.threads is None and not args.no_1thread and not args.train_only:
        run["rows_1thread"] = one_thread_rows(args)
        print("\nevery framework on 1 thread:")
        print(format_table(run["rows_1thread"]))
    history = save_run(run, args.json, history=not args.train_only)
    print(f"wrote {args.json}" + (f" and {history}" if history else ""))
    if args.html:
        import dashboard
        runs = dashboard.load_runs(sorted(glob.glob(os.path.join(RESULTS, "runs", "*.json"))))
        dashboard.save(runs or [run], args.html)
        print(f"wrote {args.html}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
