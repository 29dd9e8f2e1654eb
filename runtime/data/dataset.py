"""The dataset pipeline: a tree of nodes (sources, map, batch, shuffle, repeat, take...) that
yields rows of numpy arrays, and the iterators that turn rows into Tensors.

Like ``mindspore.dataset``, operations are described per sample (``map`` applies its transforms
to each row, ``batch`` stacks rows). Internally the pipeline moves *blocks* of rows: each column of
a block is one numpy array whose first axis is the row index (or, for ragged data, a Python list
of per-row values). Transforms that know how to work on a stack of samples (everything in
:mod:`runtime.data.vision` and :mod:`runtime.data.transforms`) are applied to a whole block at
once, so a 60,000-image MNIST epoch through Resize/Rescale/HWC2CHW/batch takes well under a
second; any other callable is applied row by row, exactly as MindSpore would.

Example:
    >>> import numpy as np
    >>> from runtime.data import NumpySlicesDataset
    >>> ds = NumpySlicesDataset({"x": np.arange(10), "y": np.arange(10) * 2}, shuffle=False)
    >>> ds = ds.map(lambda v: v + 100, input_columns="x").batch(4)
    >>> [b["x"].tolist() for b in ds.create_dict_iterator(output_numpy=True)]
    [[100, 101, 102, 103], [104, 105, 106, 107], [108, 109]]
    >>> ds.get_dataset_size(), ds.get_col_names()
    (3, ['x', 'y'])
"""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from .sharding import SHARD_SEED, check_shard_args

#: rows per block that the in-memory sources emit
BLOCK_ROWS = 1024


# ---------------------------------------------------------------------------------------------
# blocks: {column name: np.ndarray (rows first) or list of per-row values}
# ---------------------------------------------------------------------------------------------
def _nrows(block) -> int:
    for col in block.values():
        return len(col)
    return 0


def _col_take(col, idx):
    if isinstance(col, np.ndarray):
        return col[idx]
    return [col[i] for i in idx]


def _as_row_value(v):
    """A row value as the pipeline stores it: numpy arrays (0-d for scalars)."""
    if isinstance(v, np.ndarray):
        return v
    if hasattr(v, "asnumpy"):  # a Tensor
        return v.asnumpy()
    return np.asarray(v)


def _stack_rows(values):
    """Stack per-row values into one array when they agree in shape and dtype, else keep a list."""
    values = [_as_row_value(v) for v in values]
    if not values:
        return values
    first = values[0]
    shape, dtype = first.shape, first.dtype
    if dtype != object and all(v.shape == shape and v.dtype == dtype for v in values):
        return np.stack(values)
    return values


def _col_concat(cols):
    cols = [c for c in cols if len(c)]
    if not cols:
        return []
    if len(cols) == 1:
        return cols[0]
    if all(isinstance(c, np.ndarray) for c in cols):
        a0 = cols[0]
        if all(c.shape[1:] == a0.shape[1:] and c.dtype == a0.dtype for c in cols):
            return np.concatenate(cols)
    rows = []
    for c in cols:
        rows.extend(list(c))
    return _stack_rows(rows)


def _block_concat(blocks):
    if len(blocks) == 1:
        return blocks[0]
    names = list(blocks[0])
    return {n: _col_concat([b[n] for b in blocks]) for n in names}


def _block_slice(block, start, stop):
    return {n: c[start:stop] for n, c in block.items()}


def _block_take(block, idx):
    return {n: _col_take(c, idx) for n, c in block.items()}


def _row_of(col, i):
    v = col[i]
    if isinstance(v, np.generic):
        v = np.asarray(v)
    return v


def _column_list(columns, what):
    if columns is None:
        return None
    if isinstance(columns, str):
        return [columns]
    if isinstance(columns, (list, tuple)) and all(isinstance(c, str) for c in columns):
        if len(set(columns)) != len(columns):
            raise ValueError(f"{what}: column names must be unique, got {list(columns)}")
        return list(columns)
    raise TypeError(f"{what}: expected a column name or a list of column names, got {columns!r}")


def _check_int(value, name, what, minimum=None, allow=()):
    if value in allow and not isinstance(value, bool):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what}: {name} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        extra = f" (or one of {list(allow)})" if allow else ""
        raise ValueError(f"{what}: {name} must be >= {minimum}{extra}, got {value}")
    return int(value)


