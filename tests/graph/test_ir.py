"""The IR: building graphs through ``graph.ops.F`` on Values, ``verify()``, the one-line-per-node
printer (golden text of a captured 2-layer MLP), the .dot writer and ``Graph.dump``."""
import os
import re

import numpy as np
import pytest

import capture
import runtime as ms
from graph.aval import AVal
from graph.dtypes import float32, float64, int32
from graph.ir import CONST, INPUT, NODE, PARAM, Graph, Node, Value
from graph.ops import REGISTRY, F
from runtime import Tensor, nn


def _small_graph():
    g = Graph("f")
    x = g.add_input(AVal((2, 3), float32), "x")
    w = g.add_input(AVal((3, 4), float32), "w", kind=PARAM)
    h = F.relu(F.matmul(x, w))
    y = F.reduce_sum(F.mul(h, 2.0), axis=1)
    g.set_outputs([y, h])
    return g, x, w, h, y


# -- building -------------------------------------------------------------------------------------------
def test_building_with_F_on_values():
    g, x, w, h, y = _small_graph()
    assert [n.op.name for n in g.nodes] == ["matmul", "relu", "mul", "reduce_sum"]
    assert isinstance(h, Value) and h.kind == NODE and h.graph is g
    assert h.shape == (2, 4) and h.dtype is float32 and h.ndim == 2 and h.size == 8
    assert y.shape == (2,)
    assert g.params == [w] and x.kind == INPUT
    assert g.op_count() == 4
    mul = g.nodes[2]
    assert mul.inputs[1] == 2.0 and mul.inputs[0] is h
    assert h.producer is g.nodes[1] and h.index == 0
    g.verify()


def test_dtype_promotion_and_constants():
    g = Graph("p")
    x = g.add_input(AVal((3,), int32), "x")
    a = F.mul(x, 2.5)  # int tensor * float scalar -> float32 (not numpy's float64)
    c = g.add_const(np.arange(3, dtype=np.float64), "c")
    b = F.add(a, c)
    assert a.dtype is float32 and b.dtype is float64
    assert c.kind == CONST and g.consts == [c]
    assert g.add_const(c.data) is not None
    g.set_outputs([b])
    g.verify()


def test_multi_output_nodes_and_attrs():
    g = Graph("split")
    x = g.add_input(AVal((4, 6), float32), "x")
    outs = F.split(x, axis=1, output_num=3)
    assert isinstance(outs, tuple) and len(outs) == 3 and all(o.shape == (4, 2) for o in outs)
    assert [o.index for o in outs] == [0, 1, 2] and outs[0].producer is outs[2].producer
    g.set_outputs(list(outs))
    g.verify()


def test_infer_errors_while_building_name_the_op():
    g = Graph("bad")
    x = g.add_input(AVal((2, 3), float32), "x")
    w = g.add_input(AVal((4, 5), float32), "w")
    with pytest.raises(ValueError, match=r"MatMul.*\(2, 3\).*\(4, 5\)|matmul"):
        F.matmul(x, w)
    assert g.nodes == []  # nothing half-added


def test_operands_from_two_graphs_are_rejected():
    g1, g2 = Graph("a"), Graph("b")
    x = g1.add_input(AVal((2,), float32), "x")
    y = g2.add_input(AVal((2,), float32), "y")
    with pytest.raises(ValueError, match="different graphs"):
        F.add(x, y)


def test_in_place_update_of_a_parameter():
    g = Graph("upd")
    p = g.add_input(AVal((3,), float32), "p", kind=PARAM)
    x = g.add_input(AVal((3,), float32), "x")
    new = F.assign(p, F.sub(p, F.mul(x, 0.1)))
    assert g.updates == {p: new}
    assert g.param_of(new) is p and g.param_of(p) is p and g.param_of(x) is None
    newer = F.assign(new, F.mul(new, 2.0))  # through the earlier version: still the Parameter
    assert g.updates == {p: newer} and g.param_of(new) is p and g.param_of(newer) is p
    with pytest.raises(ValueError, match="only Parameters"):
        F.assign(x, p)
    g.set_outputs([])
    g.verify()
    assert "update p <- %" in g.format()


# -- verify ------------------------------------------------------------------------------------------------
def test_verify_catches_use_before_definition():
    g, x, w, h, y = _small_graph()
    g.nodes[0], g.nodes[1] = g.nodes[1], g.nodes[0]
    with pytest.raises(ValueError, match="before it is defined"):
        g.verify()


def test_verify_catches_values_of_another_graph():
    g, x, w, h, y = _small_graph()
    other = Graph("o")
    z = other.add_input(AVal((2, 4), float32), "z")
    g.nodes[1].inputs = (z,)
    with pytest.raises(ValueError, match="another graph"):
        g.verify()


def test_verify_catches_wrong_output_avals():
    g, x, w, h, y = _small_graph()
    g.nodes[1].outputs[0].aval = AVal((2, 5), float32)
    with pytest.raises(ValueError, match="inferred"):
        g.verify()


def test_verify_catches_undefined_outputs_and_bad_operands():
    g, x, w, h, y = _small_graph()
    stray = Value(g, AVal((2,), float32), NODE)
    g.set_outputs([stray])
    with pytest.raises(ValueError, match="output .* is not defined"):
        g.verify()
    g, x, w, h, y = _small_graph()
    g.nodes[2].inputs = (h, "two")
    with pytest.raises(ValueError, match="is a str"):
        g.verify()


def test_verify_catches_bad_updates():
    g, x, w, h, y = _small_graph()
    g.updates[x] = h  # x is not a parameter
    with pytest.raises(ValueError, match="bad parameter update"):
        g.verify()


