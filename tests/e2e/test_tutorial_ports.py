"""Code blocks of MindSpore's official tutorials (beginner: quick start, tensor, dataset, model, autograd in
its 1.x and 2.x forms, train, save/load, accelerating with static graphs; the static graph syntax
pages: statements, data types, control flow), ported with only their imports changed
(``mindspore`` -> ``runtime``). Each runs in PyNative and in GRAPH_MODE; the printed numbers the
tutorials show are the oracle where they are deterministic, PyNative is the oracle for GRAPH_MODE
elsewhere."""

import numpy as np
import pytest

import runtime as mindspore
import runtime as ms
from runtime import nn, ops
from runtime import Parameter, ParameterTuple, Tensor



@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.PYNATIVE_MODE if request.param == "pynative" else ms.GRAPH_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _in_both_modes(fn):
    """fn() in PyNative and in GRAPH_MODE with the same seed: both results."""
    out = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        try:
            ms.set_seed(0)
            np.random.seed(0)
            out.append(fn())
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    return out


# -- beginner/tensor ------------------------------------------------------------------------------------
def test_tensor_tutorial(mode, capsys):
    from runtime.common.initializer import One, Normal

    data = [1, 0, 1, 0]
    x_data = Tensor(data)
    np_array = np.array(data)
    x_np = Tensor(np_array)
    tensor1 = mindspore.Tensor(shape=(2, 2), dtype=mindspore.float32, init=One())
    tensor2 = mindspore.Tensor(shape=(2, 2), dtype=mindspore.float32, init=Normal())
    assert tensor1.asnumpy().tolist() == [[1, 1], [1, 1]] and tensor2.shape == (2, 2)
    assert x_np.asnumpy().tolist() == data
    x_ones = ops.ones_like(x_data)
    x_zeros = ops.zeros_like(x_data)
    print(f"Ones Tensor: \n {x_ones} \n")
    print(f"Zeros Tensor: \n {x_zeros} \n")

    x = Tensor(np.array([[1, 2], [3, 4]]), mindspore.int32)
    assert (x.shape, str(x.dtype), x.itemsize, x.nbytes, x.ndim, x.size, x.strides) == \
        ((2, 2), "Int32", 4, 16, 2, 4, (8, 4))

    tensor = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
    print("First row: {}".format(tensor[0]))
    print("value of bottom right corner: {}".format(tensor[1, 1]))
    print("Last column: {}".format(tensor[:, -1]))
    print("First column: {}".format(tensor[..., 0]))

    x = Tensor(np.array([1, 2, 3]), mindspore.float32)
    y = Tensor(np.array([4, 5, 6]), mindspore.float32)
    print("add:", x + y)
    print("sub:", x - y)
    print("mul:", x * y)
    print("div:", y / x)
    print("mod:", y % x)
    print("floordiv:", y // x)

    data1 = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
    data2 = Tensor(np.array([[4, 5], [6, 7]]).astype(np.float32))
    output = ops.concat((data1, data2), axis=0)
    assert output.shape == (4, 2)
    output = ops.stack([data1, data2])
    assert output.shape == (2, 2, 2)

    t = ops.ones(5, mindspore.float32)
    n = t.asnumpy()
    assert n.tolist() == [1.0] * 5
    n = np.ones(5)
    t = Tensor.from_numpy(n)
    np.add(n, 1, out=n)
    print(f"t: {t}")
    printed = capsys.readouterr().out
    for line in ("Ones Tensor: \n [1 1 1 1]", "Zeros Tensor: \n [0 0 0 0]", "First row: [0. 1.]",
                 "value of bottom right corner: 3.0", "Last column: [1. 3.]", "First column: [0. 2.]",
                 "add: [5. 7. 9.]", "sub: [-3. -3. -3.]", "mul: [ 4. 10. 18.]", "div: [4.  2.5 2. ]",
                 "mod: [0. 1. 0.]", "floordiv: [4. 2. 2.]", "t: [2. 2. 2. 2. 2.]"):
        assert line in printed, line


# -- beginner/model ---------------------------------------------------------------------------------------
class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28*28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10)
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


