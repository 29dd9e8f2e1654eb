"""How many cores this process may really use: the CPUs it may run on (``sched_getaffinity``),
capped by the CPU quota of its control group (a container started with ``--cpus=2`` on a
64-core host sees 64 CPUs but gets the time of 2).

Every thread count the framework picks by itself starts here (the kernel thread pool, numpy's
BLAS threads, the share of each rank under ``runtime.launch``): sized to the affinity alone, a
pool of 63 workers spinning between kernels would use up a 2-CPU quota and stall the process.

Example:
    >>> from graph.cpus import usable_cores
    >>> usable_cores() >= 1
    True
"""
from __future__ import annotations

import functools
import math
import os

#: where Linux shows the CPU quota: cgroup v2 (``cpu.max``: "quota period" or "max period") and
#: cgroup v1 (``cpu.cfs_quota_us``, -1 for none, and ``cpu.cfs_period_us``)
_V2_ROOT = "/sys/fs/cgroup"
_V1_DIRS = ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct")


def affinity_cores() -> int:
    """CPUs this process may be scheduled on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _own_cgroup_v2() -> str | None:
    """This process's cgroup v2 path (the ``0::`` line of /proc/self/cgroup)."""
    text = _read("/proc/self/cgroup") or ""
    for line in text.splitlines():
        if line.startswith("0::"):
            return line[3:]
    return None


def quota_cores(root: str = _V2_ROOT, v1_dirs=_V1_DIRS, own: str | None = None) -> float | None:
    """The CPU quota of this process's control group in cores (e.g. 1.5), or None without one.
    ``root``/``v1_dirs``/``own`` locate the files (tests point them at a temporary tree)."""
    own = _own_cgroup_v2() if own is None else own
    candidates = [os.path.join(root, own.lstrip("/"), "cpu.max")] if own and own != "/" else []
    candidates.append(os.path.join(root, "cpu.max"))
    for path in candidates:
        text = _read(path)
        if text:
            parts = text.split()
            if len(parts) == 2 and parts[0] != "max":
                try:
                    quota, period = int(parts[0]), int(parts[1])
                except ValueError:
                    continue
                if quota > 0 and period > 0:
                    return quota / period
            return None  # "max": no limit at this level
    for d in v1_dirs:
        quota, period = _read(os.path.join(d, "cpu.cfs_quota_us")), _read(os.path.join(d, "cpu.cfs_period_us"))
        if quota is None or period is None:
            continue
        try:
            q, p = int(quota), int(period)
        except ValueError:
            continue
        return q / p if q > 0 and p > 0 else None
    return None


@functools.lru_cache(maxsize=None)
def usable_cores() -> int:
    """``min(affinity, ceil(quota))``: the cores worth running threads on (at least 1). Read
    once per process: thread counts are asked for on every compiled call."""
    cores = affinity_cores()
    quota = quota_cores()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return cores
