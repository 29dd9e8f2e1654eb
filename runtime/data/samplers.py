"""Samplers (``mindspore.dataset``'s): which rows of an indexable source an epoch reads, in what order.

Every indexable source (``MnistDataset``, ``Cifar10Dataset``, ``ImageFolderDataset``,
``NumpySlicesDataset``, ``GeneratorDataset`` over a random-access source) reads its rows through
one sampler: the one given as ``sampler=``, or the one its ``shuffle`` / ``num_samples`` /
``num_shards`` / ``shard_id`` arguments stand for (:func:`select_sampler`; a shard is always a
:class:`DistributedSampler`, whose rule lives in :mod:`runtime.data.sharding`).

A sampler is a description, not a cursor: each epoch of a pipeline launch asks it for that
epoch's row numbers, drawing from the launch's generator (seeded by ``dataset.config.set_seed`` /
``ms.set_seed``; unseeded, a fresh order per launch), so random samplers draw anew every epoch and
one sampler object may serve several datasets. Samplers whose shards must agree across processes
(a :class:`DistributedSampler` anywhere in the chain) draw from a fixed seed when none is set.

Counts follow MindSpore: ``num_samples`` None or 0 means all, and no sampler returns more rows
than the source has (``RandomSampler(replacement=True, num_samples=100)`` over 10 rows gives 10),
so ``get_dataset_size()`` is known without reading any row.

``add_child(s)``: the parent samples positions among the rows its child returns (MindSpore's rule:
the child runs first over the source; the parent's row count is the child's sample count).

Example:
    >>> import numpy as np
    >>> from runtime.data import NumpySlicesDataset, DistributedSampler, SequentialSampler
    >>> rows = lambda ds: [int(r[0]) for r in ds.create_tuple_iterator(output_numpy=True)]
    >>> rows(NumpySlicesDataset(np.arange(10), sampler=DistributedSampler(3, 1, shuffle=False)))
    [1, 4, 7, 0]
    >>> rows(NumpySlicesDataset(np.arange(10), sampler=SequentialSampler(start_index=7)))
    [7, 8, 9]
"""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from .sharding import Shard, check_shard_args

__all__ = ["Sampler", "BuiltinSampler", "DistributedSampler", "PKSampler", "RandomSampler", "SequentialSampler",
           "SubsetRandomSampler", "SubsetSampler", "WeightedRandomSampler"]


def _check_num_samples(num_samples, what):
    if num_samples is None:
        return None
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
        raise TypeError(f"{what}: num_samples must be an int, got {num_samples!r}")
    if num_samples < 0:
        raise ValueError(f"{what}: num_samples must be >= 0 (0 or None: all rows), got {num_samples}")
    return int(num_samples)


def _check_bool(value, name, what):
    if not isinstance(value, bool):
        raise TypeError(f"{what}: {name} must be a bool, got {value!r}")
    return value


def _capped(num_samples, available):
    """MindSpore's count rule: None or 0 asks for all, and never more than ``available``."""
    return available if not num_samples else min(num_samples, available)


def _as_index_array(indices, what):
    arr = np.asarray(list(indices) if not isinstance(indices, np.ndarray) else indices)
    if arr.size == 0:
        return arr.astype(np.int64).reshape(0)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise RuntimeError(f"{what}: sample indices must be ints, got {arr.dtype} values of shape {arr.shape}")
    return arr.astype(np.int64)


def _check_in_range(idx, n, what):
    bad = idx[(idx < 0) | (idx >= n)]
    if len(bad):
        raise RuntimeError(f"{what}: sample ID ({int(bad[0])}) is out of bound, expected range [0, {n - 1}]"
                           if n else f"{what}: sample ID ({int(bad[0])}) given for a source with no rows")


