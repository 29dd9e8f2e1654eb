"""Gradient all-reduce for data parallelism: buckets, non-blocking all-reduces, parameter sync.

* :func:`plan_buckets` groups gradients into a few large buckets (about ``bucket_bytes`` each, or
  split at given parameter indices), walking the parameters in *reverse* order: the backward
  produces the last layers' gradients first, so the first bucket is complete earliest.
* :func:`reduce_buckets` flattens each bucket into one buffer and starts its all-reduce
  (``all_reduce_start``, MPI ``Iallreduce``); only after every bucket has started does it wait for
  each (``all_reduce_wait``), scale by ``1/degree`` when averaging, and cut the buffer back into
  gradients. It is written with registered ops only, so the same code runs eagerly on Tensors
  and records graph nodes under capture: there the scheduler starts each bucket's all-reduce as
  soon as the backward has produced it (``issue_early``) and the rest of the backward overlaps
  the communication. In PyNative, :class:`EagerBucketReducer` does the same during the tape walk:
  the walk hands over each gradient once final, and a complete bucket starts at once.
* :func:`broadcast_parameters` copies rank 0's parameter values to every rank, once per
  parameter per communication world, before the first data-parallel step uses them.
* Parameters a :class:`~runtime.nn.DistributedGradReducer` was built for are *explicitly
  reduced*: the automatic reduction inside ``grad``/``value_and_grad``/``GradOperation`` leaves
  their gradients alone (:func:`auto_reduce_needed`), so a MindSpore script that applies its own
  reducer is not reduced twice.

Example:
    >>> from runtime.parallel.reducer import plan_buckets
    >>> plan_buckets([(4,), (3, 2), (5,)], ["float32"] * 3, bucket_bytes=32)
    [[2, 1], [0]]
"""
from __future__ import annotations

import weakref

import numpy as np

from graph.ops import F, comm

from . import context


# -- buckets --------------------------------------------------------------------------------------
def _nbytes(shape, dtype) -> int:
    itemsize = dtype.np.itemsize if hasattr(dtype, "np") else np.dtype(dtype).itemsize
    return int(np.prod(shape, dtype=np.int64)) * itemsize


def plan_buckets(shapes, dtypes, bucket_bytes=None, split_indices=None) -> list[list[int]]:
    """Gradient indices per bucket, buckets in the order their gradients become ready.

    A bucket holds gradients of one dtype (they share one flat buffer). With ``split_indices``
    (MindSpore's ``all_reduce_fusion_config``: bucket boundaries as parameter indices) the
    boundaries are those; otherwise a bucket closes once it holds ``bucket_bytes`` or more.
    """
    n = len(shapes)
    cuts = set(split_indices or ())
    buckets, current, size, current_dtype = [], [], 0, None
    for i in reversed(range(n)):
        dt = dtypes[i]
        if current and (str(dt) != current_dtype or (i + 1) in cuts):
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        current_dtype = str(dt)
        size += _nbytes(shapes[i], dt)
        if split_indices is None and bucket_bytes is not None and size >= bucket_bytes:
            buckets.append(current)
            current, size = [], 0
    if current:
        buckets.append(current)
    return buckets


def buckets_for(grads_or_params) -> list[list[int]]:
    """Buckets for these tensors under the auto-parallel context's fusion policy."""
    kind, value = context.bucket_policy()
    shapes = [tuple(g.shape) for g in grads_or_params]
    dtypes = [g.dtype for g in grads_or_params]
    if kind == "indices":
        return plan_buckets(shapes, dtypes, split_indices=value)
    return plan_buckets(shapes, dtypes, bucket_bytes=value)


def _start_bucket(grads, bucket, group):
    """Flatten ``bucket``'s gradients into one buffer and start its all-reduce (non-blocking)."""
    parts = [F.reshape(grads[i], shape=(-1,)) for i in bucket]
    flat = parts[0] if len(parts) == 1 else F.concat(*parts, axis=0)
    return bucket, flat, F.all_reduce_start(flat, op="sum", group=group)


def _finish_buckets(grads, started, mean, degree) -> tuple:
    """Wait for each started bucket, scale it, and cut it back into gradients."""
    out = list(grads)
    for bucket, flat, ticket in started:
        reduced = F.all_reduce_wait(ticket, flat)
        if mean and degree > 1 and reduced.dtype.is_float:
            reduced = F.mul(reduced, 1.0 / degree)
        if len(bucket) == 1:
            pieces = (reduced,)
        else:
            sizes = tuple(int(np.prod(grads[i].shape, dtype=np.int64)) for i in bucket)
            pieces = F.split(reduced, axis=0, sizes=sizes)
        for i, piece in zip(bucket, pieces):
            out[i] = F.reshape(piece, shape=tuple(grads[i].shape))
    return tuple(out)


def reduce_buckets(grads, buckets, mean: bool, degree: int, group: str = comm.WORLD) -> tuple:
    """All-reduce ``grads`` (Tensors or traced values) bucket by bucket; see the module docstring."""
    grads = tuple(grads)
    started = [_start_bucket(grads, bucket, group) for bucket in buckets]
    return _finish_buckets(grads, started, mean, degree)


