"""Mixed-precision training (``mindspore.amp``): ``auto_mixed_precision`` (levels O0-O3),
``custom_mixed_precision``, ``build_train_network``, the loss-scale managers used by ``Model``
(``FixedLossScaleManager``, ``DynamicLossScaleManager``), and the functional loss scalers
``all_finite``, ``StaticLossScaler`` and ``DynamicLossScaler`` with MindSpore 2.x's update rule.

Low-precision compute is ``Cell.to_float``: a marked Cell casts its float inputs and the float
operands of every op inside it (float32 master weights stay float32; their gradients come back
float32 through the casts).

The scale and the step counter are Parameters updated with ``ops.assign``, so a train step that
scales, unscales and adjusts runs as one graph under ``@jit`` with no recompile as the scale
changes.

Example:
    >>> import numpy as np
    >>> from runtime import Tensor, amp, float16
    >>> scaler = amp.DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=1)
    >>> grads = (Tensor(np.array([np.nan, 1.0]), float16), Tensor(np.array([0.2]), float16))
    >>> scaler.adjust(amp.all_finite(scaler.unscale(grads)))
    True
    >>> print(scaler.scale_value.asnumpy())
    512.0
"""
from __future__ import annotations

import numbers

from graph.dtypes import float32, int32

from . import ops
from .nn.cell import Cell, cast_float_inputs
from .parameter import Parameter
from .tensor import Tensor

__all__ = ["all_finite", "LossScaler", "StaticLossScaler", "DynamicLossScaler", "auto_mixed_precision",
           "custom_mixed_precision", "get_white_list", "get_black_list", "build_train_network",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]


def _tensors(inputs):
    return list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]


def _times(inputs, factor):
    """``inputs`` (a tensor or a tuple/list of them; the container type is kept) times the 0-d
    ``factor``, cast to each tensor's dtype. A plain module function with no callable argument, so
    graph capture calls it on its traced tensors as it calls any framework function."""
    if isinstance(inputs, (tuple, list)):
        return type(inputs)([x * factor.astype(x.dtype) for x in inputs])
    return inputs * factor.astype(inputs.dtype)


def all_finite(inputs):
    """A 0-d bool tensor: True when no element of ``inputs`` (a tensor or a tuple/list of them)
    is inf or NaN."""
    flags = [ops.isfinite(x).all() for x in _tensors(inputs)]
    if not flags:
        return Tensor(True)
    out = flags[0]
    for flag in flags[1:]:
        out = ops.logical_and(out, flag)
    return out


def _check_scale(name, scale_value):
    if isinstance(scale_value, bool) or not isinstance(scale_value, numbers.Real):
        raise TypeError(f"{name}: scale_value must be a float or int, got {type(scale_value).__name__}")
    if scale_value < 1.0:
        raise ValueError(f"{name}: scale_value must be >= 1, got {scale_value}")


def _check_positive_int(name, what, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
    return v


class LossScaler:
    """Base of the loss scalers: ``scale`` multiplies the loss (or gradients) by the scale,
    ``unscale`` divides gradients by it (in each gradient's dtype), ``adjust(grads_finite)``
    updates the scale."""

    scale_value: Parameter

    def scale(self, inputs):
        return _times(inputs, self.scale_value)

    def unscale(self, inputs):
        return _times(inputs, ops.reciprocal(self.scale_value))

    def adjust(self, grads_finite):
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """A fixed loss scale.

    Example:
        >>> from runtime import Tensor, amp
        >>> print(amp.StaticLossScaler(2**10).scale(Tensor([1.0])))
        [1024.]
    """

    def __init__(self, scale_value):
        _check_scale("StaticLossScaler", scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=float32), name="scale_value")

    def adjust(self, grads_finite):
        """The scale is fixed: returns False."""
        return False


