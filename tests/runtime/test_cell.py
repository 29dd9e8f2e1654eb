"""Cell behaviour: parameter naming and order, set_train recursion, in-place Parameter assignment,
containers (SequentialCell, CellList), wrappers and metrics."""
from collections import OrderedDict

import numpy as np
import pytest

from runtime import Parameter, Tensor, nn


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.scale = Parameter(Tensor(np.float32(2.0)))

    def construct(self, x):
        return self.bn(self.fc(x)) * self.scale


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.drop = nn.Dropout(p=0.5)
        self.head = nn.Dense(4, 2)

    def construct(self, x):
        return self.head(self.drop(self.block(x)))


def test_parameter_names_nested_and_order():
    assert [p.name for p in nn.Dense(2, 2).trainable_params()] == ["weight", "bias"]
    net = Net()
    assert [p.name for p in net.trainable_params()] == [
        "block.scale", "block.fc.weight", "block.fc.bias", "block.bn.gamma", "block.bn.beta",
        "head.weight", "head.bias"]
    assert [p.name for p in net.untrainable_params()] == ["block.bn.moving_mean", "block.bn.moving_variance"]
    d = net.parameters_dict()
    assert list(d)[:3] == ["block.scale", "block.fc.weight", "block.fc.bias"]
    assert d["head.weight"] is net.head.weight
    assert [n for n, _ in net.cells_and_names()] == ["", "block", "block.fc", "block.bn", "drop", "head"]
    assert net.cells() == [net.block, net.drop, net.head]


def test_set_train_recurses():
    net = Net()
    assert not net.training and not net.block.bn.training
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())
    with pytest.raises(TypeError):
        net.set_train("yes")


def test_assigning_tensor_to_parameter_attribute_updates_in_place():
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.count = Parameter(Tensor(np.float32(0.0)), requires_grad=False)

        def construct(self, x):
            self.count = self.count + 1.0
            return x * 2

    c = Counter()
    p = c.count
    for _ in range(3):
        c(Tensor([1.0]))
    assert c.count is p and p.name == "count"
    assert p.asnumpy() == 3.0
    assert c.parameters_dict()["count"] is p
    with pytest.raises(TypeError, match="Parameter"):
        c.count = "three"


