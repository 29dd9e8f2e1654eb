"""Tensor construction, dtypes, repr, operators and context validation."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops


def test_default_dtypes():
    assert Tensor(1.0).dtype == ms.float32
    assert Tensor([1, 2]).dtype == ms.int64
    assert Tensor([True]).dtype == ms.bool_
    assert Tensor(np.zeros(2, np.float64)).dtype == ms.float64
    assert Tensor([1, 2], dtype=ms.float32).dtype == ms.float32
    assert Tensor([[1.0, 2.0]]).shape == (1, 2)


def test_repr_matches_mindspore_style():
    assert repr(Tensor([5.0, 7.0, 9.0])) == "Tensor(shape=[3], dtype=Float32, value=[5., 7., 9.])"
    r = repr(Tensor([[1, 2], [3, 4]], dtype=ms.int32))
    assert r.startswith("Tensor(shape=[2, 2], dtype=Int32, value=\n[[1, 2],")


def test_cell_adds_two_tensors():
    class Net(nn.Cell):
        def construct(self, x, y):
            return ops.add(x, y)

    out = Net()(Tensor([1.0, 2.0, 3.0]), Tensor([4.0, 5.0, 6.0]))
    np.testing.assert_array_equal(out.asnumpy(), [5.0, 7.0, 9.0])


def test_print_inside_construct_prints_every_call(capsys):
    class Net(nn.Cell):
        def construct(self, x):
            y = x * 2
            print("y:", y)
            return y

    net = Net()
    for _ in range(3):
        net(Tensor([1.0, 2.0]))
    assert capsys.readouterr().out.count("y: [2. 4.]") == 3


def test_operators_and_methods():
    x = Tensor([[1.0, -2.0], [3.0, 4.0]])
    a = x.asnumpy()
    np.testing.assert_allclose((x @ x).asnumpy(), a @ a)
    np.testing.assert_allclose((2 - x).asnumpy(), 2 - a)
    np.testing.assert_allclose((x ** 2).asnumpy(), a ** 2)
    np.testing.assert_allclose(abs(x).asnumpy(), np.abs(a))
    np.testing.assert_allclose(x.T.asnumpy(), a.T)
    np.testing.assert_allclose(x.sum(axis=1).asnumpy(), a.sum(1))
    np.testing.assert_allclose(x.mean().asnumpy(), a.mean())
    assert x.argmax(axis=1).asnumpy().tolist() == [0, 1]
    assert (x > 0).dtype == ms.bool_
    assert x.reshape(4).shape == (4,)
    assert x.astype(ms.int32).dtype == ms.int32
    assert Tensor([3.5]).item() == 3.5
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)


def test_setitem_in_place():
    x = Tensor(np.zeros((2, 3), np.float32))
    x[0, 1] = 5.0
    x[1] = Tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.asnumpy(), [[0, 5, 0], [1, 2, 3]])


def test_unsupported_data_raises_type_error():
    with pytest.raises(TypeError):
        Tensor("abc")
    with pytest.raises(TypeError):
        Tensor(np.array([1 + 2j]))
    with pytest.raises(ValueError, match="ragged"):
        Tensor([[1.0], [1.0, 2.0]])


def test_context_validation():
    with pytest.raises(ValueError, match="valid keys"):
        ms.set_context(bogus=1)
    with pytest.raises(ValueError, match="GRAPH_MODE"):
        ms.set_context(mode=5)
    with pytest.raises(ValueError, match="device_target"):
        ms.set_context(device_target="TPU")
    with pytest.raises(ValueError, match="valid keys"):
        ms.get_context("bogus")
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_jitconfig_validation():
    with pytest.raises(ValueError, match="jit_level"):
        ms.JitConfig(jit_level="O7")
    with pytest.raises(ValueError, match="exec_mode"):
        ms.JitConfig(exec_mode="fast")


def test_int_float_promotion_follows_mindspore():
    i = Tensor([1, 2], dtype=ms.int32)
    f = Tensor([0.5, 0.5], dtype=ms.float32)
    assert (i + f).dtype == ms.float32
    assert (i + 2.5).dtype == ms.float32
    assert (i + 2).dtype == ms.int32
    assert (i / i).dtype == ms.float32


def test_error_names_user_line():
    x = Tensor(np.ones((3, 8), np.float32))
    b = Tensor(np.ones(4, np.float32))
    with pytest.raises(ValueError) as info:
        ops.bias_add(x, b)  # this line is reported
    msg = str(info.value)
    assert "BiasAdd" in msg and "bias_add" in msg and "(3, 8)" in msg and "(4,)" in msg
    assert "test_tensor.py" in msg and "ops.bias_add(x, b)  # this line is reported" in msg


# ---- Tensor(ndarray) copies; from_numpy shares (MindSpore 2.x, issue 40) ----------------------------

def test_tensor_constructor_copies_the_array_in_both_directions():
    buf = np.zeros(3, np.float32)
    batches = []
    for step in range(3):  # a staging buffer refilled and wrapped once per batch
        buf[:] = step
        batches.append(Tensor(buf))
    assert [b.asnumpy().tolist() for b in batches] == [[0.0] * 3, [1.0] * 3, [2.0] * 3]
    t = Tensor(buf)
    t[0] = 7.0  # writing the tensor leaves the array alone
    assert buf.tolist() == [2.0, 2.0, 2.0]
    assert not np.shares_memory(t.asnumpy(), buf)
    # the same with an explicit dtype equal to the array's, a view, and a Parameter / set_data
    assert not np.shares_memory(Tensor(buf, dtype=ms.float32).asnumpy(), buf)
    view = buf[1:]
    assert not np.shares_memory(Tensor(view).asnumpy(), buf)
    p = ms.Parameter(buf, name="p")
    p.set_data(buf)
    buf[:] = -1.0
    assert p.asnumpy().tolist() == [2.0, 2.0, 2.0]


def test_from_numpy_stays_zero_copy():
    a = np.zeros(2, np.float32)
    for t in (Tensor.from_numpy(a), ms.from_numpy(a)):
        a[0] = 5.0
        assert t.asnumpy().tolist()[0] == 5.0


def test_dataset_rows_do_not_alias_the_generator_buffer():
    buf = np.zeros(2, np.float32)

    def gen():
        for i in range(3):
            buf[:] = i
            yield (buf,)
    rows = [r[0] for r in ms.dataset.GeneratorDataset(gen, ["x"], shuffle=False).create_tuple_iterator()]
    assert [r.asnumpy().tolist() for r in rows] == [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]


def test_tensor_searchsorted_matches_numpy():
    """``Tensor.searchsorted(v, side, sorter)`` is numpy's method (int32 indices)."""
    a = np.array([5, 1, 3, 2, 4, 3])
    sorter = np.argsort(a, kind="stable")
    for side in ("left", "right"):
        for v in (3, [0, 3, 6], np.array([[2.5, 3.0], [7.0, -1.0]])):
            got = Tensor(np.sort(a)).searchsorted(v, side=side)
            assert got.dtype == ms.int32
            np.testing.assert_array_equal(got.asnumpy(), np.searchsorted(np.sort(a), v, side=side))
            np.testing.assert_array_equal(Tensor(a).searchsorted(v, side=side, sorter=sorter.tolist()).asnumpy(),
                                          np.searchsorted(a, v, side=side, sorter=sorter))
    with pytest.raises(ValueError, match="side"):
        Tensor(a).searchsorted(3, side="middle")


