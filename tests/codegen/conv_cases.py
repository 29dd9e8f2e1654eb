"""Convolution nodes for the implicit-GEMM kernels' tests (codegen/cuda/conv.py): each geometry
(odd sizes, strides, asymmetric and 'same' padding, dilation, groups up to depthwise, batch 1 and
more, channel counts that are not multiples of any tile, a window wider than the input) as a
``conv2d``, a ``conv2d_backprop_input`` and a ``conv2d_backprop_filter`` node, plus every tile
shape and forced K splits on one geometry, and float16 / float64 variants. The host emulation
runs them against the ops' numpy impls; the compile tier NVRTC-compiles them."""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from codegen.cuda.conv import TILES, plan_conv
from graph import dtypes
from graph.aval import AVal
from graph.ir import Graph
from graph.ops import F

#: name -> (x shape, weight shape, attrs)
GEOMETRIES = {
    "b1_c1_valid": ((1, 1, 13, 11), (5, 1, 3, 3), {}),
    "stride_pad_dil": ((3, 5, 9, 11), (7, 5, 3, 2), dict(stride=(2, 1), pad_mode="pad", padding=(1, 2, 0, 1),
                                                          dilation=(1, 2))),
    "groups3_same": ((2, 6, 8, 7), (9, 2, 3, 3), dict(groups=3, pad_mode="same")),
    "depthwise_s2_d2": ((2, 4, 7, 9), (4, 1, 3, 3), dict(groups=4, stride=2, pad_mode="same", dilation=2)),
    "wide_o70_1x1_s3": ((2, 3, 10, 10), (70, 3, 1, 1), dict(stride=3)),
    "c67_o130_pad1": ((1, 67, 5, 6), (130, 67, 3, 3), dict(pad_mode="pad", padding=1)),
    "window_over_input": ((2, 2, 3, 3), (3, 2, 5, 5), dict(pad_mode="pad", padding=2)),
    "lenet_c1": ((4, 1, 28, 28), (6, 1, 5, 5), dict(pad_mode="pad", padding=2)),
    "stride_3x2_even": ((2, 5, 12, 10), (6, 5, 4, 4), dict(stride=(3, 2), pad_mode="pad", padding=(0, 3, 2, 1))),
}

OPS = ("conv2d", "conv2d_backprop_input", "conv2d_backprop_filter")
DTYPES = {np.float16: dtypes.float16, np.float32: dtypes.float32, np.float64: dtypes.float64}


@dataclass
class ConvCase:
    id: str
    graph: Graph
    inputs: list
    dtype: type
    tile: object = None
    split: int | None = None

    @property
    def node(self):
        return self.graph.nodes[-1]

    def kernel(self):
        """(NativePlan, CudaKernel) of the case's node."""
        return plan_conv(self.node, _ident(self.id), self.tile, self.split)

    def expected(self):
        """The op's numpy impl; float16 cases: computed in float64 and rounded (numpy's half
        products accumulate in half, the kernels in float32)."""
        node = self.node
        if self.dtype == np.float16:
            wide = [x.astype(np.float64) for x in self.inputs]
            return node.op.impl(np, *wide, **node.attrs).astype(np.float16)
        return node.op.impl(np, *self.inputs, **node.attrs)


def _ident(s):
    return "cv_" + "".join(ch if ch.isalnum() else "_" for ch in s)


def conv_graph(op, x_shape, w_shape, attrs, dtype=np.float32):
    """A graph of one node ``op`` for the convolution of x_shape by w_shape."""
    dt = DTYPES[dtype]
    g = Graph(op)
    if op == "conv2d":
        x = g.add_input(AVal(x_shape, dt), "x")
        w = g.add_input(AVal(w_shape, dt), "w")
        g.set_outputs([F.conv2d(x, w, **attrs)])
        return g
    probe = Graph("probe")
    y = F.conv2d(probe.add_input(AVal(x_shape, dt), "x"), probe.add_input(AVal(w_shape, dt), "w"), **attrs)
    d = g.add_input(AVal(tuple(y.shape), dt), "dout")
    if op == "conv2d_backprop_input":
        w = g.add_input(AVal(w_shape, dt), "w")
        g.set_outputs([F.conv2d_backprop_input(d, w, input_size=x_shape, **attrs)])
    else:
        x = g.add_input(AVal(x_shape, dt), "x")
        g.set_outputs([F.conv2d_backprop_filter(d, x, filter_size=w_shape, **attrs)])
    return g


def _case(cid, op, geo, dtype=np.float32, **kw):
    x_shape, w_shape, attrs = GEOMETRIES[geo]
    g = conv_graph(op, x_shape, w_shape, attrs, dtype)
    rng = np.random.default_rng(zlib.crc32(cid.encode()))
    xs = [rng.standard_normal(tuple(v.shape)).astype(dtype) for v in g.inputs]
    return ConvCase(cid, g, xs, dtype, **kw)


def conv_cases():
    cases = [_case(f"{op}_{geo}", op, geo) for geo in GEOMETRIES for op in OPS]
    for t in TILES:  # every tile shape, with partial tiles in M, N and K
        for op in OPS:
            cases.append(_case(f"{op}_tile{t.bm}x{t.bn}", op, "stride_pad_dil", tile=t, split=1))
    for op in OPS:  # K split over blocks (the partial sums and the second kernel)
        for split in (2, 3):
            cases.append(_case(f"{op}_split{split}", op, "groups3_same", split=split))
        cases.append(_case(f"{op}_c67_split4", op, "c67_o130_pad1", split=4))
        for dtype in (np.float16, np.float64):
            for geo in ("stride_pad_dil", "depthwise_s2_d2"):
                cases.append(_case(f"{op}_{geo}_{np.dtype(dtype).name}", op, geo, dtype))
    return cases
