"""More of MindSpore 2.x's random functions (``ops.bernoulli``, ``ops.multinomial``, ``ops.random_categorical``,
``ops.shuffle``, ``ops.randperm``, ``ops.laplace``, ``ops.standard_laplace``), drawn from the registry's one
random stream (``ms.set_seed``): uniforms from ``uniform_real`` turned into the wanted distribution by
registry ops (a comparison for Bernoulli, Gumbel noise for categorical draws, an inverse CDF for Laplace,
an argsort of uniforms for permutations). ``seed`` arguments are accepted and validated, as the other random
functions here do (``ops.randn``).

Example:
    >>> import runtime as ms
    >>> from runtime import ops, Tensor
    >>> ms.set_seed(1)
    >>> ops.bernoulli(Tensor([0.0, 0.0, 0.0]), p=1.0).asnumpy().tolist()
    [1.0, 1.0, 1.0]
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import as_dtype, float32, int32, int64
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike


_R = REGISTRY

__all__ = ["bernoulli", "multinomial", "random_categorical", "shuffle", "randperm", "laplace", "standard_laplace"]


def _check_seed(seed, fn):
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"ops.{fn}: seed must be an int or None, got {seed!r}")


def _uniform(shape, dtype=float32):
    return bind(_R["uniform_real"], shape=tuple(int(s) for s in shape), dtype=as_dtype(dtype))


def _tensor(x, fn, name="input"):
    if not is_tensorlike(x) or isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"ops.{fn}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def bernoulli(input, p=0.5, seed=None):  # noqa: A002 - MindSpore's names
    """``ops.bernoulli(input, p=0.5, seed=None)``: a tensor of ``input``'s shape and dtype holding 1 with
    probability ``p`` (a float, or a Tensor broadcast to ``input``), else 0."""
    _tensor(input, "bernoulli")
    _check_seed(seed, "bernoulli")
    if not is_tensorlike(p) and not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"ops.bernoulli: p must be in [0, 1], got {p}")
    u = _uniform(input.shape, float32 if not (is_tensorlike(p) and p.dtype.is_float) else p.dtype)
    hit = bind(_R["less"], u, p)
    return bind(_R["cast"], bind(_R["broadcast_to"], hit, shape=tuple(input.shape)), dtype=input.dtype)


def _gumbel(shape, dtype):
    tiny = float(np.finfo(dtype.np).tiny)
    u = _uniform(shape, dtype)
    return bind(_R["neg"], bind(_R["log"], bind(_R["neg"], bind(_R["log"], bind(_R["add"], u, tiny)))))


def multinomial(input, num_samples, replacement=True, seed=None):  # noqa: A002
    """``ops.multinomial(input, num_samples, replacement=True, seed=None)``: ``num_samples`` int32 category
    indices per row of the 1-D or 2-D non-negative weights ``input`` (normalised per row). Without
    replacement each row's draws are distinct (``num_samples`` must not exceed the categories)."""
    _tensor(input, "multinomial")
    _check_seed(seed, "multinomial")
    if input.ndim not in (1, 2):
        raise ValueError(f"ops.multinomial: input must be 1-D or 2-D, got shape {tuple(input.shape)}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) or num_samples < 1:
        raise ValueError(f"ops.multinomial: num_samples must be a positive int, got {num_samples!r}")
    n = int(input.shape[-1])
    if not replacement and num_samples > n:
        raise ValueError(f"ops.multinomial: without replacement num_samples ({num_samples}) must not exceed the "
                         f"number of categories ({n})")
    w = input if input.ndim == 2 else bind(_R["reshape"], input, shape=(1, n))
    w = w if w.dtype.is_float else bind(_R["cast"], w, dtype=float32)
    rows = int(w.shape[0])
    if replacement:
        # inverse CDF: the number of cumulative weights at or below u * total
        cdf = bind(_R["cumsum"], w, axis=1)
        total = bind(_R["reduce_sum"], w, axis=(1,), keep_dims=True)
        u = bind(_R["mul"], _uniform((rows, int(num_samples)), w.dtype), total)       # (rows, S)
        below = bind(_R["less_equal"], bind(_R["expand_dims"], cdf, axis=1), bind(_R["expand_dims"], u, axis=2))
        idx = bind(_R["reduce_sum"], bind(_R["cast"], below, dtype=int32), axis=(2,), keep_dims=False)
        idx = bind(_R["minimum"], idx, n - 1)
    else:
        # Gumbel top-k: the k largest of log(w) + Gumbel noise are a draw without replacement
        keys = bind(_R["add"], bind(_R["log"], w), _gumbel((rows, n), w.dtype))
        _, order = bind(_R["sort"], keys, axis=1, descending=True)
        idx = bind(_R["cast"], bind(_R["slice"], order, begin=(0, 0), size=(rows, int(num_samples))), dtype=int32)
    return idx if input.ndim == 2 else bind(_R["reshape"], idx, shape=(int(num_samples),))


def random_categorical(logits, num_sample, seed=0, dtype=int64):
    """``ops.random_categorical(logits, num_sample, seed=0, dtype=mstype.int64)``: ``num_sample`` draws per row
    of the (batch, classes) unnormalised log-probabilities ``logits`` (Gumbel-max), shape (batch, num_sample)."""
    _tensor(logits, "random_categorical", "logits")
    _check_seed(seed, "random_categorical")
    if logits.ndim != 2:
        raise ValueError(f"ops.random_categorical: logits must be 2-D, got shape {tuple(logits.shape)}")
    b, c = (int(s) for s in logits.shape)
    lf = logits if logits.dtype.is_float else bind(_R["cast"], logits, dtype=float32)
    keys = bind(_R["add"], bind(_R["expand_dims"], lf, axis=1), _gumbel((b, int(num_sample), c), lf.dtype))
    return bind(_R["cast"], bind(_R["argmax"], keys, axis=2, keep_dims=False), dtype=as_dtype(dtype))


def _permutation(n):
    _, order = bind(_R["sort"], _uniform((n,)), axis=0, descending=False)
    return order


def shuffle(x, seed=None):
    """``ops.shuffle(x, seed=None)``: ``x`` with its first axis randomly permuted."""
    _tensor(x, "shuffle", "x")
    _check_seed(seed, "shuffle")
    if not x.ndim:
        return x
    return bind(_R["gather"], x, _permutation(int(x.shape[0])), axis=0)


def randperm(n, seed=0, offset=0, dtype=int64):
    """``ops.randperm(n, seed=0, offset=0, dtype=mstype.int64)``: a random permutation of ``0..n-1``."""
    if is_tensorlike(n):
        n = int(np.asarray(n.asnumpy()).reshape(-1)[0])
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"ops.randperm: n must be a non-negative int, got {n!r}")
    _check_seed(seed, "randperm")
    return bind(_R["cast"], _permutation(int(n)), dtype=as_dtype(dtype))


