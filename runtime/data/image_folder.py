"""Images in a folder per class (``mindspore.dataset.ImageFolderDataset``).

``dataset_dir/<class name>/<image file>``: each immediate subfolder is a class, labelled by its
position among the subfolder names in sorted order (or by ``class_indexing``); files of a class
come in sorted name order, classes in sorted folder order, as MindSpore orders them. Files directly
in ``dataset_dir`` and deeper folders are not read.

Rows are ``image`` (uint8: the file's raw bytes, 1-D; with ``decode=True`` the decoded <H, W, 3>
RGB image, through :class:`runtime.data.vision.Decode`, which needs Pillow: ``pip install
"msjit[vision]"``) and ``label`` (a uint32 scalar). ``num_parallel_workers`` threads read (and
decode) the files of a block at once; rows keep their order.

Example:
    >>> import os, tempfile
    >>> from runtime.data import ImageFolderDataset
    >>> root = tempfile.mkdtemp()
    >>> for cls, name, data in [("cat", "a.bin", b"\\x01\\x02"), ("dog", "b.bin", b"\\x03"), ("cat", "c.bin", b"\\x04")]:
    ...     os.makedirs(os.path.join(root, cls), exist_ok=True)
    ...     with open(os.path.join(root, cls, name), "wb") as f:
    ...         _ = f.write(data)
    >>> ds = ImageFolderDataset(root, shuffle=False)
    >>> [(r[0].tolist(), int(r[1])) for r in ds.create_tuple_iterator(output_numpy=True)]
    [([1, 2], 0), ([4], 0), ([3], 1)]
    >>> ds.get_class_indexing(), ds.num_classes()
    ({'cat': 0, 'dog': 1}, 2)
"""
from __future__ import annotations

import numbers
import os

import numpy as np

from .dataset import MappableDataset, _check_int, _stack_rows
from .workers import ordered_map

#: files one reading worker gets at a time
_FILES_PER_TASK = 16


def _check_extensions(extensions):
    if extensions is None:
        return None
    if not isinstance(extensions, (list, tuple)) or not all(isinstance(e, str) for e in extensions):
        raise TypeError(f"ImageFolderDataset: extensions must be a list of strings such as ['.jpg', '.png'], "
                        f"got {extensions!r}")
    return frozenset(extensions)


def _check_class_indexing(class_indexing):
    if class_indexing is None:
        return None
    if not isinstance(class_indexing, dict):
        raise TypeError(f"ImageFolderDataset: class_indexing must be a dict folder name -> label, "
                        f"got {type(class_indexing).__name__}")
    for name, label in class_indexing.items():
        if not isinstance(name, str) or isinstance(label, bool) or not isinstance(label, numbers.Integral) \
                or not 0 <= label < 2 ** 32:
            raise ValueError(f"ImageFolderDataset: class_indexing must map folder names (str) to labels "
                             f"(ints in [0, 2**32)), got {name!r}: {label!r}")
    return {name: int(label) for name, label in class_indexing.items()}


def scan_image_folder(dataset_dir, extensions=None, class_indexing=None):
    """(file paths, labels, class indexing) of an image-folder tree, in MindSpore's order."""
    folders = sorted(e.name for e in os.scandir(dataset_dir) if e.is_dir())
    if class_indexing is None:
        class_indexing = {name: i for i, name in enumerate(folders)}
    else:
        absent = sorted(set(class_indexing) - set(folders))
        if absent:
            raise ValueError(f"ImageFolderDataset: class_indexing names folder(s) {absent} that {dataset_dir} "
                             f"does not have; its subfolders are {folders}")
        folders = [f for f in folders if f in class_indexing]
    paths, labels = [], []
    for folder in folders:
        directory = os.path.join(dataset_dir, folder)
        names = sorted(e.name for e in os.scandir(directory) if e.is_file())
        if extensions is not None:
            names = [n for n in names if os.path.splitext(n)[1] in extensions]
        paths += [os.path.join(directory, n) for n in names]
        labels += [class_indexing[folder]] * len(names)
    return paths, np.asarray(labels, np.uint32), class_indexing


