"""CPython ``Lib/test/test_functools.py`` (the ``partial`` tests) ported as capture-vs-eager
differential cases (see port_harness.py)."""
import functools

import pytest

from port_harness import check, parametrize


def capture_args(*args, **kw):
    return args, kw


def signature(part):
    """test_functools.signature: (func, args, keywords, __dict__) of a partial."""
    return (part.func, part.args, part.keywords, part.__dict__)


def case_basic_examples(x, state):
    """TestPartial.test_basic_examples."""
    p = functools.partial(capture_args, 1, 2, a=10, b=20)
    q = functools.partial(map, lambda v: v * 10)
    return callable(p), p(3, 4, b=30, c=40), p(), list(q([1, 2, 3, 4])), x


def case_attributes(x, state):
    """TestPartial.test_attributes."""
    p = functools.partial(capture_args, 1, 2, a=10, b=20)
    return p.func is capture_args, p.args, p.keywords, x


def case_argument_checking(x, state):
    """TestPartial.test_argument_checking: at least one argument."""
    try:
        functools.partial()
    except TypeError as e:
        return str(e), x
    return None, x


def case_protection_of_callers_dict_argument(x, state):
    """test_protection_of_callers_dict_argument."""
    def func(a=10, b=20):
        return a
    d = {"a": 3}
    p = functools.partial(func, a=5)
    return p(**d), d, x


def case_kwargs_copy(x, state):
    """test_kwargs_copy: calling does not change the stored keywords."""
    p = functools.partial(capture_args, a=1)
    p(b=2)
    return p.keywords, x


def case_arg_combinations(x, state):
    """test_arg_combinations / test_kw_combinations / test_positional."""
    p = functools.partial(capture_args)
    q = functools.partial(capture_args, 1, 2)
    r = functools.partial(capture_args, a=1)
    return p(), p(1, 2), q(), q(3, 4), r(), r(b=2), r(a=3), x


def case_keyword(x, state):
    """test_keyword: the keyword given at call time wins."""
    a = object()
    p = functools.partial(capture_args, a=a)
    return p(a=2)[1]["a"], x


def case_nested_optimization(x, state):
    """test_nested_optimization: a partial of a partial is flattened."""
    inner = functools.partial(signature, "asdf")
    nested = functools.partial(inner, bar=True)
    return nested.func is signature, nested.args, nested.keywords, x


def case_partial_as_dict_key(x, state):
    """A partial is hashable by identity: a dict key (issue 33: KeyError under capture)."""
    p = functools.partial(max, 1)
    d = {p: "here"}
    outside = state.setdefault("p", functools.partial(min, 3))
    d[outside] = "outside"
    return d[p], d[outside], p in d, len(d), x


def case_partial_over_tensors(x, state):
    """A partial over a function of tensors, called in the frame."""
    def scale_add(a, b, scale=1.0):
        return a * scale + b
    p = functools.partial(scale_add, scale=2.0)
    return p(x, x), functools.partial(scale_add, x)(1.0, scale=0.5)


def case_return_partial(x, state):
    """A partial made by the frame comes back as a real partial (same object where reused)."""
    p = functools.partial(capture_args, 1, k=2)
    state["p"] = p
    return p, p(3), x


def case_repr(x, state):
    """test_repr (of a partial over a builtin)."""
    p = functools.partial(max, 3, key=abs)
    return repr(p), x


def case_setstate_dict(x, state):
    """A partial's own __dict__ attributes."""
    p = functools.partial(capture_args, 1)
    p.attr = "a"
    return p.__dict__, p.attr, x


def case_reduce(x, state):
    """functools.reduce (TestReduce.test_reduce), traced through its polyfill."""
    import operator
    return (functools.reduce(operator.add, [1, 2, 3], 10), functools.reduce(lambda a, b: a * b, range(1, 6)),
            functools.reduce(operator.add, [x, x, x]))


NOT_PORTABLE = {
    "test_recursive_repr / test_recursive_pickle / test_pickle / test_copy / test_deepcopy / test_setstate*":
        "pickling, copying and __setstate__ of partial objects",
    "test_weakref / test_disallow_instantiation / test_manually_adding_non_string_keyword": "weak references "
        "and C-level construction checks",
    "test_error_propagation": "errors raised by the partial's function are ported in the exception ports",
    "TestPartialC* / TestPartialPy* (subclass variants)": "partial subclasses and the pure-Python partial: "
                                                         "the same calls are ported for functools.partial",
    "test_placeholders (3.14)": "not in 3.11-3.13",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_functools_port(case):
    check(case)
