"""Bytecode shapes that differ between CPython 3.11, 3.12 and 3.13 (comprehension inlining with
LOAD_FAST_AND_CLEAR/SWAP, FOR_ITER/END_FOR, CALL_KW, LOAD_FAST_LOAD_FAST, MAKE_CELL/COPY_FREE_VARS
closures, LOAD_SUPER_ATTR, ...): each function is captured once and must equal PyNative on 3
inputs with no graph break."""
import numpy as np

import runtime as ms
from capture_helpers import randn
from runtime import Tensor, nn, ops


def one(rng, *shape):
    return lambda i: ((randn(rng, *shape),), {})


def test_comprehension_shadowing_and_restoring_a_local(check, rng):
    def f(x):
        v = x * 3  # the comprehension variable shadows this local; it must be restored after
        ys = [v * 2 for v in (x, x + 1)]
        zs = [[a * b for b in range(2)] for a in range(3) if a != 1]
        d = {k: v + k for k in range(2)}
        s = {n * 2 for n in range(3)}
        return v + ys[1] + sum(sum(r) for r in zs) + d[1] + len(s)

    check(f, one(rng, 3))


def test_comprehension_capturing_its_variable_in_a_closure(check, rng):
    def f(x):
        fns = [lambda t, k=k: t * k for k in range(3)]
        late = [lambda t: t + k for k in range(3)]  # late binding: every lambda sees k == 2
        return fns[2](x) + late[0](x) + sum(g(x) for g in fns)

    check(f, one(rng, 2))


def test_nested_closures_three_levels(check, rng):
    def f(x):
        a = 2.0

        def level1(y):
            b = y * a

            def level2(z):
                def level3(w):
                    return w + b + a
                return level3(z) * 2
            return level2(y)
        return level1(x)

    check(f, one(rng, 2))


def test_nonlocal_updates_are_seen_by_the_outer_frame(check, rng):
    def f(x):
        acc = x
        count = 0

        def add(v):
            nonlocal acc, count
            acc = acc + v
            count += 1

        for i in range(3):
            add(x * i)
        return acc * count

    check(f, one(rng, 2))


def test_for_else_while_true_and_nested_breaks(check, rng):
    def f(x):
        for i in range(3):
            if i == 10:
                break
        else:
            x = x + 1
        n = 0
        while True:
            n += 1
            if n >= 3:
                break
        for i in range(3):
            for j in range(3):
                if j == 1:
                    continue
                if i == 2:
                    break
                x = x + i * j
        return x * n

    check(f, one(rng, 2))


def test_loop_targets_unpacking_and_star(check, rng):
    def f(x):
        pairs = [((1, 2), 3), ((4, 5), 6)]
        out = x
        for (a, b), c in pairs:
            out = out + a * b - c
        first, *middle, last = range(5)
        head, *tail = (x, x * 2, x * 3)
        return out + first + last + len(middle) + tail[-1] + head

    check(f, one(rng, 2))


def test_walrus_ternary_and_boolean_operators(check, rng):
    def f(x, flag=True, k=None):
        if (n := x.shape[0]) > 1:
            x = x * n
        y = x if flag else -x
        z = k or 3
        w = (k is None) and 5
        return y + z + w, n

    check(f, one(rng, 3))


def test_call_forms(check, rng):
    def g(a, b=1.0, *rest, c=2.0, **kw):
        out = a * b + c
        for r in rest:
            out = out + r
        for k in kw:
            out = out * kw[k]
        return out

    def f(x):
        args = (x, 2.0)
        kwargs = {"c": 3.0, "scale": 0.5}
        return (g(x) + g(x, 3.0) + g(x, c=1.0) + g(*args) + g(*args, **kwargs) + g(x, 1.0, x, x, c=0.0)
                + g(a=x, b=2.0) + ops.reduce_sum(x, axis=0, keep_dims=True) + ops.reduce_sum(*(x,), **{"axis": 0}))

    check(f, one(rng, 2, 2))