# ---------------------------------------------------------------------------------------------
# pipeline launch context: per-node random generators, seeded from ms.set_seed
# ---------------------------------------------------------------------------------------------
class _Launch:
    """State of one pipeline launch (one iterator): a random generator per node, and numbered
    seeds for the chunks of rows that map nodes hand to their workers.

    With a seed set (``ms.set_seed`` or ``runtime.data.config.set_seed``) every launch gives the
    same sequence; each epoch of a launch draws new numbers (a new shuffle order per epoch).
    """

    def __init__(self, root):
        from . import config
        self.seed = config.get_seed()
        self._index = {}
        for i, node in enumerate(root._walk()):
            self._index.setdefault(id(node), i)
        self._gens = {}
        self._entropy = int(self.seed) if self.seed is not None else np.random.SeedSequence().entropy
        self._chunks_seeded = {}

    def chunk_seed(self, node) -> np.random.SeedSequence:
        """The seed of the next chunk of rows ``node`` transforms: chunk n of node i of this launch
        (counted over all its epochs), whichever worker transforms it."""
        n = self._chunks_seeded.get(id(node), 0)
        self._chunks_seeded[id(node)] = n + 1
        return np.random.SeedSequence(self._entropy, spawn_key=(self._index.get(id(node), 0), n))

    def rng(self, node, fallback_seed=None) -> np.random.Generator:
        """``node``'s generator: from the launch's seed, else ``fallback_seed``, else unseeded."""
        g = self._gens.get(id(node))
        if g is None:
            seed = self.seed if self.seed is not None else fallback_seed
            if seed is None:
                g = np.random.default_rng()
            else:
                g = np.random.default_rng(np.random.SeedSequence([int(seed), self._index.get(id(node), 0)]))
            self._gens[id(node)] = g
        return g