class EagerBucketReducer:
    """PyNative's overlapped reduction: the tape walk hands over each weight's gradient as soon as
    it is final (:meth:`ready`), and each bucket's all-reduce starts as soon as all its gradients
    are, while the walk goes on computing earlier layers' gradients; :meth:`finish` waits for them.
    Buckets start strictly in their planned order, so every rank issues the same collectives in
    the same order whatever order its gradients become final in.

    Example (one process: the all-reduce is the identity):
        >>> import numpy as np; from runtime import Tensor
        >>> w = [Tensor(np.ones(2, np.float32)), Tensor(np.ones(3, np.float32))]
        >>> r = EagerBucketReducer(w, mean=True, degree=1)
        >>> r.ready(1, Tensor(np.full(3, 2.0, np.float32)))
        >>> [g.asnumpy().tolist() for g in r.finish([Tensor(np.zeros(2, np.float32)), None])]
        [[0.0, 0.0], [2.0, 2.0, 2.0]]
    """

    def __init__(self, weights, mean: bool, degree: int, group: str = comm.WORLD):
        self.buckets = buckets_for(weights)
        self.grads = [None] * len(weights)
        self.mean, self.degree, self.group = mean, degree, group
        self.started = []

    def ready(self, i: int, grad) -> None:
        """Gradient ``i`` is final: start every bucket that is now complete, in order."""
        self.grads[i] = grad
        while len(self.started) < len(self.buckets) and \
                all(self.grads[k] is not None for k in self.buckets[len(self.started)]):
            self.started.append(_start_bucket(self.grads, self.buckets[len(self.started)], self.group))

    def finish(self, grads) -> tuple:
        """All gradients (``grads``, for those not handed over yet), reduced."""
        for i, g in enumerate(grads):
            if self.grads[i] is None and g is not None:
                self.ready(i, g)
        return _finish_buckets(self.grads, self.started, self.mean, self.degree)


# -- per-parameter registries (ids + weak references: Tensors are not hashable by value) ----------
class _ParamSet:
    def __init__(self):
        self._refs: dict[int, weakref.ref] = {}

    def add(self, p) -> None:
        key = id(p)
        self._refs[key] = weakref.ref(p, lambda _, key=key: self._refs.pop(key, None))

    def __contains__(self, p) -> bool:
        ref = self._refs.get(id(p))
        return ref is not None and ref() is p

    def clear(self) -> None:
        self._refs.clear()


_explicit = _ParamSet()
_synced = _ParamSet()


def mark_explicitly_reduced(params) -> None:
    """A DistributedGradReducer was built for ``params``: automatic reduction skips them."""
    for p in params:
        _explicit.add(p)


def auto_reduce_needed(weights) -> bool:
    """Whether ``grad``/``value_and_grad`` must all-reduce the gradients of ``weights`` itself:
    data-parallel mode, more than one process, and no DistributedGradReducer built for them."""
    if not weights or not context.data_parallel() or comm.world().size == 1:
        return False
    return not all(w in _explicit for w in weights)


def auto_reduce(grads, weights) -> tuple:
    """The gradients of ``weights`` averaged (``gradients_mean``) or summed over the world."""
    return auto_reducer(weights).finish(grads)


def auto_reducer(weights) -> EagerBucketReducer:
    """An :class:`EagerBucketReducer` for ``weights`` under the auto-parallel context (averaged
    with ``gradients_mean``, else summed over the world)."""
    degree = context.check_device_num("data-parallel gradient reduction")
    return EagerBucketReducer(weights, context.get_auto_parallel_context("gradients_mean"), degree)


def broadcast_parameters(params, root: int = 0) -> None:
    """Give every rank ``root``'s values of ``params`` (once per parameter per world)."""
    world = comm.world()
    todo = [p for p in params if p not in _synced]
    if not todo:
        return
    if world.size > 1:
        from ..device import module_of
        arrays = [p._data for p in todo]
        values = world.broadcast(module_of(arrays[0]), arrays, root)
        for p, v in zip(todo, values):
            p._data[...] = v
    for p in todo:
        _synced.add(p)


def replica_state(weights, fn=None) -> list:
    """What must be identical on every rank before a step differentiates ``fn`` for ``weights``:
    the weights, and when ``fn`` is a Cell every other Parameter it holds (batch-norm statistics
    and other non-trainable state), as rank 0 broadcasts the whole network."""
    state = list(weights)
    if fn is not None and hasattr(fn, "get_parameters"):
        seen = {id(w) for w in state}
        state += [p for p in fn.get_parameters() if id(p) not in seen]
    return state


def prepare_step(weights, fn=None) -> None:
    """Called before a data-parallel step computes gradients of ``weights`` (through ``fn``): checks
    the world against ``device_num`` and the launcher, and makes the replicas identical (first
    step only; :func:`replica_state`)."""
    if not weights or not context.data_parallel():
        return
    context.check_device_num("data-parallel training")
    if comm.world().size == 1:
        from ..communication.launcher import launched_size
        launched = launched_size()
        if launched is not None and launched > 1:
            raise RuntimeError(f"data-parallel training: this process is one of {launched} launched ranks, but "
                               "runtime.communication.init() was not called, so each rank would train alone. "
                               "Call init() before training.")
        return
    if all(w in _synced for w in weights):
        return  # every step after the first: nothing to walk
    broadcast_parameters(replica_state(weights, fn))


def reset() -> None:
    """Forget synced and explicitly reduced parameters (a new communication world)."""
    _explicit.clear()
    _synced.clear()
