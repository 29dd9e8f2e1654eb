"""Jitted calls repeated in C (capture/_fast_call.c, armed by capture/fast_call.py): once a call
went the Python way, the next ones run the same entry without Python frames. Oracle: the same
function in PyNative (and the Python way's own behaviour for every state the C call declines).
Each test checks whether the C call really ran (``entry.fast.hits``), so a path that silently
stopped being taken -- or one taken where it must not be -- fails."""
import threading

import numpy as np
import pytest

import capture
import runtime as ms
from capture import fast_call
from capture.cache import cache_for
from capture.explain import recording
from runtime import Tensor, nn, ops

pytestmark = pytest.mark.skipif(not fast_call.AVAILABLE, reason="the C helper is not built (or CAPTURE_PY_CALL=1)")


def _entry(fn):
    (entry,) = cache_for(fn.__code__).entries
    return entry


def _fast_hits(fn):
    return sum(e.fast.hits for e in cache_for(fn.__code__).entries if e.fast is not None)


def _train_step(seed=5):
    """(net, optimizer, step): the tutorial's step (value_and_grad + Momentum) on a small MLP."""
    ms.set_seed(seed)
    net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 3)])
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, loss), None, opt.parameters)

    def step(x, y):
        loss_value, grads = grad_fn(x, y)
        opt(grads)
        return loss_value
    return net, opt, step


def _batch(i, rows=8):
    rng = np.random.default_rng(i)
    return Tensor(rng.normal(size=(rows, 6)).astype(np.float32)), Tensor(rng.integers(0, 3, rows).astype(np.int32))


def _params(net, opt):
    return [p.asnumpy().copy() for p in net.trainable_params() + list(opt.moments)]


