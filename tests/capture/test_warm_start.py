"""Warm start (capture/persist.py, issue 34's contract): every process translates its frames anew;
a graph that an earlier process compiled gets its optimised schedule (and kernels) from the disk
cache, with the same numbers; anything that changed the graph -- the code of a function it inlined
(edited or monkeypatched), a global it read, the input shapes -- or the framework gives another
key and is compiled, and damaged or foreign files are never trusted. The oracle is the same
script run eagerly. (tests/capture/test_warm_start_cross_process.py changes 42 kinds of things
between two processes.)"""
import io
import json
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent('''
    import json, os
    import numpy as np
    import runtime as ms
    from runtime import nn, ops
    import helper

    SCALE = float(os.environ.get("SCALE", "1.0"))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 8)
            self.fc2 = nn.Dense(8, 3)

        def construct(self, x):
            return self.fc2(helper.act(self.fc1(x))) * SCALE

    if os.environ.get("PATCH"):
        def patched(self, x):
            return self.fc2(ops.sigmoid(self.fc1(x))) * SCALE
        Net.construct = patched
    if os.environ.get("OTHER_FRAMEWORK"):
        from codegen.cpu import diskcache
        diskcache._FRAMEWORK["fingerprint"] = "another build of the framework"

    ms.set_seed(0)
    net = Net()
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), 0.1)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    if os.environ.get("GRAPH"):  # GRAPH_MODE: the Cell's construct is the captured frame
        ms.set_context(mode=ms.GRAPH_MODE)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    elif not os.environ.get("EAGER"):
        step = ms.jit(step)
    batch = int(os.environ.get("BATCH", "5"))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((batch, 4)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((batch, 3)).astype(np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    from capture import cache
    warm = any(e.warm_start for c in cache._CACHES.values() for e in c.entries)
    if os.environ.get("RESET_DISK"):
        import capture
        capture.reset(disk=True)
    # the lines the compiled schedules' nodes point at (their source locations)
    lines = sorted({(os.path.basename(n.loc[0]), n.loc[1]) for c in cache._CACHES.values() for e in c.entries
                    for n in getattr(getattr(e.runner, "schedule", None), "graph", None).nodes if n.loc}
                   if os.environ.get("LINES") else [])
    print(json.dumps({"losses": losses, "warm": warm, "w": float(net.fc1.weight.asnumpy().sum()), "lines": lines}))
''')

RELU = "from runtime import ops\n\ndef act(x):\n    return ops.relu(x)\n"
TANH = "from runtime import ops\n\ndef act(x):\n    return ops.tanh(x)\n"


@pytest.fixture
def program(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    (tmp_path / "helper.py").write_text(RELU)
    cache_dir = tmp_path / "cache"

    def run(capture_run=False, **env):
        full = dict(os.environ, MSJIT_CACHE_DIR=str(cache_dir), PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]),
                    CAPTURE_DISK_CACHE="1", **{k: str(v) for k, v in env.items()})
        for k in ("SCALE", "PATCH", "BATCH", "EAGER", "GRAPH", "OTHER_FRAMEWORK", "RESET_DISK", "LINES"):
            if k not in env:
                full.pop(k, None)
        launcher = [sys.executable, "-m", "capture", "run"] if capture_run else [sys.executable]
        proc = subprocess.run(launcher + [str(tmp_path / "script.py")], capture_output=True, text=True,
                              env=full, cwd=str(tmp_path), timeout=120)
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        result["stderr"] = proc.stderr
        return result

    run.dir, run.cache = tmp_path, cache_dir
    return run


def _saved(cache_dir):
    return sorted(p for p in cache_dir.rglob("*.sched")) if cache_dir.exists() else []


def _same(got, want):
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got["w"], want["w"], rtol=1e-5, atol=1e-6)


def test_a_new_process_loads_the_saved_entry_and_computes_the_same(program):
    eager = program(EAGER=1)
    cold = program()
    assert not cold["warm"] and len(_saved(program.cache)) == 1
    warm = program()
    assert warm["warm"]
    _same(cold, eager)
    _same(warm, eager)  # parameters updated in place, step after step, as in the cold process
    summary = program(capture_run=True)["stderr"]
    assert "1 graph(s) loaded from the warm-start cache" in summary, summary