class DynamicLossScaler(LossScaler):
    """The largest scale that keeps gradients finite: after ``scale_window`` finite steps in a row
    the scale grows by ``scale_factor`` (unless that overflows float32); a step with non-finite
    gradients divides it by ``scale_factor`` (never below 1) and restarts the count."""

    def __init__(self, scale_value, scale_factor, scale_window):
        name = "DynamicLossScaler"
        _check_scale(name, scale_value)
        self.scale_value = Parameter(Tensor(scale_value, dtype=float32), name="scale_value")
        self.scale_window = _check_positive_int(name, "scale_window", scale_window)
        self.scale_factor = _check_positive_int(name, "scale_factor", scale_factor)
        self.counter = Parameter(Tensor(0, dtype=int32), name="counter")

    def adjust(self, grads_finite):
        """Update the scale and the counter from ``grads_finite`` (a 0-d bool tensor); returns True."""
        scale = self.scale_value
        grown = scale * self.scale_factor
        at_window = self.counter == (self.scale_window - 1)
        kept_or_grown = ops.select(at_window, ops.select(ops.isfinite(grown), grown, scale), scale)
        shrunk = ops.maximum(ops.ones((), scale.dtype), scale / self.scale_factor)
        ops.assign(self.scale_value, ops.select(grads_finite, kept_or_grown, shrunk))
        counter = ((self.counter + 1) % self.scale_window) * grads_finite.astype(int32)
        ops.assign(self.counter, counter)
        return True