# ---------------------------------------------------------------------------------------------
# base class
# ---------------------------------------------------------------------------------------------
class Dataset:
    """Base class of all datasets (mirrors ``mindspore.dataset.Dataset``).

    Subclasses implement ``_blocks(launch)`` (a generator of blocks for one epoch),
    ``_columns()`` and ``_size()`` (rows per epoch, or None when unknown without iterating).
    """

    def __init__(self, children=(), num_parallel_workers=None):
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._cached_size = None

    # -- tree ---------------------------------------------------------------------------------
    def _walk(self):
        yield self
        for c in self.children:
            yield from c._walk()

    def _blocks(self, launch):  # pragma: no cover - abstract
        raise NotImplementedError

    def _columns(self):
        return self.children[0]._columns()

    def _size(self):
        return self.children[0]._size()

    # -- information ----------------------------------------------------------------------------
    def get_col_names(self):
        """Names of the columns each row has, in order."""
        return list(self._columns())

    def get_dataset_size(self):
        """Rows (batches, after ``batch``) per epoch. Iterates once when the size is not known."""
        n = self._size()
        if n is None:
            if self._cached_size is None:
                launch = _Launch(self)
                self._cached_size = sum(_nrows(b) for b in self._blocks(launch))
            n = self._cached_size
        return n

    def get_batch_size(self):
        for node in self._walk():
            if isinstance(node, BatchDataset):
                return node.batch_size
        return 1

    def get_repeat_count(self):
        for node in self._walk():
            if isinstance(node, RepeatDataset):
                return node.count
        return 1

    def get_class_indexing(self):
        """Class name -> label of the source (ImageFolderDataset); {} for sources without one."""
        return self.children[0].get_class_indexing() if self.children else {}

    def num_classes(self):
        """Number of classes of the source, None when it does not know."""
        return self.children[0].num_classes() if self.children else None

    def output_shapes(self, estimate=False):
        """Shape of each column of the first row. With ``estimate=True`` (MindSpore 2.x) the whole
        dataset is read and a dimension that varies between rows is reported as None."""
        if not isinstance(estimate, bool):
            raise TypeError(f"output_shapes: estimate must be a bool, got {estimate!r}")
        it = iter(self.create_tuple_iterator(num_epochs=1, output_numpy=True))
        shapes = [list(np.shape(v)) for v in next(it)]
        if estimate:
            for row in it:
                for j, v in enumerate(row):
                    s = np.shape(v)
                    if len(s) != len(shapes[j]):
                        raise ValueError(f"output_shapes: column {j} has rows of different ranks "
                                         f"({len(shapes[j])} and {len(s)})")
                    shapes[j] = [a if a == b else None for a, b in zip(shapes[j], s)]
        return shapes

    def output_types(self):
        row = next(iter(self.create_tuple_iterator(num_epochs=1, output_numpy=True)))
        return [np.asarray(v).dtype for v in row]

    # -- pipeline operations --------------------------------------------------------------------
    def map(self, operations=None, input_columns=None, output_columns=None, column_order=None,
            num_parallel_workers=None, python_multiprocessing=False, cache=None, callbacks=None,
            max_rowsize=16, offload=None):
        """Apply ``operations`` (a transform or a list, applied in order) to ``input_columns`` of
        each row; the results replace those columns (named ``output_columns``).

        ``num_parallel_workers`` workers transform chunks of rows at once (None: the value of
        ``dataset.config.set_num_parallel_workers``, 1 unless set): threads, or with
        ``python_multiprocessing=True`` processes (for Python transforms that hold the GIL). The
        rows, their order and the random augmentations are the same for any number of workers.
        ``cache``, ``callbacks``, ``max_rowsize`` and ``offload`` are accepted and ignored."""
        return MapDataset(self, operations, input_columns, output_columns, column_order,
                          num_parallel_workers, python_multiprocessing)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, per_batch_map=None,
              input_columns=None, output_columns=None, **kwargs):
        """Stack ``batch_size`` consecutive rows into one row (arrays gain a leading axis)."""
        return BatchDataset(self, batch_size, drop_remainder, per_batch_map, input_columns,
                            output_columns, num_parallel_workers)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, pad_info=None):
        """``batch`` that first pads the rows of each batch per ``pad_info`` (see
        :mod:`runtime.data.padding`; ``{}``: every column to its longest row, with 0)."""
        from .padding import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, drop_remainder, num_parallel_workers, pad_info)

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                               drop_remainder=False):
        """Batch rows of similar length together: a row goes to the bucket its length falls in
        (``bucket_boundaries`` split the lengths), each bucket batches ``bucket_batch_sizes[i]`` rows,
        padded per ``pad_info`` (to the bucket's boundary - 1 with ``pad_to_bucket_boundary``). The
        length is the first dimension of the one column named, or ``element_length_function(*columns)``."""
        from .padding import BucketBatchByLengthDataset
        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries, bucket_batch_sizes,
                                          element_length_function, pad_info, pad_to_bucket_boundary,
                                          drop_remainder)

    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of ``buffer_size`` rows (a new order every epoch)."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """Repeat the dataset ``count`` times (None or -1: forever)."""
        return RepeatDataset(self, count)

    def take(self, count=-1):
        """The first ``count`` rows (-1: all)."""
        return TakeDataset(self, count)

    def skip(self, count):
        """Drop the first ``count`` rows."""
        return SkipDataset(self, count)

    def project(self, columns):
        """Keep only ``columns``, in that order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename columns."""
        return RenameDataset(self, input_columns, output_columns)

    def zip(self, datasets):
        """Rows side by side: this dataset's columns, then each other dataset's (names must be
        unique); as many rows as the shortest."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ZipDataset([self] + others)

    def concat(self, datasets):
        """This dataset's rows, then each other dataset's (same columns in the same order);
        also ``ds1 + ds2``."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ConcatDataset([self] + others)

    def __add__(self, other):
        return self.concat(other)

    def split(self, sizes, randomize=True):
        """Disjoint datasets of the given sizes (row counts summing to the dataset size, or
        fractions summing to 1: each ``round(f * size)``, the first absorbing any rounding
        difference). ``randomize`` shuffles the rows once before splitting (seeded by
        ``ms.set_seed`` / ``dataset.config.set_seed``); otherwise splits are contiguous."""
        return split_dataset(self, sizes, randomize)

    # -- iteration ------------------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator over rows as lists (Tensors, or numpy arrays with ``output_numpy=True``).

        Each pass over the iterator (``for row in it``) is one epoch; it can be iterated
        ``num_epochs`` times (-1: any number of times).
        """
        return TupleIterator(self, columns, num_epochs, output_numpy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Like :meth:`create_tuple_iterator` but each row is a dict column name -> value."""
        return DictIterator(self, None, num_epochs, output_numpy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    def __repr__(self):
        return f"{type(self).__name__}(columns={self.get_col_names()})"


# ---------------------------------------------------------------------------------------------
# iterators
# ---------------------------------------------------------------------------------------------
def _to_tensor(v):
    from ..tensor import Tensor
    if isinstance(v, np.ndarray) and v.dtype.kind in "USO":
        return v  # strings stay numpy (no string tensors)
    return Tensor(v)


def _epoch_rows(dataset, launch, columns, output_numpy):
    """(column names, row values) of one epoch. A plain function, not a method: a generator that
    held the iterator would make a reference cycle, and an iterator dropped mid-epoch would then
    keep its pipeline (and its worker pools) alive until the garbage collector ran."""
    sel = None
    conv = (lambda v: v) if output_numpy else _to_tensor
    for block in dataset._blocks(launch):
        names = list(block)
        if sel is None and columns is not None:
            sel = [names.index(c) for c in columns]
        cols = list(block.values())
        if sel is not None:
            cols = [cols[j] for j in sel]
            names = [names[j] for j in sel]
        for i in range(_nrows(block)):
            yield names, [conv(_row_of(c, i)) for c in cols]


class _IteratorBase:
    def __init__(self, dataset, columns, num_epochs, output_numpy):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"create_iterator: expected a Dataset, got {type(dataset).__name__}")
        num_epochs = _check_int(num_epochs, "num_epochs", "create_tuple_iterator", 1, allow=(-1,))
        self.dataset = dataset
        names = dataset.get_col_names()
        columns = _column_list(columns, "create_tuple_iterator")
        if columns is not None:
            missing = [c for c in columns if c not in names]
            if missing:
                raise ValueError(f"create_tuple_iterator: unknown column(s) {missing}; the dataset has {names}")
        self.columns = columns
        self.num_epochs = num_epochs
        self.output_numpy = bool(output_numpy)
        self._launch = _Launch(dataset)
        self._epochs_done = 0
        self._rows = None

    def __iter__(self):
        return self

    def _next_row(self):
        if self._rows is None:
            if self.num_epochs != -1 and self._epochs_done >= self.num_epochs:
                raise StopIteration
            self._rows = _epoch_rows(self.dataset, self._launch, self.columns, self.output_numpy)
        try:
            return next(self._rows)
        except StopIteration:
            self._rows = None
            self._epochs_done += 1
            raise

    def stop(self):
        if self._rows is not None:
            self._rows.close()  # ends the pipeline's generators now: worker pools shut down
        self._rows = None
        self._epochs_done = self.num_epochs if self.num_epochs != -1 else self._epochs_done

    def get_col_names(self):
        return self.columns or self.dataset.get_col_names()


class TupleIterator(_IteratorBase):
    """Rows as lists, in column order."""

    def __next__(self):
        return self._next_row()[1]


class DictIterator(_IteratorBase):
    """Rows as dicts column name -> value."""

    def __next__(self):
        names, values = self._next_row()
        return dict(zip(names, values))


# ---------------------------------------------------------------------------------------------
# sources held in memory (used by MnistDataset, NumpySlicesDataset, random-access generators)
# ---------------------------------------------------------------------------------------------
class MappableDataset(Dataset):
    """A source whose rows can be indexed; it reads them through one sampler
    (:mod:`runtime.data.samplers`): ``sampler=`` (a sampler, a list of row numbers or an iterable
    of them), or the one ``shuffle`` / ``num_samples`` / ``num_shards`` / ``shard_id`` stand for
    (shards: a ``DistributedSampler``, equal sizes, every shard shuffling alike, see
    :mod:`runtime.data.sharding`; ``num_samples`` then caps the rows of each shard).

    Subclasses implement ``_num_rows()`` and ``_fetch(indices) -> block`` (and may add
    ``_fetch_slice(start, stop)`` for runs of rows, ``_class_labels()`` for PKSampler).
    """

    #: GeneratorDataset / NumpySlicesDataset: MindSpore refuses a sampler given with
    #: shuffle/sharding/num_samples with ValueError there, RuntimeError in the file sources
    _generator_rules = False

    def __init__(self, num_samples=None, shuffle=None, num_shards=None, shard_id=None,
                 num_parallel_workers=None, sampler=None):
        super().__init__((), num_parallel_workers)
        from .samplers import select_sampler
        what = type(self).__name__
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"{what}: shuffle must be True, False or None, got {shuffle!r}")
        if num_samples is not None:
            num_samples = _check_int(num_samples, "num_samples", what, 0)
        num_shards, shard_id = check_shard_args(num_shards, shard_id, what)
        self.sampler = select_sampler(num_samples, sampler, shuffle, num_shards, shard_id, what,
                                      self._generator_rules)

    # subclasses: _num_rows() and _fetch(indices) -> block, or _fetch_slice(start, stop)
    def _num_rows(self):
        raise NotImplementedError

    def _fetch(self, idx):
        raise NotImplementedError

    def _fetch_slice(self, start, stop):
        return self._fetch(np.arange(start, stop))

    def _class_labels(self):
        """Each row's class, for PKSampler; None when the source has no label column."""
        return None

    def _labels_fn(self):
        return self._class_labels if self._class_labels() is not None else None

    def use_sampler(self, new_sampler):
        """Read the rows through ``new_sampler`` instead (MindSpore's ``use_sampler``)."""
        from .samplers import as_sampler
        if new_sampler is None:
            raise TypeError(f"{type(self).__name__}.use_sampler: expected a sampler, got None")
        self.sampler = as_sampler(new_sampler, None, type(self).__name__)
        self._cached_size = None

    def add_sampler(self, new_sampler):
        """Make ``new_sampler`` the child of the current sampler (MindSpore's ``add_sampler``)."""
        self.sampler.add_child(new_sampler)
        self._cached_size = None

    def _size(self):
        return self.sampler.count(self._num_rows(), self._labels_fn())

    def _indices(self, launch):
        # shards must agree on the order: seeded even when no dataset seed is set
        rng = launch.rng(self, SHARD_SEED if self.sampler.needs_agreed_seed() else None)
        return self.sampler.draw(self._num_rows(), rng, self._labels_fn())

    def _blocks(self, launch):
        idx = self._indices(launch)
        if isinstance(idx, range):  # a run of consecutive rows: read as slices
            for s in range(idx.start, idx.stop, BLOCK_ROWS):
                yield self._fetch_slice(s, min(s + BLOCK_ROWS, idx.stop))
        else:
            for s in range(0, len(idx), BLOCK_ROWS):
                yield self._fetch(idx[s:s + BLOCK_ROWS])


class _ArraySource(MappableDataset):
    """Rows are slices of in-memory columns (arrays or lists)."""

    #: the column PKSampler samples by (MnistDataset and Cifar10Dataset: "label")
    _label_column = None

    def _class_labels(self):
        if self._label_column is None:
            return None
        return self._data[self._names.index(self._label_column)]

    def _init_columns(self, names, columns):
        self._names = list(names)
        self._data = list(columns)

    def _columns(self):
        return list(self._names)

    def _num_rows(self):
        return len(self._data[0]) if self._data else 0

    def _fetch(self, idx):
        return {n: _col_take(c, idx) for n, c in zip(self._names, self._data)}

    def _fetch_slice(self, start, stop):
        # copies of read-only data (e.g. a cached file) so that rows handed out are writable
        return {n: (c[start:stop].copy() if isinstance(c, np.ndarray) and not c.flags.writeable else c[start:stop])
                for n, c in zip(self._names, self._data)}


# ---------------------------------------------------------------------------------------------
# pipeline nodes
# ---------------------------------------------------------------------------------------------
class BatchDataset(Dataset):
    def __init__(self, child, batch_size, drop_remainder, per_batch_map, input_columns, output_columns,
                 num_parallel_workers):
        super().__init__([child], num_parallel_workers)
        self.batch_size = _check_int(batch_size, "batch_size", "batch", 1)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"batch: drop_remainder must be a bool, got {drop_remainder!r}")
        self.drop_remainder = drop_remainder
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError("batch: per_batch_map must be callable")
        self.per_batch_map = per_batch_map
        names = child.get_col_names()
        self.input_columns = _column_list(input_columns, "batch(input_columns=)") or (names if per_batch_map else None)
        self.output_columns = _column_list(output_columns, "batch(output_columns=)")
        if self.input_columns:
            missing = [c for c in self.input_columns if c not in names]
            if missing:
                raise ValueError(f"batch: input column(s) {missing} not in the dataset's columns {names}")

    def _columns(self):
        names = self.children[0].get_col_names()
        if self.per_batch_map is None or not self.output_columns or self.output_columns == self.input_columns:
            return names
        return [n for n in names if n not in self.input_columns] + self.output_columns

    def _size(self):
        n = self.children[0]._size()
        if n is None:
            return None
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _emit(self, block, nb, bs):
        """``nb`` batches of ``bs`` rows from the first nb*bs rows of block -> a block of nb rows."""
        out = {}
        for name, col in block.items():
            if isinstance(col, np.ndarray):
                a = col[:nb * bs]
                out[name] = np.ascontiguousarray(a.reshape((nb, bs) + a.shape[1:]))
            else:
                rows = []
                for b in range(nb):
                    part = [_as_row_value(v) for v in col[b * bs:(b + 1) * bs]]
                    shapes = {p.shape for p in part}
                    if len(shapes) > 1:
                        raise ValueError(f"batch: cannot stack column {name!r}: its rows have different shapes "
                                         f"{sorted(shapes, key=str)[:4]}; make them equal (e.g. with a Resize or "
                                         "padding map) before batch")
                    rows.append(np.stack(part))
                out[name] = _stack_rows(rows)
        if self.per_batch_map is not None:
            out = self._per_batch(out, nb)
        return out

    def _per_batch(self, block, nb):
        ins = self.input_columns
        outs = self.output_columns or ins
        results = [[] for _ in outs]
        for b in range(nb):
            args = [[np.asarray(r) for r in _row_of(block[c], b)] for c in ins]
            res = self.per_batch_map(*args, BatchInfo(b))
            res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
            if len(res) != len(outs):
                raise ValueError(f"batch: per_batch_map returned {len(res)} value(s) for output columns {outs}")
            for j, r in enumerate(res):
                results[j].append(np.stack([np.asarray(x) for x in r]) if isinstance(r, (list, tuple)) else np.asarray(r))
        new = {k: v for k, v in block.items() if k not in ins}
        for c, vals in zip(outs, results):
            new[c] = _stack_rows(vals)
        return {c: new[c] for c in self._columns()}

    def _blocks(self, launch):
        bs = self.batch_size
        carry = []
        carried = 0
        for block in self.children[0]._blocks(launch):
            n = _nrows(block)
            if n == 0:
                continue
            if carried + n < bs:
                carry.append(block)
                carried += n
                continue
            whole = _block_concat(carry + [block]) if carry else block
            total = carried + n
            nb = total // bs
            yield self._emit(whole, nb, bs)
            rest = total - nb * bs
            carry = [_block_slice(whole, nb * bs, total)] if rest else []
            carried = rest
        if carried and not self.drop_remainder:
            yield self._emit(_block_concat(carry), 1, carried)


