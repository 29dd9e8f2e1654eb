"""End to end: the tutorial LeNet5 trained for one epoch on the full MNIST set reaches >= 97%."""
import os
import sys

import numpy as np
import pytest

import runtime as ms
from runtime import Model, nn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from lenet_demo import LeNet5, create_dataset


@pytest.mark.slow
def test_lenet5_one_epoch_full_mnist(mnist_dir, capsys):
    ms.set_seed(1)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = Model(net, loss, opt, metrics={"Accuracy": nn.Accuracy()})
    train = create_dataset(mnist_dir, "train")
    assert train.get_dataset_size() == 1875
    model.train(1, train, callbacks=[ms.LossMonitor(625)])
    out = capsys.readouterr().out
    assert "epoch: 1 step: 1875, loss is" in out
    acc = model.eval(create_dataset(mnist_dir, "test"))["Accuracy"]
    print("LeNet5 1-epoch test accuracy:", acc)
    assert acc >= 0.97

    # the accuracy metric agrees with a direct numpy computation on the test set
    net.set_train(False)
    correct = total = 0
    for image, label in create_dataset(mnist_dir, "test").create_tuple_iterator():
        correct += int((net(image).asnumpy().argmax(1) == label.asnumpy()).sum())
        total += label.shape[0]
    assert abs(correct / total - acc) < 1e-9
    np.testing.assert_array_less(0, total)
