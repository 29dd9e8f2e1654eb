"""``report.to_html()`` / ``save_html`` / ``python -m capture explain --html``: the web page shows
everything the text report says, marks break lines, shades compiled lines and draws every graph."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from graph.draw import graph_svg
from htmldom import Dom
from runtime import nn, ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 2)

    def construct(self, x):
        h = ops.relu(self.fc1(x))
        print("hidden", h.shape)  # HTML:break
        return self.fc2(h)


def _line(marker):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if marker in line and "_line(" not in line)


def _x(*shape):
    return ms.Tensor(np.random.default_rng(0).normal(size=shape).astype(np.float32))


def _text_lines(report):
    """The lines of str(report), without list markers (the page shows them as lists)."""
    out = []
    for line in str(report).splitlines():
        line = line.strip()
        if line.startswith("- "):
            line = line[2:]
        elif line[:1].isdigit() and ". " in line[:4]:
            line = line.split(". ", 1)[1]
        if line and not line.endswith(":"):
            out.append(line)
    return out


def assert_page_says_everything(report):
    dom = Dom(report.to_html())
    text = dom.text(skip_ids=("as-text",))
    missing = [line for line in _text_lines(report) if " ".join(line.split()) not in text]
    assert not missing, f"on str(report) but not on the page: {missing}"
    return dom


def test_break_page_marks_the_break_and_shades_compiled_lines(capsys):
    report = capture.explain(Net())(_x(3, 4))
    assert report.graph_break_count == 1 and report.graph_count == 2
    dom = assert_page_says_everything(report)
    rows = dom.find_all(cls="break-row")
    assert len(rows) == 1 and "print()" in rows[0].text()
    brk = [e for e in dom.find_all(cls="src-line") if "brk" in e.classes]
    assert [int(e.attrs["data-line"]) for e in brk] == [_line("HTML:break")]
    compiled = {int(e.attrs["data-line"]) for e in dom.find_all(cls="compiled")}
    assert {_line("HTML:break") - 1, _line("HTML:break") + 1} <= compiled
    assert _line("HTML:break") not in compiled
    graphs = dom.find_all(cls="graph")
    assert len(graphs) == 2
    for g in graphs:  # one drawing per graph, with a box per op
        svgs = g.find_all("svg")
        assert len(svgs) == 1
        op_boxes = [e for e in svgs[0].find_all("g") if "node" in e.classes]
        assert len(op_boxes) >= 2
    assert dom.by_id("no-breaks") is None


def test_clean_page_says_there_are_no_breaks():
    def f(x):
        return ops.tanh(x * 2.0 + 1.0).sum()

    report = capture.explain(f)(_x(5))
    dom = assert_page_says_everything(report)
    assert dom.by_id("no-breaks") is not None
    assert dom.find_all(cls="break-row") == []
    assert len(dom.find_all("svg")) == 1
    kernels = [e for e in dom.find_all("details") if "Kernels" in e.text()]
    assert kernels and "fused" in kernels[0].text()


def test_recompile_history_names_the_failed_guard():
    def f(x, n):
        return x * n + 1

    jf = capture.jit(f)
    with recording() as report:
        jf(_x(2, 3), 2)
        jf(_x(2, 3), 3)
        jf(_x(4, 3), 3)
    assert len(report.recompiles) == 2
    dom = assert_page_says_everything(report)
    items = dom.find_all("li", cls="recompile")
    assert len(items) == 2
    assert "n: 2 -> 3" in items[0].text() and "x: shape (2, 3) -> (4, 3), dim 0 changed" in items[1].text()
    assert report.compiled_calls == 3 and report.compiled_seconds > 0


def test_empty_report_renders():
    dom = Dom(capture.ExplainReport().to_html())
    assert dom.by_id("no-breaks") is not None and dom.find_all("svg") == []


def test_save_html_writes_atomically(tmp_path):
    report = capture.explain(lambda x: x + 1)(_x(2))
    path = report.save_html(str(tmp_path / "sub" / "report.html"))
    assert open(path).read().startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(tmp_path / "sub")) == ["report.html"]


def test_builtin_drawing_of_a_large_graph():
    def f(x):
        for _ in range(300):
            x = ops.tanh(x * 1.01 + 0.1)
        return x.sum()

    report = capture.explain(f)(_x(4, 8))
    graph = report.compiles[0].graph
    assert graph.op_count() >= 900
    svg = Dom(graph_svg(graph, use_dot=False))
    boxes = [e for e in svg.find_all("g") if "node" in e.classes]
    assert len(boxes) == graph.op_count() + len(graph.inputs) + len(graph.consts) + len(graph.outputs)


def test_drawing_requires_graphviz_only_when_asked(monkeypatch):
    monkeypatch.setenv("PATH", "")
    graph = capture.explain(lambda x: x * 2)(_x(2)).compiles[0].graph
    assert graph_svg(graph).startswith("<svg")  # falls back to the built-in layout
    with pytest.raises(RuntimeError, match="graphviz"):
        graph_svg(graph, use_dot=True)


def test_cli_explain_html(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import runtime as ms
        from runtime import nn, ops

        class Net(nn.Cell):
            def construct(self, x):
                y = ops.relu(x) * 2
                print("y", y.shape)
                return y + 1

        net = Net()
        for _ in range(2):
            net(ms.Tensor(np.ones((2, 3), np.float32)))
    """))
    out = tmp_path / "report.html"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "capture", "explain", "--html", str(out), str(script)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stderr
    dom = Dom(out.read_text())
    assert len(dom.find_all(cls="break-row")) == 1
    assert "Net.construct" in dom.text()