def test_model_tutorial(mode):
    model = Network()
    assert str(model).startswith("Network<\n  (flatten): Flatten<>\n  (dense_relu_sequential): SequentialCell<\n"
                                 "    (0): Dense<input_channels=784, output_channels=512, has_bias=True>")
    X = ops.ones((1, 28, 28), mindspore.float32)
    logits = model(X)
    assert logits.shape == (1, 10)
    pred_probab = nn.Softmax(axis=1)(logits)
    y_pred = pred_probab.argmax(1)
    assert y_pred.asnumpy().tolist() == [int(np.argmax(logits.asnumpy()))]

    input_image = ops.ones((3, 28, 28), mindspore.float32)
    flatten = nn.Flatten()
    flat_image = flatten(input_image)
    assert flat_image.shape == (3, 784)
    layer1 = nn.Dense(in_channels=28*28, out_channels=20)
    hidden1 = layer1(flat_image)
    hidden1 = nn.ReLU()(hidden1)
    assert hidden1.shape == (3, 20) and float(hidden1.min()) >= 0
    seq_modules = nn.SequentialCell(flatten, layer1, nn.ReLU(), nn.Dense(20, 10))
    logits = seq_modules(input_image)
    assert logits.shape == (3, 10)
    softmax = nn.Softmax(axis=1)
    pred_probab = softmax(logits)
    np.testing.assert_allclose(pred_probab.asnumpy().sum(1), 1.0, rtol=1e-5)
    names = [name for name, _ in model.parameters_and_names()]
    assert names == ["dense_relu_sequential.0.weight", "dense_relu_sequential.0.bias",
                     "dense_relu_sequential.2.weight", "dense_relu_sequential.2.bias",
                     "dense_relu_sequential.4.weight", "dense_relu_sequential.4.bias"]


# -- beginner/autograd (2.x: grad / value_and_grad) --------------------------------------------------------
def test_autograd_2x_tutorial():
    def run():
        x = ops.ones(5, mindspore.float32)  # input tensor
        y = ops.zeros(3, mindspore.float32)  # expected output
        w = Parameter(Tensor(np.random.randn(5, 3), mindspore.float32), name='w')  # weight
        b = Parameter(Tensor(np.random.randn(3,), mindspore.float32), name='b')  # bias

        def function(x, y, w, b):
            z = ops.matmul(x, w) + b
            loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
            return loss

        loss = function(x, y, w, b)
        grad_fn = mindspore.grad(function, (2, 3))
        grads = grad_fn(x, y, w, b)

        def function_with_logits(x, y, w, b):
            z = ops.matmul(x, w) + b
            loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
            return loss, z

        grad_fn = mindspore.grad(function_with_logits, (2, 3), has_aux=True)
        grads_aux, (z,) = grad_fn(x, y, w, b)

        def function_stop_gradient(x, y, w, b):
            z = ops.matmul(x, w) + b
            loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
            return loss, ops.stop_gradient(z)

        grad_fn = mindspore.grad(function_stop_gradient, (2, 3))
        grads_stop = grad_fn(x, y, w, b)

        class Net(nn.Cell):
            def __init__(self, w, b):
                super().__init__()
                self.w = Parameter(w, name='w')
                self.b = Parameter(b, name='b')

            def construct(self, x):
                z = ops.matmul(x, self.w) + self.b
                return z

        model = Net(w, b)
        loss_fn = nn.BCEWithLogitsLoss()

        def forward_fn(x, y):
            z = model(x)
            loss = loss_fn(z, y)
            return loss

        grad_fn = mindspore.value_and_grad(forward_fn, None, weights=model.trainable_params())
        loss_net, grads_net = grad_fn(x, y)
        return (loss, grads, grads_aux, z, grads_stop, loss_net, grads_net, w.asnumpy(), b.asnumpy())

    eager, graph = _in_both_modes(run)
    loss, grads, grads_aux, z, grads_stop, loss_net, grads_net, w, b = eager
    zn = np.ones(5) @ w.astype(np.float64) + b
    sig = 1 / (1 + np.exp(-zn))
    want_loss = np.mean(np.maximum(zn, 0) + np.log1p(np.exp(-np.abs(zn))))  # labels y = 0
    np.testing.assert_allclose(loss.asnumpy(), want_loss, rtol=1e-5)
    np.testing.assert_allclose(grads[0].asnumpy(), np.outer(np.ones(5), sig / 3), rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), sig / 3, rtol=1e-5)
    for g in (grads_aux, grads_stop, grads_net):  # stop_gradient / aux outputs do not change the gradient
        np.testing.assert_allclose(g[1].asnumpy(), sig / 3, rtol=1e-5)
    np.testing.assert_allclose(z.asnumpy(), zn, rtol=1e-5)
    np.testing.assert_allclose(loss_net.asnumpy(), want_loss, rtol=1e-5)
    for a, c in zip(_flat(eager[:7]), _flat(graph[:7])):
        np.testing.assert_allclose(a, c, rtol=1e-6)


