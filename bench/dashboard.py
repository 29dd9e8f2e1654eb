"""The benchmark dashboard: ``python -m bench --html out.html`` (this run plus the saved history) or
``python -m bench dashboard bench/results/runs/*.json [--out dashboard.html]``.

One self-contained page: per workload, bars of ours PyNative / GRAPH / ``@jit`` against every peer
that was installed (torch eager, torch.compile, JAX jit), the speed-up of ours ``@jit`` over the
fastest peer, achieved GFLOP/s against the sgemm peak measured in the same run, first-call times
(cold and warm process), and the history of every column across the saved runs, each run stamped
with its machine, thread count and commit.

Example:
    >>> run = {"meta": {"commit": "abc1234", "machine": "box", "threads": 4, "time": "2026-01-01T00:00:00"},
    ...        "rows": [{"case": "mlp train b32", "ours_jit_step_ms": 1.0, "torch_eager_ms": 2.0}]}
    >>> page = render([run])
    >>> "torch eager" in page and "2.00x" in page
    True
"""
from __future__ import annotations

import json
import os
import sys

from svgcharts import bar_chart, line_chart

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from capture.webpage import cards, esc, page, table, write_atomically

OURS = ["ours_pynative_ms", "ours_graph_ms", "ours_jit_step_ms"]
PEERS = ["torch_eager_ms", "torch_compile_ms", "jax_jit_ms"]
LABELS = {"ours_pynative_ms": "ours PyNative", "ours_graph_ms": "ours GRAPH", "ours_jit_step_ms": "ours @jit",
          "torch_eager_ms": "torch eager", "torch_compile_ms": "torch.compile", "jax_jit_ms": "JAX jit",
          "numpy_ms": "numpy", "copy_ms": "memory copy"}
COLOURS = {"ours_pynative_ms": "#93c5fd", "ours_graph_ms": "#3b82f6", "ours_jit_step_ms": "#1d4ed8",
           "torch_eager_ms": "#f59e0b", "torch_compile_ms": "#ea580c", "jax_jit_ms": "#16a34a",
           "numpy_ms": "#a8a29e", "copy_ms": "#64748b"}

EXTRA_STYLE = """
.workloads { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 16px; }
.workload { border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px 10px; }
.workload h3 { margin: 0 0 6px; }
.roof { height: 10px; border-radius: 5px; background: #e2e8f0; overflow: hidden; margin: 4px 0 2px; }
.roof > div { height: 100%; background: #1d4ed8; }
.stamp { color: var(--muted); font-size: 12.5px; }
.note.bad { color: #b91c1c; font-weight: 600; }
"""


def load_runs(paths):
    """Runs saved by ``python -m bench`` (JSON), oldest first; unreadable files are skipped with a
    message (a dashboard never fails because of one bad file)."""
    runs = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                run = json.load(f)
            if not isinstance(run, dict) or not isinstance(run.get("rows"), list):
                raise ValueError("not a bench result (no 'rows' list)")
        except (OSError, ValueError) as e:
            print(f"bench dashboard: skipping {p}: {e}", file=sys.stderr)
            continue
        run.setdefault("meta", {})
        run["meta"].setdefault("source", os.path.basename(p))
        runs.append(run)
    runs.sort(key=lambda r: str(r["meta"].get("time", "")))
    return runs


def speedup_vs_fastest_peer(row):
    """(fastest peer ms / ours ms, fastest peer's column), or (None, None) without peers; ours is the
    ``@jit`` whole step where measured, else GRAPH mode."""
    peers = [(row[c], c) for c in PEERS if row.get(c)]
    ours = row.get("ours_jit_step_ms") or row.get("ours_graph_ms")
    if not peers or not ours:
        return None, None
    best, col = min(peers)
    return best / ours, col


def _stamp(meta) -> str:
    bits = [meta.get("time", "")[:16].replace("T", " "), meta.get("machine"), meta.get("cpu"),
            f"{meta['threads']} threads" if meta.get("threads") else None,
            f"commit {meta['commit']}" if meta.get("commit") else None]
    return " · ".join(str(b) for b in bits if b)


def _history(runs, case, columns):
    if len(runs) < 2:
        return ""
    labels = [str(r["meta"].get("commit") or r["meta"].get("source", "?"))[:7] for r in runs]
    series = []
    for c in columns:
        vs = [next((row.get(c) for row in r["rows"] if row.get("case") == case), None) for r in runs]
        if any(v is not None for v in vs):
            series.append((LABELS.get(c, c), COLOURS.get(c, "#334155"), vs))
    return line_chart(series, labels, title="history (ms per call, one point per run)") if series else ""


def _workload(row, runs, peak):
    cols = [c for c in OURS + PEERS if c in row]
    bars = [(LABELS[c], row.get(c), COLOURS[c]) for c in cols]
    sp, col = speedup_vs_fastest_peer(row)
    parts = [f'<div class="workload" data-case="{esc(row["case"])}"><h3>{esc(row["case"])}</h3>']
    if sp is not None:
        tone = "good" if sp >= 1 else "bad"
        ours = "ours @jit" if row.get("ours_jit_step_ms") else "ours GRAPH"
        parts.append(f'<p><span class="pill {tone}">{sp:.2f}x</span> {ours} vs the fastest peer '
                     f"({esc(LABELS[col])})</p>")
    parts.append(bar_chart(bars, unit="ms", title="ms per step (lower is better)"))
    gf = row.get("ours_jit_gflops")
    if gf and peak and gf > peak:
        parts.append(f'<p class="note bad">ours @jit: {gf:.1f} GFLOP/s achieved is above the '
                     f"{peak:.0f} GFLOP/s sgemm peak measured in this run: the peak was measured under "
                     "load, so this run's roofline cannot be trusted</p>")
    elif gf and peak:
        pct = 100.0 * gf / peak
        parts.append(f'<div class="roof" title="{gf:.1f} of {peak:.0f} GFLOP/s"><div style="width:{min(pct, 100):.1f}%">'
                     f'</div></div><p class="note">ours @jit: {gf:.1f} GFLOP/s achieved, {pct:.1f}% of the '
                     f"{peak:.0f} GFLOP/s sgemm peak measured in this run ({row.get('gflop', 0) * 1e3:.1f} "
                     "MFLOP per step)</p>")
    parts.append(_history(runs, row["case"], cols))
    parts.append("</div>")
    return "".join(parts)


