"""More MindSpore 2.x optimizers: ``nn.AdaMax``, ``nn.Adadelta``, ``nn.Rprop``, ``nn.ASGD``,
``nn.FTRL``, ``nn.ProximalAdagrad``, ``nn.LazyAdam``, ``nn.AdaFactor`` and the ``nn.LARS`` wrapper.

Each update rule is the one MindSpore's optimizer applies through its ``Apply*`` primitive (or its
Python ``construct``), written here with registered ops on Tensors so that PyNative, ``jit`` and
GRAPH_MODE run the same arithmetic. Gradients go through :meth:`Optimizer._prepare_step` first:
weight decay (L2, ``g + weight_decay * param``) and loss scale (``g / loss_scale``) as in
MindSpore. Conditions on the step count or on a state value are ``select`` s, not Python ``if`` s,
so a captured step stays one graph.

Example:
    >>> from runtime import nn
    >>> opt = nn.AdaMax(nn.Dense(2, 1).trainable_params(), learning_rate=0.01)
    >>> [p.name for p in opt.moment2]
    ['moment2.weight', 'moment2.bias']
"""
from __future__ import annotations

import numbers

import numpy as np

from graph.dtypes import float32

from ... import ops
from ...parameter import Parameter, ParameterTuple
from ...tensor import Tensor
from ..cell import Cell
from .adam import Adam
from .optimizer import Optimizer, _check_number, opt_init_args_register

__all__ = ["AdaMax", "Adadelta", "Rprop", "ASGD", "FTRL", "ProximalAdagrad", "LazyAdam", "LARS", "AdaFactor"]


def _float(cls_name, name, v, *bounds, **kw):
    """MindSpore's ``check_value_type(name, v, [float])`` then a range check: an int is refused
    (``beta1=1`` is a TypeError in MindSpore too)."""
    if not isinstance(v, float):
        raise TypeError(f"{cls_name}: {name} must be a float, got {type(v).__name__} {v!r}")
    return _check_number(cls_name, name, v, *bounds, **kw)


def _bool(cls_name, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"{cls_name}: {name} must be a bool, got {type(v).__name__} {v!r}")
    return v


def _filled_state(opt, prefix, value):
    """Per-parameter state filled with ``value`` (MindSpore's ``clone(prefix, init=value)``)."""
    state = opt._clone_state(prefix, "zeros")
    for s in state:
        s._data = s._data + s._data.dtype.type(value)
    return state


class AdaMax(Optimizer):
    """AdaMax (MindSpore ApplyAdaMax). With g = grad / loss_scale + weight_decay * param:
    ``m = beta1 * m + (1 - beta1) * g``; ``v = max(beta2 * v, |g|)``;
    ``param -= lr / (1 - beta1^t) * m / (v + eps)`` (``beta1_power`` holds beta1^t)."""

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = _float("AdaMax", "beta1", beta1, 0.0, True, 1.0, True)
        self.beta2 = _float("AdaMax", "beta2", beta2, 0.0, True, 1.0, True)
        self.eps = _float("AdaMax", "eps", eps, 0.0, True)
        self.beta1_power = self._scalar_state("beta1_power", 1.0)
        self.moment1 = self._clone_state("moment1", "zeros")
        self.moment2 = self._clone_state("moment2", "zeros")

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        b1, b2 = self.beta1, self.beta2
        b1p = ops.assign(self.beta1_power, ops.mul(self.beta1_power, b1))
        inv_bc1 = ops.div(1.0, ops.sub(1.0, b1p))
        for p, m, v, g, lr_i in zip(self.parameters, self.moment1, self.moment2, gradients, lrs):
            m = ops.assign(m, ops.add(ops.mul(m, b1), ops.mul(g, 1.0 - b1)))
            v = ops.assign(v, ops.maximum(ops.mul(v, b2), ops.abs(g)))
            step = ops.mul(lr_i, inv_bc1)
            ops.assign(p, ops.sub(p, ops.mul(ops.div(m, ops.add(v, self.eps)), step)))
        return True


