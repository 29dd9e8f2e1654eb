"""graph.serialize: every registered op, with its registry sample's operands and attributes, survives
encode -> strict JSON -> decode (same IR text, same attribute values and types, same results from the
reference interpreter); literals keep what JSON lacks; anything else is refused."""
import json
import math
import zlib

import numpy as np
import pytest

import runtime  # noqa: F401  (registers the eager handler the samples' normalisation may use)
from graph.aval import AVal
from graph.dtypes import from_numpy, float32, int32
from graph.interpret import run
from graph.ir import INPUT, PARAM, Graph
from graph.ops import REGISTRY, F
from graph.serialize import GraphFormatError, decode, decode_literal, encode, encode_literal
from test_registry import SAMPLES


def _one_op_graph(name):
    op = REGISTRY[name]
    args, attrs = SAMPLES[name](np.random.default_rng(zlib.crc32(name.encode())))
    g = Graph(f"g_{name}")
    operands, feeds, params = [], [], {}
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray):
            kind = PARAM if op.mutates == k else INPUT  # in-place ops update Parameters only
            v = g.add_input(AVal(a.shape, from_numpy(a.dtype)), f"a{k}", kind)
            if kind == PARAM:
                params[v.name] = a
            operands.append(v)
            feeds.append(a)
        else:
            operands.append(a)
    out = g.add_node(op, operands, op.normalize(attrs))
    g.set_outputs(list(out) if isinstance(out, tuple) else [out])
    return g, feeds, params


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_op_round_trips(name):
    if REGISTRY[name].data_dependent_shape:
        pytest.skip("a data-dependent output shape cannot be in a graph (capture breaks the graph there)")
    g, feeds, params = _one_op_graph(name)
    structure = {"tuple": [{"output": i} for i in range(len(g.outputs))]}
    doc, tensors = encode(g, params, structure)
    text = json.dumps(doc, allow_nan=False)  # strict JSON: no NaN/Infinity tokens, no Python objects
    loaded = decode(json.loads(text), dict(tensors))
    assert loaded.graph.format(show_loc=False) == g.format(show_loc=False)
    (a,), (b,) = g.nodes, loaded.graph.nodes
    assert a.op is b.op and a.attrs == b.attrs
    assert [type(v) for v in a.attrs.values()] == [type(v) for v in b.attrs.values()]
    assert [type(v) for v in a.inputs] == [type(v) for v in b.inputs]
    assert loaded.structure == structure and list(loaded.params) == list(params)
    if a.op.kind == "random" or a.op.communicates:
        return  # draws from the global stream / numbers its exchanges: the two runs would differ
    want, _ = run(g, [np.array(f, copy=True) for f in feeds])
    got, _ = run(loaded.graph, [np.array(f, copy=True) for f in feeds])
    for w, h in zip(want, got):
        np.testing.assert_array_equal(h, w)


@pytest.mark.parametrize("value", [None, True, 0, -3, 2.5, 1e-30, float("inf"), float("-inf"), "same",
                                   (1, (2, None), ...), [1, 2], (), float32, (int32, "x"),
                                   ((("slice", None, 3, -1),), ("list", (1, 2)))])
def test_literals_round_trip_with_their_types(value):
    text = json.dumps(encode_literal(value, "v"), allow_nan=False)
    back = decode_literal(json.loads(text), "v")
    assert back == value and type(back) is type(value)
    assert math.isnan(decode_literal(json.loads(json.dumps(encode_literal(float("nan"), "v"))), "v"))


@pytest.mark.parametrize("value", [object(), {"a": 1}, {1, 2}, b"bytes", np.zeros(2), 1j])
def test_values_the_format_cannot_describe_are_refused_when_writing(value):
    with pytest.raises(GraphFormatError, match="cannot be written"):
        encode_literal(value, "node 3 attribute 'x'")


@pytest.mark.parametrize("doc", [{"tuple": 1}, {"dtype": "complex64"}, {"float": "1.5"}, {"pickle": "gASV"},
                                 {"tuple": [1], "list": [2]}, {"ellipsis": False}, {"__class__": "os.system"}])
def test_tags_the_format_does_not_write_are_refused_when_reading(doc):
    with pytest.raises(GraphFormatError, match="not a value this format writes"):
        decode_literal(doc, "v")


def test_encoding_checks_parameters_and_structure():
    g = Graph("f")
    x = g.add_input(AVal((2,), float32), "x")
    w = g.add_input(AVal((2,), float32), "w", PARAM)
    g.set_outputs([F.mul(x, w)])
    with pytest.raises(GraphFormatError, match="no value given for parameter 'w'"):
        encode(g, {}, {"output": 0})
    with pytest.raises(GraphFormatError, match=r"value float64\[2\] does not match the graph's f32\[2\]"):
        encode(g, {"w": np.ones(2)}, {"output": 0})
    for bad in ({"output": 1}, {"argument": 1}, {"parameter": "v"}, {"set": []}, {"output": True}):
        with pytest.raises(GraphFormatError, match="structure"):
            encode(g, {"w": np.ones(2, np.float32)}, bad)
    doc, tensors = encode(g, {"w": np.ones(2, np.float32)},
                          {"list": [{"output": 0}, {"argument": 0}, {"parameter": "w"}, {"value": 1.5}]})
    assert decode(doc, dict(tensors)).structure["list"][3] == {"value": 1.5}
