"""runtime.train: Model.train/eval/fit/predict, the callback protocol and the built-in callbacks'
printed formats, ModelCheckpoint's rotation, and the progress bar's output budget."""
import io
import os
import re

import numpy as np
import pytest

import runtime as ms
from runtime import nn
from runtime.data import NumpySlicesDataset
from runtime.train import Callback, History, LambdaCallback, ProgressBar

LOSS_LINE = re.compile(r"^epoch: (\d+) step: (\d+), loss is (\S+)$")
TIME_LINE = re.compile(r"^Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms$")
EVAL_LINE = re.compile(r"^Eval result: epoch (\d+), metrics: \{'Accuracy': ([0-9.]+)\}$")


def blobs(n=96, seed=0):
    r = np.random.default_rng(seed)
    y = r.integers(0, 3, size=n)
    centers = np.array([[2.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 2.0, 0]], np.float32)
    x = (centers[y] + r.normal(scale=0.7, size=(n, 4))).astype(np.float32)
    return x, y.astype(np.int32)


def dataset(x, y, batch=16, drop=False):
    return NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch, drop_remainder=drop)


def make_model(lr=0.2, metrics=True, seed=0):
    ms.set_seed(seed)
    net = nn.Dense(4, 3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    model = ms.Model(net, loss, opt, metrics={"Accuracy": nn.Accuracy()} if metrics else None)
    return net, model


@pytest.fixture(autouse=True)
def _no_tty_bar(monkeypatch):
    monkeypatch.setenv("RUNTIME_PROGRESS", "0")


def test_train_decreases_loss_and_prints_mindspore_format(capsys):
    x, y = blobs()
    net, model = make_model()
    model.train(4, dataset(x, y), callbacks=[ms.LossMonitor(), ms.TimeMonitor()])
    lines = capsys.readouterr().out.strip().splitlines()
    loss_lines = [LOSS_LINE.match(l) for l in lines if l.startswith("epoch:")]
    time_lines = [l for l in lines if l.startswith("Train epoch time")]
    assert len(loss_lines) == 4 * 6 and all(loss_lines)
    assert [(int(m.group(1)), int(m.group(2))) for m in loss_lines] == [(e, s) for e in range(1, 5) for s in range(1, 7)]
    losses = np.array([float(m.group(3)) for m in loss_lines]).reshape(4, 6)
    assert np.isfinite(losses).all()
    assert losses[-1].mean() < 0.5 * losses[0].mean()
    assert len(time_lines) == 4 and all(TIME_LINE.match(l) for l in time_lines)
    # numpy oracle: the cross-entropy of the trained weights on the whole set is below the first epoch's
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    logits = x @ w.T + b
    logp = logits - logits.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    assert -logp[np.arange(len(y)), y].mean() < losses[0].mean()


def test_loss_monitor_per_print_times_and_sink_mode(capsys):
    x, y = blobs()
    _, model = make_model()
    model.train(2, dataset(x, y), callbacks=ms.LossMonitor(4))
    steps = [(int(m.group(1)), int(m.group(2))) for m in map(LOSS_LINE.match, capsys.readouterr().out.splitlines()) if m]
    assert steps == [(1, 4), (2, 2), (2, 6)]  # global steps 4, 8, 12 shown as steps within their epoch
    model.train(3, dataset(x, y), callbacks=ms.LossMonitor(), dataset_sink_mode=True)
    steps = [(int(m.group(1)), int(m.group(2))) for m in map(LOSS_LINE.match, capsys.readouterr().out.splitlines()) if m]
    assert steps == [(1, 6), (2, 6), (3, 6)]  # once per sunk epoch
    with pytest.raises(ValueError):
        ms.LossMonitor(-1)


def test_eval_accuracy_equals_numpy():
    x, y = blobs(n=90, seed=1)
    net, model = make_model()
    model.train(2, dataset(x, y))
    ds = dataset(x, y, batch=16)  # 90 rows: the last batch is partial and counts too
    acc = model.eval(ds)["Accuracy"]
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    ref = float(np.mean(np.argmax(x @ w.T + b, axis=1) == y))
    assert acc == pytest.approx(ref, abs=1e-12)
    assert 0.5 < acc <= 1.0
    # metrics given by name, and the Loss metric through the eval network's (loss, logits, label)
    _, m2 = make_model(metrics=False)
    m3 = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), metrics={"accuracy", "loss"})
    res = m3.eval(ds)
    assert res["accuracy"] == pytest.approx(ref)
    logits = x @ w.T + b
    lse = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
    batch_losses = [np.mean(lse[i:i + 16] - logits[np.arange(i, min(i + 16, 90)), y[i:i + 16]]) for i in range(0, 90, 16)]
    assert res["loss"] == pytest.approx(np.mean(batch_losses), rel=1e-5)
    with pytest.raises(ValueError, match="metrics"):
        m2.eval(ds)
    with pytest.raises(ValueError, match="unknown metric"):
        ms.Model(net, metrics={"nonsense"})


def test_fit_prints_eval_results(capsys):
    x, y = blobs()
    _, model = make_model()
    model.fit(2, dataset(x, y), dataset(x, y), callbacks=[ms.LossMonitor(6)])
    out = capsys.readouterr().out.splitlines()
    evals = [EVAL_LINE.match(l) for l in out if l.startswith("Eval result")]
    assert [int(m.group(1)) for m in evals] == [1, 2]
    assert out.index(next(l for l in out if l.startswith("Eval result: epoch 1"))) == 1  # after epoch 1's loss
    # without a LossMonitor the results are still printed, once each; valid_frequency=2
    _, model = make_model()
    model.fit(4, dataset(x, y), dataset(x, y), valid_frequency=2)
    out = capsys.readouterr().out.splitlines()
    assert [int(EVAL_LINE.match(l).group(1)) for l in out if l.startswith("Eval result")] == [2, 4]
    hist = History()
    model.fit(2, dataset(x, y), dataset(x, y), valid_frequency=[2], callbacks=hist)
    assert hist.epoch == [1, 2] and len(hist.history["Accuracy"]) == 1


