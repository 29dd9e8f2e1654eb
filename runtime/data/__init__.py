"""``runtime.data`` (MindSpore's ``mindspore.dataset``): datasets, pipelines and transforms.

Sources: :class:`MnistDataset` (standard IDX files, raw or gzip), :class:`Cifar10Dataset` (binary
batches), :class:`ImageFolderDataset` (a folder per class), :class:`NumpySlicesDataset`,
:class:`GeneratorDataset`. Pipeline: ``.map(operations=, input_columns=, num_parallel_workers=,
python_multiprocessing=)`` (a worker pool; the same rows for any worker count), ``.batch(n,
drop_remainder=)``, ``.shuffle(buffer_size)``, ``.repeat(n)``, ``.take(n)``, ``.skip(n)``,
``.zip``, ``.concat``, ``.split``, iterators ``.create_tuple_iterator()`` /
``.create_dict_iterator()``. Samplers (:mod:`runtime.data.samplers`): ``DistributedSampler``,
``RandomSampler``, ``SequentialSampler``, ``SubsetRandomSampler``, ``SubsetSampler``,
``WeightedRandomSampler``, ``PKSampler``, user ``Sampler`` subclasses and plain iterables of
row numbers, as ``sampler=`` of every indexable source. Transforms: :mod:`runtime.data.vision` (Resize, Rescale, Normalize,
HWC2CHW, CenterCrop, ToTensor, Decode, the Random* augmentations...) and
:mod:`runtime.data.transforms` (TypeCast...). Reproducible under ``ms.set_seed`` /
``config.set_seed``.

A small real MNIST subset ships with the package (the first 6,000 training and 1,000 test digits):
``MnistDataset(embedded_mnist_dir())``.

Example:
    >>> import runtime as ms
    >>> from runtime.data import MnistDataset, embedded_mnist_dir, vision, transforms
    >>> ds = MnistDataset(embedded_mnist_dir(), usage="test", shuffle=False)
    >>> ds = ds.map([vision.Rescale(1 / 255, 0), vision.HWC2CHW()], input_columns="image")
    >>> ds = ds.map(transforms.TypeCast(ms.int32), input_columns="label").batch(32, drop_remainder=True)
    >>> image, label = next(ds.create_tuple_iterator())
    >>> image.shape, label.dtype, ds.get_dataset_size()
    ((32, 1, 28, 28), Int32, 31)
"""
import os as _os

from . import config, text, transforms, vision
from .dataset import (BatchDataset, BatchInfo, Dataset, DictIterator, MapDataset, MappableDataset,
                      ProjectDataset, RenameDataset, RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset,
                      TupleIterator, ZipDataset, ConcatDataset)
from .mnist import MnistDataset
from .cifar import Cifar10Dataset
from .image_folder import ImageFolderDataset
from .samplers import (BuiltinSampler, DistributedSampler, PKSampler, RandomSampler, Sampler, SequentialSampler,
                       SubsetRandomSampler, SubsetSampler, WeightedRandomSampler)
from .sources import GeneratorDataset, NumpySlicesDataset
from .vision import Border, ImageBatchFormat, Inter

_EMBEDDED = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "_embedded")


def zip(datasets):  # noqa: A001 - MindSpore's name (mindspore.dataset.zip)
    """``mindspore.dataset.zip``: zip a tuple of two or more datasets (see :meth:`Dataset.zip`)."""
    if not isinstance(datasets, tuple):
        raise TypeError(f"zip: datasets must be a tuple of Datasets, got {type(datasets).__name__}")
    if len(datasets) <= 1:
        raise ValueError("zip: needs at least two datasets")
    return ZipDataset(list(datasets))


def embedded_mnist_dir() -> str:
    """Folder of the MNIST subset shipped with the package (standard gzip IDX files: the first
    6,000 training and the first 1,000 test digits of MNIST)."""
    return _EMBEDDED


__all__ = ["Dataset", "MappableDataset", "MnistDataset", "Cifar10Dataset", "ImageFolderDataset", "ZipDataset", "ConcatDataset", "NumpySlicesDataset", "GeneratorDataset",
           "BatchDataset", "MapDataset", "ShuffleDataset", "RepeatDataset", "TakeDataset", "SkipDataset",
           "ProjectDataset", "RenameDataset", "BatchInfo", "TupleIterator", "DictIterator",
           "Sampler", "BuiltinSampler", "DistributedSampler", "PKSampler", "RandomSampler", "SequentialSampler",
           "SubsetRandomSampler", "SubsetSampler", "WeightedRandomSampler",
           "vision", "transforms", "text", "config", "Inter", "Border", "ImageBatchFormat", "embedded_mnist_dir", "zip"]
