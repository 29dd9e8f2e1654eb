"""Crash-proof test runs: each test body in a forked child process (``CAPTURE_TEST_FORK=1`` or
``pytest --capture-fork``; set up in tests/capture/conftest.py).

A SIGSEGV/abort inside capture kills only the child: the test fails, named, with the signal, and
the rest of the suite goes on. A test that hangs is killed after ``CAPTURE_TEST_FORK_TIMEOUT``
seconds (default 600). Fixtures run in the parent (the child inherits them); the child sends back
its outcome (passed / failed with the traceback text / skipped / xfailed) through a pipe.
"""
from __future__ import annotations

import os
import pickle
import signal
import time
import traceback

import pytest

ENV = "CAPTURE_TEST_FORK"


def enabled() -> bool:
    return os.environ.get(ENV, "") not in ("", "0")


def _child(pyfuncitem, wfd):
    code = 0
    try:
        funcargs = pyfuncitem.funcargs
        args = {name: funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        pyfuncitem.obj(**args)
        msg = ("passed", None)
    except pytest.skip.Exception as e:
        msg = ("skipped", str(e))
    except pytest.xfail.Exception as e:
        msg = ("xfailed", str(e))
    except BaseException as e:  # noqa: B902 -- everything the test raised goes back to the parent
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        try:
            pickle.dumps(e)
            exc = e
        except Exception:
            exc = None
        msg = ("failed", (tb, exc if isinstance(exc, AssertionError) else None, type(e).__name__, str(e)))
        code = 1
    try:
        data = pickle.dumps(msg)
    except Exception:
        data = pickle.dumps(("failed", (str(msg), None, "Error", str(msg))))
    with os.fdopen(wfd, "wb") as w:
        w.write(data)
    os._exit(code)


def run_forked(pyfuncitem, timeout=None):
    """Run the test function of ``pyfuncitem`` in a child; raise its outcome in the parent."""
    __tracebackhide__ = True
    timeout = timeout or float(os.environ.get("CAPTURE_TEST_FORK_TIMEOUT", "600"))
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(rfd)
        _child(pyfuncitem, wfd)
    os.close(wfd)
    chunks = []
    deadline = time.monotonic() + timeout
    with os.fdopen(rfd, "rb") as r:
        os.set_blocking(r.fileno(), False)
        status = None
        while True:
            try:
                chunk = r.read()
            except BlockingIOError:
                chunk = None
            if chunk:
                chunks.append(chunk)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                try:
                    rest = r.read()
                except BlockingIOError:
                    rest = None
                if rest:
                    chunks.append(rest)
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail(f"{pyfuncitem.nodeid} hung: killed after {timeout:.0f} s (forked test)", pytrace=False)
            time.sleep(0.005)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        pytest.fail(f"{pyfuncitem.nodeid} CRASHED the interpreter: signal {sig} "
                    f"({signal.Signals(sig).name}) in the forked child", pytrace=False)
    data = b"".join(chunks)
    if not data:
        pytest.fail(f"{pyfuncitem.nodeid}: the forked child exited with status {os.WEXITSTATUS(status)} "
                    f"without reporting", pytrace=False)
    kind, detail = pickle.loads(data)
    if kind == "skipped":
        pytest.skip(detail)
    if kind == "xfailed":
        pytest.xfail(detail)
    if kind == "failed":
        tb, exc, name, text = detail
        if exc is not None:
            raise AssertionError(f"{text}\n--- in the forked child ---\n{tb}")
        raise ForkedTestError(f"{name}: {text}\n--- in the forked child ---\n{tb}")


class ForkedTestError(Exception):
    """An exception (not an assertion) a forked test raised; the child's traceback is its text."""
