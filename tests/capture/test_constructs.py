"""Every construct the translator supports: results equal PyNative on 3 different inputs with
exactly one compile (the counting backend sees one graph, later calls hit the cache) and no
graph break (``fullgraph=True``)."""
import math

import numpy as np
import pytest

import capture
import runtime as ms
from capture_helpers import assert_same, randn
from runtime import Tensor, nn, ops

SCALE = 3.0
OFFSETS = (1.0, 2.0, 0.5)
CONFIG = {"depth": 2, "act": "relu"}
GLOBAL_MATMUL = ops.MatMul(transpose_b=True)


def global_helper(x, k):
    return x * k + SCALE


def args_fn(rng, *shapes, **kw):
    """make_args for check(): fresh random tensors of ``shapes`` on every call."""
    def make(i):
        return tuple(randn(rng, *s) for s in shapes), dict(kw)
    return make


# -- locals, constants, globals, builtins ----------------------------------------------------------------
def test_locals_and_constants(check, rng):
    def f(x, y):
        a = 2.0
        b = x * a - y
        c = b / 4 + 1
        d, e = c, b
        del a
        return d * e - 0.5

    check(f, args_fn(rng, (3, 4), (3, 4)))


def test_globals_and_builtins(check, rng):
    def f(x):
        n = len(OFFSETS)
        total = sum(OFFSETS)
        m = max(2, n) + min(n, 1) + abs(-2) + round(2.6) + int(3.7) + int(float("1.5"))
        y = global_helper(x, float(m))
        return y + total / n + math.sqrt(4.0) + CONFIG["depth"]

    check(f, args_fn(rng, (2, 3)))


def test_python_number_arithmetic_and_comparisons(check, rng):
    def f(x):
        n = x.shape[0]
        k = (n * 3 + 1) // 2 % 5 - n ** 2
        r = n / 4
        flags = (n > 1, n >= 5, n < 10, n <= 1, n == 4, n != 4, 1 < n < 10, not n, -n, ~n)
        y = x * k + r
        if flags[0] and not flags[1] or flags[3]:
            y = y + 1
        if n in (1, 4, 7) and "a" not in "bcd" and k is not None:
            y = y * 2
        return y, k, flags

    check(f, args_fn(rng, (4, 2)))


# -- attributes on self --------------------------------------------------------------------------------
class AttrNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3)
        self.w = ms.Parameter(Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)), name="w")
        self.alpha = 0.25
        self.use_bias = True
        self.names = ("a", "b")
        self.held = Tensor(np.arange(3, dtype=np.float32))

    def construct(self, x):
        y = self.dense(x) + ops.matmul(x, self.w.T) * self.alpha
        if self.use_bias:
            y = y + self.held
        if self.training:
            y = y * 2
        return y, len(self.names)


@pytest.mark.parametrize("training", [False, True])
def test_attribute_loads_on_self(check, rng, training):
    net = AttrNet().set_train(training)
    check(net, args_fn(rng, (2, 4)))


class Inner(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.fc = nn.Dense(k, k)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.fc(x)) + x


class Middle(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Inner(4)
        self.b = Inner(4)

    def construct(self, x):
        return self.b(self.a(x))


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = Middle()
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        return self.head(self.m(x))


def test_inlining_nested_sub_cells(check, rng):
    net = Outer()
    backend = check(net, args_fn(rng, (3, 4)))
    # everything inlined into one graph: 3 Dense (matmul + bias_add) + 2 (relu, add)
    assert backend.op_counts == [3 * 2 + 2 * 2]
    assert len(backend.graphs[0].params) == 6


# -- functions, methods, closures, lambdas --------------------------------------------------------------
def make_scaler(k):
    def scale(x):
        return x * k
    return scale


SCALER = make_scaler(1.5)


class MethodNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)
        self.k = 2.0

    def helper(self, x, shift=1.0):
        return self.fc(x) * self.k + shift

    @staticmethod
    def static_part(x):
        return x - 1

    @classmethod
    def class_part(cls, x):
        return x * cls.FACTOR

    FACTOR = 0.5

    def construct(self, x):
        y = self.helper(x) + self.helper(x, shift=2.0)
        return self.class_part(self.static_part(y))