# -- loss-scale managers (mindspore.amp / mindspore.train.loss_scale_manager) ---------------------------
class LossScaleManager:
    """Base of the loss-scale managers ``Model(..., loss_scale_manager=)`` and
    :func:`build_train_network` take: ``get_loss_scale()``, ``get_update_cell()`` and
    ``update_loss_scale(overflow)``."""

    def get_loss_scale(self):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A fixed loss scale. With ``drop_overflow_update=True`` a step whose gradients overflow is
    skipped (through ``nn.TrainOneStepWithLossScaleCell``); with False the gradients are scaled
    and every step updates (the optimizer's ``loss_scale`` must then equal ``loss_scale``).

    Example:
        >>> from runtime import amp
        >>> m = amp.FixedLossScaleManager(1024.0, drop_overflow_update=False)
        >>> m.get_loss_scale(), m.get_update_cell()
        (1024.0, None)
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        _check_scale("FixedLossScaleManager", loss_scale)
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"FixedLossScaleManager: drop_overflow_update must be a bool, got {drop_overflow_update!r}")
        self._loss_scale = float(loss_scale)
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """The scale is fixed: nothing to update."""

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        from .nn.loss_scale import FixedLossScaleUpdateCell
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale that halves (``/ scale_factor``, never below 1) on overflow and grows
    (``* scale_factor``) after ``scale_window`` steps without one; overflowing steps are skipped.

    Example:
        >>> from runtime import amp
        >>> m = amp.DynamicLossScaleManager(init_loss_scale=2**10, scale_factor=2, scale_window=2)
        >>> m.update_loss_scale(True); m.get_loss_scale()
        512.0
        >>> m.update_loss_scale(False); m.update_loss_scale(False); m.get_loss_scale()
        1024.0
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        name = "DynamicLossScaleManager"
        _check_scale(name, init_loss_scale)
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, numbers.Real) or scale_factor <= 1:
            raise ValueError(f"{name}: scale_factor must be a number > 1, got {scale_factor!r}")
        self.loss_scale = float(init_loss_scale)
        self.scale_factor = scale_factor
        self.scale_window = _check_positive_int(name, "scale_window", scale_window)
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        """MindSpore's host-side rule: on overflow divide (floor 1) and restart the window; after
        ``scale_window`` good steps multiply."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale continuous overflow {self.bad_step} times")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        return True

    def get_update_cell(self):
        from .nn.loss_scale import DynamicLossScaleUpdateCell
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


# -- automatic mixed precision -------------------------------------------------------------------------
def get_white_list():
    """The Cells and Primitives that ``amp_level="O1"`` runs in float16 (a copy)."""
    from . import nn, ops
    cells = [getattr(nn, n) for n in ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
                                      "Conv3dTranspose", "Dense", "LSTMCell", "RNNCell", "GRUCell")
             if hasattr(nn, n)]
    prims = [getattr(ops, n) for n in ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
                                       "Conv2DBackpropInput", "MatMul", "BatchMatMul", "PReLU", "ReLU", "Ger")
             if hasattr(ops, n)]
    return cells + prims


def get_black_list():
    """The Cells that ``amp_level="O2"`` keeps in float32 (a copy)."""
    from . import nn
    return [getattr(nn, n) for n in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm") if hasattr(nn, n)]


def _low_precision_dtype(name, dtype):
    from graph.dtypes import float16
    if dtype != float16:
        raise ValueError(f"{name}: dtype must be ms.float16 (bfloat16 is not available in this framework), got {dtype!r}")
    return dtype


def _is_framework_cell(cell):
    return type(cell).__module__.startswith("runtime.")


def _insert_white_list_casts(cell, cells_white, prims_white, dtype):
    """O1: Cells of the white list compute in ``dtype`` with float32 outputs; in user-written
    Cells, white-list Primitive attributes do the same; everything else stays float32."""
    for name, child in list(cell._cells.items()):
        if isinstance(child, tuple(cells_white)) and child._mixed_precision_type is None:
            cell._wrap_child(name, _OutputTo32(child.to_float(dtype)))
        elif isinstance(child, Cell):
            _insert_white_list_casts(child, cells_white, prims_white, dtype)
    if _is_framework_cell(cell):
        return  # MindSpore rewrites the user's construct only, not the framework's own Cells
    for name, value in list(vars(cell).items()):
        if isinstance(value, tuple(prims_white)):
            object.__setattr__(cell, name, _PrimitiveInPrecision(value, dtype))


def _auto_white_list(network, white_list, dtype):
    cells = [c for c in white_list if issubclass(c, Cell)]
    prims = [c for c in white_list if not issubclass(c, Cell)]
    _insert_white_list_casts(network, cells, prims, dtype)
    return network


def _auto_black_list(network, black_list, dtype):
    """O2: the whole network in ``dtype`` except the Cells of the black list, which run in
    float32 and hand ``dtype`` outputs back."""
    network.to_float(dtype)
    _keep_in_float32(network, black_list, dtype)
    return network


def _keep_in_float32(network, black_list, dtype):
    from graph.dtypes import float32
    for name, child in list(network._cells.items()):
        if isinstance(child, tuple(black_list)):
            network._wrap_child(name, _OutputTo(child.to_float(float32), dtype))
        elif isinstance(child, Cell):
            _keep_in_float32(child, black_list, dtype)


def auto_mixed_precision(network, amp_level="O0", dtype=None):
    """Mixed precision for ``network`` (MindSpore 2.x ``amp.auto_mixed_precision``):

    - ``"O0"``: unchanged;
    - ``"O1"``: Cells and Primitives of :func:`get_white_list` compute in float16 (outputs cast
      back to float32), the rest in float32;
    - ``"O2"``: everything in float16 except the Cells of :func:`get_black_list` (BatchNorm,
      LayerNorm), output cast to float32;
    - ``"O3"``: everything in float16, output cast to float32.

    Parameters stay float32 (master weights). Returns the network to use (O2/O3 wrap it).

    Example:
        >>> import numpy as np, runtime as ms
        >>> from runtime import amp, nn
        >>> net = amp.auto_mixed_precision(nn.SequentialCell([nn.Dense(3, 4), nn.ReLU()]), "O3")
        >>> net(ms.Tensor(np.ones((2, 3), np.float32))).dtype
        Float32
    """
    from graph.dtypes import float16
    if not isinstance(network, Cell):
        raise TypeError(f"auto_mixed_precision: network must be a Cell, got {type(network).__name__}")
    dtype = _low_precision_dtype("auto_mixed_precision", float16 if dtype is None else dtype)
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        network = _auto_white_list(network, get_white_list(), dtype)
    elif amp_level == "O2":
        network = _OutputTo32(_auto_black_list(network, get_black_list(), dtype))
    elif amp_level == "O3":
        network = _OutputTo32(network.to_float(dtype))
    else:
        raise ValueError(f"auto_mixed_precision: amp_level must be one of ['O0', 'O1', 'O2', 'O3'], got {amp_level!r}")
    object.__setattr__(network, "_amp_level", amp_level)
    return network


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=None):
    """Mixed precision from your own list: with ``white_list`` (Cell and Primitive classes) those
    compute in float16 as in O1; with ``black_list`` (Cell classes) everything else does, as in O2.

    Example:
        >>> from runtime import amp, nn
        >>> net = amp.custom_mixed_precision(nn.SequentialCell([nn.Dense(3, 4)]), white_list=[nn.Dense])
        >>> type(net[0]).__name__
        '_OutputTo32'
    """
    from graph.dtypes import float16
    if not isinstance(network, Cell):
        raise TypeError(f"custom_mixed_precision: network must be a Cell, got {type(network).__name__}")
    if (white_list is None) == (black_list is None):
        raise ValueError("custom_mixed_precision: give exactly one of white_list and black_list")
    dtype = _low_precision_dtype("custom_mixed_precision", float16 if dtype is None else dtype)
    lst = white_list if white_list is not None else black_list
    kind = "white_list" if white_list is not None else "black_list"
    from .ops import Primitive
    from .ops.composite import CompositePrimitive
    if not isinstance(lst, list):
        raise TypeError(f"custom_mixed_precision: {kind} must be a list, got {type(lst).__name__}")
    for c in lst:
        allowed = (Cell,) if kind == "black_list" else (Cell, Primitive, CompositePrimitive)
        if not (isinstance(c, type) and issubclass(c, allowed)):
            raise TypeError(f"custom_mixed_precision: {kind} items must be "
                            f"{'Cell' if kind == 'black_list' else 'Cell or Primitive'} classes, got {c!r}")
    if white_list is not None:
        return _auto_white_list(network, white_list, dtype)
    return _OutputTo32(_auto_black_list(network, black_list, dtype))


def _cast_floats(value, dtype):
    """``value`` with every float tensor (nested in tuples/lists) cast to ``dtype``
    (MindSpore's ``F.mixed_precision_cast``)."""
    return cast_float_inputs((value,), dtype)[0]


class _OutputTo(Cell):
    """Runs ``backbone`` and casts its float outputs to ``dtype``."""

    def __init__(self, backbone, dtype):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._out_dtype = dtype

    def construct(self, *args, **kwargs):
        return _cast_floats(self._backbone(*args, **kwargs), self._out_dtype)


class _OutputTo32(_OutputTo):
    """Runs ``backbone`` and casts its float outputs to float32."""

    def __init__(self, backbone):
        super().__init__(backbone, float32)
        if hasattr(backbone, "_amp_level"):
            object.__setattr__(self, "_amp_level", backbone._amp_level)


class _PrimitiveInPrecision:
    """A Primitive of the O1 white list inside a user Cell: float inputs cast to ``dtype``, the
    result cast back to float32."""

    def __init__(self, prim, dtype):
        self.prim = prim
        self.dtype = dtype

    def __call__(self, *args, **kwargs):
        from graph.ops.core import computing_in
        with computing_in(self.dtype):
            out = self.prim(*args, **kwargs)
        return _cast_floats(out, float32)

    def __getattr__(self, name):
        return getattr(self.prim, name)


# -- build_train_network ------------------------------------------------------------------------------
_CONFIG_LEVEL = {
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": "float32", "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": "float32", "loss_scale_manager": None},
    "O2": {"keep_batchnorm_fp32": True, "cast_model_type": "float16", "loss_scale_manager": "dynamic"},
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": "float16", "loss_scale_manager": None},
}


def _level_config(level, kwargs, owner):
    from graph.dtypes import float16
    from . import context
    if not isinstance(level, str) or level not in ("O0", "O1", "O2", "O3", "auto"):
        raise ValueError(f"{owner}: level must be one of ['O0', 'O1', 'O2', 'O3', 'auto'], got {level!r}")
    if level == "auto":
        # MindSpore: O2 on GPU, O3 on Ascend, refused on CPU; here the CPU gets O0 (no float16 win)
        level = "O2" if context.get_context("device_target") == "GPU" else "O0"
    for k in kwargs:
        if k not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"{owner}: unsupported argument {k!r}; valid: cast_model_type, "
                             "keep_batchnorm_fp32, loss_scale_manager")
    cfg = dict(_CONFIG_LEVEL[level])
    cfg["cast_model_type"] = float16 if cfg["cast_model_type"] == "float16" else float32
    if cfg["loss_scale_manager"] == "dynamic":
        cfg["loss_scale_manager"] = DynamicLossScaleManager()
    cfg.update(kwargs)
    if cfg["cast_model_type"] not in (float16, float32):
        raise TypeError(f"{owner}: cast_model_type must be ms.float16 or ms.float32, got {cfg['cast_model_type']!r}")
    if not isinstance(cfg["keep_batchnorm_fp32"], bool):
        raise TypeError(f"{owner}: keep_batchnorm_fp32 must be a bool, got {cfg['keep_batchnorm_fp32']!r}")
    lsm = cfg["loss_scale_manager"]
    if lsm is not None and not isinstance(lsm, LossScaleManager):
        raise TypeError(f"{owner}: loss_scale_manager must be an amp.LossScaleManager, got {type(lsm).__name__}")
    return level, cfg


