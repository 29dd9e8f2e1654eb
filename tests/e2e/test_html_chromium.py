"""Both web pages (explain report, benchmark dashboard) in a real browser: headless Chromium loads
each page from disk, its serialised DOM after layout and scripts is checked, and a screenshot is
saved under the test's temporary folder. Skips when Debian's ``chromium`` is not installed."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import capture
import runtime as ms
from htmldom import Dom
from runtime import nn, ops

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, os.path.abspath(BENCH))

import dashboard  # noqa: E402

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed "
                                                         "(Debian: apt-get install chromium)")


def chromium(tmp_path, page, *, dump_dom=False, screenshot=None):
    """Run headless Chromium on the local file ``page``; the serialised DOM, or the screenshot."""
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
            "--disable-background-networking", "--disable-component-update", "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1600"]
    args += ["--dump-dom"] if dump_dom else [f"--screenshot={screenshot}"]
    proc = subprocess.run(args + [page.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


class TwoPartNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 2)

    def construct(self, x):
        h = ops.relu(self.fc1(x))
        print("hidden", h.shape)  # a graph break: print cannot be traced
        return self.fc2(h)


def test_explain_page_in_chromium(tmp_path):
    ms.set_seed(0)
    x = ms.Tensor(np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32))
    report = capture.explain(TwoPartNet())(x)
    page = tmp_path / "explain.html"
    report.save_html(str(page))

    dom = Dom(chromium(tmp_path, page, dump_dom=True))
    breaks = dom.find_all(cls="break-row")
    assert len(breaks) == report.graph_break_count >= 1
    assert "print" in breaks[0].text()
    marked = dom.find_all(cls="brk")
    assert marked and any("print(" in e.text() for e in marked)  # the break line, highlighted
    assert dom.find_all(cls="compiled")  # lines that ran compiled are shaded
    graphs = dom.find_all("div", "graph")
    assert len(graphs) == report.graph_count
    assert all(len(g.find_all("svg")) == 1 for g in graphs)

    shot = tmp_path / "explain.png"
    chromium(tmp_path, page, screenshot=shot)
    assert shot.stat().st_size > 10_000  # a real rendering, not a blank page


def test_dashboard_in_chromium(tmp_path):
    run = {"meta": {"commit": "abc1234", "time": "2026-11-01T10:00:00", "machine": "box", "threads": 8,
                    "sgemm_peak_gflops": 100.0},
           "rows": [{"case": "lenet train b32", "ours_pynative_ms": 9.0, "ours_graph_ms": 4.0, "ours_jit_step_ms": 3.0,
                     "torch_eager_ms": 5.0, "torch_compile_ms": 4.5, "jax_jit_ms": 2.5, "gflop": 0.08,
                     "ours_jit_gflops": 26.7}]}
    older = {"meta": dict(run["meta"], commit="0ld0000", time="2026-10-01T10:00:00"),
             "rows": [dict(run["rows"][0], ours_jit_step_ms=4.0)]}
    page = tmp_path / "dashboard.html"
    dashboard.save([older, run], str(page))

    dom = Dom(chromium(tmp_path, page, dump_dom=True))
    (lenet,) = dom.find_all("div", "workload")
    charts = lenet.find_all("svg")
    assert len(charts) == 2  # the bars and the history
    labels = charts[0].text()
    for peer in ("torch eager", "torch.compile", "JAX jit"):
        assert peer in labels
    assert "0.83x" in lenet.text()  # JAX jit 2.5 ms vs ours 3.0 ms

    shot = tmp_path / "dashboard.png"
    chromium(tmp_path, page, screenshot=shot)
    assert shot.stat().st_size > 10_000
