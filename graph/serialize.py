"""A Graph as plain data: a JSON-safe document plus named arrays, and back.

This is the graph half of the exported-graph file (``docs/export-format.md``; the container with
its magic, version and checksum is ``runtime/train/mindir.py``). Nothing here executes anything
taken from a file: ops are looked up by name in the registry, attributes and scalar operands are
JSON values with explicit tags for what JSON lacks (tuples, dtypes, ``...``, non-finite floats),
and constants and parameters are raw arrays named in the document. Decoding re-validates
everything the way graph building does (each op's attribute checks and shape inference, the
recorded shapes compared with the inferred ones, ``Graph.verify``), so a damaged or hand-edited
document is refused with a ValueError instead of reaching a compiler.

Values are numbered as the IR printer numbers them (inputs, constants, node outputs), so ``%3`` in
``graph.format()`` is ``{"value": 3}`` in the document.

Example:
    >>> import numpy as np
    >>> from graph.ir import Graph, PARAM
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ops import F
    >>> g = Graph("f")
    >>> x = g.add_input(AVal((2,), float32), "x")
    >>> w = g.add_input(AVal((2,), float32), "w", PARAM)
    >>> g.set_outputs([F.relu(F.mul(x, w))])
    >>> doc, tensors = encode(g, {"w": np.ones(2, np.float32)}, {"output": 0})
    >>> [n["op"] for n in doc["nodes"]], [name for name, _ in tensors]
    (['mul', 'relu'], ['parameter:w'])
    >>> loaded = decode(doc, dict(tensors))
    >>> print(loaded.graph.format(show_loc=False))  # doctest: +NORMALIZE_WHITESPACE
    graph f(%0:f32[2] x, %1:f32[2] param w) {
      %2:f32[2] = mul %0 %1
      %3:f32[2] = relu %2
      return %3
    }
"""
from __future__ import annotations

import math
import os
from collections import OrderedDict

import numpy as np

from .aval import AVal
from .dtypes import ALL as _ALL_DTYPES, DType
from .ir import INPUT, PARAM, Graph, Value
from .ops.core import REGISTRY

#: dtype names used in documents (numpy's names) -> DType
DTYPES = {np.dtype(d.np).name: d for d in _ALL_DTYPES}
_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
_INPUT_KINDS = {"input": INPUT, "param": PARAM}


class GraphFormatError(ValueError):
    """A graph document (or the graph being encoded) that this module refuses; the message says
    which node/value and why."""


class FuncGraph:
    """A loaded graph (what ``ms.load`` returns; MindSpore calls it a FuncGraph): the Graph, its
    parameters' values by name (in graph-input order) and the structure of its result (see
    :func:`encode`). ``nn.GraphCell`` runs it."""

    def __init__(self, graph: Graph, params: "OrderedDict[str, np.ndarray]", structure, source: str = ""):
        self.graph = graph
        self.params = params
        self.structure = structure
        self.source = source
        self.requires_grad: dict[str, bool] = {}  # per parameter, when the file says (else trainable)

    @property
    def arguments(self) -> list:
        """The graph inputs the caller supplies (shape, dtype), in call order."""
        return [v for v in self.graph.inputs if v.kind == INPUT]

    def __repr__(self):
        args = ", ".join(str(v.aval) for v in self.arguments)
        return (f"<FuncGraph {self.graph.name}({args}): {len(self.graph.nodes)} ops, "
                f"{len(self.params)} parameters{' from ' + self.source if self.source else ''}>")