class BatchInfo:
    """What ``per_batch_map`` receives last: the batch number within the epoch."""

    def __init__(self, batch_num, epoch_num=0):
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self):
        return self._batch_num

    def get_epoch_num(self):
        return self._epoch_num


class ShuffleDataset(Dataset):
    def __init__(self, child, buffer_size):
        super().__init__([child])
        self.buffer_size = _check_int(buffer_size, "buffer_size", "shuffle", 2)

    def _blocks(self, launch):
        """MindSpore's documented policy: the buffer holds the first ``buffer_size`` rows; then
        for each further input row a uniformly chosen buffer slot is output and the new row takes
        its place; when the input ends, the buffer comes out in random order (so no row comes out
        more than ``buffer_size - 1`` places early).

        Only row numbers go through the per-row loop; rows move in blocks: ``pool`` holds the
        buffered rows (slots 0..size-1) followed by the rows that arrived since, and is rebuilt
        once at least max(size, BLOCK_ROWS) new rows are in (amortised copies per row <= 2)."""
        rng = launch.rng(self)
        size = self.buffer_size
        step = max(size, BLOCK_ROWS)
        pool = None  # block: the buffer's rows in slot order, then pending new rows
        slots = None  # pool row of each buffer slot, once the buffer is full
        pending = []  # new blocks not yet in pool
        pending_rows = 0

        def drain(pool, slots, new_blocks):
            """Run the policy over the rows of ``new_blocks``; returns (out block, pool, slots)."""
            pool = _block_concat(([pool] if pool is not None else []) + new_blocks)
            n = _nrows(pool)
            first_new = n - sum(_nrows(b) for b in new_blocks)
            out = []
            k = first_new
            if slots is None:  # still filling the buffer
                k = min(n, size)
                if k < size:
                    return None, pool, None
                slots = list(range(size))
            draws = rng.integers(0, size, size=n - k)
            for i, j in zip(range(k, n), draws):
                out.append(slots[j])
                slots[j] = i
            out_block = _block_take(pool, np.asarray(out, np.int64)) if out else None
            pool = _block_take(pool, np.asarray(slots, np.int64))
            return out_block, pool, list(range(size))

        for block in self.children[0]._blocks(launch):
            if not _nrows(block):
                continue
            pending.append(block)
            pending_rows += _nrows(block)
            if pending_rows >= step:
                out, pool, slots = drain(pool, slots, pending)
                pending, pending_rows = [], 0
                if out is not None:
                    for s in range(0, _nrows(out), BLOCK_ROWS):
                        yield _block_slice(out, s, min(s + BLOCK_ROWS, _nrows(out)))
        if pending:
            out, pool, slots = drain(pool, slots, pending)
            if out is not None:
                for s in range(0, _nrows(out), BLOCK_ROWS):
                    yield _block_slice(out, s, min(s + BLOCK_ROWS, _nrows(out)))
        if pool is not None and _nrows(pool):
            perm = rng.permutation(_nrows(pool))
            for s in range(0, len(perm), BLOCK_ROWS):
                yield _block_take(pool, perm[s:s + BLOCK_ROWS])


class RepeatDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child])
        if count is None:
            count = -1
        self.count = _check_int(count, "count", "repeat", 1, allow=(-1,))

    def _size(self):
        n = self.children[0]._size()
        if n is None:
            return None
        return n * self.count if self.count != -1 else n

    def get_dataset_size(self):
        if self.count == -1:
            raise ValueError("get_dataset_size: the dataset repeats forever (repeat(-1))")
        return super().get_dataset_size()

    def _blocks(self, launch):
        it = itertools.count() if self.count == -1 else range(self.count)
        for _ in it:
            yield from self.children[0]._blocks(launch)


class TakeDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child])
        self.count = _check_int(count, "count", "take", 0, allow=(-1,))

    def _size(self):
        n = self.children[0]._size()
        if self.count == -1:
            return n
        return None if n is None else min(n, self.count)

    def _blocks(self, launch):
        if self.count == -1:
            yield from self.children[0]._blocks(launch)
            return
        left = self.count
        if left == 0:
            return
        for block in self.children[0]._blocks(launch):
            n = _nrows(block)
            if n >= left:
                yield _block_slice(block, 0, left)
                return
            left -= n
            yield block


class SkipDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child])
        self.count = _check_int(count, "count", "skip", 0)

    def _size(self):
        n = self.children[0]._size()
        return None if n is None else max(0, n - self.count)

    def _blocks(self, launch):
        left = self.count
        for block in self.children[0]._blocks(launch):
            n = _nrows(block)
            if left >= n:
                left -= n
                continue
            if left:
                block = _block_slice(block, left, n)
                left = 0
            yield block


