"""``nn.BatchNorm3d``, ``nn.InstanceNorm1d`` and ``nn.InstanceNorm3d`` (MindSpore 2.x).

BatchNorm3d is MindSpore's own construction: a ``BatchNorm2d`` child (``bn2d``, which holds the
gamma/beta and moving statistics) applied to the input reshaped from (N, C, D, H, W) to
(N, C, D * H, W) -- the per-channel statistics are the same. The instance norms normalise each
channel of each sample over its positions: ``ops.group_norm`` with one group per channel.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> bn = nn.BatchNorm3d(2).set_train()
    >>> bn(ms.ops.ones((2, 2, 3, 4, 4))).shape
    (2, 2, 3, 4, 4)
    >>> [p.name for p in bn.get_parameters()][:2]
    ['bn2d.moving_mean', 'bn2d.moving_variance']
"""
from __future__ import annotations

from graph.dtypes import float32

from ... import ops
from ..cell import Cell
from .basic import _check_bool, _check_int
from .normalization import BatchNorm2d
from .spatial import _affine_params

__all__ = ["BatchNorm3d", "InstanceNorm1d", "InstanceNorm3d"]


class BatchNorm3d(Cell):
    """Batch normalisation over (N, C, D, H, W) inputs (statistics per channel C), with
    ``BatchNorm2d``'s arguments and moving-statistics update."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, dtype=float32):
        super().__init__()
        self.num_features = _check_int("BatchNorm3d", "num_features", num_features)
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                moving_var_init, use_batch_statistics, dtype=dtype)

    def construct(self, input_x):
        shape = input_x.shape
        if len(shape) != 5:
            raise ValueError(f"BatchNorm3d: expects a 5-D input (N, C, D, H, W), got shape {tuple(shape)}")
        n, c, d, h, w = shape
        out = self.bn2d(ops.reshape(input_x, (n, c, d * h, w)))
        return ops.reshape(out, shape)


class _InstanceNorm(Cell):
    _name = "InstanceNorm"
    _rank = 3
    _layout = "(N, C, L)"

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=float32):
        super().__init__()
        n = self._name
        self.num_features = _check_int(n, "num_features", num_features)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps <= 0:
            raise ValueError(f"{n}: eps must be a float > 0, got {eps!r}")
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{n}: momentum must be a float in [0, 1], got {momentum!r}")
        self.eps, self.momentum = float(eps), float(momentum)
        self.affine = _check_bool(n, "affine", affine)
        self.gamma, self.beta = _affine_params(n, affine, num_features, gamma_init, beta_init, dtype)

    def construct(self, x):
        if x.ndim != self._rank or x.shape[1] != self.num_features:
            raise ValueError(f"{self._name}: expected input {self._layout.replace('C', str(self.num_features))}, "
                             f"got shape {tuple(x.shape)}")
        return ops.group_norm(x, self.num_features, self.gamma, self.beta, self.eps)  # a group per channel

    def extend_repr(self):
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}"


class InstanceNorm1d(_InstanceNorm):
    """Normalise each channel of each sample of (N, C, L) input over its L positions, then scale
    by gamma and shift by beta (per channel)."""

    _name = "InstanceNorm1d"


class InstanceNorm3d(_InstanceNorm):
    """Normalise each channel of each sample of (N, C, D, H, W) input over its D x H x W
    positions, then scale by gamma and shift by beta (per channel)."""

    _name = "InstanceNorm3d"
    _rank = 5
    _layout = "(N, C, D, H, W)"
