"""Optimizer base class (``mindspore.nn.Optimizer``).

An optimizer is a Cell: ``optimizer(grads)`` (``construct(gradients)``) updates its parameters in
place with ``ops.assign`` and returns True. Its state (learning rate, step count, moments) lives in
Parameters so that graph capture treats it as graph inputs and a captured train step updates it
explicitly. The update rules are written with registered ops on Tensors only (no numpy), because
the same ``construct`` is later captured into a graph.

``params`` is a list of Parameters, or a list of group dicts
``{"params": [...], "lr": ..., "weight_decay": ...}`` (plus an optional ``{"order_params": [...]}``).
Without groups, ``weight_decay`` applies to the parameters whose names contain neither 'beta' nor
'gamma' (MindSpore's rule: normalisation shifts and scales are not decayed).
"""
from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from graph.dtypes import float32

from ... import ops
from ...device import module_of
from ...parameter import Parameter, ParameterTuple
from ...tensor import Tensor
from ..cell import Cell
from . import foreach

__all__ = ["Optimizer", "opt_init_args_register"]


def _decay_filter(p):
    return "beta" not in p.name and "gamma" not in p.name


def _check_number(cls_name, name, v, minimum=None, open_min=False, maximum=None, open_max=False):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{cls_name}: {name} must be a float, got {type(v).__name__} {v!r}")
    v = float(v)
    if minimum is not None and (v < minimum or (open_min and v == minimum)):
        raise ValueError(f"{cls_name}: {name} must be {'>' if open_min else '>='} {minimum}, got {v}")
    if maximum is not None and (v > maximum or (open_max and v == maximum)):
        raise ValueError(f"{cls_name}: {name} must be {'<' if open_max else '<='} {maximum}, got {v}")
    return v


class _IteratorLearningRate(Cell):
    """A per-step learning-rate list: ``lr[min(global_step, n - 1)]``."""

    def __init__(self, values, name):
        super().__init__()
        self.learning_rate = Parameter(Tensor(np.asarray(values, np.float32)), name=name, requires_grad=False)
        self._last = int(np.asarray(values).shape[0]) - 1

    def construct(self, global_step):
        idx = ops.minimum(global_step, self._last)
        return ops.reshape(ops.gather(self.learning_rate, idx, 0), ())


