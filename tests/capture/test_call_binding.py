"""How a jitted function's (or a captured Cell's) call arguments are bound
(``capture.dispatch.flatten_call``): a call that does not bind raises the TypeError Python raises
for the same call of the plain function, message included, and the function's body never runs;
the function's ``__defaults__``/``__kwdefaults__`` are read as they are at each call. The oracle is
always the plain function (or Cell, in PYNATIVE_MODE) called the same way."""
import functools

import numpy as np
import pytest

import capture
import runtime as ms
from capture.dispatch import flatten_call
from runtime import Tensor, nn
from capture_helpers import pynative


def _t(values):
    return Tensor(np.array(values, dtype=np.float32))


X = _t([1.0, -2.0])


def _outcome(fn, *args, **kwargs):
    try:
        out = fn(*args, **kwargs)
    except Exception as e:  # compared with Python's own
        return ("raised", type(e), str(e))
    return ("ok", out.asnumpy().tolist() if isinstance(out, Tensor) else out)


def _same_outcome(jitted, plain, *args, **kwargs):
    got, want = _outcome(jitted, *args, **kwargs), _outcome(plain, *args, **kwargs)
    assert got == want
    return got


# -- bad calls: Python's own TypeError -------------------------------------------------------------

def plain(x, scale=2.0):
    return x * scale


def posonly(a, b=1.0, /, c=2.0):
    return a * b + c


def star_args(x, *rest):
    return x * len(rest)


def kwonly(x, *, k, m=3.0):
    return x * k + m


def everything(a, /, b, c=1.0, *rest, k, m=2.0, **kw):
    return a * b * c * k * m


def only_kwargs(**kw):
    return len(kw)


def nothing():
    return 1


BAD_CALLS = [
    (plain, (X, 1.0, 2.0), {}),
    (plain, (), {}),
    (plain, (), {"scale": 3.0}),
    (plain, (X, 2.0), {"scale": 3.0}),
    (plain, (X,), {"x": X}),
    (plain, (X,), {"bias": 1.0}),
    (plain, (X,), {"bias": 1.0, "offset": 2.0}),
    (plain, (X, 1.0, 2.0, 3.0), {"scale": 1.0}),
    (posonly, (), {}),
    (posonly, (X,), {"a": X}),
    (posonly, (X,), {"b": 2.0}),
    (posonly, (X, 1.0, 2.0, 3.0), {}),
    (posonly, (), {"a": X, "b": 1.0}),
    (star_args, (), {}),
    (star_args, (X,), {"rest": (1,)}),
    (star_args, (X, 1), {"x": X}),
    (kwonly, (X,), {}),
    (kwonly, (X, 2.0), {}),
    (kwonly, (X, 2.0), {"k": 2.0}),
    (kwonly, (X, 2.0, 3.0), {"k": 2.0, "m": 1.0}),
    (kwonly, (X,), {"k": 2.0, "n": 1.0}),
    (kwonly, (), {"m": 1.0}),
    (everything, (), {}),
    (everything, (X,), {}),
    (everything, (X, 2.0), {}),
    (everything, (X, 2.0), {"b": 3.0, "k": 1.0}),
    (everything, (), {"a": X, "b": 2.0, "k": 1.0}),
    (only_kwargs, (X,), {}),
    (nothing, (X,), {}),
    (nothing, (), {"x": X}),
]


@pytest.mark.parametrize("fn,args,kwargs", BAD_CALLS,
                         ids=[f"{fn.__name__}-{len(a)}-{'-'.join(kw) or 'nokw'}" for fn, a, kw in BAD_CALLS])
@pytest.mark.parametrize("warm", [False, True], ids=["first-call", "after-good-calls"])
def test_a_bad_call_raises_pythons_own_type_error(fn, args, kwargs, warm):
    good = {plain: ((X,), {}), posonly: ((X,), {}), star_args: ((X, 1, 2), {}), kwonly: ((X,), {"k": 2.0}),
            everything: ((X, 2.0), {"k": 1.0}), only_kwargs: ((), {"a": 1}), nothing: ((), {})}[fn]
    jitted = capture.jit(fn)
    if warm:
        for _ in range(3):
            _same_outcome(jitted, fn, *good[0], **good[1])
    got = _same_outcome(jitted, fn, *args, **kwargs)
    assert got[:2] == ("raised", TypeError)
    _same_outcome(jitted, fn, *good[0], **good[1])  # (a good call still works after it)


