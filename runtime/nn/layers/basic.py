"""Basic layers: Dense, Flatten, activations, Dropout, and the containers SequentialCell/CellList.

Every ``construct`` ends in registered ops (through ``runtime.ops`` functions or Primitive
instances built once in ``__init__``), so the same code runs eagerly and under graph capture.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    >>> net(ms.Tensor([[1.0, 2.0, 3.0]])).shape
    (1, 2)
    >>> [p.name for p in net.trainable_params()]
    ['0.weight', '0.bias', '2.weight', '2.bias']
"""
from __future__ import annotations

import math
from collections import OrderedDict

from graph.dtypes import as_dtype, float32

from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer
from ...parameter import Parameter
from ...tensor import Tensor
from ..cell import Cell

__all__ = ["Dense", "Flatten", "ReLU", "ReLU6", "LeakyReLU", "Sigmoid", "Tanh", "GELU", "SiLU",
           "Softmax", "LogSoftmax", "Softplus", "Dropout", "Dropout2d", "Dropout3d", "Identity", "SequentialCell", "CellList",
           "get_activation", "ClipByNorm"]


def _check_int(cls_name, name, v, minimum=1):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{cls_name}: {name} must be an int, got {type(v).__name__} {v!r}")
    if v < minimum:
        raise ValueError(f"{cls_name}: {name} must be >= {minimum}, got {v}")
    return v


def _check_bool(cls_name, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"{cls_name}: {name} must be a bool, got {v!r}")
    return v


# -- activations ----------------------------------------------------------------------------------
class ReLU(Cell):
    """max(x, 0)."""

    def construct(self, x):
        return ops.relu(x)


class ReLU6(Cell):
    """min(max(x, 0), 6)."""

    def construct(self, x):
        return ops.minimum(ops.relu(x), 6.0)


class LeakyReLU(Cell):
    """x if x > 0 else alpha * x."""

    def __init__(self, alpha=0.2):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"LeakyReLU: alpha must be a number, got {alpha!r}")
        self.alpha = float(alpha)
        self._op = ops.LeakyReLU(alpha=self.alpha)

    def construct(self, x):
        return self._op(x)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class Sigmoid(Cell):
    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    def construct(self, x):
        return ops.tanh(x)


class GELU(Cell):
    """GELU; ``approximate=True`` (MindSpore's default) uses the tanh formula, False the erf one."""

    def __init__(self, approximate=True):
        super().__init__()
        _check_bool("GELU", "approximate", approximate)
        self.approximate = approximate
        self._op = ops.GeLU(approximate="tanh" if approximate else "none")

    def construct(self, x):
        return self._op(x)


class SiLU(Cell):
    """x * sigmoid(x)."""

    def construct(self, x):
        return ops.mul(x, ops.sigmoid(x))


class Softplus(Cell):
    """log(1 + exp(beta * x)) / beta, the identity where beta * x > threshold."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        for name, v in (("beta", beta), ("threshold", threshold)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"Softplus: {name} must be a number, got {v!r}")
        if beta <= 0:
            raise ValueError(f"Softplus: beta must be > 0, got {beta!r}")
        self.beta, self.threshold = float(beta), float(threshold)

    def construct(self, x):
        if self.beta == 1.0 and self.threshold == 20.0:
            return ops.softplus(x, 1, 20)
        return ops.softplus(x, self.beta, self.threshold)


class Softmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _check_int("Softmax", "axis", axis, minimum=-(1 << 30))
        self._op = ops.Softmax(axis=axis)

    def construct(self, x):
        return self._op(x)


class LogSoftmax(Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = _check_int("LogSoftmax", "axis", axis, minimum=-(1 << 30))
        self._op = ops.LogSoftmax(axis=axis)

    def construct(self, x):
        return self._op(x)


class Identity(Cell):
    def construct(self, x):
        return x


_ACTIVATIONS = {
    "relu": ReLU, "relu6": ReLU6, "leakyrelu": LeakyReLU, "sigmoid": Sigmoid, "tanh": Tanh,
    "gelu": GELU, "silu": SiLU, "swish": SiLU, "softmax": Softmax, "logsoftmax": LogSoftmax,
    "log_softmax": LogSoftmax, "softplus": Softplus,
}


def get_activation(name, prim_name=None):
    """An activation Cell from its name ('relu', 'sigmoid', 'tanh', 'gelu', 'softmax'...)."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"{prim_name or 'get_activation'}: activation must be a str, a Cell or None, "
                        f"got {type(name).__name__}")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"{prim_name or 'get_activation'}: unknown activation {name!r}; "
                       f"valid: {sorted(_ACTIVATIONS)}")
    return cls()