def test_a_training_loop_runs_in_c_from_its_second_call_with_pynative_numbers():
    eager_net, eager_opt, eager_step = _train_step()
    net, opt, step = _train_step()
    jitted = capture.jit(step)
    want = [float(eager_step(*_batch(i)).asnumpy()) for i in range(12)]
    got = [float(jitted(*_batch(i)).asnumpy()) for i in range(12)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(_params(eager_net, eager_opt), _params(net, opt)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    entry = _entry(step)
    assert entry.fast.hits == 11 and entry.hits == 11 and jitted._armed is entry.fast  # (a compile is no hit)


def test_results_are_new_tensors_each_call_and_tuples_keep_their_structure():
    @capture.jit
    def f(x, y):
        return x * 2, (x + y, y - 1)

    x, y = Tensor(np.arange(3, dtype=np.float32)), Tensor(np.ones(3, np.float32))
    first = f(x, y)
    for _ in range(3):
        out = f(x, y)
        assert type(out) is tuple and type(out[1]) is tuple and type(out[0]) is Tensor
        np.testing.assert_array_equal(out[0].asnumpy(), [0, 2, 4])
        np.testing.assert_array_equal(out[1][0].asnumpy(), [1, 2, 3])
        np.testing.assert_array_equal(out[1][1].asnumpy(), [0, 0, 0])
        assert out[0] is not first[0] and out[0].asnumpy() is not first[0].asnumpy()
    assert _fast_hits(f.__wrapped_jit__) == 3


def test_a_new_shape_or_dtype_goes_the_python_way_and_compiles():
    @capture.jit
    def f(x):
        return ops.relu(x) + 1

    for shape, dtype in [((4,), np.float32), ((4,), np.float32), ((2, 3), np.float32), ((4,), np.float64),
                         ((4,), np.float32)]:
        x = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape).astype(dtype)
        out = f(Tensor(x))
        assert out.asnumpy().dtype == dtype
        np.testing.assert_allclose(out.asnumpy(), np.maximum(x, 0) + 1, rtol=1e-6)
    entries = cache_for(f.__wrapped_jit__.__code__).entries
    assert len(entries) == 3
    assert _fast_hits(f.__wrapped_jit__) == 1  # the second call; the last one reordered the cache


def test_keyword_arguments_and_other_argument_counts_go_the_python_way():
    @capture.jit
    def f(x, scale=2.0):
        return x * scale

    x = Tensor(np.ones(2, np.float32))
    assert f(x).asnumpy().tolist() == [2.0, 2.0]
    assert f(x, scale=3.0).asnumpy().tolist() == [3.0, 3.0]
    for _ in range(3):
        assert f(x, 4.0).asnumpy().tolist() == [4.0, 4.0]
    assert _fast_hits(f.__wrapped_jit__) == 2
    with pytest.raises(TypeError, match="scale"):  # (as Python: a value given twice)
        f(x, 4.0, scale=5.0)
    with pytest.raises(TypeError, match="bias"):
        f(x, 4.0, bias=1.0)
    assert f(x).asnumpy().tolist() == [2.0, 2.0]


def test_values_the_guards_read_are_checked_on_every_call():
    class Scale(nn.Cell):
        def __init__(self):
            super().__init__()
            self.factor = 2.0
            self.negate = False

        def construct(self, x):
            y = x * self.factor
            return -y if self.negate else y

    net = Scale()
    f = capture.jit(lambda x: net(x))
    x = Tensor(np.ones(2, np.float32))
    for _ in range(3):
        assert f(x).asnumpy().tolist() == [2.0, 2.0]
    net.factor = 5.0
    assert f(x).asnumpy().tolist() == [5.0, 5.0]
    net.negate = True
    assert f(x).asnumpy().tolist() == [-5.0, -5.0]
    assert f(x).asnumpy().tolist() == [-5.0, -5.0]


def test_parameters_replaced_by_the_user_are_read_on_every_call():
    net, opt, step = _train_step()
    jitted = capture.jit(step)
    for i in range(3):
        jitted(*_batch(i))
    weight = net.trainable_params()[0]
    weight.set_data(Tensor(np.zeros(weight.shape, np.float32)))
    eager_net, eager_opt, eager_step = _train_step()
    eager_net.trainable_params()[0].set_data(Tensor(np.zeros(weight.shape, np.float32)))
    for p, q in zip(eager_net.trainable_params() + list(eager_opt.moments), net.trainable_params() + list(opt.moments)):
        p.set_data(Tensor(q.asnumpy().copy()))
    for i in range(3, 6):
        np.testing.assert_allclose(float(jitted(*_batch(i)).asnumpy()), float(eager_step(*_batch(i)).asnumpy()),
                                   rtol=1e-5)


def test_a_replaced_function_code_is_followed():
    def f(x):
        return x + 1

    def g(x):
        return x * 10

    jitted = capture.jit(f)
    x = Tensor(np.ones(2, np.float32))
    for _ in range(3):
        assert jitted(x).asnumpy().tolist() == [2.0, 2.0]
    f.__code__ = g.__code__
    assert jitted(x).asnumpy().tolist() == [10.0, 10.0]


def test_under_a_recording_tape_the_call_is_differentiated():
    w = ms.Parameter(Tensor(np.array([1.5, -2.0], np.float32)), name="w")

    @capture.jit
    def f(x):
        return (x * w).sum()

    x = Tensor(np.array([3.0, 4.0], np.float32))
    for _ in range(3):
        f(x)
    grad = ms.grad(lambda x: f(x) * 2.0, grad_position=None, weights=[w])(x)
    np.testing.assert_allclose(grad[0].asnumpy(), [6.0, 8.0])


def test_an_error_of_the_graph_is_raised_as_pynative_raises_it_and_training_goes_on():
    net, opt, step = _train_step()
    jitted = capture.jit(step)
    for i in range(3):
        jitted(*_batch(i))
    before = _params(net, opt)
    x, _ = _batch(9)
    with pytest.raises(ValueError, match="labels"):
        jitted(x, Tensor(np.full(8, 7, np.int32)))
    for a, b in zip(before, _params(net, opt)):
        np.testing.assert_array_equal(b, a)
    hits = _fast_hits(step)
    jitted(*_batch(5))
    jitted(*_batch(6))
    assert not _entry(step).eager and _fast_hits(step) > hits


def test_explain_times_every_compiled_call():
    @capture.jit
    def f(x):
        return x * 3

    x = Tensor(np.ones(2, np.float32))
    f(x), f(x)
    with recording() as report:
        for _ in range(4):
            f(x)
    assert report.compiled_calls == 4
    f(x)
    assert _fast_hits(f.__wrapped_jit__) == 2  # (the calls before and after the recording)


def test_reset_and_dropped_entries_disarm_at_once():
    @capture.jit
    def f(x):
        return x - 1

    x = Tensor(np.ones(2, np.float32))
    f(x), f(x)
    assert f._armed is not None
    capture.reset()
    assert f._armed is None
    assert f(x).asnumpy().tolist() == [0.0, 0.0]


def test_threads_calling_one_jitted_step_get_their_own_results():
    @capture.jit
    def f(x):
        return ops.tanh(x) * 2 + 1

    inputs = [np.random.default_rng(i).normal(size=(64,)).astype(np.float32) for i in range(4)]
    f(Tensor(inputs[0]))
    errors = []

    def work(a):
        try:
            for _ in range(200):
                np.testing.assert_allclose(f(Tensor(a)).asnumpy(), np.tanh(a) * 2 + 1, rtol=1e-5, atol=1e-6)
        except Exception as e:  # (reported by the main thread)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(a,)) for a in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and _fast_hits(f.__wrapped_jit__) > 0


def test_a_jitted_method_repeats_per_instance():
    class Net(nn.Cell):
        def __init__(self, k):
            super().__init__()
            self.k = k

        @capture.jit
        def construct(self, x):
            return x * self.k

    a, b = Net(2.0), Net(3.0)
    x = Tensor(np.ones(2, np.float32))
    for _ in range(3):
        assert a(x).asnumpy().tolist() == [2.0, 2.0]
        assert b(x).asnumpy().tolist() == [3.0, 3.0]


def _graph_mode_train(steps):
    """(losses, net, optimizer, train cell) of TrainOneStepCell (``construct(*inputs)``) run for
    ``steps`` steps in the current mode."""
    net, opt, _ = _train_step()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    train.set_train(True)
    return [float(train(*_batch(i)).asnumpy()) for i in range(steps)], net, opt, train


def test_train_one_step_cell_in_graph_mode_runs_in_c_with_pynative_numbers():
    want, eager_net, eager_opt, _ = _graph_mode_train(10)
    ms.set_context(mode=ms.GRAPH_MODE)
    got, net, opt, train = _graph_mode_train(10)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(_params(eager_net, eager_opt), _params(net, opt)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert _fast_hits(type(train).construct) == 9  # (``*inputs``: the flat arguments end with their tuple)


def test_graph_mode_cells_of_one_class_and_a_replaced_construct_keep_their_meaning():
    class Affine(nn.Cell):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def construct(self, x, *rest):
            return x * self.k + len(rest)

    ms.set_context(mode=ms.GRAPH_MODE)
    a, b = Affine(2.0), Affine(3.0)
    x = Tensor(np.ones(2, np.float32))
    for _ in range(3):
        assert a(x).asnumpy().tolist() == [2.0, 2.0]
        assert a(x).asnumpy().tolist() == [2.0, 2.0]
        assert b(x, x).asnumpy().tolist() == [4.0, 4.0]
    assert _fast_hits(Affine.construct) >= 3
    Affine.construct = lambda self, x: x - self.k
    assert a(x).asnumpy().tolist() == [-1.0, -1.0]
    assert b(x).asnumpy().tolist() == [-2.0, -2.0]


def test_tensors_inside_a_list_argument_are_read_on_every_call():
    @capture.jit
    def f(pair, scale):
        return pair[0] * scale + pair[1]

    a, b = Tensor(np.ones(3, np.float32)), Tensor(np.arange(3, dtype=np.float32))
    for k in range(4):
        c = Tensor(np.full(3, float(k), np.float32))
        np.testing.assert_array_equal(f([a, c], 2.0).asnumpy(), 2.0 + k)
    for k in range(4):
        c = Tensor(np.full(3, float(k), np.float32))
        np.testing.assert_array_equal(f((b, c), 2.0).asnumpy(), 2.0 * np.arange(3) + k)
    assert _fast_hits(f.__wrapped_jit__) == 6  # (each container's first call compiles)


def test_entries_alternating_in_one_cache_leave_other_functions_armed():
    @capture.jit
    def alternating(x):
        return x + 1

    @capture.jit
    def steady(x):
        return x * 2

    # (two dtypes: sizes 2 and 3 would be one shape-generic entry, capture/dynamic.py)
    x, y, z = Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float64)), Tensor(np.ones(4, np.float32))
    steady(z), steady(z)
    for _ in range(3):
        np.testing.assert_array_equal(alternating(x).asnumpy(), 2.0)
        np.testing.assert_array_equal(alternating(y).asnumpy(), 2.0)
        np.testing.assert_array_equal(steady(z).asnumpy(), 2.0)
    assert _fast_hits(alternating.__wrapped_jit__) == 0  # (each call puts the other entry first)
    assert _fast_hits(steady.__wrapped_jit__) == 4


