"""Normalisation layers: BatchNorm1d, BatchNorm2d, LayerNorm (MindSpore 2.x semantics).

BatchNorm keeps ``moving_mean``/``moving_variance`` Parameters, updated in place with
``ops.assign`` while training (``moving = momentum * moving + (1 - momentum) * batch``; the batch
variance used there is the unbiased one), so graph capture sees explicit parameter updates.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> bn = nn.BatchNorm2d(3).set_train()
    >>> bn(ms.ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
"""
from __future__ import annotations

from graph.dtypes import float32

from ... import ops
from ...common.initializer import initializer
from ...parameter import Parameter
from ..cell import Cell
from .basic import _check_int

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm"]


def _check_float(cls_name, name, v, low, high, low_open=False, high_open=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{cls_name}: {name} must be a float, got {type(v).__name__} {v!r}")
    v = float(v)
    bad = (v < low or v > high or (low_open and v == low) or (high_open and v == high))
    if bad:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{cls_name}: {name} must be in {lo}{low}, {high}{hi}, got {v}")
    return v


class _BatchNorm(Cell):
    _name = "BatchNorm"
    _ranks = (2, 3, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=float32):
        super().__init__()
        n = self._name
        self.num_features = _check_int(n, "num_features", num_features)
        self.eps = _check_float(n, "eps", eps, 0.0, float("inf"), low_open=True)
        self.momentum = _check_float(n, "momentum", momentum, 0.0, 1.0)
        if not isinstance(affine, bool):
            raise TypeError(f"{n}: affine must be a bool, got {affine!r}")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise TypeError(f"{n}: use_batch_statistics must be None or a bool, got {use_batch_statistics!r}")
        if not isinstance(data_format, str) or data_format.upper() != "NCHW":
            raise ValueError(f"{n}: data_format must be 'NCHW', got {data_format!r}")
        self.affine = affine
        self.use_batch_statistics = use_batch_statistics
        c = (num_features,)
        self.moving_mean = Parameter(initializer(moving_mean_init, c, dtype), requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, c, dtype), requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), requires_grad=affine)
        self._keep = self.momentum          # weight of the old moving statistic
        self._take = 1.0 - self.momentum    # weight of the batch statistic
        self._bn_train = ops.BatchNorm(training=True, eps=self.eps)
        self._bn_infer = ops.BatchNorm(training=False, eps=self.eps)

    def construct(self, x):
        if x.ndim not in self._ranks:
            raise ValueError(f"{self._name}: expects an input of rank "
                             f"{' or '.join(map(str, self._ranks))} (N, C, ...), got shape {tuple(x.shape)}")
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if use_batch:
            y, mean, var = self._bn_train(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)
            ops.assign(self.moving_mean, ops.add(ops.mul(self.moving_mean, self._keep), ops.mul(mean, self._take)))
            ops.assign(self.moving_variance,
                       ops.add(ops.mul(self.moving_variance, self._keep), ops.mul(var, self._take)))
            return y
        return self._bn_infer(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma!r}, beta={self.beta!r}, moving_mean={self.moving_mean!r}, "
                f"moving_variance={self.moving_variance!r}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) inputs (statistics per channel C)."""

    _name = "BatchNorm1d"
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) inputs (statistics per channel C)."""

    _name = "BatchNorm2d"
    _ranks = (4,)


class LayerNorm(Cell):
    """Layer normalisation over axes ``begin_norm_axis..`` with gamma/beta of ``normalized_shape``.

    ``y = (x - mean) / sqrt(var + epsilon) * gamma + beta`` (biased variance).
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=float32):
        super().__init__()
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
            normalized_shape = (normalized_shape,)
        if not isinstance(normalized_shape, (tuple, list)) or not all(
                isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in normalized_shape):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list of positive ints, "
                            f"got {normalized_shape!r}")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = _check_int("LayerNorm", "begin_norm_axis", begin_norm_axis, minimum=-(1 << 30))
        self.begin_params_axis = _check_int("LayerNorm", "begin_params_axis", begin_params_axis,
                                            minimum=-(1 << 30))
        self.epsilon = _check_float("LayerNorm", "epsilon", epsilon, 0.0, float("inf"), low_open=True)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype))
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype))
        self._op = ops.LayerNorm(begin_norm_axis=self.begin_norm_axis, begin_params_axis=self.begin_params_axis,
                                 epsilon=self.epsilon)

    def construct(self, input_x):
        return self._op(input_x, self.gamma, self.beta)[0]

    def extend_repr(self):
        return (f"normalized_shape={list(self.normalized_shape)}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma!r}, beta={self.beta!r}")
