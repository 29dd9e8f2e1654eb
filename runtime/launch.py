"""``python -m runtime.launch -n N train.py [args...]``: run a script as N data-parallel ranks.

A thin wrapper over ``mpiexec -n N python train.py [args...]`` (which works as well, unchanged):

* it finds the MPI launcher of the installed ``distributed`` extra (the ``mpiexec`` beside this
  Python, i.e. the one matching mpi4py), else the first ``mpiexec`` on PATH;
* it lets more ranks than cores run (Open MPI refuses by default; MPICH allows it) and gives each
  rank its share of the cores: ``MSJIT_THREADS``, ``RUNTIME_BLAS_THREADS`` and
  ``OMP_NUM_THREADS`` become ``max(1, cores // N)`` unless already set;
* ``--timeout S`` sets ``MSJIT_COMM_TIMEOUT`` (how long a collective waits for the other ranks
  before failing), ``--hostfile FILE`` spreads ranks over machines, ``--log-all-ranks`` makes
  every rank print training output (prefixed ``[rank r]``) instead of rank 0 alone.

The exit status is mpiexec's: non-zero when any rank failed (a failing rank aborts the others).

Example:
    >>> from runtime.launch import build_command
    >>> cmd, env = build_command(["-n", "2", "train.py", "--epochs", "1"], environ={},
    ...                          mpiexec="/venv/bin/mpiexec", flavour="mpich", cores=4)
    >>> cmd[:3], cmd[-3:], env["MSJIT_THREADS"]
    (['/venv/bin/mpiexec', '-n', '2'], ['train.py', '--epochs', '1'], '2')
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

from graph import config as settings


def find_mpiexec() -> str | None:
    """The mpiexec of this Python's environment (the distributed extra's), else one on PATH."""
    here = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "mpiexec")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    return shutil.which("mpiexec")


def mpi_flavour(mpiexec: str) -> str:
    """"openmpi" or "mpich" (hydra; also Intel MPI), from ``mpiexec --version``."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
        text = (out.stdout + out.stderr).lower()
    except (OSError, subprocess.TimeoutExpired):
        return "mpich"
    return "openmpi" if "open mpi" in text or "open-mpi" in text or "openrte" in text else "mpich"


def _cores() -> int:
    from graph.cpus import usable_cores
    return usable_cores()


def _parser():
    p = argparse.ArgumentParser(prog="python -m runtime.launch",
                                description="Run a training script as N data-parallel ranks over MPI.")
    p.add_argument("-n", "--np", dest="n", type=int, default=None,
                   help="number of ranks (default: the cores this process may use)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds a collective waits for the other ranks before failing (MSJIT_COMM_TIMEOUT)")
    p.add_argument("--hostfile", default=None, help="machines to run on (MPI hostfile)")
    p.add_argument("--log-all-ranks", action="store_true", help="every rank prints training output")
    p.add_argument("--mpiexec", default=None, help="the MPI launcher to use (default: the distributed extra's)")
    p.add_argument("script", help="the Python script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    return p


def build_command(argv, environ=None, mpiexec=None, flavour=None, cores=None):
    """(mpiexec command line, environment) for ``argv`` (this module's command line)."""
    opts = _parser().parse_args(argv)
    env = dict(settings.environment() if environ is None else environ)
    cores = cores or _cores()
    n = opts.n if opts.n is not None else cores
    if n < 1:
        raise SystemExit(f"runtime.launch: -n must be >= 1, got {n}")
    if opts.timeout is not None and not opts.timeout > 0:
        raise SystemExit(f"runtime.launch: --timeout must be > 0 seconds, got {opts.timeout}")
    mpiexec = opts.mpiexec or mpiexec or find_mpiexec()
    if mpiexec is None:
        raise SystemExit("runtime.launch: no mpiexec found. Install the distributed extra (pip install "
                         "'msjit[distributed]'), which brings MPICH's mpiexec, or put one on PATH.")
    flavour = flavour or mpi_flavour(mpiexec)
    cmd = [mpiexec, "-n", str(n)]
    if flavour == "openmpi":
        cmd.append("--oversubscribe")
    if opts.hostfile:
        cmd += ["--hostfile" if flavour == "openmpi" else "-f", opts.hostfile]
    cmd += [sys.executable, opts.script] + list(opts.args)
    share = str(max(1, cores // n))
    for var in ("MSJIT_THREADS", "RUNTIME_BLAS_THREADS", "OMP_NUM_THREADS"):
        env.setdefault(var, share)
    if opts.timeout is not None:
        env["MSJIT_COMM_TIMEOUT"] = repr(opts.timeout)
    if opts.log_all_ranks:
        env["MSJIT_LOG_ALL_RANKS"] = "1"
    return cmd, env


def main(argv=None) -> int:
    cmd, env = build_command(sys.argv[1:] if argv is None else argv)
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:  # mpiexec got the signal too and stops the ranks
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
