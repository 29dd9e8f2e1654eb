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
from runtime.train import RunContext
from runtime.train.callbacks import _InternalCallbackParam


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
    # MindSpore: wait >= patience -- the first epoch after the best one already stops (patience 1)
    assert stop.stopped_epoch == best + 1 + 1 == len(seen)
    w = stop.best_weights
    assert w is not None and all(np.array_equal(p.asnumpy(), w[p.name]) for p in net.get_parameters())


def _drive(callback, results, optimizer=None, network=None, per_epoch=None):
    """MindSpore's callback test harness: one epoch-end per entry of ``results`` (the epoch's
    eval_results); stops when a stop is requested. Returns the epochs run and the learning rates."""
    cb_params = _InternalCallbackParam()
    cb_params.optimizer, cb_params.train_network = optimizer, network
    run_context = RunContext(cb_params)
    callback.on_train_begin(run_context)
    lrs = []
    for i, result in enumerate(results):
        callback.on_train_epoch_begin(run_context)
        cb_params.cur_epoch_num = i + 1
        if per_epoch is not None:
            per_epoch(i + 1)
        cb_params.eval_results = result
        callback.on_train_epoch_end(run_context)
        if optimizer is not None:
            lrs.append(float(optimizer.learning_rate.asnumpy()))
        if run_context.get_stop_requested():
            break
    callback.on_train_end(run_context)
    return cb_params.cur_epoch_num, lrs


# MindSpore's tests/st/callback/test_early_stop_and_reduce_lr.py, case for case
@pytest.mark.parametrize("losses, patience, cooldown, lrs", [
    ([1.0, 1.1, 1.2], 2, 0, [1.0, 1.0, 0.1]),
    ([1.0, 1.1, 0.9, 1.0, 1.1], 2, 0, [1.0, 1.0, 1.0, 1.0, 0.1]),
    ([1.0, 1.1, 1.0, 1.0, 1.1], 2, 0, [1.0, 1.0, 0.1, 0.1, 0.01]),
    ([1.0, 1.1, 1.0, 1.0, 1.1, 1.2], 2, 1, [1.0, 1.0, 0.1, 0.1, 0.01, 0.01]),
    ([1.0, 1.1, 1.0, 1.0, 1.1, 1.2], 2, 2, [1.0, 1.0, 0.1, 0.1, 0.1, 0.01]),
])
def test_reduce_lr_on_plateau_matches_mindspore_cases(losses, patience, cooldown, lrs):
    net = nn.Dense(1, 1)
    opt = nn.Momentum(net.trainable_params(), learning_rate=1.0, momentum=0.9)
    cb = ms.ReduceLROnPlateau(monitor="eval_loss", patience=patience, cooldown=cooldown)
    _, got = _drive(cb, [{"eval_loss": v} for v in losses], optimizer=opt)
    np.testing.assert_allclose(got, lrs, atol=1e-7)


@pytest.mark.parametrize("baseline, accuracy, patience, stop_epoch", [
    (0.3, [0.6, 0.5, 0.7, 0.5, 0.6], 2, 5),
    (0.55, [0.6, 0.3, 0.5, 0.5], 2, 3),
    (0.6, [0.5, 0.4, 0.7, 0.6, 0.5, 0.6], 3, 6),
])
def test_early_stopping_baseline_matches_mindspore_cases(baseline, accuracy, patience, stop_epoch, capsys):
    cb = ms.EarlyStopping(monitor="accuracy", patience=patience, baseline=baseline, verbose=True)
    epochs, _ = _drive(cb, [{"accuracy": a} for a in accuracy])
    assert epochs == stop_epoch == cb.stopped_epoch
    assert "Epoch %05d: early stopping" % stop_epoch in capsys.readouterr().out


def test_early_stopping_restores_the_weights_of_the_best_epoch_as_mindspore():
    # MindSpore's case: eval losses 1.0, 0.8, 1.2, ... with patience 1 stop at epoch 3 and the
    # weights of epoch 2 come back
    net = nn.Dense(2, 1)
    snapshots = {}

    def train_epoch(epoch):
        for p in net.get_parameters():
            p.set_data(p.asnumpy() + epoch)  # each epoch changes the weights
        snapshots[epoch] = {p.name: p.asnumpy().copy() for p in net.get_parameters()}

    cb = ms.EarlyStopping(patience=1, monitor="eval_loss", restore_best_weights=True)
    epochs, _ = _drive(cb, [{"eval_loss": v} for v in [1.0, 0.8, 1.2, 1.3, 1.4]], network=net,
                       per_epoch=train_epoch)
    assert epochs == 3 == cb.stopped_epoch
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), snapshots[2][p.name])