class BuiltinSampler:
    """Base class of the samplers (MindSpore's ``BuiltinSampler``: not to be subclassed by users;
    user samplers derive from :class:`Sampler`)."""

    def __init__(self, num_samples=None):
        self.child_sampler = None
        self.num_samples = num_samples

    # -- MindSpore's public methods ----------------------------------------------------------
    def add_child(self, sampler):
        """Sample among the rows ``sampler`` returns (it runs first, over the source)."""
        if not isinstance(sampler, BuiltinSampler):
            raise TypeError(f"{type(self).__name__}.add_child: expected a sampler, got {type(sampler).__name__}")
        if self.child_sampler is not None:
            raise RuntimeError("Cannot add child sampler, this sampler already has a child.")
        self.child_sampler = sampler

    def get_child(self):
        """The child sampler, or None."""
        return self.child_sampler

    def get_num_samples(self):
        """MindSpore's table: this sampler's ``num_samples``, or with a child the smaller of it and
        the child's (whichever is not None); None when neither is set."""
        own = self.num_samples
        if self.child_sampler is None:
            return own
        child = self.child_sampler.get_num_samples()
        if own is not None and child is not None:
            return min(own, child)
        return own if own is not None else child

    def is_shuffled(self):
        return self.child_sampler.is_shuffled() if self.child_sampler is not None else self._shuffles()

    def is_sharded(self):
        return self.child_sampler.is_sharded() if self.child_sampler is not None else self._shards()

    def _shuffles(self):
        return False

    def _shards(self):
        return False

    # -- drawing -----------------------------------------------------------------------------
    def needs_agreed_seed(self) -> bool:
        """Whether processes must draw alike (a shard in the chain): then the draws use a fixed
        seed when no dataset seed is set."""
        child = self.child_sampler
        return self._shards() or (child is not None and child.needs_agreed_seed())

    def draw(self, n, rng, labels=None):
        """One epoch's row numbers out of ``n`` rows: an int64 array, or a ``range`` for a run of
        consecutive rows. ``labels()`` gives each row's class (only PKSampler asks)."""
        if self.child_sampler is None:
            return self._draw(n, rng, labels)
        rows = np.asarray(self.child_sampler.draw(n, rng, labels), dtype=np.int64)
        child_labels = None if labels is None else (lambda: np.asarray(labels())[rows])
        positions = self._draw(len(rows), rng, child_labels)
        return rows[np.asarray(positions, dtype=np.int64)]

    def count(self, n, labels=None) -> int:
        """How many rows :meth:`draw` returns out of ``n``, without drawing."""
        if self.child_sampler is not None:
            n = self.child_sampler.count(n, labels)
            labels = None  # only PKSampler counts by class, and it refuses a child
        return self._count(n, labels)

    def _draw(self, n, rng, labels):  # pragma: no cover - abstract
        raise NotImplementedError

    def _count(self, n, labels):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items()
                          if not k.startswith("_") and k != "child_sampler")
        return f"{type(self).__name__}({attrs})"


class SequentialSampler(BuiltinSampler):
    """Rows in order from ``start_index`` (None: 0), at most ``num_samples`` of them.

    Raises TypeError for a non-int ``start_index``/``num_samples``, RuntimeError for a negative
    ``start_index`` (and, when iterated, for one past the source's last row), ValueError for a
    negative ``num_samples``."""

    def __init__(self, start_index=None, num_samples=None):
        what = "SequentialSampler"
        if start_index is not None:
            if isinstance(start_index, bool) or not isinstance(start_index, numbers.Integral):
                raise TypeError(f"{what}: start_index must be an int, got {start_index!r}")
            if start_index < 0:
                raise RuntimeError(f"{what}: start_index must be >= 0, got {start_index}")
            start_index = int(start_index)
        self.start_index = start_index
        super().__init__(_check_num_samples(num_samples, what))

    def _start(self, n):
        start = self.start_index or 0
        if start and start >= n:
            raise RuntimeError(f"SequentialSampler: start_index ({start}) must be less than the number of rows ({n})")
        return start

    def _count(self, n, labels):
        return _capped(self.num_samples, n - self._start(n)) if n else 0

    def _draw(self, n, rng, labels):
        start = self._start(n) if n else 0
        return range(start, start + self._count(n, labels))