# -- Dense / Flatten --------------------------------------------------------------------------------
class Dense(Cell):
    """Fully connected layer ``y = activation(x @ weight.T + bias)``, weight of shape (out, in).

    Inputs of rank > 2 are treated as a batch of rows (the last axis is the feature axis).
    Default init (MindSpore 2.x): weight HeUniform(negative_slope=sqrt(5)), bias
    Uniform(1/sqrt(in_channels)).
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 activation=None, dtype=float32):
        super().__init__()
        self.in_channels = _check_int("Dense", "in_channels", in_channels)
        self.out_channels = _check_int("Dense", "out_channels", out_channels)
        self.has_bias = _check_bool("Dense", "has_bias", has_bias)
        dtype = as_dtype(dtype)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        w = initializer(weight_init, (out_channels, in_channels), dtype)
        if tuple(w.shape) != (out_channels, in_channels):
            raise ValueError(f"Dense: weight_init has shape {tuple(w.shape)}, expected "
                             f"{(out_channels, in_channels)} (out_channels, in_channels)")
        self.weight = Parameter(w, name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                bias_init = Uniform(1.0 / math.sqrt(in_channels))
            b = initializer(bias_init, (out_channels,), dtype)
            if tuple(b.shape) != (out_channels,):
                raise ValueError(f"Dense: bias_init has shape {tuple(b.shape)}, expected ({out_channels},)")
            self.bias = Parameter(b, name="bias")
        if isinstance(activation, str):
            activation = get_activation(activation, "Dense")
        elif activation is not None and not isinstance(activation, Cell):
            raise TypeError(f"Dense: activation must be a str, a Cell or None, got {type(activation).__name__}")
        self.activation = activation
        self.activation_flag = activation is not None
        self._matmul = ops.MatMul(transpose_b=True)
        self._bias_add = ops.BiasAdd()

    def construct(self, x):
        shape = x.shape
        if len(shape) != 2:
            x = ops.reshape(x, (-1, shape[-1]))
        x = self._matmul(x, self.weight)
        if self.has_bias:
            x = self._bias_add(x, self.bias)
        if self.activation_flag:
            x = self.activation(x)
        if len(shape) != 2:
            x = ops.reshape(x, tuple(shape[:-1]) + (self.out_channels,))
        return x

    def extend_repr(self):
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Flatten(Cell):
    """Collapse axes ``start_dim..end_dim`` (default: all but the batch axis)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = _check_int("Flatten", "start_dim", start_dim, minimum=-(1 << 30))
        self.end_dim = _check_int("Flatten", "end_dim", end_dim, minimum=-(1 << 30))

    def construct(self, x):
        shape = x.shape
        nd = len(shape)
        if self.start_dim == 1 and self.end_dim == -1 and nd >= 2:
            n = 1
            for d in shape[1:]:
                n *= d
            return ops.reshape(x, (shape[0], n))
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