def test_graph_mode_cells_start_warm_too(program):
    """The captured frame is TrainOneStepCell.construct, the Cell held weakly by the guards."""
    eager = program(EAGER=1)
    assert not program(GRAPH=1)["warm"]
    warm = program(GRAPH=1)
    assert warm["warm"]
    _same(warm, eager)


def test_edited_or_monkeypatched_code_and_changed_globals_are_translated_anew(program):
    program()
    (program.dir / "helper.py").write_text(TANH)  # a function the graph inlined, in another file
    edited = program()
    assert not edited["warm"]
    _same(edited, program(EAGER=1))
    assert program()["warm"]  # the new code's entry is the one saved now
    patched = program(PATCH=1)  # the same files, but Net.construct replaced at run time
    assert not patched["warm"]
    _same(patched, program(EAGER=1, PATCH=1))
    scaled = program(SCALE=2.0)  # a global the graph read (its guard fails)
    assert not scaled["warm"]
    _same(scaled, program(EAGER=1, SCALE=2.0))


def test_lines_moved_by_an_edit_above_keep_the_warm_start_with_this_process_s_lines(program):
    """A comment added at the top of the script and of the helper it inlines moves every line but
    changes no graph: the schedule is read back (no pass pipeline runs), and its nodes point at
    the lines of *this* process's files, as a schedule computed here would."""
    cold = program(LINES=1)
    assert not cold["warm"] and cold["lines"]
    assert {f for f, _ in cold["lines"]} >= {"script.py", "helper.py"}
    for name in ("script.py", "helper.py"):
        path = program.dir / name
        path.write_text("# a comment\n# and another\n\n" + path.read_text())
    moved = program(LINES=1)
    assert moved["warm"]
    _same(moved, cold)
    assert moved["lines"] == [[f, line + 3] for f, line in cold["lines"]]
    assert len(_saved(program.cache)) == 1


def test_new_shapes_get_their_own_entries_and_another_framework_none(program):
    program()
    assert not program(BATCH=7)["warm"]
    assert program(BATCH=7)["warm"] and program()["warm"]
    assert len(_saved(program.cache)) == 2
    other = program(OTHER_FRAMEWORK=1)
    assert not other["warm"]
    _same(other, program(EAGER=1))


def test_damaged_files_are_recompiled_and_reset_disk_deletes_the_entries(program):
    want = program()
    for path in _saved(program.cache):  # flip bytes in the middle of the pickled entry
        data = bytearray(path.read_bytes())
        for i in range(len(data) // 2, len(data) // 2 + 8):
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))
    damaged = program()
    assert not damaged["warm"]
    _same(damaged, want)
    assert program()["warm"]  # the entry was saved again
    for path in _saved(program.cache):
        path.write_bytes(path.read_bytes()[:100])  # truncated
    assert not program()["warm"]
    program(RESET_DISK=1)
    assert _saved(program.cache) == []


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_a_file_naming_anything_but_graph_values_is_refused_without_running_it():
    from capture import persist
    payload = pickle.dumps({"graph": _Evil()}, protocol=4)
    with pytest.raises(pickle.UnpicklingError, match="not allowed"):
        persist._Unpickler(io.BytesIO(payload)).load()
    ok = pickle.dumps({"a": (1, 2.5, "s"), "arr": np.arange(3, dtype=np.float32)}, protocol=4)
    loaded = persist._Unpickler(io.BytesIO(ok)).load()
    assert loaded["a"] == (1, 2.5, "s") and loaded["arr"].dtype == np.float32