def test_sequential_cell_list_and_ordered_dict():
    seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    x = Tensor(np.ones((2, 3), np.float32))
    manual = seq[2](seq[1](seq[0](x)))
    np.testing.assert_array_equal(seq(x).asnumpy(), manual.asnumpy())
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU) and seq[-1] is seq[2]
    assert [type(c).__name__ for c in seq] == ["Dense", "ReLU", "Dense"]
    head = seq[:2]
    assert isinstance(head, nn.SequentialCell) and len(head) == 2 and head(x).shape == (2, 4)
    assert [p.name for p in seq.trainable_params()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    named = nn.SequentialCell(OrderedDict([("fc", nn.Dense(3, 2)), ("act", nn.Sigmoid())]))
    assert [p.name for p in named.trainable_params()] == ["fc.weight", "fc.bias"]
    assert named(x).shape == (2, 2)
    with pytest.raises(IndexError):
        seq[3]
    with pytest.raises(TypeError):
        nn.SequentialCell([nn.ReLU(), "relu"])

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.features = nn.SequentialCell(nn.Dense(3, 3), nn.ReLU())

        def construct(self, x):
            return self.features(x)

    outer = Outer()
    assert [p.name for p in outer.trainable_params()] == ["features.0.weight", "features.0.bias"]
    outer.features.append(nn.Dense(3, 1))  # added after attachment: still gets the full name
    assert [p.name for p in outer.trainable_params()][-2:] == ["features.2.weight", "features.2.bias"]
    assert outer(x).shape == (2, 1)


def test_cell_list_append_extend_index_iterate_delete():
    layers = nn.CellList([nn.Dense(2, 2)])
    layers.append(nn.Dense(2, 3))
    layers.extend([nn.ReLU(), nn.Dense(3, 1)])
    assert len(layers) == 4 and isinstance(layers[2], nn.ReLU)
    x = Tensor(np.ones((1, 2), np.float32))
    for cell in layers:
        x = cell(x)
    assert x.shape == (1, 1)

    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList()
            self.layers.append(nn.Dense(2, 2))

        def construct(self, x):
            for c in self.layers:
                x = c(x)
            return x

    h = Holder()
    h.layers.append(nn.Dense(2, 1))
    assert [p.name for p in h.trainable_params()] == ["layers.0.weight", "layers.0.bias",
                                                      "layers.1.weight", "layers.1.bias"]
    del h.layers[0]  # re-keys and renames the remaining cells
    assert len(h.layers) == 1 and [p.name for p in h.trainable_params()] == ["layers.0.weight", "layers.0.bias"]
    h.layers.insert(0, nn.Dense(2, 2))
    assert [p.name for p in h.trainable_params()] == ["layers.0.weight", "layers.0.bias",
                                                      "layers.1.weight", "layers.1.bias"]
    assert h.layers[1].weight.shape == (1, 2)
    layers[0] = nn.Dense(2, 5)
    assert layers[0].out_channels == 5


def test_repr_shows_children_and_extend_repr():
    text = repr(Net())
    assert "(block): Block<" in text and "(fc): Dense<input_channels=3, output_channels=4, has_bias=True>" in text
    assert "Dropout<p=0.5>" in text


def test_with_loss_and_eval_cells():
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    x = Tensor(np.ones((2, 3), np.float32))
    y = Tensor(np.zeros((2, 2), np.float32))
    loss = nn.WithLossCell(net, nn.MSELoss())
    assert loss(x, y).item() == pytest.approx(9.0)
    assert loss.backbone_network is net
    l2, out, label = nn.WithEvalCell(net, nn.MSELoss())(x, y)
    assert l2.item() == pytest.approx(9.0) and out.shape == (2, 2) and label is y
    assert [p.name for p in loss.trainable_params()] == ["weight", "bias"]
    with pytest.raises(TypeError):
        nn.WithLossCell(net, lambda a, b: a)


def test_metrics_accuracy_mae_mse_loss():
    acc = nn.Accuracy()
    acc.update(Tensor(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], np.float32)), Tensor(np.array([1, 1, 1])))
    assert acc.eval() == pytest.approx(2 / 3)
    acc.update(np.array([[0.0, 1.0]]), np.array([[0, 1]]))  # one-hot labels
    assert acc.eval() == pytest.approx(3 / 4)
    acc.clear()
    with pytest.raises(RuntimeError):
        acc.eval()
    ml = nn.Accuracy("multilabel")
    ml.update(np.array([[0.9, 0.2], [0.6, 0.7]]), np.array([[1, 0], [1, 0]]))
    assert ml.eval() == 0.5
    mae, mse = nn.MAE(), nn.MSE()
    pred, true = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 2.0])
    mae.update(pred, true)
    mse.update(Tensor(pred.astype(np.float32)), Tensor(true.astype(np.float32)))
    assert mae.eval() == pytest.approx(np.abs(pred - true).mean())
    assert mse.eval() == pytest.approx(((pred - true) ** 2).mean())
    lm = nn.Loss()
    lm.update(Tensor(np.float32(2.0)))
    lm.update(4.0)
    assert lm.eval() == pytest.approx(3.0)
    top2 = nn.TopKCategoricalAccuracy(2)
    top2.update(np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1]]), np.array([2, 2]))
    assert top2.eval() == 0.5
    with pytest.raises(ValueError):
        nn.Accuracy("regression")
    assert nn.Accuracy()(np.array([[1.0, 0.0]]), np.array([0])) == 1.0


def test_cell_errors():
    class NoSuper(nn.Cell):
        def __init__(self):
            self.x = 1

    with pytest.raises(RuntimeError, match="super"):
        NoSuper()
    with pytest.raises(NotImplementedError):
        nn.Cell()(Tensor([1.0]))


def test_shared_sub_cell_and_tied_parameter_are_named_once():
    shared = nn.Dense(2, 2)

    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = shared
            self.b = shared
            self.w = Parameter(Tensor(np.ones(2, np.float32)))
            self.w_alias = self.w

        def construct(self, x):
            return self.b(self.a(x)) * self.w_alias

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.tied = Tied()

        def construct(self, x):
            return self.tied(x)

    net = Outer()
    assert [p.name for p in net.trainable_params()] == ["tied.w", "tied.a.weight", "tied.a.bias"]
    assert net(Tensor(np.ones((1, 2), np.float32))).shape == (1, 2)


def test_update_parameters_name_prefixes_every_parameter():
    from runtime import nn
    net = nn.SequentialCell([nn.Dense(2, 3), nn.Dense(3, 1)])
    before = [p.name for p in net.get_parameters()]
    net.update_parameters_name("backbone.")
    assert [p.name for p in net.get_parameters()] == ["backbone." + n for n in before]
    inner = nn.Dense(2, 2)
    inner.update_parameters_name("x_", recurse=False)
    assert [p.name for p in inner.get_parameters()] == ["x_weight", "x_bias"]
    import pytest
    with pytest.raises(TypeError, match="prefix"):
        net.update_parameters_name(3)
