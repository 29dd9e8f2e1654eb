"""Regenerate the two screenshots the README links (needs headless Chromium):

    python docs/screenshots.py        # writes docs/explain-report.png and docs/bench-dashboard.png

The explain page is the report for LeNet5 inference whose ``construct`` reads a tensor value
into Python (a graph break); the dashboard is drawn from the runs saved in bench/results/runs/.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "bench"), os.path.join(ROOT, "examples")]

import capture  # noqa: E402
import dashboard  # noqa: E402
import runtime as ms  # noqa: E402
from lenet_demo import LeNet5  # noqa: E402


class CheckedLeNet5(LeNet5):
    def construct(self, x):
        if float(x.max().asnumpy()) > 100:  # raw 0-255 pixels: rescale (reads a value: a graph break)
            x = x / 255
        return super().construct(x)


def screenshot(page, png, height):
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if browser is None:
        raise SystemExit("headless Chromium is needed (Debian: apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", f"--window-size=1280,{height}", f"--screenshot={png}",
                        "file://" + os.path.abspath(page)], check=True, capture_output=True, timeout=120)
    print("wrote", png)


def main():
    out = os.path.join(ROOT, "docs")
    with tempfile.TemporaryDirectory() as tmp:
        ms.set_seed(1)
        net = CheckedLeNet5()
        net.set_train(False)
        x = ms.Tensor(np.random.default_rng(0).uniform(0, 255, size=(32, 1, 32, 32)).astype(np.float32))
        report = capture.explain(net)(x)
        page = report.save_html(os.path.join(tmp, "explain.html"))
        screenshot(page, os.path.join(out, "explain-report.png"), 1500)

        runs = dashboard.load_runs(sorted(glob.glob(os.path.join(ROOT, "bench", "results", "runs", "*.json"))))
        if not runs:
            raise SystemExit("no saved benchmark runs: run `python -m bench` first")
        page = dashboard.save(runs, os.path.join(tmp, "dashboard.html"))
        screenshot(page, os.path.join(out, "bench-dashboard.png"), 1700)


if __name__ == "__main__":
    main()
