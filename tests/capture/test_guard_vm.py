"""The C guard program (capture/_guard_vm.c, built from the guard records by
capture/guard_program.py) against its oracle, the generated Python function of the same guards'
texts: every guard kind the builder writes, on arguments that pass and on each way they can fail, and the guards of real compiled
train steps under changes a user can make (a new sub-Cell, a resized Parameter, a flag)."""
import array
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import capture
from capture import guard_program
from capture.cache import cache_for
from capture.guards import Guard, GuardSet
from capture.sources import Arg, Attr, Call, Item, Lit
from runtime import Parameter, Tensor, nn, ops

pytestmark = pytest.mark.skipif(not guard_program.AVAILABLE, reason="the C guard helper is not built")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _both(gs):
    """(C program, Python function) for a guard set; the program must really be C."""
    program = gs.compile()
    assert isinstance(program, guard_program._vm.Program)
    return program, gs._python_check(gs.exprs)


def _agree(gs, *calls):
    program, python = _both(gs)
    results = []
    for args in calls:
        try:
            want = bool(python(args))
        except Exception:
            want = False  # (what the cache makes of a guard that raises)
        assert bool(program(args)) == want, (args, gs.exprs)
        results.append(want)
    return results


class Box:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class Slotted:
    __slots__ = ("a",)


def test_every_guard_kind_agrees_with_python_on_passing_and_failing_calls():
    t = Tensor(np.zeros((2, 3), np.float32))
    cell = nn.Dense(3, 2)
    inner = Box(flag=True, rate=0.5, mode="relu", shape=(1, 2), items=[1, 2.0], table={"a": 1})
    gs = GuardSet()
    gs.argument(Arg(0), t, "x")
    gs.argument(Arg(1), 3, "n")
    gs.argument(Arg(2), [t, 1.5], "pair")
    gs.argument(Arg(3), cell, "net")
    gs.argument(Arg(4), None, "nothing")
    for name, value in [("flag", True), ("rate", 0.5), ("mode", "relu"), ("shape", (1, 2)), ("items", [1, 2.0]),
                        ("table", {"a": 1}), ("dtype", np.dtype(np.float32))]:
        gs.python_value(Attr(gs.obj(inner), name), value, f"inner.{name}")
    gs.hasnt_attr(inner, "missing")
    gs.absent(gs.obj({'x': 1}), "len", "len is not shadowed")
    gs.equals(Call(gs.obj(len), gs.obj((1, 2))), 2, "a call of a held function")
    gs.compute_precision()
    inner.dtype = np.dtype(np.float32)
    assert "'len' not in o" in " ".join(gs.exprs) and "(o" in " ".join(gs.exprs)
    lowering = guard_program._Lowering(gs.namespace)
    assert all(lowering.record(g) for g in gs.guards)  # every kind the builder writes runs in C
    good = (t, 3, [t, 1.5], cell, None)
    assert _agree(gs, good) == [True]
    fails = [
        (Tensor(np.zeros((3, 2), np.float32)),) + good[1:],         # shape
        (Tensor(np.zeros((2, 3), np.float64)),) + good[1:],         # dtype
        (Parameter(Tensor(np.zeros((2, 3), np.float32))),) + good[1:],  # type
        (t, 3.0) + good[2:],                                         # 3.0 == 3 but not an int
        (t, True) + good[2:],
        good[:2] + ([t],) + good[3:],                                # length
        good[:2] + ((t, 1.5),) + good[3:],                           # list vs tuple
        good[:3] + (nn.Dense(3, 2),) + good[4:],                     # another Cell
        good[:4] + (0,),
        good[:3],                                                    # too few arguments
        (np.zeros((2, 3), np.float32),) + good[1:],                  # not a Tensor
    ]
    assert _agree(gs, *fails) == [False] * len(fails)
    for attr, value in [("flag", 1), ("rate", 0.25), ("mode", "tanh"), ("shape", (1, 2.0)), ("shape", [1, 2]),
                        ("items", [1, 2]), ("table", {"b": 1}), ("dtype", np.dtype(np.float64)), ("missing", 0)]:
        old = inner.__dict__.get(attr)
        setattr(inner, attr, value)
        assert _agree(gs, good) == [False], attr
        if attr == "missing":
            del inner.missing
        else:
            setattr(inner, attr, old)
    assert _agree(gs, good) == [True]


