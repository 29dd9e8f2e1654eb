"""PyNative optimizer steps over all parameters at once ("foreach", as torch's optimizers).

An optimizer's ``construct`` updates one parameter per Python iteration with registered ops:
that is what graph capture compiles, and it stays the definition. In PyNative mode the same
arithmetic runs here on *flat* buffers instead: every parameter (and every moment) of an
optimizer is a view into one contiguous array, the gradients are concatenated once, and each
update formula is a handful of numpy operations over all elements -- not six op dispatches per
parameter. Elementwise IEEE arithmetic does not depend on how elements are laid out, so with the
same operations in the same order the results are bit-identical to ``construct``'s
(``tests/runtime/test_optim_foreach.py``).

Updates rebind each tensor to a view of a *new* flat array, as ``ops.assign`` rebinds a tensor to
its new value: an array a user took from ``param.asnumpy()`` before a step keeps the old values.
Where nothing but the group itself and its tensors holds the flat array or any view of it
(:meth:`FlatGroup.exclusive`, reference counts: the test graph mode's donated updates make too),
no one could see the difference, and the step writes into the flat arrays in place instead (numpy
``out=``: the same operations, so the same bits), saving a new 4-byte-per-parameter array and a
pass over it per operation (ResNet-18's 11M parameters: 45 MB each).
In-place writes to a parameter between steps (``param[0] = 1``) land in the current flat array,
because the parameter is a view of it; a parameter given new data some other way
(``set_data``, a checkpoint load) is noticed by identity and the flat array rebuilt.

The flat path is taken only where it computes exactly what ``construct`` would: PyNative mode,
no gradient tape recording, graph capture's frame hook off, no mixed-precision compute dtype, and
every parameter, state and gradient a CPU float32 array of the parameter's shape; otherwise
``construct`` runs.
"""
from __future__ import annotations

import sys

import numpy as np

from graph.ops.core import COMPUTE_DTYPE

from ... import context as _context
from ... import eager as _eager
from ... import tape as _tape

_F32 = np.dtype(np.float32)


def _capture_hook_on() -> bool:
    """Whether graph capture's frame hook is on for this thread (``capture run``,
    ``capture.enable()``): it captures the optimizer's ``construct`` when that runs, so it must
    run. Looked up without importing capture (not imported: no hook)."""
    frame_eval = sys.modules.get("capture.frame_eval")
    return frame_eval is not None and frame_eval.is_enabled()


def eager_step_allowed() -> bool:
    """Whether an optimizer call may take the flat path (see the module docstring)."""
    return (_context._state["mode"] == _context.PYNATIVE_MODE and not _tape.ACTIVE
            and not _eager.FORBID_EAGER and COMPUTE_DTYPE.dtype is None and not _capture_hook_on())


def _plain(arr, shape) -> bool:
    return type(arr) is np.ndarray and arr.dtype is _F32 and arr.shape == shape


class FlatGroup:
    """Tensors of one role (the parameters, or one moment per parameter) as views into one flat
    float32 array."""

    def __init__(self, tensors):
        self.tensors = list(tensors)
        self.shapes = [tuple(t.shape) for t in self.tensors]
        sizes = [int(np.prod(s, dtype=np.int64)) for s in self.shapes]
        self.bounds = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).tolist()
        self.flat = None
        self.views = []

    def usable(self) -> bool:
        """Every tensor holds a CPU float32 array of its shape."""
        return all(_plain(t._data, s) for t, s in zip(self.tensors, self.shapes))

    def current(self):
        """The flat array the tensors are views of, rebuilt (and the tensors rebound to views of
        it, values unchanged) when a tensor was given other data since the last step."""
        if self.flat is not None:
            for t, v in zip(self.tensors, self.views):
                if t._data is not v:
                    break
            else:
                return self.flat
        if not self.tensors:
            self.adopt(np.zeros(0, _F32))
            return self.flat
        self.adopt(np.concatenate([t._data.reshape(-1) for t in self.tensors]))
        return self.flat

    def exclusive(self) -> bool:
        """Whether the flat array and the tensors' views of it are referenced only by this group
        and the tensors (so an in-place update is seen by nothing else): no array a user took
        with ``asnumpy()``, no view of one, no saved operand of a recorded op."""
        if self.flat is None:
            return False
        # the flat array: self.flat, every view's base, getrefcount's argument
        if sys.getrefcount(self.flat) != 2 + len(self.views):
            return False
        views, tensors = self.views, self.tensors
        for i in range(len(views)):
            # a view: self.views, its tensor's data, getrefcount's argument
            if tensors[i]._data is not views[i] or sys.getrefcount(views[i]) != 3:
                return False
        return True

    def adopt(self, flat) -> None:
        """Make ``flat`` the tensors' data: each tensor becomes a view of its segment."""
        b = self.bounds
        self.views = [flat[b[i]:b[i + 1]].reshape(s) for i, s in enumerate(self.shapes)]
        for t, v in zip(self.tensors, self.views):
            t._data = v
        self.flat = flat


def flat_gradients(gradients, shapes):
    """The gradients concatenated into one float32 array, or None when one is not a CPU float32
    array of its parameter's shape (the caller then runs ``construct``)."""
    arrays = []
    for g, s in zip(gradients, shapes):
        a = getattr(g, "_data", None)
        if not _plain(a, s):
            return None
        arrays.append(a.reshape(-1))
    return np.concatenate(arrays) if arrays else np.zeros(0, _F32)


def rates_usable(lrs) -> bool:
    """Whether learning rates are 0-d CPU float32 arrays (what :func:`per_element` takes)."""
    for lr in lrs:
        a = getattr(lr, "_data", None)
        if type(a) is not np.ndarray or a.dtype is not _F32 or a.ndim != 0:
            return False
    return True


def per_element(lrs, bounds):
    """One learning rate per parameter (0-d float32 arrays, :func:`rates_usable`) as what multiplies the flat update:
    the shared 0-d array when all are the same, else a flat array repeating each parameter's
    rate over its elements (the same float32 factor each element met in ``construct``)."""
    arrays = [lr._data for lr in lrs]
    first = arrays[0]
    if all(a is first for a in arrays):
        return first
    sizes = np.diff(np.asarray(bounds, np.int64))
    return np.repeat(np.array(arrays, _F32), sizes)


def wrap(array):
    """A tensor of ``array`` (what :func:`per_element` takes)."""
    from ...tensor import Tensor
    return Tensor._wrap(array)