class Adadelta(Optimizer):
    """Adadelta (MindSpore ApplyAdadelta). With g = grad / loss_scale + weight_decay * param:
    ``accum = rho * accum + (1 - rho) * g^2``;
    ``update = sqrt(accum_update + epsilon) * g / sqrt(accum + epsilon)``;
    ``accum_update = rho * accum_update + (1 - rho) * update^2``; ``param -= lr * update``."""

    @opt_init_args_register
    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = _float("Adadelta", "rho", rho, 0.0, False, 1.0, False)
        self.epsilon = _float("Adadelta", "epsilon", epsilon, 0.0)
        self.accum = self._clone_state("accum", "zeros")
        self.accum_update = self._clone_state("accum_update", "zeros")

    def construct(self, grads):
        grads, lrs = self._prepare_step(grads)
        rho, eps = self.rho, self.epsilon
        for p, acc, acc_up, g, lr_i in zip(self.parameters, self.accum, self.accum_update, grads, lrs):
            a = ops.assign(acc, ops.add(ops.mul(acc, rho), ops.mul(ops.square(g), 1.0 - rho)))
            update = ops.div(ops.mul(ops.sqrt(ops.add(acc_up, eps)), g), ops.sqrt(ops.add(a, eps)))
            ops.assign(acc_up, ops.add(ops.mul(acc_up, rho), ops.mul(ops.square(update), 1.0 - rho)))
            ops.assign(p, ops.sub(p, ops.mul(update, lr_i)))
        return True


class Rprop(Optimizer):
    """Resilient back-propagation (MindSpore ``nn.Rprop``). Each element keeps a step size (the
    learning rate on the first step) and the previous gradient: where ``g * prev > 0`` the step grows
    by ``etaplus``, where ``< 0`` it shrinks by ``etaminus`` (and this gradient is treated as 0:
    no move, and ``prev`` becomes 0), else it stays; it is clipped to ``step_sizes`` and
    ``param -= sign(g) * step``."""

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.), weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        for name, pair in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(pair, tuple):
                raise TypeError(f"Rprop: {name} must be a tuple, got {type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"Rprop: {name} must be a tuple of size 2, got {len(pair)}")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"Rprop: the maximal step size must not be less than the minimal one, got "
                             f"{step_sizes[0]} > {step_sizes[1]}")
        self.etaminus = _check_number("Rprop", "etaminus", etas[0], 0.0, True, 1.0, True)
        self.etaplus = _float("Rprop", "etaplus", etas[1])
        if self.etaplus <= 1.0:
            raise ValueError(f"Rprop: etaplus must be greater than 1.0, got {self.etaplus}")
        self.step_size_min = _float("Rprop", "min_step_sizes", step_sizes[0])
        self.step_size_max = _float("Rprop", "max_step_sizes", step_sizes[1])
        self.prev = self._clone_state("prev", "zeros")
        self.step_size = self._clone_state("step_size", "zeros")

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        # read here, in construct: a module-level helper reading it saw the trace-time value under jit
        first = ops.equal(ops.reshape(self.global_step, ()), 1)
        for p, prev, size_state, g, lr_i in zip(self.parameters, self.prev, self.step_size, gradients, lrs):
            size = ops.select(first, ops.mul(ops.ones_like(size_state), lr_i), size_state)
            agreement = ops.mul(g, prev)
            grew, shrank = ops.greater(agreement, 0.0), ops.less(agreement, 0.0)
            factor = ops.select(grew, ops.full_like(g, self.etaplus),
                                ops.select(shrank, ops.full_like(g, self.etaminus), ops.ones_like(g)))
            size = ops.clamp(ops.mul(size, factor), self.step_size_min, self.step_size_max)
            g = ops.select(shrank, ops.zeros_like(g), g)
            ops.assign(p, ops.sub(p, ops.mul(ops.sign(g), size)))
            ops.assign(prev, g)
            ops.assign(size_state, size)
        return True


