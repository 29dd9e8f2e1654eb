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
from ._generated import FUNCTIONS as _FUNCTIONS, PRIMITIVES as _PRIMITIVES, Primitive  # noqa: F401

globals().update(_FUNCTIONS)
globals().update(_PRIMITIVES)

from .composite import *  # noqa: E402, F403
from .composite import __all__ as _composite_all  # noqa: E402
from .signatures import *  # noqa: E402, F403
from .signatures import __all__ as _signatures_all  # noqa: E402
from .random_func import *  # noqa: E402, F403
from .random_func import __all__ as _random_all  # noqa: E402
from .arrays import *  # noqa: E402, F403
from .arrays import __all__ as _arrays_all  # noqa: E402
from .nn_func import *  # noqa: E402, F403
from .nn_func import __all__ as _nn_func_all  # noqa: E402
from .math_func import *  # noqa: E402, F403
from .math_func import __all__ as _math_func_all  # noqa: E402
from .comm_ops import *  # noqa: E402, F403
from .comm_ops import __all__ as _comm_ops_all  # noqa: E402
from .clip_func import *  # noqa: E402, F403
from .clip_func import __all__ as _clip_all  # noqa: E402
from .compat_ops import *  # noqa: E402, F403
from .compat_ops import __all__ as _compat_ops_all  # noqa: E402
from .selection_func import *  # noqa: E402, F403
from .selection_func import __all__ as _selection_all  # noqa: E402
from .optimizer_prims import *  # noqa: E402, F403
from .optimizer_prims import __all__ as _optimizer_prims_all  # noqa: E402
from .primitive_spellings import *  # noqa: E402, F403
from .primitive_spellings import __all__ as _spellings_all  # noqa: E402
from .einsum import *  # noqa: E402, F403
from .einsum import __all__ as _einsum_all  # noqa: E402
from .volume_func import *  # noqa: E402, F403
from .volume_func import __all__ as _volume_all  # noqa: E402
from .math_more import *  # noqa: E402, F403
from .math_more import __all__ as _math_more_all  # noqa: E402
from .array_more import *  # noqa: E402, F403
from .array_more import __all__ as _array_more_all  # noqa: E402
from .activation_func import *  # noqa: E402, F403
from .activation_func import __all__ as _activation_all  # noqa: E402
from .random_more import *  # noqa: E402, F403
from .random_more import __all__ as _random_more_all  # noqa: E402
from .nn_more import *  # noqa: E402, F403
from .nn_more import __all__ as _nn_more_all  # noqa: E402
from .linalg_more import *  # noqa: E402, F403
from .linalg_more import __all__ as _linalg_more_all  # noqa: E402
from .image_func import *  # noqa: E402, F403
from .image_func import __all__ as _image_all  # noqa: E402
from .primitive_more import *  # noqa: E402, F403
from .primitive_more import __all__ as _primitive_more_all  # noqa: E402
from ..autograd import GradOperation, grad, value_and_grad, get_grad  # noqa: E402,F401
from ..transforms import vjp, jvp, jacrev, jacfwd  # noqa: E402,F401
from ..vmap import vmap  # noqa: E402,F401

__all__ = sorted(set(_FUNCTIONS) | set(_PRIMITIVES) | set(_composite_all) | set(_signatures_all)
                 | set(_random_all) | set(_arrays_all) | set(_nn_func_all) | set(_math_func_all)
                 | set(_comm_ops_all) | set(_clip_all) | set(_compat_ops_all) | set(_selection_all) | set(_optimizer_prims_all)
                 | set(_spellings_all) | set(_einsum_all) | set(_volume_all)
                 | set(_math_more_all) | set(_array_more_all) | set(_activation_all)
                 | set(_random_more_all) | set(_nn_more_all) | set(_linalg_more_all) | set(_image_all)
                 | set(_primitive_more_all)
                 | {"GradOperation", "Primitive", "grad", "value_and_grad", "get_grad",
                    "vjp", "jvp", "jacrev", "jacfwd", "vmap"})
