"""ms.export / ms.load / nn.GraphCell (issue 14 item 7): nets exported to a MINDIR file run in a
fresh process that imports none of their code, with outputs exactly equal to the original net's
compiled (GRAPH_MODE) outputs and close to PyNative; every kind of foreign or damaged file is
refused with a ValueError; params_init, parameter updates, result structures, gradients and
graph-mode use of a GraphCell."""
import json
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as ms
from capture import FullGraphError
from runtime import Tensor, nn, ops
from runtime.train import checkpoint, mindir

RNG = np.random.default_rng(14)


def rand(*shape):
    return Tensor(RNG.standard_normal(shape).astype(np.float32))


# -- the nets ------------------------------------------------------------------------------------------
class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def mlp():
    return nn.SequentialCell([nn.Dense(20, 64), nn.GELU(), nn.Dense(64, 32), nn.Tanh(), nn.Dense(32, 5),
                              nn.Softmax()])


class ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="same", has_bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.bn1d = nn.BatchNorm1d(8)

    def construct(self, x):
        y = ops.relu(self.bn(self.conv(x)))
        return self.bn1d(ops.reduce_mean(y, (2, 3)))


class Layout(nn.Cell):
    """reshape / transpose / concat / slicing, two inputs, a tuple result."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 4)

    def construct(self, x, y):
        a = ops.transpose(x, (0, 2, 1))                   # (2, 6, 3)
        b = ops.reshape(y, (2, 6, 3))
        c = ops.concat((a, b), axis=2)                    # (2, 6, 6)
        d = self.fc(c.reshape(12, 6))                     # (12, 4)
        return d[:, 1:3] * 2.0, ops.stack([x[:, 0], y[:, :, 0]], 1).swapaxes(0, 1)


class Generator(nn.Cell):
    """DCGAN-style: Conv2dTranspose layers."""

    def __init__(self):
        super().__init__()
        self.up1 = nn.Conv2dTranspose(8, 4, 4, stride=2, pad_mode="pad", padding=1)
        self.up2 = nn.Conv2dTranspose(4, 1, 3, stride=1, pad_mode="same")

    def construct(self, z):
        return ops.tanh(self.up2(ops.relu(self.up1(z))))


class Recurrent(nn.Cell):
    """An LSTM and a bidirectional GRU: an (output, (h, c)) structure comes back as it is."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 7, num_layers=2, batch_first=True)
        self.gru = nn.GRU(7, 3, bidirectional=True, batch_first=True)

    def construct(self, x):
        out, (h, c) = self.lstm(x)
        out2, h2 = self.gru(out)
        return out2, (h, c), h2


def _cases():
    ms.set_seed(7)
    nets = {"lenet": (LeNet5(), (rand(2, 1, 32, 32),)),
            "mlp": (mlp(), (rand(3, 20),)),
            "convbn": (ConvBN(), (rand(2, 3, 6, 6),)),
            "layout": (Layout(), (rand(2, 3, 6), rand(2, 6, 3))),
            "generator": (Generator(), (rand(2, 8, 4, 4),)),
            "recurrent": (Recurrent(), (rand(2, 4, 5),))}
    # eval mode, with non-trivial BatchNorm statistics
    bn_net = nets["convbn"][0]
    for bn in (bn_net.bn, bn_net.bn1d):
        n = bn.moving_mean.shape[0]
        bn.moving_mean.set_data(rand(n))
        bn.moving_variance.set_data(Tensor(RNG.uniform(0.5, 2.0, n).astype(np.float32)))
        bn.gamma.set_data(rand(n))
        bn.beta.set_data(rand(n))
    for net, _ in nets.values():
        net.set_train(False)
    return nets


def flat_outputs(out):
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in flat_outputs(o)]
    return [out.asnumpy()]


def structure_of(out):
    if isinstance(out, (tuple, list)):
        return (type(out).__name__, [structure_of(o) for o in out])
    return type(out).__name__