class Optimizer(Cell):
    """Base class of optimizers (see the module docstring).

    Subclasses implement ``construct(gradients)`` with :meth:`decay_weight`, :meth:`scale_grad`,
    :meth:`get_lr` and :meth:`param_lrs`.
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        params, group_lr, group_wd = self._parse_params(name, parameters, learning_rate, weight_decay)
        self.parameters = ParameterTuple(params)
        self._parameters = self.parameters
        self.param_length = len(params)
        self.loss_scale = _check_number(name, "loss_scale", loss_scale, 0.0, open_min=True)
        self.need_scale = self.loss_scale != 1.0
        self.reciprocal_scale = 1.0 / self.loss_scale
        self.global_step = Parameter(Tensor(np.zeros((1,), np.int32)), name="global_step", requires_grad=False)

        # learning rate(s): one Parameter (or schedule) per distinct group setting
        self.is_group = group_lr is not None
        self.is_group_lr = False
        if self.is_group:
            self.is_group_lr = any(lr is not None for lr in group_lr)
            group_lr = [learning_rate if lr is None else lr for lr in group_lr]
        if self.is_group_lr:
            distinct, index = [], []
            for lr in group_lr:
                for i, d in enumerate(distinct):
                    if d is lr:
                        index.append(i)
                        break
                else:
                    index.append(len(distinct))
                    distinct.append(lr)
            lrs = [self._make_lr(name, lr, f"learning_rate_group_{i}") for i, lr in enumerate(distinct)]
            self.learning_rate = tuple(lrs)
            for lr in lrs:
                self._register_state(lr)
            self._lr_index = tuple(index)
            self.dynamic_lr = any(isinstance(lr, Cell) for lr in lrs)
        else:
            self.learning_rate = self._make_lr(name, learning_rate, "learning_rate")
            if isinstance(self.learning_rate, Cell):
                self._register_state(self.learning_rate)
            self.dynamic_lr = isinstance(self.learning_rate, Cell)

        # weight decay per parameter
        if self.is_group:
            self._wd = tuple(_check_number(name, "weight_decay", wd, 0.0) for wd in group_wd)
            self.decay_flags = tuple(True for _ in params)
        else:
            wd = _check_number(name, "weight_decay", weight_decay, 0.0)
            self.decay_flags = tuple(_decay_filter(p) for p in params)
            self._wd = tuple(wd if f else 0.0 for f in self.decay_flags)
        self.weight_decay = self._wd[0] if not self.is_group and params else self._wd
        self.exec_weight_decay = any(w != 0.0 for w in self._wd)

    # -- construction helpers -----------------------------------------------------------------------
    @staticmethod
    def _parse_params(name, parameters, learning_rate, weight_decay):
        if isinstance(parameters, (Tensor, dict)) or not hasattr(parameters, "__iter__"):
            raise TypeError(f"{name}: params must be a list of Parameters or a list of group dicts, "
                            f"got {type(parameters).__name__}")
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"{name}: params is empty; pass e.g. net.trainable_params()")
        if all(isinstance(p, dict) for p in parameters):
            params, group_lr, group_wd, order = [], [], [], None
            for g in parameters:
                unknown = set(g) - {"params", "lr", "weight_decay", "order_params", "grad_centralization"}
                if unknown:
                    raise ValueError(f"{name}: unknown group key(s) {sorted(unknown)}; valid: "
                                     "['params', 'lr', 'weight_decay', 'order_params', 'grad_centralization']")
                if "order_params" in g:
                    order = list(g["order_params"])
                    continue
                if "params" not in g:
                    raise ValueError(f"{name}: every parameter group needs a 'params' entry")
                ps = list(g["params"])
                for p in ps:
                    if not isinstance(p, Parameter):
                        raise TypeError(f"{name}: group params must be Parameters, got {type(p).__name__}")
                params.extend(ps)
                group_lr.extend([g.get("lr")] * len(ps))
                group_wd.extend([g.get("weight_decay", weight_decay)] * len(ps))
            if order is not None:
                pos = {id(p): i for i, p in enumerate(params)}
                missing = [p.name for p in order if id(p) not in pos]
                if missing:
                    raise ValueError(f"{name}: order_params holds parameters not in any group: {missing}")
                idx = [pos[id(p)] for p in order]
                params = [params[i] for i in idx]
                group_lr = [group_lr[i] for i in idx]
                group_wd = [group_wd[i] for i in idx]
            if len({id(p) for p in params}) != len(params):
                raise ValueError(f"{name}: a parameter appears in more than one group")
            return params, group_lr, group_wd
        for p in parameters:
            if not isinstance(p, Parameter):
                raise TypeError(f"{name}: params must be Parameters (or group dicts), got "
                                f"{type(p).__name__}; pass e.g. net.trainable_params()")
        return parameters, None, None

    def _make_lr(self, name, lr, pname):
        if isinstance(lr, Cell):  # a LearningRateSchedule: lr = schedule(global_step)
            return lr
        if isinstance(lr, Tensor) and lr.ndim == 0:
            lr = float(lr.asnumpy())
        if isinstance(lr, (list, tuple)) or (isinstance(lr, Tensor) and lr.ndim == 1):
            values = lr.asnumpy() if isinstance(lr, Tensor) else np.asarray(lr, np.float64)
            if values.size == 0 or (values < 0).any():
                raise ValueError(f"{name}: a learning-rate list must be non-empty with values >= 0")
            return _IteratorLearningRate(values, pname)
        if isinstance(lr, Tensor):
            raise ValueError(f"{name}: learning_rate tensor must be 0-d or 1-d, got shape {tuple(lr.shape)}")
        lr = _check_number(name, "learning_rate", lr, 0.0)
        return Parameter(Tensor(np.asarray(lr, np.float32)), name=pname, requires_grad=False)

    def _register_state(self, state):
        """Make Parameters (a Parameter, ParameterTuple or schedule Cell) part of this Cell's
        parameters (checkpoints, graph inputs) without making them attributes."""
        if isinstance(state, Parameter):
            state.requires_grad = False
            self._params[state.name] = state
        elif isinstance(state, Cell):
            for p in state.get_parameters():
                self._register_state(p)
        else:
            for p in state:
                self._register_state(p)

    def _clone_state(self, prefix, init="zeros"):
        """Per-parameter state (moments...) registered under ``prefix.<param name>``."""
        state = self.parameters.clone(prefix=prefix, init=init)
        if init == "ones":
            for p in state:
                p._data = module_of(p._data).ones_like(p._data)
        self._register_state(state)
        return state

    def _scalar_state(self, name, value, dtype=float32):
        p = Parameter(Tensor(np.asarray(value, dtype.np)), name=name, requires_grad=False)
        self._register_state(p)
        return p

    # -- pieces used by construct --------------------------------------------------------------------
    def _check_grads(self, gradients):
        if len(gradients) != self.param_length:
            raise ValueError(f"{type(self).__name__}: got {len(gradients)} gradients for "
                             f"{self.param_length} parameters")

    def scale_grad(self, gradients):
        """Undo loss scaling: grads * (1 / loss_scale)."""
        if self.need_scale:
            r = self.reciprocal_scale
            return tuple(ops.mul(g, r) for g in gradients)
        return gradients

    def decay_weight(self, gradients):
        """L2 weight decay folded into the (still loss-scaled) gradients:
        g + weight_decay * loss_scale * param, so that after :meth:`scale_grad` the update sees
        g / loss_scale + weight_decay * param."""
        if self.exec_weight_decay:
            ls = self.loss_scale
            return tuple(g if wd == 0.0 else ops.add(g, ops.mul(p, wd * ls))
                         for g, p, wd in zip(gradients, self.parameters, self._wd))
        return gradients

    def get_lr(self):
        """The current learning rate: a 0-d Tensor, or a tuple of them (one per group setting)."""
        if self.is_group_lr:
            return tuple(lr(self.global_step) if isinstance(lr, Cell) else lr for lr in self.learning_rate)
        if self.dynamic_lr:
            return self.learning_rate(self.global_step)
        return self.learning_rate

    def param_lrs(self, lr):
        """``get_lr()``'s result expanded to one learning rate per parameter."""
        if self.is_group_lr:
            return tuple(lr[i] for i in self._lr_index)
        return (lr,) * self.param_length

    def get_lr_parameter(self, param):
        """The learning rate (Parameter or schedule) used for ``param``."""
        if not self.is_group_lr:
            return self.learning_rate
        for i, p in enumerate(self.parameters):
            if p is param or p.name == getattr(param, "name", param):
                return self.learning_rate[self._lr_index[i]]
        raise ValueError(f"{type(self).__name__}: {param!r} is not optimised by this optimizer")

    def _prepare_step(self, gradients):
        """The common start of every update: check, weight-decay and loss-scale the gradients,
        look up each parameter's learning rate and count the step. Returns (gradients, lrs)."""
        self._check_grads(gradients)
        gradients = self.decay_weight(gradients)
        gradients = self.scale_grad(gradients)
        lrs = self.param_lrs(self.get_lr())
        self._increase_step()
        return gradients, lrs

    def _increase_step(self):
        ops.assign(self.global_step, ops.add(self.global_step, 1))

    def construct(self, gradients):
        raise NotImplementedError(f"{type(self).__name__} must implement construct(gradients)")

    # -- PyNative: all parameters in one step (runtime/nn/optim/foreach.py) ---------------------------
    def _dispatch(self, args, kwargs):
        if (self._jit is None and len(args) == 1 and not kwargs and self._flat_step is not None
                and foreach.eager_step_allowed()):
            done = self._flat_step(args[0])
            if done is not None:
                return done
        return super()._dispatch(args, kwargs)

    #: ``_flat_step(gradients) -> True | None`` of an optimizer with a flat PyNative update
    #: (None: this call runs ``construct``); the update must do ``construct``'s arithmetic
    _flat_step = None

    def _flat_groups(self, *states):
        """(parameters, states...) as :class:`foreach.FlatGroup` s, made on first use; None
        when a tensor is not a CPU float32 array (kept: the flat path is off for this optimizer)."""
        groups = self.__dict__.get("_flat_cache")
        if groups is None:
            groups = [foreach.FlatGroup(self.parameters)] + [foreach.FlatGroup(s) for s in states]
            object.__setattr__(self, "_flat_cache", groups)
        return groups if all(g.usable() for g in groups) else None

    def _flat_prepare(self, gradients, groups, keep_rates=False):
        """``_prepare_step`` for the flat path: (flat gradients, learning-rate factor), or None
        before anything changed when this call must run ``construct`` instead. ``keep_rates``:
        the per-parameter learning rates themselves in place of the factor (the caller scales
        them first; a schedule's rates are then allowed)."""
        if not isinstance(gradients, (tuple, list)) or len(gradients) != self.param_length:
            return None
        params = groups[0]
        for g, s in zip(gradients, params.shapes):
            if not foreach._plain(getattr(g, "_data", None), s):
                return None
        if not keep_rates:
            if self.dynamic_lr:  # a schedule's rate is known only once computed: construct
                return None
            static = self.learning_rate if self.is_group_lr else (self.learning_rate,)
            if not foreach.rates_usable(static):
                return None
        gradients, lrs = self._prepare_step(gradients)
        flat = foreach.flat_gradients(gradients, params.shapes)
        return flat, (lrs if keep_rates else foreach.per_element(lrs, params.bounds))


def opt_init_args_register(fn):
    """MindSpore's decorator for an optimizer's ``__init__``: records the arguments it was called
    with as ``self.init_args`` (a dict, ``learning_rate`` as a list when it was a Tensor) and its
    parameters as ``self.init_params = {"params": ...}`` (taken from ``optimizer`` for a wrapper
    optimizer), then runs ``__init__``."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop("self")
        if "params" in arguments:
            object.__setattr__(self, "init_params", {"params": arguments.pop("params")})
        if "optimizer" in arguments:
            object.__setattr__(self, "init_params", {"params": arguments.pop("optimizer").init_params["params"]})
        lr = arguments.get("learning_rate")
        if isinstance(lr, Tensor):
            arguments["learning_rate"] = lr.asnumpy().tolist()
        elif isinstance(lr, Cell):
            object.__setattr__(self, "init_learning_rate", lr)
            arguments.pop("learning_rate")
        object.__setattr__(self, "init_args", arguments)
        fn(self, *args, **kwargs)
    return deco
