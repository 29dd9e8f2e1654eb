"""The auto-parallel context: ``ms.set_auto_parallel_context`` / ``get_auto_parallel_context`` /
``reset_auto_parallel_context`` and ``ms.ParallelMode``.

Data parallelism is the parallel mode this framework runs: in ``ParallelMode.DATA_PARALLEL`` every
process holds the whole model, trains on its shard of each batch, and gradients are all-reduced
(averaged with ``gradients_mean=True``) before the optimizer applies them. The modes that split a
model across processes (semi-auto/auto parallel) are refused with a clear error.

Example:
    >>> import runtime as ms
    >>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    >>> ms.get_auto_parallel_context("parallel_mode"), ms.get_auto_parallel_context("gradients_mean")
    ('data_parallel', True)
    >>> ms.reset_auto_parallel_context()
    >>> ms.get_auto_parallel_context("parallel_mode")
    'stand_alone'
"""
from __future__ import annotations

import numbers

from graph.ops import comm


class ParallelMode:
    """Names of MindSpore's parallel modes (``ms.ParallelMode.DATA_PARALLEL`` ...)."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


_SUPPORTED_MODES = (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL)

#: bytes per gradient bucket unless ``comm_fusion`` or ``all_reduce_fusion_config`` says otherwise
#: (PyTorch DDP's default: big enough that per-message latency is paid rarely, small enough that
#: the first bucket is ready early in the backward and its all-reduce overlaps the rest)
DEFAULT_BUCKET_MB = 25


def _mode(v):
    if not isinstance(v, str) or v.lower() not in ParallelMode.MODE_LIST:
        raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of {ParallelMode.MODE_LIST}, got {v!r}")
    v = v.lower()
    if v not in _SUPPORTED_MODES:
        raise ValueError(f"set_auto_parallel_context: parallel_mode {v!r} is not supported: this framework "
                         f"trains data parallel ({ParallelMode.DATA_PARALLEL!r}) or stand-alone; model-parallel "
                         "modes that split operators across processes are not implemented")
    return v


def _bool(key):
    def check(v):
        if not isinstance(v, bool):
            raise TypeError(f"set_auto_parallel_context: {key} must be a bool, got {v!r}")
        return v
    return check


def _int_in(key, lo, hi):
    def check(v):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"set_auto_parallel_context: {key} must be an int, got {v!r}")
        if not lo <= v <= hi:
            raise ValueError(f"set_auto_parallel_context: {key} must be in [{lo}, {hi}], got {v}")
        return int(v)
    return check


def _fusion_indices(v):
    if not isinstance(v, (list, tuple)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in v):
        raise TypeError(f"set_auto_parallel_context: all_reduce_fusion_config must be a list of parameter "
                        f"indices, got {v!r}")
    if list(v) != sorted(set(v)) or any(i <= 0 for i in v):
        raise ValueError(f"set_auto_parallel_context: all_reduce_fusion_config must be increasing positive "
                         f"indices (where buckets split), got {v!r}")
    return list(v)


def _comm_fusion(v):
    """MindSpore's ``{"allreduce": {"mode": "auto"|"size"|"index", "config": ...}}``."""
    if not isinstance(v, dict) or any(k not in ("allreduce", "allgather", "reducescatter", "openstate") for k in v):
        raise ValueError(f"set_auto_parallel_context: comm_fusion must be a dict with keys among "
                         f"'allreduce', 'allgather', 'reducescatter', 'openstate', got {v!r}")
    ar = v.get("allreduce")
    if ar is not None:
        mode = ar.get("mode", "auto") if isinstance(ar, dict) else None
        if mode not in ("auto", "size", "index"):
            raise ValueError(f"set_auto_parallel_context: comm_fusion['allreduce']['mode'] must be 'auto', "
                             f"'size' or 'index', got {ar!r}")
        config = ar.get("config")
        if mode == "size" and (isinstance(config, bool) or not isinstance(config, (int, float)) or config <= 0):
            raise ValueError(f"set_auto_parallel_context: comm_fusion allreduce mode 'size' needs config = "
                             f"bucket size in MB (> 0), got {config!r}")
        if mode == "index":
            _fusion_indices(config)
    return dict(v)