def _flat(tree):
    out = []
    for t in tree:
        if isinstance(t, (tuple, list)):
            out.extend(_flat(t))
        else:
            out.append(t.asnumpy() if isinstance(t, Tensor) else np.asarray(t))
    return out


# -- beginner/autograd (1.x: ops.GradOperation inside Cells) -------------------------------------------------
def test_autograd_gradoperation_tutorial(mode):
    from runtime import dtype as mstype
    from runtime.ops import stop_gradient

    class Net(nn.Cell):
        def __init__(self):
            super(Net, self).__init__()
            self.w = Parameter(np.array([6.0]), name='w')
            self.b = Parameter(np.array([1.0]), name='b')

        def construct(self, x):
            f = self.w * x + self.b
            return f

    class GradNet(nn.Cell):
        def __init__(self, net):
            super(GradNet, self).__init__()
            self.net = net
            self.grad_op = ops.GradOperation()

        def construct(self, x):
            gradient_function = self.grad_op(self.net)
            return gradient_function(x)

    x = Tensor([100], dtype=mstype.float32)
    assert GradNet(Net())(x).asnumpy().tolist() == [6.0]

    class GradNetW(nn.Cell):
        def __init__(self, net):
            super(GradNetW, self).__init__()
            self.net = net
            self.params = ParameterTuple(net.trainable_params())
            self.grad_op = ops.GradOperation(get_by_list=True)

        def construct(self, x):
            gradient_function = self.grad_op(self.net, self.params)
            return gradient_function(x)

    fx = GradNetW(Net())(x)
    assert (fx[0].asnumpy().tolist(), fx[1].asnumpy().tolist()) == ([100.0], [1.0])

    class NetFrozenB(nn.Cell):
        def __init__(self):
            super(NetFrozenB, self).__init__()
            self.w = Parameter(Tensor(np.array([6], np.float32)), name='w')
            self.b = Parameter(Tensor(np.array([1.0], np.float32)), name='b', requires_grad=False)

        def construct(self, x):
            out = x * self.w + self.b
            return out

    fw = GradNetW(NetFrozenB())(Tensor([5], dtype=mstype.float32))
    assert len(fw) == 1 and fw[0].asnumpy().tolist() == [5.0]

    class GradNetSens(nn.Cell):
        def __init__(self, net):
            super(GradNetSens, self).__init__()
            self.net = net
            self.grad_op = ops.GradOperation(sens_param=True)
            self.grad_wrt_output = Tensor([0.1], dtype=mstype.float32)

        def construct(self, x):
            gradient_function = self.grad_op(self.net)
            return gradient_function(x, self.grad_wrt_output)

    np.testing.assert_allclose(GradNetSens(NetFrozenB())(Tensor([6], dtype=mstype.float32)).asnumpy(), [0.6],
                               rtol=1e-6)

    class NetStop(nn.Cell):
        def __init__(self):
            super(NetStop, self).__init__()
            self.w = Parameter(Tensor(np.array([6], np.float32)), name='w')
            self.b = Parameter(Tensor(np.array([1.0], np.float32)), name='b')

        def construct(self, x):
            out = x * self.w + self.b
            out = stop_gradient(out)
            return out

    output = GradNetW(NetStop())(Tensor([100], dtype=mstype.float32))
    assert (output[0].asnumpy().tolist(), output[1].asnumpy().tolist()) == ([0.0], [0.0])


