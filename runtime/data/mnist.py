"""``MnistDataset``: reads the standard MNIST IDX files (raw or gzip) with numpy.

Files (in ``dataset_dir``, each raw or with ``.gz``): ``train-images-idx3-ubyte``,
``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte``, ``t10k-labels-idx1-ubyte``. Rows have the
columns ``image`` (uint8, HWC: 28x28x1) and ``label`` (uint32 scalar). Every file is validated: its
magic number, its header's dimensions, and its length against the header; a bad file raises
ValueError naming the file and what is wrong.

Example:
    >>> from runtime.data import MnistDataset, embedded_mnist_dir
    >>> ds = MnistDataset(embedded_mnist_dir(), usage="train", shuffle=False)
    >>> ds.get_dataset_size(), ds.get_col_names()
    (6000, ['image', 'label'])
    >>> img, label = next(ds.create_tuple_iterator(output_numpy=True))
    >>> img.shape, img.dtype, int(label)
    ((28, 28, 1), dtype('uint8'), 5)
"""
from __future__ import annotations

import gzip
import os
import threading
import zlib
from collections import OrderedDict

import numpy as np

from graph import forksafe

from .dataset import _ArraySource

IMAGES_MAGIC = 2051
LABELS_MAGIC = 2049

_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
# some mirrors name the files with a dot before idx
_ALT = {
    "train-images-idx3-ubyte": "train-images.idx3-ubyte",
    "train-labels-idx1-ubyte": "train-labels.idx1-ubyte",
    "t10k-images-idx3-ubyte": "t10k-images.idx3-ubyte",
    "t10k-labels-idx1-ubyte": "t10k-labels.idx1-ubyte",
}
_USAGES = (None, "train", "test", "all")

_cache: "OrderedDict[tuple, np.ndarray]" = OrderedDict()
_cache_lock = threading.Lock()
forksafe.renew_in_child(globals(), "_cache_lock", threading.Lock)
_CACHE_MAX = 8


def _find(dataset_dir, name):
    """Path of ``name`` (raw, .gz, or the dotted variant) in dataset_dir, or None."""
    for base in (name, _ALT.get(name, name)):
        for cand in (base, base + ".gz"):
            p = os.path.join(dataset_dir, cand)
            if os.path.isfile(p):
                return p
    return None


def _read_bytes(path):
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise ValueError(f"MnistDataset: {path} is not a valid gzip file (corrupt or truncated): {e}") from None
    return raw


def read_idx(path, magic, ndim):
    """Read one IDX file of unsigned bytes; validate magic, dimensions and length.

    Returns a read-only uint8 array shaped as the header says. Cached per (path, size, mtime).
    """
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns, magic)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    raw = _read_bytes(path)
    what = "images" if magic == IMAGES_MAGIC else "labels"
    gz = " (after gzip decompression)" if path.endswith(".gz") else ""
    if len(raw) < 4:
        raise ValueError(f"MnistDataset: {path} is truncated: {len(raw)} bytes{gz}, too short for an IDX header")
    got = int.from_bytes(raw[:4], "big")
    if got != magic:
        raise ValueError(f"MnistDataset: {path} is not an MNIST {what} file: magic number {got} "
                         f"(0x{got:08x}), expected {magic} (0x{magic:08x})")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"MnistDataset: {path} is truncated: {len(raw)} bytes{gz}, but its header alone "
                         f"needs {header} bytes")
    dims = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    if magic == IMAGES_MAGIC and (dims[1] == 0 or dims[2] == 0):
        raise ValueError(f"MnistDataset: {path}: invalid image size {dims[1]}x{dims[2]} in the header")
    expected = header + int(np.prod(dims, dtype=np.int64))
    if len(raw) != expected:
        state = "truncated" if len(raw) < expected else "longer than its header says (corrupt)"
        raise ValueError(f"MnistDataset: {path} is {state}: the header declares {what} of shape {dims}, "
                         f"which needs {expected} bytes{gz}, but the file has {len(raw)} bytes")
    arr = np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(dims)
    with _cache_lock:
        _cache[key] = arr
        while len(_cache) > _CACHE_MAX:
            _cache.popitem(last=False)
    return arr


def _load_pair(dataset_dir, split):
    img_name, lbl_name = _FILES[split]
    img_path, lbl_path = _find(dataset_dir, img_name), _find(dataset_dir, lbl_name)
    missing = [n for n, p in ((img_name, img_path), (lbl_name, lbl_path)) if p is None]
    if missing:
        raise ValueError(f"MnistDataset: {dataset_dir} lacks the {split} file(s) "
                         f"{', '.join(m + '[.gz]' for m in missing)}")
    images = read_idx(img_path, IMAGES_MAGIC, 3)
    labels = read_idx(lbl_path, LABELS_MAGIC, 1)
    if len(images) != len(labels):
        raise ValueError(f"MnistDataset: {img_path} holds {len(images)} images but {lbl_path} holds "
                         f"{len(labels)} labels; the counts must match")
    return images, labels


class MnistDataset(_ArraySource):
    """The MNIST digits from ``dataset_dir`` (mirrors ``mindspore.dataset.MnistDataset``).

    usage: "train" (60,000), "test" (10,000), or "all" / None (the default): every file pair the
    folder holds, test (t10k) before train as MindSpore orders the files by name. ``shuffle=None``
    shuffles (a new order per epoch, reproducible under ``ms.set_seed``); ``num_samples`` limits
    the rows.
    """

    _label_column = "label"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        if not isinstance(dataset_dir, (str, os.PathLike)):
            raise TypeError(f"MnistDataset: dataset_dir must be a path, got {type(dataset_dir).__name__}")
        dataset_dir = os.fspath(dataset_dir)
        if usage not in _USAGES:
            raise ValueError(f"MnistDataset: usage must be one of {list(_USAGES)}, got {usage!r}")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"MnistDataset: dataset_dir {dataset_dir!r} does not exist or is not a folder")
        self.dataset_dir = dataset_dir
        self.usage = usage
        if usage in ("train", "test"):
            splits = [usage]
        else:
            # MindSpore (mnist_op.cc WalkAllFiles): usage None and "all" both read every train/t10k
            # file pair the folder holds, in sorted file-name order, so the 10,000 t10k (test)
            # digits come before the 60,000 train digits; "all" does not require both pairs.
            splits = [s for s in ("test", "train")
                      if _find(dataset_dir, _FILES[s][0]) or _find(dataset_dir, _FILES[s][1])]
            if not splits:
                looked = [n + "[.gz]" for s in ("train", "test") for n in _FILES[s]]
                raise ValueError(f"MnistDataset: {dataset_dir} holds no MNIST files; looked for "
                                 f"{', '.join(looked)}")
        images, labels = [], []
        for s in splits:
            im, lb = _load_pair(dataset_dir, s)
            images.append(im)
            labels.append(lb)
        image = images[0] if len(images) == 1 else np.concatenate(images)
        label = labels[0] if len(labels) == 1 else np.concatenate(labels)
        shape = image.shape[1:]
        if any(im.shape[1:] != shape for im in images):
            raise ValueError(f"MnistDataset: the train and test images differ in size "
                             f"({[im.shape[1:] for im in images]})")
        self._init_columns(["image", "label"], [image[..., None], label.astype(np.uint32)])

    def num_classes(self):
        return 10
