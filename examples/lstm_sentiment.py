"""LSTM sentiment classifier (the model of MindSpore's 2.x sentiment-analysis tutorial:
Embedding -> 2-layer bidirectional LSTM -> Dense on the last hidden states, BCEWithLogitsLoss,
Adam) trained on generated "reviews", in PyNative and/or GRAPH mode.

    python examples/lstm_sentiment.py                     # both modes, prints the speed-up
    python examples/lstm_sentiment.py --mode graph --epochs 10

A review is a padded sequence of word ids; a few ids are positive words, a few negative, the rest
neutral, and the label says whether the review holds more positive than negative words, so the
model has to count over the whole sequence. The training step is the tutorial's
(``value_and_grad`` of a forward function, then ``optimizer(grads)``); GRAPH mode is
``ms.set_context(mode=ms.GRAPH_MODE)`` with the step under ``ms.jit``, so forward, backward and the
Adam update run as one compiled graph.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

import runtime as ms
from runtime import nn, ops
from runtime.common.initializer import HeUniform, Uniform
from runtime.data import NumpySlicesDataset

from example_modes import MODES, RunResult, add_mode_argument, modes_to_run, print_summary

PAD = 0
POSITIVE_WORDS = range(1, 6)
NEGATIVE_WORDS = range(6, 11)
FIRST_NEUTRAL_WORD = 11


def generate_reviews(n, seq_len, vocab_size, rng):
    """(word ids (n, seq_len) int32 right-padded with PAD, labels (n, 1) float32); seq_len >= 8."""
    if seq_len < 8:
        raise ValueError(f"generate_reviews: seq_len must be >= 8, got {seq_len}")
    words = rng.integers(FIRST_NEUTRAL_WORD, vocab_size, (n, seq_len))
    labels = rng.integers(0, 2, n)
    for i in range(n):
        length = int(rng.integers(seq_len // 2, seq_len + 1))
        major, minor = (POSITIVE_WORDS, NEGATIVE_WORDS) if labels[i] else (NEGATIVE_WORDS, POSITIVE_WORDS)
        n_major = int(rng.integers(2, 5))
        n_minor = int(rng.integers(0, min(n_major, length - n_major + 1)))  # fewer: the label is well defined
        slots = rng.choice(length, n_major + n_minor, replace=False)
        words[i, slots[:n_major]] = rng.choice(major, n_major)
        words[i, slots[n_major:]] = rng.choice(minor, n_minor)
        words[i, length:] = PAD
    return words.astype(np.int32), labels.reshape(-1, 1).astype(np.float32)


def create_dataset(words, labels, batch_size, shuffle):
    ds = NumpySlicesDataset({"text": words, "label": labels}, shuffle=shuffle)
    return ds.batch(batch_size, drop_remainder=True)


class SentimentNet(nn.Cell):
    """The tutorial's RNN cell: embedding, bidirectional LSTM, Dense on both last hidden states."""

    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim=1, n_layers=2, bidirectional=True,
                 pad_idx=PAD):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=n_layers, bidirectional=bidirectional,
                           batch_first=True)
        self.fc = nn.Dense(hidden_dim * 2, output_dim, weight_init=HeUniform(math.sqrt(5)),
                           bias_init=Uniform(1 / math.sqrt(hidden_dim * 2)))

    def construct(self, inputs):
        embedded = self.embedding(inputs)
        _, (hidden, _) = self.rnn(embedded)
        hidden = ops.concat((hidden[-2, :, :], hidden[-1, :, :]), axis=1)
        return self.fc(hidden)


def binary_accuracy(logits, labels):
    predicted = np.around(ops.sigmoid(logits).asnumpy())
    return float((predicted == labels.asnumpy()).mean())


def run(mode, train_data, test_data, vocab_size, epochs, batch_size, embedding_dim=16, hidden_dim=32, lr=0.01,
        seed=1):
    """Train from ``seed`` in ``mode`` ('pynative' or 'graph'); the held-out accuracy and per-step
    times and losses."""
    ms.set_context(mode=MODES[mode])
    try:
        ms.set_seed(seed)
        model = SentimentNet(vocab_size, embedding_dim, hidden_dim)
        loss_fn = nn.BCEWithLogitsLoss(reduction="mean")
        optimizer = nn.Adam(model.trainable_params(), learning_rate=lr)

        def forward_fn(data, label):
            logits = model(data)
            return loss_fn(logits, label)

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        def train_step(data, label):
            loss, grads = grad_fn(data, label)
            optimizer(grads)
            return loss

        if mode == "graph":
            train_step = ms.jit(train_step)
        start = time.perf_counter()
        times, losses = [], []
        train = create_dataset(*train_data, batch_size, shuffle=True)
        for _ in range(epochs):
            model.set_train(True)
            for data, label in train.create_tuple_iterator(num_epochs=1):
                t0 = time.perf_counter()
                loss = float(train_step(data, label).asnumpy())
                times.append(time.perf_counter() - t0)
                losses.append(loss)
        model.set_train(False)
        correct = total = 0
        for data, label in create_dataset(*test_data, batch_size, shuffle=False).create_tuple_iterator(num_epochs=1):
            correct += binary_accuracy(model(data), label) * label.shape[0]
            total += label.shape[0]
        return RunResult(mode, correct / max(total, 1), times, losses, time.perf_counter() - start)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_mode_argument(p)
    p.add_argument("--train-size", type=int, default=2048)
    p.add_argument("--test-size", type=int, default=512)
    p.add_argument("--seq-len", type=int, default=24)
    p.add_argument("--vocab-size", type=int, default=64)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    train = generate_reviews(args.train_size, args.seq_len, args.vocab_size, rng)
    test = generate_reviews(args.test_size, args.seq_len, args.vocab_size, rng)
    print(f"LSTM sentiment on {args.train_size} generated reviews (length {args.seq_len}, vocabulary "
          f"{args.vocab_size}): {args.epochs} epoch(s), batch {args.batch_size}, 2-layer bidirectional LSTM "
          f"hidden {args.hidden}, Adam")
    results = [run(mode, train, test, args.vocab_size, args.epochs, args.batch_size, hidden_dim=args.hidden,
                   seed=args.seed) for mode in modes_to_run(args.mode)]
    print_summary(results)
    return results


if __name__ == "__main__":
    main()