# -- beginner/train -----------------------------------------------------------------------------------------------
def test_train_tutorial_loss_block(mode):
    loss = nn.L1Loss()
    output_data = ms.Tensor(np.array([[1, 2, 3], [2, 3, 4]]).astype(np.float32))
    target_data = ms.Tensor(np.array([[0, 2, 5], [3, 1, 1]]).astype(np.float32))
    assert float(loss(output_data, target_data).asnumpy()) == 1.5


def _mnist(path, usage, batch_size):
    from runtime.dataset import vision, transforms, MnistDataset

    def datapipe(path, batch_size):
        image_transforms = [
            vision.Rescale(1.0 / 255.0, 0),
            vision.Normalize(mean=(0.1307,), std=(0.3081,)),
            vision.HWC2CHW()
        ]
        label_transform = transforms.TypeCast(mindspore.int32)

        dataset = MnistDataset(path, usage=usage, shuffle=False)
        dataset = dataset.map(image_transforms, 'image')
        dataset = dataset.map(label_transform, 'label')
        dataset = dataset.batch(batch_size)
        return dataset

    return datapipe(path, batch_size)


def test_quick_start_and_train_tutorials_learn_mnist(mnist_dir):
    """quick_start/train: the 2.x training loop (value_and_grad with has_aux, optimizer(grads)),
    stopped after 150 steps; the same losses in PyNative and GRAPH_MODE, and the loss falls."""
    def run():
        train_dataset = _mnist(mnist_dir, "train", 64)
        model = Network()
        loss_fn = nn.CrossEntropyLoss()
        optimizer = nn.SGD(model.trainable_params(), 1e-2)

        def forward_fn(data, label):
            logits = model(data)
            loss = loss_fn(logits, label)
            return loss, logits

        grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

        def train_step(data, label):
            (loss, _), grads = grad_fn(data, label)
            optimizer(grads)
            return loss

        model.set_train()
        losses = []
        for batch, (data, label) in enumerate(train_dataset.create_tuple_iterator()):
            losses.append(float(train_step(data, label).asnumpy()))
            if batch == 149:
                break

        model.set_train(False)
        test_dataset = _mnist(mnist_dir, "test", 200)
        correct, total = 0, 0
        for batch, (data, label) in enumerate(test_dataset.create_tuple_iterator()):
            pred = model(data)
            correct += int((pred.argmax(1) == label).asnumpy().sum())
            total += len(data)
            if batch == 4:
                break
        return losses, correct / total

    (eager_losses, eager_acc), (graph_losses, graph_acc) = _in_both_modes(run)
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-4, atol=1e-5)
    assert np.mean(eager_losses[-10:]) < 0.8 * np.mean(eager_losses[:10])
    assert eager_acc > 0.5 and abs(graph_acc - eager_acc) <= 0.01


