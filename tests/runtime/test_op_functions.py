"""The generated op functions (``ops.*``, ``F.*``: graph.ops.core.op_function) and the PyNative
fast paths around them: a remembered attribute set must give exactly what normalising the
arguments gives, for every call after the first too (oracle: the same call on a fresh function,
and ``Op.normalize``'s errors)."""
import numpy as np
import pytest

import runtime as ms
from graph.ops import REGISTRY, F
from graph.ops.core import op_function
from runtime import Tensor, ops


def _x():
    return Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


def test_a_remembered_attribute_set_does_not_stand_for_an_equal_value_of_another_class():
    reduce_sum = op_function(REGISTRY["reduce_sum"])
    x = _x()
    np.testing.assert_array_equal(reduce_sum(x, 1).asnumpy(), [3.0, 12.0])
    # True == 1 and hash(True) == hash(1): a memo keyed by values alone would take True as axis 1
    with pytest.raises(TypeError, match="axis"):
        reduce_sum(x, True)
    with pytest.raises(TypeError, match="axis"):
        reduce_sum(x, 1.0)
    np.testing.assert_array_equal(reduce_sum(x, 1).asnumpy(), [3.0, 12.0])


def test_every_call_of_a_remembered_set_equals_a_fresh_normalisation():
    x = _x()
    for axis in (None, 0, 1, -1, (0, 1), [1]):
        for keep in (False, True):
            fresh = op_function(REGISTRY["reduce_sum"])(x, axis, keep)
            for _ in range(3):  # the first call remembers; the later ones read the memo
                got = ops.reduce_sum(x, axis, keep)
                assert got.shape == fresh.shape
                np.testing.assert_array_equal(got.asnumpy(), fresh.asnumpy())
            np.testing.assert_array_equal(x.sum(axis=axis, keepdims=keep).asnumpy(), fresh.asnumpy())


def test_tensor_sum_and_mean_reject_what_the_op_rejects_after_a_remembered_call():
    x = _x()
    assert x.sum(axis=0).shape == (3,) and x.mean(axis=0).shape == (3,)
    for bad in (True, 0.0):
        with pytest.raises(TypeError):
            x.sum(axis=bad)
        with pytest.raises(TypeError):
            x.mean(axis=bad)


def test_binder_functions_take_attributes_by_keyword_only():
    x = _x()
    np.testing.assert_array_equal(F.reduce_sum(x, axis=0).asnumpy(), [3.0, 5.0, 7.0])
    with pytest.raises(TypeError):
        F.reduce_sum(x, 0)  # (a second positional is not an attribute)
    stacked = F.stack(x, x, axis=0)  # variadic: inputs as *args
    assert stacked.shape == (2, 2, 3)
    assert ops.stack((x, x), 0).shape == (2, 2, 3)  # the functional API: one sequence


def test_broadcasting_a_zero_dim_array_is_a_read_only_view_equal_to_numpys():
    g = Tensor(np.array(2.5, np.float32))
    out = ops.broadcast_to(g, (3, 4))
    want = np.broadcast_to(np.float32(2.5), (3, 4))
    np.testing.assert_array_equal(out.asnumpy(), want)
    assert out.asnumpy().dtype == np.float32 and not out._data.flags.writeable
    assert ops.broadcast_to(g, (0, 2)).shape == (0, 2)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8])
def test_relu_keeps_the_dtype_and_matches_numpy(dtype):
    a = (np.arange(-3, 3).reshape(2, 3)).astype(dtype) if dtype != np.uint8 else np.arange(6, dtype=dtype).reshape(2, 3)
    got = ops.relu(Tensor(a)).asnumpy()
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(got, np.maximum(a, 0))
    nan = ops.relu(Tensor(np.array([np.nan, -0.0, -1.0], np.float32))).asnumpy()
    assert np.isnan(nan[0]) and nan[1] == 0 and nan[2] == 0


def test_grad_through_the_fast_paths_matches_the_formula():
    x = Tensor(np.array([[1.0, -2.0], [3.0, 0.5]], np.float32))
    np.testing.assert_allclose(ms.grad(lambda a: (a * a).sum())(x).asnumpy(), 2 * x.asnumpy())
    np.testing.assert_allclose(ms.grad(lambda a: ops.relu(a).mean())(x).asnumpy(),
                               (x.asnumpy() > 0) / 4.0)


@pytest.mark.parametrize("axis", [(1,), (-1,), (0, 2), (2, 0), (-1, -3), (1, 2), None, ()])
def test_sum_over_axes_as_given_is_numpys_sum_to_the_bit(axis):
    # reduce_sum hands axes that inference accepted to numpy as they are (negative, unsorted):
    # the oracle is numpy's reduction over the sorted non-negative axes
    a = np.random.default_rng(0).standard_normal((5, 7, 9)).astype(np.float32) * 1e3
    want_axes = tuple(range(3)) if not axis else tuple(sorted(d % 3 for d in axis))
    want = np.add.reduce(a, want_axes)
    got = ops.reduce_sum(Tensor(a), axis).asnumpy()
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_the_lean_eager_path_checks_and_relocates_like_the_general_one():
    x = Tensor(np.ones((2, 3), np.float32))
    y = Tensor(np.ones((4, 5), np.float32))
    for _ in range(3):  # (the second call of a signature reads the memo of passed checks)
        np.testing.assert_array_equal(ops.matmul(x, x, transpose_b=True).asnumpy(), np.full((2, 2), 3.0))
        with pytest.raises(ValueError, match=r"MatMul.*\(2, 3\).*\(4, 5\)|MatMul.*\(4, 5\).*\(2, 3\)") as e:
            ops.matmul(x, y)
        assert e.value.__traceback__ is not None
    # an unhashable attribute value: no memo, the same answer every time
    for _ in range(2):
        np.testing.assert_array_equal(ops.transpose(x, [1, 0]).asnumpy(), np.ones((3, 2)))