class RandomSampler(BuiltinSampler):
    """Rows in random order: a permutation (``replacement=False``) or independent uniform draws
    (``replacement=True``); a new draw every epoch. At most ``num_samples`` and at most the
    source's row count."""

    def __init__(self, replacement=False, num_samples=None):
        what = "RandomSampler"
        self.replacement = _check_bool(replacement, "replacement", what)
        self.reshuffle_each_epoch = True
        super().__init__(_check_num_samples(num_samples, what))

    def _shuffles(self):
        return True

    def _count(self, n, labels):
        return _capped(self.num_samples, n)

    def _draw(self, n, rng, labels):
        k = self._count(n, labels)
        if self.replacement:
            return rng.integers(0, n, size=k, dtype=np.int64) if n else np.zeros(0, np.int64)
        return rng.permutation(n)[:k]


class DistributedSampler(BuiltinSampler):
    """Shard ``shard_id`` of ``num_shards`` (:mod:`runtime.data.sharding`): every shard gets
    ``ceil(n / num_shards)`` rows, interleaved, wrapping to the start; with ``shuffle`` (the
    default) the rows are first put in one random order per epoch that every process draws
    alike. ``num_samples`` caps the shard's rows. ``offset >= 0`` switches to MindSpore's uneven
    distribution (no wrapping), shifted by ``offset`` shards.

    Raises TypeError for non-int/non-bool arguments, ValueError for a negative ``num_samples``,
    RuntimeError for ``num_shards < 1``, a ``shard_id`` outside ``[0, num_shards - 1]`` or an
    ``offset`` greater than ``num_shards`` (as MindSpore documents)."""

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        what = "DistributedSampler"
        for name, v in (("num_shards", num_shards), ("shard_id", shard_id)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"{what}: {name} must be an int, got {v!r}")
        num_shards, shard_id = check_shard_args(num_shards, shard_id, what, range_error=RuntimeError)
        self.shuffle = _check_bool(shuffle, "shuffle", what)
        num_samples = _check_num_samples(num_samples, what)
        self.num_shards, self.shard_id = num_shards, shard_id
        super().__init__(num_samples)
        self.set_offset(offset)

    def set_offset(self, offset):
        """MindSpore's ``set_offset``: this sampler, now with ``offset`` (returns self)."""
        if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
            raise TypeError(f"DistributedSampler: offset must be an int, got {offset!r}")
        if offset > self.num_shards or offset < -1:
            raise RuntimeError(f"DistributedSampler: offset must be -1 (equal shards) or in [0, num_shards] = "
                               f"[0, {self.num_shards}], got {offset}")
        self.offset = int(offset)
        self._shard = Shard(self.num_shards, self.shard_id, self.offset)
        return self

    def _shuffles(self):
        return self.shuffle

    def _shards(self):
        return self.num_shards > 1

    def needs_agreed_seed(self) -> bool:
        return True  # even one shard: a sharded program's ranks must agree whatever their count

    def _count(self, n, labels):
        return _capped(self.num_samples, self._shard.size(n))

    def _draw(self, n, rng, labels):
        order = rng.permutation(n) if self.shuffle else np.arange(n, dtype=np.int64)
        return self._shard.indices(order)[:self._count(n, labels)]


class SubsetSampler(BuiltinSampler):
    """The rows ``indices`` (an iterable of ints, or one int), in that order; only the first
    ``num_samples`` of them when given. An index outside the source raises RuntimeError when
    iterated."""

    _what = "SubsetSampler"

    def __init__(self, indices, num_samples=None):
        what = self._what
        num_samples = _check_num_samples(num_samples, what)
        if isinstance(indices, numbers.Integral) and not isinstance(indices, bool):
            indices = [indices]
        elif isinstance(indices, (str, bytes)) or not hasattr(indices, "__iter__"):
            raise TypeError(f"{what}: indices must be an iterable of ints, got {type(indices).__name__}")
        indices = list(indices) if not num_samples else list(itertools.islice(indices, num_samples))
        for i, item in enumerate(indices):
            if isinstance(item, bool) or not isinstance(item, (numbers.Integral, np.integer)):
                raise TypeError(f"{what}: indices must be ints, got indices[{i}] = {item!r} "
                                f"({type(item).__name__})")
        self.indices = [int(i) for i in indices]
        super().__init__(num_samples)

    def get_num_samples(self):
        n = super().get_num_samples()
        return len(self.indices) if n is None else min(len(self.indices), n)

    def _count(self, n, labels):
        return _capped(self.num_samples, len(self.indices))

    def _ordered(self, rng):
        return np.asarray(self.indices, dtype=np.int64)

    def _draw(self, n, rng, labels):
        idx = self._ordered(rng)[:self._count(n, labels)]
        _check_in_range(idx, n, self._what)
        return idx


