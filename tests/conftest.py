import os

import numpy as np
import pytest

import runtime as ms

SHARED_MNIST = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "mnist")


@pytest.fixture(autouse=True)
def _reset_context():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.fixture
def mnist_dir():
    path = os.path.abspath(SHARED_MNIST)
    if not os.path.isdir(path):
        pytest.skip(f"the full MNIST set is not at {path} (../shared beside the repository); "
                    "this test needs it")
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(0)
