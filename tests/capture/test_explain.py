"""``capture.explain`` report fields, CAPTURE_LOG, and save_graphs dumps."""
import json
import os
import re

import numpy as np

import capture
import runtime as ms
from capture_helpers import assert_same, line_of, randn
from runtime import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 2)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def broken(x):
    y = x * 2
    print("value:", y)  # EXPLAIN:print
    return y


def test_report_fields_for_a_clean_capture(rng):
    net = Net()
    x = randn(rng, 3, 4)
    report = capture.explain(net)(x)
    assert report.graph_count == 1
    assert report.graph_break_count == 0
    assert report.break_reasons == []
    assert report.ops_per_graph == [5]
    assert report.op_count == 5
    assert len(report.guards) == 1 and any("Float32[3, 4]" in g for g in report.guards[0])
    assert len(report.compile_times) == 1 and report.compile_times[0] >= 0
    assert_same(report.result, net.construct(x))
    d = report.to_dict()
    assert set(d) >= {"graph_count", "graph_break_count", "break_reasons", "ops_per_graph", "guards",
                      "compile_times"}
    assert d["graph_count"] == 1 and d["ops_per_graph"] == [5]
    json.loads(report.to_json())
    text = str(report)
    assert "Graph count: 1" in text and "Graph break count: 0" in text
    assert "Net.construct" in text and "5 ops" in text and "Guards:" in text
    assert "<table" in report.to_html()


def test_explain_recompiles_fresh_each_time(rng):
    net = Net()
    x = randn(rng, 3, 4)
    assert capture.explain(net)(x).graph_count == 1
    assert capture.explain(net)(x).graph_count == 1  # explain resets that code's cache


def test_report_for_a_break(rng):
    lineno, source = line_of("EXPLAIN:print", broken)
    report = capture.explain(broken)(randn(rng, 2))
    # the prefix (x * 2) is a graph; the print runs eagerly; the resume only returns y (no graph)
    assert report.graph_count == 1 and report.graph_break_count == 1 and report.ops_per_graph == [1]
    b = report.break_reasons[0]
    d = b.to_dict()
    assert set(d) >= {"reason", "filename", "lineno", "source", "hint"}
    assert d["filename"] == os.path.abspath(__file__) and d["lineno"] == lineno and d["source"] == source
    assert "print()" in d["reason"] and d["hint"]
    text = str(report)
    assert "Graph break count: 1" in text
    assert f"{os.path.abspath(__file__)}:{lineno}" in text and source in text and "hint:" in text


def test_explain_of_a_jitted_function_uses_its_config(rng):
    backend = capture.CountingBackend()
    f = capture.jit(lambda x: x + 1, backend=backend)
    report = capture.explain(f)(randn(rng, 2))
    assert report.graph_count == 1 and backend.graph_count == 1


def test_capture_log_graph_breaks_recompiles_graphs(rng, monkeypatch, capsys):
    monkeypatch.setenv("CAPTURE_LOG", "graph_breaks,recompiles,graphs")
    lineno, source = line_of("EXPLAIN:print", broken)
    capture.jit(broken)(randn(rng, 2))
    err = capsys.readouterr().err
    assert f"Graph break in user code at {os.path.abspath(__file__)}:{lineno}" in err
    assert "Reason: print()" in err and source in err
    f = capture.jit(lambda x: ops.relu(x))
    f(randn(rng, 2))
    err = capsys.readouterr().err
    assert "[capture:graphs] compiled" in err and "relu" in err
    f(randn(rng, 3))
    err = capsys.readouterr().err
    assert "[capture:recompiles] recompiling" in err and "x: shape (2,) -> (3,), dim 0 changed" in err


def test_capture_log_off_by_default(rng, monkeypatch, capsys):
    monkeypatch.delenv("CAPTURE_LOG", raising=False)
    capture.jit(broken)(randn(rng, 2))
    capture.jit(lambda x: x + 1)(randn(rng, 2))
    assert "[capture" not in capsys.readouterr().err


def test_a_compile_formats_its_graph_only_when_the_graphs_log_is_on(rng, monkeypatch):
    # (the IR's text is for the log: formatting it on every compile cost a warm first step time)
    from graph.ir import Graph
    formatted = []
    original = Graph.format
    monkeypatch.setattr(Graph, "format", lambda self, *a, **k: formatted.append(1) or original(self, *a, **k))
    monkeypatch.delenv("CAPTURE_LOG", raising=False)
    capture.jit(lambda x: ops.relu(x) * 2)(randn(rng, 3))
    assert formatted == []
    monkeypatch.setenv("CAPTURE_LOG", "graphs")
    capture.jit(lambda x: ops.relu(x) * 3)(randn(rng, 3))
    assert formatted


def test_capture_log_only_selected_kinds(rng, monkeypatch, capsys):
    monkeypatch.setenv("CAPTURE_LOG", "recompiles")
    capture.jit(broken)(randn(rng, 2))
    f = capture.jit(lambda x: x + 1)
    f(randn(rng, 2))
    f(randn(rng, 3))
    err = capsys.readouterr().err
    assert "recompiling" in err and "Graph break" not in err and "compiled" not in err


def test_save_graphs_writes_ir_and_dot(rng, tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    net = Net()
    net(randn(rng, 3, 4))
    net(randn(rng, 5, 4))  # second shape, second graph
    files = sorted(os.listdir(tmp_path))
    irs = [f for f in files if f.endswith(".ir")]
    dots = [f for f in files if f.endswith(".dot")]
    assert len(irs) == 2 and len(dots) == 2
    text = (tmp_path / irs[0]).read_text()
    assert text.startswith("graph Net_construct(")
    assert text.count(" = matmul ") == 2 and "relu" in text
    assert re.search(r"# test_explain\.py:\d+", text)  # source locations of the user's lines
    dot = (tmp_path / dots[0]).read_text()
    assert dot.startswith('digraph "Net_construct"') and dot.rstrip().endswith("}")


def test_save_graphs_off_writes_nothing(rng, tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=False, save_graphs_path=str(tmp_path))
    Net()(randn(rng, 3, 4))
    assert os.listdir(tmp_path) == []


def test_report_counts_several_graphs_and_breaks(rng):
    class Inner(nn.Cell):
        def construct(self, x):
            print(x)
            return x

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(2, 2)
            self.inner = Inner()

        def construct(self, x):
            return self.inner(self.a(x))

    ms.set_context(mode=ms.GRAPH_MODE)
    report = capture.explain(Outer())(randn(rng, 1, 2))
    # Outer breaks at the call of inner (its print): the prefix (Dense) is a graph, inner runs
    # eagerly and is captured on its own, breaking again at the same line (one deduplicated
    # reason); what follows both breaks only returns (no more graphs)
    assert report.graph_count == 1
    assert report.graph_break_count == 1 and len(report.breaks) == 2
    assert np.isfinite(report.result.asnumpy()).all()


def test_explain_of_bound_methods_and_fullgraph_functions(rng):
    net = Net()
    x = randn(rng, 3, 4)
    report = capture.explain(net.construct)(x)
    assert report.graph_count == 1
    assert_same(report.result, net.construct(x))
    strict = capture.jit(broken, fullgraph=True)
    report = capture.explain(strict)(randn(rng, 2))  # explain reports instead of raising
    assert report.graph_break_count == 1
