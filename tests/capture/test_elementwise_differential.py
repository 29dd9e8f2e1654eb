"""Graph mode against PyNative on elementwise expressions over every dtype, Python numbers
included: the same values, dtypes and exceptions (the oracle is the eager run, which is numpy's
NEP 50 arithmetic; these cases were found by the random expressions at the bottom).

Found wrong before: comparisons of small integer tensors with Python ints their dtype cannot
hold wrapped the int (``uint8 == -1`` was True at 255); arithmetic with such an int raised in
PyNative and wrapped in graph mode; ``-``/negation/sign of bool tensors, which PyNative refuses,
computed in graph mode; an integer power with a negative exponent raised in PyNative only;
``atan2`` of a float16 tensor and a Python float was float32 in PyNative, float16 in graph mode."""
import random
import warnings

import numpy as np
import pytest

import capture
import runtime as ms
from runtime import Tensor, ops


def _both(fn, *args):
    """(eager, jit) of ``fn(*args)``: a result as (dtype, list), an error as TypeError or
    ValueError (the framework raises subclasses of these that carry the op and source line)."""
    out = []
    for f in (fn, capture.jit(fn)):
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                r = f(*args)
            r = r.asnumpy() if isinstance(r, Tensor) else np.asarray(r)
            out.append((r.dtype, r.tolist()))
        except (TypeError, ValueError) as e:
            out.append(TypeError if isinstance(e, TypeError) else ValueError)
    return out


U8 = np.array([0, 1, 200, 255], np.uint8)
I8 = np.array([-128, 0, 5, 127], np.int8)


@pytest.mark.parametrize("name, fn, data", [
    ("uint8 == -1", lambda x: x == -1, U8),
    ("uint8 != 256", lambda x: x != 256, U8),
    ("uint8 < 300", lambda x: x < 300, U8),
    ("uint8 > -5", lambda x: x > -5, U8),
    ("300 < uint8", lambda x: ops.less(300, x), U8),
    ("-300 >= int8", lambda x: ops.greater_equal(-300, x), I8),
    ("int8 <= -129", lambda x: x <= -129, I8),
    ("int8 < 200", lambda x: x < 200, I8),
    ("int8 < 100 (in range)", lambda x: x < 100, I8),
])
def test_a_comparison_with_an_int_the_dtype_cannot_hold_is_by_value(name, fn, data):
    eager, graph = _both(fn, Tensor(data))
    with np.errstate(all="ignore"):
        want = fn(data).tolist()  # numpy compares by value (NEP 50)
    assert eager == graph == (np.dtype(bool), want)


@pytest.mark.parametrize("name, fn, data", [
    ("int8 + 200", lambda x: x + 200, I8),
    ("uint8 + -1", lambda x: x + -1, U8),
    ("clamp(uint8, -1, 2)", lambda x: ops.clamp(x, -1, 2), U8),
    ("-3 // uint8", lambda x: -3 // x, U8),
    ("-bool", lambda x: -x, np.array([True, False])),
    ("bool - bool", lambda x: x - x, np.array([True, False])),
    ("sign(bool)", lambda x: ops.sign(x), np.array([True, False])),
])
def test_what_pynative_refuses_graph_mode_refuses(name, fn, data):
    eager, graph = _both(fn, Tensor(data))
    assert eager in (TypeError, ValueError) and graph is eager


@pytest.mark.parametrize("name, fn, data", [
    ("uint8 - 1 (wraps, as numpy)", lambda x: x - 1, U8),
    ("uint8 * 2", lambda x: x * 2, U8),
    ("bool - 1", lambda x: x - 1, np.array([True, False])),
    ("1.0 - bool", lambda x: 1.0 - x, np.array([True, False])),
])
def test_in_range_ints_and_promoted_bools_compute_alike(name, fn, data):
    eager, graph = _both(fn, Tensor(data))
    assert eager == graph and not isinstance(eager, type)


def test_an_integer_power_with_a_negative_exponent_truncates_one_over_the_power():
    x = np.array([1, -1, -1, 2, 0, -3, 5], np.int32)
    y = np.array([-3, -3, -2, -1, -2, 2, 3], np.int32)
    want = [1, -1, 1, 0, 0, 9, 125]  # 1 / x**-y truncated toward zero where y < 0 (0 ** -n too)
    for fn in (lambda a, b: ops.pow(a, b), lambda a, b: a ** b):
        eager, graph = _both(fn, Tensor(x), Tensor(y))
        assert eager == graph == (np.dtype(np.int32), want)
    eager, graph = _both(lambda a: ops.pow(a, -3), Tensor(x))
    assert eager == graph == (np.dtype(np.int32), [1, -1, -1, 0, 0, 0, 0])


def test_atan2_of_float16_and_a_python_float_is_float16_in_both_modes():
    a = np.array([[0.5, -1.0, 2.0, 3.0]], np.float16)
    for fn in (lambda x: ops.atan2(-1.25, x), lambda x: ops.relu(ops.atan2(x, 2.0)) + 1):
        eager, graph = _both(fn, Tensor(a))
        assert eager[0] == graph[0] == np.float16
        np.testing.assert_allclose(eager[1], graph[1], rtol=2e-3)
    np.testing.assert_allclose(_both(lambda x: ops.atan2(-1.25, x), Tensor(a))[0][1],
                               np.arctan2(np.float16(-1.25), a).tolist(), rtol=1e-3)


# -- random expressions -----------------------------------------------------------------------------
_DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.int16, np.int8, np.uint8, np.bool_]
_NUMBERS = [2, -3, 0.5, -1.25, True, 7, 0, 200, 300, -129, 40000, -1]
_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "max": ops.maximum, "min": ops.minimum,
    "pow": ops.pow, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b, "and": ops.logical_and, "or": ops.logical_or, "atan2": ops.atan2,
}
_UNARY = {
    "neg": lambda x: -x, "abs": ops.abs, "exp": ops.exp, "relu": ops.relu, "sqrt": ops.sqrt,
    "f32": lambda x: ops.cast(x, ms.float32), "i32": lambda x: ops.cast(x, ms.int32),
    "sum0": lambda x: x.sum(axis=0, keepdims=True) if x.ndim else x, "floor": ops.floor,
    "sigmoid": ops.sigmoid, "square": ops.square, "sign": ops.sign, "tanh": ops.tanh,
    "not": ops.logical_not, "clip": lambda x: ops.clamp(x, -1, 2), "where": lambda x: ops.where(x > 0, x, x * 2),
}


