"""``runtime.ops``: the functional API (lower-case) and Primitive classes (CamelCase).

Everything here ends in the op registry (``graph.ops``): the generated functions and Primitives
map one-to-one onto registered ops, and the composites in ``composite.py`` are built from them.

Example:
    >>> from runtime import ops, Tensor
    >>> ops.add(Tensor([1.0]), Tensor([2.0]))
    Tensor(shape=[1], dtype=Float32, value=[3.])
    >>> ops.ReLU()(Tensor([-1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value=[0., 2.])
"""
import importlib as _importlib

from ._generated import FUNCTIONS as _FUNCTIONS, PRIMITIVES as _PRIMITIVES, Primitive  # noqa: F401

globals().update(_FUNCTIONS)
globals().update(_PRIMITIVES)

#: the modules whose public names (each one's ``__all__``) make up ``ops``, in this order: where two
#: define a name, the later one's wins (primitive_spellings' classes over the generated ones)
_MODULES = ("composite", "signatures", "random_func", "arrays", "nn_func", "math_func", "comm_ops", "clip_func",
            "compat_ops", "selection_func", "optimizer_prims", "primitive_spellings", "einsum", "volume_func",
            "loss_func", "math_more", "array_more", "activation_func", "random_more", "nn_more", "linalg_more",
            "image_func", "primitive_more", "pool_conv_primitives")
_public = set(_FUNCTIONS) | set(_PRIMITIVES)
for _name in _MODULES:
    _module = _importlib.import_module(f".{_name}", __name__)
    globals().update({n: getattr(_module, n) for n in _module.__all__})
    _public.update(_module.__all__)
del _name, _module

from ..autograd import GradOperation, grad, value_and_grad, get_grad  # noqa: E402,F401
from ..transforms import vjp, jvp, jacrev, jacfwd  # noqa: E402,F401
from ..vmap import vmap  # noqa: E402,F401

__all__ = sorted(_public | {"GradOperation", "Primitive", "grad", "value_and_grad", "get_grad",
                            "vjp", "jvp", "jacrev", "jacfwd", "vmap"})
