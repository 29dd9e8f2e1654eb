"""Native kernels of the convolution layout and pooling ops (codegen/cpu/native.py) against the
ops' numpy implementations (the oracle): odd sizes, strides, padding, dilation, float32 and
float64, one and several threads. The compiled graph must really run the native kernel (its
describe() says so), so a silent fallback to numpy fails these tests."""
import numpy as np
import pytest

from codegen import compile_schedule
from codegen.cpu import threads
from graph.ops import REGISTRY, F

from codegen_helpers import graph_of, per_node

CONV_CASES = [  # (x shape, kernel, stride, pad_mode, padding, dilation)
    ((2, 1, 32, 32), (5, 5), (1, 1), "valid", (0, 0, 0, 0), (1, 1)),
    ((3, 2, 7, 9), (3, 2), (2, 1), "pad", (1, 0, 2, 1), (1, 2)),
    ((1, 3, 6, 5), (3, 3), (1, 1), "same", (0, 0, 0, 0), (1, 1)),
    ((2, 4, 9, 8), (2, 3), (3, 2), "same", (0, 0, 0, 0), (2, 1)),
    ((5, 2, 4, 4), (1, 1), (2, 2), "valid", (0, 0, 0, 0), (1, 1)),
    ((1, 1, 3, 11), (3, 4), (1, 3), "pad", (2, 2, 3, 3), (1, 1)),
]
POOL_CASES = [  # (x shape, kernel, stride, pad_mode)
    ((2, 6, 28, 28), (2, 2), (2, 2), "valid"),
    ((3, 2, 7, 9), (3, 3), (2, 2), "valid"),
    ((2, 3, 7, 9), (3, 2), (2, 1), "same"),
    ((1, 2, 5, 5), (2, 2), (1, 1), "valid"),
    ((2, 1, 6, 7), (3, 3), (3, 3), "same"),
    # 2x2 windows tiling the input run as vectors of 8 and 4 windows, then one at a time
    ((1, 2, 4, 26), (2, 2), (2, 2), "valid"),  # 13 windows a row: 8 + 4 + 1
    ((1, 1, 6, 16), (2, 2), (2, 2), "valid"),  # 8
    ((2, 1, 2, 10), (2, 2), (2, 2), "valid"),  # 4 + 1
    ((1, 1, 2, 2), (2, 2), (2, 2), "valid"),  # 1
]


def _run_one(build, arrays, name, every=False):
    """Compile ``build`` (one op) with one kernel per node; its output (``every``: all of them),
    checking that the op ran as a native kernel."""
    g = graph_of(build, *[(a.shape, a.dtype) for a in arrays])
    compiled = compile_schedule(per_node(g))
    text = compiled.describe()
    assert f"native[llvm] {name}" in text, text
    outs, _ = compiled(arrays)
    return outs if every else outs[0]


def _attrs(case):
    _, kernel, stride, pad_mode, padding, dilation = case
    return dict(kernel_size=kernel, stride=stride, pad_mode=pad_mode, padding=padding, dilation=dilation)


@pytest.fixture(params=[1, 3], ids=["1thread", "3threads"])
def n_threads(request, monkeypatch):
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)  # split even these small kernels
    threads.set_num_threads(request.param)
    yield request.param
    threads.set_num_threads(None)


@pytest.fixture(params=[True, False], ids=["vectors", "loops"])
def vector_pooling(request, monkeypatch):
    """Tiled 2x2 pooling through its vector path (even for these few windows) or its loops."""
    from codegen.cpu.native import pool
    monkeypatch.setattr(pool, "VECTOR_MIN_WINDOWS", 1 if request.param else 1 << 62)
    return request.param


