"""``ExplainReport.to_html()``: the graph-break report as one self-contained web page.

Sections, in reading order: the summary (numbers and the frames that fell back to eager), the
user's source of every function involved with each break line marked and explained and the lines
that ran compiled shaded per graph, then one section per graph (ops table, fused kernels, IR text,
a drawing, guards in plain words), the recompile history, and the plain-text report for pasting
into a bug report. Every line of ``str(report)`` also appears in the structured sections.

Example:
    >>> from capture.explain import ExplainReport
    >>> page = render(ExplainReport())
    >>> "No graph breaks" in page and "<svg" not in page
    True
"""
from __future__ import annotations

import ast
import functools
import linecache
import os

from graph.draw import KIND_COLOURS, graph_svg

from .webpage import cards, esc, page, table

#: shading of the lines each graph covers (graph i uses colour i mod len)
GRAPH_COLOURS = ["#dbeafe", "#dcfce7", "#fef3c7", "#ede9fe", "#cffafe", "#fce7f3", "#e0e7ff", "#ecfccb"]
GRAPH_EDGES = ["#3b82f6", "#22c55e", "#f59e0b", "#8b5cf6", "#06b6d4", "#ec4899", "#6366f1", "#84cc16"]
#: an ops table longer than this starts collapsed
OPS_OPEN_LIMIT = 60
#: a drawing of a graph with more ops than this starts collapsed
SVG_OPEN_LIMIT = 150

EXTRA_STYLE = """
.src { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; margin: 8px 0 18px; }
.src-head { background: var(--panel); padding: 6px 12px; font-size: 13px; color: var(--muted);
  border-bottom: 1px solid var(--line); }
.src-body { overflow-x: auto; }
.src-line { display: grid; grid-template-columns: 52px 1fr auto; align-items: baseline;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px;
  line-height: 1.6; border-left: 4px solid transparent; }
.src-line .ln { color: #94a3b8; text-align: right; padding-right: 12px; user-select: none; }
.src-line code { white-space: pre; font-size: 12.5px; }
.src-line .tags { padding: 0 10px; }
.src-line.brk { background: var(--bad-bg) !important; border-left-color: var(--bad) !important; }
.brk-note { margin: 0 0 0 56px; padding: 6px 12px 8px; background: var(--bad-bg);
  border-left: 4px solid var(--bad); font-size: 13px; }
.brk-note b { color: var(--bad); }
.tag { display: inline-block; font: 600 11px/1.5 system-ui, sans-serif; border-radius: 4px; padding: 0 5px;
  margin-left: 3px; color: #1e293b; }
.tag.brk-tag { background: var(--bad); color: #fff; }
.break-card { border: 1px solid #fecaca; border-left: 4px solid var(--bad); border-radius: 6px;
  padding: 8px 12px; margin: 8px 0; background: #fff; }
.break-card .why { font-weight: 600; }
.break-card .where { color: var(--muted); font-size: 13px; }
.break-card .hint { font-size: 13.5px; }
.graph-svg { display: block; margin: 6px auto; }
ul.guards { columns: 2 380px; margin: 4px 0 10px; padding-left: 18px; font-size: 13.5px; }
ul.guards li { break-inside: avoid; }
.summary-line { font-size: 13.5px; color: var(--muted); }
"""


def render(report) -> str:
    """The whole page for ``report`` (an :class:`capture.explain.ExplainReport`)."""
    style = EXTRA_STYLE + "".join(
        f".g{i} {{ background: {c}; border-left-color: {GRAPH_EDGES[i]}; }} .tag.g{i} {{ background: {c}; }}"
        for i, c in enumerate(GRAPH_COLOURS))
    body = "".join([_summary(report), _source_section(report), _graph_sections(report), _recompiles(report),
                    _as_text(report)])
    return page("Capture report", body, _subtitle(report), style)


def _subtitle(report) -> str:
    frames = report.frames_captured
    if not frames:
        return "nothing was captured"
    return "captured: " + ", ".join(frames[:6]) + (f" and {len(frames) - 6} more" if len(frames) > 6 else "")


