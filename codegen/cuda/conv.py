"""Convolutions on the GPU as generated implicit-GEMM kernels (no column matrix in memory).

CuPy 14 has no cuDNN bindings, so the CUDA backend computes ``conv2d`` and its two gradients,
``conv2d_backprop_input`` and ``conv2d_backprop_filter`` (NCHW, any stride, padding, dilation and
groups), with kernels generated here, one per graph node, the static shape baked in. Each is a
tiled GEMM per group whose tile loads compute the im2col index on the fly:

==========================  ===============  ===================  ==========================
op                          M (rows of C)    N (columns of C)     K (the summed index)
==========================  ===============  ===================  ==========================
conv2d (forward)            O/g  out chans   N*Ho*Wo positions    C/g*kh*kw (weight row)
conv2d_backprop_input       C/g  in chans    N*H*W positions      O/g*kh*kw (transposed w)
conv2d_backprop_filter      O/g  out chans   C/g*kh*kw taps       N*Ho*Wo (split over blocks)
==========================  ===============  ===================  ==========================

A is always the operand stored along K (the weight for the forward, the transposed weight for
the input gradient, ``dout`` for the filter gradient) and B the one read through the window
(the input, ``dout`` gathered back through the stride for the input gradient, the input again
for the filter gradient); a position a window reads from the padding, or that the stride skips,
loads 0.

The kernel (:func:`render_conv`): a block computes a BM x BN tile of C with BM/TM x BN/TN
threads, each holding a TM x TN register block (rows ``ty + i*BM/TM``, columns
``tx + j*BN/TN``: conflict-free shared-memory reads, coalesced stores). The K loop walks BK-deep
slices: the next slice's elements are loaded from global memory into registers while the current
one, in shared memory, is multiplied. A thread's tile loads keep either their row (M/N) or their
K index fixed across slices, so that part of the im2col index (image, output position, window
origin) is decoded once before the loop and only the other part per slice; loads run along the
operand's contiguous direction (coalesced). Accumulation is in float32 for float16 (stored as
half) and float32, in double for float64. The tile shape is chosen per node from a few
(:data:`TILES`) by a rough cost model (padding waste, per-FMA cost of the tile, waves of blocks on
an H100's 132 SMs); when the tiles are too few to fill the GPU and K is long, K is split over
``gridDim.z`` into partial sums that a second kernel (``<name>_fin``) adds in a fixed order
(deterministic, no atomics) - the filter gradient nearly always, its K being batch x positions.

:func:`plan_conv` turns a schedule's extern conv node into a ``(NativePlan, CudaKernel)`` pair
the runner launches like a fused kernel (operands in planned buffers), or explains why not
(integer or mixed dtypes, empty or >2**31-element tensors): those nodes run the op's
im2col + cuBLAS ``impl`` with ``xp=cupy``. The CUDA backend's pipeline skips the ``lower`` pass
(:func:`codegen.cuda.schedule_graph`) so that convolutions reach the runner whole; the CPU's
pipeline still lowers them.

Tile and split choices are reasoned, not tuned on a device: no GPU has run these kernels yet;
the host emulation (tests/codegen/cuda_host.py runs every thread of a block as a fiber, with
``__syncthreads`` as a real barrier) and NVRTC have.

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph
    >>> from graph.ops import F
    >>> g = Graph("c")
    >>> x = g.add_input(AVal((2, 3, 9, 9), float32), "x")
    >>> w = g.add_input(AVal((8, 3, 3, 3), float32), "w")
    >>> g.set_outputs([F.conv2d(x, w, stride=2)])
    >>> plan, kernel = plan_conv(g.nodes[0], "c_k0")
    >>> kernel.strategy, kernel.entries
    ('implicit_gemm', ['c_k0'])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .emitter import c_type, storage_type
from ..fused_plan import c_identifier
from .kernels import MAX_GRID, CudaKernel, Launch, _ceil_div

CONV_OPS = ("conv2d", "conv2d_backprop_input", "conv2d_backprop_filter")

#: concurrently resident blocks assumed by the tile / split choice (an H100: 132 SMs, two blocks each)
TARGET_BLOCKS = 264
MAX_GRID_YZ = 65535
FIN_BLOCK = 256


@dataclass(frozen=True)
class Tile:
    """A BM x BN tile of C per block, TM x TN per thread, BK-deep K slices; ``cost`` is a rough
    relative time per multiply-add (smaller register blocks load more per FMA)."""
    bm: int
    bn: int
    tm: int
    tn: int
    cost: float
    bk: int = 8

    @property
    def threads(self) -> int:
        return (self.bm // self.tm) * (self.bn // self.tn)

    def __str__(self):
        return f"{self.bm}x{self.bn}/{self.tm}x{self.tn}"


TILES = (Tile(128, 128, 8, 8, 1.0), Tile(64, 64, 4, 4, 1.25), Tile(32, 128, 4, 4, 1.3),
         Tile(128, 32, 4, 4, 1.3), Tile(16, 128, 2, 4, 1.6), Tile(32, 32, 2, 2, 2.0),
         Tile(8, 128, 1, 4, 2.2), Tile(8, 32, 1, 2, 3.0))


class NotCovered(Exception):
    """Why a convolution node runs the op's impl instead of a generated kernel."""


