"""``Dataset.map``: transforms applied to columns of every row, optionally on a pool of workers.

The rows of each incoming block are cut into *chunks* of a fixed number of rows; a chunk is the
unit of work a worker gets. Transforms that know how to work on a stack of samples (the vision
and transforms classes) run once per chunk; any other callable runs row by row, as MindSpore would.

Determinism: every chunk gets its own random stream, seeded from the pipeline seed
(``ms.set_seed`` / ``dataset.config.set_seed``), the map node and the chunk's number in the launch.
Chunk (and output block) boundaries depend only on the rows, never on the worker count, and
results are put back in order, so 1, 2 or 8 workers, threads or processes, give the same rows in the same order with the
same random augmentations. Each epoch (and each repeat) numbers its chunks on from the last, so
random transforms draw anew.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime.data import NumpySlicesDataset, vision
    >>> imgs = np.arange(4 * 6 * 6, dtype=np.uint8).reshape(4, 6, 6, 1)
    >>> def flipped(workers):
    ...     ms.set_seed(3)
    ...     ds = NumpySlicesDataset({"image": imgs}, shuffle=False)
    ...     ds = ds.map(vision.RandomHorizontalFlip(), "image", num_parallel_workers=workers)
    ...     return [r[0] for r in ds.create_tuple_iterator(output_numpy=True)]
    >>> all(np.array_equal(a, b) for a, b in zip(flipped(1), flipped(3)))
    True
"""
from __future__ import annotations

import collections

import numpy as np

from .dataset import Dataset, _block_concat, _block_slice, _check_int, _column_list, _nrows, _row_of, _stack_rows
from .random_vision import drawing_from
from .workers import ordered_map

#: rows per chunk when every transform works on a whole stack of samples at once
VECTOR_CHUNK_ROWS = 256
#: rows per chunk when a transform runs row by row (Python callables, Decode): small, so that a
#: few hundred rows still spread over several workers
ROW_CHUNK_ROWS = 16


def _is_vectorizable(op):
    return hasattr(op, "_apply_batch")


def _rewrap(e, msg):
    """The same kind of exception with ``msg`` (the original when its type cannot be rebuilt)."""
    try:
        return type(e)(msg)
    except Exception:
        return e


def _op_name(op):
    return getattr(op, "__name__", None) or type(op).__name__


class MapWork:
    """What one map step does to a chunk of rows: ``work(chunk, seed) -> chunk``. Holds only the
    transforms and column names (not the pipeline), so it is what worker processes receive."""

    def __init__(self, operations, input_columns, output_columns, order):
        self.operations = operations
        self.input_columns = input_columns
        self.output_columns = output_columns
        self.order = order
        # one vectorised call per transform when each maps one column to one column
        self.vector = len(input_columns) == 1 and len(output_columns) == 1 and all(
            _is_vectorizable(o) for o in operations)

    def __call__(self, chunk, seed):
        with drawing_from(np.random.default_rng(seed)):  # random transforms draw from this chunk's stream
            return self._map_chunk(chunk)

    def _map_chunk(self, block):
        ins = [block[c] for c in self.input_columns]
        if self.vector and isinstance(ins[0], np.ndarray):
            arr = ins[0]
            for op in self.operations:
                try:
                    arr = op._apply_batch(arr)
                except (ValueError, TypeError) as e:
                    raise _rewrap(e, f"map: {_op_name(op)} failed on column {self.input_columns[0]!r}: {e}") from e
            outs = [arr]
        else:
            outs = self._apply_rows(ins, _nrows(block))
        new = dict(block)
        for c in self.input_columns:
            new.pop(c, None)
        for c, v in zip(self.output_columns, outs):
            new[c] = v
        return {c: new[c] for c in self.order}

    def _apply_rows(self, values_per_col, n):
        outs_cols = [[] for _ in self.output_columns]
        for i in range(n):
            vals = tuple(_row_of(c, i) for c in values_per_col)
            for op in self.operations:
                try:
                    res = op(*vals)
                except (ValueError, TypeError) as e:
                    raise _rewrap(e, f"map: {_op_name(op)} failed on input column(s) {self.input_columns}: {e}") from e
                vals = tuple(res) if isinstance(res, (tuple, list)) else (res,)
            if len(vals) != len(self.output_columns):
                raise ValueError(f"map: the operations returned {len(vals)} value(s) but output_columns "
                                 f"names {len(self.output_columns)}: {self.output_columns}")
            for j, v in enumerate(vals):
                outs_cols[j].append(v)
        return [_stack_rows(c) for c in outs_cols]