# -- Dropout ----------------------------------------------------------------------------------------
class Dropout(Cell):
    """Randomly zero elements with probability ``p = 1 - keep_prob`` while training and scale the
    kept ones by ``1/keep_prob``; the identity when not training (or when p == 0).

    ``Dropout(keep_prob=0.5, p=None)`` (MindSpore 2.x's signature): MindSpore prefers ``p``; when
    ``p`` is given it is used and ``keep_prob`` is ignored, as in MindSpore.
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=float32):
        super().__init__()
        # MindSpore 2.x: `if p is None: <use keep_prob> else: <use p>`: giving both is allowed and
        # p wins (``Dropout(0.9, p=0.1)``)
        if p is not None:
            if isinstance(p, bool) or not isinstance(p, (int, float)):
                raise TypeError(f"Dropout: p must be a float, got {type(p).__name__} {p!r}")
            if not 0.0 <= p < 1.0:
                raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
            p = float(p)
            keep_prob = 1.0 - p
        elif keep_prob is not None:
            if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)):
                raise TypeError(f"Dropout: keep_prob must be a float, got {type(keep_prob).__name__} {keep_prob!r}")
            if not 0.0 < keep_prob <= 1.0:
                raise ValueError(f"Dropout: keep_prob must be in (0, 1], got {keep_prob}")
            keep_prob = float(keep_prob)
            p = 1.0 - keep_prob
        else:  # keep_prob=None (accepted for backward compatibility): the default 0.5
            keep_prob, p = 0.5, 0.5
        self.keep_prob = keep_prob
        self.p = p
        self.dtype = dtype
        self._op = ops.Dropout(keep_prob=keep_prob)

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        return self._op(x)[0]

    def extend_repr(self):
        return f"p={self.p}"


class _ChannelDropout(Cell):
    """Zero whole channels with probability ``p`` while training (``ops.dropout2d/3d``); the
    identity when not training."""

    function = None

    def __init__(self, p=0.5):
        super().__init__()
        name = type(self).__name__
        if isinstance(p, bool) or not isinstance(p, (int, float)):
            raise TypeError(f"{name}: p must be a float, got {type(p).__name__} {p!r}")
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name}: p must be in [0, 1], got {p}")
        self.p = float(p)

    def construct(self, x):
        return type(self).function(x, self.p, self.training)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout2d(_ChannelDropout):
    """``nn.Dropout2d(p=0.5)``: :func:`ops.dropout2d` over (N, C, H, W) inputs while training.

    Example:
        >>> import runtime as ms
        >>> from runtime import nn
        >>> drop = nn.Dropout2d(0.5)
        >>> y = drop(ms.ops.ones((4, 8, 3, 3))).asnumpy()
        >>> bool((y.reshape(32, 9).max(axis=1) == y.reshape(32, 9).min(axis=1)).all())  # whole channels
        True
    """

    function = staticmethod(ops.dropout2d)


class Dropout3d(_ChannelDropout):
    """``nn.Dropout3d(p=0.5)``: :func:`ops.dropout3d` over (N, C, D, H, W) inputs while training."""

    function = staticmethod(ops.dropout3d)


# -- containers -------------------------------------------------------------------------------------
def _is_int_scalar_tensor(index) -> bool:
    dtype = getattr(index, "dtype", None)
    return (isinstance(index, Tensor) and tuple(index.shape) in ((), (1,))
            and dtype is not None and dtype.is_int)


class _CellContainer(Cell):
    """Shared bookkeeping of SequentialCell and CellList: children keyed "0", "1", ..."""

    def __init__(self):
        super().__init__()
        self.cell_list = []

    def _check_cell(self, cell):
        if not isinstance(cell, Cell):
            raise TypeError(f"{type(self).__name__}: expected a Cell, got {type(cell).__name__}")
        if cell is self:
            raise ValueError(f"{type(self).__name__}: a cell cannot contain itself")
        return cell

    def _add(self, name, cell):
        self.insert_child_to_cell(name, self._check_cell(cell))
        # a new list object (not an in-place append): compiled graphs guard on its identity
        self.cell_list = self.cell_list + [cell]

    def _rename_child(self, cell, old, new):
        """Rename ``cell``'s parameters (and nested scopes) from key ``old`` to key ``new``."""
        if old != new and self._auto_prefix:
            self._name_child(new, cell)

    def _rekey(self, items):
        """Re-register ``items`` [(old_key, cell)] under keys "0".."n-1", renaming parameters."""
        for k in list(self._cells):
            if k in self.__dict__:
                object.__delattr__(self, k)
        self._cells.clear()
        for i, (old, c) in enumerate(items):
            self._rename_child(c, old, str(i))
            self._cells[str(i)] = c
            object.__setattr__(self, str(i), c)
        self.cell_list = [c for _, c in items]

    def _index(self, index):
        n = len(self.cell_list)
        if _is_int_scalar_tensor(index):  # MindSpore indexes cell lists by a Tensor too
            index = int(index.item())
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"{type(self).__name__} indices must be integers or slices, got {type(index).__name__}")
        if not -n <= index < n:
            raise IndexError(f"{type(self).__name__}: index {index} out of range for {n} cells")
        return index % n

    def _slice_copy(self, cells):
        new = type(self).__new__(type(self))
        _CellContainer.__init__(new)
        for i, c in enumerate(cells):
            new._cells[str(i)] = c
            object.__setattr__(new, str(i), c)
        new.cell_list = list(cells)
        object.__setattr__(new, "training", self.training)
        return new

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._slice_copy(self.cell_list[index])
        return self.cell_list[self._index(index)]

    def __setitem__(self, index, cell):
        i = self._index(index)
        key = list(self._cells)[i]
        self.insert_child_to_cell(key, self._check_cell(cell))
        cells = list(self.cell_list)
        cells[i] = cell
        self.cell_list = cells

    def __delitem__(self, index):
        items = list(self._cells.items())
        if isinstance(index, slice):
            del items[index]
        else:
            del items[self._index(index)]
        self._rekey(items)

    def __len__(self):
        return len(self.cell_list)

    def __iter__(self):
        return iter(self.cell_list)

    def __bool__(self):
        return len(self.cell_list) > 0

    def append(self, cell):
        self._add(str(len(self.cell_list)), cell)
        return self

    def extend(self, cells):
        for c in cells:
            self.append(c)
        return self

    def insert(self, index, cell):
        self._check_cell(cell)
        n = len(self.cell_list)
        index = max(0, min(n, index + n if index < 0 else index))
        self.append(cell)  # registers (and names) the new cell under key str(n)
        items = list(self._cells.items())
        items.insert(index, items.pop())
        self._rekey(items)
        return self