class ASGD(Optimizer):
    """Averaged SGD (MindSpore ``nn.ASGD``). Per parameter, scalars ``eta`` (the learning rate on
    the first step) and ``mu`` (1 at first) and the average ``ax``; at step t, with g = grad +
    weight_decay * param: ``param = param * (1 - lambd * eta) - eta * g``; ``ax = param`` while
    ``mu == 1``, else ``ax += (param - ax) * mu``; then ``eta = lr / (1 + lambd * lr * t)^alpha``
    and ``mu = 1 / max(1, t - t0)``."""

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = _float("ASGD", "lambd", lambd)
        self.alpha = _float("ASGD", "alpha", alpha)
        self.t0 = _float("ASGD", "t0", t0)
        self.mu = ParameterTuple([self._scalar_state(f"mu_{p.name}", 1.0) for p in self.parameters])
        self.eta = ParameterTuple([self._scalar_state(f"eta_{p.name}", 0.0) for p in self.parameters])
        self.ax = self._clone_state("ax_", "zeros")

    def construct(self, gradients):
        gradients, lrs = self._prepare_step(gradients)
        # read here, in construct: a module-level helper reading it saw the trace-time value under jit
        first = ops.equal(ops.reshape(self.global_step, ()), 1)
        t = ops.cast(ops.reshape(self.global_step, ()), float32)
        for p, mu, eta, ax, g, lr_i in zip(self.parameters, self.mu, self.eta, self.ax, gradients, lrs):
            lr_i = ops.reshape(lr_i, ())
            e = ops.select(first, lr_i, eta)
            new = ops.sub(ops.mul(p, ops.sub(1.0, ops.mul(e, self.lambd))), ops.mul(g, e))
            ops.assign(p, new)
            averaged = ops.add(ax, ops.mul(ops.sub(new, ax), mu))
            ops.assign(ax, ops.select(ops.equal(mu, 1.0), new, averaged))
            ops.assign(eta, ops.div(lr_i, ops.pow(ops.add(ops.mul(ops.mul(lr_i, self.lambd), t), 1.0), self.alpha)))
            ops.assign(mu, ops.div(1.0, ops.maximum(ops.sub(t, self.t0), 1.0)))
        return True


class FTRL(Optimizer):
    """Follow-the-regularized-leader (MindSpore ApplyFtrl). A fixed, ungrouped learning rate only;
    weight decay applies to every parameter when not grouped. With g = grad / loss_scale +
    weight_decay * param and p = -lr_power: ``m' = m + g^2``;
    ``linear += g - (m'^p - m^p) / lr * param``;
    ``param = (sign(linear) * l1 - linear) / (m'^p / lr + 2 * l2)`` where ``|linear| > l1``, else 0;
    ``m = m'`` (``moments`` start at ``initial_accum``)."""

    @opt_init_args_register
    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"FTRL: dynamic and group learning rates are not supported, got dynamic learning rate "
                             f"{self.dynamic_lr} and group learning rate {self.is_group_lr}")
        self.initial_accum = _float("FTRL", "initial_accum", initial_accum, 0.0)
        self.lr = _float("FTRL", "learning_rate", learning_rate, 0.0, True)
        self.lr_power = _float("FTRL", "lr_power", lr_power, None, False, 0.0)
        self.l1 = _float("FTRL", "l1", l1, 0.0)
        self.l2 = _float("FTRL", "l2", l2, 0.0)
        self.use_locking = _bool("FTRL", "use_locking", use_locking)
        if not self.is_group:  # MindSpore decays every parameter here (no 'beta'/'gamma' filter)
            self.decay_flags = tuple(True for _ in self.parameters)
            wd = _check_number("FTRL", "weight_decay", weight_decay, 0.0)
            self._wd = (wd,) * self.param_length
            self.exec_weight_decay = wd != 0.0
        self.moments = _filled_state(self, "moments", self.initial_accum)
        self.linear = self._clone_state("linear", "zeros")

    def construct(self, grads):
        grads, lrs = self._prepare_step(grads)
        power = -self.lr_power
        for p, m, lin, g, lr_i in zip(self.parameters, self.moments, self.linear, grads, lrs):
            old_pow = ops.pow(m, power)
            m_new = ops.add(m, ops.square(g))
            new_pow = ops.pow(m_new, power)
            sigma = ops.div(ops.sub(new_pow, old_pow), lr_i)
            linear = ops.assign(lin, ops.sub(ops.add(lin, g), ops.mul(sigma, p)))
            quadratic = ops.add(ops.div(new_pow, lr_i), 2.0 * self.l2)
            shrunk = ops.div(ops.sub(ops.mul(ops.sign(linear), self.l1), linear), quadratic)
            ops.assign(p, ops.select(ops.greater(ops.abs(linear), self.l1), shrunk, ops.zeros_like(p)))
            ops.assign(m, m_new)
        return True