class ProjectDataset(Dataset):
    def __init__(self, child, columns):
        super().__init__([child])
        cols = _column_list(columns, "project")
        names = child.get_col_names()
        missing = [c for c in cols if c not in names]
        if missing:
            raise ValueError(f"project: unknown column(s) {missing}; the dataset has {names}")
        self.columns = cols

    def _columns(self):
        return list(self.columns)

    def _blocks(self, launch):
        for block in self.children[0]._blocks(launch):
            yield {c: block[c] for c in self.columns}


class RenameDataset(Dataset):
    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        ins = _column_list(input_columns, "rename(input_columns=)")
        outs = _column_list(output_columns, "rename(output_columns=)")
        if len(ins) != len(outs):
            raise ValueError(f"rename: {len(ins)} input column(s) but {len(outs)} output column(s)")
        names = child.get_col_names()
        missing = [c for c in ins if c not in names]
        if missing:
            raise ValueError(f"rename: unknown column(s) {missing}; the dataset has {names}")
        self.mapping = dict(zip(ins, outs))
        new = [self.mapping.get(n, n) for n in names]
        if len(set(new)) != len(new):
            raise ValueError(f"rename: the new column names {new} are not unique")
        self._new = new

    def _columns(self):
        return list(self._new)

    def _blocks(self, launch):
        for block in self.children[0]._blocks(launch):
            yield {self.mapping.get(k, k): v for k, v in block.items()}