def test_an_error_inside_a_guard_fails_it_and_an_interrupt_propagates():
    class Raises:
        def __init__(self, exc):
            self.exc = exc

        def __eq__(self, other):
            raise self.exc

        __hash__ = object.__hash__

    gs = GuardSet()
    gs.equals(Attr(Arg(0), "attr"), 1, "x.attr")
    gs.equals(Arg(1), 2, "y")
    program, _ = _both(gs)
    assert gs.exprs == ["args[0].attr == 1", "args[1] == 2"]
    assert program((Box(attr=1), 2)) is True
    assert program((Box(), 2)) is False                 # AttributeError: fails
    assert program((Box(attr=1), Raises(ValueError("x")))) is False
    with pytest.raises(KeyboardInterrupt):
        program((Box(attr=1), Raises(KeyboardInterrupt())))


def test_shapes_of_arrays_that_are_not_plain_ndarrays_and_of_every_rank():
    class Sub(np.ndarray):
        pass

    gs = GuardSet()
    gs.equals(Attr(Arg(0), "shape"), (2, 3), "x.shape")
    gs.equals(Attr(Arg(1), "shape"), (), "y.shape")
    lowering = guard_program._Lowering(gs.namespace)
    assert all(lowering.record(g) for g in gs.guards)
    assert [op for op, *_ in lowering.code].count(guard_program._vm.T_SHAPE) == 2  # (dims read in place)
    sub = np.zeros((2, 3)).view(Sub)
    view = np.zeros((4, 6))[::2, ::2]
    calls = [(np.zeros((2, 3)), np.float32(1)), (sub, np.array(1.0)), (view, np.zeros(())),
             (np.zeros((2, 3, 1)), np.zeros(())), (np.zeros(6), np.zeros(())), (np.zeros((3, 2)), np.zeros(1)),
             (Box(shape=(2, 3)), Box(shape=())), (Box(shape=[2, 3]), Box(shape=()))]
    assert _agree(gs, *calls) == [True, True, True, False, False, False, True, False]


def test_guards_it_cannot_lower_run_in_python_after_the_rest():
    gs = GuardSet()
    gs.add("args[0] > 1")                    # free-form Python text
    gs.add("[x for x in args] != []")
    gs.constant("args[0]", 2, "x")           # a read written as text
    gs.type_is(Arg(0), int, "x")             # (a record: C)
    lowering = guard_program._Lowering(gs.namespace)
    assert [lowering.record(g) for g in gs.guards] == [False, False, False, True]
    assert _agree(gs, (2,), (1,), (2.5,), (True,)) == [True, False, False, False]


def test_a_malformed_program_is_refused():
    Program = guard_program._vm.Program
    layout = guard_program._LAYOUT

    def code(*ins):
        return array.array("i", [x for i in ins for x in i]).tobytes()

    vm = guard_program._vm
    ok = Program(code((vm.V_ARG, 0, 0, 0), (vm.T_IS, 0, 0, -1)), (None,), 1, None, *layout)
    assert ok((None,)) is True and ok((1,)) is False and ok(()) is False
    for bad in [code((vm.T_IS, 0, 0, -1)),                          # register 0 never written
                code((vm.V_ARG, 0, 0, 0), (vm.T_IS, 0, 0, -5)),     # no such constant
                code((vm.V_ARG, 0, 0, 0), (vm.V_ARG, 0, 1, 0)),     # a register written twice
                code((vm.V_ATTR, 1, 1, 0)),                          # reads itself
                code((99, 0, 0, 0)), b"\0" * 15]:
        with pytest.raises(ValueError):
            Program(bad, (None,), 2, None, *layout)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.fc2 = nn.Dense(16, 4)
        self.act = nn.ReLU()
        self.scale = 2.0

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def test_the_guards_of_a_compiled_train_step_agree_with_python_under_user_changes():
    from runtime import nn as rnn
    net = Net()
    opt = rnn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    loss_fn = rnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ops.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    jitted = capture.jit(step)
    x = Tensor(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32))
    y = Tensor(np.array([0, 1, 2, 3], np.int32))
    for _ in range(3):
        jitted(x, y)
    (entry,) = cache_for(step.__code__).entries
    gs = entry.guard_set
    assert len(gs.exprs) > 20
    lowering = guard_program._Lowering(gs.namespace, weak=gs.weak)
    assert all(lowering.record(g) for g in gs.guards)  # every guard of a train step runs in C
    assert _agree(gs, (x, y)) == [True]
    assert _agree(gs, (x, Tensor(np.array([0, 1, 2, 3], np.int64))), (Tensor(x.asnumpy()[:2]), y)) == [False, False]
    changes = [
        lambda: setattr(net, "scale", 3.0),
        lambda: setattr(net, "act", nn.Tanh()),
        lambda: setattr(net.fc1.weight, "_data", np.zeros((16, 8), np.float64)),
        lambda: setattr(net.fc2.bias, "_data", np.zeros((5,), np.float32)),
    ]
    for change in changes:
        saved = (net.scale, net.act, net.fc1.weight._data, net.fc2.bias._data)
        change()
        assert _agree(gs, (x, y)) == [False]
        net.scale, net.act, net.fc1.weight._data, net.fc2.bias._data = saved
        assert _agree(gs, (x, y)) == [True]