class ProximalAdagrad(Optimizer):
    """Proximal Adagrad (MindSpore ApplyProximalAdagrad). With g = grad / loss_scale +
    weight_decay * param: ``accum += g^2`` (starting at ``accum``);
    ``prox = param - lr * g / sqrt(accum)``;
    ``param = sign(prox) / (1 + lr * l2) * max(|prox| - lr * l1, 0)``."""

    @opt_init_args_register
    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        initial = _float("ProximalAdagrad", "accum", accum, 0.0)
        self.l1 = _float("ProximalAdagrad", "l1", l1, 0.0)
        self.l2 = _float("ProximalAdagrad", "l2", l2, 0.0)
        self.use_locking = _bool("ProximalAdagrad", "use_locking", use_locking)
        self.accum = _filled_state(self, "accum", initial)

    def construct(self, grads):
        grads, lrs = self._prepare_step(grads)
        for p, acc, g, lr_i in zip(self.parameters, self.accum, grads, lrs):
            a = ops.assign(acc, ops.add(acc, ops.square(g)))
            prox = ops.sub(p, ops.div(ops.mul(g, lr_i), ops.sqrt(a)))
            shrunk = ops.maximum(ops.sub(ops.abs(prox), ops.mul(lr_i, self.l1)), 0.0)
            scale = ops.div(ops.sign(prox), ops.add(ops.mul(lr_i, self.l2), 1.0))
            ops.assign(p, ops.mul(scale, shrunk))
        return True


class LazyAdam(Adam):
    """MindSpore's ``nn.LazyAdam``: on dense gradients (the only kind here) it is Adam
    (ApplyAdam: bias correction in the learning rate, ``use_nesterov``); the "lazy" sparse update
    applies to RowTensor gradients, which this framework does not produce."""

    @opt_init_args_register
    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        for name, v in (("beta1", beta1), ("beta2", beta2), ("eps", eps), ("weight_decay", weight_decay)):
            if not isinstance(v, float):
                raise TypeError(f"LazyAdam: {name} must be a float, got {type(v).__name__} {v!r}")
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)


class _DefaultLarsFilter:
    """MindSpore's default ``lars_filter``: LARS for parameters whose names hold neither
    'LayerNorm' nor 'bias'. A class (not a function) so its repr, shown in signatures, is stable."""

    def __call__(self, x):
        return "LayerNorm" not in x.name and "bias" not in x.name

    def __repr__(self):
        return "lambda x: 'LayerNorm' not in x.name and 'bias' not in x.name"


_default_lars_filter = _DefaultLarsFilter()