# -- beginner/save_load ---------------------------------------------------------------------------------------------
def test_save_load_tutorial(mode, tmp_path):
    def network():
        model = nn.SequentialCell(
            nn.Flatten(),
            nn.Dense(28*28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10))
        return model

    path = str(tmp_path / "model.ckpt")
    model = network()
    mindspore.save_checkpoint(model, path)
    model2 = network()
    param_dict = mindspore.load_checkpoint(path)
    param_not_load, _ = mindspore.load_param_into_net(model2, param_dict)
    assert param_not_load == []
    x = Tensor(np.ones([1, 1, 28, 28]).astype(np.float32))
    np.testing.assert_array_equal(model2(x).asnumpy(), model(x).asnumpy())


# -- beginner/accelerate_with_static_graph ----------------------------------------------------------------------------
def test_accelerate_with_static_graph_tutorial():
    input = Tensor(np.ones([64, 1, 28, 28]).astype(np.float32))  # noqa: A001 - the tutorial's name

    @ms.jit  # Use the ms.jit decorator to make the decorated function run in static graph mode
    def run(x):
        model = Network()
        return model(x)

    output = run(input)
    assert output.shape == (64, 10)
    np.testing.assert_allclose(output.asnumpy(), np.broadcast_to(output.asnumpy()[:1], (64, 10)), rtol=1e-5, atol=1e-7)

    class JitNetwork(Network):
        @ms.jit
        def construct(self, x):
            x = self.flatten(x)
            logits = self.dense_relu_sequential(x)
            return logits

    model = JitNetwork()
    eager = Network.construct(model, input)
    np.testing.assert_allclose(model(input).asnumpy(), eager.asnumpy(), rtol=1e-5, atol=1e-7)


# -- static graph syntax: statements, data types, control flow -----------------------------------------------------------
class ControlFlowNet(nn.Cell):
    """if/elif on tensors and Python values, for over a range and a tuple, while with break and
    continue, raise/assert on constants, nested functions and a lambda."""

    def __init__(self):
        super().__init__()
        self.scales = (1.0, 2.0, 3.0)

    def construct(self, x, y, n):
        if x.sum() > y.sum():
            out = x - y
        elif n == 0:
            out = y * 2
        else:
            out = x + y
        for i in range(3):
            out = out + i
        for s in self.scales:
            out = out * s
        i = 0
        while i < n:
            i += 1
            if i == 2:
                continue
            if i > 4:
                break
            out = out - 1
        assert n >= 0, "n must be non-negative"
        if n > 100:
            raise ValueError("n is too large")
        square = lambda v: v * v  # the page's lambda example

        def halve(v):
            return v / 2
        return halve(square(out))


@pytest.mark.parametrize("n", [0, 3, 7])
def test_static_graph_control_flow(mode, n):
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, -4.0], np.float32))
    net = ControlFlowNet()
    out = net(x, y, n).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out, net(x, y, n).asnumpy(), rtol=1e-6)
    xn, yn = x.asnumpy(), y.asnumpy()
    base = xn - yn if xn.sum() > yn.sum() else (yn * 2 if n == 0 else xn + yn)
    base = (base + 0 + 1 + 2) * 6
    base = base - len([i for i in range(1, n + 1) if i != 2 and i <= 4])
    np.testing.assert_allclose(out, base * base / 2, rtol=1e-6)


def test_static_graph_raise_and_assert_behave_as_python(mode):
    net = ControlFlowNet()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    with pytest.raises(ValueError, match="n is too large"):
        net(x, x, 101)
    with pytest.raises(AssertionError, match="non-negative"):
        net(x, x, -1)


class DataTypesNet(nn.Cell):
    """tuple/list/dict values inside construct: indexing, slicing, len, in, comprehension,
    dict keys/values/items/get, list append/extend/pop, string formatting of constants."""

    def construct(self, x):
        t = (x, x * 2, x * 3)
        lst = [x + 1, x + 2]
        lst.append(x + 3)
        lst.extend([x + 4])
        last = lst.pop()
        d = {"a": x, "b": x * 10}
        d["c"] = d["a"] + d["b"]
        total = t[0] + t[-1] + sum(t[1:2]) + len(lst) + last
        squares = [v * v for v in lst if v is not None]
        keys = "".join(sorted(d.keys()))
        scaled = {k: v * 2 for k, v in d.items()}
        has_b = "b" in d
        return total, squares[-1], d.get("c"), d.get("z", x), keys, scaled["b"], has_b, f"{len(t)} items"


