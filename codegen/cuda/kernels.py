"""FusedPlan (codegen/fused_plan.py) -> CUDA C kernels with the static shape baked in.

One plan becomes one or two ``extern "C" __global__`` functions and the launches that run them:

* **elementwise** (no reduction): a grid-stride loop over the iteration space; operands whose
  layout is the loop's own are indexed by the loop counter, broadcast ones through the decoded
  coordinates (divisions by compile-time constants).
* **row reduction** (the innermost axis is reduced): one block per output, its threads stride over
  the reduced elements, then a warp-shuffle block reduction (prelude ``msjit_block_reduce``).
* **column reduction** (the innermost axis is kept): one thread per output walking the reduced
  elements, so neighbouring threads read neighbouring addresses.

When there are too few outputs to fill the GPU and many elements per output, the reduced range
is split over ``gridDim.y`` chunks writing partial results, and a second kernel (``<name>_fin``,
one block per output) combines them. float32 sums accumulate in double (as on the CPU).

Example:
    >>> from graph.ops import REGISTRY
    >>> # kernel = render(plan_fused(schedule.kernels[0], "k0")); kernel.source, kernel.launches
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..fused_plan import FusedPlan, compute_dtype, emit_body, reduction_identity
from .emitter import CUDAEmitter, CV, c_type, convert, literal, storage_type
from .prelude import COMBINERS

BLOCK = 256  # threads per block of elementwise and column kernels
MAX_GRID = 8192  # grid-stride loops: more blocks than this only add scheduling work
TARGET_BLOCKS = 1024  # a reduction with fewer blocks than this is split over gridDim.y
MAX_SPLIT = 65535  # gridDim.y limit


@dataclass
class Launch:
    """One kernel launch: ``args`` are operand indices of the plan, or "partials"."""
    entry: str
    grid: tuple
    block: tuple
    args: list


@dataclass
class CudaKernel:
    plan: FusedPlan  # or a codegen.cpu.native.NativePlan (convolutions)
    source: str
    launches: list
    params: dict  # entry -> [(C type, arg)] in parameter order (arg as in Launch.args)
    strategy: str  # "elementwise" | "row" | "column"
    acc_dtype: np.dtype | None = None
    partials: int = 0  # elements of the partial-results buffer (acc dtype); 0: no split
    notes: list = field(default_factory=list)
    #: the threads of a block work together (shared-memory tiles, ``__syncthreads``): the host
    #: emulation must run whole blocks (the implicit-GEMM convolutions, codegen/cuda/conv.py)
    cooperative: bool = False

    @property
    def entries(self) -> list[str]:
        return [launch.entry for launch in self.launches]


def _ceil_div(a, b):
    return -(-a // b)


def _index_type(*sizes) -> str:
    """``int`` while every index and the loop's next step stay below 2**31."""
    return "int" if max(sizes) + BLOCK * MAX_GRID < 2 ** 31 else "long long"


class _Coords:
    """Coordinates of a linear index over some collapsed axes, decoded once, and the offsets of
    every operand at them."""

    def __init__(self, lines, var, axes, dims, idx, prefix):
        self.lines, self.var, self.axes, self.dims, self.idx = lines, var, axes, dims, idx
        self.prefix = prefix
        self.names = {}

    def decode(self):
        axes = self.axes
        if not axes:
            return
        if len(axes) == 1:
            self.names[axes[0]] = self.var
            return
        rem = f"{self.prefix}r"
        self.lines.append(f"{self.idx} {rem} = {self.var};")
        for a in reversed(axes[1:]):
            name = f"{self.prefix}{a}"
            self.lines.append(f"const {self.idx} {name} = {rem} % {self.dims[a]}; {rem} /= {self.dims[a]};")
            self.names[a] = name
        self.names[axes[0]] = rem

    def contiguous(self, strides) -> bool:
        """Whether the operand's layout over these axes is the index's own (offset = index)."""
        acc = 1
        for a in reversed(self.axes):
            if strides[a] != acc:
                return False
            acc *= self.dims[a]
        return True

    def offset(self, strides) -> str:
        """Offset expression of an operand with these per-axis strides, over this index's axes
        (after :meth:`decode` unless every operand is contiguous)."""
        axes = self.axes
        if not axes:
            return "0"
        if self.contiguous(strides):
            return self.var
        terms = [f"{self.names[a]} * {strides[a]}" if strides[a] != 1 else self.names[a]
                 for a in axes if strides[a]]
        return " + ".join(terms) if terms else "0"


