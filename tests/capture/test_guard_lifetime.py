"""What a cache entry's guards name is held weakly (issue 33 item 7, as TorchDynamo does): a
stale entry does not keep a rebound global's Parameter, a replaced net or a dropped closure's
net alive; an entry whose referent died is dropped from its cache; and a dead referent never
passes a guard (in the C guard program, the Python guard and the C call alike)."""
import gc
import weakref

import numpy as np
import pytest

import capture
from capture import fast_call
from capture.cache import cache_for
from capture.guards import GuardSet
from runtime import Parameter, Tensor, nn


def _t(a):
    return Tensor(np.asarray(a, np.float32))


def _collect():
    for _ in range(4):
        if not gc.collect():
            break


def _same(a, b):
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6)


def _module(src):
    """A fresh module-like namespace with ``src`` run in it (its code objects live with it)."""
    ns = {}
    exec(src, ns)
    return ns


def _armed(jitted, *args, calls=3):
    out = None
    for _ in range(calls):
        out = jitted(*args)
    if fast_call.AVAILABLE:
        assert jitted._armed is not None, "the C call was not armed: the test would not exercise it"
    return out


def test_a_rebound_global_parameter_is_released_and_its_entry_dropped():
    ns = _module("def f(t):\n    return t * W\n")
    ns["W"] = Parameter(_t(np.ones(4)), name="W")
    old = weakref.ref(ns["W"])
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    _armed(jitted, x)
    ns["W"] = Parameter(_t(np.full(4, 3.0)), name="W2")
    _same(jitted(x), x * ns["W"])  # (a new entry for the new Parameter)
    _collect()
    assert old() is None, "the stale entry keeps the rebound Parameter alive"
    assert len(cache_for(ns["f"].__code__).entries) == 1  # (the stale entry was dropped)
    _same(_armed(jitted, x), x * ns["W"])


def test_a_dropped_cell_used_as_a_global_is_released():
    ns = _module("def f(t):\n    return NET(t) + 1\n")
    ns["NET"] = nn.Dense(4, 3)
    old = weakref.ref(ns["NET"])
    old_weight = weakref.ref(ns["NET"].weight)
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    _armed(jitted, x)
    ns["NET"] = nn.Dense(4, 3)
    _same(jitted(x), ns["NET"](x) + 1)
    _collect()
    assert old() is None and old_weight() is None, "the stale entry keeps the replaced net alive"


def test_a_closure_captured_net_dropped_while_the_jitted_function_lives():
    def make():
        net = nn.Dense(4, 3)
        box = [net]

        def f(t):
            return box[0](t) * 2

        return f, box

    f, box = make()
    held = weakref.ref(box[0])
    jitted = capture.jit(f)
    x = _t(np.ones((2, 4)))
    _armed(jitted, x)
    box[0] = None
    _collect()
    assert held() is None, "the jitted function's entry keeps the dropped net alive"
    with pytest.raises(TypeError, match="NoneType"):  # (as eager: the net is gone)
        jitted(x)
    box[0] = nn.Dense(4, 3)
    _same(jitted(x), box[0](x) * 2)


def test_a_nonlocal_net_rebound_to_none_never_reuses_the_entry():
    def make():
        net = nn.Dense(4, 3)

        def f(t):
            return t if net is None else net(t)

        def drop():
            nonlocal net
            net = None
        return f, drop, weakref.ref(net)

    f, drop, held = make()
    jitted = capture.jit(f)
    x = _t(np.ones((2, 4)))
    _armed(jitted, x)
    drop()
    _collect()
    assert held() is None
    # the guard ``cell.cell_contents is <the net>`` must fail now: None is not the dead net
    _same(jitted(x), x)
    _same(_armed(jitted, x), x)


def test_a_global_rebound_to_none_after_its_parameter_died_recompiles():
    ns = _module("def f(t):\n    return t + 1 if W is None else t * W\n")
    ns["W"] = Parameter(_t(np.full(4, 2.0)), name="W")
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    _same(_armed(jitted, x), x * 2)
    ns["W"] = None
    _collect()
    for _ in range(3):  # (the C call, then the Python way, then the new entry in C)
        _same(jitted(x), x + 1)


def test_a_dead_referent_fails_the_guard_in_every_kind_of_check():
    class Thing:
        pass

    box = {"k": Thing()}
    g = GuardSet()
    g.identity(f"{g.obj(box)}['k']", box["k"], "box['k']")
    g.add(f"args[0] is None or {g.obj(box)}['k'] is not None", "a residual guard")
    check = g.compile()
    assert list(g.weak) and check((None,))
    g2 = GuardSet()
    g2.identity(f"{g2.obj(box)}['k']", box["k"], "box['k']")
    python_check = g2._python_check(g2.exprs) if g2.compile() else None
    died = []
    g.when_dead(lambda: died.append(True))
    box["k"] = None
    _collect()
    assert died == [True]
    assert not check((None,))  # ``None is <dead>`` fails
    assert not python_check((None,))
    assert g.first_failure((None,)) == "box['k'] is the same object"