class SubsetRandomSampler(SubsetSampler):
    """The rows ``indices`` in a random order, a new one every epoch. ``num_samples`` keeps the
    first ``num_samples`` indices (MindSpore cuts the list when the sampler is made), which are
    then shuffled."""

    _what = "SubsetRandomSampler"

    def _shuffles(self):
        return True

    def _ordered(self, rng):
        return rng.permutation(np.asarray(self.indices, dtype=np.int64))


class WeightedRandomSampler(BuiltinSampler):
    """Rows ``0 .. len(weights) - 1`` drawn with probabilities proportional to ``weights``:
    independently (``replacement=True``, the default), or without replacement (each row at
    most once, in the order of the keys ``Exp(1) / weight``, the one-pass weighted draw MindSpore
    uses). ``num_samples`` None draws as many rows as the source has.

    Raises TypeError for a non-number weight, non-int ``num_samples``, non-bool ``replacement``;
    RuntimeError for empty, negative or all-zero weights; ValueError for a negative
    ``num_samples``; when iterated, RuntimeError if there are more weights than rows, or, without
    replacement, fewer weights than rows to draw."""

    def __init__(self, weights, num_samples=None, replacement=True):
        what = "WeightedRandomSampler"
        if isinstance(weights, np.ndarray):
            weights = weights.tolist() if weights.ndim == 1 else [weights]
        elif isinstance(weights, tuple):
            weights = list(weights)
        elif not isinstance(weights, list):
            weights = [weights]
        for i, w in enumerate(weights):
            if isinstance(w, bool) or not isinstance(w, numbers.Real):
                raise TypeError(f"{what}: weights must be numbers, got weights[{i}] = {w!r} ({type(w).__name__})")
        num_samples = _check_num_samples(num_samples, what)
        self.replacement = _check_bool(replacement, "replacement", what)
        if not weights:
            raise RuntimeError(f"{what}: weights is empty")
        w = np.asarray(weights, dtype=np.float64)
        if not np.all(np.isfinite(w)) or (w < 0).any():
            raise RuntimeError(f"{what}: weights must be finite and non-negative, got {weights}")
        if not w.any():
            raise RuntimeError(f"{what}: weights are all zero")
        self.weights = weights
        self._w = w
        super().__init__(num_samples)

    def _shuffles(self):
        return True

    def _count(self, n, labels):
        return _capped(self.num_samples, n)

    def _draw(self, n, rng, labels):
        what = "WeightedRandomSampler"
        w = self._w
        k = self._count(n, labels)
        if len(w) > n:
            raise RuntimeError(f"{what}: {len(w)} weights for a source of {n} rows; give at most one weight per row")
        if not self.replacement and len(w) < k:
            raise RuntimeError(f"{what}: without replacement, needs at least num_samples = {k} weights, "
                               f"got {len(w)}")
        if self.replacement:
            return rng.choice(len(w), size=k, p=w / w.sum()).astype(np.int64)
        with np.errstate(divide="ignore"):
            keys = rng.exponential(size=len(w)) / w  # weight 0: key inf, drawn last
        return np.argsort(keys, kind="stable")[:k].astype(np.int64)


