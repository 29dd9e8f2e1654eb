"""The op registry. Importing this package registers every op family.

Example:
    >>> from graph.ops import REGISTRY, F, bind
    >>> sorted(REGISTRY)[:3]
    ['abs', 'acos', 'add']
"""
import warnings

from .core import (REGISTRY, F, Op, Attr, bind, bind_normalized, get_op, register, register_handler,
                   set_default_handler, ELEMENTWISE, REDUCTION, EXTERN, VIEW, RANDOM, STATE)
from . import elementwise, reduction, shape  # noqa: F401  (registration side effects)
from . import collective, draws, linalg, nn, ordering, selection, state  # noqa: F401
from . import bits_and_arcs  # noqa: F401
from . import recurrent  # noqa: F401
from . import creation  # noqa: F401

# The ops' array code computes IEEE results silently (log(-1) is nan, 1/0 is inf), as compiled
# kernels, MindSpore and torch do: numpy's "invalid value encountered" warnings, attributed to the
# impl's frame in these modules, are noise a PyNative user would see and a graph-mode one would
# not. (Only warnings raised from graph.ops' own code: numpy called by the user still warns.)
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"graph\.ops(\.|$)")

__all__ = ["REGISTRY", "F", "Op", "Attr", "bind", "bind_normalized", "get_op", "register",
           "register_handler", "set_default_handler", "ELEMENTWISE", "REDUCTION", "EXTERN", "VIEW", "RANDOM",
           "STATE"]
