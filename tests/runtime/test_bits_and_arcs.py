"""atan / asin / acos / atan2, bitwise and/or/xor, invert, gcd, lcm and cumprod: registry ops with
MindSpore's functional, Primitive and mindspore.numpy spellings.

Oracles: numpy's own functions (the integer ops must be bit-exact, also in compiled code, also for
int64 values beyond 2**53 where a float round trip would lose bits), central differences in
float64 for the gradients, and MindSpore's documented examples (ops.Atan2, ops.Gcd, ops.CumProd).
Every case runs in PyNative, under ``ms.jit``, as a GRAPH_MODE Cell and under the frame hook."""
import numpy as np
import pytest

import runtime as ms
import runtime.numpy as mnp
from gradcheck import check_grad
from modes import HOOK_MODES, run_fn
from runtime import Tensor, ops

RNG = np.random.default_rng(40)
BIG = np.array([2 ** 62 + 12345, -(2 ** 61) - 7, 2 ** 53 + 1, -1, 0, 9_007_199_254_740_993], np.int64)
BIG2 = np.array([2 ** 40 + 3, 2 ** 62 - 1, 3, 2 ** 53 + 3, 17, 6_000_000_000_000_000_003], np.int64)


def _same(out, expect):
    assert isinstance(out, Tensor)
    got = out.asnumpy()
    assert got.dtype == expect.dtype, (got.dtype, expect.dtype)
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("name, fn, ref", [
    ("and", ops.bitwise_and, np.bitwise_and),
    ("or", ops.bitwise_or, np.bitwise_or),
    ("xor", ops.bitwise_xor, np.bitwise_xor),
    ("gcd", ops.gcd, np.gcd),
    ("lcm", ops.lcm, np.lcm),
])
def test_integer_binary_ops_are_exact(mode, name, fn, ref):
    small_a = RNG.integers(-1000, 1000, (3, 4)).astype(np.int32)
    small_b = RNG.integers(-1000, 1000, (4,)).astype(np.int32)
    _same(run_fn(mode, lambda a, b: fn(a, b) + 0, Tensor(small_a), Tensor(small_b)), ref(small_a, small_b))
    if name == "lcm":  # keep lcm of big values inside int64
        a, b = BIG % 100_003, BIG2 % 99_991
    else:
        a, b = BIG, BIG2
    _same(run_fn(mode, lambda x, y: fn(x, y), Tensor(a), Tensor(b)), ref(a, b))


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_invert_and_bool_operands(mode):
    _same(run_fn(mode, lambda x: ops.invert(x) * 1, Tensor(BIG)), np.invert(BIG) * 1)
    u8 = np.array([0, 1, 127, 200, 255], np.uint8)
    _same(run_fn(mode, ops.invert, Tensor(u8)), np.invert(u8))
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    _same(run_fn(mode, lambda x, y: ops.bitwise_xor(x, y), Tensor(p), Tensor(q)), p ^ q)
    _same(run_fn(mode, ops.invert, Tensor(p)), ~p)


def test_integer_ops_with_python_scalars_and_mixed_widths():
    a = np.array([12, -7, 255], np.int16)
    _same(ops.bitwise_and(Tensor(a), 10), np.bitwise_and(a, np.int16(10)))
    _same(ops.BitwiseOr()(Tensor(a), Tensor(np.array([1, 2, 4], np.int64))),
          np.bitwise_or(a.astype(np.int64), np.array([1, 2, 4], np.int64)))


def test_integer_ops_refuse_floats():
    with pytest.raises(TypeError, match="integer"):
        ops.bitwise_and(Tensor([1.0, 2.0]), Tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="integer"):
        ops.gcd(Tensor(np.array([True])), Tensor(np.array([False])))
    with pytest.raises(TypeError, match="integer"):
        ms.jit(lambda x: ops.lcm(x, 2.5))(Tensor(np.array([3], np.int32)))