def _apply_level(network, cfg, level):
    """MindSpore's ``_auto_mixed_precision_process``: float16 casting of ``network`` in place."""
    from graph.dtypes import float16
    if cfg["cast_model_type"] == float16:
        network.to_float(float16)
        if cfg["keep_batchnorm_fp32"]:
            _keep_in_float32(network, get_black_list(), float16)
        return network
    if level == "O1":
        return auto_mixed_precision(network, "O1")
    return network


class _WithLossCell32(Cell):
    """The loss computed in float32 on a float16 network's output (``build_train_network``)."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(_cast_floats(out, float32), _cast_floats(label, float32))


def _add_loss_network(network, loss_fn, cast_model_type):
    from graph.dtypes import float16
    from . import nn
    if not isinstance(loss_fn, nn.Cell):
        raise TypeError(f"build_train_network: loss_fn must be a Cell, got {type(loss_fn).__name__}")
    if cast_model_type == float16:
        return _WithLossCell32(network, loss_fn)
    return nn.WithLossCell(network, loss_fn)


def build_train_network(network, optimizer, loss_fn=None, level: str = "O0", boost_level: str = "O0", **kwargs):
    """The mixed-precision training Cell (MindSpore 2.x ``amp.build_train_network``): the network
    cast per ``level`` (see :func:`auto_mixed_precision`; O2 keeps BatchNorm in float32 and scales
    the loss dynamically), the loss in float32, and a ``TrainOneStepCell`` or, with a loss-scale
    manager that has an update cell, a ``TrainOneStepWithLossScaleCell`` (overflowing steps are
    skipped inside the graph). ``kwargs``: ``cast_model_type``, ``keep_batchnorm_fp32``,
    ``loss_scale_manager`` override the level's settings.

    Example:
        >>> import numpy as np, runtime as ms
        >>> from runtime import amp, nn
        >>> net = nn.Dense(3, 2)
        >>> train = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), nn.MSELoss(), "O2")
        >>> x, y = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32))
        >>> loss, overflow, scale = train(x, y)   # loss * 2**24 overflows float16: step skipped
        >>> bool(overflow), float(scale.asnumpy()), float(train.scale_sense.asnumpy())
        (True, 16777216.0, 8388608.0)
    """
    from . import nn
    if not isinstance(optimizer, nn.Optimizer):
        raise TypeError(f"build_train_network: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"build_train_network: boost_level must be one of ['O0', 'O1', 'O2'], got {boost_level!r}")
    level, cfg = _level_config(level, kwargs, "build_train_network")
    network = _apply_level(network, cfg, level)
    if loss_fn:
        network = _add_loss_network(network, loss_fn, cfg["cast_model_type"])
    loss_scale = 1.0
    lsm = cfg["loss_scale_manager"]
    if lsm is not None:
        loss_scale = lsm.get_loss_scale()
        update_cell = lsm.get_update_cell()
        if update_cell is not None:
            return nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
    return nn.TrainOneStepCell(network, optimizer, loss_scale).set_train()
