"""Every environment variable the framework reads, declared once: its name, type, default, when it
is read and what it does.

The code reads a variable only through :func:`get` (the parsed value) or :func:`raw` (the string, for
the few places that ask whether it is set at all); both refuse a name that is not declared here,
so a new switch cannot be read without being documented. Nothing is cached here: each reader
keeps its own timing (``read`` says which), as before there was this module. A switch read "at
import" takes effect for the next process; one read "per call" (or "per compile") can be changed
at run time, e.g. by a test's ``monkeypatch.setenv``.

The module sits in ``graph`` (the bottom layer, importing nothing else of ours) so that graph,
codegen, runtime and capture can all import it. ``python -m graph.config`` prints the table of
docs/configuration.md.

Example:
    >>> from graph import config
    >>> config.get("CAPTURE_DISK_CACHE", {"CAPTURE_DISK_CACHE": "always"})
    'always'
    >>> config.get("CAPTURE_DISK_CACHE", {"CAPTURE_DISK_CACHE": "yes"})   # anything else is on
    '1'
    >>> config.SETTINGS["MSJIT_THREADS"].default
    0
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping


@dataclass(frozen=True)
class Setting:
    """One environment variable: ``parse`` turns its string (None when unset) into the value."""
    name: str
    type: str           #: what the value is, in words ("bool", "int", "path", ...)
    default: Any        #: the value when the variable is unset
    read: str           #: when it is read: "at import", "per call", "per compile", "once", ...
    where: str          #: the module that reads it
    doc: str            #: what it does
    parse: Callable[[str | None], Any]


def _any_value(raw):
    """Set to any non-empty string (even "0") means on."""
    return bool(raw)


def _on_unless_zero(raw):
    return raw != "0"


def _one(raw):
    return raw == "1"


def _set_not_zero(raw):
    return raw not in (None, "", "0")


def _text(default):
    return lambda raw: default if raw is None else raw


def _optional_int(raw):
    return int(raw) if raw else None


def _optional_int_or_none(raw):
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


def _threads(raw):
    try:
        return int("0" if raw is None else raw)
    except ValueError:
        return 0


def _float(default):
    return lambda raw: float(default if raw is None else raw)


def _disk_cache(raw):
    raw = "1" if raw is None else raw
    return raw if raw in ("0", "always") else "1"


def _log_kinds(raw):
    return {k.strip() for k in (raw or "").split(",") if k.strip()}


def _cache_dir(raw):
    if raw is None:
        return os.path.join(os.path.expanduser("~"), ".cache", "msjit")
    return raw or None


#: seconds a collective may wait for its peers before raising
COMM_TIMEOUT_DEFAULT = 600.0


def _comm_timeout(raw):
    if not raw:
        return COMM_TIMEOUT_DEFAULT
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"MSJIT_COMM_TIMEOUT must be a number of seconds, got {raw!r}") from None
    if not value > 0:
        raise ValueError(f"MSJIT_COMM_TIMEOUT must be > 0 seconds, got {raw!r}")
    return value


def _mpi(raw):
    return (raw or "").lower() == "mpi"


_ALL = [
    # -- capture: what is captured and how it runs
    Setting("CAPTURE_BACKEND", "str", None, "per compile", "capture.backends",
            "The backend every graph compiles with when `jit(backend=None)` (e.g. `numpy`: the reference "
            "interpreter); unset or empty: `cuda` for graphs whose tensors are on the GPU, else `llvm`.",
            lambda raw: raw or None),
    Setting("CAPTURE_JIT_LEVEL", "str", "O1", "per compile", "capture.backends",
            "The pass pipeline (`O0`, `O1`, `O2`) when neither `jit` nor `JitConfig` names one.",
            _text("O1")),
    Setting("CAPTURE_VERIFY", "bool (`1`)", False, "per compile", "capture.backends",
            "`1`: check each newly compiled graph against the reference interpreter (compiled afresh, "
            "never from the disk cache).", _one),
    Setting("CAPTURE_COLLECT_AFTER_COMPILE", "bool (`1`)", False, "per compile", "capture.compile_policy",
            "`1`: a full garbage collection after each compile, before the compiled graph first runs "
            "(tests: what an entry holds only weakly dies there, as it may at any time).", _one),
    Setting("CAPTURE_DISK_CACHE", "`0`, `1`, `always`", "1", "per compile", "capture.persist",
            "The warm-start cache of optimised schedules: `0` off, `always` round-trips every schedule "
            "through the disk even on its first compile (CI's second capture run); any other value is `1`, on.",
            _disk_cache),
    Setting("CAPTURE_LOG", "comma-separated kinds", set(), "per event", "capture.report",
            "Capture events to log as they happen: `graph_breaks`, `recompiles`, `graphs`, ... or `all`.",
            _log_kinds),
    Setting("CAPTURE_NO_RESUME", "bool (set, not `0`)", False, "at import", "capture.compile_policy",
            "A graph break makes its whole frame eager instead of compiled prefix + eager instruction + "
            "captured resume function.", _set_not_zero),
    Setting("CAPTURE_GRAD_FUNCTIONS", "bool (`0` off)", True, "when graph mode is first enabled",
            "capture.dispatch", "`0`: grad functions (`ms.grad(...)`, `value_and_grad`) are not captured as a whole.",
            _on_unless_zero),
    Setting("CAPTURE_USER_FUNCTIONS", "bool (`0` off)", True, "at import", "capture.frame_eval",
            "`0`: the frame hook captures only `construct` and jitted functions, not the user functions "
            "they call.", _on_unless_zero),
    Setting("CAPTURE_NO_FRAME_EVAL", "bool (any value)", False, "at import", "capture.frame_eval",
            "Any value: the C frame-evaluation hook is not loaded (the pure-Python fallback is used).",
            _any_value),
    Setting("CAPTURE_DYNAMIC", "bool (`0` or empty: off)", True, "at import", "capture.dynamic",
            "`0`: no shape-generic entries (every size of a dimension is specialised, as before dynamic "
            "shapes); otherwise a dimension that varies, or is declared dynamic, is served by one entry.",
            lambda raw: raw not in ("0", "")),
    Setting("CAPTURE_PY_CALL", "bool (any value)", False, "at import", "capture.fast_call",
            "Any value: jitted calls never repeat their entry in C (`FastCall`); every call takes the "
            "Python dispatch path.", _any_value),
    Setting("CAPTURE_PY_GUARDS", "bool (any value)", False, "at import", "capture.guard_program",
            "Any value: guards are checked by their Python function, not lowered to the C guard program.",
            _any_value),
    Setting("CAPTURE_GUARDS_NO_STABLE", "bool (any value)", False, "at import", "capture.guard_program",
            "Any value: no stable section; every guard is checked on every call (as on 3.13).", _any_value),
    # -- codegen: the compiled code and its caches
    Setting("MSJIT_CACHE_DIR", "path", "~/.cache/msjit", "per use", "codegen.cpu.diskcache",
            "Where compiled kernels and warm-start schedules are kept; empty: no disk cache.", _cache_dir),
    Setting("MSJIT_NO_CACHE", "bool (`1`)", False, "per use", "codegen.cpu.diskcache",
            "`1`: no disk cache at all (neither kernels nor schedules).", _one),
    Setting("MSJIT_THREADS", "int", 0, "once (again after `set_num_threads`)", "codegen.cpu.threads",
            "Threads per compiled kernel; 0, unset or not a number: every core this process may use "
            "(`ms.set_context(num_threads=N)` wins). Launched ranks keep it when set.", _threads),
    Setting("MSJIT_SPLIT_THRESHOLD", "float", 60_000.0, "at import", "codegen.cpu.threads",
            "Work (elements x per-element cost) below which a kernel is not split across threads.",
            _float(60_000)),
    Setting("MSJIT_HOT_SPIN_US", "float (us)", 20_000.0, "at import", "codegen.cpu.threads",
            "How long a pool worker spins for its next job while compiled code runs.", _float(20_000)),
    Setting("MSJIT_IDLE_SPIN_US", "float (us)", 300.0, "at import", "codegen.cpu.threads",
            "How long a pool worker spins for its next job between compiled calls.", _float(300)),
    Setting("MSJIT_ARENA_LIMIT", "int (bytes)", None, "at import", "codegen.cpu.arena",
            "Bytes all arenas may hold together before idle ones give theirs back; unset: a quarter of "
            "the memory, at least 1 GiB.", _optional_int),
    Setting("MSJIT_PY_RESTORED_CALL", "bool (`1`)", False, "per compile", "codegen.cpu.runner",
            "`1`: a call restored from a snapshot stays in Python (not the C `RestoredCall`).", _one),
    Setting("MSJIT_CUDNN", "bool (`0` off)", True, "per use", "codegen.cuda.runner",
            "`0`: never use cuDNN, even where CuPy has it.", _on_unless_zero),
    Setting("MSJIT_CUDA_GRAPHS", "`0`, `1`, `auto`", "auto", "per compile", "codegen.cuda.runner",
            "CUDA graph replay of a compiled call: `0` never, `1` always where possible, `auto` only for "
            "graphs with small inputs.", _text("auto")),
    # -- runtime: the framework
    Setting("RUNTIME_BLAS_THREADS", "int", None, "at import of runtime", "runtime.device",
            "Threads numpy's BLAS may use; unset: every usable core (a launched rank: its share).",
            _optional_int),
    Setting("MSJIT_EAGER_KERNELS", "bool (`0` off)", True, "per call", "runtime.eager_kernels",
            "`0`: PyNative's convolutions, pools, batch norm, GELU, LayerNorm and the LSTM/GRU recurrences (and "
            "the backward rules of batch norm, LayerNorm and softmax) always run numpy's implementation, never the compiled graphs a warm "
            "signature otherwise switches to.", _on_unless_zero),
    Setting("RUNTIME_PROGRESS", "bool (`0` off)", True, "per `Model.train`", "runtime.train.model",
            "`0`: `Model.train` shows no progress bar on a terminal.", _on_unless_zero),
    Setting("MSJIT_LOG_ALL_RANKS", "bool (set, not `0`)", False, "per call", "runtime.parallel.ranks",
            "Every rank prints training output, not only rank 0 (`runtime.launch --log-all-ranks`).",
            _set_not_zero),
    Setting("MSJIT_COMM_TIMEOUT", "float (s)", COMM_TIMEOUT_DEFAULT, "per group / init",
            "runtime.communication.mpi_group",
            "Seconds a collective (and MPI's start) waits for the other ranks before failing; must be > 0.",
            _comm_timeout),
    Setting("MSJIT_COMM", "`mpi`", False, "per `init()`", "runtime.communication.launcher",
            "`mpi`: initialise MPI even when no launcher started this process (a singleton MPI process).",
            _mpi),
    Setting("RANK_SIZE", "int", None, "per call", "runtime.communication.launcher",
            "Ranks a MindSpore-style environment asks for.", _optional_int_or_none),
]

#: (size variable, rank variable) that common launchers set: MPICH/Intel MPI (hydra), Open MPI,
#: MVAPICH, Slurm's srun (step variables, which a batch script itself does not have)
LAUNCHER_VARIABLES = (
    ("PMI_SIZE", "PMI_RANK"),
    ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),
    ("MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"),
    ("SLURM_STEP_NUM_TASKS", "SLURM_PROCID"),
)
for _size, _rank in LAUNCHER_VARIABLES:
    _ALL.append(Setting(_size, "int (set by the launcher)", None, "per call", "runtime.communication.launcher",
                        "Number of processes the launcher started (with the rank variable beside it: this "
                        "process is one of several ranks).", _text(None)))
    _ALL.append(Setting(_rank, "int (set by the launcher)", None, "per call", "runtime.communication.launcher",
                        "This process's rank, as the launcher numbered it.", _text(None)))

#: every declared variable by name
SETTINGS: dict[str, Setting] = {s.name: s for s in _ALL}
del _size, _rank


def _setting(name: str) -> Setting:
    try:
        return SETTINGS[name]
    except KeyError:
        raise KeyError(f"{name} is not a declared setting (graph/config.py declares every environment "
                       "variable the framework reads)") from None


def raw(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The variable's string as the environment (``os.environ`` unless given) has it now, or None."""
    _setting(name)
    return (os.environ if environ is None else environ).get(name)


def get(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The variable's value now (parsed; the default when unset). Raises ValueError where the
    variable's own parser does (a malformed number)."""
    return _setting(name).parse(raw(name, environ))


def environment() -> Mapping[str, str]:
    """The whole process environment, for code that hands it on to child processes
    (``runtime.launch``) rather than reading a switch from it."""
    return os.environ


def markdown_table() -> str:
    """The table of docs/configuration.md (tests/graph/test_config.py checks the page has it)."""
    lines = ["| variable | type | default | read | where | what it does |", "|---|---|---|---|---|---|"]
    for s in _ALL:
        default = "unset" if s.default is None else "empty" if s.default == set() else f"`{s.default}`"
        lines.append(f"| `{s.name}` | {s.type} | {default} | {s.read} | `{s.where}` | {s.doc} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - prints the table
    print(markdown_table(), end="")