_CHECKS = {
    "parallel_mode": _mode,
    "gradients_mean": _bool("gradients_mean"),
    "gradient_fp32_sync": _bool("gradient_fp32_sync"),
    "device_num": _int_in("device_num", 1, 4096),
    "global_rank": _int_in("global_rank", 0, 4095),
    "parameter_broadcast": _bool("parameter_broadcast"),
    "all_reduce_fusion_config": _fusion_indices,
    "comm_fusion": _comm_fusion,
    "full_batch": _bool("full_batch"),
}

_DEFAULTS = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "gradient_fp32_sync": True,
    "device_num": None,
    "global_rank": None,
    "parameter_broadcast": False,
    "all_reduce_fusion_config": None,
    "comm_fusion": None,
    "full_batch": False,
}
_state = dict(_DEFAULTS)


def set_auto_parallel_context(**kwargs) -> None:
    """Set auto-parallel keys (MindSpore 2.x names): ``parallel_mode``, ``gradients_mean``,
    ``device_num``, ``global_rank``, ``parameter_broadcast``, ``all_reduce_fusion_config`` (indices
    where gradient buckets split), ``comm_fusion`` (``{"allreduce": {"mode": "size", "config": MB}}``),
    ``gradient_fp32_sync``, ``full_batch``. Unknown keys or invalid values raise, naming what is
    valid. Parameters are broadcast from rank 0 at the first data-parallel step whatever
    ``parameter_broadcast`` says (identical replicas are what data parallelism assumes)."""
    unknown = [k for k in kwargs if k not in _CHECKS]
    if unknown:
        raise ValueError(f"set_auto_parallel_context: unknown key(s) {unknown}; valid keys: {sorted(_CHECKS)}")
    checked = {k: _CHECKS[k](v) for k, v in kwargs.items()}
    _state.update(checked)


def get_auto_parallel_context(attr_key: str):
    """The value of one key; ``device_num`` and ``global_rank`` default to the communication world's
    size and this process's rank."""
    if attr_key not in _state:
        raise ValueError(f"get_auto_parallel_context: unknown key {attr_key!r}; valid keys: {sorted(_state)}")
    value = _state[attr_key]
    if value is None and attr_key == "device_num":
        return comm.world().size
    if value is None and attr_key == "global_rank":
        return comm.world().rank
    return value


def reset_auto_parallel_context() -> None:
    """Every key back to its default (stand-alone)."""
    _state.clear()
    _state.update(_DEFAULTS)


def data_parallel() -> bool:
    """Whether gradients are to be averaged/summed across the world's processes."""
    return _state["parallel_mode"] == ParallelMode.DATA_PARALLEL


def check_device_num(what: str) -> int:
    """The data-parallel degree: the world's size, checked against ``device_num`` when one was set."""
    size = comm.world().size
    wanted = _state["device_num"]
    if wanted is not None and wanted != size:
        if size == 1:
            raise RuntimeError(f"{what}: device_num={wanted} asks for {wanted} processes, but this process was "
                               f"not started as one of {wanted} MPI ranks (or init() was not called). Launch it "
                               f"with `python -m runtime.launch -n {wanted} script.py` (or `mpiexec -n {wanted} "
                               "python script.py`) and call runtime.communication.init() first.")
        raise ValueError(f"{what}: device_num={wanted} does not match the {size} processes of the "
                         "communication world (set device_num to the number of ranks, or leave it out)")
    return size


def bucket_policy():
    """("indices", [split indices]) or ("bytes", bucket size in bytes) for gradient buckets."""
    fusion = _state["comm_fusion"] or {}
    ar = fusion.get("allreduce")
    if isinstance(ar, dict) and ar.get("mode") == "index":
        return "indices", list(ar["config"])
    if isinstance(ar, dict) and ar.get("mode") == "size":
        return "bytes", int(float(ar["config"]) * 2**20)
    if _state["all_reduce_fusion_config"]:
        return "indices", list(_state["all_reduce_fusion_config"])
    return "bytes", DEFAULT_BUCKET_MB * 2**20