def test_capture_py_guards_keeps_the_python_function():
    out = subprocess.run([sys.executable, "-c", "from capture.guards import GuardSet; g = GuardSet(); "
                          "g.add('args[0] == 1'); print(type(g.compile()).__name__)"],
                         env={**os.environ, "CAPTURE_PY_GUARDS": "1"}, cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "function", out.stderr


def test_the_guards_of_a_graph_mode_cell_hold_it_weakly_and_run_in_c():
    import runtime as ms
    net = Net()
    x = Tensor(np.ones((2, 8), np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(x)
        net(x)
        (entry,) = [e for e in cache_for(Net.construct.__code__).entries if not e.eager]
        gs = entry.guard_set
        assert any("()" in e for e in gs.exprs)  # the Cell argument, through a weak reference
        lowering = guard_program._Lowering(gs.namespace, weak=gs.weak)
        assert all(lowering.record(g) for g in gs.guards)
        other = (net, Tensor(np.ones((3, 8), np.float32)))
        assert _agree(gs, (net, x), (Net(), x), other) == [True, False, False]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert _agree(gs, (net, x)) == [False]  # the mode is guarded too


def _tensor_guard_set():
    """A guard set with one tensor guard on ``args[0]`` (a float32 [2, 3] Tensor), lowered to the
    one fused tensor test."""
    gs = GuardSet()
    gs.tensor(Arg(0), Tensor(np.zeros((2, 3), np.float32)), "x")
    lowering = guard_program._Lowering(gs.namespace)
    assert lowering.record(gs.guards[0])
    assert [op for op, *_ in lowering.code] == [guard_program._vm.V_ARG, guard_program._vm.T_TENSOR]
    return gs


def test_the_tensor_test_agrees_with_python():
    class Sub(np.ndarray):
        pass

    class Like:  # a device array stand-in: shape and dtype attributes, not an ndarray
        def __init__(self, shape, dtype):
            self.shape, self.dtype = shape, dtype

    def tensor_of(data):
        t = object.__new__(Tensor)
        t._data = data
        return t

    gs = _tensor_guard_set()
    base = np.zeros((4, 6), np.float32)
    calls = [
        (Tensor(np.zeros((2, 3), np.float32)),),
        (tensor_of(base[::2, ::2]),),                            # a strided view: same shape and dtype
        (tensor_of(np.zeros((2, 3), np.dtype(np.float32).newbyteorder("="))),),  # equal, not the same object
        (tensor_of(np.zeros((2, 3), np.int32).view(np.float32)),),
        (Tensor(np.zeros((3, 2), np.float32)),),                 # shape
        (Tensor(np.zeros((2, 3, 1), np.float32)),),              # rank
        (Tensor(np.zeros((2, 3), np.float64)),),                 # dtype
        (tensor_of(np.zeros((2, 3), np.dtype(">f4"))),),         # byte order: another dtype
        (Parameter(Tensor(np.zeros((2, 3), np.float32))),),      # the tensor's type
        (tensor_of(np.zeros((2, 3), np.float32).view(Sub)),),    # the array's type
        (tensor_of(Like((2, 3), np.dtype(np.float32))),),
        (tensor_of([[0.0] * 3] * 2),),
        (object.__new__(Tensor),),                               # no data: reading it raises
        (np.zeros((2, 3), np.float32),),
    ]
    assert _agree(gs, *calls) == [True] * 4 + [False] * 10
    assert gs.compile().direct_reads == 1  # (Tensor keeps _data in a slot: read without a lookup)


def test_the_tensor_test_follows_a_changed_tensor_type():
    """The slot is read directly only while the tensor type is unchanged (its version tag): a
    property put over ``_data`` afterwards is what Python reads, so the C test reads it too."""
    class Holder:
        __slots__ = ("_data",)

    gs = GuardSet()
    h = Holder()
    h._data = np.zeros(3, np.float32)
    gs._record(Guard("tensor", Arg(0), (gs.obj(Holder), gs.obj(np.ndarray), Lit((3,)), gs.obj(np.dtype(np.float32))),
                     "h: a Holder of a float32 [3] array"))
    program, python = _both(gs)
    assert program((h,)) is True and python((h,)) and program.direct_reads == 1
    slot = Holder._data
    Holder._data = property(lambda self: np.zeros(4, np.float32))
    try:
        assert not python((h,))
        assert program((h,)) is False
    finally:
        Holder._data = slot
    assert program((h,)) is True


# -- the stable section: guards on held objects' plain attributes, rerun when one changed ---------

class Holder:
    def __init__(self):
        self.child = Box(k=1)
        self.flag = False
        self.rate = 0.5
        self.dims = (1, 2)
        self.items = [1, 2]


def _stable_guards(holder, table):
    gs = GuardSet()
    h = gs.obj(holder)
    gs.same_object(Attr(h, "child"), gs.obj(holder.child), "holder.child")
    gs.constant(Attr(h, "flag"), False, "holder.flag")
    gs.constant(Attr(h, "rate"), 0.5, "holder.rate")
    gs.equals(Attr(h, "dims"), (1, 2), "holder.dims")
    gs.equals(Attr(h, "items"), [1, 2], "holder.items")  # (a list: compared anew on every call)
    gs.equals(Item(gs.obj(table), "mode"), 1, "table['mode']")
    gs.absent(gs.obj(table), "len", "no 'len' in table")
    assert gs.exprs[:3] == ["o0.child is o1", "o0.flag is False", "type(o0.rate) is o2 and o0.rate == o3"]
    return gs


def _truth(check):
    """A check's verdict on no arguments (an error fails the guard, as in the cache)."""
    try:
        return bool(check(()))
    except Exception:
        return False


@pytest.mark.skipif(not guard_program._STABLE_SECTION, reason="3.13 keeps every guard in the main section")
def test_the_stable_section_is_skipped_until_a_watched_object_changes():
    holder, table = Holder(), {"mode": 1}
    gs = _stable_guards(holder, table)
    program, python = _both(gs)
    assert program.stable_size > 0 and not program.stable_holds
    assert program(()) and program.stable_holds and program(())

    def changes():
        yield lambda: setattr(holder, "flag", True)
        yield lambda: object.__setattr__(holder, "rate", 0.25)
        yield lambda: holder.__dict__.__setitem__("dims", (2, 1))
        yield lambda: setattr(holder, "child", Box(k=1))
        yield lambda: delattr(holder, "flag")
        yield lambda: table.__setitem__("mode", 2)
        yield lambda: table.__setitem__("len", len)
        yield lambda: holder.items.append(3)  # (no dict changes: the main section sees it)
        yield lambda: setattr(Holder, "flag", property(lambda self: True))  # (a data descriptor now wins)
        yield lambda: setattr(holder, "__dict__", {**holder.__dict__, "rate": 9.0})
        yield lambda: setattr(holder, "__class__", type("Other", (Holder,), {"rate": property(lambda self: 9.0)}))

    failed = 0
    for change in changes():
        saved, saved_table, saved_class = dict(holder.__dict__), dict(table), holder.__class__
        holder.items = [1, 2]
        assert program(()) and python(())
        change()
        verdict = _truth(python)
        assert _truth(program) == verdict, gs.exprs
        failed += not verdict
        holder.__class__ = saved_class
        if "flag" in Holder.__dict__:
            del Holder.flag
        holder.__dict__.clear()
        holder.__dict__.update(saved)
        table.clear()
        table.update(saved_table)
        holder.items = [1, 2]
        assert program(()) and python(())
    assert failed == 11  # (every change made a guard fail)


@pytest.mark.skipif(not guard_program._STABLE_SECTION, reason="3.13 keeps every guard in the main section")
def test_properties_slots_and_getattr_hooks_stay_in_the_main_section():
    class WithProperty:
        @property
        def value(self):
            return self._value

    class WithGetattr:
        def __getattr__(self, name):
            return 1

    p, g, s = WithProperty(), WithGetattr(), Slotted()
    p._value, s.a = 1, 1
    for attr in ("value", "anything", "a"):
        for obj in (p, g, s):
            gs = GuardSet()
            gs.equals(Attr(gs.obj(obj), attr), 1, f"o0.{attr}")
            lowering = guard_program._Lowering(gs.namespace, True)
            assert lowering.record(gs.guards[0])
            assert lowering.code and not lowering.stable


def test_a_model_checks_its_cells_through_the_stable_section():
    import runtime as ms
    from runtime import nn as _nn
    ms.set_seed(0)
    net = _nn.SequentialCell([_nn.Dense(4, 8), _nn.ReLU(), _nn.Dense(8, 2)])
    step = capture.jit(lambda x: net(x))
    x = Tensor(np.ones((3, 4), np.float32))
    for _ in range(3):
        step(x)
    (entry,) = cache_for(step.__wrapped_jit__.__code__).entries
    if guard_program._STABLE_SECTION:
        assert entry.check.stable_size > 0 and entry.check.stable_holds
    old = net[1]  # (held here: the entry naming it stays until it dies)
    net[1] = _nn.Sigmoid()  # (the graph must change: a guard of the stable section fails)
    want = np.asarray(net(x).asnumpy())
    np.testing.assert_allclose(step(x).asnumpy(), want, rtol=1e-6)
    assert len(cache_for(step.__wrapped_jit__.__code__).entries) == 2
    del old  # its entry's guards held it weakly: the entry is dropped with it
    gc.collect()
    assert len(cache_for(step.__wrapped_jit__.__code__).entries) == 1
    np.testing.assert_allclose(step(x).asnumpy(), want, rtol=1e-6)


def test_a_train_steps_guards_become_the_c_program_without_parsing_any_text():
    """The program is built from the guard records: no guard text is parsed, and no guard of a
    train step is left to a residual Python function."""
    import ast

    from capture.guards import GuardSet as _GuardSet
    calls = []

    def refuse(*a, **k):
        calls.append(a[:1])
        raise RuntimeError("a guard was parsed or left to Python")
    net = Net()
    step = capture.jit(lambda x: net(x))
    x = Tensor(np.ones((3, 8), np.float32))
    parse, python_check = ast.parse, _GuardSet._python_check
    ast.parse, _GuardSet._python_check = refuse, refuse
    try:
        got = [step(x).asnumpy() for _ in range(2)]
    finally:  # (pytest's own reports parse source)
        ast.parse, _GuardSet._python_check = parse, python_check
    assert calls == []
    for y in got:
        np.testing.assert_allclose(y, net(x).asnumpy(), rtol=1e-6)
    (entry,) = cache_for(step.__wrapped_jit__.__code__).entries
    assert isinstance(entry.check, guard_program._vm.Program) and len(entry.guard_set.guards) > 10
    assert not entry.eager


# -- no guard of a representative frame falls back to Python ---------------------------------------
def _python_fallbacks(run):
    """Run ``run()`` and return the guards (records) of every guard set compiled meanwhile that
    the C program leaves to the residual Python function (counted as ``lower`` makes the program:
    the same lowering, the same weak names), and how many guard sets were compiled."""
    compiled = []
    real_lower = guard_program.lower

    def spy(guards, exprs, namespace, residual_function, weak=()):
        lowering = guard_program._Lowering(namespace, False, weak)
        compiled.append([g for g in guards if not lowering.record(g)])
        return real_lower(guards, exprs, namespace, residual_function, weak)
    guard_program.lower = spy
    try:
        run()
    finally:
        guard_program.lower = real_lower
    assert compiled, "nothing was compiled"
    return [g for residual in compiled for g in residual], len(compiled)


def _source_kinds(guards):
    """The source classes the guards (records) read, however deeply nested."""
    from capture import sources
    seen = set()

    def visit(src):
        if src is None or not isinstance(src, sources.Source):
            return
        seen.add(type(src))
        for name in ("base", "fn", "arg"):
            visit(getattr(src, name, None))
    for g in guards:
        visit(g.source)
        for e in g.expected:
            visit(e)
    return seen


_SCALE = 0.5
_TABLE = {"bias": 1.0, "steps": [1, 2, 3]}


class _Settings:
    def __init__(self):
        self.power = 2
        self.names = ("a", "b")

    @property
    def double(self):
        return self.power * 2


def _representative_frames():
    """Frames whose guards read every kind of source the program compiles: an MLP Cell's train
    step (a jitted function and a GRAPH_MODE Cell call: the Cell argument held weakly), and a
    function reading closures, globals, dicts, lists, tuples, an object's attributes and
    property, ``len()`` of a Cell and a module attribute."""
    import runtime as ms
    from runtime import nn as rnn
    net = Net()
    opt = rnn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    loss_fn = rnn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ops.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    settings, sized, offsets = _Settings(), rnn.SequentialCell([rnn.ReLU(), rnn.Tanh()]), [0.25, 0.5]

    def reads(x, opts, pair):
        y = x * _SCALE + _TABLE["bias"] + offsets[1] + len(_TABLE["steps"]) + len(sized)
        y = y * settings.power + settings.double + len(settings.names) + np.float32(1.0)
        if opts["shift"]:
            y = y + pair[0] * pair[1]
        return ops.relu(y) + np.pi

    x = Tensor(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32))
    y = Tensor(np.array([0, 1, 2, 3], np.int32))
    jitted_step, jitted_reads = capture.jit(train_step), capture.jit(reads)

    def run():
        for _ in range(2):
            jitted_step(x, y)
            jitted_reads(x, {"shift": True}, (x, 2.0))
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            net(x)
            net(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return run, [train_step, reads, Net.construct]


def test_no_guard_of_a_representative_frame_falls_back_to_python():
    """Every guard of an MLP train step, a GRAPH_MODE Cell call and a function reading closures,
    globals, dicts, lists, tuples, attributes, a property and ``len()`` runs in the C program: none
    is left to the slow Python function. Their guards read every source kind the program
    compiles (so a kind it stopped compiling would show here)."""
    run, fns = _representative_frames()
    residual, n_sets = _python_fallbacks(run)
    assert n_sets >= 3
    assert [g.expr() for g in residual] == []
    guard_sets = [e.guard_set for fn in fns for e in cache_for(fn.__code__).entries if not e.eager]
    assert len(guard_sets) >= 3
    assert _source_kinds(g for gs in guard_sets for g in gs.guards) >= set(guard_program._READS) - {guard_program.Call}


def test_the_fallback_count_sees_a_source_kind_the_program_does_not_compile(monkeypatch):
    """The check above can fail: with one source kind (items) taken out of the program's reads,
    the guards reading it are counted as Python fallbacks."""
    from capture.sources import Item as ItemSource
    reads = dict(guard_program._READS)
    del reads[ItemSource]
    monkeypatch.setattr(guard_program, "_READS", reads)
    run, _ = _representative_frames()
    residual, _ = _python_fallbacks(run)
    assert len(residual) > 3 and all(ItemSource in _source_kinds([g]) for g in residual)


def test_every_source_kind_but_text_has_a_read_in_the_program():
    """A new kind of Source must be taught to the C program (``guard_program._READS``); only a
    read written as Python text is left to the residual function."""
    from capture import sources
    kinds = {c for c in vars(sources).values()
             if isinstance(c, type) and issubclass(c, sources.Source) and c is not sources.Source}
    assert kinds - set(guard_program._READS) == {sources.Text}