def test_many_nets_made_and_dropped_under_one_jitted_function_do_not_grow_the_cache():
    ns = _module("def f(t):\n    return NET(t)\n")
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    refs = []
    for _ in range(40):
        ns["NET"] = nn.Dense(4, 3)
        refs.append(weakref.ref(ns["NET"]))
        _same(jitted(x), ns["NET"](x))
    _collect()
    assert sum(r() is not None for r in refs) == 1  # (only the one still bound)
    assert len(cache_for(ns["f"].__code__).entries) <= 2


@pytest.mark.skipif(not fast_call.AVAILABLE, reason="the C call is not built")
def test_the_c_call_declines_where_a_held_input_died_even_if_its_guards_passed():
    """Belt and braces: a FastEntry whose weakly held input died declines (the Python way
    answers), even with a check that passes -- C never reads a dead object."""
    from capture import _fast_call

    class Obj:
        pass

    ns = _module("def f(t):\n    return t * W\n")
    ns["W"] = Parameter(_t(np.full(4, 2.0)), name="W")
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    _armed(jitted, x)
    entry = jitted._armed.entry
    dead = Obj()
    ref = weakref.ref(dead)
    del dead
    assert ref() is None

    def call(arrays):  # pragma: no cover - must not be reached
        raise AssertionError("the runner ran with a dead input")

    fast = _fast_call.FastEntry(entry, ns["f"].__code__, 1, False, lambda flat: True, (0, ref), call,
                                Tensor, entry.template.build, 0, None, None)
    jitted._arm(fast, ns["f"])
    _same(jitted(x), x * 2)


def test_a_replaced_sub_cell_of_a_jitted_net_is_released():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)

        def construct(self, t):
            return self.fc(t) * 2

    net = Net()
    jitted = capture.jit(net)
    x = _t(np.ones((2, 4)))
    for _ in range(3):
        jitted(x)
    old = weakref.ref(net.fc)
    net.fc = nn.Dense(4, 3)
    _same(jitted(x), net.fc(x) * 2)
    _collect()
    assert old() is None, "the stale entry keeps the replaced sub-Cell alive"


def _lenet_step():
    """A jitted LeNet5-like train step (conv, pool, dense, cross-entropy, Momentum)."""
    net = nn.SequentialCell([nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Flatten(), nn.Dense(6 * 14 * 14, 10)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return capture.jit(nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9)))


def _call_names_by_tokenize(expr, names):
    """The oracle: Python's own tokenizer finds the names (what capture.guards did before)."""
    import io
    import tokenize
    out, last, previous = [], 0, None
    for tok in tokenize.generate_tokens(io.StringIO(expr).readline):
        if tok.type == tokenize.NAME and tok.string in names and not (
                previous is not None and previous.type == tokenize.OP and previous.string == "."):
            out.append(expr[last:tok.end[1]] + "()")
            last = tok.end[1]
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
            previous = tok
    out.append(expr[last:])
    return "".join(out)


def test_weakly_held_names_are_called_exactly_where_pythons_tokenizer_finds_them(monkeypatch):
    """Every guard of a LeNet5-like train step and of a Cell with dict, string, tuple and float
    attributes reads, once its objects are held weakly, as the tokenizer's rewrite of its text
    (each held name called); capture.sources.call_names (which rewrites free-form guard texts)
    agrees with the tokenizer on those texts and on tricky ones."""
    from capture import guards, sources
    compiled = []
    real_compile = guards.GuardSet.compile

    def spy(self):
        before = list(self.exprs)
        result = real_compile(self)
        compiled.append((before, self))
        return result
    monkeypatch.setattr(guards.GuardSet, "compile", spy)

    class Odd(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)
            self.table = {"o1": 2.5, "it's": (1, "o2")}
            self.scale = 1e-5

        def construct(self, x):
            return self.fc(x) * self.table["o1"] * self.scale + self.table["it's"][0]

    net = Odd()
    jitted = capture.jit(lambda t: net(t) * 2)
    for _ in range(2):
        jitted(_t(np.ones((2, 4), np.float32)))
    _lenet_step()(_t(np.ones((2, 1, 32, 32), np.float32)), Tensor(np.array([1, 2], np.int32)))
    assert compiled and any(gs.weak for _, gs in compiled)
    seen = []
    for before, gs in compiled:
        assert len(before) == len(gs.exprs)
        for old, new in zip(before, gs.exprs):
            assert new == _call_names_by_tokenize(old, gs.weak), old
            seen.append((old, dict(gs.weak)))
    tricky = [("o1 is args[0].o1 and o12.w == 'o1' and o1 .x and 1e5 < o1", {"o1": 0, "o12": 0}),
              ('o2 == "it\\"s o2" and o2[\'o2\'] and (o2)', {"o2": 0})]
    for expr, names in seen + tricky:
        assert sources.call_names(expr, names) == _call_names_by_tokenize(expr, names), expr


