"""Two small inline-SVG charts for the benchmark dashboard: horizontal bars and history lines.

Written here instead of depending on matplotlib: the charts are a few dozen shapes each, render
identically everywhere, weigh a few kB inline, and need no optional extra.

Example:
    >>> svg = bar_chart([("ours", 1.0, "#2563eb"), ("torch", 2.0, "#9ca3af")], unit="ms")
    >>> svg.count("<rect") >= 2 and "torch" in svg
    True
"""
from __future__ import annotations

import html
import math

FONT = 'font-family="system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif"'


def _fmt(v: float) -> str:
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def bar_chart(bars, unit: str = "ms", width: int = 460, label_width: int = 120, title: str = "") -> str:
    """Horizontal bars ``[(label, value or None, colour)]``; a missing value shows as "n/a"."""
    row_h, top = 24, (22 if title else 6)
    height = top + row_h * len(bars) + 6
    vmax = max((v for _, v, _ in bars if v), default=1.0) or 1.0
    span = width - label_width - 70
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart bar-chart" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(title or "bar chart")}" {FONT} '
             f'font-size="12">']
    if title:
        parts.append(f'<text x="0" y="14" font-weight="600" fill="#0f172a">{html.escape(title)}</text>')
    for i, (label, value, colour) in enumerate(bars):
        y = top + i * row_h
        parts.append(f'<text x="{label_width - 8}" y="{y + 16}" text-anchor="end" fill="#334155">'
                     f"{html.escape(label)}</text>")
        if value is None:
            parts.append(f'<text x="{label_width}" y="{y + 16}" fill="#94a3b8">n/a</text>')
            continue
        w = max(2.0, span * value / vmax)
        parts.append(f'<rect class="bar" data-label="{html.escape(label)}" x="{label_width}" y="{y + 4}" '
                     f'width="{w:.1f}" height="{row_h - 8}" rx="3" fill="{colour}"><title>{html.escape(label)}: '
                     f"{_fmt(value)} {unit}</title></rect>")
        parts.append(f'<text x="{label_width + w + 6:.1f}" y="{y + 16}" fill="#0f172a">{_fmt(value)} {unit}</text>')
    parts.append("</svg>")
    return "".join(parts)


def nice_ticks(vmax: float, count: int = 4):
    """Round axis ticks from 0 covering ``vmax``: steps of 1, 2, 2.5 or 5 times a power of ten.

    >>> nice_ticks(9.9)
    [0, 2.5, 5.0, 7.5, 10.0]
    """
    if not vmax > 0:
        return [0, 1.0]
    raw = vmax / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return [0] + [step * k for k in range(1, math.ceil(vmax / step - 1e-9) + 1)]


def line_chart(series, x_labels, unit: str = "ms", width: int = 460, height: int = 170, title: str = "") -> str:
    """History lines: ``series`` = [(name, colour, [value or None per x])], one point per run; the
    legend under the axis wraps onto as many rows as the names need."""
    left, right, top = 46, 24, (24 if title else 10)
    legend_rows, lx = [[]], left
    for name, colour, vs in series:
        if not any(v is not None for v in vs):
            continue
        w = 22 + 6.4 * len(name)
        if lx + w > width and legend_rows[-1]:
            legend_rows.append([])
            lx = left
        legend_rows[-1].append((lx, name, colour))
        lx += w
    values = [v for _, _, vs in series for v in vs if v is not None]
    ticks = nice_ticks(max(values, default=1.0))
    vmax = ticks[-1]
    n = max(1, len(x_labels))
    pw, ph = width - left - right, height - top - 30
    total_height = height + 16 * len(legend_rows)

    def xy(i, v):
        x = left + (pw * i / (n - 1) if n > 1 else pw / 2)
        return x, top + ph - ph * v / vmax

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart line-chart" width="{width}" '
             f'height="{total_height}" viewBox="0 0 {width} {total_height}" role="img" '
             f'aria-label="{html.escape(title or "history")}" {FONT} font-size="11">']
    if title:
        parts.append(f'<text x="0" y="14" font-weight="600" font-size="12" fill="#0f172a">{html.escape(title)}</text>')
    for v in ticks:  # horizontal grid with values
        y = top + ph - ph * v / vmax
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e2e8f0"/>'
                     f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" fill="#64748b">{_fmt(v)}</text>')
    step = max(1, n // 6)
    for i, lab in enumerate(x_labels):
        if i % step == 0 or i == n - 1:
            x, _ = xy(i, 0)
            anchor = "start" if i == 0 and n > 1 else ("end" if i == n - 1 and n > 1 else "middle")
            parts.append(f'<text x="{x:.1f}" y="{top + ph + 16}" text-anchor="{anchor}" fill="#64748b">'
                         f"{html.escape(lab)}</text>")
    for name, colour, vs in series:
        pts = [(xy(i, v), v, x_labels[i] if i < len(x_labels) else "") for i, v in enumerate(vs) if v is not None]
        if not pts:
            continue
        if len(pts) > 1:
            d = " ".join(f"{x:.1f},{y:.1f}" for (x, y), _, _ in pts)
            parts.append(f'<polyline class="series" data-name="{html.escape(name)}" points="{d}" fill="none" '
                         f'stroke="{colour}" stroke-width="2"/>')
        for (x, y), v, lab in pts:
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{html.escape(name)} '
                         f"at {html.escape(lab)}: {_fmt(v)} {html.escape(unit)}</title></circle>")
    for row, entries in enumerate(legend_rows):
        y = height + 16 * row
        for lx, name, colour in entries:
            parts.append(f'<rect x="{lx:.0f}" y="{y - 10}" width="10" height="10" rx="2" fill="{colour}"/>'
                         f'<text x="{lx + 14:.0f}" y="{y - 1}" fill="#334155">{html.escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)
