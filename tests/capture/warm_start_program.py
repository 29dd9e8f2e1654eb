"""The program of the cross-process warm-start suite (tests/capture/test_warm_start_cross_process.py).

Run as ``python warm_start_program.py VARIANT`` (0: process A's world, 1: process B's). Each
*kind* below builds a small computation whose meaning depends on one thing that differs between
A and B (an array's contents, a monkeypatched framework function, which sub-Cell runs in float16,
two objects being one, a framework file...), runs it compiled (``ms.jit`` or GRAPH_MODE) and
eagerly (PyNative, the oracle), and the program prints every kind's two results as JSON, with
the disk caches' hit counts. Kinds run one after another in one process; each builds its own
objects, and a kind that patches something undoes it.

Not a test module (no ``test_`` prefix): the test launches it.
"""
import functools
import json
import os
import sys

import numpy as np

import runtime as ms
from runtime import Tensor, nn, ops

import consts_mod  # other-module constants (the test writes it)
import user_helper  # a user function inlined by the graph (the test writes A's or B's version)

V = int(sys.argv[1])  # 0 in process A, 1 in process B
KINDS = {}


def kind(fn):
    KINDS[fn.__name__] = fn
    return fn


def J(fn, graph):
    """``fn`` compiled (``ms.jit``) or as it is (the eager oracle)."""
    return ms.jit(fn) if graph else fn


def in_mode(graph, thunk):
    """``thunk()`` in GRAPH_MODE (every Cell call captured) or PyNative."""
    ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
    try:
        return thunk()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def x_of(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def np_of(out):
    if isinstance(out, (tuple, list)):
        return [np_of(o) for o in out]
    if isinstance(out, Tensor):
        out = out.asnumpy()
    out = np.asarray(out)
    return [str(out.dtype), out.tolist()]  # (the dtype is part of the answer)


def train_steps(net, loss_fn, opt_factory, x, y, graph, steps=2, params=None):
    """Losses and final parameters of ``steps`` whole-step ``value_and_grad`` + optimizer steps."""
    params = params if params is not None else net.trainable_params()
    opt = opt_factory(params)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)

    def step(a, b):
        loss, grads = grad_fn(a, b)
        opt(grads)
        return loss

    step = J(step, graph)
    losses = [step(x, y) for _ in range(steps)]
    return [losses, [p for p in net.get_parameters()]]


# -- arrays whose contents differ ---------------------------------------------------------------------
GLOBAL_ARRAY = np.arange(6, dtype=np.float32).reshape(2, 3) * (1 + V)


@kind
def numpy_global_contents(graph):
    return J(lambda x: x * Tensor(GLOBAL_ARRAY) + 1.0, graph)(x_of(2, 3))


@kind
def numpy_argument_contents(graph):
    arr = np.full((2, 3), 2.0 + V, np.float32)
    return J(lambda x, a: x + Tensor(a), graph)(x_of(2, 3), arr)


class Masked(nn.Cell):
    def __init__(self, mask):
        super().__init__()
        self.mask = mask  # a numpy array "read from a config file"
        self.fc = nn.Dense(3, 3)

    def construct(self, x):
        return self.fc(x) * Tensor(self.mask)


@kind
def cell_attribute_array_contents(graph):
    ms.set_seed(0)
    net = Masked(np.array([1.0, 0.0, 1.0], np.float32) if V == 0 else np.array([0.0, 1.0, 1.0], np.float32))
    return in_mode(graph, lambda: net(x_of(2, 3)))


GLOBAL_TENSOR = Tensor(np.array([1.0, -1.0, 2.0], np.float32) * (3 - 2 * V))


@kind
def global_tensor_contents(graph):
    return J(lambda x: x - GLOBAL_TENSOR, graph)(x_of(2, 3))


MUTATED = np.arange(6, dtype=np.float32).reshape(2, 3)