def _laplace_from(u, mean, scale):
    """Inverse CDF of Laplace(mean, scale) at u - 1/2 in (-1/2, 1/2): mean - scale sign(v) log(1 - 2|v|)."""
    v = bind(_R["sub"], u, 0.5)
    mag = bind(_R["log1p"], bind(_R["mul"], bind(_R["abs"], v), -2.0))
    return bind(_R["sub"], mean, bind(_R["mul"], bind(_R["mul"], bind(_R["sign"], v), mag), scale))


def laplace(shape, mean, lambda_param, seed=None):
    """``ops.laplace(shape, mean, lambda_param, seed=None)``: samples of the Laplace distribution with location
    ``mean`` and scale ``lambda_param`` (float32 Tensors broadcast with ``shape``)."""
    _check_seed(seed, "laplace")
    shape = tuple(int(s) for s in shape)
    mean_ = mean if is_tensorlike(mean) else float(mean)
    lam = lambda_param if is_tensorlike(lambda_param) else float(lambda_param)
    out_shape = np.broadcast_shapes(shape, tuple(getattr(mean, "shape", ())), tuple(getattr(lambda_param, "shape", ())))
    return _laplace_from(_uniform(out_shape), mean_, lam)


def standard_laplace(shape, seed=0, seed2=0):
    """``ops.standard_laplace(shape, seed=0, seed2=0)``: float32 samples of Laplace(0, 1)."""
    _check_seed(seed, "standard_laplace")
    _check_seed(seed2, "standard_laplace")
    return _laplace_from(_uniform(tuple(int(s) for s in shape)), 0.0, 1.0)