# -- frames the hook captures (``capture.enable()``, ``capture run``): repeated in C before the
# -- dispatcher (capture/frame_eval/_frame_eval.c, ``set_fast``)

def _hook_fast():
    from capture import frame_eval
    if frame_eval._C is None:
        pytest.skip(f"frame hook unavailable: {frame_eval._UNAVAILABLE_REASON}")
    return frame_eval.stats()["fast"]


def test_a_train_step_under_the_hook_runs_in_c_with_pynative_numbers():
    eager_net, eager_opt, eager_step = _train_step()
    net, opt, step = _train_step()
    want = [float(eager_step(*_batch(i)).asnumpy()) for i in range(10)]
    fast0 = _hook_fast()
    with capture.enabled():
        got = [float(step(*_batch(i)).asnumpy()) for i in range(10)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(_params(eager_net, eager_opt), _params(net, opt)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert _hook_fast() - fast0 == 9 and _fast_hits(step) == 9


def test_closures_of_one_code_under_the_hook_keep_their_own_values():
    def make(k):
        w = Tensor(np.full(3, k, np.float32))

        def scaled(x):
            return ops.relu(x) * w
        return scaled

    fast0 = _hook_fast()
    a, b = make(2.0), make(3.0)
    x = Tensor(np.arange(3, dtype=np.float32))
    with capture.enabled():
        for _ in range(3):
            np.testing.assert_array_equal(a(x).asnumpy(), 2.0 * np.arange(3))
        for _ in range(3):
            np.testing.assert_array_equal(b(x).asnumpy(), 3.0 * np.arange(3))
        np.testing.assert_array_equal(a(x).asnumpy(), 2.0 * np.arange(3))
    assert _hook_fast() - fast0 >= 3


def test_an_error_of_the_graph_under_the_hook_is_pynatives_and_training_goes_on():
    net, opt, step = _train_step()
    with capture.enabled():
        for i in range(3):
            step(*_batch(i))
        before = _params(net, opt)
        fast0 = _hook_fast()
        x, _ = _batch(9)
        with pytest.raises(ValueError, match="labels"):
            step(x, Tensor(np.full(8, 7, np.int32)))
        for a, b in zip(before, _params(net, opt)):
            np.testing.assert_array_equal(b, a)
        step(*_batch(5))
        step(*_batch(6))
    assert _hook_fast() - fast0 >= 2 and not _entry(step).eager


def test_a_dropped_function_under_the_hook_releases_what_its_closure_holds():
    import gc
    import weakref

    def make():
        w = Tensor(np.full((256, 256), 2.0, np.float32))

        def scaled(x):
            return ops.relu(x) * w
        return scaled, weakref.ref(w)

    fast0 = _hook_fast()
    x = Tensor(np.ones((256, 256), np.float32))
    with capture.enabled():
        f, held = make()
        for _ in range(4):
            f(x)
        code = f.__code__
        assert _hook_fast() - fast0 == 3
        del f
        gc.collect()
        assert held() is None and not cache_for(code).entries
