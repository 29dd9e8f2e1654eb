"""Checkpoints: round trips (values, dtypes, names), the documented file layout (parsed here by
hand), atomic writes, and detection of corrupt / truncated / foreign files."""
import hashlib
import json
import os
import struct

import numpy as np
import pytest

import runtime as ms
from runtime import nn
from runtime.train import checkpoint as ckpt_mod


def make_net(seed=0):
    ms.set_seed(seed)
    return nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])


def values(net):
    return {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}


def parse_by_hand(path):
    """Independent reader of the documented layout."""
    raw = open(path, "rb").read()
    assert raw[:8] == b"\x89MSJCKPT"
    version, index_len = struct.unpack_from("<IQ", raw, 8)
    index = json.loads(raw[20:20 + index_len])
    assert hashlib.sha256(raw[:-32]).digest() == raw[-32:]
    assert len(raw) == index["data_start"] + index["data_size"] + 32
    out = {}
    for t in index["tensors"]:
        start = index["data_start"] + t["offset"]
        buf = raw[start:start + t["nbytes"]]
        out[t["name"]] = (np.frombuffer(buf, np.dtype(t["dtype"]).newbyteorder("<")).reshape(t["shape"])
                          if t["dtype"] != "string" else buf.decode())
    return version, out


def test_cell_round_trip(tmp_path):
    net = make_net(0)
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(isinstance(p, ms.Parameter) and p.name == n for n, p in loaded.items())
    ref = values(net)
    for name, p in loaded.items():
        np.testing.assert_array_equal(p.asnumpy(), ref[name])
        assert p.dtype == ms.float32
    other = make_net(1)
    assert any((values(other)[n] != ref[n]).any() for n in ref)
    not_loaded, unused = ms.load_param_into_net(other, loaded)
    assert not_loaded == [] and unused == []
    for n, v in values(other).items():
        np.testing.assert_array_equal(v, ref[n])
    # load_checkpoint(net=...) loads too
    third = make_net(2)
    ms.load_checkpoint(path, net=third)
    for n, v in values(third).items():
        np.testing.assert_array_equal(v, ref[n])
    # and the file follows the documented layout
    version, raw = parse_by_hand(path)
    assert version == 1 and set(raw) == set(ref)
    for n in ref:
        np.testing.assert_array_equal(raw[n], ref[n])


