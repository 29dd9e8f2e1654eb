"""ops.einsum / ops.Einsum against numpy.einsum (the oracle), with random equations, gradients by
central differences, and every execution mode equal to PyNative."""
import string

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops
from gradcheck import check_grad
from modes import MODES, run_cell

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("i->", [(3,)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->i", [(3,), (3,)]),
    ("i,i", [(3,), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bhqk,bhkd->bqhd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ijk->", [(2, 3, 4)]),
    ("ijk->kj", [(2, 3, 4)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...i,...i->...", [(2, 1, 3), (4, 3)]),
    ("i...->...", [(3, 2, 2)]),
    ("ij, jk -> ik", [(2, 3), (3, 4)]),
    ("aB,Bc->ac", [(2, 3), (3, 2)]),
]


def _numpy(eq, arrays):
    want = np.einsum(eq, *arrays)
    return want.reshape(1) if want.ndim == 0 else want  # MindSpore: a full sum is [x]


@pytest.mark.parametrize("eq,shapes", CASES)
def test_einsum_equals_numpy(eq, shapes):
    rng = np.random.default_rng(len(eq))
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    got = ops.einsum(eq, *[Tensor(x) for x in xs]).asnumpy()
    want = _numpy(eq, xs)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_the_documented_examples():
    x = Tensor(np.array([1.0, 2.0, 4.0]), ms.float32)
    assert str(ops.einsum("i->", x)) == "[7.]"
    y = Tensor(np.array([2.0, 4.0, 3.0]), ms.float32)
    np.testing.assert_array_equal(ops.einsum("i,i->i", x, y).asnumpy(), [2.0, 8.0, 12.0])
    a = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), ms.float32)
    b = Tensor(np.array([[2.0, 3.0], [1.0, 2.0], [4.0, 5.0]]), ms.float32)
    np.testing.assert_array_equal(ops.einsum("ij,jk->ik", a, b).asnumpy(), [[16, 22], [37, 52]])
    np.testing.assert_array_equal(ops.einsum("ij->ji", a).asnumpy(), a.asnumpy().T)
    np.testing.assert_array_equal(ops.Einsum("ij,jk->ik")((a, b)).asnumpy(), [[16, 22], [37, 52]])


def test_sublist_form():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    got = ops.einsum(Tensor(a), [0, 1], Tensor(b), [1, 2], [0, 2]).asnumpy()
    np.testing.assert_allclose(got, a @ b, rtol=1e-5)
    got = ops.einsum(Tensor(a), [Ellipsis, 1], Tensor(b), [1, 2]).asnumpy()  # implicit output
    np.testing.assert_allclose(got, np.einsum(a, [Ellipsis, 1], b, [1, 2]), rtol=1e-5)
    with pytest.raises(ValueError, match=r"\[0, 52\)"):
        ops.einsum(Tensor(a), [0, 52])


def _random_equation(rng):
    """Two or three operands over a few letters, some shared, some repeated, some summed."""
    letters = list(string.ascii_lowercase[:6])
    size = {c: int(rng.integers(1, 4)) for c in letters}
    n_ops = int(rng.integers(1, 4))
    terms = []
    for _ in range(n_ops):
        k = int(rng.integers(1, 4))
        terms.append("".join(rng.choice(letters, k)))
    used = sorted(set("".join(terms)))
    out = "".join(c for c in used if rng.random() < 0.5)
    out = "".join(rng.permutation(list(out))) if out else ""
    eq = ",".join(terms) + "->" + out
    shapes = [tuple(size[c] for c in t) for t in terms]
    return eq, shapes


def test_random_equations_equal_numpy():
    rng = np.random.default_rng(2024)
    for _ in range(300):
        eq, shapes = _random_equation(rng)
        xs = [rng.standard_normal(s) for s in shapes]
        got = ops.einsum(eq, *[Tensor(x) for x in xs]).asnumpy()
        np.testing.assert_allclose(got, _numpy(eq, xs), rtol=1e-9, atol=1e-9, err_msg=eq)


@pytest.mark.parametrize("eq,shapes", [("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]), ("ii->i", [(3, 3)]),
                                       ("abc,cd,de->abe", [(2, 2, 3), (3, 2), (2, 2)]),
                                       ("...ij,...jk", [(2, 1, 2, 3), (2, 3, 2)]), ("bn,anm,bm->ba", [(2, 3), (2, 3, 2), (2, 2)])])
def test_gradients_equal_finite_differences(eq, shapes):
    rng = np.random.default_rng(7)
    check_grad(lambda *ts: ops.einsum(eq, *ts), *[rng.standard_normal(s) for s in shapes])


class Attention(nn.Cell):
    def construct(self, q, k):
        return ops.softmax(ops.einsum("bhqd,bhkd->bhqk", q, k), -1)


@pytest.mark.parametrize("mode", MODES)
def test_modes_equal_pynative(mode):
    rng = np.random.default_rng(3)
    q, k = (Tensor(rng.standard_normal((2, 2, 3, 4)).astype(np.float32)) for _ in range(2))
    want = Attention()(q, k).asnumpy()
    got = run_cell(mode, Attention(), q, k).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("eq,shapes,exc,match", [
    ("ij,jk->ik", [(2, 3), (4, 5)], ValueError, "letter 'j' is 3 in one place and 4"),
    ("ij,jk", [(2, 3)], ValueError, "names 2 operands but 1"),
    ("ijk", [(2, 3)], ValueError, "3 letters but rank 2"),
    ("ij->ik", [(2, 3)], ValueError, r"output letters \['k'\]"),
    ("i1->i", [(2, 2)], ValueError, "only letters"),
    ("ij->ii", [(2, 2)], ValueError, "output letters repeat"),
])
def test_bad_equations_raise_naming_the_equation(eq, shapes, exc, match):
    xs = [Tensor(np.zeros(s, np.float32)) for s in shapes]
    with pytest.raises(exc, match=match):
        ops.einsum(eq, *xs)


def test_mixed_dtypes_raise_type_error():
    with pytest.raises(TypeError, match="one dtype"):
        ops.einsum("i,i->i", Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float64)))