def test_dead_entries_give_their_recompile_budget_back():
    """A loop that builds a fresh net each iteration and runs one jitted function on it: each
    net's entry is dropped when the net dies, and must not count against the recompile limit
    (before, the ninth net hit the limit and every later call ran eagerly)."""
    from capture import cache as cache_mod
    from capture.explain import recording
    ns = _module("def f(t):\n    return NET(t) * 2\n")
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    with recording() as report:
        for i in range(3 * cache_mod.RECOMPILE_LIMIT):
            ns["NET"] = nn.Dense(4, 3)
            _same(jitted(x), ns["NET"](x) * 2)
            _collect()
    assert not [b for b in report.breaks if "recompile limit" in b.reason], report.breaks
    cache = cache_for(ns["f"].__code__)
    assert len(cache.entries) == 1 and not cache.entries[0].eager
    assert max(cache.compiles_per_owner.values()) <= 2, cache.compiles_per_owner


def test_live_entries_still_count_against_the_recompile_limit():
    """The refund is for dead entries only: nets kept alive still exhaust the budget."""
    from capture import cache as cache_mod
    from capture.explain import recording
    ns = _module("def f(t):\n    return NET(t) * 2\n")
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    kept = []
    with recording() as report:
        for i in range(cache_mod.RECOMPILE_LIMIT + 2):
            ns["NET"] = nn.Dense(4, 3)
            kept.append(ns["NET"])
            _same(jitted(x), ns["NET"](x) * 2)
    assert [b for b in report.breaks if "recompile limit" in b.reason]


_BREAKING_NET_SRC = '''
def f(t):
    net = NET
    y = net(t)
    total = float(y.asnumpy().sum())  # a graph break: net is live across it
    return net(t) * 2 + total
'''

_RETURNING_NET_SRC = '''
def f(t):
    net = NET
    y = net(t)
    print("between")  # a graph break
    return y, net, net.weight
'''


@pytest.mark.parametrize("src", [_BREAKING_NET_SRC, _RETURNING_NET_SRC], ids=["live_local", "returned"])
def test_a_dropped_net_is_released_when_its_frame_had_a_graph_break(src, capsys):
    """The resume plan of a frame with a graph break (the live locals and stack rebuilt after
    the prefix graph) and the recipe of its returned value refer to the net: they hold it
    weakly, as the guards do, so dropping the net frees it and its Parameters, and its entry
    is dropped."""
    from capture.explain import recording
    ns = _module(src)
    ns["NET"] = nn.Dense(4, 3)
    old, old_weight = weakref.ref(ns["NET"]), weakref.ref(ns["NET"].weight)
    jitted = capture.jit(ns["f"])
    x = _t(np.ones((2, 4)))
    with recording() as report:
        want = ns["f"](x)
        got = jitted(x)
        got = jitted(x)
    assert report.graph_break_count >= 1 and not report.resume_fallbacks, report.resume_fallbacks
    if isinstance(want, tuple):
        _same(got[0], want[0])
        assert got[1] is ns["NET"] and got[2] is ns["NET"].weight
    else:
        _same(got, want)
    del want, got
    ns["NET"] = nn.Dense(4, 3)
    _same(jitted(x)[0] if isinstance(jitted(x), tuple) else jitted(x),
          ns["f"](x)[0] if isinstance(ns["f"](x), tuple) else ns["f"](x))
    capsys.readouterr()
    _collect()
    assert old() is None and old_weight() is None, "the resume plan keeps the dropped net alive"
    entries = cache_for(ns["f"].__code__).entries
    assert len(entries) == 1, [e.name for e in entries]


BOUND_BUFFER = None


def _returns_a_builtin_method(x):
    return x * 2, BOUND_BUFFER.getvalue


def test_a_builtin_method_read_from_an_object_is_guarded_by_what_it_binds():
    """``buf.getvalue`` is a new object on every read. Guarded by identity, the one tracing read
    was held weakly with nothing else holding it: the first call returned a dead referent, and no
    later call could pass the guard. Its object is guarded by identity, its name by value."""
    global BOUND_BUFFER
    import io
    from capture.explain import recording
    BOUND_BUFFER = io.StringIO()
    BOUND_BUFFER.write("hi")
    f = capture.jit(_returns_a_builtin_method)
    with recording() as report:
        for _ in range(3):
            y, method = f(_t([1.0, 2.0]))
            _collect()
            assert method() == "hi" and method.__self__ is BOUND_BUFFER
            _same(y, _t([2.0, 4.0]))
    assert report.graph_count == 1
    BOUND_BUFFER = io.StringIO()  # another object: the guard on the bound object fails
    with recording() as report:
        _y, method = f(_t([1.0, 2.0]))
    assert method.__self__ is BOUND_BUFFER and method() == "" and report.graph_count == 1
