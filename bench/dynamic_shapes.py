"""Dynamic-shape workload: a padded-text classifier (embedding, masked mean pool, two Dense layers)
trained with a batch size and a sequence length drawn anew every step, as in NLP training with
per-batch padding. Measured end to end, compiling included: PyNative, the ``@jit`` whole step with
dynamic dimensions (capture/dynamic.py: two translations, the graph re-instantiated and compiled
per new size) and the same step with every size specialised (``capture.dynamic.ENABLED = False``:
one translation per shape up to the recompile limit, then eager). Losses are checked against
PyNative's.

``python -m bench dynamic [--quick]`` prints the row; ``python -m bench`` includes it.
"""
from __future__ import annotations

import time

import numpy as np

import capture
import runtime as ms
from capture import dynamic
from capture.explain import recording
from runtime import Tensor, nn, ops

VOCAB, WIDTH, CLASSES = 200, 32, 4


class PaddedTextClassifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.fc1 = nn.Dense(WIDTH, 64)
        self.fc2 = nn.Dense(64, CLASSES)
        self.relu = nn.ReLU()

    def construct(self, ids, mask):
        h = self.emb(ids) * ops.expand_dims(mask, -1)
        pooled = h.sum(axis=1) / ops.expand_dims(mask.sum(axis=1), -1)
        return self.fc2(self.relu(self.fc1(pooled)))


def _step(jitted):
    ms.set_seed(0)
    net = PaddedTextClassifier()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    opt = nn.SGD(net.trainable_params(), 0.01)
    grad_fn = ms.value_and_grad(lambda ids, mask, y: loss_fn(net(ids, mask), y), None, opt.parameters)

    def step(ids, mask, y):
        loss, grads = grad_fn(ids, mask, y)
        opt(grads)
        return loss
    return capture.jit(step) if jitted else step


def batches(steps, seed=0):
    """``steps`` batches, each with its own batch size (8..40) and padded length (5..48)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        b, n = int(rng.integers(8, 41)), int(rng.integers(5, 49))
        lengths = rng.integers(1, n + 1, b)
        mask = (np.arange(n)[None, :] < lengths[:, None]).astype(np.float32)
        ids = (rng.integers(1, VOCAB, (b, n)) * mask).astype(np.int32)
        out.append((ids, mask, rng.integers(0, CLASSES, b).astype(np.int32)))
    return out


def _run(step, data):
    losses = []
    t0 = time.perf_counter()
    for ids, mask, y in data:
        losses.append(float(step(Tensor(ids), Tensor(mask), Tensor(y)).asnumpy()))
    return time.perf_counter() - t0, losses


def measure(steps=40) -> dict:
    """Seconds for ``steps`` steps (compiling included) per mode, and the jitted runs' counts."""
    data = batches(steps)
    pynative_s, want = _run(_step(False), data)
    result = {"steps": steps, "distinct_shapes": len({d[0].shape for d in data}), "pynative_s": pynative_s}
    for name, enabled in (("dynamic", True), ("specialised", False)):
        capture.reset()
        saved, dynamic.ENABLED = dynamic.ENABLED, enabled
        try:
            with recording() as report:
                seconds, got = _run(_step(True), data)
        finally:
            dynamic.ENABLED = saved
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        result[name] = {"seconds": seconds, "translations": report.graph_count,
                        "reinstantiations": len(report.reinstantiations),
                        "eager_after_limit": any("recompile limit" in b.reason for b in report.breaks)}
    capture.reset()
    return result


def rows(quick=False) -> list:
    """The bench table's row (per-step milliseconds over the whole loop, compiling included)."""
    r = measure(steps=24 if quick else 64)
    n = r["steps"]
    d, s = r["dynamic"], r["specialised"]
    print(f"dynamic shapes: {r['distinct_shapes']} shapes in {n} steps; @jit dynamic: {d['translations']} "
          f"translations, {d['reinstantiations']} sizes re-instantiated; @jit specialised: {s['translations']} "
          f"translations" + (", then eager (recompile limit)" if s["eager_after_limit"] else ""))
    return [{"case": f"dynamic batch+length text classifier ({n} steps, compile incl.)",
             "ours_pynative_ms": r["pynative_s"] / n * 1e3, "ours_jit_step_ms": d["seconds"] / n * 1e3,
             "ours_jit_specialised_ms": s["seconds"] / n * 1e3}]


def main(argv) -> int:
    import argparse
    p = argparse.ArgumentParser(prog="python -m bench dynamic", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    for row in rows(args.quick):
        print(f"{row['case']}: PyNative {row['ours_pynative_ms']:.2f} ms/step, @jit dynamic "
              f"{row['ours_jit_step_ms']:.2f} ms/step, @jit specialised {row['ours_jit_specialised_ms']:.2f} ms/step")
    return 0