# -- literals: attribute values and scalar operands ----------------------------------------------------
def encode_literal(v, where: str):
    """A JSON-safe form of an attribute value / scalar operand (see the module docstring)."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, np.bool_):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isfinite(v):
            return v
        return {"float": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
    if isinstance(v, tuple):
        return {"tuple": [encode_literal(x, where) for x in v]}
    if isinstance(v, list):
        return [encode_literal(x, where) for x in v]
    if isinstance(v, DType):
        return {"dtype": np.dtype(v.np).name}
    if v is Ellipsis:
        return {"ellipsis": True}
    raise GraphFormatError(f"{where}: a value of type {type(v).__name__} ({v!r:.60}) cannot be written; "
                           "attributes must be None, bool, int, float, str, dtypes, ... or tuples/lists of them")


def decode_literal(v, where: str):
    """Inverse of :func:`encode_literal`; refuses anything it would not write."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [decode_literal(x, where) for x in v]
    if isinstance(v, dict) and len(v) == 1:
        (tag, body), = v.items()
        if tag == "tuple" and isinstance(body, list):
            return tuple(decode_literal(x, where) for x in body)
        if tag == "dtype" and body in DTYPES:
            return DTYPES[body]
        if tag == "float" and body in _NON_FINITE:
            return _NON_FINITE[body]
        if tag == "ellipsis" and body is True:
            return Ellipsis
    raise GraphFormatError(f"{where}: {v!r:.80} is not a value this format writes")


# -- encoding -------------------------------------------------------------------------------------------------
def _aval_doc(aval: AVal) -> dict:
    return {"dtype": np.dtype(aval.dtype.np).name, "shape": list(aval.shape)}


def param_tensor_name(name: str) -> str:
    return f"parameter:{name}"


def _const_tensor_name(k: int) -> str:
    return f"constant:{k}"


def encode(graph: Graph, param_values, structure):
    """Describe ``graph`` as ``(document, tensors)``.

    ``param_values`` maps each PARAM input's name to its array (written with the graph; names must
    be unique). ``structure`` says how the caller's result is built from the graph outputs, a tree
    of ``{"output": i}``, ``{"tuple": [...]}``, ``{"list": [...]}``, ``{"argument": k}`` (the k-th
    argument itself), ``{"parameter": name}`` and ``{"value": literal}``; it is validated here.
    ``tensors`` is a list of (name, array): the parameters, then the constants.
    """
    ids = graph.printed_ids()

    def ref(v, where):
        if isinstance(v, Value):
            if id(v) not in ids:
                raise GraphFormatError(f"{where}: {v!r} does not belong to graph {graph.name}")
            return {"value": ids[id(v)]}
        if v is None or isinstance(v, (bool, int, float)):
            return encode_literal(v, where)
        raise GraphFormatError(f"{where}: operand of type {type(v).__name__} cannot be written")

    tensors, inputs, seen = [], [], set()
    for v in graph.inputs:
        entry = {"name": v.name, "kind": "param" if v.kind == PARAM else "input", **_aval_doc(v.aval)}
        if v.kind == PARAM:
            if v.name in seen:
                raise GraphFormatError(f"graph {graph.name}: two parameters are both named {v.name!r}; "
                                       "parameter names must be unique")
            seen.add(v.name)
            if v.name not in param_values:
                raise GraphFormatError(f"graph {graph.name}: no value given for parameter {v.name!r}")
            arr = np.asarray(param_values[v.name])
            if arr.shape != v.aval.shape or arr.dtype != v.aval.dtype.np:
                raise GraphFormatError(f"parameter {v.name!r}: value {arr.dtype}{list(arr.shape)} does not "
                                       f"match the graph's {v.aval}")
            tensors.append((param_tensor_name(v.name), arr))
        elif v.kind != INPUT:
            raise GraphFormatError(f"graph {graph.name}: input {v.name!r} has kind {v.kind!r}")
        inputs.append(entry)
    consts = []
    for k, c in enumerate(graph.consts):
        tensors.append((_const_tensor_name(k), np.asarray(c.data)))
        consts.append({"name": c.name, "tensor": _const_tensor_name(k), **_aval_doc(c.aval)})
    nodes = []
    for i, n in enumerate(graph.nodes):
        where = f"node {i} ({n.op.name})"
        entry = {"op": n.op.name,
                 "operands": [ref(v, where) for v in n.inputs],
                 "attrs": {k: encode_literal(a, f"{where} attribute {k!r}") for k, a in n.attrs.items()},
                 "outputs": [_aval_doc(v.aval) for v in n.outputs]}
        if n.loc:
            entry["loc"] = [os.path.basename(str(n.loc[0])), int(n.loc[1])]
        nodes.append(entry)
    doc = {"name": graph.name, "inputs": inputs, "consts": consts, "nodes": nodes,
           "outputs": [ref(v, f"output {i}") for i, v in enumerate(graph.outputs)],
           "updates": [{"param": ids[id(p)], "value": ref(v, f"update of {p.name}")["value"]}
                       for p, v in graph.updates.items()],
           "structure": structure}
    _check_structure(structure, len(graph.outputs), sum(v.kind == INPUT for v in graph.inputs), seen)
    return doc, tensors


