"""graph/cpus.py: the CPU quota of a control group caps the cores the framework sizes its
thread pools to (cgroup v2 and v1 files, laid out in a temporary tree)."""
import os

import pytest

from graph import cpus


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


@pytest.mark.parametrize("text, want", [("200000 100000", 2.0), ("150000 100000", 1.5), ("max 100000", None)])
def test_cgroup_v2_quota_at_the_root(tmp_path, text, want):
    _write(str(tmp_path / "cpu.max"), text)
    assert cpus.quota_cores(root=str(tmp_path), v1_dirs=(), own="/") == want


def test_cgroup_v2_quota_of_the_process_own_group_comes_first(tmp_path):
    _write(str(tmp_path / "cpu.max"), "max 100000")
    _write(str(tmp_path / "system.slice" / "job.scope" / "cpu.max"), "50000 100000")
    assert cpus.quota_cores(root=str(tmp_path), v1_dirs=(), own="/system.slice/job.scope") == 0.5


@pytest.mark.parametrize("quota, want", [("300000", 3.0), ("-1", None)])
def test_cgroup_v1_quota(tmp_path, quota, want):
    d = tmp_path / "cpu"
    _write(str(d / "cpu.cfs_quota_us"), quota)
    _write(str(d / "cpu.cfs_period_us"), "100000")
    assert cpus.quota_cores(root=str(tmp_path / "no-v2"), v1_dirs=(str(d),), own="/") == want


def test_no_cgroup_files_means_no_quota(tmp_path):
    assert cpus.quota_cores(root=str(tmp_path), v1_dirs=(str(tmp_path / "v1"),), own="/") is None


@pytest.fixture
def fresh_usable_cores():
    cpus.usable_cores.cache_clear()
    yield
    cpus.usable_cores.cache_clear()


def _usable():
    cpus.usable_cores.cache_clear()
    return cpus.usable_cores()


def test_usable_cores_is_the_affinity_capped_by_the_rounded_up_quota(monkeypatch, fresh_usable_cores):
    monkeypatch.setattr(cpus, "affinity_cores", lambda: 64)
    monkeypatch.setattr(cpus, "quota_cores", lambda: 1.5)
    assert _usable() == 2
    monkeypatch.setattr(cpus, "quota_cores", lambda: 0.2)
    assert _usable() == 1
    monkeypatch.setattr(cpus, "quota_cores", lambda: None)
    assert _usable() == 64
    monkeypatch.setattr(cpus, "affinity_cores", lambda: 4)
    monkeypatch.setattr(cpus, "quota_cores", lambda: 16.0)
    assert _usable() == 4


def test_the_thread_pool_follows_the_quota(monkeypatch, fresh_usable_cores):
    from codegen.cpu import threads
    monkeypatch.delenv("MSJIT_THREADS", raising=False)
    monkeypatch.setattr(cpus, "affinity_cores", lambda: 64)
    monkeypatch.setattr(cpus, "quota_cores", lambda: 2.0)
    threads.set_num_threads(None)
    assert threads.n_threads() == 2