class LARS(Optimizer):
    """Layer-wise adaptive rate scaling around another optimizer (MindSpore ``nn.LARS`` with its
    LARSUpdate). For each parameter the filter selects, with g = grad / loss_scale and
    ``wd`` the wrapped optimizer's weight decay for it (taken over from it: the wrapped optimizer
    then decays and unscales nothing):
    ``ratio = coefficient * ||w|| / (||g|| + wd * ||w|| + epsilon)`` (1 where ``||w||`` or
    ``||g||`` is 0), with ``use_clip`` ``ratio = min(ratio / lr, 1)`` (lr: the wrapped
    optimizer's current learning rate); ``g = ratio * (g + wd * w)``. The wrapped optimizer then
    steps with these gradients. Parameters the filter leaves out pass ``g`` unchanged."""

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=_default_lars_filter):
        # no base-class state of its own: the wrapped optimizer owns the parameters, learning rate
        # and step count (a second "global_step" Parameter would clash by name with its one)
        Cell.__init__(self, auto_prefix=False)
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"LARS: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        self.epsilon = _float("LARS", "epsilon", epsilon)
        self.coefficient = _float("LARS", "coefficient", coefficient)
        self.use_clip = _bool("LARS", "use_clip", use_clip)
        self.opt = optimizer
        self.parameters = optimizer.parameters
        self._parameters = self.parameters
        self.param_length = optimizer.param_length
        self.global_step = optimizer.global_step
        self.learning_rate = optimizer.learning_rate
        self.is_group, self.is_group_lr = optimizer.is_group, optimizer.is_group_lr
        self.dynamic_lr = optimizer.dynamic_lr
        if use_clip and self.is_group_lr and self.dynamic_lr:
            raise ValueError("LARS: a grouped dynamic learning rate is not supported for the wrapped optimizer")
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self.parameters)
        self.decay_flags = optimizer.decay_flags
        self.loss_scale = optimizer.loss_scale
        self.need_scale, self.reciprocal_scale = optimizer.need_scale, optimizer.reciprocal_scale
        self._lars_wd = tuple(optimizer._wd)
        self.weight_decay = optimizer.weight_decay
        # the wrapped optimizer now sees gradients that are unscaled and decayed already
        optimizer._wd = (0.0,) * optimizer.param_length
        optimizer.weight_decay = tuple(0.0 for _ in optimizer._wd) if optimizer.is_group else 0.0
        optimizer.decay_flags = tuple(False for _ in optimizer.decay_flags)
        optimizer.exec_weight_decay = False
        optimizer.need_scale, optimizer.reciprocal_scale = False, 1.0

    def construct(self, gradients):
        opt = self.opt
        opt._check_grads(gradients)
        gradients = self.scale_grad(gradients)
        lrs = opt.param_lrs(opt.get_lr()) if self.use_clip else (None,) * self.param_length
        out = []
        for p, g, wd, use, lr_i in zip(self.parameters, gradients, self._lars_wd, self.lars_flag, lrs):
            if use:
                g = self._lars_update(p, g, wd, lr_i)
            out.append(g)
        return opt(tuple(out))

    def _lars_update(self, w, g, wd, lr):
        w_norm = ops.sqrt(ops.reduce_sum(ops.square(w)))
        g_norm = ops.sqrt(ops.reduce_sum(ops.square(g)))
        both = ops.logical_and(ops.greater(w_norm, 0.0), ops.greater(g_norm, 0.0))
        denom = ops.add(ops.add(g_norm, ops.mul(w_norm, wd)), self.epsilon)
        ratio = ops.select(both, ops.div(ops.mul(w_norm, self.coefficient), denom), ops.ones_like(w_norm))
        if self.use_clip:
            ratio = ops.minimum(ops.div(ratio, lr), 1.0)
        if wd != 0.0:
            g = ops.add(g, ops.mul(w, wd))
        return ops.mul(g, ratio)


