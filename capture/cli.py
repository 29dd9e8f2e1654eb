"""``python -m capture run|explain script.py [args]``: accelerate an unmodified script.

``run`` executes the script with the frame-evaluation hook on (every ``Cell.construct`` is
captured, compiled and cached; graph breaks run eagerly) and prints a short summary to stderr at
exit. ``explain`` does the same and prints the full graph-break report. The script's exit code
and exceptions are preserved.

Example:
    $ python -m capture run train.py --epochs 1
    ...script output...
    [capture] 3 frames captured, 3 graphs (412 ops), 0 graph breaks, 0 recompiles;
              compile 0.41 s, 12.8 s in compiled code
"""
from __future__ import annotations

import os
import runpy
import sys
import time
import traceback

USAGE = "usage: python -m capture {run,explain} script.py [args...]"


class _Timer:
    """Accumulates the time spent running compiled entries."""

    def __init__(self, api):
        self.api = api
        self.seconds = 0.0
        self.calls = 0
        self._orig = api._run_compiled

    def __enter__(self):
        orig = self._orig

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return orig(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0
                self.calls += 1

        self.api._run_compiled = timed
        return self

    def __exit__(self, *exc):
        self.api._run_compiled = self._orig
        return False


def _summary(report, timer) -> str:
    from .cache import _CACHES
    frames = sum(1 for c in _CACHES.values() if any(not e.eager for e in c.entries))
    ops = report.op_count
    return (f"[capture] {frames} frame(s) captured, {report.graph_count} graph(s) ({ops} ops), "
            f"{report.graph_break_count} graph break(s), {len(report.recompiles)} recompile(s); "
            f"compile {sum(report.compile_times):.2f} s, {timer.seconds:.2f} s in compiled code "
            f"({timer.calls} calls)")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2 or argv[0] not in ("run", "explain"):
        print(USAGE, file=sys.stderr)
        return 2
    command, script, script_args = argv[0], argv[1], argv[2:]
    if not os.path.exists(script):
        print(f"python -m capture: can't open file {script!r}: no such file", file=sys.stderr)
        return 2
    from . import api, frame_eval
    from .explain import recording

    sys.argv = [script] + script_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code = 0
    with recording() as report, _Timer(api) as timer:
        frame_eval.enable()
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if e.code is not None and not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
        except BaseException:  # the script's own exception: report it like Python would
            traceback.print_exc()
            code = 1
        finally:
            frame_eval.disable()
    print(_summary(report, timer), file=sys.stderr)
    if command == "explain":
        print(str(report), file=sys.stderr)
    return code