def test_user_functions_and_methods(check, rng):
    check(MethodNet(), args_fn(rng, (2, 3)))


def test_closures_nested_functions_and_lambdas(check, rng):
    def f(x, y):
        k = 2.0
        t = x + 1

        def inner(z, w=3.0):
            return z * k + t * w  # reads a Python free variable and a tensor free variable

        def counter():
            nonlocal k
            k = k + 1.0
            return k

        sq = lambda v: v * v
        apply = lambda g, v: g(v)
        c = counter()
        return inner(y) + apply(sq, y) + SCALER(x) + c

    check(f, args_fn(rng, (2, 2), (2, 2)))


def test_closure_of_the_captured_function(check, rng):
    bias = 0.75
    w = Tensor(np.full((3,), 2.0, np.float32))

    def f(x):
        return x * w + bias

    check(f, args_fn(rng, (2, 3)))


def test_super_calls(check, rng):
    class Base(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 3)

        def construct(self, x):
            return self.fc(x)

    class Child(Base):
        def construct(self, x):
            y = super().construct(x)
            z = super(Child, self).construct(y)
            return ops.relu(z)

    check(Child(), args_fn(rng, (2, 3)))


# -- tensor operators, ops.*, Primitives ---------------------------------------------------------------------
def test_tensor_operators(check, rng):
    def f(x, y, w):
        a = x + y - x * y / (abs(y) + 1)
        b = -a ** 2 + (x @ w).sum() + 2 ** abs(x) * 0.1
        c = (x > y).astype(ms.float32) + (x <= 0.5).astype(ms.float32) - (x == x).astype(ms.float32)
        d = x[0] + x[:, 1:2].sum() + x[-1, ::2].mean() + x[None, 1].reshape(3)[0]
        e = x.T @ y + abs(w).max() + x.exp().log().abs().sqrt().mean(axis=0, keep_dims=True)
        return a + b + c, d, e, 1.0 - x, 2.0 / (abs(x) + 1), x.shape, x.ndim, x.dtype

    def make(i):
        return (randn(rng, 2, 3), randn(rng, 2, 3), randn(rng, 3, 2)), {}

    check(f, make)


def test_ops_functional_calls(check, rng):
    def f(x, w):
        y = ops.matmul(x, w)
        y = ops.relu(y) + ops.sigmoid(y) * ops.tanh(y)
        s = ops.reduce_sum(y, 1) + ops.reduce_mean(y, axis=1)
        z = ops.softmax(y, axis=-1)
        c = ops.concat((y, z), axis=1)
        r = ops.reshape(c, (-1,))
        return ops.maximum(s, 0.0), ops.exp(r) * 0.01, ops.transpose(c, (1, 0)), ops.square(x)

    check(f, args_fn(rng, (3, 4), (4, 5)))


class PrimNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul(transpose_b=True)
        self.rsum = ops.ReduceSum(keep_dims=True)
        self.relu = ops.ReLU()
        self.w = ms.Parameter(Tensor(np.ones((5, 4), np.float32) * 0.1), name="w")

    def construct(self, x):
        y = self.relu(self.matmul(x, self.w))
        s = self.rsum(y, 1)
        t = ops.ReduceSum(keep_dims=False)(y, 0)  # a Primitive built inside construct
        return y - s, t, GLOBAL_MATMUL(x, x)


def test_primitive_instances(check, rng):
    backend = check(PrimNet(), args_fn(rng, (3, 4)))
    names = [n.op.name for n in backend.graphs[0].nodes]
    assert names.count("matmul") == 2 and "reduce_sum" in names
    matmuls = [n for n in backend.graphs[0].nodes if n.op.name == "matmul"]
    assert all(n.attrs["transpose_b"] for n in matmuls)


