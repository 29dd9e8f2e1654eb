"""``nn.GraphCell``: runs a graph loaded by ``ms.load`` (written by ``ms.export``) without the
Python class it was exported from.

The graph is compiled by the backend graph mode uses (``capture``'s runner: optimisation passes,
fused LLVM kernels) on the first call and run compiled after that. Its parameters are Parameters
of the GraphCell (named as in the exported net; ``params_init`` replaces values by name), so
``parameters_dict()``, checkpoints and in-place updates the graph makes work as for any Cell.
Two other paths keep every mode consistent: under an active gradient tape the graph's ops are
replayed eagerly so gradients flow (to inputs and parameters), and inside a net being captured
(GRAPH_MODE, ``ms.jit``) they are recorded into that net's graph.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    >>> x = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    >>> path = os.path.join(tempfile.mkdtemp(), "dense.mindir")
    >>> ms.export(net, x, file_name=path, file_format="MINDIR")
    >>> cell = nn.GraphCell(ms.load(path), params_init={"bias": ms.Tensor(np.array([1.0, -1.0], np.float32))})
    >>> print(cell(x))
    [[7. 5.]]
    >>> sorted(cell.parameters_dict())
    ['bias', 'weight']
"""
from __future__ import annotations

from graph.interpret import replay
from graph.ir import CONST
from graph.serialize import FuncGraph, decode_literal

from .. import context as _context
from .. import tape as _tape
from ..parameter import Parameter
from ..tensor import Tensor
from ..tensor_methods import TensorMethods
from .cell import Cell

__all__ = ["GraphCell"]


class GraphCell(Cell):
    """``GraphCell(graph, params_init=None, obf_random_seed=None)``: a Cell running ``graph`` (what
    ``ms.load`` returns). ``params_init`` maps parameter names to Tensors/Parameters replacing the
    values stored in the file (names the graph does not have are ignored, as in MindSpore). Inputs
    must have the shapes and dtypes the graph was exported with."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        if not isinstance(graph, FuncGraph):
            raise TypeError(f"GraphCell: graph must be a FuncGraph (what ms.load returns), got {type(graph).__name__}")
        if obf_random_seed is not None:
            raise NotImplementedError("GraphCell: obf_random_seed (dynamic obfuscation) is not supported")
        _check_params_init(params_init)
        flags = graph.requires_grad
        params = []
        for name, arr in graph.params.items():
            p = Parameter(Tensor._wrap(arr.copy()), name=name, requires_grad=flags.get(name, True))
            self._params[name] = p  # by name only: a name like "training" must not shadow attributes
            params.append(p)
        for name, value in (params_init or {}).items():
            if name in self._params:
                _assign(self._params[name], value)
        object.__setattr__(self, "func_graph", graph)
        object.__setattr__(self, "_graph_params", tuple(params))  # in graph-input order
        object.__setattr__(self, "_runner", None)

    def construct(self, *inputs):
        return run_graph_cell(self, inputs)

    def extend_repr(self):
        return repr(self.func_graph)


def _check_params_init(params_init):
    if params_init is None:
        return
    if not isinstance(params_init, dict):
        raise TypeError(f"GraphCell: params_init must be a dict name -> Tensor/Parameter, got "
                        f"{type(params_init).__name__}")
    for name, value in params_init.items():
        if not isinstance(name, str):
            raise TypeError(f"GraphCell: params_init keys must be parameter names (str), got {name!r}")
        if not isinstance(value, Tensor):
            raise TypeError(f"GraphCell: params_init[{name!r}] must be a Tensor or Parameter, got "
                            f"{type(value).__name__}")


def _assign(param, value):
    if tuple(value.shape) != tuple(param.shape):
        raise ValueError(f"GraphCell: params_init[{param.name!r}] has shape {tuple(value.shape)}, but the graph's "
                         f"parameter has shape {tuple(param.shape)}")
    param.set_data(Tensor._wrap(value.asnumpy().copy()))


def _check_inputs(cell, inputs):
    want = cell.func_graph.arguments
    if len(inputs) != len(want):
        raise TypeError(f"GraphCell: the graph takes {len(want)} input(s) "
                        f"({', '.join(str(v.aval) for v in want)}), got {len(inputs)}")
    for k, (t, v) in enumerate(zip(inputs, want)):
        if not isinstance(t, TensorMethods):  # an eager Tensor, or a symbolic one while capturing
            raise TypeError(f"GraphCell: input {k} must be a Tensor, got {type(t).__name__}")
        if tuple(t.shape) != v.aval.shape or t.dtype != v.aval.dtype:
            raise ValueError(f"GraphCell: input {k} ({v.name}) is {t.dtype}{list(t.shape)}, but the graph was "
                             f"exported for {v.aval}; a GraphCell runs only the shapes and dtypes it was "
                             "exported with")


def run_graph_cell(cell, inputs):
    """One call of ``cell`` (a module function, not a method: graph capture calls it directly with
    symbolic tensors, and it then records the graph's ops into the graph being captured)."""
    _check_inputs(cell, inputs)
    params = cell._graph_params
    operands = list(inputs) + list(params)
    graph = cell.func_graph.graph
    eager = all(isinstance(t, Tensor) for t in inputs)
    if not eager:  # symbolic (inside a capture): constants become constants of that graph
        outs = replay(graph, operands, lambda array: array)
    elif _tape.ACTIVE and _tape.any_tracked(operands):
        outs = replay(graph, operands, Tensor._wrap)  # op by op, so the tape records each op
    else:
        outs = _run_compiled(cell, graph, operands)
    return _build(cell.func_graph.structure, outs, inputs, dict(zip(cell.func_graph.params, params)))


def _run_compiled(cell, graph, operands):
    runner = cell._runner
    if runner is None:
        handler = _context.graph_handler()
        if handler is None:  # no graph capture on this Python: the ops run eagerly, same results
            return replay(graph, operands, Tensor._wrap)
        runner = handler.compile_graph(graph)
        object.__setattr__(cell, "_runner", runner)
    outs, updates = runner([t._data for t in operands])
    for index, array in updates.items():
        operands[index]._data = array
    return [Tensor._wrap(o.copy() if v.kind == CONST else o) for o, v in zip(outs, graph.outputs)]


def _build(structure, outs, inputs, params):
    """The caller's result from the structure tree (validated when the file was loaded)."""
    (tag, body), = structure.items()
    if tag == "output":
        return outs[body]
    if tag == "tuple":
        return tuple(_build(s, outs, inputs, params) for s in body)
    if tag == "list":
        return [_build(s, outs, inputs, params) for s in body]
    if tag == "argument":
        return inputs[body]
    if tag == "parameter":
        return params[body]
    return decode_literal(body, "result structure")
