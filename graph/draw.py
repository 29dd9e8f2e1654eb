"""Draw a :class:`graph.ir.Graph` as SVG: Graphviz's ``dot`` when it is installed, otherwise a
built-in layered layout (never a blank picture).

The built-in layout is the classic Sugiyama recipe kept small: every value producer gets a layer
(inputs and constants sit just above their first consumer, ops one layer below their deepest
operand), each layer is ordered by the barycentre of its operands (two sweeps), and edges are cubic
curves. It is linear in the graph size apart from the per-layer sorts, so a 1,000-op graph draws in
well under a second.

Example:
    >>> from graph.ir import Graph
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ops import get_op
    >>> g = Graph("demo")
    >>> x = g.add_input(AVal((2, 3), float32), "x")
    >>> g.set_outputs([g.add_node(get_op("relu"), [x], {})])
    >>> svg = graph_svg(g, use_dot=False)
    >>> svg.startswith("<svg") and "relu" in svg
    True
"""
from __future__ import annotations

import html
import re
import shutil
import subprocess

from .ir import PARAM, Value

#: fill colour per op kind (and for graph inputs/parameters/constants/outputs)
KIND_COLOURS = {
    "elementwise": "#dbeafe", "reduction": "#fde68a", "extern": "#fecaca", "view": "#e5e7eb",
    "random": "#e9d5ff", "state": "#fbcfe8", "input": "#d1fae5", "param": "#bbf7d0",
    "const": "#f3f4f6", "output": "#c7d2fe",
}
_CHAR_W = 6.6  # px per character of the 11px monospace labels
_ROW_H = 58
_GAP = 18
_DOT_TIMEOUT_S = 10


def graph_svg(graph, use_dot: bool | None = None) -> str:
    """An ``<svg>`` element drawing ``graph``. ``use_dot=None`` uses Graphviz when ``dot`` is on
    PATH and falls back to the built-in layout if it is missing or fails; ``False`` forces the
    built-in layout, ``True`` requires Graphviz (RuntimeError when absent)."""
    if use_dot is not False:
        dot = shutil.which("dot")
        if dot:
            try:
                return _dot_svg(dot, graph)
            except (OSError, subprocess.SubprocessError, ValueError) as e:
                if use_dot:
                    raise RuntimeError(f"graphviz failed to draw {graph.name}: {e}") from e
        elif use_dot:
            raise RuntimeError("graphviz's `dot` is not installed")
    return layered_svg(graph)


def _dot_svg(dot, graph) -> str:
    out = subprocess.run([dot, "-Tsvg"], input=graph.to_dot(), capture_output=True, text=True,
                         timeout=_DOT_TIMEOUT_S, check=True).stdout
    start = out.find("<svg")
    if start < 0:
        raise ValueError("dot produced no <svg> element")
    return re.sub(r"<!--.*?-->", "", out[start:], flags=re.S)


class _Box:
    __slots__ = ("key", "label", "sub", "kind", "layer", "order", "x", "y", "w", "preds", "title")

    def __init__(self, key, label, sub, kind, title):
        self.key, self.label, self.sub, self.kind, self.title = key, label, sub, kind, title
        self.layer = 0
        self.order = 0.0
        self.x = self.y = 0.0
        self.w = max(len(label), len(sub)) * _CHAR_W + 18
        self.preds: list[_Box] = []


def _boxes(graph):
    """One box per input, constant, node and output, with data-dependency predecessors."""
    names = graph.printed_ids()
    boxes, producer = [], {}
    for v in graph.inputs + graph.consts:
        kind = "param" if v.kind == PARAM else ("const" if v in graph.consts else "input")
        b = _Box(id(v), f"%{names[id(v)]} {v.name or kind}"[:40], str(v.aval), kind,
                 f"{kind} {v.name or ''} {v.aval}")
        boxes.append(b)
        producer[id(v)] = b
    for n in graph.nodes:
        sub = ",".join(str(v.aval) for v in n.outputs)
        loc = f" at {n.loc[0].rsplit('/', 1)[-1]}:{n.loc[1]}" if n.loc else ""
        b = _Box(id(n), n.op.name, sub[:48], n.op.kind if n.op.kind in KIND_COLOURS else "extern",
                 f"{n.op.name} -> {sub}{loc}")
        b.preds = [producer[id(v)] for v in n.inputs if isinstance(v, Value) and id(v) in producer]
        boxes.append(b)
        for v in n.outputs:
            producer[id(v)] = b
    for i, v in enumerate(graph.outputs):
        if isinstance(v, Value) and id(v) in producer:
            b = _Box(("out", i), f"out{i}", str(v.aval), "output", f"output {i} {v.aval}")
            b.preds = [producer[id(v)]]
            boxes.append(b)
    for p, v in graph.updates.items():
        if id(v) in producer:
            b = _Box(("upd", id(p)), f"update {p.name}"[:40], str(v.aval), "output", f"update of {p.name}")
            b.preds = [producer[id(v)]]
            boxes.append(b)
    return boxes