@kind
def global_array_changed_in_place_after_compiling(graph):
    # the graph is the same in A and B (the array's contents when it is compiled); B's warm
    # process must see B's later in-place change as a cold one does
    f = J(lambda x: x * Tensor(MUTATED), graph)
    first = f(x_of(2, 3))
    saved = MUTATED.copy()
    MUTATED[:] = 5.0 + V
    try:
        return [first, f(x_of(2, 3))]
    finally:
        MUTATED[:] = saved


# -- framework functions and objects ----------------------------------------------------------------
def my_relu6(x):
    return ops.minimum(ops.maximum(x, 0.0), 0.5)


@kind
def monkeypatched_framework_function(graph):
    original = ops.relu
    if V == 1:
        ops.relu = my_relu6
    try:
        return J(lambda x: ops.relu(x) * 3.0, graph)(x_of(2, 3))
    finally:
        ops.relu = original


@kind
def monkeypatched_tensor_method(graph):
    original = Tensor.abs
    if V == 1:
        Tensor.abs = lambda self: ops.square(self)
    try:
        return J(lambda x: x.abs() + 1.0, graph)(x_of(2, 3))
    finally:
        Tensor.abs = original


class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Dense(4, 4)
        self.b = nn.Dense(4, 4)

    def construct(self, x):
        return self.b(ops.tanh(self.a(x)))


@kind
def to_float_moved_between_subcells(graph):
    ms.set_seed(0)
    net = Two()
    (net.a if V == 0 else net.b).to_float(ms.float16)
    return in_mode(graph, lambda: net(x_of(2, 4)))


class EncDec(nn.Cell):
    def __init__(self, tied):
        super().__init__()
        self.enc = nn.Dense(4, 4)
        self.dec = self.enc if tied else nn.Dense(4, 4)

    def construct(self, x):
        return self.dec(ops.relu(self.enc(x)))


@kind
def tied_layers(graph):
    ms.set_seed(0)
    net = EncDec(tied=V == 1)
    return train_steps(net, nn.MSELoss(), lambda p: nn.SGD(p, 0.1), x_of(3, 4), x_of(3, 4, seed=1), graph)


SUM, MEAN = object(), object()
if V == 1:
    MEAN = SUM  # two sentinels distinct in A are one object in B
MODE = MEAN


@kind
def sentinels_identity(graph):
    def f(x):
        return x.sum() if MODE is SUM else x.mean()
    return J(f, graph)(x_of(2, 3))


class Sentinel:
    pass


SHARED_A, SHARED_B = Sentinel(), Sentinel()
if V == 1:
    SHARED_B = SHARED_A


@kind
def aliasing_of_two_globals(graph):
    def f(x):
        return x * 2.0 if SHARED_A is SHARED_B else x * 5.0
    return J(f, graph)(x_of(2, 3))


@kind
def aliased_arguments(graph):
    a = x_of(2, 3)
    b = a if V == 1 else x_of(2, 3, seed=5)
    return J(lambda p, q: (p * 2.0 if p is q else p - q), graph)(a, b)


FOLDED = (0.5, 1.0, -0.25)  # (Python numbers: a graph constant; Tensor(array) is read per call)


@kind
def framework_file_edited_same_size_and_mtime(graph):
    # exp(constant) is folded by the pass pipeline with the op's impl, which the test edits in
    # the framework's copy between A and B (graph/ops/elementwise.py: exp computes sin)
    return J(lambda x: x + ops.exp(Tensor(FOLDED)), graph)(x_of(2, 3))


# -- settings of framework objects --------------------------------------------------------------------
@kind
def grad_position(graph):
    f = lambda a, b: (a * b * 2.0).sum()
    g = ms.grad(f, V)
    return in_mode(graph, lambda: g(x_of(2, 3), x_of(2, 3, seed=1)))