# ---------------------------------------------------------------------------------------------
# zip, concat, split
# ---------------------------------------------------------------------------------------------
def _datasets(what, datasets):
    if not datasets or not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError(f"{what}: expected Datasets, got {[type(d).__name__ for d in datasets]}")
    return list(datasets)


class ZipDataset(Dataset):
    def __init__(self, datasets):
        super().__init__(_datasets("zip", datasets))
        names = [n for d in self.children for n in d.get_col_names()]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"zip: column names must be unique across the zipped datasets, repeated: {dup} "
                             "(rename them first)")
        self._names = names

    def _columns(self):
        return list(self._names)

    def _size(self):
        sizes = [d._size() for d in self.children]
        return None if any(n is None for n in sizes) else min(sizes)

    def _blocks(self, launch):
        streams = [_row_stream(d._blocks(launch)) for d in self.children]
        while True:
            parts = [next(s, None) for s in streams]
            if any(p is None for p in parts):
                return
            n = min(_nrows(p) for p in parts)
            block = {}
            for s, p in zip(streams, parts):
                block.update(_block_slice(p, 0, n))
                if _nrows(p) > n:
                    s.push_back(_block_slice(p, n, _nrows(p)))
            yield block


class _row_stream:
    """Blocks of an iterator, with blocks (the unconsumed part of one) put back in front."""

    def __init__(self, blocks):
        self._blocks = iter(blocks)
        self._back = []

    def push_back(self, block):
        self._back.append(block)

    def __iter__(self):
        return self

    def __next__(self):
        if self._back:
            return self._back.pop()
        while True:
            block = next(self._blocks)
            if _nrows(block):
                return block


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        super().__init__(_datasets("concat", datasets))
        first = self.children[0].get_col_names()
        for d in self.children[1:]:
            if d.get_col_names() != first:
                raise ValueError(f"concat: every dataset needs the columns {first} in that order, "
                                 f"got {d.get_col_names()}")

    def _size(self):
        sizes = [d._size() for d in self.children]
        return None if any(n is None for n in sizes) else sum(sizes)

    def _blocks(self, launch):
        for d in self.children:
            yield from d._blocks(launch)