class SequentialCell(_CellContainer):
    """Runs its cells in order: ``SequentialCell([c1, c2])``, ``SequentialCell(c1, c2)`` or
    ``SequentialCell(OrderedDict(name=cell, ...))`` (the keys name the children)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            for name, cell in args[0].items():
                if not isinstance(name, str):
                    raise TypeError(f"SequentialCell: keys must be str, got {name!r}")
                self._add(name, cell)
        elif len(args) == 1 and isinstance(args[0], (list, tuple)):
            for i, cell in enumerate(args[0]):
                self._add(str(i), cell)
        else:
            for i, cell in enumerate(args):
                self._add(str(i), cell)

    def __delitem__(self, index):
        # MindSpore keeps the remaining children's keys (and parameter names) on deletion
        keys = list(self._cells)
        doomed = keys[index] if isinstance(index, slice) else [keys[self._index(index)]]
        for k in doomed:
            del self._cells[k]
            if k in self.__dict__:
                object.__delattr__(self, k)
        self.cell_list = list(self._cells.values())

    def construct(self, input_data):
        for cell in self.cell_list:
            input_data = cell(input_data)
        return input_data


class CellList(_CellContainer):
    """A list of Cells (registered as children "0", "1", ...): append/extend/insert/index/iterate."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple, CellList)):
            args = tuple(args[0])
        for cell in args:
            self.append(cell)

    def construct(self, *inputs):
        raise NotImplementedError("CellList is a container; call its cells instead")


class ClipByNorm(Cell):
    """``nn.ClipByNorm(axis=None)``: ``construct(x, clip_norm)`` scales ``x`` to
    ``x * clip_norm / max(l2norm(x, axis), clip_norm)`` (the L2 norm over ``axis``, all axes by
    default, kept for broadcasting), so its norm is at most ``clip_norm``."""

    def __init__(self, axis=None):
        super().__init__()
        if axis is not None and not isinstance(axis, (int, tuple, list)):
            raise TypeError(f"ClipByNorm: axis must be None, an int or a tuple of ints, got {axis!r}")
        self.axis = axis

    def construct(self, x, clip_norm):
        axes = tuple(range(x.ndim)) if self.axis is None else (
            (self.axis,) if isinstance(self.axis, int) else tuple(self.axis))
        l2 = ops.sqrt(ops.reduce_sum(ops.square(x), axes, True))
        return x * clip_norm / ops.maximum(l2, clip_norm)
