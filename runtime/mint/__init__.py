"""``mindspore.mint`` (MindSpore 2.3+): the PyTorch-style function spellings, as thin wrappers.

Every function here only translates mint's argument names, defaults and order (``input``, ``other``,
``dim``, ``keepdim``, ``dtype`` keyword-only, torch's ``flatten(start_dim=0)`` ...) to the existing
``runtime.ops`` functions; no op's arithmetic is written here (DESIGN.md: one op is defined once, in the
registry). They work in PyNative and under ``ms.jit`` exactly as the ``ops`` function they call.
``out=`` (torch's output argument) does not exist in mint either and is not accepted.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime import mint
    >>> x = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    >>> print(mint.sum(x, dim=1, keepdim=True))
    [[3.]
     [7.]]
"""
from __future__ import annotations

import inspect as _inspect

import numpy as _np

from .. import ops as _ops
from . import linalg, nn, optim, special
from ._selection import index_add, scatter_add, unique, unique_consecutive
from .nn.functional import log_softmax, sigmoid, softmax, tanh

__all__ = [
    # element-wise arithmetic and comparison
    "add", "sub", "mul", "div", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "pow", "square", "clamp",
    "maximum", "minimum", "where", "eq", "ne", "gt", "ge", "lt", "le", "logical_and", "logical_or",
    "logical_not", "sin", "cos", "floor", "ceil", "round", "sign", "erf", "isclose", "allclose",
    "sigmoid", "tanh", "softmax", "log_softmax", "tan", "sinh", "cosh", "asin", "acos", "atan", "atan2",
    "log1p", "expm1", "log2", "log10", "reciprocal", "remainder", "fmod", "trunc", "frac", "erfinv",
    "logaddexp", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor", "isfinite", "isinf", "isnan",
    "nan_to_num", "masked_fill", "greater", "greater_equal", "less", "less_equal", "negative", "divide",
    "arctan2", "acosh", "asinh", "atanh", "arccos", "arcsin", "arctan", "arccosh", "arcsinh", "arctanh", "erfc",
    "xlogy", "sinc", "exp2", "hypot", "fix", "addcmul", "addcdiv", "lerp", "logaddexp2",
    # reductions
    "sum", "mean", "max", "min", "argmax", "argmin", "prod", "cumsum", "any", "all", "amax", "amin",
    "logsumexp", "std", "var", "median", "cummax", "count_nonzero", "cumprod", "cummin", "nansum", "std_mean",
    "var_mean", "unique", "unique_consecutive", "histc",
    # linear algebra
    "matmul", "bmm", "mm", "norm", "outer", "einsum", "baddbmm", "addmm", "trace", "cross", "cdist", "mv", "dot",
    "addbmm", "inverse", "kron", "diag", "diagonal",
    # shapes and indexing
    "cat", "stack", "split", "chunk", "reshape", "permute", "transpose", "flatten", "squeeze", "unsqueeze",
    "gather", "index_select", "masked_select", "topk", "sort", "repeat_interleave", "tile", "broadcast_to",
    "flip", "tril", "triu", "nonzero", "narrow", "roll", "argsort", "scatter", "searchsorted", "meshgrid",
    "diff", "bincount", "scatter_add", "index_add", "concat", "swapaxes", "t", "unbind", "select", "clone",
    "movedim", "moveaxis", "hstack", "vstack", "rot90", "cartesian_prod", "bucketize", "tril_indices",
    "triu_indices",
    # creation
    "zeros", "ones", "full", "arange", "linspace", "eye", "zeros_like", "ones_like", "full_like",
    "rand", "randn", "rand_like", "randn_like", "normal", "randint", "randint_like", "randperm", "bernoulli",
    "empty", "empty_like",
    # submodules
    "nn", "optim", "linalg", "special",
]


def _no_alpha(name, alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"mint.{name}: alpha must be a number, got {type(alpha).__name__} {alpha!r}")


# ---- element-wise -----------------------------------------------------------------------------------

def add(input, other, *, alpha=1):
    """``input + alpha * other`` (mint.add)."""
    _no_alpha("add", alpha)
    return _ops.add(input, other if alpha == 1 else _ops.mul(other, alpha))