def _expression(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return ("number", rng.choice(_NUMBERS)) if rng.random() < 0.15 else ("arg", rng.randrange(3))
    if rng.random() < 0.6:
        return ("binary", rng.choice(sorted(_BINARY)), _expression(rng, depth - 1), _expression(rng, depth - 1))
    return ("unary", rng.choice(sorted(_UNARY)), _expression(rng, depth - 1))


def _evaluate(e, args):
    if e[0] == "number":
        return e[1]
    if e[0] == "arg":
        return args[e[1]]
    if e[0] == "unary":
        x = _evaluate(e[2], args)
        return _UNARY[e[1]](x if isinstance(x, Tensor) else Tensor(np.float32(x)))
    a, b = _evaluate(e[2], args), _evaluate(e[3], args)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = Tensor(np.float32(a))
    return _BINARY[e[1]](a, b)


@pytest.mark.parametrize("seed", range(4))
def test_random_expressions_give_pynatives_values_dtypes_and_errors(seed):
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    for case in range(20):
        e = _expression(rng, rng.randrange(1, 4))
        args = [Tensor(np.asarray(data.standard_normal(rng.choice([(3, 4), (1, 4), (4,), (3, 1), ()]))
                                  * rng.choice([1, 3, 100])).astype(rng.choice(_DTYPES))) for _ in range(3)]
        eager, graph = _both(lambda a, b, c, e=e: _evaluate(e, [a, b, c]), *args)
        if isinstance(eager, type) or isinstance(graph, type):
            assert eager is graph, (e, eager, graph)
            continue
        assert eager[0] == graph[0], (e, eager[0], graph[0])
        got, want = np.asarray(graph[1], eager[0]), np.asarray(eager[1], eager[0])
        if eager[0].kind == "f":
            # (float16 arithmetic fused in compiled kernels rounds once, PyNative per op)
            tol = 2e-2 if any(a.dtype == ms.float16 for a in args) else 1e-4
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=str(e))
        else:
            np.testing.assert_array_equal(got, want, err_msg=str(e))


def test_the_gradient_of_atan2_with_a_bool_or_int_operand():
    # found by random expressions under grad: the rule squared the bool operand (square refuses
    # bools), in both modes. Oracle: d/da atan2(b, a) = -b / (a^2 + b^2), d/da atan2(a, b) = b / (a^2 + b^2)
    a = np.array([1.0, 2.0], np.float32)
    for other in (np.array([True, False]), np.array([3, -1], np.int32)):
        b = other.astype(np.float64)
        for fn, want in ((lambda x, y: ops.atan2(y, x).sum(), -b / (a ** 2 + b ** 2)),
                         (lambda x, y: ops.atan2(x, y).sum(), b / (a ** 2 + b ** 2))):
            grad = ms.grad(fn, grad_position=(0, 1))
            for g in (grad, capture.jit(grad)):
                ga, gb = g(Tensor(a), Tensor(other))
                np.testing.assert_allclose(ga.asnumpy(), want, rtol=1e-6)
                assert gb.dtype == Tensor(other).dtype  # (no float cotangent for a bool or int input)


@pytest.mark.parametrize("seed", range(2))
def test_random_expressions_differentiate_as_in_pynative(seed):
    # (how the atan2 rule above was found: every input's cotangent, eager tape vs jit(grad))
    rng = random.Random(1000 + seed)
    data = np.random.default_rng(seed)
    for case in range(15):
        e = _expression(rng, rng.randrange(1, 4))
        args = [Tensor((data.standard_normal(rng.choice([(3, 4), (1, 4), (4,), (3, 1)])) * 2)
                       .astype(rng.choice([np.float32, np.float64]))) for _ in range(3)]

        def loss(a, b, c, e=e):
            r = _evaluate(e, [a, b, c])
            if not isinstance(r, Tensor) or not r.dtype.is_float:  # (a number or a non-float result)
                r = ops.cast(r if isinstance(r, Tensor) else Tensor(np.float32(r)), ms.float32) * a
            return r.sum()
        grad = ms.grad(loss, grad_position=(0, 1, 2))
        results = []
        for g in (grad, capture.jit(grad)):
            try:
                with np.errstate(all="ignore"):
                    results.append([t.asnumpy() for t in g(*args)])
            except (TypeError, ValueError) as error:
                results.append(TypeError if isinstance(error, TypeError) else ValueError)
        eager, graph = results
        if isinstance(eager, type) or isinstance(graph, type):
            assert eager is graph, (e, eager, graph)
            continue
        for want, got in zip(eager, graph):
            assert want.dtype == got.dtype and want.shape == got.shape, e
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, equal_nan=True, err_msg=str(e))