def _assign_layers(boxes):
    succs: dict[int, list[_Box]] = {id(b): [] for b in boxes}
    for b in boxes:  # boxes are in topological order: predecessors come first
        b.layer = 1 + max((p.layer for p in b.preds), default=-1) if b.preds else 0
        for p in b.preds:
            succs[id(p)].append(b)
    # sources (inputs, constants) sit just above their first consumer instead of all at the top
    for b in boxes:
        if not b.preds and succs[id(b)]:
            b.layer = max(0, min(s.layer for s in succs[id(b)]) - 1)
    return succs


def _order_layers(boxes, succs):
    layers: dict[int, list[_Box]] = {}
    for b in boxes:
        layers.setdefault(b.layer, []).append(b)
    for row in layers.values():
        for i, b in enumerate(row):
            b.order = float(i)
    keys = sorted(layers)
    for sweep in range(2):  # down then up: barycentre of neighbours in the adjacent layer
        for k in (keys if sweep == 0 else reversed(keys)):
            row = layers[k]
            for b in row:
                nbrs = b.preds if sweep == 0 else succs[id(b)]
                if nbrs:
                    b.order = sum(n.order for n in nbrs) / len(nbrs)
            row.sort(key=lambda b: b.order)
            for i, b in enumerate(row):
                b.order = float(i)
    return [layers[k] for k in keys]


def layered_svg(graph) -> str:
    """The built-in drawing: see the module docstring."""
    boxes = _boxes(graph)
    if not boxes:
        return ('<svg xmlns="http://www.w3.org/2000/svg" class="graph-svg" width="220" height="40" '
                'role="img"><text x="10" y="24" font-size="12">(empty graph)</text></svg>')
    rows = _order_layers(boxes, _assign_layers(boxes))
    width = 0.0
    for r, row in enumerate(rows):
        x = _GAP
        for b in row:
            b.x, b.y = x, _GAP + r * _ROW_H
            x += b.w + _GAP
        width = max(width, x)
    for row in rows:  # centre each row
        extra = (width - (row[-1].x + row[-1].w + _GAP)) / 2
        for b in row:
            b.x += extra
    box_h = 32
    height = _GAP * 2 + (len(rows) - 1) * _ROW_H + box_h
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="graph-svg" width="{width:.0f}" '
             f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
             f'aria-label="graph {html.escape(graph.name)}">',
             '<g fill="none" stroke="#94a3b8" stroke-width="1.1">']
    for b in boxes:
        for p in b.preds:
            x1, y1 = p.x + p.w / 2, p.y + box_h
            x2, y2 = b.x + b.w / 2, b.y
            my = (y1 + y2) / 2
            parts.append(f'<path d="M{x1:.1f},{y1:.1f} C{x1:.1f},{my:.1f} {x2:.1f},{my:.1f} {x2:.1f},{y2:.1f}"/>')
    parts.append('</g><g font-family="ui-monospace,SFMono-Regular,Menlo,Consolas,monospace" font-size="11" '
                 'text-anchor="middle">')
    for b in boxes:
        fill = KIND_COLOURS.get(b.kind, "#ffffff")
        rx = 16 if b.kind not in ("input", "param", "const", "output") else 3
        cx = b.x + b.w / 2
        parts.append(f'<g class="node {b.kind}"><title>{html.escape(b.title)}</title>'
                     f'<rect x="{b.x:.1f}" y="{b.y:.1f}" width="{b.w:.1f}" height="{box_h}" rx="{rx}" '
                     f'fill="{fill}" stroke="#64748b"/>'
                     f'<text x="{cx:.1f}" y="{b.y + 13:.1f}" font-weight="600">{html.escape(b.label)}</text>'
                     f'<text x="{cx:.1f}" y="{b.y + 26:.1f}" fill="#475569">{html.escape(b.sub)}</text></g>')
    parts.append("</g></svg>")
    return "".join(parts)