def test_documented_examples():
    # MindSpore's API reference examples
    out = ops.Atan2()(Tensor(np.array([0, 1]), ms.float32), Tensor(np.array([1, 1]), ms.float32))
    np.testing.assert_allclose(out.asnumpy(), [0.0, 0.7853982], rtol=1e-6)
    out = ops.Gcd()(Tensor(np.array([7, 8, 9]), ms.int32), Tensor(np.array([14, 6, 12]), ms.int32))
    _same(out, np.array([7, 2, 3], np.int32))
    out = ops.Lcm()(Tensor(np.array([7, 8, 9]), ms.int32), Tensor(np.array([14, 6, 12]), ms.int32))
    _same(out, np.array([14, 24, 36], np.int32))
    x = Tensor(np.array([5.0, 6.0, 7.0]).astype(np.float32))
    a, b, c = 5.0, 6.0, 7.0
    np.testing.assert_allclose(ops.CumProd()(x, 0).asnumpy(), [a, a * b, a * b * c])
    np.testing.assert_allclose(ops.CumProd(exclusive=True)(x, 0).asnumpy(), [1.0, a, a * b])
    np.testing.assert_allclose(ops.CumProd(reverse=True)(x, 0).asnumpy(), [a * b * c, b * c, c])
    np.testing.assert_allclose(ops.CumProd(exclusive=True, reverse=True)(x, 0).asnumpy(), [b * c, c, 1.0])
    np.testing.assert_array_equal(ops.BitwiseAnd()(Tensor(np.array([0, 0, 1, -1, 1, 1, 1]), ms.int16),
                                                   Tensor(np.array([0, 1, 1, -1, -1, 2, 3]), ms.int16)).asnumpy(),
                                  [0, 0, 1, -1, 1, 0, 1])
    np.testing.assert_array_equal(ops.Invert()(Tensor(np.array([25, 4, 13, 9]), ms.int16)).asnumpy(),
                                  [-26, -5, -14, -10])


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.999, 1e-8, 3.0, -40.0, np.inf, -np.inf, np.nan], np.float32)


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("fn, ref", [(ops.atan, np.arctan), (ops.asin, np.arcsin), (ops.acos, np.arccos)],
                         ids=["atan", "asin", "acos"])
def test_inverse_trig_match_numpy(mode, fn, ref):
    with np.errstate(invalid="ignore"):
        expect = ref(SPECIAL)
        got = run_fn(mode, lambda x: fn(x) * 1.0, Tensor(SPECIAL)).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(expect[:2]))  # the sign of zero
    np.testing.assert_allclose(got, expect, rtol=1e-6, atol=0, equal_nan=True)
    ints = np.array([-1, 0, 1], np.int32)  # integer input: a float32 result
    got = run_fn(mode, fn, Tensor(ints))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), ref(ints.astype(np.float32)), rtol=1e-6)


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_atan2_quadrants_and_special_values(mode):
    y, x = np.meshgrid(SPECIAL, SPECIAL, indexing="ij")
    got = run_fn(mode, lambda a, b: ops.atan2(a, b), Tensor(y), Tensor(x)).asnumpy()
    expect = np.arctan2(y, x)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expect))
    np.testing.assert_allclose(got, expect, rtol=1e-6, atol=0, equal_nan=True)
    f64 = RNG.standard_normal((5, 3))
    got = run_fn(mode, ops.atan2, Tensor(f64), Tensor(f64[::-1].copy()))
    np.testing.assert_allclose(got.asnumpy(), np.arctan2(f64, f64[::-1]), rtol=1e-15)


@pytest.mark.parametrize("fn, lo, hi", [(ops.atan, -4, 4), (ops.asin, -0.9, 0.9), (ops.acos, -0.9, 0.9)])
def test_inverse_trig_gradients(fn, lo, hi):
    check_grad(fn, RNG.uniform(lo, hi, (3, 4)))


def test_atan2_gradient_with_broadcasting():
    check_grad(ops.atan2, RNG.uniform(-2, 2, (3, 4)), RNG.uniform(0.5, 2, (4,)))


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_matches_numpy_and_gradient(exclusive, reverse):
    x = RNG.uniform(0.5, 2.0, (3, 4))
    ex = np.flip(x, 1) if reverse else x
    ref = np.cumprod(ex, axis=1)
    if exclusive:
        ref = np.concatenate([np.ones((3, 1)), ref[:, :-1]], axis=1)
    ref = np.flip(ref, 1) if reverse else ref
    prim = ops.CumProd(exclusive=exclusive, reverse=reverse)
    for mode in HOOK_MODES:
        np.testing.assert_allclose(run_fn(mode, lambda t: prim(t, 1), Tensor(x)).asnumpy(), ref, rtol=1e-12)
    check_grad(lambda t: prim(t, 1), x)
    check_grad(lambda t: prim(t, 0), x)


