"""Batching rows of different shapes: ``Dataset.padded_batch`` and ``Dataset.bucket_batch_by_length``.

``pad_info`` (MindSpore's): ``{column: (pad_shape, pad_value)}``. A listed column is padded at the end
of each axis to ``pad_shape`` (None, or a None entry: the longest row of the batch along that axis)
with ``pad_value`` (None: 0, or '' for strings); an unlisted column is padded to the longest row
with 0. ``pad_info=None`` pads nothing (the rows must then agree in shape, as for ``batch``).

Example:
    >>> from runtime.data import NumpySlicesDataset
    >>> ds = NumpySlicesDataset([[1], [1, 2], [1, 2, 3], [1, 2, 3, 4]], "column1", shuffle=False)
    >>> [r[0].tolist() for r in ds.padded_batch(2, True, pad_info={}).create_tuple_iterator(output_numpy=True)]
    [[[1, 0], [1, 2]], [[1, 2, 3, 0], [1, 2, 3, 4]]]
"""
from __future__ import annotations

import numbers

import numpy as np

from .dataset import BatchDataset, Dataset, _as_row_value, _check_int, _column_list, _nrows, _row_of, _stack_rows


def check_pad_info(pad_info, names, what):
    """Validate ``pad_info`` against the dataset's column names; returns it (or None)."""
    if pad_info is None:
        return None
    if not isinstance(pad_info, dict):
        raise TypeError(f"{what}: pad_info must be a dict or None, got {type(pad_info).__name__}")
    for col, spec in pad_info.items():
        if col not in names:
            raise ValueError(f"{what}: pad_info names column {col!r}, not one of {names}")
        if not (isinstance(spec, tuple) and len(spec) == 2):
            raise TypeError(f"{what}: pad_info[{col!r}] must be a tuple (pad_shape, pad_value), got {spec!r}")
        shape = spec[0]
        if shape is not None and not (isinstance(shape, (list, tuple)) and all(
                s is None or (isinstance(s, numbers.Integral) and not isinstance(s, bool) and s > 0) for s in shape)):
            raise TypeError(f"{what}: pad_info[{col!r}] pad_shape must be None or a list of positive ints/None, "
                            f"got {shape!r}")
    return dict(pad_info)


def pad_rows(rows, pad_shape, pad_value, column, what):
    """Stack ``rows`` after padding each at the end of every axis to ``pad_shape`` (None entries:
    the longest row along that axis)."""
    rows = [_as_row_value(r) for r in rows]
    ranks = {r.ndim for r in rows}
    if len(ranks) > 1:
        raise ValueError(f"{what}: column {column!r} has rows of different ranks {sorted(ranks)}; cannot pad them")
    ndim = ranks.pop()
    longest = [max(r.shape[k] for r in rows) for k in range(ndim)]
    if pad_shape is None:
        target = longest
    else:
        if len(pad_shape) != ndim:
            raise ValueError(f"{what}: pad_shape {list(pad_shape)} of column {column!r} has {len(pad_shape)} "
                             f"entries but its rows have {ndim} axes")
        target = [n if p is None else int(p) for n, p in zip(longest, pad_shape)]
        if any(n > t for n, t in zip(longest, target)):
            raise ValueError(f"{what}: a row of column {column!r} (longest shape {longest}) is larger than its "
                             f"pad_shape {list(pad_shape)}")
    dtype = np.result_type(*[r.dtype for r in rows])
    fill = pad_value if pad_value is not None else ("" if dtype.kind in "SU" else 0)
    out = np.full((len(rows), *target), fill, dtype=dtype)
    for i, r in enumerate(rows):
        out[(i, *(slice(0, n) for n in r.shape))] = r
    return out


class PaddedBatchDataset(BatchDataset):
    """``batch`` whose rows are padded per ``pad_info`` before being stacked."""

    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers, pad_info):
        super().__init__(child, batch_size, drop_remainder, None, None, None, num_parallel_workers)
        self.pad_info = check_pad_info(pad_info, child.get_col_names(), "padded_batch")

    def _emit(self, block, nb, bs):
        if self.pad_info is None:
            return super()._emit(block, nb, bs)
        out = {}
        for name, col in block.items():
            shape, value = self.pad_info.get(name, (None, None))
            # batches of one block may pad to different shapes: a list column then (see _stack_rows)
            out[name] = _stack_rows([pad_rows([_row_of(col, b * bs + i) for i in range(bs)], shape, value, name,
                                           "padded_batch") for b in range(nb)])
        return out