class PKSampler(BuiltinSampler):
    """``num_val`` rows of every class: the classes in label order (``shuffle=True``: a random
    order per epoch), and for each, ``num_val`` rows drawn uniformly with replacement among that
    class's rows (MindSpore's rule). Needs a source with a label column (MnistDataset,
    Cifar10Dataset, ImageFolderDataset).

    Raises TypeError for non-int ``num_val``, non-bool ``shuffle``, non-str ``class_column``,
    non-int ``num_samples``; NotImplementedError for ``num_class`` (as MindSpore); RuntimeError
    for ``num_val <= 0``; ValueError for a negative ``num_samples``."""

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label", num_samples=None):
        what = "PKSampler"
        if isinstance(num_val, bool) or not isinstance(num_val, numbers.Integral):
            raise TypeError(f"{what}: num_val must be an int, got {num_val!r}")
        if num_class is not None:
            raise NotImplementedError(f"{what}: num_class is not supported (as in MindSpore); leave it None")
        self.shuffle = _check_bool(shuffle, "shuffle", what)
        if not isinstance(class_column, str):
            raise TypeError(f"{what}: class_column must be a str, got {class_column!r}")
        if num_val <= 0:
            raise RuntimeError(f"{what}: num_val must be > 0, got {num_val}")
        self.num_val = int(num_val)
        self.class_column = class_column
        super().__init__(_check_num_samples(num_samples, what))

    def add_child(self, sampler):
        raise RuntimeError("PKSampler: a child sampler is not supported here (the classes are read from the source)")

    def _shuffles(self):
        return self.shuffle

    @staticmethod
    def _labels(labels, n):
        if labels is None:
            raise ValueError("PKSampler: this dataset has no class labels to sample by; use it with "
                             "MnistDataset, Cifar10Dataset or ImageFolderDataset")
        lab = np.asarray(labels()).reshape(-1)
        if len(lab) != n:
            raise RuntimeError(f"PKSampler: {len(lab)} labels for {n} rows")
        return lab

    def _count(self, n, labels):
        classes = np.unique(self._labels(labels, n))
        return _capped(self.num_samples, self.num_val * len(classes))

    def _draw(self, n, rng, labels):
        lab = self._labels(labels, n)
        classes = np.unique(lab)  # sorted
        if self.shuffle:
            classes = rng.permutation(classes)
        picks = []
        for c in classes:
            rows = np.flatnonzero(lab == c)
            picks.append(rows[rng.integers(0, len(rows), size=self.num_val)])
        out = np.concatenate(picks) if picks else np.zeros(0, np.int64)
        return out[:self._count(n, labels)].astype(np.int64)


class Sampler(BuiltinSampler):
    """Base class of user-defined samplers (MindSpore's ``Sampler``): override ``__iter__`` to
    yield row numbers; ``self.dataset_size`` and ``self.num_samples`` are set before each epoch
    (the source's rows, and how many indices the epoch takes: ``num_samples`` capped at the row
    count). ``reset()`` is called after each epoch's indices are taken.

    Example:
        >>> from runtime.data import NumpySlicesDataset, Sampler
        >>> class ReverseSampler(Sampler):
        ...     def __iter__(self):
        ...         return iter(range(self.dataset_size - 1, -1, -1))
        >>> ds = NumpySlicesDataset([10, 11, 12], sampler=ReverseSampler())
        >>> [int(r[0]) for r in ds.create_tuple_iterator(output_numpy=True)]
        [12, 11, 10]
    """

    # a user subclass may skip Sampler.__init__: defaults for what __init__ sets
    child_sampler = None
    num_samples = None
    dataset_size = 0

    def __init__(self, num_samples=None):
        super().__init__(_check_num_samples(num_samples, type(self).__name__))
        self.dataset_size = 0

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__}: a Sampler must define __iter__ (yielding row numbers)")

    def reset(self):
        """Called after each epoch's indices are taken; override to change state between epochs."""

    def add_child(self, sampler):
        self.child_sampler = sampler

    def get_num_samples(self):
        """None when ``num_samples`` is None, else how many indices (up to ``num_samples``)
        ``__iter__`` yields now, as MindSpore counts them."""
        if getattr(self, "num_samples", None) is None:
            return None
        return sum(1 for _ in itertools.islice(iter(self), self.num_samples))

    def _handshake(self, ds_size, num_samples):
        self.dataset_size = ds_size
        self.num_samples = num_samples

    def _indices(self, n):
        take = _capped(getattr(self, "num_samples", None), n)
        self._handshake(n, take)
        what = type(self).__name__
        idx = _as_index_array(itertools.islice(iter(self), take), what)
        _check_in_range(idx, n, what)
        return idx

    def _count(self, n, labels):
        return len(self._indices(n))

    def _draw(self, n, rng, labels):
        idx = self._indices(n)
        self.reset()
        return idx