class _Subset(MappableDataset):
    """Rows ``indices`` of the rows one pass over ``parent`` gives (read once, kept in memory)."""

    def __init__(self, parent, indices, rows):
        super().__init__(shuffle=False)
        self._parent_names = parent.get_col_names()
        self._rows = rows  # shared by the splits of one parent: {name: column}
        self._idx = np.asarray(indices, dtype=np.int64)

    def _columns(self):
        return list(self._parent_names)

    def _num_rows(self):
        return len(self._idx)

    def _fetch(self, idx):
        return _block_take(self._rows, self._idx[np.asarray(idx, dtype=np.int64)])


def _split_sizes(sizes, total):
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"split: sizes must be a non-empty list of ints or of floats, got {sizes!r}")
    if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in sizes):
        if any(v <= 0 for v in sizes) or sum(sizes) != total:
            raise ValueError(f"split: sizes {list(sizes)} must be positive and sum to the dataset size {total}")
        return [int(v) for v in sizes]
    if all(isinstance(v, float) for v in sizes):
        if any(not 0 < v <= 1 for v in sizes) or abs(sum(sizes) - 1.0) > 1e-6:
            raise ValueError(f"split: fractions {list(sizes)} must be in (0, 1] and sum to 1")
        out = [int(round(v * total)) for v in sizes]
        out[0] += total - sum(out)
        if any(v <= 0 for v in out):
            raise ValueError(f"split: fractions {list(sizes)} of {total} rows leave an empty split")
        return out
    raise TypeError(f"split: sizes must be all ints or all floats, got {sizes!r}")


def split_dataset(dataset, sizes, randomize=True):
    """See :meth:`Dataset.split`."""
    if not isinstance(randomize, bool):
        raise TypeError(f"split: randomize must be a bool, got {randomize!r}")
    launch = _Launch(dataset)
    rows = _block_concat([b for b in dataset._blocks(launch) if _nrows(b)] or [{n: [] for n in dataset.get_col_names()}])
    total = _nrows(rows)
    counts = _split_sizes(sizes, total)
    order = launch.rng(dataset).permutation(total) if randomize else np.arange(total)
    out, start = [], 0
    for c in counts:
        out.append(_Subset(dataset, order[start:start + c], rows))
        start += c
    return out


from .mapping import MapDataset  # noqa: E402 - re-exported: the map node lives in its own module