def _graph_label(i: int) -> str:
    return f"G{i + 1}"


# -- summary ------------------------------------------------------------------------------------------
def _summary(report) -> str:
    fallbacks = len(report.resume_fallbacks)
    items = [("graphs", report.graph_count, ""),
             ("graph breaks", report.graph_break_count, "bad" if report.graph_break_count else "good"),
             ("recompiles", len(report.recompiles), "bad" if report.recompiles else ""),
             ("frames captured", len(report.frames_captured), ""),
             ("ops", report.op_count, ""),
             ("compile time", f"{sum(report.compile_times) * 1e3:.1f} ms", ""),
             ("time in compiled code", f"{report.compiled_seconds * 1e3:.1f} ms", ""),
             ("eager-fallback frames", fallbacks, "bad" if fallbacks else "")]
    line = (f'<p class="summary-line">Graph count: {report.graph_count} · Graph break count: '
            f"{report.graph_break_count} · Op count: {report.op_count} · {report.compiled_calls} "
            f"compiled call(s)</p>")
    parts = ['<section id="summary">', cards(items), line]
    if report.break_reasons:
        parts.append("<h3>Graph breaks</h3>")
        for i, b in enumerate(report.break_reasons, 1):
            parts.append(_break_card(i, b))
    else:
        parts.append('<div class="empty" id="no-breaks">No graph breaks: every captured frame ran as whole '
                     "graphs.</div>")
    if report.resume_fallbacks:
        parts.append("<h3>Frames that ran eagerly after a break (the state could not be rebuilt)</h3><ul>")
        parts.extend(f'<li class="fallback"><b>{esc(f)}</b>: {esc(r)}</li>' for f, r in report.resume_fallbacks)
        parts.append("</ul>")
    parts.append("</section>")
    return "".join(parts)


def _break_card(i, b) -> str:
    hint = f'<div class="hint">hint: {esc(b.hint)}</div>' if b.hint else ""
    src = f"<pre>{esc(b.source)}</pre>" if b.source else ""
    return (f'<div class="break-card break-row" id="break-{i}"><div class="why">{i}. {esc(b.reason)}</div>'
            f'<div class="where">at {esc(b.filename)}:{b.lineno} (in {esc(b.frame)})</div>{src}{hint}</div>')


# -- source -------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _function_spans(filename: str, mtime: float):
    """(first line incl. decorators, last line, qualified name) of every function in a file."""
    try:
        with open(filename, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename)
    except (OSError, SyntaxError, ValueError):
        return ()
    spans = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    spans.append((start, child.end_lineno, name))
                walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return tuple(spans)


def _enclosing_span(filename, lineno):
    try:
        mtime = os.path.getmtime(filename)
    except OSError:
        return None
    best = None
    for start, end, name in _function_spans(filename, mtime):
        if start <= lineno <= end and (best is None or start >= best[0]):
            best = (start, end, name)
    return best or (max(1, lineno - 3), lineno + 3, "module level")