def test_tensor_operators_are_the_ops_functions():
    x = Tensor(np.array([[1.0, -2.0]], np.float32))
    assert Tensor.__add__ is F.add and Tensor.__matmul__ is F.matmul
    np.testing.assert_array_equal((x + 1).asnumpy(), [[2.0, -1.0]])
    np.testing.assert_array_equal((1 - x).asnumpy(), [[0.0, 3.0]])
    np.testing.assert_array_equal((x @ x.T).asnumpy(), [[5.0]])
    np.testing.assert_array_equal((-x).asnumpy(), [[-1.0, 2.0]])
    assert (x == x).asnumpy().all() and not (x != x).asnumpy().any()


# -- the functions are one compiled template per signature shape, renamed per op -----------------
def _written_out(op, input_names=None, *, sequence_input=False, keyword_attrs=False):
    """The oracle: the function written out as source for this op and compiled on its own (how
    op_function made every function before it shared templates)."""
    from graph.ops.core import REQUIRED
    params, env = [], {}
    if op.variadic:
        name = op.inputs[0][1:]
        params.append(name if sequence_input else "*" + name)
    else:
        params.extend(op.inputs if input_names is None else input_names)
    if keyword_attrs and op.attrs and not any(p.startswith("*") for p in params):
        params.append("*")
    for i, (k, a) in enumerate(op.attrs.items()):
        if a.default is REQUIRED:
            params.append(k)
        else:
            env[f"_d{i}"] = a.default
            params.append(f"{k}=_d{i}")
    exec(compile(f"def {op.name}({', '.join(params)}):\n    pass\n", f"<graph.ops.{op.name}>", "exec"), env)
    return env[op.name]


def _same_signature(got, want):
    import inspect
    g, w = inspect.signature(got), inspect.signature(want)
    assert list(g.parameters) == list(w.parameters), (got, g, w)
    for a, b in zip(g.parameters.values(), w.parameters.values()):
        assert a.kind == b.kind and a.default is b.default, (got, a, b)
    assert (got.__name__, got.__qualname__, got.__code__.co_filename) == \
        (want.__name__, want.__qualname__, want.__code__.co_filename)


@pytest.mark.parametrize("style", ["ops", "F"])
def test_every_op_function_has_the_signature_of_its_written_out_definition(style):
    from runtime.ops._generated import MINDSPORE_INPUT_NAMES
    for name, op in REGISTRY.items():
        if style == "F":
            got, want = op_function(op, keyword_attrs=True), _written_out(op, keyword_attrs=True)
        else:
            names = MINDSPORE_INPUT_NAMES.get(name, op.inputs)
            if len(names) != len(op.inputs) or any(n in op.attrs for n in names):
                names = op.inputs
            got = op_function(op, names, sequence_input=True)
            want = _written_out(op, names, sequence_input=True)
        _same_signature(got, want)
        assert got.__module__ == "graph.ops" and got.__op__ is op


def test_binding_errors_name_the_op_and_its_parameters_as_a_written_out_function_does():
    for name, args, kwargs in (("reduce_sum", (), {}), ("reduce_sum", (1, 2, 3, 4), {}),
                               ("reduce_sum", (1,), {"axes": 0}), ("add", (1,), {}), ("concat", (), {"axis": 0, "bogus": 1}),
                               ("getitem", (), {"index": 0})):
        op = REGISTRY[name]
        errors = []
        for fn in (op_function(op), _written_out(op)):
            with pytest.raises(TypeError) as e:
                fn(*args, **kwargs)
            errors.append(str(e.value))
        assert errors[0] == errors[1]


def test_ops_of_one_signature_shape_share_code_but_not_defaults_memos_or_names(monkeypatch):
    import builtins
    op_function(REGISTRY["reduce_min"])  # (the template of this shape exists from here on)
    compiled = []
    real_compile = builtins.compile
    monkeypatch.setattr(builtins, "compile", lambda *a, **k: compiled.append(a) or real_compile(*a, **k))
    s, m = op_function(REGISTRY["reduce_sum"]), op_function(REGISTRY["reduce_max"])
    assert compiled == []  # (no source compiled per op: ~50 us each, 158 of them in ``import runtime``)
    assert s.__code__.co_code == m.__code__.co_code and s.__globals__ is not m.__globals__
    assert s.__code__.co_varnames[:3] == tuple(REGISTRY["reduce_sum"].inputs) + tuple(REGISTRY["reduce_sum"].attrs)[:2]
    x = _x()
    np.testing.assert_array_equal(s(x, 1).asnumpy(), [3.0, 12.0])
    np.testing.assert_array_equal(m(x, 1).asnumpy(), [2.0, 5.0])  # (reduce_sum's memo is not reduce_max's)
    np.testing.assert_array_equal(s(x, keep_dims=True, axis=0).asnumpy(), [[3.0, 5.0, 7.0]])