class ImageFolderDataset(MappableDataset):
    """A source that reads images from a tree of folders, one folder per class (MindSpore 2.x
    signature). ``shuffle=None`` shuffles, ``num_samples`` limits the rows, ``num_shards`` /
    ``shard_id`` shard them; ``extensions`` (e.g. ``['.JPEG', '.png']``, matched exactly) keeps
    only those files (None: every file); ``class_indexing`` maps folder names to labels and reads
    only those folders; ``decrypt(path) -> bytes`` reads encrypted files. ``sampler``: see
    :mod:`runtime.data.samplers` (PKSampler samples by the folder labels). ``cache`` is not
    supported.
    """

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None,
                 decrypt=None):
        if num_parallel_workers is not None:
            num_parallel_workers = _check_int(num_parallel_workers, "num_parallel_workers", "ImageFolderDataset", 1)
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
            raise ValueError(f"ImageFolderDataset: dataset_dir {dataset_dir!r} does not exist or is not a folder")
        if not isinstance(decode, bool):
            raise TypeError(f"ImageFolderDataset: decode must be a bool, got {decode!r}")
        if decrypt is not None and not callable(decrypt):
            raise TypeError(f"ImageFolderDataset: decrypt must be a function path -> bytes, got {decrypt!r}")
        if cache is not None:
            raise ValueError("ImageFolderDataset: cache (a DatasetCache server) is not supported; use cache=None")
        self.dataset_dir = os.fspath(dataset_dir)
        self.decode = decode
        self.decrypt = decrypt
        self._decoder = None
        if decode:
            from .random_vision import Decode, pillow_image
            pillow_image("ImageFolderDataset(decode=True)")  # fail here, not at the first row
            self._decoder = Decode()
        self._paths, self._labels, self._class_indexing = scan_image_folder(
            self.dataset_dir, _check_extensions(extensions), _check_class_indexing(class_indexing))
        if not self._paths:
            which = f" with extensions {sorted(extensions)}" if extensions else ""
            raise ValueError(f"ImageFolderDataset: no image files{which} in the class folders of {self.dataset_dir} "
                             "(expected dataset_dir/<class name>/<image file>)")

    def _columns(self):
        return ["image", "label"]

    def _num_rows(self):
        return len(self._paths)

    def _class_labels(self):
        return np.asarray(self._labels)

    def get_class_indexing(self):
        """Folder name -> label."""
        return dict(self._class_indexing)

    def num_classes(self):
        """Number of classes (folders read)."""
        return len(self._class_indexing)

    def _read(self, path):
        try:
            if self.decrypt is not None:
                raw = self.decrypt(path)
            else:
                with open(path, "rb") as f:
                    raw = f.read()
        except OSError as e:
            raise ValueError(f"ImageFolderDataset: cannot read {path}: {e}") from None
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise TypeError(f"ImageFolderDataset: decrypt({path!r}) must return bytes, got {type(raw).__name__}")
        image = np.frombuffer(raw, np.uint8).copy()
        if self._decoder is None:
            return image
        try:
            return self._decoder(image)
        except ValueError as e:
            raise ValueError(f"ImageFolderDataset: failed to decode image {path}: {e}") from None

    def _read_files(self, indices):
        return [self._read(self._paths[i]) for i in indices]

    def _fetch(self, idx):
        idx = np.asarray(idx, dtype=np.int64)
        tasks = [(idx[s:s + _FILES_PER_TASK],) for s in range(0, len(idx), _FILES_PER_TASK)]
        from . import config
        workers = self.num_parallel_workers or config.get_num_parallel_workers()
        images = [img for part in ordered_map(self._read_files, tasks, workers, what="ImageFolderDataset")
                  for img in part]
        return {"image": _stack_rows(images), "label": self._labels[idx]}
