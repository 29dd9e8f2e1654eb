"""Metrics (Top1/Top5, Precision, Recall, Fbeta/F1) against numpy counts, and the monitoring
callbacks (EarlyStopping, ReduceLROnPlateau, LearningRateScheduler, SummaryCollector) driving
Model.fit / Model.train."""
import csv
import json

import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn
from runtime.dataset import NumpySlicesDataset


def _counts(pred, y, c):
    tp = np.array([np.sum((pred == k) & (y == k)) for k in range(c)], float)
    pp = np.array([np.sum(pred == k) for k in range(c)], float)
    ap = np.array([np.sum(y == k) for k in range(c)], float)
    return tp, pp, ap


def test_precision_recall_f1_top_k_against_numpy():
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((50, 4)).astype(np.float32)
    y = rng.integers(0, 4, 50)
    y[:3] = 3  # make sure every class appears
    pred = scores.argmax(1)
    tp, pp, ap = _counts(pred, y, 4)
    p = np.divide(tp, pp, out=np.zeros(4), where=pp > 0)
    r = np.divide(tp, ap, out=np.zeros(4), where=ap > 0)
    f1 = np.divide(2 * p * r, p + r, out=np.zeros(4), where=(p + r) > 0)
    for metric, want in ((nn.Precision(), p), (nn.Recall(), r), (nn.F1(), f1)):
        metric.clear()
        metric.update(Tensor(scores[:20]), Tensor(y[:20]))  # two updates accumulate
        metric.update(Tensor(scores[20:]), Tensor(y[20:]))
        np.testing.assert_allclose(metric.eval(), want)
        np.testing.assert_allclose(metric.eval(average=True), want.mean())
    top5 = np.argsort(-scores, 1)[:, :5]
    assert nn.Top1CategoricalAccuracy()(Tensor(scores), Tensor(y)) == pytest.approx(np.mean(pred == y))
    assert nn.Top5CategoricalAccuracy()(Tensor(scores), Tensor(y)) == 1.0 == np.mean((top5 == y[:, None]).any(1))
    f2 = nn.Fbeta(2.0)
    f2.update(Tensor(scores), Tensor(y))
    np.testing.assert_allclose(f2.eval(), np.divide(5 * p * r, 4 * p + r, out=np.zeros(4), where=(4 * p + r) > 0))
    multi = nn.Precision("multilabel")
    multi.update(Tensor(np.array([[0.9, 0.2], [0.6, 0.7]])), Tensor(np.array([[1, 0], [0, 1]])))
    np.testing.assert_allclose(multi.eval(), [0.5, 1.0])
    with pytest.raises(RuntimeError, match="samples"):
        nn.Recall().eval()


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
    return x, y


def _model(lr=0.1):
    ms.set_seed(0)
    net = nn.Dense(4, 2)
    opt = nn.SGD(net.trainable_params(), learning_rate=lr)
    return ms.Model(net, nn.CrossEntropyLoss(), opt, metrics={"acc": nn.Accuracy(), "loss": nn.Loss()}), net, opt


def test_early_stopping_stops_and_restores_the_best_weights():
    x, y = _data()
    model, net, _ = _model(lr=0.5)
    train = NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(16)
    # validation labels flipped: the better the model learns, the worse its eval loss gets
    valid = NumpySlicesDataset({"x": x[:32], "y": 1 - y[:32]}, shuffle=False).batch(16)
    seen = []

    class Record(ms.Callback):
        def on_train_epoch_end(self, run_context):
            cb = run_context.original_args()
            seen.append((cb.cur_epoch_num, cb.eval_results["loss"]))

    stop = ms.EarlyStopping(monitor="eval_loss", patience=1, restore_best_weights=True)
    model.fit(30, train, valid, callbacks=[Record(), stop])
    losses = [v for _, v in seen]
    best = int(np.argmin(losses))
    assert stop.stopped_epoch and len(seen) < 30
    assert stop.stopped_epoch == best + 1 + 2  # stopped after patience + 1 epochs without improvement
    w = stop.best_weights
    assert w is not None and all(np.array_equal(p.asnumpy(), w[p.name]) for p in net.get_parameters())


def test_reduce_lr_on_plateau_and_learning_rate_scheduler():
    x, y = _data()
    train = NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(16)
    model, _, opt = _model(lr=0.5)
    plateau = ms.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=10.0, min_lr=0.1)
    model.train(4, train, callbacks=[plateau])  # min_delta 10: never an improvement after epoch 1
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.1)  # 0.5 -> 0.25 -> 0.125 -> floor 0.1
    model, _, opt = _model(lr=0.4)
    model.train(2, train, callbacks=[ms.LearningRateScheduler(lambda lr, step: lr / 2 if step % 4 == 0 else lr)])
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.1)  # halved after steps 4 and 8


def test_summary_collector_writes_csv_and_jsonl(tmp_path):
    x, y = _data()
    train = NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(16)
    valid = NumpySlicesDataset({"x": x[:16], "y": y[:16]}, shuffle=False).batch(16)
    model, _, _ = _model()
    model.fit(2, train, valid, callbacks=[ms.SummaryCollector(str(tmp_path / "summary"), collect_freq=2)])
    rows = list(csv.DictReader(open(tmp_path / "summary" / "scalars.csv")))
    tags = {r["tag"] for r in rows}
    assert {"loss", "learning_rate", "eval_acc", "eval_loss"} <= tags
    assert [int(r["step"]) for r in rows if r["tag"] == "loss"] == [2, 4, 6, 8]
    lines = [json.loads(line) for line in open(tmp_path / "summary" / "scalars.jsonl")]
    assert len(lines) == len(rows) and all(np.isfinite(line["value"]) for line in lines)