def test_all_dtypes_dict_and_list_forms(tmp_path, rng):
    data = {
        "f32": rng.normal(size=(2, 3)).astype(np.float32),
        "f16": rng.normal(size=(5,)).astype(np.float16),
        "f64": rng.normal(size=(1, 1, 2)).astype(np.float64),
        "i8": np.array([-3, 4], np.int8), "i16": np.array([300], np.int16),
        "i32": np.arange(6, dtype=np.int32).reshape(2, 3), "i64": np.array(2 ** 40, np.int64),
        "u8": np.array([0, 255], np.uint8), "b": np.array([True, False, True]),
        "empty": np.zeros((0, 4), np.float32),
    }
    path = str(tmp_path / "d.ckpt")
    ms.save_checkpoint({k: ms.Tensor(v) for k, v in data.items()}, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == list(data)
    for k, v in data.items():
        got = loaded[k].asnumpy()
        assert got.dtype == v.dtype and got.shape == v.shape, k
        np.testing.assert_array_equal(got, v)
    path2 = str(tmp_path / "l.ckpt")
    ms.save_checkpoint([{"name": "w", "data": ms.Parameter(ms.Tensor(data["f32"]), name="w")},
                        {"name": "step", "data": ms.Tensor(np.array(3, np.int32))}], path2,
                       append_dict={"epoch_num": 7, "lr": 0.5, "note": "hello"})
    loaded = ms.load_checkpoint(path2)
    assert list(loaded) == ["w", "step", "epoch_num", "lr", "note"]
    assert int(loaded["epoch_num"].asnumpy()) == 7 and loaded["epoch_num"].dtype == ms.int64
    assert abs(float(loaded["lr"].asnumpy()) - 0.5) < 1e-7
    assert loaded["note"] == "hello"


def test_suffix_and_prefix_filters(tmp_path):
    net = make_net(0)
    ms.save_checkpoint(net, str(tmp_path / "noext"))
    assert os.path.isfile(tmp_path / "noext.ckpt")
    path = str(tmp_path / "noext.ckpt")
    assert list(ms.load_checkpoint(path, filter_prefix="0.")) == ["2.weight", "2.bias"]
    assert list(ms.load_checkpoint(path, specify_prefix=["2."])) == ["2.weight", "2.bias"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == ["0.bias", "2.bias"]
    ms.save_checkpoint(net, str(tmp_path / "some.ckpt"), choice_func=lambda n: "weight" in n)
    assert list(ms.load_checkpoint(str(tmp_path / "some.ckpt"))) == ["0.weight", "2.weight"]


def test_atomic_write_leaves_no_partial_file(tmp_path, monkeypatch):
    path = str(tmp_path / "model.ckpt")
    net = make_net(0)
    ms.save_checkpoint(net, path)
    before = open(path, "rb").read()
    calls = {"n": 0}
    real = ckpt_mod._write_array

    def failing(f, hasher, arr):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full (simulated)")
        return real(f, hasher, arr)

    monkeypatch.setattr(ckpt_mod, "_write_array", failing)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint(make_net(3), path)
    assert sorted(os.listdir(tmp_path)) == ["model.ckpt"]  # no temp file left behind
    assert open(path, "rb").read() == before  # the old checkpoint is intact
    new_path = str(tmp_path / "new.ckpt")
    calls["n"] = 0
    with pytest.raises(OSError):
        ms.save_checkpoint(make_net(3), new_path)
    assert not os.path.exists(new_path) and sorted(os.listdir(tmp_path)) == ["model.ckpt"]


def corrupt_copy(tmp_path, src, name, mutate):
    raw = bytearray(open(src, "rb").read())
    raw = mutate(raw)
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        f.write(bytes(raw))
    return path


@pytest.fixture
def saved(tmp_path):
    path = str(tmp_path / "good.ckpt")
    ms.save_checkpoint(make_net(0), path)
    return path


def test_detects_flipped_byte_in_data(tmp_path, saved):
    def flip(raw):
        raw[-40] ^= 0x01  # inside the array bytes
        return raw
    path = corrupt_copy(tmp_path, saved, "flip.ckpt", flip)
    with pytest.raises(ValueError, match="checksum") as e:
        ms.load_checkpoint(path)
    assert path in str(e.value)


def test_detects_flipped_byte_in_index(tmp_path, saved):
    def flip(raw):
        raw[30] ^= 0x20  # inside the JSON index
        return raw
    path = corrupt_copy(tmp_path, saved, "idx.ckpt", flip)
    with pytest.raises(ValueError, match="corrupt") as e:
        ms.load_checkpoint(path)
    assert path in str(e.value)


@pytest.mark.parametrize("keep", [-100, 100, 30, 12, 0])
def test_detects_truncation(tmp_path, saved, keep):
    size = os.path.getsize(saved)
    path = corrupt_copy(tmp_path, saved, "cut.ckpt", lambda raw: raw[:keep])
    with pytest.raises(ValueError) as e:
        ms.load_checkpoint(path)
    msg = str(e.value)
    assert path in msg
    if keep >= 30 or keep < 0:
        assert "truncated" in msg
    if keep < 0:  # the index is intact: expected and actual sizes are named
        assert f"expected {size} bytes, found {size + keep}" in msg


def test_detects_foreign_files_and_versions(tmp_path, saved):
    text = tmp_path / "notes.ckpt"
    text.write_text("this is not a checkpoint\n" * 10)
    with pytest.raises(ValueError, match="not a checkpoint") as e:
        ms.load_checkpoint(str(text))
    assert str(text) in str(e.value)

    def bump(raw):
        raw[8:12] = struct.pack("<I", 99)
        return raw
    path = corrupt_copy(tmp_path, saved, "v99.ckpt", bump)
    with pytest.raises(ValueError, match="version 99"):
        ms.load_checkpoint(path)
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))
    appended = corrupt_copy(tmp_path, saved, "long.ckpt", lambda raw: raw + b"extra")
    with pytest.raises(ValueError, match="longer"):
        ms.load_checkpoint(appended)


