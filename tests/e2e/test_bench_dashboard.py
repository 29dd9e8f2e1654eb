"""The benchmark dashboard page and the terminal table of ``python -m bench``.

The pages are checked through their DOM (tests/htmldom.py), the table through its columns."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from htmldom import Dom

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, os.path.abspath(BENCH))

import dashboard  # noqa: E402
import svgcharts  # noqa: E402


def _run(commit, time, jit_ms, torch_ms=2.0, jax_ms=1.5):
    return {"meta": {"commit": commit, "time": time, "machine": "box", "cpu": "Test CPU", "threads": 8,
                     "sgemm_peak_gflops": 100.0, "fma_peak_gflops": 120.0},
            "rows": [{"case": "lenet train b32", "ours_pynative_ms": 9.0, "ours_graph_ms": 4.0,
                      "ours_jit_step_ms": jit_ms, "torch_eager_ms": torch_ms, "torch_compile_ms": None,
                      "jax_jit_ms": jax_ms, "gflop": 0.08, "ours_jit_gflops": 0.08 / (jit_ms / 1e3)},
                     {"case": "chain n=1e+06", "numpy_ms": 3.0, "ours_pynative_ms": 3.5, "ours_graph_ms": 1.0,
                      "copy_ms": 0.5, "graph_frac_of_copy_bw": 0.5},
                     {"case": "first GRAPH step lenet b32 (cold process)", "ours_graph_ms": 700.0},
                     {"case": "first GRAPH step lenet b32 (warm process)", "ours_graph_ms": 90.0}]}


def test_speedup_is_against_the_fastest_installed_peer():
    row = _run("a", "t", 3.0)["rows"][0]
    speedup, col = dashboard.speedup_vs_fastest_peer(row)
    assert col == "jax_jit_ms" and speedup == pytest.approx(1.5 / 3.0)
    assert dashboard.speedup_vs_fastest_peer({"case": "x", "ours_jit_step_ms": 1.0}) == (None, None)


def test_dashboard_has_a_chart_per_workload_naming_every_peer():
    dom = Dom(dashboard.render([_run("abc1234", "2026-11-01T10:00:00", 1.0)]))
    work = dom.find_all("div", "workload")
    assert {w.attrs["data-case"] for w in work} == {"lenet train b32", "chain n=1e+06"}
    lenet = next(w for w in work if w.attrs["data-case"] == "lenet train b32")
    svg_text = " ".join(s.text() for s in lenet.find_all("svg"))
    for name in ("ours PyNative", "ours GRAPH", "ours @jit", "torch eager", "torch.compile", "JAX jit"):
        assert name in svg_text, name
    assert "n/a" in svg_text  # torch.compile failed in this run: shown, not dropped
    assert "1.50x" in lenet.text() and "JAX jit" in lenet.text()
    # roofline: 0.08 GFLOP in 1 ms = 80 GFLOP/s of the 100 measured
    assert "80.0 GFLOP/s" in lenet.text() and "80.0% of the 100 GFLOP/s" in lenet.text()
    page = dom.text()
    assert "FMA peak" in page and "120 GFLOP/s" in page
    assert "700" in page and "cold process" in page and "warm process" in page
    assert "commit abc1234" in page and "8 threads" in page and "box" in page


def test_history_draws_one_line_per_column_across_runs():
    runs = [_run("c1", "2026-11-01T10:00:00", 2.0), _run("c2", "2026-11-02T10:00:00", 1.0)]
    dom = Dom(dashboard.render(runs))
    lenet = next(w for w in dom.find_all("div", "workload") if w.attrs["data-case"] == "lenet train b32")
    history = lenet.find_all("svg", "line-chart")
    assert len(history) == 1
    assert len(history[0].find_all("polyline")) == 5  # every column with a value in some run
    assert "c1" in history[0].text() and "c2" in history[0].text()
    assert Dom(dashboard.render(runs[:1])).find_all("svg", "line-chart") == []


def test_bad_files_are_skipped_and_runs_come_oldest_first(tmp_path, capsys):
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    new.write_text(json.dumps(_run("n", "2026-11-02T00:00:00", 1.0)))
    old.write_text(json.dumps(_run("o", "2026-11-01T00:00:00", 1.0)))
    (tmp_path / "torn.json").write_text('{"rows": [')
    (tmp_path / "other.json").write_text('{"something": 1}')
    runs = dashboard.load_runs([str(tmp_path / n) for n in ("new.json", "torn.json", "other.json", "old.json",
                                                           "missing.json")])
    assert [r["meta"]["commit"] for r in runs] == ["o", "n"]
    err = capsys.readouterr().err
    assert err.count("skipping") == 3 and "torn.json" in err


def test_empty_dashboard_says_so():
    assert "No benchmark runs" in Dom(dashboard.render([])).text()


def test_bars_scale_to_the_largest_value_and_show_missing_values():
    dom = Dom(svgcharts.bar_chart([("a", 1.0, "#000"), ("b", 4.0, "#111"), ("c", None, "#222")]))
    widths = [float(r.attrs["width"]) for r in dom.find_all("rect")]
    assert widths[1] == pytest.approx(4 * widths[0]) and "n/a" in dom.text()


def test_dashboard_command_writes_the_page_from_saved_runs(tmp_path):
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(_run("abc", "2026-11-01T00:00:00", 1.0)))
    out = tmp_path / "d.html"
    proc = subprocess.run([sys.executable, "-m", "bench", "dashboard", str(saved), "--out", str(out)],
                          cwd=os.path.dirname(os.path.abspath(BENCH)), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "1 run" in proc.stdout and len(Dom(out.read_text()).find_all("div", "workload")) == 2


def test_terminal_table_headers_line_up_with_their_columns():
    sys.path.insert(0, os.path.abspath(os.path.join(BENCH, "..")))
    from bench.__main__ import format_table
    rows = [{"case": "lenet train b32", "ours_graph_ms": 4.0, "graph_frac_of_copy_bw": 0.5, "torch_eager_ms": None},
            {"case": "chain", "ours_graph_ms": 123.456}]
    lines = format_table(rows).splitlines()
    header = lines[0]
    heads = ["ours_graph", "torch_eager", "graph_frac_of_copy_bw"]
    ends = [header.index(h) + len(h) for h in heads]
    assert ends == sorted(ends) and header.split() == ["case"] + heads
    for line in lines[1:]:
        for end in ends:  # every value is right-aligned to its header's last character
            assert line[end - 1] != " " and (end == len(line) or line[end] == " "), (header, line)
    assert lines[1].split()[-3:] == ["4.000", "-", "0.500"] and lines[2].split()[1:] == ["123.456", "-", "-"]


def test_roofline_line_puts_the_sgemm_peak_against_the_cores_fma_peak():
    sys.path.insert(0, os.path.abspath(os.path.join(BENCH, "..")))
    from bench.__main__ import roofline_line
    assert roofline_line({"sgemm_peak_gflops": 90.0, "fma_peak_gflops": 120.0}) == \
        "roofline: sgemm 90.0 GFLOP/s (75% of the cores' FMA peak, 120.0 GFLOP/s)"
    assert roofline_line({"sgemm_peak_gflops": 90.0, "fma_peak_gflops": None}) == "roofline: sgemm 90.0 GFLOP/s"


def test_fma_peak_loop_runs_every_chain_n_times():
    """The measured loop does the work it is credited with: every chain adds 2^-23 n times
    (exact in float32 below 1), so the result is chains x n x 2^-23; none was folded away."""
    import fma_peak
    _, loop = fma_peak._loop()
    for n in (1, 1000, 4096):
        assert loop(n) == pytest.approx(fma_peak.CHAINS * n * 2.0 ** -23, rel=1e-6)
    assert fma_peak.measured_gflops(threads=1, seconds=0.02) > 0.1


def test_gpu_bench_runs_dry_on_the_cpu():
    """``python -m bench gpu --dry-run``: every row of ours (PyNative, GRAPH, @jit whole step; the
    chain and its copy) at tiny sizes on the CPU, so the GPU table's code is known to run before a
    GPU session measures with it."""
    root = os.path.dirname(os.path.abspath(BENCH))
    out = subprocess.run([sys.executable, "-m", "bench", "gpu", "--dry-run", "--models", "lenet,mlp", "--no-torch"],
                         cwd=root, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    head = lines[0].split()
    assert head[:4] == ["case", "ours_pynative", "ours_graph", "ours_jit"], head
    assert any(line.startswith("lenet train b2") for line in lines)
    assert any(line.startswith("mlp train b2") for line in lines)
    assert any(line.startswith("chain tanh") for line in lines)


def test_gpu_bench_targets():
    import gpu
    rows = [{"case": "lenet train b256", "ours_jit_ms": 1.0, "torch_eager_ms": 1.5, "torch_compile_ms": 0.9,
             "jax_jit_ms": None},
            {"case": "mlp train b1024", "ours_jit_ms": 2.0, "torch_eager_ms": 1.9},
            {"case": "chain n=1e+08", "ours_jit_ms": 1.0, "copy_ms": 0.85, "frac_of_copy_bw": 0.85, "copy_gb_s": 3000.0}]
    lines = gpu.check_targets(rows)
    assert lines[0].startswith("ok") and "torch eager" in lines[0]
    assert lines[1].startswith("ok") and "torch_compile" in lines[1] and "1.11x" in lines[1]
    assert lines[2].startswith("MISS") and lines[3].startswith("ok")  # mlp: slower than eager, yet within 1.2x
    assert lines[4].startswith("ok") and "85% of the copy" in lines[4]


def test_a_run_faster_than_its_measured_peak_is_flagged_not_drawn_as_a_percentage():
    import dashboard
    run = {"meta": {"time": "2026-01-01T00:00:00", "commit": "abc", "machine": "m", "cpu": "c", "cpus": 2,
                    "sgemm_peak_gflops": 50.0, "fma_peak_gflops": None},
           "rows": [{"case": "mlp b32", "ours_jit_step_ms": 1.0, "torch_eager_ms": 2.0, "ours_jit_gflops": 120.0,
                     "gflop": 0.12}]}
    page = dashboard.render([run])
    assert "above the 50 GFLOP/s sgemm peak measured in this run" in page
    assert "240%" not in page and "240.0%" not in page


def test_the_stored_peak_is_the_best_this_machine_reached_and_survives_a_damaged_file(tmp_path):
    sys.path.insert(0, os.path.abspath(os.path.join(BENCH, "..")))
    from bench.__main__ import stored_peak
    path = str(tmp_path / "peaks.json")
    assert [stored_peak("sgemm", v, path) for v in (80.0, 60.0, 100.0, 90.0)] == [80.0, 80.0, 100.0, 100.0]
    assert stored_peak("fma", 5.0, path) == 5.0 and stored_peak("sgemm", 1.0, path) == 100.0
    with open(path, "w") as f:
        f.write("{not json")
    assert stored_peak("sgemm", 70.0, path) == 70.0  # (a damaged file is ignored and rewritten)
    with open(path) as f:
        assert list(json.load(f).values())[0] == {"sgemm": 70.0}
