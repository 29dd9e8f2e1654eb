"""The op registry. Importing this package registers every op family.

Example:
    >>> from graph.ops import REGISTRY, F, bind
    >>> sorted(REGISTRY)[:3]
    ['abs', 'acos', 'add']
"""
from .core import (REGISTRY, F, Op, Attr, bind, bind_normalized, get_op, register, register_handler,
                   set_default_handler, ELEMENTWISE, REDUCTION, EXTERN, VIEW, RANDOM, STATE)
from . import elementwise, reduction, shape  # noqa: F401  (registration side effects)
from . import collective, draws, linalg, nn, ordering, selection, state  # noqa: F401
from . import bits_and_arcs  # noqa: F401
from . import recurrent  # noqa: F401
from . import creation  # noqa: F401

__all__ = ["REGISTRY", "F", "Op", "Attr", "bind", "bind_normalized", "get_op", "register",
           "register_handler", "set_default_handler", "ELEMENTWISE", "REDUCTION", "EXTERN", "VIEW", "RANDOM",
           "STATE"]