def test_tensor_trace_matches_numpy():
    """``Tensor.trace(offset, axis1, axis2, dtype)`` is numpy's method."""
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(Tensor(a).trace(1, 1, 2).asnumpy(), np.trace(a, 1, 1, 2))
    np.testing.assert_array_equal(Tensor(a).trace(-1, 0, 2).asnumpy(), np.trace(a, -1, 0, 2))
    out = Tensor(a).trace(dtype=ms.int32)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.trace(a).astype(np.int32))


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_tensor_take_ptp_resize_diagonal(mode):
    """numpy's take/ptp/diagonal; resize as MindSpore documents it (zeros past the old elements)."""
    a = np.arange(12.0).reshape(3, 4)
    idx = np.array([[0, 5], [-1, 11]])

    def f(t, i):
        return (t.take(i), t.take(i, axis=1, mode="wrap"), t.ptp(), t.ptp(axis=0, keepdims=True),
                t.resize(4, 4), t.resize((2, 3)), t.diagonal(1), t.diagonal(0, 1, 0))

    run = f if mode == "pynative" else ms.jit(f)
    got = [o.asnumpy() for o in run(Tensor(a), Tensor(idx))]
    want = [np.take(a, idx, mode="clip"), np.take(a, idx, axis=1, mode="wrap"), np.ptp(a),
            np.ptp(a, axis=0, keepdims=True), np.concatenate([a.ravel(), np.zeros(4)]).reshape(4, 4),
            a.ravel()[:6].reshape(2, 3), np.diagonal(a, 1), np.diagonal(a, 0, 1, 0)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    t = Tensor(a)
    assert t.resize() is t  # no shape: the tensor itself, as MindSpore's method