class BucketBatchByLengthDataset(Dataset):
    """Rows go to the bucket of their length; a bucket that holds its batch size is emitted padded.
    Bucket 0 takes lengths below ``bucket_boundaries[0]``, bucket i lengths in
    ``[bucket_boundaries[i-1], bucket_boundaries[i])``, the last one the rest. At the end of an
    epoch the partly filled buckets are emitted in bucket order (unless ``drop_remainder``)."""

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes, element_length_function,
                 pad_info, pad_to_bucket_boundary, drop_remainder):
        super().__init__([child])
        what = "bucket_batch_by_length"
        names = child.get_col_names()
        self.column_names = _column_list(column_names, f"{what}(column_names=)")
        if not self.column_names:
            raise ValueError(f"{what}: column_names must name at least one column")
        missing = [c for c in self.column_names if c not in names]
        if missing:
            raise ValueError(f"{what}: column(s) {missing} not in the dataset's columns {names}")
        bounds = list(bucket_boundaries)
        if not bounds or any(isinstance(b, bool) or not isinstance(b, numbers.Integral) or b <= 0 for b in bounds) \
                or any(a >= b for a, b in zip(bounds, bounds[1:])):
            raise ValueError(f"{what}: bucket_boundaries must be positive, strictly increasing ints, got {bounds}")
        sizes = [_check_int(s, "bucket_batch_sizes", what, 1) for s in bucket_batch_sizes]
        if len(sizes) != len(bounds) + 1:
            raise ValueError(f"{what}: bucket_batch_sizes must have len(bucket_boundaries) + 1 = {len(bounds) + 1} "
                             f"entries, got {len(sizes)}")
        if element_length_function is None and len(self.column_names) != 1:
            raise ValueError(f"{what}: without element_length_function, column_names must name exactly one column "
                             "(the length is its rows' first dimension)")
        if element_length_function is not None and not callable(element_length_function):
            raise TypeError(f"{what}: element_length_function must be callable")
        if not isinstance(pad_to_bucket_boundary, bool) or not isinstance(drop_remainder, bool):
            raise TypeError(f"{what}: pad_to_bucket_boundary and drop_remainder must be bools")
        self.bounds, self.sizes = bounds, sizes
        self.length_fn = element_length_function
        self.pad_info = check_pad_info(pad_info, names, what)
        self.pad_to_bucket_boundary = pad_to_bucket_boundary
        self.drop_remainder = drop_remainder

    def _size(self):
        return None  # depends on the lengths of the rows

    def _length(self, values):
        if self.length_fn is None:
            v = values[0]
            if v.ndim == 0:
                raise ValueError(f"bucket_batch_by_length: column {self.column_names[0]!r} holds scalars, "
                                 "which have no length; give element_length_function")
            return int(v.shape[0])
        n = self.length_fn(*values)
        if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
            raise TypeError(f"bucket_batch_by_length: element_length_function must return an int, got {n!r}")
        return int(n)

    def _batch(self, rows, bucket):
        """One padded batch (a block of one row) from the rows of ``bucket``."""
        names = list(rows[0])
        out = {}
        for name in names:
            values = [r[name] for r in rows]
            if self.pad_info is None:
                shapes = {v.shape for v in values}
                if len(shapes) > 1:
                    raise ValueError(f"bucket_batch_by_length: column {name!r} has rows of shapes "
                                     f"{sorted(shapes, key=str)[:4]} and pad_info is None; give pad_info to pad them")
                out[name] = np.stack(values)[None]
                continue
            shape, value = self.pad_info.get(name, (None, None))
            if self.pad_to_bucket_boundary and name in self.pad_info:
                if bucket == len(self.bounds):
                    raise ValueError("bucket_batch_by_length: pad_to_bucket_boundary needs every row below the last "
                                     f"boundary {self.bounds[-1]}; a row fell into the last bucket")
                edge = self.bounds[bucket] - 1
                ndim = values[0].ndim
                shape = [edge if s is None else s for s in (shape if shape is not None else [None] * ndim)]
            out[name] = pad_rows(values, shape, value, name, "bucket_batch_by_length")[None]
        return out

    def _blocks(self, launch):
        buckets = [[] for _ in self.sizes]
        for block in self.children[0]._blocks(launch):
            for i in range(_nrows(block)):
                row = {n: _as_row_value(_row_of(c, i)) for n, c in block.items()}
                length = self._length([row[c] for c in self.column_names])
                k = int(np.searchsorted(self.bounds, length, side="right"))
                buckets[k].append(row)
                if len(buckets[k]) == self.sizes[k]:
                    yield self._batch(buckets[k], k)
                    buckets[k] = []
        if not self.drop_remainder:
            for k, rows in enumerate(buckets):
                if rows:
                    yield self._batch(rows, k)