def test_the_framework_fingerprint_is_by_content(tmp_path, monkeypatch):
    """An edit that keeps a file's size and modification time changes the fingerprint (of the
    schedules and of the kernels alike); bytecode caches do not (issue 34)."""
    from capture import persist
    from codegen.cpu import compiler, diskcache
    assert persist.framework_fingerprint() == compiler.code_version() == diskcache.framework_fingerprint()
    pkg = tmp_path / "graph"
    (pkg / "ops").mkdir(parents=True)
    src = pkg / "ops" / "elementwise.py"
    src.write_text("def f(x):\n    return x + 1\n")
    monkeypatch.setattr(diskcache, "INTERNAL_DIRS", (str(pkg) + os.sep,))
    before = diskcache._hash_framework()
    (pkg / "ops" / "__pycache__").mkdir()
    (pkg / "ops" / "__pycache__" / "elementwise.cpython-311.pyc").write_bytes(b"\0" * 10)
    assert diskcache._hash_framework() == before
    st = src.stat()
    src.write_text("def f(x):\n    return x - 1\n")
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (src.stat().st_size, src.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert diskcache._hash_framework() != before
    # computed once per process, and kept
    monkeypatch.setattr(diskcache, "_FRAMEWORK", {})
    first = diskcache.framework_fingerprint()
    src.write_text("def f(x):\n    return x * 1\n")
    assert diskcache.framework_fingerprint() == first


def test_the_key_states_which_nodes_share_a_location_not_the_locations():
    """graph.passes.canonical: the same nodes at other lines give the same key; nodes that share
    their locations differently do not (a loaded schedule takes locations class by class)."""
    from capture import persist
    from graph.aval import AVal
    from graph.dtypes import float32
    from graph.ir import Graph
    from graph.ops import F
    from graph.passes.canonical import Uncacheable

    def key(*locs):
        g = Graph("f")
        v = g.add_input(AVal((2, 3), float32), "x")
        for loc in locs:
            g.current_loc = loc
            v = F.mul(v, 2.0)
        g.set_outputs([v])
        return persist.schedule_key(g, "llvm", "O1")

    a, b = ("s.py", 3, "y = x * 2"), ("s.py", 9, "y = x * 2")
    assert key(a, a) == key(b, b) != key(a, b)
    assert key(a, b) == key(b, a)
    with pytest.raises(Uncacheable, match="source location"):
        key(["s.py", 3, "y = x * 2"])


RENAMED = textwrap.dedent('''
    import json
    import numpy as np
    import runtime as ms
    from runtime import nn, ops

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.LAYER = nn.Dense(6, 8)
            self.out = nn.Dense(8, 3)

        def construct(self, x):
            return self.out(ops.relu(self.LAYER(x)))

    ms.set_seed(0)
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    @ms.jit
    def STEP_NAME(ARG, y):
        loss, grads = grad_fn(ARG, y)
        opt(grads)
        return loss

    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((5, 6)).astype(np.float32))
    y = ms.Tensor(np.array([0, 1, 2, 1, 0], np.int32))
    losses = [float(STEP_NAME(x, y).asnumpy()) for _ in range(3)]
    from capture import cache, persist
    from codegen.cpu import compiler
    inputs = [v.name for c in cache._CACHES.values() for e in c.entries
              for v in getattr(getattr(e.runner, "schedule", None), "graph", None).inputs]
    print(json.dumps({"losses": losses, "schedules_read": persist.STATS["hits"], "inputs": inputs,
                      "kernels_compiled": compiler.STATS["compiled"]}))
''')


def test_a_renamed_function_argument_or_attribute_keeps_its_schedule_and_kernels(tmp_path):
    """Neither the schedule's key nor the kernels' descriptions hold names (of the function, its
    arguments, the Cells' attributes that name the Parameters; the kernels' symbols are the same
    for every graph): renaming recompiles nothing, and the loaded schedule carries the new names."""
    def run(name, arg, layer):
        script = tmp_path / f"{name}.py"
        script.write_text(RENAMED.replace("STEP_NAME", name).replace("ARG", arg).replace("LAYER", layer))
        env = dict(os.environ, MSJIT_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT, CAPTURE_DISK_CACHE="1")
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout.strip().splitlines()[-1])

    cold = run("train_step", "x", "hidden")
    assert cold["schedules_read"] == 0 and cold["kernels_compiled"] > 0
    assert "x" in cold["inputs"] and "hidden.weight" in cold["inputs"]
    renamed = run("one_step_of_training", "images", "first_layer")
    assert renamed["schedules_read"] == 1 and renamed["kernels_compiled"] == 0
    assert "images" in renamed["inputs"] and "first_layer.weight" in renamed["inputs"]
    assert not {"x", "hidden.weight"} & set(renamed["inputs"])
    np.testing.assert_allclose(renamed["losses"], cold["losses"], rtol=1e-6)