def test_static_graph_data_types(mode):
    x = Tensor(np.array([1.0, -2.0], np.float32))
    got = DataTypesNet()(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = DataTypesNet()(x)
    xn = x.asnumpy()
    np.testing.assert_allclose(got[0].asnumpy(), xn + 3 * xn + 2 * xn + 3 + xn + 4, rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), (xn + 3) ** 2, rtol=1e-6)
    np.testing.assert_allclose(got[2].asnumpy(), 11 * xn, rtol=1e-6)
    for g, w in zip(got, want):
        if isinstance(w, Tensor):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
        else:
            assert g == w and type(g) is type(w)
    assert got[4:] == ("abc", got[5], True, "3 items")


# -- beginner/dataset ---------------------------------------------------------------------------------------------------
def test_dataset_tutorial(mnist_dir):
    from runtime.dataset import vision
    from runtime.dataset import MnistDataset, GeneratorDataset

    train_dataset = MnistDataset(mnist_dir, usage="train", shuffle=False)
    train_dataset = train_dataset.shuffle(buffer_size=64)
    image, label = next(train_dataset.create_tuple_iterator())
    assert (image.shape, str(image.dtype)) == ((28, 28, 1), "UInt8")
    train_dataset = train_dataset.map(vision.Rescale(1.0 / 255.0, 0), input_columns='image')
    image, label = next(train_dataset.create_tuple_iterator())
    assert (image.shape, str(image.dtype)) == ((28, 28, 1), "Float32") and float(image.max()) <= 1.0
    train_dataset = train_dataset.batch(batch_size=32)
    image, label = next(train_dataset.create_tuple_iterator())
    assert (image.shape, str(image.dtype)) == ((32, 28, 28, 1), "Float32")

    class RandomAccessDataset:
        def __init__(self):
            self._data = np.ones((5, 2))
            self._label = np.zeros((5, 1))

        def __getitem__(self, index):
            return self._data[index], self._label[index]

        def __len__(self):
            return len(self._data)

    loader = RandomAccessDataset()
    dataset = GeneratorDataset(source=loader, column_names=["data", "label"])
    rows = [data for data in dataset]
    assert len(rows) == 5 and all(str(d.dtype) == "Float64" and d.asnumpy().tolist() == [1.0, 1.0] and
                                  l.asnumpy().tolist() == [0.0] for d, l in rows)

    loader = [np.array(0), np.array(1), np.array(2)]
    dataset = GeneratorDataset(source=loader, column_names=["data"])
    assert sorted(int(d[0].asnumpy()) for d in dataset) == [0, 1, 2]

    class IterableDataset():
        def __init__(self, start, end):
            '''init the class object to hold the data'''
            self.start = start
            self.end = end

        def __next__(self):
            '''iter one data and return'''
            return next(self.data)

        def __iter__(self):
            '''reset the iter'''
            self.data = iter(range(self.start, self.end))
            return self

    loader = IterableDataset(1, 5)
    dataset = GeneratorDataset(source=loader, column_names=["data"])
    assert [int(d[0].asnumpy()) for d in dataset] == [1, 2, 3, 4]

    def my_generator(start, end):
        for i in range(start, end):
            yield i

    dataset = GeneratorDataset(source=lambda: my_generator(3, 6), column_names=["data"])
    assert [int(d[0].asnumpy()) for d in dataset] == [3, 4, 5]
    assert [str(d[0].dtype) for d in dataset] == ["Int64"] * 3