def _source_section(report) -> str:
    """The user's functions with compiled lines shaded per graph and break lines explained."""
    marks: dict[tuple[str, int], set[int]] = {}  # (file, line) -> graphs that ran it compiled
    order: list[str] = []
    for gi, c in enumerate(report.compiles):
        for n in c.graph.nodes:
            if n.loc:
                marks.setdefault((n.loc[0], n.loc[1]), set()).add(gi)
                order.append(n.loc[0])
    breaks: dict[tuple[str, int], list] = {}
    for b in report.break_reasons:
        breaks.setdefault((b.filename, b.lineno), []).append(b)
        order.append(b.filename)
    spans: dict[tuple[str, int, int], str] = {}
    for filename, lineno in list(breaks) + list(marks):
        span = _enclosing_span(filename, lineno)
        if span is not None:
            spans.setdefault((filename, span[0], span[1]), span[2])
    parts = ['<section id="source"><h2>Source</h2>']
    if not spans:
        parts.append('<div class="empty">No source lines to show (nothing was captured from a file).</div>')
    else:
        legend = " ".join(f'<span class="tag g{i % len(GRAPH_COLOURS)}">{_graph_label(i)}</span>'
                          f"{esc(c.frame)}" for i, c in enumerate(report.compiles))
        compiled = (f"Shaded lines ran inside a compiled graph ({legend}); " if report.compiles
                    else "No line ran inside a compiled graph; ")
        parts.append(f'<p class="note">{compiled}<span class="tag brk-tag">break</span> lines ran eagerly.</p>')
    nested = _drop_nested(spans)
    for (filename, start, end), name in sorted(nested.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
        parts.append(_source_block(filename, start, end, name, marks, breaks))
    parts.append("</section>")
    return "".join(parts)


def _drop_nested(spans):
    """Keep only the outermost of nested spans of one file (a closure shows inside its parent)."""
    keep = {}
    for key, name in spans.items():
        f, s, e = key
        if not any(f2 == f and s2 <= s and e <= e2 and (s2, e2) != (s, e) for (f2, s2, e2) in spans):
            keep[key] = name
    return keep


def _source_block(filename, start, end, name, marks, breaks) -> str:
    rows = []
    for lineno in range(start, end + 1):
        text = linecache.getline(filename, lineno).rstrip("\n")
        graphs = sorted(marks.get((filename, lineno), ()))
        here = breaks.get((filename, lineno), [])
        classes = ["src-line"]
        if graphs:
            classes.append(f"compiled g{graphs[0] % len(GRAPH_COLOURS)}")
        if here:
            classes.append("brk")
        tags = "".join(f'<span class="tag g{g % len(GRAPH_COLOURS)}">{_graph_label(g)}</span>' for g in graphs)
        if here:
            tags += '<span class="tag brk-tag">break</span>'
        rows.append(f'<div class="{" ".join(classes)}" data-line="{lineno}"><span class="ln">{lineno}</span>'
                    f'<code>{esc(text) or " "}</code><span class="tags">{tags}</span></div>')
        for b in here:
            hint = f"<br>hint: {esc(b.hint)}" if b.hint else ""
            rows.append(f'<div class="brk-note"><b>graph break</b>: {esc(b.reason)}{hint}</div>')
    return (f'<div class="src"><div class="src-head">{esc(name)} — {esc(filename)}:{start}</div>'
            f'<div class="src-body">{"".join(rows)}</div></div>')


# -- graphs -------------------------------------------------------------------------------------------
def _graph_sections(report) -> str:
    if not report.compiles:
        return '<section id="graphs"><h2>Graphs</h2><div class="empty">No graphs were compiled.</div></section>'
    legend = '<p class="legend">' + "".join(
        f'<span><i style="background:{c}"></i>{esc(k)}</span>' for k, c in KIND_COLOURS.items()) + "</p>"
    parts = ['<section id="graphs"><h2>Graphs</h2>', legend]
    for i, c in enumerate(report.compiles):
        parts.append(_graph_section(i, c))
    parts.append("</section>")
    return "".join(parts)


def _graph_section(i, c) -> str:
    g = c.graph
    title = f"Graph {i + 1} ({c.frame}): {g.op_count()} ops, {c.how} in {c.seconds * 1e3:.1f} ms"
    ops_rows = [(k, n.op.name, ", ".join(str(list(v.shape)) for v in n.outputs),
                 ", ".join(str(v.dtype) for v in n.outputs),
                 f"{os.path.basename(n.loc[0])}:{n.loc[1]}" if n.loc else "")
                for k, n in enumerate(g.nodes)]
    ops_table = table(["#", "op", "shape", "dtype", "source line"], ops_rows, numeric=(0,))
    ops_open = " open" if len(ops_rows) <= OPS_OPEN_LIMIT else ""
    svg_open = " open" if g.op_count() <= SVG_OPEN_LIMIT else ""
    return (f'<div class="graph" id="graph-{i + 1}"><h3><span class="tag g{i % len(GRAPH_COLOURS)}">'
            f"{_graph_label(i)}</span> {esc(title)}</h3>"
            f'<details{svg_open}><summary>Drawing</summary><div class="scroll">{graph_svg(g)}</div></details>'
            f"<details{ops_open}><summary>Ops ({len(ops_rows)})</summary>{ops_table}</details>"
            f"{_kernels(c)}"
            f"<details><summary>IR text</summary><pre>{esc(g.format())}</pre></details>"
            f"<h4>Guards</h4>{_guards(c)}</div>")


def _kernels(c) -> str:
    schedule = getattr(c.runner, "schedule", None)
    if schedule is None:
        return ('<details><summary>Fused kernels</summary><p class="note">This backend runs the graph '
                "node by node (no fused kernels).</p></details>")
    rows = []
    for k, kern in enumerate(schedule.kernels):
        shape = ""
        if kern.kind == "fused":
            try:
                shape = str(list(kern.shape))
            except (AttributeError, IndexError):
                shape = ""
        rows.append((f"k{k}", kern.kind, " + ".join(n.op.name for n in kern.nodes), shape))
    fused = sum(1 for r in rows if r[1] == "fused")
    return (f"<details><summary>Kernels ({len(rows)}, {fused} fused)</summary>"
            f"{table(['kernel', 'kind', 'ops', 'iteration shape'], rows)}</details>")


def _guards(c) -> str:
    if not c.guards:
        return '<p class="note">No guards.</p>'
    return '<ul class="guards">' + "".join(f"<li>{esc(g)}</li>" for g in c.guards) + "</ul>"


# -- recompiles and text ------------------------------------------------------------------------------
def _recompiles(report) -> str:
    parts = ['<section id="recompiles"><h2>Recompiles</h2>']
    if not report.recompiles:
        parts.append('<div class="empty">No recompiles: every later call matched its guards.</div>')
    else:
        parts.append('<p class="note">Each line names the frame and the guard that failed, which made it '
                     "compile again.</p><ol>")
        parts.extend(f'<li class="recompile"><b>{esc(f)}</b>: {esc(r)}</li>' for f, r in report.recompiles)
        parts.append("</ol>")
    parts.append("</section>")
    return "".join(parts) + _dynamic(report)


def _dynamic(report) -> str:
    """Dimensions made dynamic (or refused, and why), and the sizes compiled without translating."""
    if not report.dynamic and not report.reinstantiations and not report.tier_ups:
        return ""
    parts = ['<section id="dynamic"><h2>Dynamic dimensions</h2><ul>']
    parts.extend(f'<li class="dynamic"><b>{esc(f)}</b>: {esc(t)}</li>' for f, t in report.dynamic)
    parts.append("</ul>")
    if report.reinstantiations:
        sizes: dict = {}
        for f, w, n, _t in report.reinstantiations:
            sizes.setdefault((f, w), []).append(n)
        parts.append("<p>Graphs re-instantiated for new sizes (no translation; interpreted until a size "
                     "recurs, then compiled for it):</p><ul>")
        parts.extend(f'<li class="reinstantiation"><b>{esc(f)}</b>: {esc(w)}: sizes {esc(str(ns))}</li>'
                     for (f, w), ns in sizes.items())
        parts.append("</ul>")
    if report.tier_ups:
        sizes = {}
        for f, w, n, _t in report.tier_ups:
            sizes.setdefault((f, w), []).append(n)
        parts.append("<p>Sizes compiled by the backend when they recurred (kernels are per size):</p><ul>")
        parts.extend(f'<li class="tier-up"><b>{esc(f)}</b>: {esc(w)}: sizes {esc(str(ns))}</li>'
                     for (f, w), ns in sizes.items())
        parts.append("</ul>")
    parts.append("</section>")
    return "".join(parts)


def _as_text(report) -> str:
    return (f'<section id="as-text"><h2>As text</h2><details><summary>The plain-text report (for a bug '
            f"report)</summary><pre>{esc(str(report))}</pre></details></section>")


__all__ = ["render"]
