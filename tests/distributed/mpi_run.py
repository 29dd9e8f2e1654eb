"""Running a program as several MPI ranks from a test: ``run_ranks(program, *args)``.

Programs live in ``tests/distributed/programs`` and are started with ``python -m runtime.launch``
(so the launcher is exercised too), with a wall-clock timeout. When mpi4py or an ``mpiexec`` is
missing (the ``distributed`` extra did not install) the calling test is skipped, naming why.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mpi_unavailable_reason() -> str | None:
    """Why MPI cannot run here (None when it can)."""
    try:
        import mpi4py  # noqa: F401
    except ImportError as e:
        return f"the distributed extra is not installed (mpi4py: {e}); pip install -e '.[distributed]'"
    from runtime.launch import find_mpiexec
    if find_mpiexec() is None:
        return "no mpiexec beside this Python or on PATH (pip install -e '.[distributed]' brings MPICH's)"
    return None


def require_mpi():
    reason = mpi_unavailable_reason()
    if reason:
        pytest.skip(reason)


def run_ranks(program, *args, n=2, timeout=90, comm_timeout=20, env=None, launcher=None, unset=()):
    """Run ``programs/<program>`` as ``n`` ranks; returns the CompletedProcess (text output).

    ``comm_timeout`` bounds how long a collective waits; ``timeout`` the whole run. ``launcher``
    replaces ``python -m runtime.launch -n N --timeout T`` (e.g. a bare mpiexec command); ``unset``
    names environment variables the ranks must not inherit."""
    require_mpi()
    script = os.path.join(PROGRAMS, program)
    cmd = (launcher or [sys.executable, "-m", "runtime.launch", "-n", str(n), "--timeout", str(comm_timeout)])
    full_env = dict(os.environ)
    full_env.pop("MSJIT_LOG_ALL_RANKS", None)
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env["RUNTIME_PROGRESS"] = "0"
    full_env.update(env or {})
    for var in unset:
        full_env.pop(var, None)
    try:
        return subprocess.run(cmd + [script, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                              env=full_env, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{program} on {n} ranks did not finish within {timeout} s (a hang):\n"
                    f"stdout:\n{e.stdout}\nstderr:\n{e.stderr}")


def check_ok(proc, what):
    assert proc.returncode == 0, (f"{what} failed (exit {proc.returncode}):\n"
                                  f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