def _params(plan: FusedPlan, with_partials, acc_ct):
    ps = []
    for k, o in enumerate(plan.operands):
        const = "const " if o.role == "in" else ""
        ps.append((f"{const}{storage_type(o.dtype)}* __restrict__", k))
    if with_partials:
        ps.append((f"{acc_ct}* __restrict__", "partials"))
    return ps


def _signature(entry, block, params):
    args = ", ".join(f"{t} {_arg_name(a)}" for t, a in params)
    return f'extern "C" __global__ void __launch_bounds__({block}) {entry}({args})'


def _arg_name(a):
    return "partials" if a == "partials" else f"p{a}"


def _load(plan, k, off) -> CV:
    o = plan.operands[k]
    cd = compute_dtype(o.dtype)
    ref = f"p{k}[{off}]"
    if o.dtype == np.bool_:
        return CV(f"({ref} != 0)", cd)
    if o.dtype == np.float16:
        return CV(f"msjit_h2f({ref})", cd)
    return CV(ref, cd)


def _store_stmt(plan, k, off, v: CV) -> str:
    o = plan.operands[k]
    c = convert(v.c, v.dt, compute_dtype(o.dtype))
    if o.dtype == np.bool_:
        c = f"(unsigned char)({c})"
    elif o.dtype == np.float16:
        c = f"msjit_f2h({c})"
    return f"p{k}[{off}] = {c};"


def _element(plan, offsets, prefix, lines):
    """Emit one element of the chain (loads, body, stores) into ``lines``; the reduction operand's
    value (or None)."""
    E = CUDAEmitter(prefix=prefix)
    loads = {}

    def load(k):
        # each input is read once per element, into a temporary (the expression may use it often)
        if k not in loads:
            v = _load(plan, k, offsets[k])
            loads[k] = E.temp(v.c, v.dt)
        return loads[k]

    stores = []

    def store(k, v):
        stores.append(_store_stmt(plan, k, offsets[k], v))
    v = emit_body(E, plan, load, store)
    lines.extend(E.lines)
    lines.extend(stores)
    if v is not None:
        return v, E
    return None, E


def render(plan: FusedPlan) -> CudaKernel:
    """The CUDA C kernel(s) and launches of one fused plan."""
    dims = list(plan.dims) or [1]
    reduced = list(plan.reduced) or [plan.reduce is not None]
    strides = [list(o.strides) or [0] for o in plan.operands]
    if plan.reduce is None:
        return _render_elementwise(plan, dims, strides)
    return _render_reduction(plan, dims, reduced, strides)


def _render_elementwise(plan, dims, strides):
    total = int(np.prod(dims, dtype=np.int64))
    idx = _index_type(total)
    axes = list(range(len(dims)))
    lines = []
    coords = _Coords(lines, "i", axes, dims, idx, "c")
    if not all(coords.contiguous(st) for st in strides):
        coords.decode()
    offsets = [coords.offset(st) for st in strides]
    _element(plan, offsets, "t", lines)
    params = _params(plan, False, None)
    body = "\n    ".join(lines)
    src = (f"{_signature(plan.name, BLOCK, params)} {{\n"
           f"  for ({idx} i = ({idx})blockIdx.x * blockDim.x + threadIdx.x; i < {total}; "
           f"i += ({idx})gridDim.x * blockDim.x) {{\n    {body}\n  }}\n}}\n")
    grid = max(1, min(_ceil_div(total, BLOCK), MAX_GRID))
    launch = Launch(plan.name, (grid, 1, 1), (BLOCK, 1, 1), [a for _, a in params])
    return CudaKernel(plan, src, [launch], {plan.name: params}, "elementwise")