@pytest.mark.parametrize("layout", ["nkp", "knp"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONV_CASES)
def test_im2col_and_col2im_equal_the_numpy_implementation(case, dtype, n_threads, layout):
    rng = np.random.default_rng(0)
    attrs = dict(_attrs(case), layout=layout)
    x = rng.standard_normal(case[0]).astype(dtype)
    want = REGISTRY["conv_im2col"].impl(np, x, **attrs)
    got = _run_one(lambda v: F.conv_im2col(v, **attrs), [x], "conv_im2col")
    np.testing.assert_array_equal(got, want)
    cols = rng.standard_normal(want.shape).astype(dtype)
    want_dx = REGISTRY["conv_col2im"].impl(np, cols, input_size=case[0], **attrs)
    got_dx = _run_one(lambda v: F.conv_col2im(v, input_size=case[0], **attrs), [cols], "conv_col2im")
    np.testing.assert_array_equal(got_dx, want_dx)  # the same additions in the same order
    # adjointness, an oracle independent of both implementations: <im2col(x), c> == <x, col2im(c)>
    np.testing.assert_allclose(np.vdot(got, cols), np.vdot(x, got_dx), rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool_and_its_gradient_equal_the_numpy_implementation(case, dtype, n_threads, vector_pooling):
    rng = np.random.default_rng(1)
    shape, kernel, stride, pad_mode = case
    attrs = dict(kernel_size=kernel, stride=stride, pad_mode=pad_mode)
    # few distinct values: windows with ties (the gradient goes to the first max only)
    x = rng.integers(-3, 4, shape).astype(dtype)
    want = REGISTRY["max_pool2d"].impl(np, x, **attrs)
    got = _run_one(lambda v: F.max_pool2d(v, **attrs), [x], "max_pool2d")
    np.testing.assert_array_equal(got, want)
    dout = rng.standard_normal(want.shape).astype(dtype)
    want_dx = REGISTRY["max_pool2d_grad"].impl(np, x, want, dout, **attrs)
    got_dx = _run_one(lambda a, o, d: F.max_pool2d_grad(a, o, d, **attrs), [x, want, dout], "max_pool2d_grad")
    np.testing.assert_array_equal(got_dx, want_dx)


def test_max_pool_propagates_nan_and_padding_never_wins():
    x = np.full((1, 1, 3, 3), -np.inf, np.float32)
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 0, 0] = -5.0
    attrs = dict(kernel_size=(2, 2), stride=(2, 2), pad_mode="same")
    want = REGISTRY["max_pool2d"].impl(np, x, **attrs)
    got = _run_one(lambda v: F.max_pool2d(v, **attrs), [x], "max_pool2d")
    np.testing.assert_array_equal(got, want)  # NaN in the first window, -inf (not 0) elsewhere
    assert np.isnan(got[0, 0, 0, 0]) and got[0, 0, 1, 1] == -np.inf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_2x2_pooling_vectors_keep_nan_ties_and_inf_as_numpy(dtype, vector_pooling):
    rng = np.random.default_rng(4)
    x = rng.integers(-2, 2, (2, 3, 6, 30)).astype(dtype)  # ties in most windows
    x[0, 0, 0, 1] = x[1, 2, 5, 28] = np.nan  # a NaN max: no position equals it, no gradient
    x[0, 1, 2, :4] = np.inf
    attrs = dict(kernel_size=(2, 2), stride=(2, 2), pad_mode="valid")
    want = REGISTRY["max_pool2d"].impl(np, x, **attrs)
    np.testing.assert_array_equal(_run_one(lambda v: F.max_pool2d(v, **attrs), [x], "max_pool2d"), want)
    dout = rng.standard_normal(want.shape).astype(dtype)
    dout[0, 0, 1, :3] = np.inf  # inf * 0 is NaN where numpy's dout * hit makes it so
    with np.errstate(invalid="ignore"):
        want_dx = REGISTRY["max_pool2d_grad"].impl(np, x, want, dout, **attrs)
    got_dx = _run_one(lambda a, o, d: F.max_pool2d_grad(a, o, d, **attrs), [x, want, dout], "max_pool2d_grad")
    np.testing.assert_array_equal(got_dx, want_dx)


def test_unsupported_dtypes_run_the_numpy_implementation():
    x = np.ones((1, 1, 4, 4), np.float16)
    g = graph_of(lambda v: F.max_pool2d(v, kernel_size=2), (x.shape, x.dtype))
    compiled = compile_schedule(per_node(g))
    assert "native" not in compiled.describe()
    np.testing.assert_array_equal(compiled([x])[0][0], np.ones((1, 1, 2, 2), np.float16))


MATMUL_CASES = [  # (a shape, b shape, transpose_a, transpose_b)
    ((5, 7), (7, 3), False, False),
    ((7, 5), (7, 3), True, False),
    ((5, 7), (3, 7), False, True),
    ((7, 5), (3, 7), True, True),
    ((6, 25), (4, 25, 13), False, False),  # a matrix against a batch (conv2d's product)
    ((4, 6, 13), (4, 25, 13), False, True),  # batch against batch (the filter gradient's)
    ((6, 25), (4, 6, 13), True, False),  # (the input gradient's)
    ((1, 9), (9, 1), False, False),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", MATMUL_CASES)
def test_matmul_through_blas_equals_numpy(case, dtype):
    from codegen.cpu import blas
    if blas.interface() is None:
        pytest.skip("numpy is not linked against an OpenBLAS this machine exposes (np.matmul steps run instead)")
    rng = np.random.default_rng(2)
    sa, sb, ta, tb = case
    a, b = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    want = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
    got = _run_one(lambda x, y: F.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b], "matmul")
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_partially_broadcast_products_run_numpy():
    a, b = np.ones((2, 1, 3, 4), np.float32), np.ones((2, 5, 4, 2), np.float32)
    g = graph_of(lambda x, y: F.matmul(x, y), (a.shape, a.dtype), (b.shape, b.dtype))
    compiled = compile_schedule(per_node(g))
    assert "native" not in compiled.describe()
    np.testing.assert_array_equal(compiled([a, b])[0][0], np.matmul(a, b))


def test_a_batch_of_products_summed_over_the_batch_is_one_accumulating_product():
    """The filter gradient's shape: sum over n of dout[n] @ cols[n]^T. BLAS adds the batch
    matrices into one result (no (N, O, K) batch of results, no reduction kernel)."""
    from codegen.cpu import blas
    if blas.interface() is None:
        pytest.skip("numpy is not linked against an OpenBLAS this machine exposes")
    rng = np.random.default_rng(3)
    d = rng.standard_normal((5, 6, 13)).astype(np.float32)
    c = rng.standard_normal((5, 25, 13)).astype(np.float32)
    g = graph_of(lambda x, y: F.reduce_sum(F.matmul(x, y, transpose_b=True), axis=0), (d.shape, d.dtype),
                 (c.shape, c.dtype))
    compiled = compile_schedule(per_node(g))
    assert "reduce_sum (computed by k0)" in compiled.describe(), compiled.describe()
    for _ in range(2):  # the first product overwrites the reused output, the rest add to it
        got = compiled([d, c])[0][0]
        np.testing.assert_allclose(got, np.einsum("nop,nkp->ok", d, c), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape, perm", [((4, 6, 5), (1, 0, 2)), ((3, 1, 7), (1, 0, 2)), ((2, 3, 4, 5), (2, 0, 1, 3))])
def test_transpose_keeping_the_last_axis_is_a_native_copy(shape, perm, n_threads):
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    got = _run_one(lambda v: F.transpose(v, perm=perm), [x], "transpose")
    np.testing.assert_array_equal(got, np.transpose(x, perm))
    assert got.flags.c_contiguous


DIRECT_CASES = [  # (x shape, w shape, stride, dilation): few inputs per output, no padding
    ((3, 1, 32, 32), (6, 1, 5, 5), (1, 1), (1, 1)),  # LeNet5's first layer
    ((2, 2, 9, 11), (3, 2, 3, 2), (2, 1), (1, 2)),
    ((1, 3, 7, 6), (4, 3, 1, 3), (1, 2), (1, 1)),
]


@pytest.fixture
def direct_for_any_size(monkeypatch):
    from graph.passes import lower
    monkeypatch.setattr(lower, "DIRECT_MIN_COLUMNS", 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", DIRECT_CASES)
def test_direct_convolution_and_filter_gradient_equal_the_numpy_implementation(case, dtype, n_threads,
                                                                                direct_for_any_size):
    rng = np.random.default_rng(5)
    xs, ws, stride, dilation = case
    attrs = dict(stride=stride, dilation=dilation)
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    want = REGISTRY["conv2d"].impl(np, x, w, **REGISTRY["conv2d"].normalize(attrs))
    got = _run_one(lambda a, b: F.conv2d(a, b, **attrs), [x, w], "conv2d")
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    dout = rng.standard_normal(want.shape).astype(dtype)
    op = REGISTRY["conv2d_backprop_filter"]
    want_dw = op.impl(np, dout, x, **op.normalize(dict(attrs, filter_size=ws)))
    got_dw = _run_one(lambda d, a: F.conv2d_backprop_filter(d, a, filter_size=ws, **attrs), [dout, x],
                      "conv2d_backprop_filter")
    np.testing.assert_allclose(got_dw, want_dw, rtol=10 * tol, atol=10 * tol)


def test_convolutions_with_many_inputs_padding_or_small_columns_are_lowered_to_columns():
    from graph.passes.lower import direct_convolution
    valid = dict(stride=(1, 1), pad_mode="valid", padding=(0, 0, 0, 0), dilation=(1, 1), groups=1)
    assert direct_convolution((256, 1, 32, 32), (6, 1, 5, 5), valid)  # LeNet5 b256: 5M column values
    assert not direct_convolution((32, 1, 32, 32), (6, 1, 5, 5), valid)  # b32: 0.6M
    assert not direct_convolution((256, 6, 14, 14), (16, 6, 5, 5), valid)  # 150 inputs per output
    assert not direct_convolution((256, 1, 32, 32), (6, 1, 5, 5), dict(valid, pad_mode="same"))


LOWERED_CASES = [  # (x shape, weight shape, attributes)
    ((3, 4, 7, 6), (5, 4, 3, 3), dict(stride=1, pad_mode="pad", padding=1)),
    ((4, 3, 9, 8), (6, 3, 3, 3), dict(stride=2, pad_mode="pad", padding=1)),
    ((2, 5, 6, 6), (7, 5, 1, 1), dict(stride=2, pad_mode="valid")),  # a ResNet shortcut
    ((3, 2, 8, 7), (4, 2, 2, 3), dict(stride=(1, 2), pad_mode="same", dilation=(2, 1))),
]


@pytest.mark.parametrize("layout", ["nkp", "knp"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", LOWERED_CASES)
def test_lowered_convolutions_in_either_column_layout_equal_the_numpy_implementation(case, dtype, layout,
                                                                                      n_threads, monkeypatch):
    """conv2d and both its gradients through graph lowering (columns per image, or the batch's
    columns with transposes around one product) against the ops' own numpy implementations."""
    from codegen import schedule_graph
    from graph.passes import lower
    monkeypatch.setattr(lower, "BATCH_COLUMNS_MIN_CHANNELS", 1 if layout == "knp" else 1 << 30)
    xs, ws, attrs = case
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    conv = REGISTRY["conv2d"]
    y = conv.impl(np, x, w, **conv.normalize(attrs))
    dout = rng.standard_normal(y.shape).astype(dtype)
    g = graph_of(lambda a, b, d: (F.conv2d(a, b, **attrs), F.conv2d_backprop_input(d, b, input_size=xs, **attrs),
                                  F.conv2d_backprop_filter(d, a, filter_size=ws, **attrs)),
                 (xs, dtype), (ws, dtype), (y.shape, dtype))
    compiled = compile_schedule(schedule_graph(g))
    text = compiled.describe()
    assert "native[llvm] conv_im2col" in text and "native[llvm] conv_col2im" in text, text
    assert ("native[llvm] transpose" in text) == (layout == "knp"), text
    got_y, got_dx, got_dw = compiled([x, w, dout])[0]
    dx_op, dw_op = REGISTRY["conv2d_backprop_input"], REGISTRY["conv2d_backprop_filter"]
    want_dx = dx_op.impl(np, dout, w, **dx_op.normalize(dict(attrs, input_size=xs)))
    want_dw = dw_op.impl(np, dout, x, **dw_op.normalize(dict(attrs, filter_size=ws)))
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got_y, y, rtol=tol, atol=tol)
    np.testing.assert_allclose(got_dx, want_dx, rtol=tol, atol=tol)
    np.testing.assert_allclose(got_dw, want_dw, rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (7, 5), (2, 4, 9), (1, 2, 1, 3)])
def test_batch_norm_kernel_equals_the_float64_formula_and_the_numpy_implementation(shape, dtype, training,
                                                                                   n_threads):
    rng = np.random.default_rng(12)
    c = shape[1]
    x = (rng.standard_normal(shape) * 3 + 5).astype(dtype)  # an offset mean: the centring matters
    gamma, beta, mmean = (rng.standard_normal(c).astype(dtype) for _ in range(3))
    mvar = (np.abs(rng.standard_normal(c)) + 0.5).astype(dtype)
    y, mean, var = _run_one(lambda *a: F.batch_norm(*a, training=training, eps=1e-3), [x, gamma, beta, mmean, mvar],
                            "batch_norm", every=True)
    # the oracle: the definition in float64
    axes = (0,) + tuple(range(2, len(shape)))
    view = (1, c) + (1,) * (len(shape) - 2)
    x64 = x.astype(np.float64)
    if training:
        m = x64.mean(axis=axes)
        v = ((x64 - m.reshape(view)) ** 2).mean(axis=axes)
        n = x.size // c
        want_mean, want_var = m, v * n / (n - 1)
    else:
        m, v = mmean.astype(np.float64), mvar.astype(np.float64)
        want_mean, want_var = m, v
    want_y = (x64 - m.reshape(view)) / np.sqrt(v.reshape(view) + 1e-3) * gamma.reshape(view) + beta.reshape(view)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y, want_y, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(mean, want_mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(var, want_var, rtol=tol, atol=tol)
    impl = REGISTRY["batch_norm"].impl(np, x, gamma, beta, mmean, mvar, training=training, eps=1e-3)
    for got, want in zip((y, mean, var), impl):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5, 10), (3, 4, 7), (1, 1)])
def test_softmax_rows_equal_the_numpy_implementation(shape, dtype, n_threads):
    x = np.random.default_rng(6).standard_normal(shape).astype(dtype) * 4
    x.flat[0] = 80.0  # a large logit: the max is subtracted first
    want = REGISTRY["softmax"].impl(np, x, axis=-1)
    got = _run_one(lambda v: F.softmax(v, axis=-1), [x], "softmax")
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.float32 else 1e-13, atol=1e-30)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_rows_at_the_edges_of_exp(dtype, n_threads):
    """Infinities, NaN, a row of -inf (NaN, as numpy), logits far apart (exp underflows to 0) and
    near float32's exp overflow: the inline float32 exp gives numpy's values and NaN pattern."""
    rows = np.array([[0, 1, 2, 3], [-np.inf, 0, 1, -np.inf], [-np.inf] * 4, [np.nan, 0, 1, 2], [np.inf, 0, 1, 2],
                     [1e30, -1e30, 0, 5], [-200, -100, -150, -90], [88, 89, 90, 80]], dtype)
    x = np.tile(rows, (3, 9))  # 36 columns: the vector loops and their remainders
    with np.errstate(invalid="ignore"):
        want = REGISTRY["softmax"].impl(np, x, axis=-1)
    got = _run_one(lambda v: F.softmax(v, axis=-1), [x], "softmax")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.float32 else 1e-13, atol=1e-30)