def _summary_table(rows, peak):
    cols = [c for c in OURS + PEERS if any(c in r for r in rows)]
    out_rows, classes = [], []
    for r in rows:
        sp, _ = speedup_vs_fastest_peer(r)
        cells = [r["case"]] + [("-" if r.get(c) is None else f"{r[c]:.3f}") for c in cols]
        cells.append("-" if sp is None else f"{sp:.2f}x")
        gf = r.get("ours_jit_gflops")
        if gf and peak and gf > peak:  # (the peak was measured under load: no percentage to show)
            cells.append(f"{gf:.1f} (above the measured peak)")
        else:
            cells.append("-" if not gf else f"{gf:.1f}" + (f" ({100 * gf / peak:.0f}%)" if peak else ""))
        out_rows.append(cells)
        classes.append("best" if sp is not None and sp >= 1 else "")
    headers = ["workload"] + [LABELS[c] + " ms" for c in cols] + ["vs fastest peer", "GFLOP/s (of peak)"]
    return table(headers, out_rows, numeric=tuple(range(1, len(headers))), row_classes=classes)


def render(runs) -> str:
    """The dashboard page for ``runs`` (oldest first; the last is the one shown in detail)."""
    if not runs:
        return page("Benchmarks", '<div class="empty">No benchmark runs to show.</div>', extra_style=EXTRA_STYLE)
    latest = runs[-1]
    meta, rows = latest["meta"], latest["rows"]
    peak, fma = meta.get("sgemm_peak_gflops"), meta.get("fma_peak_gflops")
    train = [r for r in rows if any(c in r for c in PEERS + ["ours_jit_step_ms"])]
    chain = [r for r in rows if "copy_ms" in r]
    first = [r for r in rows if r.get("case", "").startswith("first ")]
    peers = [LABELS[c] for c in PEERS if any(r.get(c) for r in rows)]
    sps = [s for s, _ in map(speedup_vs_fastest_peer, train) if s is not None]
    body = [cards([("runs in history", len(runs), ""), ("workloads", len(train) + len(chain), ""),
                   ("peers installed", len(peers), ""),
                   ("sgemm peak", f"{peak:.0f} GFLOP/s" if peak else "n/a", ""),
                   ("cores' FMA peak", f"{fma:.0f} GFLOP/s" if fma else "n/a", ""),
                   ("worst vs fastest peer", f"{min(sps):.2f}x" if sps else "n/a",
                    ("good" if sps and min(sps) >= 1 else "bad") if sps else "")]),
            f'<p class="stamp">peers: {esc(", ".join(peers) or "none installed")}</p>']
    if train:
        body += ["<h2>Summary</h2>", _summary_table(train, peak), "<h2>Workloads</h2>",
                 '<div class="workloads">', *(_workload(r, runs, peak) for r in train), "</div>"]
    if chain:
        body.append("<h2>Elementwise chain</h2><div class=\"workloads\">")
        for r in chain:
            cols = [c for c in ("numpy_ms", "ours_pynative_ms", "ours_graph_ms", "copy_ms") if c in r]
            frac = r.get("graph_frac_of_copy_bw")
            note = f'<p class="note">compiled chain at {100 * frac:.0f}% of the copy bandwidth</p>' if frac else ""
            body.append(f'<div class="workload" data-case="{esc(r["case"])}"><h3>{esc(r["case"])}</h3>{note}'
                        + bar_chart([(LABELS[c], r.get(c), COLOURS[c]) for c in cols], title="ms per call")
                        + _history(runs, r["case"], cols) + "</div>")
        body.append("</div>")
    if first:
        body.append("<h2>First call</h2>")
        body.append(bar_chart([(r["case"].replace("first GRAPH step ", "").replace("first step ", ""),
                                r.get("ours_graph_ms", r.get("ours_pynative_ms")),
                                "#1d4ed8" if "ours_graph_ms" in r else "#9ca3af") for r in first],
                              title="first step in a new process (ms): PyNative, GRAPH cold, GRAPH warm",
                              width=720, label_width=320))
    history_rows = [(r["meta"].get("time", "")[:16].replace("T", " "), r["meta"].get("commit", ""),
                     r["meta"].get("machine", ""), r["meta"].get("threads", ""), r["meta"].get("source", ""))
                    for r in reversed(runs)]
    body += ["<h2>Runs</h2>", table(["time", "commit", "machine", "threads", "file"], history_rows)]
    return page("Benchmarks", "".join(body), _stamp(meta), EXTRA_STYLE)


def save(runs, path) -> str:
    return write_atomically(path, render(runs))


__all__ = ["render", "save", "load_runs", "speedup_vs_fastest_peer"]
