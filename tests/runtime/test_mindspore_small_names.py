"""The smaller MindSpore 2.x names of issue 40 (sections 9 and 10): conversions, Primitive-class
spellings (against numpy formulas), logsumexp keywords, stop_gradient on tuples, ops.partial
keywords, Cell.param_prefix, RowTensor, opt_init_args_register, boost.GradientAccumulation,
Python numbers assigned to Parameters in graph mode, and grad at a non-Tensor position."""
import numpy as np
import pytest

import runtime as ms
from runtime import Parameter, Tensor, nn, ops
from runtime.ops import functional as F
from modes import MODES, run_fn

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)
Y = (RNG.random((3, 4)) + 0.5).astype(np.float32)


def test_conversions():
    assert ops.scalar_to_array(1.0).dtype == ms.float32 and float(ops.scalar_to_array(1.0).asnumpy()) == 1.0
    assert ops.scalar_to_array(3).dtype == ms.int64
    assert ops.scalar_to_tensor(1, ms.float32).asnumpy().tolist() == 1.0
    t = ops.tuple_to_array((1, 2, 3))
    assert t.dtype == ms.int64 and t.asnumpy().tolist() == [1, 2, 3]
    assert ops.tuple_to_array((1.5, 2)).dtype == ms.float32
    assert ops.TupleToArray()((1, 2, 3)).asnumpy().tolist() == [1, 2, 3]
    assert F.dtype(Tensor(X)) == ms.float32 and ops.DType()(Tensor([1])) == ms.int64
    assert ops.TensorShape()(Tensor(X)).asnumpy().tolist() == [3, 4]
    with pytest.raises(TypeError):
        ops.scalar_to_array("1")
    with pytest.raises(ValueError):
        ops.tuple_to_array(())


@pytest.mark.parametrize("mode", MODES)
def test_logsumexp_keywords(mode):
    want = np.log(np.exp(X.astype(np.float64)).sum(1, keepdims=True))
    for call in (lambda x: ops.logsumexp(x, dim=1, keepdim=True), lambda x: ops.logsumexp(x, 1, True),
                 lambda x: ops.logsumexp(x, axis=1, keep_dims=True)):
        np.testing.assert_allclose(run_fn(mode, call, Tensor(X)).asnumpy(), want, rtol=1e-5)
    with pytest.raises(TypeError, match="not both"):
        ops.logsumexp(Tensor(X), axis=1, dim=1)


