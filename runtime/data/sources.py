"""In-memory and Python sources: ``NumpySlicesDataset`` and ``GeneratorDataset``.

Example:
    >>> import numpy as np
    >>> from runtime.data import GeneratorDataset, NumpySlicesDataset
    >>> def gen():
    ...     for i in range(3):
    ...         yield np.array([i, i]), np.array(i * 10)
    >>> ds = GeneratorDataset(gen, column_names=["data", "label"])
    >>> [int(r[1]) for r in ds.create_tuple_iterator(output_numpy=True)]
    [0, 10, 20]
    >>> NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False).get_dataset_size()
    2
"""
from __future__ import annotations

import numpy as np

from .dataset import Dataset, MappableDataset, _ArraySource, _as_row_value, _check_int, _column_list, _stack_rows

_GEN_BLOCK = 256


def _to_column(value, what):
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except ValueError:
            arr = None
        if arr is None or arr.dtype == object:
            return [_as_row_value(v) for v in value]
        return arr
    try:
        return np.asarray(value)
    except Exception:
        raise TypeError(f"{what}: cannot use {type(value).__name__} as column data") from None


class NumpySlicesDataset(_ArraySource):
    """Rows are slices (along the first axis) of in-memory data.

    ``data``: an array or list (one column), a tuple of arrays/lists (one column each) or a dict
    name -> array (columns named by the keys). ``shuffle=None`` shuffles, as in MindSpore.
    ``sampler``: see :mod:`runtime.data.samplers` (refused with shuffle/sharding arguments, as
    GeneratorDataset refuses it).
    """

    _generator_rules = True

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler)
        what = "NumpySlicesDataset"
        names = _column_list(column_names, f"{what}(column_names=)")
        if isinstance(data, dict):
            if not data:
                raise ValueError(f"{what}: data is an empty dict")
            keys = [str(k) for k in data]
            cols = [_to_column(v, what) for v in data.values()]
            names = keys if names is None else names
        elif isinstance(data, tuple):
            if not data:
                raise ValueError(f"{what}: data is an empty tuple")
            cols = [_to_column(v, what) for v in data]
        else:
            cols = [_to_column(data, what)]
        for c in cols:
            if isinstance(c, np.ndarray) and c.ndim == 0:
                raise ValueError(f"{what}: data must have a first axis to slice along, got a scalar")
        if names is None:
            names = [f"column_{i}" for i in range(len(cols))]
        if len(names) != len(cols):
            raise ValueError(f"{what}: {len(names)} column name(s) {names} for {len(cols)} column(s) of data")
        lengths = {len(c) for c in cols}
        if len(lengths) > 1:
            raise ValueError(f"{what}: all columns must have the same length along the first axis, got "
                             f"{dict(zip(names, (len(c) for c in cols)))}")
        self._init_columns(names, cols)


def _row_tuple(row, ncols, what):
    if isinstance(row, tuple):
        vals = row
    elif isinstance(row, list) and len(row) == ncols and ncols > 1:
        vals = tuple(row)
    elif ncols == 1:
        vals = (row,)
    else:
        vals = (row,)
    if len(vals) != ncols:
        raise ValueError(f"{what}: the source gave a row of {len(vals)} value(s) but column_names names "
                         f"{ncols} column(s)")
    # rows are held until a block is stacked, and a source may refill one buffer per row, so an
    # array is copied when it is taken (as MindSpore's pipeline copies each row into its own)
    return tuple(v.copy() if isinstance(v, np.ndarray) else _as_row_value(v) for v in vals)


def _rows_to_block(rows, names):
    return {n: _stack_rows([r[j] for r in rows]) for j, n in enumerate(names)}


class _RandomAccessGenerator(MappableDataset):
    _generator_rules = True

    def __init__(self, source, names, **kw):
        super().__init__(**kw)
        self._source = source
        self._names = names

    def _columns(self):
        return list(self._names)

    def _num_rows(self):
        return len(self._source)

    def _fetch(self, idx):
        what = "GeneratorDataset"
        rows = [_row_tuple(self._source[int(i)], len(self._names), what) for i in idx]
        return _rows_to_block(rows, self._names)