def test_load_param_into_net_shape_and_dtype_checks(tmp_path):
    net = make_net(0)
    params = {n: ms.Parameter(ms.Tensor(v), name=n) for n, v in values(net).items()}
    params["0.weight"] = ms.Parameter(ms.Tensor(np.zeros((5, 4), np.float32)), name="0.weight")
    with pytest.raises(ValueError) as e:
        ms.load_param_into_net(make_net(1), params)
    msg = str(e.value)
    assert "'0.weight'" in msg and "(3, 4)" in msg and "(5, 4)" in msg
    # float64 values load into float32 parameters (converted) unless strict_load
    f64 = {n: ms.Tensor(v.astype(np.float64)) for n, v in values(net).items()}
    target = make_net(1)
    assert ms.load_param_into_net(target, f64) == ([], [])
    assert target.trainable_params()[0].dtype == ms.float32
    np.testing.assert_allclose(values(target)["0.weight"], values(net)["0.weight"])
    with pytest.raises(ValueError, match="dtype"):
        ms.load_param_into_net(make_net(1), f64, strict_load=True)
    ints = {"0.bias": ms.Tensor(np.zeros(3, np.int32))}
    with pytest.raises(ValueError, match="dtype"):
        ms.load_param_into_net(make_net(1), ints)
    # partial dicts: report what was not loaded on both sides
    partial = {"0.weight": params["2.weight"], "2.bias": ms.Tensor(values(net)["2.bias"]),
               "extra": ms.Tensor(np.zeros(1, np.float32))}
    partial.pop("0.weight")
    not_loaded, unused = ms.load_param_into_net(make_net(1), partial)
    assert not_loaded == ["0.weight", "0.bias", "2.weight"] and unused == ["extra"]
    with pytest.raises(TypeError):
        ms.load_param_into_net(net, [1, 2])


def test_train_network_checkpoint_loads_into_plain_network(tmp_path):
    net = make_net(0)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                                        reduction="mean")), opt)
    path = str(tmp_path / "train.ckpt")
    ms.save_checkpoint(train, path)
    loaded = ms.load_checkpoint(path)
    assert "moments.0.weight" in loaded and "0.weight" in loaded
    fresh = make_net(5)
    not_loaded, unused = ms.load_param_into_net(fresh, loaded)
    assert not_loaded == [] and "moments.0.weight" in unused
    for n, v in values(fresh).items():
        np.testing.assert_array_equal(v, values(net)[n])


def test_a_writer_killed_mid_save_leaves_no_temp_file_behind_after_the_next_save(tmp_path):
    # issue 11 item 7: kill -9 during a save keeps the old file and used to leave a full-size
    # hidden .tmp per kill; the next save (or load) removes temp files of dead writers
    import signal
    import subprocess
    import sys
    import textwrap
    path = str(tmp_path / "big.ckpt")
    ms.save_checkpoint({"w": ms.Tensor(np.arange(4, dtype=np.float32))}, path)
    writer = textwrap.dedent(f"""
        import numpy as np, runtime as ms
        from runtime.train import checkpoint
        real = checkpoint._write_array
        def slow(f, hasher, data):
            real(f, hasher, data)
            print("writing", flush=True)
            import time; time.sleep(60)
        checkpoint._write_array = slow
        ms.save_checkpoint({{"w": ms.Tensor(np.ones(1 << 20, np.float32))}}, {path!r})
    """)
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "writing"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    temps = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    assert len(temps) == 1  # each new save removed the previous dead writer's file; the last one's is left
    assert ms.load_checkpoint(path)["w"].asnumpy().tolist() == [0, 1, 2, 3]  # old file intact
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]  # load cleaned them
    # a live writer's temp file is never touched
    live = tmp_path / f".big.ckpt.{ckpt_mod._HOST}.{os.getpid()}.abc.tmp"
    live.write_bytes(b"x")
    ms.save_checkpoint({"w": ms.Tensor(np.zeros(2, np.float32))}, path)
    assert live.exists() and ms.load_checkpoint(path)["w"].asnumpy().tolist() == [0, 0]
