"""Functional API and Primitive classes generated from the op registry.

For every registered op ``name`` this module defines ``name(*inputs, *attrs)`` (a real Python
function with the op's signature, so calls cost no argument parsing) and a Primitive class
``op.prim`` whose constructor takes the op's attributes and whose call takes the inputs (plus the
attributes MindSpore passes at call time, e.g. ``ops.ReduceSum(keep_dims=True)(x, axis)``).

Example:
    >>> from runtime import ops, Tensor
    >>> ops.reduce_sum(Tensor([[1.0, 2.0]]), 1)
    Tensor(shape=[1], dtype=Float32, value=[3.])
    >>> ops.MatMul(transpose_b=True)(Tensor([[1.0, 2.0]]), Tensor([[3.0, 4.0]]))
    Tensor(shape=[1, 1], dtype=Float32, value=
    [[11.]])
"""
from __future__ import annotations

from graph.ops import REGISTRY, bind, bind_normalized
from graph.ops.core import op_function

#: MindSpore 2.x's parameter names for the inputs of the generated functions (``ops.add(input,
#: other)``, ``ops.pow(input, exponent)``), so programs that pass them as keywords run; ops not
#: listed keep the registry's input names
_MS_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "equal", "not_equal", "greater",
              "greater_equal", "less", "less_equal", "logical_and", "logical_or", "floor_div", "mod", "matmul",
              "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm")
_MS_UNARY = ("abs", "neg", "exp", "log", "log1p", "sqrt", "rsqrt", "square", "sin", "cos", "tanh", "sigmoid",
             "relu", "erf", "floor", "ceil", "sign", "reciprocal", "logical_not", "isfinite", "isinf", "isnan",
             "softplus", "atan", "asin", "acos")
MINDSPORE_INPUT_NAMES = {**{n: ("input", "other") for n in _MS_BINARY}, **{n: ("input",) for n in _MS_UNARY},
                         "pow": ("input", "exponent"), "where": ("condition", "input", "other"),
                         "unique": ("input",), "masked_select": ("input", "mask"), "gather_nd": ("input_x", "indices"),
                         **{"tensor_scatter_" + m: ("input_x", "indices", "updates")
                            for m in ("update", "add", "sub", "max", "min", "mul", "div")}}


def _functional(op):
    """``ops.name``: :func:`graph.ops.core.op_function` with MindSpore's input names."""
    names = MINDSPORE_INPUT_NAMES.get(op.name, op.inputs)
    if len(names) != len(op.inputs) or any(n in op.attrs for n in names):
        names = op.inputs  # (a table entry that does not fit the op: the registry's names)
    fn = op_function(op, names, sequence_input=True)
    fn.__doc__ = f"{op.prim}: {op.doc}" if op.doc else op.prim
    fn.__module__ = "runtime.ops"
    return fn


class Primitive:
    """Base of generated Primitive classes: attributes at construction, inputs at call time."""

    op = None

    def __init__(self, *args, **attrs):
        op = self.op
        init_names = [k for k in op.attrs if k not in op.call_attrs]
        if len(args) > len(init_names):
            raise TypeError(f"{op.prim}() takes at most {len(init_names)} positional attribute(s) "
                            f"{init_names}, got {len(args)}")
        for k, v in zip(init_names, args):
            attrs[k] = v
        bad = [k for k in attrs if k not in op.attrs]
        if bad:
            raise TypeError(f"{op.prim}(): unknown attribute(s) {bad}; valid: {init_names}")
        self._init_attrs = attrs
        self._static = not op.call_attrs
        self._attrs = op.normalize(attrs) if self._static else None
        self.name = op.prim

    def __call__(self, *args, **call_attrs):
        op = self.op
        if self._static:
            if call_attrs:
                raise TypeError(f"{op.prim}(): takes no attributes at call time, got {sorted(call_attrs)}")
            if op.variadic and len(args) == 1 and isinstance(args[0], (list, tuple)):
                args = tuple(args[0])
            return bind_normalized(op, args, self._attrs)
        n_in = len(op.inputs)
        inputs, extra = args[:n_in], args[n_in:]
        if len(extra) > len(op.call_attrs):
            raise TypeError(f"{op.prim}(): takes {n_in} input(s) and at most {len(op.call_attrs)} call-time "
                            f"attribute(s) {list(op.call_attrs)}, got {len(args)} arguments")
        positional = dict(zip(op.call_attrs, extra))
        for k in call_attrs:  # MindSpore passes them by keyword too: ReduceSum()(x, axis=2)
            if k not in op.call_attrs:
                raise TypeError(f"{op.prim}(): unknown call-time attribute {k!r}; valid: {list(op.call_attrs)}")
            if k in positional:
                raise TypeError(f"{op.prim}(): attribute {k!r} given twice")
        return bind(op, *inputs, **{**self._init_attrs, **positional, **call_attrs})

    def __repr__(self):
        return f"Prim[{self.op.prim}]"


def _primitive(op):
    return type(op.prim, (Primitive,), {"op": op, "__module__": "runtime.ops", "__doc__": op.doc})


FUNCTIONS = {name: _functional(op) for name, op in REGISTRY.items()}
PRIMITIVES = {op.prim: _primitive(op) for op in REGISTRY.values()}