def _acc_dtype(plan):
    red_dt = plan.red_dtype
    if red_dt == np.float32 and plan.red_kind == "add":
        return np.dtype(np.float64)  # as the CPU kernels: float32 sums accumulate in double
    return np.dtype(red_dt)


def _final_store(plan, red_k, acc: str, acc_dt, out_off, lines, indent):
    """Store a finished accumulator into the reduction output (with reduce_mean's scale)."""
    red_dt = np.dtype(plan.red_dtype)
    v = CV(convert(acc, acc_dt, red_dt), red_dt)
    if plan.red_scale is not None:
        v = CV(f"({v.c} * {literal(plan.red_scale, red_dt)})", red_dt)
    lines.append(indent + _store_stmt(plan, red_k, out_off, v))


def _render_reduction(plan, dims, reduced, strides):
    ops = plan.operands
    red_k = next(k for k, o in enumerate(ops) if o.role == "red")
    kept = [a for a in range(len(dims)) if not reduced[a]]
    red_axes = [a for a in range(len(dims)) if reduced[a]]
    n_out = int(np.prod([dims[a] for a in kept], dtype=np.int64)) if kept else 1
    n_red = int(np.prod([dims[a] for a in red_axes], dtype=np.int64)) if red_axes else 1
    # the reduction output is contiguous over the kept axes in order: its offset is the output index
    acc = 1
    for a in reversed(kept):
        assert strides[red_k][a] in (acc, 0), "reduction output is not contiguous over kept axes"
        acc *= dims[a]
    acc_dt = _acc_dtype(plan)
    acc_ct = c_type(acc_dt)
    ident = literal(reduction_identity(plan.red_kind, acc_dt), acc_dt)
    combine = COMBINERS[plan.red_kind]
    idx = _index_type(n_out * max(n_red, 1), n_out, n_red)
    row = reduced[-1]
    if row:
        block = min(BLOCK, max(32, _ceil_div(n_red, 32) * 32))
        out_blocks = n_out
        per_block = block * 4  # elements per thread worth a block of its own
    else:
        block = BLOCK
        out_blocks = _ceil_div(n_out, BLOCK)
        per_block = 16
    split = 1
    if out_blocks < TARGET_BLOCKS and n_red >= 2 * per_block:
        split = min(_ceil_div(TARGET_BLOCKS, max(out_blocks, 1)), _ceil_div(n_red, per_block), MAX_SPLIT)
    chunk = _ceil_div(n_red, split) if n_red else 0
    if split > 1:
        split = _ceil_div(n_red, chunk)
    with_partials = split > 1
    params = _params(plan, with_partials, acc_ct)

    lines = []
    out_coords = _Coords(lines, "o", kept, dims, idx, "c")
    out_coords.decode()
    # per operand: the offset part of the output coordinates, computed once per output
    o_parts = [out_coords.offset(st) for st in strides]
    for k, part in enumerate(o_parts):
        if part not in ("0", "o"):
            lines.append(f"const {idx} oo{k} = {part};")
            o_parts[k] = f"oo{k}"
    inner = []
    red_coords = _Coords(inner, "j", red_axes, dims, idx, "r")
    red_coords.decode()
    offsets = []
    for k, st in enumerate(strides):
        if ops[k].role == "red":
            offsets.append(None)
            continue
        j_part = red_coords.offset(st)
        parts = [p for p in (o_parts[k], j_part) if p != "0"]
        offsets.append(" + ".join(parts) if parts else "0")
    v, E = _element(plan, offsets, "t", inner)
    inner.append(f"acc = {combine}()(acc, {convert(v.c, v.dt, acc_dt)});")

    if with_partials:
        jrange = (f"const {idx} j0 = ({idx})blockIdx.y * {chunk}; "
                  f"const {idx} j1 = j0 + {chunk} < {n_red} ? j0 + {chunk} : {n_red};")
    else:
        jrange = f"const {idx} j0 = 0; const {idx} j1 = {n_red};"
    ind = "    "
    head = "\n".join(ind + s for s in lines)
    body = "\n".join(ind + "  " + s for s in inner)
    finish = []
    if row:
        loop = f"for ({idx} o = blockIdx.x; o < {n_out}; o += gridDim.x)"
        jloop = f"for ({idx} j = j0 + threadIdx.x; j < j1; j += blockDim.x)"
        reduce_block = f"{ind}acc = msjit_block_reduce(acc, ({acc_ct}){ident}, {combine}(), msjit_smem);\n"
        if with_partials:
            finish.append(f"{ind}if (threadIdx.x == 0) partials[o * {split} + blockIdx.y] = acc;")
        else:
            _final_store(plan, red_k, "acc", acc_dt, "o", finish, ind + "if (threadIdx.x == 0) ")
        smem = f"  __shared__ {acc_ct} msjit_smem[32];\n"
        grid = (max(1, min(n_out, 65535 * 32)), split, 1)
    else:
        loop = f"for ({idx} o = ({idx})blockIdx.x * blockDim.x + threadIdx.x; o < {n_out}; o += ({idx})gridDim.x * blockDim.x)"
        jloop = f"for ({idx} j = j0; j < j1; ++j)"
        reduce_block = ""
        if with_partials:
            finish.append(f"{ind}partials[o * {split} + blockIdx.y] = acc;")
        else:
            _final_store(plan, red_k, "acc", acc_dt, "o", finish, ind)
        smem = ""
        grid = (max(1, min(out_blocks, MAX_GRID)), split, 1)
    src = (f"{_signature(plan.name, block, params)} {{\n{smem}"
           f"  {loop} {{\n{head}\n{ind}{jrange}\n{ind}{acc_ct} acc = {ident};\n"
           f"{ind}{jloop} {{\n{body}\n{ind}}}\n{reduce_block}" + "\n".join(finish) + "\n  }\n}\n")
    launches = [Launch(plan.name, grid, (block, 1, 1), [a for _, a in params])]
    entry_params = {plan.name: params}
    if with_partials:
        fin = plan.name + "_fin"
        fblock = min(BLOCK, max(32, _ceil_div(split, 32) * 32))
        fparams = [(f"const {acc_ct}* __restrict__", "partials"),
                   (f"{storage_type(ops[red_k].dtype)}* __restrict__", red_k)]
        fl = []
        _final_store(plan, red_k, "acc", acc_dt, "o", fl, ind + "if (threadIdx.x == 0) ")
        src += (f"{_signature(fin, fblock, fparams)} {{\n  __shared__ {acc_ct} msjit_smem[32];\n"
                f"  for ({idx} o = blockIdx.x; o < {n_out}; o += gridDim.x) {{\n"
                f"{ind}{acc_ct} acc = {ident};\n"
                f"{ind}for (int p = threadIdx.x; p < {split}; p += blockDim.x) "
                f"acc = {combine}()(acc, partials[o * {split} + p]);\n"
                f"{ind}acc = msjit_block_reduce(acc, ({acc_ct}){ident}, {combine}(), msjit_smem);\n"
                + "\n".join(fl) + "\n  }\n}\n")
        launches.append(Launch(fin, (max(1, min(n_out, 65535 * 32)), 1, 1), (fblock, 1, 1),
                               [a for _, a in fparams]))
        entry_params[fin] = fparams
    kernel = CudaKernel(plan, src, launches, entry_params, "row" if row else "column", acc_dt,
                        n_out * split if with_partials else 0)
    kernel.notes.append(f"n_out={n_out} n_red={n_red} split={split} block={block}")
    return kernel