@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64])
def test_one_hot_equals_the_numpy_implementation(idx_dtype, n_threads):
    idx = np.array([[0, 3, 9], [2, -1, 10]], idx_dtype)  # out-of-range ids give a row of off_value
    attrs = dict(depth=10, on_value=0.9, off_value=0.1)
    want = REGISTRY["one_hot"].impl(np, idx, **REGISTRY["one_hot"].normalize(attrs))
    got = _run_one(lambda v: F.one_hot(v, **attrs), [idx], "one_hot")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_cross_entropy_equals_the_numpy_implementation_and_rejects_bad_labels(dtype):
    rng = np.random.default_rng(7)
    logits = (rng.standard_normal((9, 10)) * 5).astype(dtype)
    labels = rng.integers(0, 10, 9).astype(np.int32)
    op = REGISTRY["sparse_softmax_cross_entropy"]
    got = _run_one(lambda a, b: F.sparse_softmax_cross_entropy(a, b), [logits, labels], "sparse_softmax_cross_entropy")
    np.testing.assert_allclose(got, op.impl(np, logits, labels), rtol=2e-6 if dtype == np.float32 else 1e-13)
    # inside a run of kernels too: the flag is checked after the native call, the op's error raised
    g = graph_of(lambda a, b: F.mul(F.sparse_softmax_cross_entropy(F.mul(a, 2.0), b), 3.0),
                 (logits.shape, logits.dtype), (labels.shape, labels.dtype))
    compiled = compile_schedule(per_node(g))
    assert "kernels in one native call" in compiled.describe()
    for bad in (10, -1):
        wrong = labels.copy()
        wrong[4] = bad
        with pytest.raises(ValueError, match=r"sparse_softmax_cross_entropy.*labels must be in \[0, 10\)"):
            compiled([logits, wrong])
    np.testing.assert_allclose(compiled([logits, labels])[0][0], 3 * op.impl(np, 2 * logits, labels),
                               rtol=2e-6 if dtype == np.float32 else 1e-13)