def sub(input, other, *, alpha=1):
    """``input - alpha * other`` (mint.sub)."""
    _no_alpha("sub", alpha)
    return _ops.sub(input, other if alpha == 1 else _ops.mul(other, alpha))


def mul(input, other):
    """``input * other`` (mint.mul)."""
    return _ops.mul(input, other)


def div(input, other, *, rounding_mode=None):
    """``input / other``; ``rounding_mode`` None, ``'floor'`` or ``'trunc'`` as torch (mint.div)."""
    return _ops.div(input, other, rounding_mode=rounding_mode)


def neg(input):
    return _ops.neg(input)


def abs(input):
    return _ops.abs(input)


def exp(input):
    return _ops.exp(input)


def log(input):
    return _ops.log(input)


def sqrt(input):
    return _ops.sqrt(input)


def rsqrt(input):
    return _ops.rsqrt(input)


def square(input):
    return _ops.square(input)


def sin(input):
    return _ops.sin(input)


def cos(input):
    return _ops.cos(input)


def floor(input):
    return _ops.floor(input)


def ceil(input):
    return _ops.ceil(input)


def round(input):
    """Half to even, as torch.round / mint.round."""
    return _ops.round(input)


def sign(input):
    return _ops.sign(input)


def erf(input):
    return _ops.erf(input)


def pow(input, exponent):
    return _ops.pow(input, exponent)


def clamp(input, min=None, max=None):
    """Clip to ``[min, max]`` (either may be None, not both) (mint.clamp)."""
    if min is None and max is None:
        raise ValueError("mint.clamp: at least one of min and max must be given")
    return _ops.clamp(input, min, max)


def maximum(input, other):
    return _ops.maximum(input, other)


def minimum(input, other):
    return _ops.minimum(input, other)


def where(condition, input, other):
    return _ops.where(condition, input, other)


def eq(input, other):
    return _ops.equal(input, other)


def ne(input, other):
    return _ops.ne(input, other)


def gt(input, other):
    return _ops.gt(input, other)


def ge(input, other):
    return _ops.ge(input, other)


def lt(input, other):
    return _ops.lt(input, other)


def le(input, other):
    return _ops.le(input, other)


def logical_and(input, other):
    return _ops.logical_and(input, other)


def logical_or(input, other):
    return _ops.logical_or(input, other)


