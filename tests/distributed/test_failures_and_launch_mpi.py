"""A failing or stuck rank stops every rank within seconds with a clear error (no hang), and the
launch paths (python -m runtime.launch, bare mpiexec) start working ranks."""
import os
import re
import time

import pytest

from mpi_run import check_ok, require_mpi, run_ranks


@pytest.mark.parametrize("how, message", [
    ("raise", r"rank 1 of 2 failed with ValueError: rank 1: a corrupt batch in step 3"),
    ("before_init", r"rank 1 of 2 failed with RuntimeError: rank 1: the configuration file is missing"),
    ("stuck", r"CollectiveTimeout: AllReduceStart/Wait \(a gradient bucket\) on group '\w+' \(rank 0 of 2\): "
              r"the other ranks did not take part within 3 s"),
    ("exit", r"PeerExited: AllReduceStart/Wait \(a gradient bucket\) on group '\w+' \(rank 0 of 2\): "
             r"world rank 1 has exited without taking part"),
])
def test_a_failing_rank_stops_every_rank(tmp_path, how, message):
    t0 = time.monotonic()
    # a rank that exits early is noticed without the collective timeout (60 s here)
    proc = run_ranks("failing_rank.py", tmp_path, how, comm_timeout=60 if how == "exit" else 3, timeout=90)
    elapsed = time.monotonic() - t0
    assert proc.returncode != 0
    assert re.search(message, proc.stderr), proc.stderr
    assert "aborting every rank" in proc.stderr
    assert not (tmp_path / "rank0_done").exists()  # rank 0 did not train on alone
    assert elapsed < 30, f"took {elapsed:.1f} s to stop"


def test_launcher_shares_the_cores():
    proc = run_ranks("hello.py", unset=("MSJIT_THREADS", "RUNTIME_BLAS_THREADS"))
    check_ok(proc, "hello.py under runtime.launch")
    share = max(1, len(os.sched_getaffinity(0)) // 2)
    assert _hellos(proc) == [(str(r), "2", str(r), str(share), str(share)) for r in range(2)]


def test_bare_mpiexec_works_as_is():
    require_mpi()
    from runtime.launch import find_mpiexec
    proc = run_ranks("hello.py", launcher=[find_mpiexec(), "-n", "2", os.sys.executable],
                     unset=("MSJIT_THREADS", "RUNTIME_BLAS_THREADS"))
    check_ok(proc, "hello.py under mpiexec")
    share = max(1, len(os.sched_getaffinity(0)) // 2)
    # init() sized the kernel pool itself (no launcher environment): cores // local ranks
    assert [h[:4] for h in _hellos(proc)] == [(str(r), "2", str(r), str(share)) for r in range(2)]


def _hellos(proc):
    """(rank, size, local, threads, blas) per rank; mpiexec may interleave the ranks' output."""
    return sorted(re.findall(r"rank=(\d+) size=(\d+) local=(\d+) threads=(\d+) blas=(\S+?)(?=rank=|\s|$)",
                             proc.stdout))