class AdaFactor(Optimizer):
    """Adafactor (MindSpore ``nn.AdaFactor``): second moments kept factored (a row and a column
    running mean of ``g^2 + eps[0]``) for parameters of rank >= 2, whole for the others.
    With step t (its own counter, ``afactor_step``) and ``beta2t = 1 - t^(-decay_rate)``:
    the learning rate is ``min(1e-2 or 1e-6 * t with warmup_init, 1 / sqrt(t))`` with
    ``relative_step``, else ``learning_rate``; ``scale_parameter`` multiplies it by
    ``max(eps[1], rms(param))``. ``u = g / sqrt(v_hat)`` (``v_hat = row * col / mean(row)``
    factored), ``u = u / max(1, rms(u) / clip_threshold) * lr``; with ``beta1`` > 0 the update
    is the running mean ``m = beta1 * m + (1 - beta1) * u``; ``weight_decay`` decays
    ``param -= weight_decay * lr * param`` (every parameter); then ``param -= update``. As in
    MindSpore, gradients are used as given: ``loss_scale`` is only validated."""

    @opt_init_args_register
    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8,
                 beta1=0.9, weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False,
                 compression=False, loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("AdaFactor: a learning_rate cannot be combined with relative_step=True")
        if warmup_init and not relative_step:
            raise ValueError("AdaFactor: warmup_init needs relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("AdaFactor: learning_rate is None and relative_step=False; give one of them")
        # a number learning rate may be rescaled (relative step, parameter scale); a schedule may not
        scale_lr = learning_rate is None or (isinstance(learning_rate, numbers.Real)
                                             and not isinstance(learning_rate, bool))
        super().__init__(0.0 if learning_rate is None else learning_rate, params, 0.0, loss_scale)
        self.scale_lr = scale_lr
        if not isinstance(eps, (list, tuple)) or len(eps) != 2:
            raise ValueError(f"AdaFactor: eps must hold 2 values (eps1, eps2), got {eps!r}")
        self.eps = tuple(_float("AdaFactor", f"eps{i}", e, 0.0) for i, e in enumerate(eps))
        self.clip_threshold = _float("AdaFactor", "clip_threshold", clip_threshold, 0.0)
        self.decay_rate = _float("AdaFactor", "decay_rate", decay_rate, 0.0, True, 1.0, True)
        self.weight_decay = _check_number("AdaFactor", "weight_decay", weight_decay, 0.0, False, 1.0, True)
        for name, v in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                        ("warmup_init", warmup_init), ("compression", compression)):
            _bool("AdaFactor", name, v)
        self.beta1 = _check_number("AdaFactor", "beta1", 0.0 if beta1 is None else beta1, 0.0)
        self.scale_parameter = scale_parameter and self.scale_lr
        self.relative_step, self.warmup_init, self.compression = relative_step, warmup_init, compression
        self.use_first_moment = self.beta1 > 0
        self.exp_avg = self._clone_state("exp_avg", "zeros") if self.use_first_moment else None
        rows, cols, whole = [], [], []
        for p in self.parameters:
            shape = tuple(p.shape)
            factored = len(shape) > 1
            rows.append(self._zeros(f"exp_avg_sq_row_{p.name}", shape[:-1] if factored else (1,), p))
            cols.append(self._zeros(f"exp_avg_sq_col_{p.name}", shape[:-2] + shape[-1:] if factored else (1,), p))
            whole.append(self._zeros(f"exp_avg_sq_{p.name}", (1,) if factored else shape, p))
        self.exp_avg_sq_row, self.exp_avg_sq_col = ParameterTuple(rows), ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(whole)
        self.step = self._scalar_state("afactor_step", [0.0])

    def _zeros(self, name, shape, like):
        p = Parameter(Tensor(np.zeros(shape, like.dtype.np)), name=name, requires_grad=False)
        self._register_state(p)
        return p

    @staticmethod
    def _rms(x):
        return ops.sqrt(ops.reduce_mean(ops.square(x)))

    def construct(self, gradients):
        self._check_grads(gradients)
        lrs = self.param_lrs(self.get_lr())
        self._increase_step()
        step = ops.reshape(ops.assign(self.step, ops.add(self.step, 1.0)), ())
        if self.scale_lr and self.relative_step:
            min_step = ops.mul(step, 1e-6) if self.warmup_init else 1e-2
            lrs = (ops.minimum(ops.rsqrt(step), min_step),) * self.param_length
        beta2t = ops.sub(1.0, ops.pow(step, -self.decay_rate))
        eps1, eps2 = self.eps
        first = self.exp_avg if self.use_first_moment else (None,) * self.param_length
        for p, g, lr_i, m, row, col, whole in zip(self.parameters, gradients, lrs, first, self.exp_avg_sq_row,
                                                  self.exp_avg_sq_col, self.exp_avg_sq):
            lr_p = ops.mul(lr_i, ops.maximum(self._rms(p), eps2)) if self.scale_parameter else lr_i
            sq = ops.add(ops.square(g), eps1)
            if p.ndim > 1:
                r = ops.assign(row, ops.add(ops.mul(row, beta2t),
                                            ops.mul(ops.reduce_mean(sq, -1), ops.sub(1.0, beta2t))))
                c = ops.assign(col, ops.add(ops.mul(col, beta2t),
                                            ops.mul(ops.reduce_mean(sq, -2), ops.sub(1.0, beta2t))))
                r_factor = ops.rsqrt(ops.div(r, ops.reduce_mean(r, -1, True)))
                c_factor = ops.rsqrt(c)
                update = ops.mul(ops.mul(ops.expand_dims(r_factor, -1), ops.expand_dims(c_factor, -2)), g)
            else:
                v = ops.assign(whole, ops.add(ops.mul(whole, beta2t), ops.mul(sq, ops.sub(1.0, beta2t))))
                update = ops.mul(ops.rsqrt(v), g)
            clip = ops.maximum(ops.div(self._rms(update), self.clip_threshold), 1.0)
            update = ops.mul(ops.div(update, clip), lr_p)
            if m is not None:
                update = ops.assign(m, ops.add(ops.mul(m, self.beta1), ops.mul(update, 1.0 - self.beta1)))
            value = p
            if self.weight_decay:
                value = ops.sub(p, ops.mul(ops.mul(p, self.weight_decay), lr_p))
            ops.assign(p, ops.sub(value, update))
        return True