@kind
def grad_operation_flags(graph):
    g = ops.GradOperation(get_all=bool(V))(lambda a, b: (a * b * 2.0).sum())
    out = J(lambda a, b: g(a, b), graph)(x_of(2, 3), x_of(2, 3, seed=1))
    return out[1] if V else out


class Reducer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.red = ops.ReduceSum(keep_dims=bool(V))

    def construct(self, a):
        return self.red(a, 1) * 2.0


@kind
def primitive_attribute(graph):
    net = Reducer()
    return in_mode(graph, lambda: net(x_of(2, 3)))


@kind
def partial_argument(graph):
    def scale(k, a):
        return a * k
    p = functools.partial(scale, 2.0 + V)
    return J(lambda a: p(a), graph)(x_of(2, 3))


@kind
def parameter_requires_grad(graph):
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    net.bias.requires_grad = V == 0
    return train_steps(net, nn.MSELoss(), lambda p: nn.SGD(p, 0.1), x_of(4, 3), x_of(4, 2, seed=1), graph)


class Noisy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)
        self.bn = nn.BatchNorm1d(4)

    def construct(self, x):
        return self.bn(self.fc(x))


@kind
def training_flag(graph):
    ms.set_seed(0)
    net = Noisy()
    net.set_train(V == 0)
    return in_mode(graph, lambda: net(x_of(5, 4)))


@kind
def jit_level_config(graph):
    f = lambda x: ops.exp(x) * 1.0 + 0.0
    cfg = ms.JitConfig(jit_level="O2" if V else "O0")
    return (ms.jit(f, jit_config=cfg) if graph else f)(x_of(2, 3))


@kind
def mixed_precision_policy(graph):
    from runtime import amp
    ms.set_seed(0)
    net = amp.auto_mixed_precision(Two(), "O3" if V else "O0")
    return in_mode(graph, lambda: net(x_of(2, 4)))


@kind
def loss_reduction_attribute(graph):
    loss = nn.MSELoss(reduction="sum" if V else "mean")
    return in_mode(graph, lambda: loss(x_of(2, 3), x_of(2, 3, seed=1)))


# -- the nine that held last round ----------------------------------------------------------------------
@kind
def other_module_constant(graph):
    return J(lambda x: x * consts_mod.K, graph)(x_of(2, 3))


class Scaled(nn.Cell):
    SCALE = 2.0 + 3 * V

    def construct(self, x):
        return x * self.SCALE


@kind
def class_attribute(graph):
    net = Scaled()
    return in_mode(graph, lambda: net(x_of(2, 3)))


def with_default(x, k=1.5 + V):
    return x * k


@kind
def argument_default(graph):
    return J(with_default, graph)(x_of(2, 3))


ENV_K = float(os.environ.get("WARM_K", "1")) + V
ARGV_K = float(sys.argv[1]) * 4.0 + 1.0


@kind
def env_and_argv_globals(graph):
    return J(lambda x: x * ENV_K + ARGV_K, graph)(x_of(2, 3))


def make_closure(k):
    def f(x):
        return x * k + k
    return f


@kind
def closure_variable(graph):
    return J(make_closure(0.5 + V), graph)(x_of(2, 3))


@kind
def optimizer_hyperparameters(graph):
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    return train_steps(net, nn.MSELoss(), lambda p: nn.Momentum(p, 0.1 + 0.2 * V, 0.9 - 0.4 * V), x_of(4, 3),
                       x_of(4, 2, seed=1), graph)


@kind
def input_dtype(graph):
    x = np.linspace(-1, 1, 6).reshape(2, 3)
    return J(lambda a: a * 3.0 + 1.0, graph)(Tensor(x.astype(np.float64 if V else np.float32)))


@kind
def input_layout(graph):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = np.ascontiguousarray(base.T) if V == 0 else base.T  # a transposed view in B
    return J(lambda a: a @ Tensor(np.ones((3, 2), np.float32)) + a.sum(), graph)(Tensor(x))


