"""graph/config.py: every environment variable is declared there and read through it, each parses as
its reader used to, and docs/configuration.md shows the current table."""
import os
import pathlib
import re

import pytest

from graph import config

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("capture", "codegen", "graph", "runtime")


def _sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, path.read_text(encoding="utf-8")


def test_only_the_config_module_reads_the_environment():
    readers = [f"{path.relative_to(ROOT)}:{n}" for path, text in _sources() if path != ROOT / "graph" / "config.py"
               for n, line in enumerate(text.splitlines(), 1) if re.search(r"os\.(environ|getenv)|\bgetenv\(", line)]
    assert readers == [], f"read the variable through graph.config (declare it there): {readers}"


def test_every_name_the_code_reads_is_declared():
    read = {m.group(1) for _, text in _sources()
            for m in re.finditer(r"\b(?:settings|config)\.(?:get|raw)\(\s*\"([A-Z0-9_]+)\"", text)}
    assert read, "the pattern found no reads: it is out of date with the code"
    assert read <= set(config.SETTINGS), sorted(read - set(config.SETTINGS))
    launcher = {name for pair in config.LAUNCHER_VARIABLES for name in pair}
    unread = set(config.SETTINGS) - read - launcher
    assert unread == set(), f"declared but never read: {sorted(unread)}"


def test_an_undeclared_name_is_refused():
    with pytest.raises(KeyError, match="not a declared setting"):
        config.get("CAPTURE_NO_SUCH_SWITCH")
    with pytest.raises(KeyError):
        config.raw("HOME")


def test_every_setting_is_documented_and_its_default_is_what_unset_parses_to():
    for s in config.SETTINGS.values():
        assert s.doc and s.type and s.read and s.where, s.name
        assert importable(s.where), (s.name, s.where)
        if s.name == "MSJIT_CACHE_DIR":
            assert config.get(s.name, {}) == os.path.join(os.path.expanduser("~"), ".cache", "msjit")
        else:
            assert config.get(s.name, {}) == s.default, s.name


def importable(module):
    return (ROOT / (module.replace(".", "/") + ".py")).exists() or (ROOT / module.replace(".", "/")).is_dir()


# (variable, its string (None: unset), the value its reader saw before graph/config.py existed)
CASES = [
    ("CAPTURE_DISK_CACHE", None, "1"), ("CAPTURE_DISK_CACHE", "0", "0"), ("CAPTURE_DISK_CACHE", "always", "always"),
    ("CAPTURE_DISK_CACHE", "yes", "1"), ("CAPTURE_DISK_CACHE", "", "1"),
    ("CAPTURE_NO_RESUME", "", False), ("CAPTURE_NO_RESUME", "0", False), ("CAPTURE_NO_RESUME", "1", True),
    ("CAPTURE_NO_RESUME", "no", True),
    ("CAPTURE_GRAD_FUNCTIONS", None, True), ("CAPTURE_GRAD_FUNCTIONS", "0", False),
    ("CAPTURE_GRAD_FUNCTIONS", "", True),
    ("CAPTURE_USER_FUNCTIONS", "0", False), ("CAPTURE_USER_FUNCTIONS", "false", True),
    # "any value" switches: even "0" turns them on, as `not os.environ.get(...)` did
    ("CAPTURE_PY_CALL", "0", True), ("CAPTURE_PY_CALL", "", False), ("CAPTURE_PY_GUARDS", "1", True),
    ("CAPTURE_NO_FRAME_EVAL", "0", True), ("CAPTURE_GUARDS_NO_STABLE", "", False),
    ("CAPTURE_VERIFY", "1", True), ("CAPTURE_VERIFY", "yes", False),
    ("CAPTURE_JIT_LEVEL", None, "O1"), ("CAPTURE_JIT_LEVEL", "O2", "O2"), ("CAPTURE_JIT_LEVEL", "", ""),
    ("CAPTURE_BACKEND", "", None), ("CAPTURE_BACKEND", "numpy", "numpy"),
    ("CAPTURE_LOG", " graphs, ,recompiles ", {"graphs", "recompiles"}), ("CAPTURE_LOG", "", set()),
    ("MSJIT_CACHE_DIR", "", None), ("MSJIT_CACHE_DIR", "/tmp/x", "/tmp/x"),
    ("MSJIT_NO_CACHE", "1", True), ("MSJIT_NO_CACHE", "true", False),
    ("MSJIT_THREADS", "3", 3), ("MSJIT_THREADS", "", 0), ("MSJIT_THREADS", "many", 0),
    ("MSJIT_SPLIT_THRESHOLD", "1e3", 1000.0), ("MSJIT_HOT_SPIN_US", "5", 5.0),
    ("MSJIT_ARENA_LIMIT", "", None), ("MSJIT_ARENA_LIMIT", "4096", 4096),
    ("MSJIT_PY_RESTORED_CALL", "1", True), ("MSJIT_CUDNN", "0", False), ("MSJIT_CUDNN", "1", True),
    ("MSJIT_CUDA_GRAPHS", None, "auto"), ("MSJIT_CUDA_GRAPHS", "1", "1"),
    ("MSJIT_LOG_ALL_RANKS", "0", False), ("MSJIT_LOG_ALL_RANKS", "yes", True),
    ("MSJIT_COMM_TIMEOUT", "", 600.0), ("MSJIT_COMM_TIMEOUT", "2.5", 2.5),
    ("MSJIT_COMM", "MPI", True), ("MSJIT_COMM", "tcp", False),
    ("RANK_SIZE", "4", 4), ("RANK_SIZE", "0", 0), ("RANK_SIZE", "x", None), ("RANK_SIZE", "", None),
    ("RUNTIME_PROGRESS", "0", False), ("RUNTIME_BLAS_THREADS", "2", 2), ("RUNTIME_BLAS_THREADS", "", None),
]


@pytest.mark.parametrize("name, raw, expected", CASES)
def test_each_variable_parses_as_its_reader_did(name, raw, expected):
    environ = {} if raw is None else {name: raw}
    assert config.get(name, environ) == expected


@pytest.mark.parametrize("raw", ["soon", "0", "-1"])
def test_a_bad_collective_timeout_is_a_clear_error(raw):
    with pytest.raises(ValueError, match="MSJIT_COMM_TIMEOUT"):
        config.get("MSJIT_COMM_TIMEOUT", {"MSJIT_COMM_TIMEOUT": raw})


def test_per_call_switches_follow_the_environment_at_run_time(monkeypatch):
    from capture import backends, persist
    monkeypatch.setenv("CAPTURE_DISK_CACHE", "always")
    assert persist.mode() == "always"
    monkeypatch.setenv("CAPTURE_DISK_CACHE", "0")
    assert persist.mode() == "0"
    monkeypatch.setenv("CAPTURE_BACKEND", "numpy")
    assert backends.default_backend("CPU") == "numpy"
    monkeypatch.delenv("CAPTURE_BACKEND")
    assert backends.default_backend("CPU") == "llvm"


def test_the_docs_table_is_up_to_date():
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert config.markdown_table() in page, "regenerate the table in docs/configuration.md: python -m graph.config"
