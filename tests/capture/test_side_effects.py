"""Side effects of captured frames (capture/side_effects.py): mutations of lists, dicts, objects,
Cells, globals and closure variables that live outside the frame are replayed after the graph,
in program order and on the same objects, so every call behaves like eager with no graph break.
Each case runs eagerly and captured (first call and cache hits) through ``check_like_eager``."""
import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import check_like_eager, randn
from runtime import Tensor, nn, ops

LOG = []
CONFIG = {"calls": 0, "hist": []}
TOTAL = 0.0


def _reset_globals():
    global TOTAL
    LOG.clear()
    CONFIG.clear()
    CONFIG.update({"calls": 0, "hist": []})
    TOTAL = 0.0


def _x(rng):
    data = rng.standard_normal((2, 3)).astype(np.float32)
    return lambda i: ((Tensor(data + i),), {})


def test_global_list_append_and_dict_writes(rng):
    def f(x):
        LOG.append(x.shape[0])
        CONFIG["calls"] += 1
        CONFIG["hist"].append(CONFIG["calls"])
        return x * len(LOG)

    check_like_eager(f, _x(rng), state=lambda: (LOG, CONFIG), reset=_reset_globals)


def test_global_assignment_is_seen_by_later_reads(rng):
    def f(x):
        global TOTAL
        TOTAL = 2.5
        return x + TOTAL

    check_like_eager(f, _x(rng), state=lambda: TOTAL, reset=_reset_globals)


def test_closure_list_and_nonlocal_counter(rng):
    seen = []
    count = 0

    def f(x):
        nonlocal count
        count += 1
        seen.append(count)
        seen.extend([count, count])
        seen.pop()
        return x * count

    def reset():
        nonlocal count
        count = 0
        seen.clear()

    check_like_eager(f, _x(rng), state=lambda: (seen, count), reset=reset)


class Holder:
    def __init__(self):
        self.value = 0
        self.items = []
        self.cfg = {"scale": 2.0, "trace": []}


def test_attribute_writes_on_a_plain_object(rng):
    holder = Holder()

    def f(x):
        holder.value = holder.value + 1
        holder.items.append(holder.value)
        holder.cfg["trace"].append("call")
        holder.last = x * 2  # a tensor stored on the object
        return x + holder.value * holder.cfg["scale"]

    def reset():
        holder.__dict__.clear()
        holder.__init__()

    check_like_eager(f, _x(rng), state=lambda: (holder.value, holder.items, holder.cfg, holder.last),
                     reset=reset)


def test_argument_mutations_keep_identity(rng):
    def f(d, lst, x):
        d["k"] = x + 1
        lst.append(x)
        lst[0] = 5
        return d, lst

    def make(i):
        return ({"a": 1}, [0, 1], Tensor(np.full(3, i, np.float32))), {}

    check_like_eager(f, make)


def test_rebinding_after_mutation_mutates_the_object_found_first(rng):
    holder = Holder()
    old = []

    def f(x):
        holder.items.append(1)
        holder.items = [9]  # the list appended to above is the old one
        return x

    def reset():
        nonlocal old
        holder.__init__()
        old = holder.items

    def state():
        return holder.items, old

    check_like_eager(f, _x(rng), state=state, reset=reset)


def test_cell_attribute_state_in_construct(rng):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2)
            self.calls = 0
            self.history = []

        def construct(self, x):
            self.calls += 1
            y = self.fc(x)
            self.history.append(self.calls)
            self.last_output = y
            return y

    net = Net()

    def reset():
        net.calls = 0
        net.history = []

    jitted = capture.jit(net.construct)
    reset()
    x = randn(rng, 2, 3)
    want = [net.construct(x).asnumpy() for _ in range(3)]
    want_state = (net.calls, list(net.history), net.last_output.asnumpy())
    reset()
    got = [jitted(x).asnumpy() for _ in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert (net.calls, net.history) == want_state[:2]
    np.testing.assert_allclose(net.last_output.asnumpy(), want_state[2])


def test_side_effects_happen_before_a_graph_break(rng):
    events = []

    def f(x):
        events.append("before")
        print("at the break:", list(events))  # a break: the print must see the append
        events.append("after")
        return x + 1

    report = check_like_eager(f, _x(rng), state=lambda: events, reset=events.clear, breaks=None)
    assert len(report.breaks) >= 1


def test_side_effects_with_a_gradient_step(rng):
    net = nn.Dense(3, 1)
    losses = []

    def forward(x):
        loss = net(x).sum()
        losses.append(loss)
        return loss

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
    x = randn(rng, 4, 3)
    want_loss, want_grads = grad_fn(x)
    assert len(losses) == 1
    step = capture.jit(lambda x: grad_fn(x))
    loss, grads = step(x)
    assert len(losses) == 2
    np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-6)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


class Guarded:
    def __init__(self):
        object.__setattr__(self, "writes", [])

    def __setattr__(self, name, value):
        self.writes.append(name)
        object.__setattr__(self, name, value)


class WithProperty:
    def __init__(self):
        self._v = 0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * 10


@pytest.mark.parametrize("target", [Guarded, WithProperty])
def test_objects_with_attribute_hooks_still_behave_like_eager(rng, target):
    obj = target()

    def f(x):
        obj.v = 3
        return x + 1

    def reset():
        obj.__init__()

    report = check_like_eager(f, _x(rng), state=lambda: dict(vars(obj)), reset=reset, breaks=None)
    assert report.breaks  # the hook runs eagerly


def test_a_list_appended_to_every_call_is_written_each_call(rng):
    outputs = []

    def f(x):
        y = ops.relu(x)
        outputs.append(y)
        return y

    x = randn(rng, 3)
    jitted = capture.jit(f)
    with recording() as report:
        for _ in range(3):
            jitted(x)
    assert report.graph_count == 1 and not report.recompiles  # appending reads no length
    assert len(outputs) == 3
    for o in outputs:
        np.testing.assert_allclose(o.asnumpy(), np.maximum(x.asnumpy(), 0))
