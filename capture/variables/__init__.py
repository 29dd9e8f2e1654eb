"""Symbolic stand-ins for Python values (one class per kind of value)."""
from .base import NULL, ConstantVariable, NullVariable, Variable  # noqa: F401
from .containers import (DictVariable, IteratorVariable, ListVariable, SetVariable,  # noqa: F401
                         SliceVariable, TupleVariable)
from .functions import (BuiltinVariable, ClassVariable, FrameworkCallableVariable, GradVariable,  # noqa: F401
                        NestedFunctionVariable, OpaqueCallableVariable, UserFunctionVariable,
                        wrap_callable)
from .objects import Box, BoxVariable, CellVariable, ModuleVariable, ObjectVariable  # noqa: F401
from .tensor import TensorVariable  # noqa: F401