@dataclass
class ConvGeometry:
    n: int
    c: int
    h: int
    w: int
    o: int
    kh: int
    kw: int
    ho: int
    wo: int
    groups: int
    stride: tuple
    dilation: tuple
    pads: tuple  # top, bottom, left, right

    @property
    def cg(self):
        return self.c // self.groups

    @property
    def og(self):
        return self.o // self.groups

    @property
    def khw(self):
        return self.kh * self.kw


def geometry(node) -> ConvGeometry:
    from graph.ops.nn import _conv_check
    name, a = node.op.name, node.attrs
    if name == "conv2d":
        x_shape, w_shape = tuple(node.inputs[0].shape), tuple(node.inputs[1].shape)
    elif name == "conv2d_backprop_input":
        x_shape, w_shape = tuple(a["input_size"]), tuple(node.inputs[1].shape)
    else:
        x_shape, w_shape = tuple(node.inputs[1].shape), tuple(a["filter_size"])
    pads, (ho, wo) = _conv_check(name, x_shape, w_shape, a["stride"], a["pad_mode"], a["padding"],
                                 a["dilation"], a["groups"])
    n, c, h, w = x_shape
    o, _, kh, kw = w_shape
    return ConvGeometry(n, c, h, w, o, kh, kw, ho, wo, a["groups"], tuple(a["stride"]), tuple(a["dilation"]),
                        tuple(pads))


# -- the three GEMMs ------------------------------------------------------------------------------
# An operand of the GEMM is described by C snippets: ``row(p, r)`` decodes a row index r (of M for
# A, of N for B) into variables named with prefix p, ``kdec(p, k)`` decodes a K index, and
# ``elem(rp, kp)`` gives (extra load condition or None, element offset) from the two decodings.
# ``fast`` is the index that runs along memory ("k" or "row"): consecutive threads load
# consecutive values of it.

@dataclass
class GemmOperand:
    arg: int  # operand index of the kernel (the node's input)
    fast: str
    row: object
    kdec: object
    elem: object


@dataclass
class Gemm:
    m: int
    n: int
    k: int
    a: GemmOperand
    b: GemmOperand
    col: object  # col(p, n) -> lines decoding an output column for the store
    out: object  # out(m, p) -> output offset of C[m][n] (group g in scope)


