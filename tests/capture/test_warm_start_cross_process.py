"""Issue 34: a warm start can never give another answer than a cold one.

Process A runs a program and fills the disk cache; then something the program depends on changes
(43 kinds of change, tests/capture/warm_start_program.py: array contents of globals, arguments
and Cell attributes, a monkeypatched framework function, ``to_float`` moved to another sub-Cell,
tied layers and sentinels that are one object in B, a framework file edited with its size and
modification time kept, gradient settings, Primitive attributes, partial arguments, closures,
defaults, hyperparameters, dtypes, layouts, seeds, ...). Process B then runs on a copy of A's cache
(warm) and on an empty one (cold); for every kind, warm == cold, and both equal B's own eager
run (the oracle). A second run of A on a copy of its cache shows that the entries are reused when
nothing changed (every schedule and kernel read from the disk, none computed), so the warm pass is
not vacuous.

The framework runs from a copy made for the test, so that one of its files can be edited."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGES = ("graph", "runtime", "codegen", "capture")

#: the one line of the framework the test edits between A and B (same length: exp computes sin)
EDIT_FILE = os.path.join("graph", "ops", "elementwise.py")
EDIT_FROM, EDIT_TO = "xp.exp(_float_np(xp, x))", "xp.sin(_float_np(xp, x))"

CONSTS = {0: "K = 2.0\n", 1: "K = -3.5\n"}
HELPER = {0: "from runtime import ops\n\n\ndef act(x):\n    return ops.relu(x)\n",
          1: "from runtime import ops\n\n\ndef act(x):\n    return ops.sin(x) * 2.0\n"}
FRAMEWORK_KIND = "framework_file_edited_same_size_and_mtime"
#: kinds whose result is the same in A and B (a layout or the pass pipeline's level must not change
#: the answer); the framework kind changes between the runs A and F, not between A and B
SAME_ANSWER = {"input_layout", "jit_level_config", FRAMEWORK_KIND}


#: looser tolerances of float16 computations (graph and eager round in different places)
TOLERANCE = {"mixed_precision_policy": (5e-3, 1e-3), "to_float_moved_between_subcells": (5e-3, 1e-3)}
def _copy_framework(dest):
    for pkg in PACKAGES:
        shutil.copytree(os.path.join(ROOT, pkg), os.path.join(dest, pkg),
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))


def _edit_keeping_size_and_mtime(root):
    path = os.path.join(root, EDIT_FILE)
    st = os.stat(path)
    text = open(path).read()
    assert text.count(EDIT_FROM) == 1, "the line this test edits moved; update EDIT_FROM"
    with open(path, "w") as f:
        f.write(text.replace(EDIT_FROM, EDIT_TO))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    # (Python itself would run the stale bytecode of a file whose size and mtime are kept)
    cache = os.path.join(os.path.dirname(path), "__pycache__")
    if os.path.isdir(cache):
        for name in os.listdir(cache):
            if name.startswith("elementwise."):
                os.remove(os.path.join(cache, name))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("warm")
    framework = base / "framework"
    _copy_framework(str(framework))
    work = base / "work"
    work.mkdir()

    def run(variant, cache_dir, kinds=None):
        (work / "consts_mod.py").write_text(CONSTS[variant])
        (work / "user_helper.py").write_text(HELPER[variant])
        for stale in (work / "__pycache__",):
            shutil.rmtree(stale, ignore_errors=True)
        env = dict(os.environ, MSJIT_CACHE_DIR=str(cache_dir), WARM_K="1",
                   PYTHONPATH=os.pathsep.join([str(work), str(framework)]))
        env.pop("CAPTURE_DISK_CACHE", None)
        env.pop("WARM_KINDS", None)
        if kinds:
            env["WARM_KINDS"] = ",".join(kinds)
        proc = subprocess.run([sys.executable, os.path.join(HERE, "warm_start_program.py"), str(variant)],
                              capture_output=True, text=True, env=env, cwd=str(work), timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        assert out["framework"] == str(framework), "the program must run the framework's copy"
        out["stderr"] = proc.stderr
        return out

    cache_a = base / "cache-a"
    a = run(0, cache_a)
    for name in ("again", "b-warm", "f-warm"):
        shutil.copytree(cache_a, base / f"cache-{name}")
    a_again = run(0, base / "cache-again")
    b_warm = run(1, base / "cache-b-warm")
    b_cold = run(1, base / "cache-b-cold")
    # the framework's own file changes (A's program otherwise unchanged): its own pair of runs
    _edit_keeping_size_and_mtime(str(framework))
    f_warm = run(0, base / "cache-f-warm", [FRAMEWORK_KIND])
    f_cold = run(0, base / "cache-f-cold", [FRAMEWORK_KIND])
    return {"a": a, "a_again": a_again, "b_warm": b_warm, "b_cold": b_cold, "f_warm": f_warm, "f_cold": f_cold}


def _close(x, y, rtol=1e-5, atol=1e-6):
    if isinstance(x, str) or isinstance(y, str):  # a dtype
        return x == y
    try:
        return np.allclose(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64), rtol=rtol, atol=atol,
                           equal_nan=True)
    except (ValueError, TypeError):  # ragged (lists of several outputs): compare item by item
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            return all(_close(a, b, rtol, atol) for a, b in zip(x, y))
        return False


def test_there_are_at_least_30_kinds_of_change_and_each_one_matters(world):
    kinds = world["a"]["results"]
    assert len(kinds) >= 30
    same = [k for k in kinds if k not in SAME_ANSWER and
            _close(world["a"]["results"][k]["eager"], world["b_cold"]["results"][k]["eager"])]
    assert same == [], f"these kinds give A's answer in B too (they test nothing): {same}"
    assert not _close(world["a"]["results"][FRAMEWORK_KIND]["eager"], world["f_cold"]["results"][FRAMEWORK_KIND]["eager"])


def _graph_vs_eager(world, kinds):
    return [(p, k) for p in ("a", "a_again", "b_warm", "b_cold", "f_warm", "f_cold")
            for k, r in world[p]["results"].items() if k in kinds and not _close(r["graph"], r["eager"], *TOLERANCE.get(k, ()))]


def test_compiled_results_equal_eager_in_every_process(world):
    # (includes the two capture bugs this suite found: a monkeypatched Tensor method, and two
    # aliased tensor arguments ``p is q``; both were strict xfails until fixed)
    bad = _graph_vs_eager(world, set(world["a"]["results"]))
    assert bad == [], f"compiled != eager: {bad}"


def test_warm_equals_cold_for_every_kind_of_change(world):
    warm, cold = world["b_warm"]["results"], world["b_cold"]["results"]
    assert sorted(warm) == sorted(cold)
    bad = [k for k in warm if not _close(warm[k]["graph"], cold[k]["graph"], rtol=1e-6, atol=1e-7)]
    assert bad == [], f"a warm process answered differently from a cold one: {bad}"


def test_entries_are_reused_when_nothing_changed(world):
    a, again = world["a"], world["a_again"]
    # every graph A compiled was saved, or read back from the file of an identical graph A saved
    # (kinds whose functions differ only in their names compute the same graph: one schedule)
    assert a["schedules"]["saved"] + a["schedules"]["hits"] >= len(a["results"]) > a["schedules"]["hits"]
    # every graph A compiled is read back, and no pass pipeline or LLVM compile runs again
    assert again["schedules"]["misses"] == 0 and again["schedules"]["rejected"] == 0
    assert again["schedules"]["hits"] == a["schedules"]["saved"] + a["schedules"]["hits"], \
        (again["schedules"], a["schedules"])
    assert again["kernels"]["compiled"] == 0 and again["kernels"]["cache_hits"] > 0
    for k, r in again["results"].items():
        assert _close(r["graph"], a["results"][k]["graph"], rtol=1e-6, atol=1e-7), k


def test_a_changed_framework_file_is_a_miss_even_with_its_size_and_mtime_kept(world):
    # the same program as A's (its graph unchanged) on A's cache: the framework's content hash is
    # part of every key, so nothing of A's is used
    warm, cold = world["f_warm"], world["f_cold"]
    assert warm["schedules"]["hits"] == 0 and warm["schedules"]["misses"] > 0
    assert _close(warm["results"][FRAMEWORK_KIND]["graph"], cold["results"][FRAMEWORK_KIND]["graph"])
    assert _close(warm["results"][FRAMEWORK_KIND]["graph"], cold["results"][FRAMEWORK_KIND]["eager"])


def test_graphs_that_did_not_change_are_reused_by_the_changed_program(world):
    # B's graphs that are the same as A's (the kinds whose change does not reach the graph) hit
    assert world["b_warm"]["schedules"]["hits"] >= 1
