"""A self-contained HTML page shell shared by the explain report and the benchmark dashboard.

Everything is inline (CSS, the few lines of script, SVG pictures): the page opens from a file with
no network, prints cleanly, and uses the reader's system fonts instead of downloading any.

Example:
    >>> doc = page("Demo", "<p>hello</p>")
    >>> doc.startswith("<!DOCTYPE html>") and "<title>Demo</title>" in doc
    True
"""
from __future__ import annotations

import html
import os

STYLE = """
:root { --ink:#0f172a; --muted:#475569; --line:#e2e8f0; --bg:#ffffff; --panel:#f8fafc;
  --accent:#2563eb; --bad:#dc2626; --bad-bg:#fef2f2; --good:#15803d; --warn-bg:#fffbeb; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: var(--bg);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 32px 64px; }
header.top { border-bottom: 1px solid var(--line); margin-bottom: 22px; padding-bottom: 14px; }
header.top h1 { font-size: 26px; margin: 0 0 2px; letter-spacing: -0.01em; }
header.top .sub { color: var(--muted); font-size: 13.5px; }
h2 { font-size: 19px; margin: 34px 0 10px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 14px; margin: 16px 0 6px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; }
p { margin: 6px 0 10px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 12.5px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
  overflow-x: auto; white-space: pre; margin: 6px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(124px, 1fr)); gap: 10px; margin: 8px 0 6px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: var(--panel); }
.card .v { font-size: 22px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .k { color: var(--muted); font-size: 12.5px; }
.card.bad .v { color: var(--bad); } .card.good .v { color: var(--good); }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; font-size: 13.5px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); background: var(--panel); position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
.table-wrap { overflow-x: auto; }
tr.best td { font-weight: 650; }
details { margin: 6px 0 10px; }
details > summary { cursor: pointer; color: var(--accent); font-weight: 550; }
.note { color: var(--muted); font-size: 13px; }
.pill { display: inline-block; border-radius: 999px; padding: 1px 8px; font-size: 12px; font-weight: 600;
  background: #e0e7ff; color: #3730a3; margin-right: 4px; }
.pill.bad { background: var(--bad-bg); color: var(--bad); }
.pill.good { background: #dcfce7; color: var(--good); }
.scroll { overflow: auto; max-height: 560px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.empty { padding: 12px 14px; border: 1px dashed var(--line); border-radius: 8px; color: var(--muted); }
.legend span { display: inline-block; margin-right: 12px; font-size: 12.5px; }
.legend i { display: inline-block; width: 11px; height: 11px; border-radius: 3px; margin-right: 4px;
  vertical-align: -1px; border: 1px solid #94a3b8; }
@media print {
  main { max-width: none; padding: 0; }
  .scroll { max-height: none; overflow: visible; }
  details { display: block; } details > summary { display: none; }
  h2 { break-after: avoid; } tr, .src-line { break-inside: avoid; }
}
"""

#: opens every <details> before printing so the printed page shows all of it
PRINT_SCRIPT = ("window.addEventListener('beforeprint',function(){"
                "document.querySelectorAll('details').forEach(function(d){d.open=true;});});")


def esc(value) -> str:
    """HTML-escape ``str(value)``."""
    return html.escape(str(value), quote=True)


def page(title: str, body: str, subtitle: str = "", extra_style: str = "") -> str:
    """A complete HTML document with the shared style."""
    sub = f'<div class="sub">{esc(subtitle)}</div>' if subtitle else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{STYLE}{extra_style}</style></head>"
            f'<body><main><header class="top"><h1>{esc(title)}</h1>{sub}</header>{body}</main>'
            f"<script>{PRINT_SCRIPT}</script></body></html>\n")


def cards(items) -> str:
    """A row of number cards: ``items`` = [(label, value, tone)] with tone '', 'good' or 'bad'."""
    return '<div class="cards">' + "".join(
        f'<div class="card {tone}"><div class="v">{esc(v)}</div><div class="k">{esc(k)}</div></div>'
        for k, v, tone in items) + "</div>"


def table(headers, rows, numeric=(), row_classes=None) -> str:
    """An HTML table; cells are escaped unless wrapped in :class:`Raw`; ``numeric`` holds the
    indices of right-aligned columns."""
    def cell(tag, i, v):
        cls = ' class="num"' if i in numeric else ""
        return f"<{tag}{cls}>{v.html if isinstance(v, Raw) else esc(v)}</{tag}>"
    head = "<tr>" + "".join(cell("th", i, h) for i, h in enumerate(headers)) + "</tr>"
    body = []
    for r, row in enumerate(rows):
        cls = f' class="{row_classes[r]}"' if row_classes and row_classes[r] else ""
        body.append(f"<tr{cls}>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    # wide tables scroll inside their own box instead of running off the page
    return f'<div class="table-wrap"><table><thead>{head}</thead><tbody>{"".join(body)}</tbody></table></div>'


class Raw:
    """Already-rendered HTML for :func:`table` cells."""

    def __init__(self, html_text: str):
        self.html = html_text


def write_atomically(path: str, text: str) -> str:
    """Write ``text`` to ``path`` through a temporary file and a rename; returns the path."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.tmp{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path