def _gemm(op_name, geo: ConvGeometry) -> Gemm:
    G = geo
    C, H, W, O, P = G.c, G.h, G.w, G.o, G.ho * G.wo
    cg, og, khw, kw = G.cg, G.og, G.khw, G.kw
    sh, sw = G.stride
    dh, dw = G.dilation
    pt, _, pl, _ = G.pads
    hw = H * W

    def in_bounds(h, w):
        return f"(unsigned)({h}) < {H}u && (unsigned)({w}) < {W}u"

    if op_name == "conv2d":
        K = cg * khw
        a = GemmOperand(1, "k",
                        row=lambda p, r: [f"const int {p}base = (g * {og} + {r}) * {K};"],
                        kdec=lambda p, k: [],
                        elem=lambda rp, kp: (None, f"{rp}base + {kp}k"))
        b = GemmOperand(0, "row",
                        row=lambda p, r: [f"const int {p}b = ({r}) / {P}, {p}pq = ({r}) % {P};",
                                          f"const int {p}base = {p}b * {C * hw} + g * {cg * hw};",
                                          f"const int {p}h0 = ({p}pq / {G.wo}) * {sh} - {pt};",
                                          f"const int {p}w0 = ({p}pq % {G.wo}) * {sw} - {pl};"],
                        kdec=lambda p, k: [f"const int {p}c = ({k}) / {khw}, {p}ij = ({k}) % {khw};",
                                           f"const int {p}i = ({p}ij / {kw}) * {dh}, {p}j = ({p}ij % {kw}) * {dw};"],
                        elem=lambda rp, kp: (in_bounds(f"{rp}h0 + {kp}i", f"{rp}w0 + {kp}j"),
                                             f"{rp}base + {kp}c * {hw} + ({rp}h0 + {kp}i) * {W} + {rp}w0 + {kp}j"))
        return Gemm(og, G.n * P, K, a, b,
                    col=lambda p, n: [f"const int {p}base = (({n}) / {P}) * {O * P} + ({n}) % {P};"],
                    out=lambda m, p: f"{p}base + (g * {og} + {m}) * {P}")

    if op_name == "conv2d_backprop_input":
        K = og * khw

        def dout_elem(rp, kp):
            ph, qw = f"({rp}hn - {kp}i)", f"({rp}wn - {kp}j)"
            conds = [f"{ph} >= 0", f"{qw} >= 0"]
            if sh > 1:
                conds.append(f"{ph} % {sh} == 0")
            if sw > 1:
                conds.append(f"{qw} % {sw} == 0")
            p = f"{ph} / {sh}" if sh > 1 else ph
            q = f"{qw} / {sw}" if sw > 1 else qw
            conds += [f"{p} < {G.ho}", f"{q} < {G.wo}"]
            return " && ".join(conds), f"{rp}base + {kp}o * {P} + ({p}) * {G.wo} + {q}"

        a = GemmOperand(1, "k",
                        row=lambda p, r: [f"const int {p}base = g * {og * cg * khw} + ({r}) * {khw};"],
                        kdec=lambda p, k: [f"const int {p}off = (({k}) / {khw}) * {cg * khw} + ({k}) % {khw};"],
                        elem=lambda rp, kp: (None, f"{rp}base + {kp}off"))
        b = GemmOperand(0, "row",
                        row=lambda p, r: [f"const int {p}b = ({r}) / {hw}, {p}hw = ({r}) % {hw};",
                                          f"const int {p}base = {p}b * {O * P} + g * {og * P};",
                                          f"const int {p}hn = {p}hw / {W} + {pt}, {p}wn = {p}hw % {W} + {pl};"],
                        kdec=lambda p, k: [f"const int {p}o = ({k}) / {khw}, {p}ij = ({k}) % {khw};",
                                           f"const int {p}i = ({p}ij / {kw}) * {dh}, {p}j = ({p}ij % {kw}) * {dw};"],
                        elem=dout_elem)
        return Gemm(cg, G.n * hw, K, a, b,
                    col=lambda p, n: [f"const int {p}base = (({n}) / {hw}) * {C * hw} + ({n}) % {hw};"],
                    out=lambda m, p: f"{p}base + (g * {cg} + {m}) * {hw}")

    # conv2d_backprop_filter: dw[o][c, i, j] = sum over (image, output position)
    K = G.n * P
    a = GemmOperand(0, "k",
                    row=lambda p, r: [f"const int {p}base = (g * {og} + {r}) * {P};"],
                    kdec=lambda p, k: [f"const int {p}off = (({k}) / {P}) * {O * P} + ({k}) % {P};"],
                    elem=lambda rp, kp: (None, f"{rp}base + {kp}off"))
    b = GemmOperand(1, "k",
                    row=lambda p, r: [f"const int {p}c = ({r}) / {khw}, {p}ij = ({r}) % {khw};",
                                      f"const int {p}base = (g * {cg} + {p}c) * {hw};",
                                      f"const int {p}i = ({p}ij / {kw}) * {dh} - {pt}, {p}j = ({p}ij % {kw}) * {dw} - {pl};"],
                    kdec=lambda p, k: [f"const int {p}b = ({k}) / {P}, {p}pq = ({k}) % {P};",
                                       f"const int {p}off = {p}b * {C * hw};",
                                       f"const int {p}h = ({p}pq / {G.wo}) * {sh}, {p}w = ({p}pq % {G.wo}) * {sw};"],
                    elem=lambda rp, kp: (in_bounds(f"{kp}h + {rp}i", f"{kp}w + {rp}j"),
                                         f"{rp}base + {kp}off + ({kp}h + {rp}i) * {W} + {kp}w + {rp}j"))
    return Gemm(og, cg * khw, K, a, b, col=lambda p, n: [],
                out=lambda m, p: f"(g * {og} + {m}) * {cg * khw} + {p}n")