class MapDataset(Dataset):
    def __init__(self, child, operations, input_columns, output_columns, column_order, num_parallel_workers,
                 python_multiprocessing=False):
        if num_parallel_workers is not None:
            num_parallel_workers = _check_int(num_parallel_workers, "num_parallel_workers", "map", 1)
        if not isinstance(python_multiprocessing, bool):
            raise TypeError(f"map: python_multiprocessing must be a bool, got {python_multiprocessing!r}")
        super().__init__([child], num_parallel_workers)
        self.python_multiprocessing = python_multiprocessing
        if operations is None:
            raise ValueError("map: operations is required (a transform or a list of transforms)")
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops:
            raise ValueError("map: operations is an empty list")
        for op in ops:
            if not callable(op):
                raise TypeError(f"map: each operation must be callable (a transform or a function), got {op!r}")
        self.operations = ops
        names = child.get_col_names()
        ins = _column_list(input_columns, "map(input_columns=)")
        if ins is None:
            ins = names[:1]
        missing = [c for c in ins if c not in names]
        if missing:
            raise ValueError(f"map: input column(s) {missing} not in the dataset's columns {names}")
        outs = _column_list(output_columns, "map(output_columns=)") or list(ins)
        self.input_columns = ins
        self.output_columns = outs
        # new column order: outputs take the place of the first input column, other inputs vanish
        first = names.index(ins[0])
        kept_before = [n for n in names[:first] if n not in ins and n not in outs]
        kept_after = [n for n in names[first:] if n not in ins and n not in outs]
        order = kept_before + outs + kept_after
        if column_order is not None:
            co = _column_list(column_order, "map(column_order=)")
            bad = [c for c in co if c not in order]
            if bad:
                raise ValueError(f"map: column_order names unknown column(s) {bad}; columns are {order}")
            order = co
        self._order = order
        self._work = MapWork(ops, ins, outs, order)
        self._chunk_rows = VECTOR_CHUNK_ROWS if self._work.vector else ROW_CHUNK_ROWS

    def _columns(self):
        return list(self._order)

    def _worker_count(self):
        if self.num_parallel_workers is not None:
            return self.num_parallel_workers
        from . import config
        return config.get_num_parallel_workers()

    def _blocks(self, launch):
        chunks_per_block = collections.deque()

        def chunks():
            rows = self._chunk_rows
            for block in self.children[0]._blocks(launch):
                n = _nrows(block)
                if n == 0:
                    continue
                starts = range(0, n, rows)
                chunks_per_block.append(len(starts))
                for s in starts:
                    # seeds are handed out here, in row order, whichever worker takes the chunk
                    yield (block if n <= rows else _block_slice(block, s, min(s + rows, n)),
                           launch.chunk_seed(self))

        done, done_rows = [], 0
        results = ordered_map(self._work, chunks(), self._worker_count(), self.python_multiprocessing, "map")
        try:
            for mapped in results:
                done.append(mapped)
                done_rows += _nrows(mapped)
                chunks_per_block[0] -= 1
                end_of_block = chunks_per_block[0] == 0
                if end_of_block:
                    chunks_per_block.popleft()
                # out go blocks of at least VECTOR_CHUNK_ROWS rows (or an incoming block's last rows):
                # the first rows do not wait for a whole source block, and the blocks stay big
                # enough for the next step's vectorised transforms
                if end_of_block or done_rows >= VECTOR_CHUNK_ROWS:
                    yield _block_concat(done)
                    done, done_rows = [], 0
        finally:
            results.close()  # stops the workers now, also when the consumer leaves mid-epoch