def graph_mode(net, inputs):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return net(*inputs)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# -- the fresh process -----------------------------------------------------------------------------------
CHILD = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import runtime as ms
    from runtime import nn
    work = sys.argv[1]
    report = {}
    for name in json.load(open(os.path.join(work, "names.json"))):
        data = np.load(os.path.join(work, name + "_inputs.npz"))
        inputs = [ms.Tensor(data[f"arg{k}"]) for k in range(len(data.files))]
        cell = nn.GraphCell(ms.load(os.path.join(work, name + ".mindir")))
        out = cell(*inputs)
        def flat(o):
            return [a for x in o for a in flat(x)] if isinstance(o, (tuple, list)) else [o.asnumpy()]
        def shape(o):
            return [type(o).__name__, [shape(x) for x in o]] if isinstance(o, (tuple, list)) else type(o).__name__
        np.savez(os.path.join(work, name + "_outputs.npz"), *flat(out))
        report[name] = shape(out)
    # the nets' classes were never imported here
    report["modules"] = sorted(m for m in sys.modules if "test_export" in m or m.startswith("tests"))
    print(json.dumps(report))
""")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    work = tmp_path_factory.mktemp("exported")
    cases = _cases()
    expected = {}
    for name, (net, inputs) in cases.items():
        ms.export(net, *inputs, file_name=str(work / name), file_format="MINDIR")
        np.savez(work / f"{name}_inputs.npz", **{f"arg{k}": t.asnumpy() for k, t in enumerate(inputs)})
        eager = net(*inputs)
        compiled = graph_mode(net, inputs)
        expected[name] = (structure_of(eager), flat_outputs(eager), flat_outputs(compiled))
    (work / "names.json").write_text(json.dumps(sorted(cases)))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(work)], capture_output=True, text=True,
                          timeout=600, cwd=str(work))
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return work, cases, expected, report


@pytest.mark.parametrize("name", ["lenet", "mlp", "convbn", "layout", "generator", "recurrent"])
def test_exported_net_runs_in_a_fresh_process_with_exactly_the_compiled_outputs(exported, name):
    work, _cases_, expected, report = exported
    assert report["modules"] == []  # the child imported nothing of the test (the nets' code)
    want_structure, eager, compiled = expected[name]
    assert json.loads(json.dumps(want_structure)) == report[name]
    got = np.load(work / f"{name}_outputs.npz")
    got = [got[f"arr_{k}"] for k in range(len(got.files))]
    assert len(got) == len(compiled)
    for g, c, e in zip(got, compiled, eager):
        assert g.dtype == c.dtype and g.shape == c.shape
        np.testing.assert_array_equal(g, c)  # the same graph through the same compiler
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)  # and PyNative's numbers


def test_the_file_name_gets_the_mindir_suffix_once(tmp_path):
    net, x = nn.Dense(3, 2), rand(1, 3)
    ms.export(net, x, file_name=str(tmp_path / "a"), file_format="MINDIR")
    ms.export(net, x, file_name=str(tmp_path / "b.mindir"), file_format="MINDIR")
    ms.export(net, x, file_name=str(tmp_path / "sub" / "c"))  # MINDIR is the default; folders are made
    assert sorted(os.listdir(tmp_path)) == ["a.mindir", "b.mindir", "sub"]
    assert os.listdir(tmp_path / "sub") == ["c.mindir"]


@pytest.mark.parametrize("fmt", ["AIR", "ONNX"])
def test_other_mindspore_formats_are_refused_naming_the_one_written(tmp_path, fmt):
    with pytest.raises(ValueError, match=f"does not write {fmt}.*'MINDIR'"):
        ms.export(nn.Dense(3, 2), rand(1, 3), file_name=str(tmp_path / "m"), file_format=fmt)
    with pytest.raises(ValueError, match=r"one of \['MINDIR', 'AIR', 'ONNX'\]"):
        ms.export(nn.Dense(3, 2), rand(1, 3), file_name=str(tmp_path / "m"), file_format="mindir")
    assert os.listdir(tmp_path) == []


def test_export_argument_errors(tmp_path):
    net = nn.Dense(3, 2)
    with pytest.raises(TypeError, match="input 0 must be a Tensor"):
        ms.export(net, np.ones((1, 3), np.float32), file_name=str(tmp_path / "m"))
    with pytest.raises(ValueError, match="give the net's inputs"):
        ms.export(net, file_name=str(tmp_path / "m"))
    with pytest.raises(ValueError, match="enc_key"):
        ms.export(net, rand(1, 3), file_name=str(tmp_path / "m"), enc_key=b"0" * 16)
    with pytest.raises(TypeError, match="unknown option"):
        ms.export(net, rand(1, 3), file_name=str(tmp_path / "m"), quantize=True)
    with pytest.raises(TypeError, match="Cell or a function"):
        ms.export(3, rand(1, 3), file_name=str(tmp_path / "m"))
    with pytest.raises(ValueError, match="BiasAdd|MatMul|matmul"):  # the user's shape error, as PyNative says it
        ms.export(net, rand(1, 4), file_name=str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []


class Breaks(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:  # a branch on a tensor's value: no single graph
            return x
        return -x


class SideEffect(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seen = []

    def construct(self, x):
        self.seen.append(1)
        return x * 2


def test_nets_that_are_not_one_graph_are_refused_with_the_reason(tmp_path):
    with pytest.raises(FullGraphError, match=r"(?s)Breaks.construct cannot be captured as one graph: "
                                              r"branch on a tensor value.*if x.sum\(\) > 0"):
        ms.export(Breaks(), rand(3), file_name=str(tmp_path / "m"))
    with pytest.raises(ValueError, match="side effects"):
        ms.export(SideEffect(), rand(3), file_name=str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []  # nothing written, not even a temp file


# -- refusing foreign and damaged files ------------------------------------------------------------------
@pytest.fixture
def good_file(tmp_path):
    ms.set_seed(3)
    net, x = mlp(), rand(3, 20)
    path = str(tmp_path / "good.mindir")
    ms.export(net, x, file_name=path)
    return path, net, x


def _write_doc(path, doc, tensors, version=mindir.VERSION):
    """A file with a valid checksum around a (doctored) graph document."""
    entries = [(n, a.dtype.name, list(a.shape), a) for n, a in tensors]
    checkpoint.write_tensor_file(path, entries, mindir.MAGIC, version, mindir.FORMAT, {"graph": doc})


def _doc_and_tensors(path):
    index, entries = checkpoint.read_tensor_file(path, mindir.MINDIR)
    return index["graph"], entries


def test_load_argument_checks_follow_mindspore(tmp_path, good_file):
    with pytest.raises(ValueError, match="must be a string"):
        ms.load(3)
    with pytest.raises(ValueError, match="must end with '.mindir'"):
        ms.load(str(tmp_path / "x.onnx"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "missing.mindir"))
    with pytest.raises(ValueError, match="not supported"):
        ms.load(good_file[0], dec_key=b"0" * 16)


def test_files_of_other_formats_are_refused_saying_what_they_are(tmp_path):
    ckpt = tmp_path / "weights.ckpt"
    ms.save_checkpoint(nn.Dense(2, 2), str(ckpt))
    cases = {"ckpt.mindir": (ckpt.read_bytes(), "a checkpoint of this framework"),
             "zip.mindir": (b"PK\x03\x04rest", "zip archive"),
             "pickle.mindir": (b"\x80\x04\x95rest", "pickle"),
             "npy.mindir": (b"\x93NUMPY\x01\x00", "numpy"),
             "proto.mindir": (b"\x0a\x051.0.0\x12\x08MindSpore", "protobuf"),
             "text.mindir": (b"graph f(x) { return x }\n", "not a MINDIR file of this framework"),
             "empty.mindir": (b"", "the file is empty")}
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=message):
            ms.load(str(tmp_path / name))


def test_truncated_and_corrupted_files_are_detected(good_file):
    path = good_file[0]
    raw = open(path, "rb").read()
    for cut in (10, 30, len(raw) // 2, len(raw) - 1):
        with open(path, "wb") as f:
            f.write(raw[:cut])
        with pytest.raises(ValueError, match="truncated"):
            ms.load(path)
    flipped = bytearray(raw)
    flipped[len(raw) - 100] ^= 0x01  # a bit of the last parameter
    with open(path, "wb") as f:
        f.write(flipped)
    with pytest.raises(ValueError, match="checksum"):
        ms.load(path)
    with open(path, "wb") as f:
        f.write(raw + b"\0")
    with pytest.raises(ValueError, match="longer than its index says"):
        ms.load(path)


def test_an_unsupported_format_version_is_refused(good_file):
    path = good_file[0]
    doc, entries = _doc_and_tensors(path)
    _write_doc(path, doc, entries, version=2)
    with pytest.raises(ValueError, match="unsupported MINDIR format version 2 .*reads version 1"):
        ms.load(path)
    raw = bytearray(open(path, "rb").read())
    struct.pack_into("<I", raw, 8, 1)  # version 1 in a file written as 2: the checksum says so
    open(path, "wb").write(raw)
    with pytest.raises(ValueError, match="checksum"):
        ms.load(path)


@pytest.mark.parametrize("damage, message", [
    (lambda d: d["nodes"][0].update(op="evil_op"), "node 0: unknown op 'evil_op'"),
    (lambda d: d["nodes"][0].update(op="__import__('os').system('echo hi')"), "unknown op"),
    (lambda d: d["nodes"][0]["attrs"].update(transpose_b={"pickle": "gASV"}), "not a value this format writes"),
    (lambda d: d["nodes"][0]["attrs"].update(bogus=1), "unknown attribute"),
    (lambda d: d["nodes"][0]["outputs"][0].update(shape=[3, 65]), "records outputs"),
    (lambda d: d["nodes"][0]["operands"].__setitem__(0, {"value": 999}), "not defined before it is used"),
    (lambda d: d["inputs"][0].update(dtype="complex64"), "unknown dtype"),
    (lambda d: d["structure"].update(output=7), "not a valid structure node"),
    (lambda d: d.pop("nodes"), "malformed graph document"),
    (lambda d: d["inputs"][1].update(shape=[5, 5]), "its data is float32"),
])
def test_a_damaged_graph_document_is_refused(good_file, damage, message):
    path = good_file[0]
    doc, entries = _doc_and_tensors(path)
    damage(doc)
    _write_doc(path, doc, entries)
    with pytest.raises(ValueError, match=message):
        ms.load(path)


def test_a_missing_parameter_array_is_refused(good_file):
    path = good_file[0]
    doc, entries = _doc_and_tensors(path)
    _write_doc(path, doc, entries[1:])
    with pytest.raises(ValueError, match="its data 'parameter:0.weight' is missing"):
        ms.load(path)


# -- GraphCell behaviour -----------------------------------------------------------------------------------
def test_params_init_replaces_values_by_name_and_ignores_unknown_names(good_file):
    path, net, x = good_file
    new_w = rand(64, 20)
    cell = nn.GraphCell(ms.load(path), params_init={"0.weight": new_w, "no.such.param": rand(2)})
    net[0].weight.set_data(new_w)
    np.testing.assert_allclose(cell(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    assert list(cell.parameters_dict()) == [p.name for p in net.get_parameters()]


def test_params_init_and_graph_are_checked(good_file):
    path, _, x = good_file
    graph = ms.load(path)
    with pytest.raises(TypeError, match="must be a FuncGraph"):
        nn.GraphCell(path)
    with pytest.raises(TypeError, match="params_init must be a dict"):
        nn.GraphCell(graph, params_init=[("0.weight", rand(64, 20))])
    with pytest.raises(TypeError, match="keys must be parameter names"):
        nn.GraphCell(graph, params_init={0: rand(64, 20)})
    with pytest.raises(TypeError, match="must be a Tensor or Parameter"):
        nn.GraphCell(graph, params_init={"0.weight": np.zeros((64, 20), np.float32)})
    with pytest.raises(ValueError, match=r"shape \(20, 64\), but the graph's parameter has shape \(64, 20\)"):
        nn.GraphCell(graph, params_init={"0.weight": rand(20, 64)})
    cell = nn.GraphCell(graph)
    with pytest.raises(ValueError, match=r"input 0 \(.*\) is Float32\[4, 20\], but the graph was exported for "
                                         r"f32\[3,20\]"):
        cell(rand(4, 20))
    with pytest.raises(TypeError, match="takes 1 input"):
        cell(x, x)
    with pytest.raises(TypeError, match="input 0 must be a Tensor, got ndarray"):
        cell(x.asnumpy())


class Counter(nn.Cell):
    """Updates a Parameter in place and returns a mixed structure."""

    def __init__(self):
        super().__init__()
        self.steps = ms.Parameter(Tensor(np.zeros((), np.float32)), name="steps", requires_grad=False)
        self.scale = Tensor(np.array([2.0, 3.0], np.float32))  # a plain tensor: frozen at export
        self.w = ms.Parameter(Tensor(np.array([1.0, -1.0], np.float32)), name="w")

    def construct(self, x, unused):
        self.steps = self.steps + 1
        y = x * self.scale + self.w
        return y, [self.w, x], 3, None, (ops.ones((2,), ms.float32) * 5,)


def test_updates_structures_frozen_tensors_and_unused_inputs(tmp_path):
    net, x, u = Counter(), rand(2), rand(4)
    path = str(tmp_path / "counter")
    ms.export(net, x, u, file_name=path)
    assert net.steps.asnumpy() == 0  # exporting traced, it ran nothing
    net.scale = Tensor(np.array([100.0, 100.0], np.float32))  # after export: not in the file
    cell = nn.GraphCell(ms.load(path + ".mindir"))
    for step in (1, 2):
        y, (w, same_x), three, none, (fives,) = cell(x, u)
        np.testing.assert_array_equal(y.asnumpy(), x.asnumpy() * np.array([2, 3], np.float32) + [1, -1])
        assert w is cell.parameters_dict()["w"] and same_x is x and three == 3 and none is None
        np.testing.assert_array_equal(fives.asnumpy(), [5, 5])
        assert cell.parameters_dict()["steps"].asnumpy() == step
    assert not cell.parameters_dict()["steps"].requires_grad and cell.parameters_dict()["w"].requires_grad
    with pytest.raises(TypeError, match="takes 2 input"):
        cell(x)


def test_batchnorm_exported_in_training_mode_updates_the_graphcells_statistics(tmp_path):
    ms.set_seed(5)
    net, x = ConvBN(), rand(4, 3, 5, 5)
    net.set_train(True)
    ms.export(net, x, file_name=str(tmp_path / "bn"))
    cell = nn.GraphCell(ms.load(str(tmp_path / "bn.mindir")))
    want = net(x)  # PyNative, training: batch statistics, moving averages updated
    got = cell(x)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)
    params = cell.parameters_dict()
    for name, p in net.parameters_and_names():
        np.testing.assert_allclose(params[name].asnumpy(), p.asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_function_can_be_exported(tmp_path):
    w = ms.Parameter(rand(4, 3), name="w")

    def affine(x, b):
        return ops.matmul(x, w) + b

    x, b = rand(2, 4), rand(3)
    ms.export(affine, x, b, file_name=str(tmp_path / "f"))
    cell = nn.GraphCell(ms.load(str(tmp_path / "f.mindir")))
    np.testing.assert_allclose(cell(x, b).asnumpy(), affine(x, b).asnumpy(), rtol=1e-5, atol=1e-6)
    assert list(cell.parameters_dict()) == ["w"]


def test_graphcell_in_graph_mode_under_jit_and_inside_a_net(good_file):
    path, net, x = good_file
    cell = nn.GraphCell(ms.load(path))
    want = cell(x).asnumpy()
    np.testing.assert_allclose(want, net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(graph_mode(cell, (x,)).asnumpy(), want, rtol=1e-6, atol=1e-7)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = cell

        def construct(self, x):
            return self.inner(x) * 2 + 1

    outer = Outer()
    np.testing.assert_allclose(graph_mode(outer, (x,)).asnumpy(), want * 2 + 1, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ms.jit(outer.construct)(x).asnumpy(), want * 2 + 1, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(outer(x).asnumpy(), want * 2 + 1, rtol=1e-6, atol=1e-6)


def test_gradients_flow_through_a_graphcell(good_file):
    path, net, x = good_file
    cell = nn.GraphCell(ms.load(path))

    def loss(model):
        return lambda x: (model(x) * ops.arange(5).astype(ms.float32)).sum()

    gx = ms.grad(loss(cell))(x).asnumpy()
    np.testing.assert_allclose(gx, ms.grad(loss(net))(x).asnumpy(), rtol=1e-5, atol=1e-6)
    _, grads = ms.value_and_grad(loss(cell), None, cell.trainable_params())(x)
    _, want = ms.value_and_grad(loss(net), None, net.trainable_params())(x)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_failed_write_keeps_the_previous_file_and_leaves_no_temp_file(good_file, monkeypatch):
    path, net, x = good_file
    before = open(path, "rb").read()

    def failing(f, hasher, data):
        raise OSError("disk full")

    monkeypatch.setattr(checkpoint, "_write_array", failing)
    with pytest.raises(OSError, match="disk full"):
        ms.export(nn.Dense(20, 2), x, file_name=path)
    assert open(path, "rb").read() == before
    assert os.listdir(os.path.dirname(path)) == ["good.mindir"]
    np.testing.assert_allclose(nn.GraphCell(ms.load(path))(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