@pytest.mark.parametrize("patience, values, stop_epoch", [
    (0, [1.0, 0.5, 0.2], 1),            # wait >= 0 holds at once: the first epoch stops
    (1, [1.0, 0.9, 0.9, 0.8], 3),       # 0.9 again is no improvement: wait 1 at epoch 3
    (2, [1.0, 0.9, 0.95, 0.92, 0.5], 4),
    (3, [1.0, 0.9, 0.8, 0.7, 0.6], None),  # improving every epoch: never stops
])
def test_early_stopping_stops_when_wait_reaches_patience(patience, values, stop_epoch):
    # oracle: the rule written out -- count epochs since the best one, stop when count >= patience
    cb = ms.EarlyStopping(monitor="loss_value_min", patience=patience, mode="min")
    epochs, _ = _drive(cb, [{"loss_value_min": v} for v in values])
    assert cb.stopped_epoch == (stop_epoch or 0) and epochs == (stop_epoch or len(values))


@pytest.mark.parametrize("monitor, minimising", [
    ("loss", True), ("eval_loss", True), ("mae", True), ("mse", True), ("perplexity", True),
    ("hausdorff_distance", True), ("mean_surface_distance", True), ("root_mean_square_distance", True),
    ("acc", False), ("accuracy", False), ("f1", False), ("top_5_accuracy", False),
    ("val_loss", False), ("Loss", False),  # not in MindSpore's list: maximised, as there
])
def test_auto_mode_uses_mindspore_smaller_better_list(monitor, minimising):
    for cls in (ms.EarlyStopping, ms.ReduceLROnPlateau):
        cb = cls(monitor=monitor)
        assert cb.mode == "auto" and cb.best == (np.inf if minimising else -np.inf)
        assert cb.is_improvement(0.5, 0.6) is minimising and cb.is_improvement(0.7, 0.6) is not minimising
    assert ms.EarlyStopping(monitor=monitor, mode="max").best == -np.inf
    assert ms.EarlyStopping(monitor=monitor, mode="min").best == np.inf


def test_monitor_callbacks_refuse_bad_arguments_and_non_scalar_monitors():
    with pytest.raises(ValueError, match="mode"):
        ms.EarlyStopping(mode="up")
    with pytest.raises(ValueError, match="patience"):
        ms.ReduceLROnPlateau(patience=-1)
    with pytest.raises(ValueError, match="factor"):
        ms.ReduceLROnPlateau(factor=1.0)
    with pytest.raises(ValueError, match="scalar"):
        _drive(ms.EarlyStopping(monitor="acc"), [{"acc": np.array([0.5, 0.6])}])
    net = nn.Dense(1, 1)
    opt = nn.SGD(net.trainable_params(), learning_rate=[0.1, 0.05])
    with pytest.raises(ValueError, match="learning rate"):
        _drive(ms.ReduceLROnPlateau(monitor="eval_loss"), [{"eval_loss": 1.0}], optimizer=opt)


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


def test_mae_mse_divide_the_summed_error_by_the_number_of_samples():
    # MindSpore's documented examples (float32 inputs, the error summed in float32)
    x = Tensor(np.array([0.1, 0.2, 0.6, 0.9]), ms.float32)
    mae, mse = nn.MAE(), nn.MSE()
    mae.update(x, Tensor(np.array([0.1, 0.25, 0.7, 0.9]), ms.float32))
    mse.update(x, Tensor(np.array([0.1, 0.25, 0.5, 0.9]), ms.float32))
    assert isinstance(mae.eval(), np.float64)
    assert repr(float(mae.eval())) == "0.037499990314245224"
    assert repr(float(mse.eval())) == "0.0031250009778887033"
    # samples of several values: numpy's sum over all elements / number of rows, over two updates
    rng = np.random.default_rng(3)
    pred = rng.standard_normal((10, 3, 2))
    true = rng.standard_normal((10, 3, 2))
    for metric, err in ((nn.MAE(), np.abs(pred - true)), (nn.MSE(), (pred - true) ** 2)):
        metric.update(Tensor(pred[:4]), Tensor(true[:4]))
        metric.update(pred[4:], true[4:].reshape(6, 6))  # y reshaped to y_pred's shape
        assert metric.eval() == pytest.approx(err.sum() / 10, rel=1e-12)
        assert metric.eval() == pytest.approx(6 * err.mean(), rel=1e-12)  # not the element mean
    with pytest.raises(RuntimeError, match="samples"):
        nn.MAE().eval()
    with pytest.raises(ValueError, match="shape"):
        nn.MSE().update(np.ones((2, 3)), np.ones((4,)))