# (Primitive, attributes, inputs, numpy formula)
PRIMS = [
    ("ReLU6", {}, [X * 5], lambda x: np.clip(x, 0, 6)),
    ("Elu", {"alpha": 0.5}, [X], lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1))),
    ("CeLU", {"alpha": 2.0}, [X], lambda x: np.maximum(x, 0) + np.minimum(0, 2 * (np.exp(x / 2) - 1))),
    ("Softsign", {}, [X], lambda x: x / (1 + np.abs(x))),
    ("FastGeLU", {}, [X], lambda x: x / (1 + np.exp(-1.702 * x))),
    ("HShrink", {"lambd": 0.5}, [X], lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ("SoftShrink", {"lambd": 0.5}, [X], lambda x: np.where(np.abs(x) > 0.5, x - np.sign(x) * 0.5, 0)),
    ("Flatten", {}, [X.reshape(3, 2, 2)], lambda x: x.reshape(3, -1)),
    ("L2Normalize", {"axis": 1}, [X], lambda x: x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True), 1e-4))),
    ("L2Loss", {}, [X], lambda x: (x * x).sum() / 2),
    ("Tan", {}, [X * 0.5], np.tan), ("Sinh", {}, [X], np.sinh), ("Cosh", {}, [X], np.cosh),
    ("Asinh", {}, [X], np.arcsinh), ("Acosh", {}, [Y + 1], np.arccosh), ("Atanh", {}, [X * 0.3], np.arctanh),
    ("Expm1", {}, [X], np.expm1), ("Inv", {}, [Y], lambda y: 1 / y),
    ("RealDiv", {}, [X, Y], np.divide), ("FloorMod", {}, [X * 3, Y], np.mod),
    ("TruncateDiv", {}, [X * 3, Y], lambda a, b: np.trunc(a / b)), ("TruncateMod", {}, [X * 3, Y], np.fmod),
    ("SquaredDifference", {}, [X, Y], lambda a, b: (a - b) ** 2),
    ("DivNoNan", {}, [X, np.where(X > 0, Y, 0).astype(np.float32)],
     lambda a, b: np.where(b == 0, 0, a / np.where(b == 0, 1, b))),
    ("MulNoNan", {}, [X, np.where(X > 0, Y, 0).astype(np.float32)], lambda a, b: a * b),
    ("Xlogy", {}, [np.where(X > 0, X, 0).astype(np.float32), Y], lambda a, b: np.where(a == 0, 0, a * np.log(b))),
    ("Xdivy", {}, [np.where(X > 0, X, 0).astype(np.float32), Y], lambda a, b: a / b),
    ("Lerp", {}, [X, Y, Y * 0.3], lambda s, e, w: s + w * (e - s)),
    ("Addcmul", {}, [X, Y, X, Y[0:1, 0:1]], lambda x, a, b, v: x + v * a * b),
    ("Addcdiv", {}, [X, X, Y, Y[0:1, 0:1]], lambda x, a, b, v: x + v * a / b),
    ("Logit", {"eps": 0.1}, [Y / 2], lambda p: np.log(np.clip(p, 0.1, 0.9) / (1 - np.clip(p, 0.1, 0.9)))),
    ("Rint", {}, [X * 3], np.rint), ("Trunc", {}, [X * 3], np.trunc), ("Hypot", {}, [X, Y], np.hypot),
    ("ReduceAll", {"keep_dims": True}, [X > -1], lambda b: b.all(keepdims=True)),
    ("ReduceAny", {}, [X > 1], lambda b: b.any()),
    ("EuclideanNorm", {}, [X, (1,)], lambda x, a: np.sqrt((x * x).sum(1))),
    ("Erfc", {}, [X], lambda x: 1 - np.vectorize(__import__("math").erf)(x)),
    ("Trace", {}, [X[:3, :3]], np.trace), ("Tril", {"diagonal": -1}, [X], lambda x: np.tril(x, -1)),
    ("Triu", {"diagonal": 1}, [X], lambda x: np.triu(x, 1)), ("Roll", {"shift": 2, "axis": 1}, [X],
                                                                lambda x: np.roll(x, 2, 1)),
    ("MatrixPower", {"n": 3}, [X[:3, :3]], lambda m: np.linalg.matrix_power(m, 3)),
    ("ReverseV2", {"axis": (0, 1)}, [X], lambda x: x[::-1, ::-1]),
]


@pytest.mark.parametrize("name,attrs,inputs,formula", PRIMS, ids=[p[0] for p in PRIMS])
def test_primitive_spellings(name, attrs, inputs, formula):
    prim = getattr(ops, name)(**attrs)
    args = [Tensor(a) if isinstance(a, np.ndarray) else a for a in inputs]
    got = prim(*args)
    want = formula(*[a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32 else a
                     for a in inputs])
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want, rtol=1e-5, atol=1e-5)
    # and equal in graph mode
    if all(isinstance(a, Tensor) for a in args):
        np.testing.assert_allclose(run_fn("jit", lambda *t: getattr(ops, name)(**attrs)(*t), *args).asnumpy(),
                                   got.asnumpy(), rtol=1e-5, atol=1e-6)