# -- control flow on Python values ---------------------------------------------------------------------------
class Blocks(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4) for _ in range(3)])
        self.seq = nn.SequentialCell([nn.Dense(4, 4), nn.ReLU(), nn.Dense(4, 4)])
        self.scales = [0.5, 1.0, 2.0]

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        for i, layer in enumerate(self.layers):
            x = x + layer(x) * self.scales[i]
        for layer, s in zip(self.layers, self.scales):
            x = layer(x) * s
        x = self.seq(x)
        for cell in self.seq:
            x = cell(x)
        x = self.layers[0](x) + self.seq[-1](x)
        return x, len(self.layers)


def test_loops_over_cell_containers(check, rng):
    check(Blocks(), args_fn(rng, (2, 4)))


def test_if_while_for_on_python_values(check, rng):
    def f(x, n, mode="sum"):
        acc = x
        i = 0
        while i < n:
            acc = acc + i
            i += 1
            if i == 2:
                continue
            if i > 10:
                break
        else:
            acc = acc * 1.5
        for k in range(1, n, 2):
            acc = acc - k
        for a, b in zip([1.0, 2.0], (3.0, 4.0)):
            acc = acc * a + b
        for j, v in enumerate((0.1, 0.2), start=1):
            acc = acc + v * j
        for v in reversed([1, 2]):
            acc = acc - v
        if mode == "sum":
            out = acc.sum()
        elif mode == "mean":
            out = acc.mean()
        else:
            out = acc
        r = acc if n > 2 else x
        return out, r, i

    def make(i):
        return (randn(rng, 3, 2), 4), {"mode": "sum"}

    check(f, make)


def test_loop_with_break_in_nested_loop_and_try_free_code(check, rng):
    def f(x):
        total = x
        for i in range(4):
            for j in range(4):
                if j > i:
                    break
                total = total + (i * j)
        return total

    check(f, args_fn(rng, (2,)))


# -- containers ----------------------------------------------------------------------------------------------
def test_tuple_list_dict_build_unpack_subscript(check, rng):
    def f(x, y):
        t = (x, y, 3)
        lst = [x * 2, y]
        lst.append(x + y)
        lst[1] = y * 3
        d = {"x": x, "y": y}
        d["z"] = x - y
        a, *rest = lst
        first, (second, third) = t[0], t[1:]
        sq = [v * v for v in lst]
        doubled = {k: v * 2 for k, v in d.items()}
        kv = dict(a=x, b=y)
        tot = sum(v.sum() for v in sq)
        pairs = tuple(v + 1 for v in (x, y))
        return (a + rest[0] + rest[-1] + first + second * third + doubled["z"] + kv["b"] + tot
                + pairs[1], list(d.keys()), len(d), d.get("missing", 7), t[2], sq[0], [x, {"k": y}])

    check(f, args_fn(rng, (2, 3), (2, 3)))


def test_len_isinstance_getattr_shape(check, rng):
    class Holder:
        factor = 2.0

    holder = Holder()

    def f(x, items):
        n = len(items) + len(x) + x.shape[1] + x.shape[-1] + x.ndim + x.size
        y = x * getattr(holder, "factor") + getattr(holder, "missing", 1.0)
        if isinstance(x, Tensor) and isinstance(n, int) and not isinstance(items, dict):
            y = y + n
        if isinstance(items, (list, tuple)) and hasattr(holder, "factor"):
            y = y * 2
        b, c = x.shape
        return y.reshape(c, b), type(n) is int

    def make(i):
        return (randn(rng, 2, 3), [1, 2]), {}

    check(f, make)


# -- returns, kwargs, defaults -----------------------------------------------------------------------------
def test_returns_of_tensors_tuples_dicts_python_values(check, rng):
    def f(x):
        return {"out": x * 2, "pair": (x + 1, [x - 1]), "n": x.shape[0], "s": "ok", "none": None}

    check(f, args_fn(rng, (3,)))


def test_return_python_value_only(check, rng):
    def f(x):
        return x.shape[0] * 2

    def make(i):
        return (randn(rng, 3),), {}

    backend = check(f, make)
    assert backend.op_counts == [0]