def _check_structure(s, n_outputs, n_arguments, param_names, where="result structure"):
    if not isinstance(s, dict) or len(s) != 1:
        raise GraphFormatError(f"{where}: {s!r:.80} is not a structure node")
    (tag, body), = s.items()
    if tag == "output" and type(body) is int and 0 <= body < n_outputs:
        return
    if tag == "argument" and type(body) is int and 0 <= body < n_arguments:
        return
    if tag == "parameter" and isinstance(body, str) and body in param_names:
        return
    if tag == "value":
        decode_literal(body, where)
        return
    if tag in ("tuple", "list") and isinstance(body, list):
        for k, item in enumerate(body):
            _check_structure(item, n_outputs, n_arguments, param_names, f"{where}[{k}]")
        return
    raise GraphFormatError(f"{where}: {s!r:.80} is not a valid structure node (outputs: {n_outputs}, "
                           f"arguments: {n_arguments})")


# -- decoding ---------------------------------------------------------------------------------------------
def _aval_of(entry, where) -> AVal:
    dtype, shape = entry.get("dtype"), entry.get("shape")
    if dtype not in DTYPES:
        raise GraphFormatError(f"{where}: unknown dtype {dtype!r}; known: {sorted(DTYPES)}")
    if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)):
        raise GraphFormatError(f"{where}: invalid shape {shape!r}")
    return AVal(shape, DTYPES[dtype])


def _array(tensors, name, aval, where):
    arr = tensors.get(name)
    if arr is None:
        raise GraphFormatError(f"{where}: its data {name!r} is missing from the file")
    if tuple(arr.shape) != aval.shape or arr.dtype != aval.dtype.np:
        raise GraphFormatError(f"{where}: its data is {arr.dtype}{list(arr.shape)}, the graph says {aval}")
    return arr


def decode(doc, tensors, source: str = "") -> FuncGraph:
    """Rebuild the graph a document describes (``tensors``: name -> array). Raises
    :class:`GraphFormatError` (a ValueError) naming what is wrong."""
    try:
        return _decode(doc, tensors, source)
    except GraphFormatError:
        raise
    except (KeyError, TypeError, AttributeError, IndexError) as e:
        # a field of the wrong type or missing: the document is not one this module wrote
        raise GraphFormatError(f"malformed graph document ({type(e).__name__}: {e})") from None