def test_verify_catches_dangling_node_inputs():
    g = Graph("d")
    x = g.add_input(AVal((2,), float32), "x")
    ghost = Value(g, AVal((2,), float32), NODE)
    node = Node(REGISTRY["relu"], (ghost,), {})
    node.outputs = (Value(g, AVal((2,), float32), NODE, producer=node),)
    g.nodes.append(node)
    g.set_outputs([x])
    with pytest.raises(ValueError, match="before it is defined"):
        g.verify()


# -- printer -----------------------------------------------------------------------------------------------
class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


MLP_GOLDEN = """\
graph MLP_construct(%0:f32[2,4] x, %1:f32[8,4] param fc1.weight, %2:f32[8] param fc1.bias, \
%3:f32[3,8] param fc2.weight, %4:f32[3] param fc2.bias) {
  %5:f32[2,8] = matmul %0 %1 transpose_a=False transpose_b=True
  %6:f32[2,8] = bias_add %5 %2 data_format=nchw
  %7:f32[2,8] = relu %6
  %8:f32[2,3] = matmul %7 %3 transpose_a=False transpose_b=True
  %9:f32[2,3] = bias_add %8 %4 data_format=nchw
  return %9
}"""


def _captured_mlp(mode):
    capture.reset()
    net = MLP()
    x = Tensor(np.ones((2, 4), np.float32))
    backend = capture.CountingBackend()
    if mode == "jit":
        capture.jit(net, backend=backend)(x)
        return backend.graphs[0]
    ms.set_context(mode=ms.GRAPH_MODE)
    from capture.explain import recording
    with recording() as report:
        net(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    capture.reset()
    return report.graphs[0]


@pytest.mark.parametrize("mode", ["jit", "graph_mode"])
def test_printer_golden_text_of_a_captured_mlp(mode):
    g = _captured_mlp(mode)
    assert g.format(show_loc=False) == MLP_GOLDEN


def test_printer_locations_point_at_the_users_line():
    g = _captured_mlp("jit")
    text = str(g)
    assert text == g.format()
    lines = text.splitlines()[1:-2]
    line = MLP.construct.__code__.co_firstlineno + 1
    for ln in lines:
        assert ln.endswith(f"  # test_ir.py:{line}"), ln
    stripped = "\n".join(re.sub(r"  # \S+:\d+$", "", ln) for ln in text.splitlines())
    assert stripped == MLP_GOLDEN


def test_printer_consts_outputs_updates_and_upto():
    g = Graph("show")
    p = g.add_input(AVal((2,), float32), "p", kind=PARAM)
    c = g.add_const(np.ones(2, np.float32), "ones")
    s = F.add(p, c)
    t = F.assign(p, F.mul(s, 0.5))
    g.set_outputs([s, t])
    text = g.format(show_loc=False)
    assert text.splitlines() == [
        "graph show(%0:f32[2] param p) {",
        "  %1:f32[2] = const ones",
        "  %2:f32[2] = add %0 %1",
        "  %3:f32[2] = mul %2 0.5",
        "  %4:f32[2] = assign %0 %3",
        "  return %2, %4",
        "  update p <- %4",
        "}",
    ]
    upto = g.format(upto=g.nodes[1], show_loc=False).splitlines()
    assert upto[-2] == "  # ^ failing node" and upto[-3].startswith("  %3:f32[2] = mul")
    assert "return" not in "\n".join(upto)


# -- dot and dump ------------------------------------------------------------------------------------------------
def _parse_dot(text):
    assert text.startswith("digraph ") and text.rstrip().endswith("}")
    assert text.count("{") == text.count("}") == 1
    nodes = re.findall(r"^\s+(\w+) \[.*\];$", text, re.M)
    edges = re.findall(r"^\s+(\w+) -> (\w+);$", text, re.M)
    return nodes, edges


def test_dot_writer_nodes_and_edges():
    g = _captured_mlp("jit")
    nodes, edges = _parse_dot(g.to_dot())
    # 5 inputs + 5 op nodes + 1 output; edges: 2+2+1+2+2 operands + 1 to the output
    assert len(nodes) == 11 and len(set(nodes)) == 11
    assert len(edges) == 10
    declared = set(nodes)
    assert all(a in declared and b in declared for a, b in edges)
    assert sum(1 for ln in g.to_dot().splitlines() if "doublecircle" in ln) == 1


def test_dot_escapes_quotes():
    g = Graph('we"ird')
    x = g.add_input(AVal((1,), float32), 'x"1')
    g.set_outputs([F.neg(x)])
    text = g.to_dot()
    assert 'digraph "we\\"ird"' in text and 'x\\"1' in text
    _parse_dot(text)


def test_dump_writes_ir_and_dot(tmp_path):
    g = _captured_mlp("jit")
    ir_path, dot_path = g.dump(str(tmp_path / "sub"), "0001_mlp")
    assert ir_path == str(tmp_path / "sub" / "0001_mlp.ir") and dot_path.endswith("0001_mlp.dot")
    assert open(ir_path).read() == g.format() + "\n"
    assert open(dot_path).read() == g.to_dot() + "\n"
    assert not [f for f in os.listdir(tmp_path / "sub") if ".tmp" in f]
    ir2, _ = g.dump(str(tmp_path))
    assert os.path.basename(ir2) == "MLP_construct.ir"


def test_pickling_a_graph_leaves_its_id_counter_as_it_was():
    """Saving a graph (capture's warm start pickles it) must not use up an id of the live graph."""
    import pickle

    def build(pickled_between):
        g = Graph("g")
        x = g.add_input(AVal((2,), float32), "x")
        if pickled_between:
            pickle.loads(pickle.dumps(g))
        return F.neg(x).id

    assert build(True) == build(False)