def test_kwargs_and_defaults_of_the_root_frame(check, rng):
    def f(x, y=None, *, scale=2.0, shift=0.0):
        out = x * scale + shift
        if y is not None:
            out = out + y
        return out

    x, y = randn(rng, 2), randn(rng, 2)
    check(f, lambda i: ((randn(rng, 2),), {"scale": 3.0}))
    capture.reset()
    check(f, lambda i: ((randn(rng, 2),), {"y": randn(rng, 2), "shift": 1.0}))
    capture.reset()
    check(f, lambda i: ((randn(rng, 2), randn(rng, 2)), {}))
    x
    y


def test_varargs_and_varkw(check, rng):
    def inner(*xs, **kw):
        out = xs[0]
        for v in xs[1:]:
            out = out + v
        for k in sorted(kw):
            out = out * kw[k]
        return out

    def f(x, *rest, **opts):
        return inner(x, *rest, **opts) + inner(*rest, scale=opts.get("scale", 1.0))

    check(f, lambda i: ((randn(rng, 2), randn(rng, 2), randn(rng, 2)), {"scale": 0.5, "mul": 2.0}))


def test_kwargs_to_inlined_calls_and_ops(check, rng):
    def helper(x, *, k=1.0, axis=0):
        return ops.reduce_sum(x * k, axis=axis)

    def f(x):
        return helper(x, k=2.0, axis=1) + helper(x, axis=1) + ops.reduce_mean(x, axis=1, keep_dims=False)

    check(f, args_fn(rng, (3, 4)))


def test_string_formatting_of_python_values(check, rng):
    def f(x):
        n = x.shape[0]
        key = f"n={n:03d}|{n!r}|{'a'}"
        table = {"n=003|3|a": 1.0}
        return x * table.get(key, 5.0), key

    check(f, args_fn(rng, (3,)))


def test_assert_on_python_values(check, rng):
    def f(x):
        assert x.shape[0] == 3, "bad shape"
        return x + 1

    check(f, args_fn(rng, (3,)))


def test_same_tensor_identity_and_is(check, rng):
    def f(x, y):
        z = x
        out = x * 2
        if z is x and y is not x:
            out = out + y
        return out, out is not None

    check(f, args_fn(rng, (2,), (2,)))


def test_outputs_alias_inputs(check, rng):
    def f(x, y):
        return x, (y, x * 1)

    check(f, args_fn(rng, (2,), (2,)))


def test_dtype_and_cast(check, rng):
    def f(x):
        y = ops.cast(x, ms.float64)
        z = x.astype(ms.int32)
        return y * 2, z, y.dtype == ms.float64

    check(f, args_fn(rng, (2, 2)))


def test_many_calls_hit_one_entry(rng):
    backend = capture.CountingBackend()

    @capture.jit(backend=backend)
    def f(x):
        return ops.relu(x) * 2

    for _ in range(10):
        x = randn(rng, 4)
        assert_same(f(x), ops.relu(x) * 2)
    assert backend.graph_count == 1
    entry = capture.cache.cache_for(f.__wrapped_jit__.__code__).entries[0]
    assert entry.hits == 9


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_numpy_scalars_keep_their_dtype_like_pynative(check, dtype):
    def f(x):
        return x * np.float64(2.0) + np.int64(1) + np.float32(1.5) + 2

    check(f, lambda i: ((Tensor((np.arange(3) + i).astype(dtype)),), {}))


def test_tensors_built_from_python_values_are_graph_constants(check, rng):
    def f(x):
        w = Tensor(np.ones((2, 3), np.float32))
        z = ops.zeros((2, 3)) + ops.ones((2, 3), ms.float32)
        return x * w + z, Tensor([1.0, 2.0]), ops.fill(ms.float32, (2,), 3.0)

    backend = check(f, args_fn(rng, (2, 3)))
    g = backend.graphs[0]
    assert len(g.consts) >= 3 and all(v.kind == "input" for v in g.inputs) and len(g.inputs) == 1
    jf = capture.jit(f)
    x = randn(rng, 2, 3)
    a, b = jf(x)[1], jf(x)[1]
    assert a is not b and a._data is not b._data  # each call returns its own constant tensor
