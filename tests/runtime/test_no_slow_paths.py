"""No quiet slow paths in PyNative: no op's eager implementation runs Python per element
(``np.vectorize``, ``frompyfunc``, ``nditer``...), and no matrix product reaches numpy in a form
it runs slowly: a stack of matrices times one matrix (one small GEMM per matrix of the stack
instead of one large GEMM), or a matrix operand BLAS cannot take with a transpose flag (neither
of its last two axes contiguous: numpy copies or loops).

Checked two ways: statically, on the source of every op family in ``graph/ops`` (the names, and
the ``@`` operator that would bypass the instrumented ``matmul``), and by running every registry
op eagerly on its registry sample (tests/graph/test_registry.py) -- and matmul on batched,
transposed and strided operands -- with numpy's per-element entry points made to fail and
``matmul`` checking its operands."""
from __future__ import annotations

import ast
import os
import sys
import zlib

import numpy as np
import pytest

import runtime as ms  # noqa: F401  (registers the eager handler)
from graph.ops import REGISTRY, bind
from runtime import Tensor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graph"))
from test_registry import SAMPLES

OPS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "graph", "ops")
#: numpy entry points that call Python once per element (or per index)
PER_ELEMENT = ("vectorize", "frompyfunc", "nditer", "ndindex", "ndenumerate", "apply_along_axis",
               "apply_over_axes", "piecewise", "fromiter")

#: those refused at run time too (numpy itself uses nditer/ndindex internally, in C-speed ways:
#: broadcast_to builds its view with nditer; the source check above covers our own uses)
RUNTIME_REFUSED = ("vectorize", "frompyfunc", "apply_along_axis", "apply_over_axes", "piecewise", "fromiter")


def _op_sources():
    return sorted(f for f in os.listdir(OPS_DIR) if f.endswith(".py"))


@pytest.mark.parametrize("filename", _op_sources())
def test_op_sources_use_no_per_element_python(filename):
    with open(os.path.join(OPS_DIR, filename)) as f:
        tree = ast.parse(f.read(), filename)
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in PER_ELEMENT:
            bad.append(f"line {node.lineno}: .{node.attr}")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            bad.append(f"line {node.lineno}: the @ operator (use xp.matmul, whose operands are checked)")
    assert not bad, f"graph/ops/{filename}: " + "; ".join(bad)


class SlowPath(AssertionError):
    pass


def _blas_ready(a) -> bool:
    """A matrix (stack) operand BLAS takes as it is: one of its last two axes is contiguous."""
    a = np.asarray(a)
    if a.ndim < 2 or a.shape[-1] <= 1 or a.shape[-2] <= 1:
        return True
    return a.strides[-1] == a.itemsize or a.strides[-2] == a.itemsize


@pytest.fixture
def guarded_numpy(monkeypatch):
    """numpy with its per-element entry points failing and ``matmul`` checking its operands;
    yields the list of matmul operand shapes seen."""
    def refuse(name):
        def fn(*a, **k):
            raise SlowPath(f"np.{name} called: Python per element")
        return fn

    for name in RUNTIME_REFUSED:
        if hasattr(np, name):
            monkeypatch.setattr(np, name, refuse(name))
    real_matmul = np.matmul
    seen = []

    def matmul(x, y, *a, **k):
        xs, ys = np.shape(x), np.shape(y)
        seen.append((xs, ys))
        if len(xs) >= 3 and len(ys) == 2:
            raise SlowPath(f"matmul of a stack {xs} by one matrix {ys}: fold the stack into one GEMM")
        for name, v in (("x", x), ("y", y)):
            if not _blas_ready(v):
                raise SlowPath(f"matmul operand {name} {np.shape(v)} strides {np.asarray(v).strides}: "
                               "no contiguous axis among its last two")
        return real_matmul(x, y, *a, **k)

    monkeypatch.setattr(np, "matmul", matmul)
    yield seen


def _eager_args(args):
    return [Tensor(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("name", sorted(n for n, op in REGISTRY.items() if not op.communicates))
def test_every_op_runs_eagerly_without_a_slow_path(name, guarded_numpy):
    if name not in SAMPLES:
        pytest.fail(f"op {name!r} has no sample in tests/graph/test_registry.py SAMPLES")
    op = REGISTRY[name]
    args, attrs = SAMPLES[name](np.random.default_rng(zlib.crc32(name.encode())))
    try:
        bind(op, *_eager_args(args), **attrs)
    except SlowPath:
        raise
    except (TypeError, ValueError) as e:  # a sample meant for graph-only checks: the op still ran its checks
        pytest.skip(f"{name}: {e}")


def _variants(shape, rng):
    """An operand of ``shape`` as a contiguous array, a transposed view and a strided slice."""
    base = rng.normal(size=shape).astype(np.float32)
    yield "contiguous", base
    t = np.ascontiguousarray(np.swapaxes(base, -1, -2))
    yield "transposed view", np.swapaxes(t, -1, -2)
    wide = rng.normal(size=shape[:-1] + (shape[-1] * 2,)).astype(np.float32)
    wide[..., ::2] = base
    yield "strided slice", wide[..., ::2]


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("xs,ys", [((2, 3, 5, 4), (4, 6)), ((3, 5, 4), (3, 4, 6)), ((5, 4), (3, 4, 6)),
                                   ((2, 1, 5, 4), (3, 4, 6)), ((6, 4), (4, 5))])
def test_matmul_batched_transposed_inputs_take_no_slow_path(xs, ys, ta, tb, guarded_numpy):
    """Every combination of stack/matrix operands, transpose flags and operand layouts: the
    result equals the float64 product, and numpy's matmul only ever sees BLAS-ready operands."""
    rng = np.random.default_rng(5)
    xs = xs[:-2] + (xs[-1], xs[-2]) if ta else xs
    ys = ys[:-2] + (ys[-1], ys[-2]) if tb else ys
    for xname, x in _variants(xs, rng):
        for yname, y in _variants(ys, rng):
            got = bind(REGISTRY["matmul"], Tensor(x), Tensor(y), transpose_a=ta, transpose_b=tb).asnumpy()
            xr = np.swapaxes(x, -1, -2) if ta else x
            yr = np.swapaxes(y, -1, -2) if tb else y
            want = np.einsum("...ij,...jk->...ik", xr.astype(np.float64), yr.astype(np.float64))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{xname} x {yname}")


def test_the_guard_catches_what_it_should(guarded_numpy):
    """The instrumented numpy refuses the slow forms (the checks above can fail)."""
    with pytest.raises(SlowPath):
        np.matmul(np.ones((2, 3, 4)), np.ones((4, 5)))
    with pytest.raises(SlowPath):
        np.matmul(np.ones((3, 8))[:, ::2], np.ones((4, 5)))  # no contiguous axis
    with pytest.raises(SlowPath):
        np.vectorize(abs)