def logical_not(input):
    return _ops.logical_not(input)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _ops.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Python bool: every element of ``isclose`` holds (mint.allclose). Reads the value, so under
    ``jit`` it is a graph break, as any Python bool of a tensor."""
    return bool(_ops.all(isclose(input, other, rtol, atol, equal_nan)))


# ---- reductions -------------------------------------------------------------------------------------

def _cast(x, dtype):
    return x if dtype is None else _ops.cast(x, dtype)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    return _ops.sum(input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    return _ops.mean(_cast(input, dtype), dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    return _ops.prod(input, dim, keepdim, dtype)


def _extreme(name, value_fn, pair_fn, input, dim, keepdim):
    if dim is None:
        if keepdim:
            raise ValueError(f"mint.{name}: keepdim must be False when dim is None")
        return value_fn(input)
    return pair_fn(input, dim, keepdim)


def max(input, dim=None, keepdim=False):
    """The largest element (``dim=None``), or ``(values, indices)`` along ``dim`` (mint.max)."""
    return _extreme("max", _ops.amax, _ops.max, input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """The smallest element (``dim=None``), or ``(values, indices)`` along ``dim`` (mint.min)."""
    return _extreme("min", _ops.amin, _ops.min, input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return _ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return _ops.argmin(input, dim, keepdim)


def cumsum(input, dim, dtype=None):
    return _ops.cumsum(input, dim, dtype)


def any(input, dim=None, keepdim=False):
    return _ops.any(input, dim, keepdim)


def all(input, dim=None, keepdim=False):
    return _ops.all(input, dim, keepdim)


# ---- linear algebra ---------------------------------------------------------------------------------

def matmul(input, other):
    return _ops.matmul(input, other)


def bmm(input, mat2):
    return _ops.bmm(input, mat2)


# ---- shapes and indexing ----------------------------------------------------------------------------

def cat(tensors, dim=0):
    return _ops.cat(tensors, dim)


def stack(tensors, dim=0):
    return _ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return _ops.chunk(input, chunks, dim)


def reshape(input, shape):
    return _ops.reshape(input, shape)


def permute(input, dims):
    return _ops.permute(input, dims)


def transpose(input, dim0, dim1):
    """Swap two dimensions (torch's transpose; ``ops.transpose`` takes a permutation)."""
    return _ops.swapaxes(input, dim0, dim1)


def flatten(input, start_dim=0, end_dim=-1):
    """Note the default ``start_dim=0`` (torch/mint), unlike ``ops.flatten``'s 1."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def squeeze(input, dim=None):
    return _ops.squeeze(input, dim)


def unsqueeze(input, dim):
    return _ops.unsqueeze(input, dim)


def gather(input, dim, index):
    """torch's gather: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (``ops.gather_elements``)."""
    return _ops.gather_elements(input, dim, index)


def index_select(input, dim, index):
    return _ops.index_select(input, dim, index)


def masked_select(input, mask):
    return _ops.masked_select(input, mask)


def nonzero(input, *, as_tuple=False):
    return _ops.nonzero(input, as_tuple=as_tuple)


def topk(input, k, dim=-1, largest=True, sorted=True):
    return _ops.topk(input, k, dim, largest, sorted)


def sort(input, *, dim=-1, descending=False, stable=False):
    """``(values, indices)``; the sort here is always stable (``stable`` accepted)."""
    if not isinstance(stable, bool):
        raise TypeError(f"mint.sort: stable must be a bool, got {stable!r}")
    return _ops.sort(input, dim, descending)


def repeat_interleave(input, repeats, dim=None, output_size=None):
    """``output_size`` is accepted (it is only a hint in torch/mint)."""
    return _ops.repeat_interleave(input, repeats, dim)


def tile(input, dims):
    return _ops.tile(input, tuple(dims))


def broadcast_to(input, size):
    return _ops.broadcast_to(input, size)


def flip(input, dims):
    return _ops.flip(input, dims)


def tril(input, diagonal=0):
    return _ops.tril(input, diagonal)


def triu(input, diagonal=0):
    return _ops.triu(input, diagonal)


# ---- creation ---------------------------------------------------------------------------------------

def _size(size):
    return (size,) if isinstance(size, int) else tuple(size)


def zeros(size, *, dtype=None):
    return _ops.zeros(_size(size), dtype)


def ones(size, *, dtype=None):
    return _ops.ones(_size(size), dtype)


def full(size, fill_value, *, dtype=None):
    return _ops.full(_size(size), fill_value, dtype=dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    return _ops.arange(start, end, step, dtype=dtype)


def linspace(start, end, steps, *, dtype=None):
    return _ops.linspace(start, end, steps, dtype=dtype)


def eye(n, m=None, dtype=None):
    return _ops.eye(n, m, dtype)


def zeros_like(input, *, dtype=None):
    return _ops.zeros_like(input, dtype)


def ones_like(input, *, dtype=None):
    return _ops.ones_like(input, dtype)


def full_like(input, fill_value, *, dtype=None):
    return _ops.full_like(input, fill_value, dtype=dtype)


# ---- more element-wise functions whose ops spelling already is mint's (input[, other]) --------------

def _same(op_name):
    """``mint.<name>`` where ``ops.<name>`` already takes mint's ``(input[, other])`` arguments."""
    op = getattr(_ops, op_name)

    def wrapper(*args, **kwargs):
        return op(*args, **kwargs)
    wrapper.__name__ = wrapper.__qualname__ = op_name
    wrapper.__doc__ = f"mint.{op_name}: ``ops.{op_name}`` (same arguments)."
    wrapper.__signature__ = _inspect.signature(op)
    wrapper.__module__ = __name__
    return wrapper


for _name in ("tan", "sinh", "cosh", "asin", "acos", "atan", "atan2", "log1p", "expm1", "log2", "log10",
              "reciprocal", "remainder", "fmod", "trunc", "erfinv", "logaddexp", "bitwise_and", "bitwise_or",
              "bitwise_xor", "logical_xor", "isfinite", "isinf", "isnan", "nan_to_num", "mm", "outer", "einsum",
              "trace", "cdist", "bincount", "greater", "greater_equal", "less", "less_equal", "negative", "divide",
              "arctan2", "acosh", "asinh", "atanh", "arccos", "arcsin", "arctan", "arccosh", "arcsinh", "arctanh",
              "erfc", "xlogy", "sinc", "exp2", "hypot", "inverse", "lerp", "logaddexp2", "kron", "histc",
              "cartesian_prod"):
    globals()[_name] = _same(_name)
del _name


def frac(input):
    return _ops.frac(input)


def masked_fill(input, mask, value):
    return _ops.masked_fill(input, mask, value)


def amax(input, dim=(), keepdim=False):
    """Largest values over ``dim`` (``()``, the default, means every dimension, as torch)."""
    return _ops.amax(input, None if dim == () else dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return _ops.amin(input, None if dim == () else dim, keepdim)


def logsumexp(input, dim, keepdim=False):
    return _ops.logsumexp(input, dim, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):
    """Standard deviation with ``correction`` (Bessel's by default, as torch)."""
    return _ops.std(input, dim, correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    return _ops.var(input, dim, correction, keepdim)


def median(input, dim=None, keepdim=False):
    """The median of all elements (``dim=None``: a value), or ``(values, indices)`` along ``dim``;
    of an even count the lower middle value (as torch)."""
    if dim is None:
        if keepdim:
            raise ValueError("mint.median: keepdim must be False when dim is None")
        return _ops.median(_ops.reshape(input, (-1,)), 0)[0]
    return _ops.median(input, dim, keepdim)


def cummax(input, dim):
    return _ops.cummax(input, dim)


def count_nonzero(input, dim=None):
    from ..dtype import int64
    return _ops.count_nonzero(input, () if dim is None else dim, False, int64)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return _ops.baddbmm(input, batch1, batch2, beta, alpha)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return _ops.addmm(input, mat1, mat2, beta=beta, alpha=alpha)


def cross(input, other, dim=None):
    return _ops.cross(input, other, dim)


def narrow(input, dim, start, length):
    return _ops.narrow(input, dim, start, length)


def roll(input, shifts, dims=None):
    return _ops.roll(input, shifts, dims)


def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim`` (always a stable sort here)."""
    return _ops.argsort(input, dim, descending)


def scatter(input, dim, index, src):
    """torch's scatter: ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``."""
    return _ops.scatter(input, dim, index, src)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    if sorter is not None:
        raise ValueError("mint.searchsorted: sorter is not supported")
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"mint.searchsorted: side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError("mint.searchsorted: side='left' contradicts right=True")
        right = side == "right"
    return _ops.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right)


def meshgrid(*tensors, indexing=None):
    """``indexing`` defaults to ``'ij'`` (torch/mint), unlike ``ops.meshgrid``'s ``'xy'``."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return _ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    return _ops.diff(input, n, dim, prepend, append)


def rand(*size, generator=None, dtype=None):
    """U[0, 1) numbers from the global stream (``ms.set_seed``); ``generator`` is not supported."""
    _no_generator("rand", generator)
    return _ops.rand(*size, dtype=dtype)


def randn(*size, generator=None, dtype=None):
    _no_generator("randn", generator)
    return _ops.randn(*size, dtype=dtype)


def rand_like(input, *, dtype=None):
    return _ops.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None):
    return _ops.randn_like(input, dtype=dtype)


def _no_generator(name, generator):
    if generator is not None:
        raise ValueError(f"mint.{name}: generator is not supported (numbers come from ms.set_seed's stream)")


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """torch.norm: a number ``p`` is the vector p-norm over ``dim`` (every element when None, also for a
    pair of dims); ``'fro'`` the Frobenius norm (over every element, or the two dims given); ``'nuc'``
    the nuclear norm (``ops.matrix_norm`` decides whether it can)."""
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) == 1):
            return _ops.vector_norm(input, 2, dim, keepdim, dtype=dtype)
        if p not in ("fro", "nuc"):
            raise ValueError(f"mint.norm: p must be a number, 'fro' or 'nuc', got {p!r}")
        return _ops.matrix_norm(input, p, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return _ops.vector_norm(input, p, dim, keepdim, dtype=dtype)


# ---- the third group: torch spellings of existing ops -----------------------------------------------

def fix(input):
    """Round towards zero (torch's alias of ``trunc``)."""
    return _ops.trunc(input)


def cumprod(input, dim, dtype=None):
    return _ops.cumprod(input, dim, dtype)


def cummin(input, dim):
    """``(values, indices)``: the running minimum along ``dim`` and where it was found."""
    return _ops.cummin(input, dim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum with NaNs counted as zero."""
    return _ops.nansum(input, dim, keepdim, dtype=dtype)


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    """``(std, mean)`` over ``dim`` (every dimension when None); Bessel's correction by default."""
    return _ops.std_mean(input, dim, correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    """``(var, mean)`` over ``dim``; Bessel's correction by default."""
    return _ops.var_mean(input, dim, correction, keepdim)


def mv(input, vec):
    """Matrix ``(n, m)`` times vector ``(m,)``."""
    return _ops.mv(input, vec)


def dot(input, other):
    """The inner product of two 1-D tensors of the same length (torch.dot; ``ops.dot`` also takes
    higher ranks, which torch and mint refuse)."""
    if input.ndim != 1 or other.ndim != 1 or input.shape[0] != other.shape[0]:
        raise ValueError(f"mint.dot: expects two 1-D tensors of the same length, got shapes "
                         f"{tuple(input.shape)} and {tuple(other.shape)}")
    return _ops.dot(input, other)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``."""
    return _ops.addbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def concat(tensors, dim=0):
    """Alias of :func:`cat`."""
    return _ops.cat(tensors, dim)


def swapaxes(input, axis0, axis1):
    return _ops.swapaxes(input, axis0, axis1)


def t(input):
    """The transpose of a tensor of rank <= 2 (a 0-D or 1-D tensor is returned as it is)."""
    if input.ndim > 2:
        raise ValueError(f"mint.t: expects a tensor of rank <= 2, got shape {tuple(input.shape)}")
    return _ops.t(input) if input.ndim == 2 else input


def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of tensors one rank lower."""
    return _ops.unbind(input, dim)


def select(input, dim, index):
    """The slice ``index`` along ``dim`` (that dimension removed): ``input[:, ..., index]`` (torch.select)."""
    if isinstance(dim, bool) or not isinstance(dim, int) or isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"mint.select: dim and index must be ints, got {dim!r} and {index!r}")
    if not -input.ndim <= dim < input.ndim:
        raise ValueError(f"mint.select: dim {dim} is out of range for a tensor of rank {input.ndim}")
    dim %= input.ndim
    size = input.shape[dim]
    if not -size <= index < size:
        raise ValueError(f"mint.select: index {index} is out of range for dimension {dim} of size {size}")
    return input[(slice(None),) * dim + (index,)]


def clone(input):
    """A copy of ``input`` (differentiable: the gradient passes through)."""
    return _ops.identity(input)


def _randint_bounds(low, high):
    """torch's ``randint(high, size)`` form: a single bound is the (exclusive) high, low is 0."""
    return (0, low) if high is None else (low, high)


def normal(mean=0.0, std=1.0, size=None, *, generator=None):
    """Samples of N(``mean``, ``std``**2): of the broadcast shape of the tensors ``mean`` and ``std``,
    or of ``size`` when given (then both may be numbers)."""
    _no_generator("normal", generator)
    if size is None:
        shapes = [tuple(v.shape) for v in (mean, std) if hasattr(v, "shape")]
        if not shapes:
            raise ValueError("mint.normal: give size when mean and std are both numbers")
        size = _np.broadcast_shapes(*shapes)
    return _ops.normal(_size(size), mean, std)


def randint(low, high=None, size=None, *, generator=None, dtype=None):
    """Integers uniform in ``[low, high)`` of shape ``size``: ``randint(low, high, size)`` or
    ``randint(high, size)`` (low 0), as torch. int64 unless ``dtype`` is given."""
    _no_generator("randint", generator)
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=size)
        low, high = _randint_bounds(low, high)
    if size is None:
        raise TypeError("mint.randint: size is required: randint(low, high, size) or randint(high, size)")
    from ..dtype import int64
    return _ops.randint(low, high, _size(size), dtype=int64 if dtype is None else dtype)


def randint_like(input, low, high=None, *, generator=None, dtype=None):
    """As :func:`randint` with ``input``'s shape (and dtype unless ``dtype`` is given)."""
    _no_generator("randint_like", generator)
    low, high = _randint_bounds(low, high)
    return _ops.randint_like(input, low, high, dtype=dtype)


def randperm(n, *, generator=None, dtype=None):
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` is given)."""
    _no_generator("randperm", generator)
    from ..dtype import int64
    return _ops.randperm(n, dtype=int64 if dtype is None else dtype)


def bernoulli(input, *, generator=None):
    """1 with probability ``input`` (each element a probability in [0, 1]), else 0; ``input``'s dtype."""
    _no_generator("bernoulli", generator)
    return _ops.bernoulli(input, input)


def empty(*size, dtype=None):
    """A tensor of shape ``size`` whose contents are unspecified (here: zeros)."""
    if len(size) == 1 and not isinstance(size[0], int):
        size = tuple(size[0])
    return _ops.zeros(size, dtype)


def empty_like(input, *, dtype=None):
    return _ops.zeros_like(input, dtype)


# ---- the fourth group ---------------------------------------------------------------------------------

def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    return _ops.addcmul(input, tensor1, tensor2, value)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    return _ops.addcdiv(input, tensor1, tensor2, value)


def diag(input, diagonal=0):
    """torch.diag: a 1-D ``input`` becomes the ``diagonal``-th diagonal of a square matrix (above the
    main one for ``diagonal > 0``); of a 2-D ``input`` the ``diagonal``-th diagonal is returned."""
    if isinstance(diagonal, bool) or not isinstance(diagonal, int):
        raise TypeError(f"mint.diag: diagonal must be an int, got {diagonal!r}")
    if input.ndim == 2:
        return _ops.diagonal(input, diagonal, 0, 1)
    if input.ndim != 1:
        raise ValueError(f"mint.diag: expects a 1-D or 2-D tensor, got shape {tuple(input.shape)}")
    square = _ops.diag(input)
    if diagonal == 0:
        return square
    k = diagonal if diagonal > 0 else -diagonal  # shift the square into a corner of an (n + k)-square of zeros
    pads = (k, 0, 0, k) if diagonal > 0 else (0, k, k, 0)  # (left, right, top, bottom)
    return _ops.pad(square, pads)


def diagonal(input, offset=0, dim1=0, dim2=1):
    return _ops.diagonal(input, offset, dim1, dim2)


def movedim(input, source, destination):
    """Dimensions ``source`` (an int or a tuple) moved to ``destination``, the others keeping their order."""
    return _ops.movedim(input, source, destination)


def moveaxis(input, source, destination):
    """Alias of :func:`movedim`."""
    return _ops.movedim(input, source, destination)


def hstack(tensors):
    """Joined column-wise (1-D tensors end to end)."""
    return _ops.hstack(tensors)


def vstack(tensors):
    """Joined row-wise (1-D tensors become rows)."""
    return _ops.vstack(tensors)


def rot90(input, k=1, dims=(0, 1)):
    """Rotated by 90 degrees ``k`` times in the plane ``dims``, from the first towards the second."""
    return _ops.rot90(input, k, tuple(dims))


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """torch.bucketize: the index of each element's bucket among the sorted 1-D ``boundaries`` (int64,
    or int32 with ``out_int32``): ``boundaries[i-1] < x <= boundaries[i]``, or ``boundaries[i-1] <= x <
    boundaries[i]`` with ``right``. That is ``searchsorted(boundaries, input, right=right)``
    (``ops.bucketize``'s ``right`` has the opposite meaning, MindSpore's)."""
    if boundaries.ndim != 1:
        raise ValueError(f"mint.bucketize: boundaries must be 1-D, got shape {tuple(boundaries.shape)}")
    return _ops.searchsorted(boundaries, input, out_int32=out_int32, right=right)


def tril_indices(row, col, offset=0, *, dtype=None):
    """The ``(2, N)`` coordinates of the lower triangle of a ``row x col`` matrix (int64 by default)."""
    from ..dtype import int64
    return _ops.tril_indices(row, col, offset, dtype=int64 if dtype is None else dtype)


def triu_indices(row, col, offset=0, *, dtype=None):
    from ..dtype import int64
    return _ops.triu_indices(row, col, offset, dtype=int64 if dtype is None else dtype)