def _decode(doc, tensors, source):
    if not isinstance(doc, dict):
        raise GraphFormatError("the graph document is not an object")
    name = doc["name"]
    if not isinstance(name, str):
        raise GraphFormatError(f"graph name {name!r} is not a string")
    g = Graph(name)
    values: list[Value] = []
    params: OrderedDict = OrderedDict()
    for i, entry in enumerate(doc["inputs"]):
        where = f"input {i}"
        kind, vname = _INPUT_KINDS.get(entry["kind"]), entry["name"]
        if kind is None or not isinstance(vname, str):
            raise GraphFormatError(f"{where}: bad kind {entry['kind']!r} or name {vname!r}")
        aval = _aval_of(entry, where)
        if kind == PARAM:
            if vname in params:
                raise GraphFormatError(f"{where}: parameter {vname!r} appears twice")
            params[vname] = _array(tensors, param_tensor_name(vname), aval, f"parameter {vname!r}")
        values.append(g.add_input(aval, vname, kind))
    used = set()
    for k, entry in enumerate(doc["consts"]):
        where = f"constant {k}"
        aval = _aval_of(entry, where)
        tname = entry["tensor"]
        if not isinstance(tname, str) or not tname.startswith("constant:") or tname in used:
            raise GraphFormatError(f"{where}: bad or repeated tensor name {tname!r}")
        used.add(tname)
        cname = entry.get("name")
        values.append(g.add_const(_array(tensors, tname, aval, where), cname if isinstance(cname, str) else None))

    def operand(x, where):
        if isinstance(x, dict) and set(x) == {"value"}:
            k = x["value"]
            if type(k) is not int or not 0 <= k < len(values):
                raise GraphFormatError(f"{where}: value %{k} is not defined before it is used")
            return values[k]
        v = decode_literal(x, where)
        if v is not None and not isinstance(v, (bool, int, float)):
            raise GraphFormatError(f"{where}: operand {x!r:.60} is not a value or a number")
        return v

    label = os.path.basename(source) if source else f"<graph {name}>"
    for i, entry in enumerate(doc["nodes"]):
        op_name = entry["op"]
        op = REGISTRY.get(op_name) if isinstance(op_name, str) else None
        if op is None:
            raise GraphFormatError(f"node {i}: unknown op {op_name!r}: this framework's op registry has no such "
                                   "op (the file comes from another version or another program)")
        where = f"node {i} ({op_name})"
        args = [operand(x, f"{where} operand {j}") for j, x in enumerate(entry["operands"])]
        raw_attrs = entry["attrs"]
        if not isinstance(raw_attrs, dict):
            raise GraphFormatError(f"{where}: attributes are not an object")
        attrs = {k: decode_literal(v, f"{where} attribute {k!r}") for k, v in raw_attrs.items()}
        loc = entry.get("loc")
        loc = (str(loc[0]), int(loc[1]), "") if isinstance(loc, list) and len(loc) == 2 else (label, i, "")
        try:
            attrs = op.normalize(attrs)
            out = g.add_node(op, args, attrs, loc=loc)
        except (TypeError, ValueError) as e:
            raise GraphFormatError(f"{where}: the op refuses what the file gives it: {e}") from None
        outs = out if isinstance(out, tuple) else (out,)
        recorded = [_aval_of(a, f"{where} output {j}") for j, a in enumerate(entry["outputs"])]
        if recorded != [v.aval for v in outs]:
            raise GraphFormatError(f"{where}: the file records outputs {recorded}, but the op infers "
                                   f"{[v.aval for v in outs]} from its inputs")
        values.extend(outs)
    g.set_outputs([operand(x, f"output {i}") for i, x in enumerate(doc["outputs"])])
    if any(not isinstance(v, Value) for v in g.outputs):
        raise GraphFormatError("graph outputs must be values")
    # the in-place updates were rebuilt by the assign-like nodes themselves: the file must agree
    recorded = [(operand({"value": u["param"]}, "update"), operand({"value": u["value"]}, "update"))
                for u in doc["updates"]]
    if len(recorded) != len(g.updates) or any(g.updates.get(p) is not v for p, v in recorded):
        raise GraphFormatError("the recorded parameter updates differ from the ones the graph's ops make")
    try:
        g.verify()
    except ValueError as e:
        raise GraphFormatError(str(e)) from None
    structure = doc["structure"]
    _check_structure(structure, len(g.outputs), sum(v.kind == INPUT for v in g.inputs), params)
    return FuncGraph(g, params, structure, source)