def test_the_body_never_runs_for_a_call_that_does_not_bind():
    ran = []

    def f(x, scale=2.0):
        ran.append(1)
        return x * scale

    jitted = capture.jit(f)
    for args, kwargs in (((X, 1.0, 2.0), {}), ((), {}), ((X,), {"bias": 1.0}), ((X, 1.0), {"scale": 1.0})):
        with pytest.raises(TypeError):
            jitted(*args, **kwargs)
    assert ran == []
    jitted(X)
    assert ran == [1]


def test_the_type_error_carries_no_chained_exception():
    jitted = capture.jit(plain)
    with pytest.raises(TypeError) as info:
        jitted(X, 1.0, 2.0)
    e = info.value
    assert str(e) == "plain() takes from 1 to 2 positional arguments but 3 were given"
    assert e.__cause__ is None and (e.__context__ is None or e.__suppress_context__)


def test_the_message_names_the_function_as_python_does_after_a_rename():
    def f(x, scale=2.0):
        return x * scale

    jitted = capture.jit(f)
    jitted(X, scale=1.0)
    f.__qualname__ = "Renamed.f"
    f.__name__ = "g"
    got = _same_outcome(jitted, f, X, 1.0, 2.0)
    assert got[2].startswith("Renamed.f() takes")


class _Model:
    def __init__(self):
        self.w = 3.0

    def apply(self, x, scale=2.0):
        return x * scale * self.w


class _JittedModel(_Model):
    apply = capture.jit(_Model.apply)  # (the same function: Python's messages name _Model.apply)


def test_methods_jitted_on_the_class_and_bound_methods():
    m, jm = _Model(), _JittedModel()
    jitted_bound = capture.jit(m.apply)
    for args, kwargs in (((X,), {}), ((X, 1.0, 2.0), {}), ((), {}), ((X,), {"bias": 1.0}),
                         ((X, 1.0), {"scale": 1.0}), ((X,), {"scale": 4.0})):
        want = _outcome(m.apply, *args, **kwargs)
        assert _outcome(jm.apply, *args, **kwargs) == want
        assert _outcome(jitted_bound, *args, **kwargs) == want
        if want[0] == "raised":
            assert want[2].startswith("_Model.apply()")


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = 2.0

    def construct(self, x, scale=3.0, *, shift=1.0):
        return x * scale * self.w + shift


CELL_CALLS = [((X, 1.0, 2.0), {}), ((), {}), ((X,), {"bias": 1.0}), ((X, 1.0), {"scale": 1.0}),
              ((X,), {"x": X}), ((X, 1.0, 2.0), {"shift": 0.0}), ((X,), {"shift": 0.5}), ((X,), {})]


@pytest.mark.parametrize("how", ["jit", "graph-mode"])
def test_a_cells_construct_binds_as_python_binds_it(how):
    net, eager = _Net(), _Net()
    if how == "jit":
        net = capture.jit(net)
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(3):
        net(X)
    for args, kwargs in CELL_CALLS:
        got = _outcome(net, *args, **kwargs)
        with pynative():
            want = _outcome(eager, *args, **kwargs)
        assert got == want
        if want[0] == "raised":
            assert f"{_Net.construct.__qualname__}()" in want[2]


def test_a_functools_wraps_wrapper_binds_by_its_own_parameters():
    def target(a, b=3.0):
        return a * b

    @functools.wraps(target)
    def wrapper(*args, **kwargs):
        return target(*args, **kwargs) + 1

    jitted = capture.jit(wrapper)
    for args, kwargs in (((X,), {}), ((X, 2.0), {}), ((X,), {"b": 4.0}), ((), {}), ((X, 1.0, 2.0), {})):
        _same_outcome(jitted, wrapper, *args, **kwargs)


# -- defaults read at each call ---------------------------------------------------------------------

def test_defaults_replaced_after_calls():
    def f(x, s=2.0, t=1.0):
        return x * s + t

    jitted = capture.jit(f)
    for _ in range(3):
        _same_outcome(jitted, f, X)
    jitted(X, 1.0, 0.0)  # (positional calls arm the C call)
    for defaults in ((7.0, 1.0), (3.0,), (2.0, 1.0), None, (5.0, 0.5)):
        f.__defaults__ = defaults
        for _ in range(2):
            _same_outcome(jitted, f, X)
            _same_outcome(jitted, f, X, 4.0)
            _same_outcome(jitted, f, X, t=2.0)