@kind
def random_seed(graph):
    ms.set_seed(V)
    drop = nn.Dropout(p=0.5)
    drop.set_train(True)
    return in_mode(graph, lambda: drop(Tensor(np.ones((4, 8), np.float32))))


# -- more of the same families --------------------------------------------------------------------------
@kind
def scalar_int_versus_float(graph):
    k = 2 if V == 0 else 2.5
    return J(lambda a: a * k, graph)(Tensor(np.arange(6, dtype=np.int32)))


@kind
def signed_zero_constant(graph):
    z = 0.0 if V == 0 else -0.0
    return J(lambda a: ops.div(1.0, a * z), graph)(Tensor(np.ones(3, np.float32)))


GLOBAL_LIST = [1.0, 2.0] if V == 0 else [1.0, 2.0, 4.0]


@kind
def global_list_contents(graph):
    def f(x):
        out = x
        for k in GLOBAL_LIST:
            out = out * k + 1.0
        return out
    return J(f, graph)(x_of(2, 3))


CONFIG = {"act": "relu" if V == 0 else "tanh"}


@kind
def global_dict_setting(graph):
    def f(x):
        return ops.relu(x) if CONFIG["act"] == "relu" else ops.tanh(x)
    return J(f, graph)(x_of(2, 3))


class Activated(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)
        self.act = nn.ReLU() if V == 0 else nn.Sigmoid()

    def construct(self, x):
        return self.act(self.fc(x))


@kind
def sub_cell_replaced(graph):
    ms.set_seed(0)
    net = Activated()
    return in_mode(graph, lambda: net(x_of(2, 3)))


class Stack(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3) for _ in range(n)])

    def construct(self, x):
        for layer in self.layers:
            x = ops.tanh(layer(x))
        return x


@kind
def cell_list_length(graph):
    ms.set_seed(0)
    net = Stack(2 + V)
    return in_mode(graph, lambda: net(x_of(2, 3)))


ACT = ops.tanh if V == 0 else ops.sigmoid


@kind
def global_function_rebound(graph):
    return J(lambda x: ACT(x) * 2.0, graph)(x_of(2, 3))


@kind
def user_helper_edited(graph):
    return J(lambda x: user_helper.act(x) + 1.0, graph)(x_of(2, 3))


class Method(nn.Cell):
    def helper(self, x):
        return x * 2.0

    def construct(self, x):
        return self.helper(x) + 1.0


@kind
def instance_method_patched(graph):
    net = Method()
    if V == 1:
        net.helper = lambda x: x * -3.0
    return in_mode(graph, lambda: net(x_of(2, 3)))


@kind
def parameter_shape(graph):
    ms.set_seed(0)
    net = nn.Dense(3, 2 + V)
    return in_mode(graph, lambda: net(x_of(2, 3)))


@kind
def numpy_scalar_type(graph):
    k = np.float32(1.5) if V == 0 else np.float64(1.5)
    return J(lambda a: a * Tensor(np.asarray(k)), graph)(x_of(2, 3))


@kind
def nan_constant(graph):
    k = float("nan") if V == 0 else float("inf")
    return J(lambda a: ops.maximum(a, a * 0.0 + k), graph)(x_of(2, 3))


def main():
    from capture import persist
    from codegen.cpu import compiler
    only = os.environ.get("WARM_KINDS")
    results = {}
    for name, fn in KINDS.items():
        if only and name not in only.split(","):
            continue
        ms.set_seed(0)
        graph_out = np_of(fn(True))
        eager_out = np_of(fn(False))
        results[name] = {"graph": graph_out, "eager": eager_out}
    # (``persist.STATS``: none in the frame-file design this suite was first run against)
    print(json.dumps({"results": results, "schedules": dict(getattr(persist, "STATS", {})), "kernels": dict(compiler.STATS),
                      "framework": os.path.dirname(os.path.dirname(os.path.abspath(ms.__file__)))}))


if __name__ == "__main__":
    main()