def test_multi_output_and_creation_primitives():
    idx, val = ops.ArgMaxWithValue(axis=1, keep_dims=False)(Tensor(X))
    assert idx.asnumpy().tolist() == X.argmax(1).tolist() and np.allclose(val.asnumpy(), X.max(1))
    idx, val = ops.ArgMinWithValue(axis=0)(Tensor(X))
    assert idx.asnumpy().tolist() == X.argmin(0).tolist()
    std, mean = ops.ReduceStd(axis=1, unbiased=True)(Tensor(X))
    np.testing.assert_allclose(std.asnumpy(), X.std(1, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), X.mean(1), rtol=1e-5)
    a, b = ops.SquareSumAll()(Tensor(X), Tensor(Y))
    np.testing.assert_allclose([a.asnumpy(), b.asnumpy()], [(X * X).sum(), (Y * Y).sum()], rtol=1e-5)
    assert ops.Zeros()((2, 3), ms.float32).asnumpy().tolist() == [[0.0] * 3] * 2
    assert ops.Ones()((2,), ms.int32).dtype == ms.int32
    assert ops.Eye()(2, 3, ms.float32).asnumpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    assert ops.Fill()(ms.float32, (2,), 7.0).asnumpy().tolist() == [7.0, 7.0]
    assert ops.LinSpace()(Tensor(1.0), Tensor(10.0), 4).asnumpy().tolist() == [1.0, 4.0, 7.0, 10.0]
    assert ops.Range()(Tensor(0), Tensor(10), Tensor(4)).asnumpy().tolist() == [0, 4, 8]
    assert ops.Rank()(Tensor(X)) == 2 and ops.Size()(Tensor(X)) == 12
    assert ops.ScalarCast()(2.7, ms.int32) == 2
    g = ops.Meshgrid(indexing="ij")((Tensor([1, 2]), Tensor([3, 4, 5])))
    assert g[0].shape == (2, 3)
    assert ops.Diag()(Tensor([1.0, 2.0])).asnumpy().tolist() == [[1, 0], [0, 2]]
    d = ops.Diag()(Tensor(X[:2, :2]))
    assert d.shape == (2, 2, 2, 2) and d.asnumpy()[1, 0, 1, 0] == X[1, 0] and d.asnumpy()[1, 0, 0, 1] == 0


@pytest.mark.parametrize("mode", MODES)
def test_float_status(mode):
    ok = run_fn(mode, lambda x: ops.FloatStatus()(x), Tensor(X))
    bad = run_fn(mode, lambda x: ops.FloatStatus()(x / 0.0), Tensor(X))
    assert ok.shape == (1,) and ok.asnumpy().tolist() == [0.0] and bad.asnumpy().tolist() == [1.0]


@pytest.mark.parametrize("mode", MODES)
def test_stop_gradient_on_a_tuple_and_partial_keywords(mode):
    def f(x):
        a, b = ops.stop_gradient((x * x, x * 3))
        return (a * x + b).sum()
    g = run_fn(mode, ms.grad(f), Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), X * X, rtol=1e-6)  # only the unstopped factor x
    scaled = run_fn(mode, lambda x: ops.partial(lambda a, k=1.0: a * k, k=3.0)(x), Tensor(X))
    np.testing.assert_allclose(scaled.asnumpy(), X * 3.0)
    assert ops.Partial()(lambda a, b: a - b, b=1.0)(Tensor(X)).asnumpy().tolist() == (X - 1.0).tolist()


def test_grad_at_a_non_tensor_position_is_empty():
    g = ms.grad(lambda x, n: (x * n).sum(), grad_position=(0, 1))(Tensor(X), 2)
    assert isinstance(g, tuple) and g[1] == () and np.allclose(g[0].asnumpy(), 2.0)
    assert ms.grad(lambda x, n: (x * n).sum(), grad_position=1)(Tensor(X), 2) == ()


def test_cell_param_prefix():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(2, 2)
            self.seq = nn.SequentialCell([nn.Dense(2, 2)])

        def construct(self, x):
            return self.seq(self.dense(x))
    net = Net()
    assert net.dense.param_prefix == ""
    net.update_cell_prefix()
    assert net.dense.param_prefix == "dense" and net.seq.param_prefix == "seq"
    assert net.seq[0].param_prefix == "seq.0"