def test_kwdefaults_replaced_and_mutated_in_place():
    def f(x, *, k=2.0, m=1.0):
        return x * k + m

    jitted = capture.jit(f)
    for _ in range(3):
        _same_outcome(jitted, f, X)
    kwdefaults = {"k": 4.0, "m": 1.0}
    f.__kwdefaults__ = kwdefaults
    _same_outcome(jitted, f, X)
    kwdefaults["k"] = 6.0  # the same dict, changed in place
    _same_outcome(jitted, f, X)
    f.__kwdefaults__["m"] = -1.0
    _same_outcome(jitted, f, X, k=1.0)
    del f.__kwdefaults__["k"]  # k now required: Python's message
    got = _same_outcome(jitted, f, X)
    assert got[:2] == ("raised", TypeError) and "keyword-only argument: 'k'" in got[2]
    f.__kwdefaults__ = None
    _same_outcome(jitted, f, X)
    _same_outcome(jitted, f, X, k=2.0)
    _same_outcome(jitted, f, X, k=2.0, m=3.0)
    f.__kwdefaults__ = {"k": 9.0, "m": 0.0}
    _same_outcome(jitted, f, X)


def test_a_cells_construct_defaults_changed_in_graph_mode():
    class Net(nn.Cell):
        def construct(self, x, scale=2.0, *, shift=0.0):
            return x * scale + shift

    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(3):
        net(X)
    construct = Net.construct
    saved = construct.__defaults__, construct.__kwdefaults__
    try:
        for change in (lambda: setattr(construct, "__defaults__", (5.0,)),
                       lambda: construct.__kwdefaults__.__setitem__("shift", 1.5),
                       lambda: setattr(construct, "__kwdefaults__", {"shift": -1.0})):
            change()
            got = _outcome(net, X)
            with pynative():
                want = _outcome(net, X)
            assert got == want
    finally:
        construct.__defaults__, construct.__kwdefaults__ = saved


# -- flatten_call itself ----------------------------------------------------------------------------

def test_flatten_call_orders_arguments_as_the_signature_does():
    def f(a, /, b, c=1, *rest, k, m=2, **kw):
        return a

    flat, names = flatten_call(f, (10, 20, 30, 40, 50), {"k": 60, "z": 70})
    assert names == ["a", "b", "c", "rest", "k", "m", "kw"]
    assert flat == (10, 20, 30, (40, 50), 60, 2, {"z": 70})
    flat, names = flatten_call(f, (10,), {"b": 20, "k": 60, "a": 5})  # (``a`` is positional-only: into **kw)
    assert flat == (10, 20, 1, (), 60, 2, {"a": 5})
    assert flatten_call(f, (1, 2), {"k": 3})[1] is not flatten_call(f, (1, 2), {"k": 3})[1]  # (a fresh list)


def test_flatten_call_follows_a_replaced_code_object():
    def f(x, s=2.0):
        return x

    assert flatten_call(f, (1,), {}) == ((1, 2.0), ["x", "s"])
    f.__code__ = (lambda y, *, k: y).__code__
    f.__defaults__, f.__kwdefaults__ = None, {"k": 4}
    assert flatten_call(f, (1,), {}) == ((1, 4), ["y", "k"])
    with pytest.raises(TypeError, match=r"takes 1 positional argument but 2 were given"):
        flatten_call(f, (1, 2), {})


def test_functions_of_one_signature_shape_share_the_binders_compiled_code(monkeypatch):
    import builtins

    def first(a, b=1, *rest, c, **kw):
        return a

    def second(x, y=2, *more, z, **options):
        return x

    flatten_call(first, (1,), {"c": 3})  # (the shape's binder code exists from here on)
    compiled = []
    real_compile = builtins.compile
    monkeypatch.setattr(builtins, "compile", lambda *a, **k: compiled.append(a) or real_compile(*a, **k))
    flat, names = flatten_call(second, (1, 2, 3), {"z": 4, "w": 5})
    assert compiled == []  # (renamed, not compiled again)
    assert names == ["x", "y", "more", "z", "options"] and flat[:4] == (1, 2, (3,), 4)
    with pytest.raises(TypeError, match=r"second\(\) missing 1 required keyword-only argument: 'z'"):
        flatten_call(second, (1,), {})