# -- gamma draws ----------------------------------------------------------------------------------------------------
_GAMMA_PROPOSALS = 12  # Marsaglia-Tsang accepts a proposal with probability >= 0.95: all 12 fail with p < 1e-15


def _standard_gamma(alpha, shape):
    """Gamma(alpha, 1) samples of ``shape`` (``alpha`` broadcast to it): Marsaglia and Tsang's method on
    ``_GAMMA_PROPOSALS`` proposals per sample at once, the first accepted one kept; ``alpha < 1`` is drawn as
    ``Gamma(alpha + 1) * U ** (1 / alpha)``."""
    dt = alpha.dtype
    a = bind(_R["broadcast_to"], alpha, shape=shape)
    small = bind(_R["less"], a, 1.0)
    boosted = bind(_R["where"], small, bind(_R["add"], a, 1.0), a)
    d = bind(_R["sub"], boosted, 1.0 / 3.0)
    c = bind(_R["div"], 1.0, bind(_R["sqrt"], bind(_R["mul"], d, 9.0)))
    proposals = (_GAMMA_PROPOSALS,) + tuple(shape)
    z = bind(_R["standard_normal"], shape=proposals, dtype=dt)
    u = bind(_R["add"], _uniform(proposals, dt), float(np.finfo(dt.np).tiny))
    v = bind(_R["pow"], bind(_R["add"], bind(_R["mul"], c, z), 1.0), 3.0)
    positive = bind(_R["greater"], v, 0.0)
    v_safe = bind(_R["where"], positive, v, bind(_R["ones_like"], v))
    bound = bind(_R["add"], bind(_R["mul"], bind(_R["square"], z), 0.5),
                 bind(_R["mul"], d, bind(_R["add"], bind(_R["sub"], 1.0, v_safe), bind(_R["log"], v_safe))))
    accept = bind(_R["logical_and"], positive, bind(_R["less"], bind(_R["log"], u), bound))
    first = bind(_R["argmax"], bind(_R["cast"], accept, dtype=as_dtype("int32")), axis=0, keep_dims=True)
    chosen = bind(_R["gather_elements"], bind(_R["mul"], d, v_safe), bind(_R["cast"], first, dtype=int32), dim=0)
    sample = bind(_R["reshape"], chosen, shape=tuple(shape))
    boost = bind(_R["pow"], bind(_R["add"], _uniform(shape, dt), float(np.finfo(dt.np).tiny)),
                 bind(_R["div"], 1.0, a))
    return bind(_R["where"], small, bind(_R["mul"], sample, boost), sample)


def _shape_of(shape, fn):
    if is_tensorlike(shape):
        shape = np.asarray(shape.asnumpy()).reshape(-1).tolist()
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"ops.{fn}: shape must hold non-negative ints, got {shape}")
    return shape


def random_gamma(shape, alpha, seed=None):
    """``ops.random_gamma(shape, alpha, seed=None)``: Gamma(alpha, 1) samples of shape ``shape + alpha.shape``
    (``shape`` a tuple or a 1-D int Tensor), in ``alpha``'s dtype."""
    _tensor(alpha, "random_gamma", "alpha")
    _check_seed(seed, "random_gamma")
    if not alpha.dtype.is_float:
        raise TypeError(f"ops.random_gamma: alpha must be a float Tensor, got {alpha.dtype}")
    out = _shape_of(shape, "random_gamma") + tuple(int(s) for s in alpha.shape)
    return _standard_gamma(alpha, out)


def gamma(shape, alpha, beta, seed=None):
    """``ops.gamma(shape, alpha, beta, seed=None)``: Gamma samples with shape ``alpha`` and scale ``beta`` (the
    density ``x^(alpha-1) exp(-x / beta) / (beta^alpha Gamma(alpha))`` of MindSpore's Gamma kernel), of the
    broadcast shape of ``shape``, ``alpha`` and ``beta``."""
    _tensor(alpha, "gamma", "alpha")
    _tensor(beta, "gamma", "beta")
    _check_seed(seed, "gamma")
    out = tuple(np.broadcast_shapes(_shape_of(shape, "gamma"), tuple(alpha.shape), tuple(beta.shape)))
    return bind(_R["mul"], _standard_gamma(alpha, out), beta)


__all__ += ["random_gamma", "gamma"]
