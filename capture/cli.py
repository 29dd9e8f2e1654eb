"""``python -m capture run|explain [--html OUT.html] [--mindspore] script.py [args]``: accelerate
an unmodified script.

``run`` executes the script with the frame-evaluation hook on (every ``Cell.construct`` is
captured, compiled and cached; graph breaks run eagerly) and prints a short summary to stderr at
exit. ``explain`` does the same and prints the full graph-break report; with ``--html OUT.html``
it also writes the report as a self-contained web page. ``--mindspore`` makes ``import
mindspore`` resolve to this framework (:mod:`runtime.compat`), so a MindSpore script runs with
no edit at all. The script's exit code and exceptions are preserved.

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
import traceback

USAGE = "usage: python -m capture {run,explain} [--html OUT.html] [--mindspore] script.py [args...]"


def _summary(report) -> str:
    line = (f"[capture] {len(report.frames_captured)} frame(s) captured, {report.graph_count} graph(s) "
            f"({report.op_count} ops), {report.graph_break_count} graph break(s), "
            f"{len(report.recompiles)} recompile(s); compile {sum(report.compile_times):.2f} s, "
            f"{report.compiled_seconds:.2f} s in compiled code ({report.compiled_calls} calls)")
    warm = sum(1 for c in report.compiles if c.warm_start)
    if warm:
        line += f"\n[capture] {warm} graph(s) loaded from the warm-start cache (saved by an earlier run)"
    if report.user_functions:
        line += f"\n[capture] user functions captured whole: {', '.join(report.user_functions)}"
    return line


def _options(argv):
    """(html path or None, alias mindspore?, remaining argv) from the options after the command."""
    html_path, mindspore = None, False
    while len(argv) >= 2 and argv[1].startswith("--"):
        if argv[1] == "--mindspore":
            mindspore = True
            del argv[1]
        elif argv[1] == "--html" and len(argv) >= 3:
            html_path = argv[2]
            del argv[1:3]
        elif argv[1].startswith("--html="):
            html_path = argv.pop(1).split("=", 1)[1]
        else:
            return None, False, None
    return html_path, mindspore, argv


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    html_path, mindspore, argv = _options(argv)
    if argv is None or len(argv) < 2 or argv[0] not in ("run", "explain") or (html_path is not None and not html_path):
        print(USAGE, file=sys.stderr)
        return 2
    command, script, script_args = argv[0], argv[1], argv[2:]
    if not os.path.exists(script):
        print(f"python -m capture: can't open file {script!r}: no such file", file=sys.stderr)
        return 2
    if mindspore:
        from runtime.compat import alias_mindspore
        try:
            alias_mindspore()
        except RuntimeError as e:
            print(f"python -m capture: {e}", file=sys.stderr)
            return 2
    from . import frame_eval
    from .explain import recording

    sys.argv = [script] + script_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code, interrupted = 0, False
    with recording() as report:
        frame_eval.enable()
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if e.code is not None and not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
        except BaseException as e:  # the script's own exception: report it as Python would
            _report_uncaught(e, script)
            code, interrupted = 1, isinstance(e, KeyboardInterrupt)
        finally:
            frame_eval.disable()
    print(_summary(report), file=sys.stderr)
    if command == "explain":
        print(str(report), file=sys.stderr)
    if html_path:
        print(f"[capture] wrote {report.save_html(html_path)}", file=sys.stderr)
    if interrupted:
        _die_of_sigint()
    return code


def _report_uncaught(exc, script):
    """What ``python script.py`` does with an uncaught exception: the script's ``sys.excepthook``
    (the default prints the traceback) with a traceback that starts in the script, without this
    module's and runpy's frames."""
    tb = exc.__traceback__
    target = os.path.abspath(script)
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != target:
        tb = tb.tb_next
    if tb is not None:
        exc.__traceback__ = tb  # the default hook prints the exception's own traceback
    try:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    except Exception:  # a broken hook: Python falls back to the default printer too
        traceback.print_exception(type(exc), exc, tb)


def _die_of_sigint():
    """Exit the way an interrupted ``python script.py`` does: killed by SIGINT (status -2 / 130)."""
    import signal
    sys.stdout.flush()
    sys.stderr.flush()
    if hasattr(signal, "SIGINT") and hasattr(os, "kill"):
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    raise SystemExit(130)