def test_python_number_assigned_to_a_parameter_in_graph_mode():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = Parameter(Tensor(np.zeros(3, np.float32)), name="w")

        def construct(self, x):
            self.weight = 2
            return x * self.weight

    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = net(Tensor(np.ones(3, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert out.asnumpy().tolist() == [2.0] * 3 and net.weight.asnumpy().tolist() == [2.0] * 3
    assert isinstance(net.weight, Parameter)
    with pytest.raises(TypeError, match="holds a Parameter"):  # PyNative refuses it, as MindSpore does
        net(Tensor(np.ones(3, np.float32)))


def test_row_tensor():
    x = ms.RowTensor(Tensor([0]), Tensor([[1, 2]], dtype=ms.float32), (3, 2))
    assert x.values.asnumpy().tolist() == [[1.0, 2.0]] and x.indices.asnumpy().tolist() == [0]
    assert x.dense_shape == (3, 2)
    assert x.to_dense().asnumpy().tolist() == [[1, 2], [0, 0], [0, 0]]
    y = ms.RowTensor(row_tensor=x)
    assert y.dense_shape == (3, 2)
    with pytest.raises(ValueError):
        ms.RowTensor(Tensor([0]), Tensor([[1.0, 2.0]]), (3, 3))


def test_opt_init_args_register():
    from runtime.nn.optim.optimizer import opt_init_args_register

    class MyOpt(nn.Optimizer):
        @opt_init_args_register
        def __init__(self, params, learning_rate=0.1, momentum=0.9):
            super().__init__(learning_rate, params)
            self.momentum = momentum

        def construct(self, grads):
            return grads
    net = nn.Dense(2, 2)
    opt = MyOpt(net.trainable_params(), learning_rate=Tensor([0.5]))
    assert opt.init_args == {"learning_rate": [0.5], "momentum": 0.9}
    assert len(opt.init_params["params"]) == 2
    assert nn.opt_init_args_register is opt_init_args_register


def test_boost_gradient_accumulation_equals_the_mean_gradient_step():
    from runtime.boost import GradientAccumulation
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    w0, b0 = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    acc = GradientAccumulation(3, nn.SGD(net.trainable_params(), learning_rate=0.5))
    grad_fn = ms.value_and_grad(lambda x: (net(x) ** 2).sum(), None, net.trainable_params())
    batches = [Tensor(RNG.standard_normal((2, 3)).astype(np.float32)) for _ in range(3)]
    grads = [grad_fn(b)[1] for b in batches]  # all at w0: the parameters change only at step 3
    for b, g in zip(batches[:2], grads[:2]):
        acc(Tensor(1.0), g)
        assert np.array_equal(net.weight.asnumpy(), w0)
    acc(Tensor(1.0), grads[2])
    mean_w = sum(g[0].asnumpy() for g in grads) / 3
    mean_b = sum(g[1].asnumpy() for g in grads) / 3
    np.testing.assert_allclose(net.weight.asnumpy(), w0 - 0.5 * mean_w, rtol=1e-5)
    np.testing.assert_allclose(net.bias.asnumpy(), b0 - 0.5 * mean_b, rtol=1e-5)
    assert int(acc._accumulation_step.asnumpy()) == 0
    assert np.all(acc._grad_accumulation[0].asnumpy() == 0)


@pytest.mark.parametrize("mode", MODES)
def test_generated_functions_take_mindsporess_parameter_names(mode):
    a, b = Tensor(X), Tensor(Y)
    got = run_fn(mode, lambda p, q: ops.add(input=p, other=q) + ops.pow(input=q, exponent=2.0)
                 + ops.mul(input=p, other=q) - ops.sub(input=p, other=q) + ops.exp(input=p)
                 + ops.where(condition=p > 0, input=p, other=q) + ops.maximum(input=p, other=q), a, b)
    want = X + Y + Y ** 2 + X * Y - (X - Y) + np.exp(X) + np.where(X > 0, X, Y) + np.maximum(X, Y)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)
    assert ops.matmul(input=a, other=ops.transpose(b, (1, 0))).shape == (3, 3)
