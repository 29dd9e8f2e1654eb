"""The frame hook captures the user's own functions, not only ``construct``: a ``train_step``
calling a ``value_and_grad`` function and the optimizer becomes one whole-step graph under
``capture.enabled()`` / ``python -m capture run``, with the same numbers as PyNative; functions
that touch no framework value, break at once, or break inside a loop are left alone (decision
"skip", cached on the code object) and leave no trace in reports."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import capture
import runtime as ms
from capture import frame_eval
from capture.dispatch import captured_user_functions
from capture.explain import recording
from runtime import Tensor, nn, ops

pytestmark = pytest.mark.skipif(not frame_eval.AVAILABLE, reason="the C frame hook is not built here")


def _setup(seed=0):
    ms.set_seed(seed)
    net = nn.SequentialCell([nn.Dense(6, 16), nn.ReLU(), nn.Dense(16, 3)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)

    def forward_fn(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters, has_aux=True)

    def train_step(x, y):
        (loss, _), grads = grad_fn(x, y)
        opt(grads)
        return loss

    return net, train_step


def _batches(n=6):
    rng = np.random.default_rng(3)
    return [(Tensor(rng.standard_normal((8, 6)).astype(np.float32)), Tensor(rng.integers(0, 3, 8).astype(np.int32)))
            for _ in range(n)]


def test_a_train_step_becomes_one_whole_step_graph_with_eager_numbers():
    batches = _batches()
    net, step = _setup()
    want = [float(step(x, y).asnumpy()) for x, y in batches]
    want_params = [p.asnumpy().copy() for p in net.trainable_params()]
    capture.reset()
    net, step = _setup()
    with recording() as report, capture.enabled():
        got = [float(step(x, y).asnumpy()) for x, y in batches]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for p, w in zip(net.trainable_params(), want_params):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    assert step.__code__.co_qualname in captured_user_functions()
    assert report.user_functions == [step.__code__.co_qualname]
    # forward, backward and the optimizer update in one graph for the whole step; no break
    assert report.graph_break_count == 0 and report.frames_captured == [step.__code__.co_qualname]
    assert report.graph_count == 1 and "User functions captured" in str(report)


def test_functions_without_framework_values_are_skipped():
    calls = []

    def plain(a, b=2):
        calls.append(a)
        return {"sum": a + b, "items": [a, b]}

    with capture.enabled():
        out = [plain(i) for i in range(3)]
    assert out == [{"sum": i + 2, "items": [i, 2]} for i in range(3)] and calls == [0, 1, 2]
    assert frame_eval._C.decision(plain.__code__) == "skip"
    assert plain.__code__.co_qualname not in captured_user_functions()


def test_a_loop_that_breaks_runs_eagerly_and_its_callee_is_captured():
    net, step = _setup(1)
    batches = _batches(4)
    seen = []

    def loop():
        for x, y in batches:
            loss = step(x, y)
            seen.append(float(loss.asnumpy()))  # a break inside the loop
        return len(seen)

    with recording() as report, capture.enabled():
        assert loop() == 4
    assert frame_eval._C.decision(loop.__code__) == "skip"
    assert report.user_functions == [step.__code__.co_qualname]
    assert report.graph_break_count == 0  # the loop's attempt left no break behind


def test_a_cell_init_and_a_function_that_breaks_at_once_are_left_alone():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            return self.fc(x)

    def starts_with_a_print(x):
        print("step")
        return ops.relu(x) * 2

    with capture.enabled():
        net = Net()
        out = starts_with_a_print(Tensor(np.array([-1.0, 2.0], np.float32)))
        net(Tensor(np.ones((1, 2), np.float32)))
    assert out.asnumpy().tolist() == [0.0, 4.0]
    assert frame_eval._C.decision(Net.__init__.__code__) == "skip"
    assert frame_eval._C.decision(starts_with_a_print.__code__) == "skip"


def test_library_frames_and_generated_code_are_never_candidates():
    import json as stdlib_json
    from capture.frame_eval import _is_user_function
    assert not _is_user_function(stdlib_json.dumps.__code__)
    import numpy.lib._index_tricks_impl as np_module
    assert not _is_user_function(np_module.ndindex.__init__.__code__)  # an installed package
    assert not _is_user_function(nn.Dense.construct.__code__)  # the framework's own code
    assert not _is_user_function(compile("0", "<string>", "eval"))
    assert _is_user_function(test_library_frames_and_generated_code_are_never_candidates.__code__)

    def gen():
        yield 1
    assert not _is_user_function(gen.__code__)

    def breaks(x):  # its resume and step functions carry its file and name, but are ours
        y = x * 2
        print("break")
        return y + 1
    capture.jit(breaks)(Tensor(np.ones(2, np.float32)))
    from capture.resume import RESUME_INFO, _STEP_CODE_SET
    generated = [c for c, info in RESUME_INFO.items() if info.orig is breaks.__code__]
    generated += [c for c in _STEP_CODE_SET if c.co_filename == breaks.__code__.co_filename
                  and c.co_name == "breaks"]
    assert len(generated) >= 2 and not any(_is_user_function(c) for c in generated)


def _run_script(tmp_path, body, *args, env=None):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(body))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    environ = dict(os.environ, PYTHONPATH=root, RUNTIME_BLAS_THREADS="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "capture", "run", str(script), *args], capture_output=True,
                          text=True, env=environ, cwd=str(tmp_path), timeout=300)


_SCRIPT = """
    import json, sys
    import numpy as np
    import runtime as ms
    from runtime import nn

    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), 0.1)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((16, 4)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((16, 2)).astype(np.float32))
    print(json.dumps([float(train_step(x, y).asnumpy()) for _ in range(5)]))
"""


def test_capture_run_reports_the_user_functions_it_captured(tmp_path):
    done = _run_script(tmp_path, _SCRIPT)
    assert done.returncode == 0, done.stderr
    assert "user functions captured whole: train_step" in done.stderr
    off = _run_script(tmp_path, _SCRIPT, env={"CAPTURE_USER_FUNCTIONS": "0"})
    assert off.returncode == 0, off.stderr
    assert "user functions captured" not in off.stderr
    np.testing.assert_allclose(json.loads(done.stdout), json.loads(off.stdout), rtol=1e-5)


def test_a_long_python_loop_is_not_unrolled_into_a_graph():
    def accumulate(t, n):
        total = t * 0
        for _ in range(n):  # would unroll into 30,000 adds: the translation gives up early
            total = total + t
        return total

    t = Tensor(np.array([1.0, 2.0], np.float32))
    with recording() as report, capture.enabled():
        out = accumulate(t, 30_000)
    assert out.asnumpy().tolist() == [30000.0, 60000.0]
    assert frame_eval._C.decision(accumulate.__code__) == "skip"
    assert report.graph_count == 0 and report.graph_break_count == 0