# -- tile and split choice --------------------------------------------------------------------------
def _split_for(tile, gemm, groups, force_split=None):
    """(split, chunk): K cut into ``split`` chunks of ``chunk`` (a multiple of BK)."""
    blocks = _ceil_div(gemm.m, tile.bm) * _ceil_div(gemm.n, tile.bn) * groups
    k_tiles = _ceil_div(gemm.k, tile.bk)
    if force_split is not None:
        split = max(1, min(force_split, k_tiles))
    elif blocks < TARGET_BLOCKS and k_tiles >= 8:
        split = min(_ceil_div(TARGET_BLOCKS, blocks), _ceil_div(k_tiles, 4))
    else:
        split = 1
    split = max(1, min(split, MAX_GRID_YZ // groups))
    chunk = _ceil_div(k_tiles, split) * tile.bk
    return _ceil_div(gemm.k, chunk), chunk


def _estimate(tile, gemm, groups, split, chunk):
    """Relative time: waves of resident blocks x a block's work, plus the partial sums' traffic."""
    blocks = _ceil_div(gemm.m, tile.bm) * _ceil_div(gemm.n, tile.bn) * groups * split
    t = _ceil_div(blocks, TARGET_BLOCKS) * tile.bm * tile.bn * tile.cost * chunk
    if split > 1:
        t += split * groups * gemm.m * gemm.n * 32 / TARGET_BLOCKS
    return t


def choose(gemm, groups, tile=None, force_split=None):
    """(tile, split, chunk) for a GEMM of ``groups`` groups."""
    best = None
    for t in ([tile] if tile is not None else TILES):
        split, chunk = _split_for(t, gemm, groups, force_split)
        cost = _estimate(t, gemm, groups, split, chunk)
        if best is None or cost < best[0]:
            best = (cost, t, split, chunk)
    return best[1:]


# -- rendering --------------------------------------------------------------------------------------
def _loads(op: GemmOperand, tile_rows, bk, nt, rows_total, reg, smem, prefix):
    """Code of one operand's tile: (setup lines before the K loop (``{r0}``: the tile's first
    row), load lines of the slice starting at ``{k0}`` into registers ``reg`` (``{ld}``: the
    element conversion), lines storing those registers into the shared tile ``smem``, number of
    registers)."""
    setup, load, store = [], [], []
    elems = tile_rows * bk
    if op.fast == "k":
        per = nt // bk  # rows covered by one pass of the threads
        n_slots = _ceil_div(elems, nt)
        setup.append(f"const int {prefix}kk = tid % {bk};")
        kp = f"{prefix}K_"
        load.append(f"const int {kp}k = {{k0}} + {prefix}kk;")
        load.extend(op.kdec(kp, f"{kp}k"))
        for r in range(n_slots):
            rr = f"{prefix}r{r}_"
            setup.append(f"const int {rr}t = tid / {bk} + {r * per};")
            setup.append(f"const int {rr}g = {rr}t + {{r0}};")
            guard = f"{rr}t < {tile_rows} && " if per * n_slots > tile_rows else ""
            setup.append(f"const bool {rr}ok = {guard}{rr}g < {rows_total};")
            setup.extend(op.row(rr, f"{rr}g"))
            cond, off = op.elem(rr, kp)
            full = f"{rr}ok && {kp}k < kend" + (f" && {cond}" if cond else "")
            load.append(f"{reg}[{r}] = ({full}) ? {{ld}}(p{op.arg}[{off}]) : 0;")
            st = f"{smem}[{prefix}kk][{rr}t] = {reg}[{r}];"
            store.append(f"if ({rr}t < {tile_rows}) {st}" if guard else st)
    else:
        assert nt % tile_rows == 0, (nt, tile_rows)
        per = nt // tile_rows  # K rows covered by one pass
        n_slots = _ceil_div(elems, nt)
        rr = f"{prefix}R_"
        setup.append(f"const int {prefix}t = tid % {tile_rows};")
        setup.append(f"const int {prefix}g = {prefix}t + {{r0}};")
        setup.append(f"const bool {prefix}ok = {prefix}g < {rows_total};")
        setup.extend(op.row(rr, f"{prefix}g"))
        for r in range(n_slots):
            kk = f"{prefix}kk{r}"
            setup.append(f"const int {kk} = tid / {tile_rows} + {r * per};")
            guard = per * n_slots > bk
            kp = f"{prefix}K{r}_"
            body = [f"const int {kp}k = {{k0}} + {kk};"] + op.kdec(kp, f"{kp}k")
            cond, off = op.elem(rr, kp)
            full = f"{prefix}ok && {kp}k < kend" + (f" && {cond}" if cond else "")
            body.append(f"{reg}[{r}] = ({full}) ? {{ld}}(p{op.arg}[{off}]) : 0;")
            if guard:
                load.append(f"if ({kk} < {bk}) {{ " + " ".join(body) + " }")
                store.append(f"if ({kk} < {bk}) {smem}[{kk}][{prefix}t] = {reg}[{r}];")
            else:
                load.append("{ " + " ".join(body) + " }")
                store.append(f"{smem}[{kk}][{prefix}t] = {reg}[{r}];")
    return setup, load, store, n_slots


def render_conv(name, op_name, geo: ConvGeometry, dtype, tile=None, force_split=None) -> CudaKernel:
    """The implicit-GEMM kernel(s) of one convolution node (operands: the node's two inputs, then
    its output); ``tile``/``force_split`` override the choice (tests)."""
    dt = np.dtype(dtype)
    acc_dt = np.dtype(np.float64 if dt == np.float64 else np.float32)
    acc = c_type(acc_dt)
    st = storage_type(dt)
    gemm = _gemm(op_name, geo)
    G = geo.groups
    t, split, chunk = choose(gemm, G, tile, force_split)
    nt, bk = t.threads, t.bk
    gx, gy, gz = _ceil_div(gemm.n, t.bn), _ceil_div(gemm.m, t.bm), G * split
    if gy > MAX_GRID_YZ or gz > MAX_GRID_YZ or gx >= 2 ** 31:
        raise NotCovered(f"grid {gx}x{gy}x{gz} exceeds CUDA's limits")
    if split > 1 and split * G * gemm.m * gemm.n >= 2 ** 31:
        raise NotCovered("partial sums of 2**31 elements or more (32-bit indexing)")
    ld = "msjit_h2f" if dt == np.float16 else ""

    a_setup, a_load, a_store, ra = _loads(gemm.a, t.bm, bk, nt, gemm.m, "ra", "As", "a")
    b_setup, b_load, b_store, rb = _loads(gemm.b, t.bn, bk, nt, gemm.n, "rb", "Bs", "b")
    a_setup = [s.replace("{r0}", "m0") for s in a_setup]
    b_setup = [s.replace("{r0}", "n0") for s in b_setup]

    def load_at(k0):
        return [s.replace("{k0}", k0).replace("{ld}", ld) for s in a_load + b_load]

    # shared rows padded to 4 (mod 32) words: a warp's K-fast stores (8 K x 4 rows) hit 32 banks
    pad_a, pad_b = (4 - t.bm) % 32, (4 - t.bn) % 32
    ty_n, tx_n = t.bm // t.tm, t.bn // t.tn
    lines = [
        f"__shared__ {acc} As[{bk}][{t.bm + pad_a}];",
        f"__shared__ {acc} Bs[{bk}][{t.bn + pad_b}];",
        "const int tid = threadIdx.x;",
        f"const int g = blockIdx.z / {split}, ks = blockIdx.z % {split};",
        f"const int m0 = blockIdx.y * {t.bm}, n0 = blockIdx.x * {t.bn};",
        f"const int kbeg = ks * {chunk}, kend = kbeg + {chunk} < {gemm.k} ? kbeg + {chunk} : {gemm.k};",
        f"const int ty = tid / {tx_n}, tx = tid % {tx_n};",
        *a_setup, *b_setup,
        f"{acc} ra[{ra}], rb[{rb}];",
        f"{acc} acc[{t.tm}][{t.tn}];",
        f"for (int i = 0; i < {t.tm}; ++i) for (int j = 0; j < {t.tn}; ++j) acc[i][j] = 0;",
        "{", *load_at("kbeg"), "}",
        f"for (int k0 = kbeg; k0 < kend; k0 += {bk}) {{",
        *["  " + s for s in a_store + b_store],
        "  __syncthreads();",
        f"  if (k0 + {bk} < kend) {{",
        *["    " + s for s in load_at(f"(k0 + {bk})")],
        "  }",
        "  #pragma unroll",
        f"  for (int kk = 0; kk < {bk}; ++kk) {{",
        f"    {acc} av[{t.tm}], bv[{t.tn}];",
        "    #pragma unroll",
        f"    for (int i = 0; i < {t.tm}; ++i) av[i] = As[kk][ty + i * {ty_n}];",
        "    #pragma unroll",
        f"    for (int j = 0; j < {t.tn}; ++j) bv[j] = Bs[kk][tx + j * {tx_n}];",
        "    #pragma unroll",
        f"    for (int i = 0; i < {t.tm}; ++i)",
        "      #pragma unroll",
        f"      for (int j = 0; j < {t.tn}; ++j) acc[i][j] += av[i] * bv[j];",
        "  }",
        "  __syncthreads();",
        "}",
    ]
    # the store: C[m][n] -> the output, or this split's partial sums
    store_val = "msjit_f2h(acc[i][j])" if dt == np.float16 else "acc[i][j]"
    lines += [
        "#pragma unroll",
        f"for (int j = 0; j < {t.tn}; ++j) {{",
        f"  const int cn = n0 + tx + j * {tx_n};",
        f"  if (cn >= {gemm.n}) continue;",
    ]
    if split == 1:
        lines += ["  " + s for s in gemm.col("c", "cn")]
        lines += [
            "  #pragma unroll",
            f"  for (int i = 0; i < {t.tm}; ++i) {{",
            f"    const int cm = m0 + ty + i * {ty_n};",
            f"    if (cm < {gemm.m}) p2[{gemm.out('cm', 'c')}] = {store_val};",
            "  }",
        ]
    else:
        lines += [
            "  #pragma unroll",
            f"  for (int i = 0; i < {t.tm}; ++i) {{",
            f"    const int cm = m0 + ty + i * {ty_n};",
            f"    if (cm < {gemm.m}) partials[((ks * {G} + g) * {gemm.m} + cm) * {gemm.n} + cn] = acc[i][j];",
            "  }",
        ]
    lines.append("}")
    params = [(f"const {st}* __restrict__", 0), (f"const {st}* __restrict__", 1), (f"{st}* __restrict__", 2)]
    if split > 1:
        params.append((f"{acc}* __restrict__", "partials"))
    src = _function(name, nt, params, lines)
    launches = [Launch(name, (gx, gy, gz), (nt, 1, 1), [a for _, a in params])]
    entry_params = {name: params}
    if split > 1:
        fin = name + "_fin"
        total = G * gemm.m * gemm.n
        sum_dt = "double"
        fstore = "msjit_f2h((float)s)" if dt == np.float16 else f"({st})s"
        fl = [
            f"for (int e = blockIdx.x * {FIN_BLOCK} + threadIdx.x; e < {total}; e += gridDim.x * {FIN_BLOCK}) {{",
            f"  {sum_dt} s = 0;",
            f"  for (int q = 0; q < {split}; ++q) s += partials[q * {total} + e];",
            f"  const int g = e / {gemm.m * gemm.n}, cm = (e / {gemm.n}) % {gemm.m}, cn = e % {gemm.n};",
            *["  " + s for s in gemm.col("c", "cn")],
            f"  p2[{gemm.out('cm', 'c')}] = {fstore};",
            "}",
        ]
        fparams = [(f"const {acc}* __restrict__", "partials"), (f"{st}* __restrict__", 2)]
        src += _function(fin, FIN_BLOCK, fparams, fl)
        launches.append(Launch(fin, (max(1, min(_ceil_div(total, FIN_BLOCK), MAX_GRID)), 1, 1), (FIN_BLOCK, 1, 1),
                               [a for _, a in fparams]))
        entry_params[fin] = fparams
    kernel = CudaKernel(None, src, launches, entry_params, "implicit_gemm", acc_dt,
                        split * G * gemm.m * gemm.n if split > 1 else 0, cooperative=True)
    kernel.notes.append(f"M={gemm.m} N={gemm.n} K={gemm.k} groups={G} tile={t} split={split}")
    kernel.tile, kernel.split = t, split
    return kernel


def _function(name, nt, params, lines):
    args = ", ".join(f"{t} {'partials' if a == 'partials' else f'p{a}'}" for t, a in params)
    body = "\n".join("  " + s for s in lines)
    return f'extern "C" __global__ void __launch_bounds__({nt}) {name}({args}) {{\n{body}\n}}\n'


# -- planning ---------------------------------------------------------------------------------------
def plan_conv(node, name, tile=None, force_split=None):
    """(NativePlan, CudaKernel) of a convolution node; :class:`NotCovered` when the op's impl must
    run it instead."""
    from graph.ir import Value
    from ..cpu.native import NativePlan
    from ..fused_plan import Operand
    if node.op.name not in CONV_OPS:
        raise NotCovered(f"{node.op.name} is not a convolution")
    ins = node.inputs
    if not all(isinstance(v, Value) for v in ins):
        raise NotCovered("an operand is not a tensor value")
    dts = {np.dtype(v.dtype.np) for v in ins}
    out = node.outputs[0]
    dt = np.dtype(out.dtype.np)
    if len(dts) != 1 or dt not in dts or dt not in (np.float16, np.float32, np.float64):
        raise NotCovered(f"dtypes {sorted(str(d) for d in dts)} -> {dt}: the kernels take one float dtype")
    sizes = [int(np.prod(v.shape, dtype=np.int64)) for v in (*ins, out)]
    if min(sizes) == 0:
        raise NotCovered("an empty tensor")
    if max(sizes) >= 2 ** 31 - 2 ** 20:
        raise NotCovered("a tensor of 2**31 elements or more (32-bit indexing)")
    geo = geometry(node)
    kernel = render_conv(name, node.op.name, geo, dt, tile, force_split)
    operands = [Operand(v, np.dtype(v.dtype.np), [], "in") for v in ins] + [Operand(out, dt, [], "out")]
    plan = NativePlan(name, node, operands, [int(s) for s in out.shape], int(np.prod(out.shape)),
                      geometry={"kernel": kernel.notes[0]})
    kernel.plan = plan
    return plan, kernel


def conv_kernels(schedule, name):
    """kernel index -> (NativePlan, CudaKernel) or :class:`NotCovered`, for every extern
    convolution kernel of a schedule; plans are named ``<name>_k<index>`` like fused ones."""
    ident = c_identifier(name)
    out = {}
    for ki, k in enumerate(schedule.kernels):
        if k.kind != "extern" or len(k.nodes) != 1 or k.nodes[0].op.name not in CONV_OPS:
            continue
        try:
            out[ki] = plan_conv(k.nodes[0], f"{ident}_k{ki}")
        except NotCovered as e:
            out[ki] = e
    return out