class _DatasetRows:
    """Another dataset as a random-access source (``__len__`` + ``__getitem__``), so that
    ``GeneratorDataset(MnistDataset(...), shuffle=True)`` can shuffle, sample and shard its rows.
    The source's rows of one epoch are read on first access and kept in memory (as numpy rows)."""

    def __init__(self, dataset):
        self._dataset = dataset
        self._rows = None

    def _load(self):
        if self._rows is None:
            self._rows = [tuple(r) for r in self._dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)]
        return self._rows

    def __len__(self):
        return len(self._load())

    def __getitem__(self, i):
        return self._load()[i]


class GeneratorDataset(Dataset):
    """Rows from Python: ``source`` is a generator function (called once per epoch), an iterable,
    or a random-access object (``__getitem__`` + ``__len__``; then shuffle/num_samples/sharding and
    ``sampler`` (:mod:`runtime.data.samplers`) work, and ``shuffle=None`` shuffles, as in
    MindSpore). Each row is a tuple with one value per column. Another dataset (``MnistDataset``...)
    is iterable; given shuffle=True, num_samples, sharding or a sampler, its rows of one epoch are
    read into memory once and indexed from there.
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=6):
        what = "GeneratorDataset"
        names = _column_list(column_names, f"{what}(column_names=)")
        if not names:
            raise ValueError(f"{what}: column_names is required (a name for each value the source yields)")
        self._names = names
        self._types = None
        if column_types is not None:
            from graph.dtypes import as_dtype
            self._types = [as_dtype(t).np for t in column_types]
            if len(self._types) != len(names):
                raise ValueError(f"{what}: {len(self._types)} column_types for {len(names)} column(s)")
        if isinstance(source, Dataset) and (shuffle or sampler is not None or num_shards is not None
                                            or shard_id is not None or num_samples is not None):
            # another dataset is iterable; what needs random access reads it into memory once
            source = _DatasetRows(source)
        random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if random_access:
            inner = _RandomAccessGenerator(source, names, num_samples=num_samples, shuffle=shuffle,
                                           num_shards=num_shards, shard_id=shard_id, sampler=sampler)
            super().__init__([inner], num_parallel_workers)
            self._mode = "random"
        else:
            if not (callable(source) or hasattr(source, "__iter__")):
                raise TypeError(f"{what}: source must be a generator function, an iterable, or an object "
                                f"with __getitem__ and __len__, got {type(source).__name__}")
            if shuffle:
                raise ValueError(f"{what}: shuffle=True needs a random-access source (with __getitem__ and "
                                 "__len__); use .shuffle(buffer_size) on an iterable source")
            if sampler is not None:
                raise ValueError(f"{what}: sampler is not supported if source does not have attribute "
                                 "'__getitem__' (samplers need a random-access source, with __getitem__ and __len__)")
            if num_shards is not None or shard_id is not None:
                raise ValueError(f"{what}: num_shards/shard_id need a random-access source (with __getitem__ and "
                                 "__len__): an iterable's length is unknown, so its shards could not be made "
                                 "equal and data-parallel ranks would run different numbers of steps")
            if num_samples is not None:
                num_samples = _check_int(num_samples, "num_samples", what, 0)
            super().__init__((), num_parallel_workers)
            self._mode = "iter"
            self._source = source
            self._num_samples = num_samples

    def _columns(self):
        return list(self._names)

    def _size(self):
        if self._mode == "random":
            return self.children[0]._size()
        return None

    def _cast(self, block):
        if self._types is None:
            return block
        out = {}
        for (n, c), t in zip(block.items(), self._types):
            out[n] = c.astype(t) if isinstance(c, np.ndarray) else [np.asarray(v).astype(t) for v in c]
        return out

    def _blocks(self, launch):
        if self._mode == "random":
            for b in self.children[0]._blocks(launch):
                yield self._cast(b)
            return
        src = self._source
        it = iter(src() if callable(src) and not hasattr(src, "__iter__") else src)
        limit = self._num_samples or None
        rows = []
        count = 0
        for row in it:
            rows.append(_row_tuple(row, len(self._names), "GeneratorDataset"))
            count += 1
            if len(rows) >= _GEN_BLOCK:
                yield self._cast(_rows_to_block(rows, self._names))
                rows = []
            if limit is not None and count >= limit:
                break
        if rows:
            yield self._cast(_rows_to_block(rows, self._names))