def test_train_and_eval_modes_and_predict():
    seen = []

    class Probe(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)

        def construct(self, x):
            seen.append(self.training)
            return self.fc(x)

    x, y = blobs(n=32)
    net = Probe()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.SGD(net.trainable_params(), 0.1), metrics={"Accuracy": nn.Accuracy()})
    model.train(1, dataset(x, y))
    assert seen and all(seen)
    seen.clear()
    model.eval(dataset(x, y))
    assert seen and not any(seen)
    seen.clear()
    out = model.predict(ms.Tensor(x[:5]))
    assert seen == [False]
    np.testing.assert_allclose(out.asnumpy(), x[:5] @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy(),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="optimizer"):
        ms.Model(net).train(1, dataset(x, y))
    with pytest.raises(TypeError, match="Dataset"):
        model.train(1, [(x, y)])


def test_callback_protocol_order_and_stop():
    events = []

    class Recorder(Callback):
        def on_train_begin(self, rc):
            cb = rc.original_args()
            events.append(("train_begin", cb.epoch_num, cb.batch_num))

        def epoch_begin(self, rc):  # the MindSpore 1.x name still works
            events.append(("epoch_begin", rc.original_args().cur_epoch_num))

        def on_train_step_end(self, rc):
            cb = rc.original_args()
            events.append(("step", cb.cur_epoch_num, cb.cur_step_num, float(cb.net_outputs.asnumpy())))
            if cb.cur_step_num == 8:
                rc.request_stop()

        def on_train_epoch_end(self, rc):
            events.append(("epoch_end", rc.original_args().cur_epoch_num))

        def end(self, rc):
            events.append(("end",))

    x, y = blobs()
    _, model = make_model()
    model.train(5, dataset(x, y), callbacks=[Recorder()])
    names = [e[0] for e in events]
    assert names == (["train_begin", "epoch_begin"] + ["step"] * 6 + ["epoch_end", "epoch_begin"]
                     + ["step"] * 2 + ["epoch_end", "end"])
    assert events[0] == ("train_begin", 5, 6)
    assert [e[2] for e in events if e[0] == "step"] == list(range(1, 9))
    calls = []
    model.train(1, dataset(x, y), callbacks=LambdaCallback(on_train_step_begin=lambda rc: calls.append(1)))
    assert len(calls) == 6
    with pytest.raises(TypeError):
        model.train(1, dataset(x, y), callbacks=[object()])


def test_nan_loss_stops_training():
    x, y = blobs(n=32)
    x[5, 0] = np.nan
    _, model = make_model()
    with pytest.raises(ValueError, match="NaN"):
        model.train(1, dataset(x, y), callbacks=ms.LossMonitor())


def test_model_checkpoint_rotation_and_naming(tmp_path):
    x, y = blobs()
    net, model = make_model()
    cfg = ms.CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=3)
    cb = ms.ModelCheckpoint(prefix="net", directory=str(tmp_path), config=cfg)
    model.train(2, dataset(x, y), callbacks=cb)
    files = sorted(os.listdir(tmp_path))
    assert files == ["net-2_4.ckpt", "net-2_5.ckpt", "net-2_6.ckpt"]
    assert cb.latest_ckpt_file_name == str(tmp_path / "net-2_6.ckpt")
    loaded = ms.load_checkpoint(cb.latest_ckpt_file_name)
    np.testing.assert_array_equal(loaded["weight"].asnumpy(), net.weight.asnumpy())
    assert "moments.weight" in loaded  # the train network (optimizer state included) is saved
    # every 4 steps, and the last step is always saved at the end; existing prefix -> net_1
    cb2 = ms.ModelCheckpoint(prefix="net", directory=str(tmp_path),
                             config=ms.CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=10,
                                                        append_info=["epoch_num", "step_num"]))
    model.train(2, dataset(x, y), callbacks=cb2)
    new = sorted(f for f in os.listdir(tmp_path) if f.startswith("net_1-"))
    assert new == ["net_1-1_4.ckpt", "net_1-2_2.ckpt", "net_1-2_6.ckpt"]
    extra = ms.load_checkpoint(str(tmp_path / "net_1-2_2.ckpt"))
    assert int(extra["epoch_num"].asnumpy()) == 2 and int(extra["step_num"].asnumpy()) == 8
    with pytest.raises(ValueError):
        ms.CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)


def test_progress_bar_output_budget():
    x, y = blobs(n=400)
    _, model = make_model()
    stream = io.StringIO()  # not a terminal: at most one line per 10%
    model.train(5, dataset(x, y, batch=4), callbacks=ProgressBar(stream=stream))  # 500 steps
    lines = stream.getvalue().splitlines()
    assert 5 <= len(lines) <= 11 and "\r" not in stream.getvalue()
    assert lines[-1].startswith("progress: 100.0% (500/500 steps")
    assert all(re.search(r" \d[\d.]* ms/step loss \d+\.\d{4}$", line) for line in lines), lines

    class FakeTTY(io.StringIO):
        def isatty(self):
            return True

    tty = FakeTTY()
    model.train(1, dataset(x, y, batch=40), callbacks=ProgressBar(stream=tty, interval=0.0))
    text = tty.getvalue()
    assert text.count("\r") >= 10 and text.endswith("\n") and "10/10" in text
    assert re.search(r"epoch 1/1 \[#+\] 10/10 100\.0% \d[\d.]* ms/step loss \d+\.\d{4} ETA 00:00", text), text