def test_method_calls_with_kwargs_and_bound_methods_as_values(check, rng):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def part(self, x, *, scale=1.0, shift=0.0):
            return self.fc(x) * scale + shift

        def construct(self, x):
            fn = self.part
            a = fn(x, scale=2.0)
            b = self.part(x, shift=1.0, scale=0.5)
            c = getattr(self, "part")(x)
            return a + b + c

    check(Net(), one(rng, 3, 2))


def test_super_in_construct_and_helpers(check, rng):
    class Base(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def transform(self, x):
            return self.fc(x)

        def construct(self, x):
            return self.transform(x)

    class Mid(Base):
        def transform(self, x):
            return super().transform(x) * 2

    class Leaf(Mid):
        def transform(self, x):
            return ops.relu(super().transform(x))

        def construct(self, x):
            return super().construct(x) + super(Mid, self).transform(x)

    check(Leaf(), one(rng, 3, 2))


def test_properties_are_traced_not_evaluated(rng):
    """A property computing from Parameters must be inlined: evaluating it at trace time would
    bake a stale tensor into the graph."""
    import capture

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(np.ones(2, np.float32)), name="w")

        @property
        def scaled(self):
            return self.w * 2

        def construct(self, x):
            return x * self.scaled

    net = Net()
    backend = capture.CountingBackend()
    jnet = capture.jit(net, backend=backend)
    x = randn(rng, 2)
    np.testing.assert_allclose(jnet(x).asnumpy(), x.asnumpy() * 2)
    net.w.set_data(Tensor(np.full(2, 3.0, np.float32)))
    np.testing.assert_allclose(jnet(x).asnumpy(), x.asnumpy() * 6)
    assert backend.graph_count == 1


def test_numpy_scalars_ufuncs_and_math_on_constants(check, rng):
    def f(x):
        k = np.sqrt(4.0) + np.float32(0.5) + math_pi()
        return x * float(k) + np.pi

    check(f, one(rng, 2))


def math_pi():
    import math
    return math.pi


def test_tensor_indexing_forms(check, rng):
    def f(x, idx):
        return (x[0], x[-1, 1:], x[:, None, 2], x[..., 0], x[1:3:1, ::-1], x[idx], x[(0, 1)],
                x[x.shape[0] - 1])

    check(f, lambda i: ((randn(rng, 4, 3), Tensor(np.array([2, 0], np.int32))), {}))


def test_long_loops_are_unrolled(check, rng):
    def f(x):
        for i in range(200):
            x = x + 0.001 * i
        return x

    backend = check(f, one(rng, 2))
    assert backend.op_counts == [200]


def test_exception_table_of_with_in_an_inlined_helper_is_not_used(check, rng):
    """try/finally in a helper: the normal path is traced."""
    def helper(x):
        try:
            return x * 2
        finally:
            pass

    def f(x):
        return helper(x) + 1

    check(f, one(rng, 2))


def test_python_values_built_at_trace_time_are_mutable(check, rng):
    import functools

    def scale(x, k, shift=0.0):
        return x * k + shift

    def f(x):
        buf = [0.0] * 3
        buf[1] = 2.0
        buf.append(1.0)
        names = "a,b,c".split(",")
        twice = functools.partial(scale, k=2.0)
        parts = sorted({"b": 1, "a": 2}.items())
        return twice(x, shift=buf[1]) + len(names) + sum(buf) + parts[0][1] + "abc".upper().count("B")

    check(f, one(rng, 2))


def test_jitted_sub_cell_is_inlined_into_the_outer_graph(rng):
    import capture
    from capture.explain import recording

    class Sub(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        @ms.jit
        def construct(self, x):
            return ops.relu(self.fc(x))

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sub = Sub()

        def construct(self, x):
            return self.sub(x) * 2

    net = Outer()
    ms.set_context(mode=ms.GRAPH_MODE)
    with recording() as report:
        for _ in range(3):
            x = randn(rng, 3, 2)
            got = net(x)
            ms.set_context(mode=ms.PYNATIVE_MODE)
            np.testing.assert_allclose(got.asnumpy(), net.construct(x).asnumpy(), rtol=1e-6)
            ms.set_context(mode=ms.GRAPH_MODE)
    assert report.graph_count <= 2 and report.breaks == []
    assert report.compiles[0].frame == "Outer.construct" and report.ops_per_graph[0] == 4
    capture
