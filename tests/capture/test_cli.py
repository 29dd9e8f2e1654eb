"""``python -m capture run|explain script.py``: unmodified scripts, exit codes and exceptions kept."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import runtime as ms
    from runtime import nn, ops, Tensor

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)

        def construct(self, x):
            return ops.relu(self.fc(x)) * 2

    ms.set_seed(0)
    net = Net()
    x = Tensor(np.ones((2, 4), np.float32))
    outs = [net(x).asnumpy() for _ in range(3)]
    print("checksum %.6f" % float(outs[-1].sum()))
    if len(sys.argv) > 1 and sys.argv[1] == "raise":
        raise KeyError("boom from the script")
    sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
""")


def _run(tmp_path, *args, capture_cmd=("run",)):
    script = tmp_path / "train_script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "capture", *capture_cmd, str(script), *args] if capture_cmd else \
        [sys.executable, str(script), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)


def test_run_matches_plain_python_and_prints_summary(tmp_path):
    plain = _run(tmp_path, capture_cmd=())
    captured = _run(tmp_path)
    assert plain.returncode == captured.returncode == 0, captured.stderr
    assert plain.stdout == captured.stdout  # same results, same printed output
    assert "[capture]" in captured.stderr and "graph(s)" in captured.stderr
    assert "frame(s) captured" in captured.stderr


def test_exit_code_is_preserved(tmp_path):
    assert _run(tmp_path, "7").returncode == 7


def test_script_exception_is_reported_with_its_traceback(tmp_path):
    r = _run(tmp_path, "raise")
    assert r.returncode == 1
    assert "KeyError: 'boom from the script'" in r.stderr
    assert "train_script.py" in r.stderr


def test_explain_prints_the_report(tmp_path):
    r = _run(tmp_path, capture_cmd=("explain",))
    assert r.returncode == 0, r.stderr
    assert "Graph count:" in r.stderr and "Graph break count:" in r.stderr


def test_usage_errors(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "capture", "bogus"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "usage" in r.stderr
    r = subprocess.run([sys.executable, "-m", "capture", "run", str(tmp_path / "missing.py")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "missing.py" in r.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="the C helper is built for Linux CPython here")
def test_frames_really_go_through_the_hook(tmp_path):
    import capture.frame_eval as fe
    if not fe.AVAILABLE:
        pytest.skip("the C frame-eval helper is not built")
    r = _run(tmp_path)
    assert "1 frame(s) captured" in r.stderr or "2 frame(s) captured" in r.stderr, r.stderr


def _run_source(tmp_path, source, *args, capture_run=True):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, *(("-m", "capture", "run") if capture_run else ()), str(script), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)


def test_tracebacks_excepthook_and_ctrl_c_behave_like_plain_python(tmp_path):
    # issue 11 item 8
    source = """
        import sys
        def hook(t, v, tb):
            print("SCRIPT HOOK", t.__name__, v, file=sys.stderr)
        if sys.argv[1] == "hook":
            sys.excepthook = hook
        if sys.argv[1] == "interrupt":
            raise KeyboardInterrupt
        def f():
            raise ValueError("boom")
        f()
    """
    for mode in ("plain", "hook", "interrupt"):
        plain = _run_source(tmp_path, source, mode, capture_run=False)
        captured = _run_source(tmp_path, source, mode)
        assert captured.returncode == plain.returncode, (mode, captured.stderr)
        user_part = captured.stderr.split("[capture]")[0]
        assert user_part == plain.stderr, mode  # no capture/cli.py or runpy frames, same hook
    assert _run_source(tmp_path, source, "interrupt").returncode == -2  # died of SIGINT


def test_frames_are_counted_when_their_cells_die_before_exit(tmp_path):
    import capture.frame_eval as fe
    if not fe.AVAILABLE:
        pytest.skip("the C frame-eval helper is not built")
    r = _run_source(tmp_path, """
        import gc
        import numpy as np
        import capture
        from runtime import nn, Tensor

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 3)

            def construct(self, x):
                return self.fc(x) * 2

        for _ in range(3):
            net = Net()
            net(Tensor(np.ones((2, 4), np.float32)))
            del net
            gc.collect()
        capture.reset()
    """)
    assert r.returncode == 0, r.stderr
    assert "1 frame(s) captured, 3 graph(s)" in r.stderr, r.stderr
