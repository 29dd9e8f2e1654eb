"""CIFAR-10 in its standard binary format (``mindspore.dataset.Cifar10Dataset``).

``dataset_dir`` holds ``data_batch_1.bin`` ... ``data_batch_5.bin`` and ``test_batch.bin``; each
record is one label byte then a 32x32 RGB image stored channel by channel (1024 red, 1024 green,
1024 blue bytes, rows first). Rows come out as ``image`` (32, 32, 3) uint8 HWC and ``label``
uint32, as MindSpore gives them. A file whose size is not a whole number of records, or a label
outside 0..9, is reported with its path.

Example:
    >>> import os, tempfile, numpy as np
    >>> from runtime.data import Cifar10Dataset
    >>> from runtime.data.cifar import write_cifar10_batch
    >>> d = tempfile.mkdtemp()
    >>> write_cifar10_batch(os.path.join(d, "test_batch.bin"), np.zeros((3, 32, 32, 3), np.uint8), [1, 2, 3])
    >>> ds = Cifar10Dataset(d, usage="test", shuffle=False)
    >>> [int(r[1]) for r in ds.create_tuple_iterator(output_numpy=True)]
    [1, 2, 3]
"""
from __future__ import annotations

import os

import numpy as np

from .dataset import _ArraySource

RECORD = 1 + 32 * 32 * 3
_TRAIN = [f"data_batch_{i}.bin" for i in range(1, 6)]
_TEST = ["test_batch.bin"]


def read_cifar10_batch(path):
    """(images (N, 32, 32, 3) uint8, labels (N,) uint32) of one binary batch file."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) == 0 or len(raw) % RECORD:
        raise ValueError(f"Cifar10Dataset: {path} is not a CIFAR-10 binary batch: {len(raw)} bytes is not a "
                         f"whole number of {RECORD}-byte records")
    rec = np.frombuffer(raw, np.uint8).reshape(-1, RECORD)
    labels = rec[:, 0].astype(np.uint32)
    if labels.max() > 9:
        raise ValueError(f"Cifar10Dataset: {path}: label {int(labels.max())} is outside 0..9 (corrupt file)")
    images = rec[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
    return np.ascontiguousarray(images), labels


def write_cifar10_batch(path, images, labels):
    """Write images (N, 32, 32, 3) uint8 and labels as one CIFAR-10 binary batch (for tests and
    tools that build small CIFAR-format samples)."""
    images = np.asarray(images, np.uint8)
    labels = np.asarray(labels, np.uint8).reshape(-1, 1)
    if images.shape[1:] != (32, 32, 3) or len(images) != len(labels):
        raise ValueError(f"write_cifar10_batch: expected images (N, 32, 32, 3) and N labels, got "
                         f"{images.shape} and {len(labels)}")
    rec = np.concatenate([labels, images.transpose(0, 3, 1, 2).reshape(len(images), -1)], axis=1)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(rec.tobytes())
    os.replace(tmp, path)


class Cifar10Dataset(_ArraySource):
    """CIFAR-10 from ``dataset_dir``: usage "train" (the data_batch files), "test", "all" or None
    (every batch file present). Sharding, ``num_samples`` and shuffling as for MnistDataset."""

    _label_column = "label"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
            raise ValueError(f"Cifar10Dataset: dataset_dir {dataset_dir!r} does not exist or is not a folder")
        if usage not in (None, "train", "test", "all"):
            raise ValueError(f"Cifar10Dataset: usage must be 'train', 'test', 'all' or None, got {usage!r}")
        dataset_dir = os.fspath(dataset_dir)
        names = {"train": _TRAIN, "test": _TEST}.get(usage, _TRAIN + _TEST)
        files = [os.path.join(dataset_dir, n) for n in names if os.path.exists(os.path.join(dataset_dir, n))]
        if not files:
            raise ValueError(f"Cifar10Dataset: {dataset_dir} holds none of {names}")
        parts = [read_cifar10_batch(p) for p in files]
        self._init_columns(["image", "label"], [np.concatenate([p[0] for p in parts]),
                                                np.concatenate([p[1] for p in parts])])
        self.dataset_dir, self.usage = dataset_dir, usage

    def num_classes(self):
        return 10
