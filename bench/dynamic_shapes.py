"""Dynamic-shape workload: a padded-text classifier (embedding, masked mean pool, two Dense layers)
trained with a batch size and a sequence length drawn anew every step, as in NLP training with
per-batch padding. Measured end to end, compiling included: PyNative, the ``@jit`` whole step with
dynamic dimensions (capture/dynamic.py: two translations, the graph re-instantiated and compiled
per new size) and the same step with every size specialised (``capture.dynamic.ENABLED = False``:
one translation per shape up to the recompile limit, then eager). Losses are checked against
PyNative's.

Two Transformer workloads exercise symbolic sizes (capture/symbolic_sizes.py: ``batch * heads``
and the shapes VJP rules copy stay expressions): an encoder classifier's train step with batch
and length drawn every step, and greedy decoding of a small decoder-only Transformer whose input
grows by one token per step (tokens checked against PyNative's).

``python -m bench dynamic [--quick]`` prints the rows; ``python -m bench`` includes them.
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


class EncoderClassifier(nn.Cell):
    """Embedding, one Transformer encoder layer (batch first), mean pool, a Dense head."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, WIDTH)
        self.layer = nn.TransformerEncoderLayer(WIDTH, 4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.out = nn.Dense(WIDTH, CLASSES)

    def construct(self, ids):
        return self.out(ops.mean(self.layer(self.emb(ids)), 1))


class TinyDecoder(nn.Cell):
    """A decoder-only LM: token embedding, learned positions and a causal mask sliced to the
    input's length (``self.pos[:n]``, ``self.causal[:n, :n]``), one Transformer block."""

    def __init__(self, max_len=128):
        super().__init__()
        rng = np.random.default_rng(1)
        self.tok = nn.Embedding(VOCAB, WIDTH)
        self.pos = ms.Parameter(Tensor(rng.standard_normal((max_len, WIDTH)).astype(np.float32)), name="pos")
        self.causal = Tensor(np.triu(np.full((max_len, max_len), -1e9, np.float32), 1))
        self.block = nn.TransformerEncoderLayer(WIDTH, 4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.head = nn.Dense(WIDTH, VOCAB)

    def construct(self, ids):
        n = ids.shape[1]
        h = self.tok(ids) + self.pos[:n]
        return self.head(self.block(h, src_mask=self.causal[:n, :n])[:, -1])


def _encoder_step(jitted):
    ms.set_seed(0)
    net = EncoderClassifier()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), 0.01)
    grad_fn = ms.value_and_grad(lambda ids, y: loss_fn(net(ids), y), None, opt.parameters)

    def step(ids, y):
        loss, grads = grad_fn(ids, y)
        opt(grads)
        return loss
    return capture.jit(step) if jitted else step


def _modes(run_one, check):
    """``run_one(jitted) -> (seconds, result)`` in PyNative, @jit dynamic and @jit specialised;
    ``check(got, want)`` compares a jitted result with PyNative's."""
    pynative_s, want = run_one(False)
    out = {"pynative_s": pynative_s}
    for name, enabled in (("dynamic", True), ("specialised", False)):
        capture.reset()
        saved, dynamic.ENABLED = dynamic.ENABLED, enabled
        try:
            with recording() as report:
                seconds, got = run_one(True)
        finally:
            dynamic.ENABLED = saved
        check(got, want)
        out[name] = {"seconds": seconds, "translations": report.graph_count,
                     "reinstantiations": len(report.reinstantiations)}
    capture.reset()
    return out


def measure_transformers(train_steps=40, decode_steps=64) -> dict:
    """The encoder train step over ``train_steps`` drawn shapes and ``decode_steps`` steps of greedy
    decoding, per mode (seconds, compiling included)."""
    data = batches(train_steps, seed=1)

    def train(jitted):
        step = _encoder_step(jitted)
        t0 = time.perf_counter()
        losses = [float(step(Tensor(ids), Tensor(y)).asnumpy()) for ids, _mask, y in data]
        return time.perf_counter() - t0, losses

    def decode(jitted):
        ms.set_seed(0)
        net = TinyDecoder(max_len=decode_steps + 8)
        fn = capture.jit(lambda ids: ops.argmax(net(ids), -1)) if jitted else (lambda ids: ops.argmax(net(ids), -1))
        ids = np.array([[1, 2], [3, 4]], np.int32)
        t0 = time.perf_counter()
        for _ in range(decode_steps):
            ids = np.concatenate([ids, fn(Tensor(ids)).asnumpy()[:, None].astype(np.int32)], axis=1)
        return time.perf_counter() - t0, ids

    return {
        "train": dict(_modes(train, lambda got, want: np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)),
                      steps=train_steps, distinct_shapes=len({d[0].shape for d in data})),
        "decode": dict(_modes(decode, np.testing.assert_array_equal), steps=decode_steps),
    }


def transformer_rows(quick=False) -> list:
    r = measure_transformers(train_steps=16 if quick else 40, decode_steps=64)
    out = []
    for key, case in (("train", f"dynamic batch+length Transformer encoder train step ({r['train']['steps']} steps, "
                                f"{r['train'].get('distinct_shapes')} shapes, compile incl.)"),
                      ("decode", f"greedy decoding of a small Transformer ({r['decode']['steps']} steps, compile incl.)")):
        m = r[key]
        n = m["steps"]
        print(f"{case}: @jit dynamic {m['dynamic']['translations']} translations, "
              f"{m['dynamic']['reinstantiations']} sizes re-instantiated; @jit specialised "
              f"{m['specialised']['translations']} translations")
        out.append({"case": case, "ours_pynative_ms": m["pynative_s"] / n * 1e3,
                    "ours_jit_step_ms": m["dynamic"]["seconds"] / n * 1e3,
                    "ours_jit_specialised_ms": m["specialised"]["seconds"] / n * 1e3})
    return out


def rows(quick=False) -> list:
    """The bench table's rows (per-step milliseconds over the whole loop, compiling included)."""
    return text_classifier_rows(quick) + transformer_rows(quick)


def text_classifier_rows(quick=False) -> list:
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