class _IterSampler(Sampler):
    """A plain iterable of row numbers used as a sampler (MindSpore's IterSampler): a one-shot
    iterator is read once and replayed every epoch; a re-iterable object is iterated anew each
    epoch. ``num_samples`` None: all it yields."""

    def __init__(self, iterable, num_samples=None):
        super().__init__(num_samples)
        self._explicit_num_samples = self.num_samples
        self.sampler = list(iterable) if iter(iterable) is iterable else iterable

    def __iter__(self):
        return iter(self.sampler)

    def _indices(self, n):
        if not self._explicit_num_samples:
            self.num_samples = None  # all it yields, up to the row count, every epoch
        return super()._indices(n)


def as_sampler(sampler, num_samples=None, what="dataset"):
    """``sampler=`` as MindSpore reads it: a sampler object as is, a list/tuple/array of indices as
    a :class:`SubsetSampler`, one int as ``SubsetSampler([i])``, another iterable as a user
    sampler; ``num_samples`` caps the last three."""
    if isinstance(sampler, BuiltinSampler):
        return sampler
    if isinstance(sampler, (str, bytes)):
        raise TypeError(f"{what}: unsupported sampler object of type ({type(sampler).__name__})")
    if isinstance(sampler, (list, tuple, np.ndarray)):
        return SubsetSampler(sampler, num_samples)
    if isinstance(sampler, numbers.Integral) and not isinstance(sampler, bool):
        return SubsetSampler([sampler], num_samples)
    if hasattr(sampler, "__iter__"):
        return _IterSampler(sampler, num_samples)
    raise TypeError(f"{what}: sampler must be a sampler or an iterable of row numbers, got {type(sampler).__name__}")


def select_sampler(num_samples, sampler, shuffle, num_shards, shard_id, what="dataset", generator_rules=False):
    """The sampler a source reads through (validated arguments in): ``sampler`` itself, or the
    one ``shuffle``/``num_samples``/``num_shards``/``shard_id`` stand for (a shard:
    DistributedSampler; else shuffle (None counts as True): RandomSampler without replacement;
    else SequentialSampler).

    A sampler given together with those arguments is refused as MindSpore refuses it: the file
    sources (``generator_rules=False``) raise RuntimeError ("sampler and shuffle cannot be
    specified at the same time", likewise sharding and num_samples); GeneratorDataset and
    NumpySlicesDataset raise ValueError ("Conflicting arguments"), except that ``num_samples``
    caps a plain iterable of indices."""
    if sampler is None:
        shuffle = True if shuffle is None else shuffle
        if num_shards is not None:
            return DistributedSampler(num_shards, shard_id, shuffle=shuffle, num_samples=num_samples)
        if shuffle:
            return RandomSampler(num_samples=num_samples)
        return SequentialSampler(num_samples=num_samples)
    if generator_rules:
        if isinstance(sampler, PKSampler):
            raise ValueError(f"{what}: GeneratorDataset doesn't support PKSampler")
        sharded = num_shards is not None or shard_id is not None
        if isinstance(sampler, BuiltinSampler) and (sharded or shuffle is not None or num_samples is not None):
            raise ValueError(f"{what}: Conflicting arguments during sampler assignments. num_samples: {num_samples}, "
                             f"num_shards: {num_shards}, shard_id: {shard_id}, shuffle: {shuffle}.")
        if sharded or shuffle:
            raise ValueError(f"{what}: a sampler decides the rows and their order; drop shuffle=True and "
                             "num_shards/shard_id (shard with a DistributedSampler instead)")
        return as_sampler(sampler, num_samples, what)
    if shuffle is not None:
        raise RuntimeError(f"{what}: sampler and shuffle cannot be specified at the same time.")
    if num_shards is not None or shard_id is not None:
        raise RuntimeError(f"{what}: sampler and sharding cannot be specified at the same time.")
    if num_samples is not None:
        raise RuntimeError(f"{what}: sampler and num_samples cannot be specified at the same time.")
    return as_sampler(sampler, None, what)