def test_cumprod_integer_is_exact_and_functional_signature():
    a = np.array([3, -5, 7, 11, 13, 17, 19, 23, 29, 31, 37], np.int64)
    _same(ops.cumprod(Tensor(a), 0), np.cumprod(a))
    _same(ms.jit(lambda t: ops.cumprod(t, dim=0))(Tensor(a)), np.cumprod(a))
    _same(ops.cumprod(Tensor(a.astype(np.int32)), 0, dtype=ms.float64), np.cumprod(a).astype(np.float64))
    with pytest.raises(ValueError):
        ops.cumprod(Tensor(3.0), 0)


def test_mindspore_numpy_functions():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    # the input's dtype is kept (as mnp.cumsum does; numpy would widen int32 to int64)
    _same(mnp.cumprod(Tensor(x)), np.cumprod(x, dtype=np.int32))
    _same(mnp.cumprod(Tensor(x), axis=0), np.cumprod(x, axis=0, dtype=np.int32))
    _same(mnp.cumprod(Tensor(x), axis=1, dtype=ms.float32), np.cumprod(x, axis=1).astype(np.float32))
    v = np.array([-0.5, 0.0, 0.75], np.float32)
    for name in ("arcsin", "arccos", "arctan"):
        np.testing.assert_allclose(getattr(mnp, name)(Tensor(v)).asnumpy(), getattr(np, name)(v), rtol=1e-6)
    np.testing.assert_allclose(mnp.arctan2(Tensor(v), 2.0).asnumpy(), np.arctan2(v, np.float32(2.0)), rtol=1e-6)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"):
        _same(getattr(mnp, name)(Tensor(x), Tensor(x[::-1].copy())), getattr(np, name)(x, x[::-1]))
    _same(mnp.invert(Tensor(x)), np.invert(x))
    assert "cumprod" not in mnp.missing() and "gcd" not in mnp.missing()


def test_alias_spellings_and_keywords():
    v = Tensor(np.array([0.25], np.float32))
    assert ops.arctan(v).asnumpy() == ops.atan(input=v).asnumpy() == ops.Atan()(v).asnumpy()
    assert ops.arcsin(v).asnumpy() == ops.Asin()(v).asnumpy()
    assert ops.arccos(v).asnumpy() == ops.ACos()(v).asnumpy()
    assert ops.arctan2(v, v).asnumpy() == ops.atan2(input=v, other=v).asnumpy()
    i = Tensor(np.array([6], np.int32))
    assert ops.gcd(input=i, other=Tensor(np.array([4], np.int32))).asnumpy().tolist() == [2]


@pytest.mark.parametrize("name, make", [
    ("atan2", lambda: (RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal((4,)).astype(np.float32))),
    ("gcd", lambda: (RNG.integers(-50, 50, (3, 4)).astype(np.int64), RNG.integers(1, 50, (3, 4)).astype(np.int64))),
    ("asin", lambda: (RNG.uniform(-1, 1, (3, 5)).astype(np.float32),)),
    ("cumprod", lambda: (RNG.uniform(0.5, 2, (3, 5)).astype(np.float32),)),
])
def test_vmap_batches_the_new_ops_in_one_call_equal_to_the_loop(name, make):
    from runtime.vmap_rules import RULES
    assert name in RULES
    fn = (lambda t: ops.cumprod(t, 0)) if name == "cumprod" else getattr(ops, name)
    arrays = make()
    in_axes = (0,) + (None,) * (len(arrays) - 1) if name == "atan2" else 0
    got = ops.vmap(fn, in_axes=in_axes)(*[Tensor(a) for a in arrays]).asnumpy()
    if name == "atan2":
        want = np.stack([fn(Tensor(arrays[0][i]), Tensor(arrays[1])).asnumpy() for i in range(3)])
    else:
        want = np.stack([fn(*[Tensor(a[i]) for a in arrays]).asnumpy() for i in range(3)])
    np.testing.assert_array_equal(got, want)
