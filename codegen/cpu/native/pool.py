"""Max pooling and its gradient."""
from __future__ import annotations

from llvmlite import ir

from ..kernels import _Loop
from ..vmath import intrinsic
from .body import const64, begin


# -- max pooling ---------------------------------------------------------------------------------------
def _window_positions(E, g, oh, ow):
    """For each kernel offset (i, j): (input offset within the plane, is-inside) with i1
    conditions only where padding can be read (None: always inside)."""
    b = E.b
    _, _, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    pt, _, pl, _ = g["pads"]
    padded = any(g["pads"])
    out = []
    for i in range(kh):
        ih = E.add(E.mul(oh, sh), i - pt)
        for j in range(kw):
            iw = E.add(E.mul(ow, sw), j - pl)
            if not padded:
                out.append((E.add(E.mul(ih, w), iw), None))
                continue
            inside = b.and_(b.icmp_unsigned("<", ih, const64(h)), b.icmp_unsigned("<", iw, const64(w)))
            # a clamped offset keeps the load in bounds; its value is replaced by -inf
            ihc = b.select(inside, ih, const64(0))
            iwc = b.select(inside, iw, const64(0))
            out.append((E.add(E.mul(ihc, w), iwc), inside))
    return out


# -- 2x2 windows that tile the input (stride 2, no padding): explicit vectors --------------------
# The window loops do not vectorise (stride-2 positions, 14 windows a row for LeNet5's first
# pooling): V consecutive windows are two rows of 2V contiguous values, split into their four
# positions by shuffles. LeNet5 b256's pooling gradients, data in cache: 715 -> 171 and 320 -> 92 us.

#: windows per vector (an IR loop of the first, then one of the second; the rest one at a time)
LANES = (8, 4)
#: fewest windows (images x channels x output positions) for which the vector path is compiled:
#: it costs LLVM ~6 ms per kernel, and under this the loop takes some 100 us a step at most
VECTOR_MIN_WINDOWS = 1 << 16


def vector_windows(g) -> bool:
    """Whether a pooling of geometry ``g`` runs the vector path: 2x2 windows tiling the input,
    enough of them."""
    n, c = g["shape"][:2]
    ho, wo = g["out_hw"]
    return bool(g["tiles"]) and tuple(g["kernel"]) == (2, 2) and n * c * ho * wo >= VECTOR_MIN_WINDOWS


def _over_windows(b, wo, vector, single, vectorise=True):
    """``vector(ow0, n)`` for chunks of n windows of a row, ``single(ow)`` for the rest (all of
    them when not ``vectorise``)."""
    wide, narrow = LANES
    if not vectorise:
        wide = narrow = wo + 1
    start = 0
    if wo >= wide:
        chunks = _Loop(b, const64(0), const64(wo // wide), "ow_v")
        vector(b.mul(chunks.i, const64(wide)), wide)
        chunks.close()
        start = wo // wide * wide
    if wo - start >= narrow:
        vector(const64(start), narrow)
        start += narrow
    if start < wo:
        rest = _Loop(b, const64(start), const64(wo), "ow_1")
        single(rest.i)
        rest.close()


def _lanes(n, index):
    return ir.Constant(ir.VectorType(ir.IntType(32), n), [index(i) for i in range(n)])


def _vector_ptr(E, k, off, n):
    b = E.b
    return b.bitcast(b.gep(E.ptrs[k], [off], inbounds=True), ir.VectorType(E.ty, n).as_pointer())


def _align(E):
    return 4 if isinstance(E.ty, ir.FloatType) else 8


def _vload(E, k, off, n):
    return E.b.load(_vector_ptr(E, k, off, n), align=_align(E))


def _vstore(E, k, off, v):
    E.b.store(v, _vector_ptr(E, k, off, v.type.count), align=_align(E))


def _window_positions_2x2(E, X, at, w, n):
    """[x00, x01, x10, x11]: the four positions of n consecutive windows, top-left at ``at``."""
    b = E.b
    rows = (_vload(E, X, at, 2 * n), _vload(E, X, E.add(at, w), 2 * n))
    return [b.shuffle_vector(r, r, _lanes(n, lambda i, j=j: 2 * i + j)) for r in rows for j in (0, 1)]


def _interleave(b, left, right, n):
    """<l0, r0, l1, r1, ...>: two positions of each window back in row order."""
    return b.shuffle_vector(left, right, _lanes(2 * n, lambda i: i // 2 + (n if i % 2 else 0)))


def _vmaximum(b, x, y):
    n, ty = x.type.count, x.type.element
    name = f"llvm.maximum.v{n}{'f32' if isinstance(ty, ir.FloatType) else 'f64'}"
    fn = b.module.globals.get(name) or ir.Function(b.module, ir.FunctionType(x.type, [x.type, x.type]), name)
    return b.call(fn, [x, y])


def emit_max_pool(module, plan):
    g = plan.geometry
    _, _, h, w = g["shape"]
    ho, wo = g["out_hw"]
    E, lo, hi = begin(module, plan)
    b = E.b
    X, Y = 0, 1
    lp = _Loop(b, lo, hi, "plane")
    x_base, y_base = E.mul(lp.i, h * w), E.mul(lp.i, ho * wo)
    loh = _Loop(b, const64(0), const64(ho), "oh")

    def single(ow):
        m = E.ninf
        for off, inside in _window_positions(E, g, loh.i, ow):
            v = E.load(X, E.add(x_base, off))
            if inside is not None:
                v = b.select(inside, v, E.ninf)
            m = intrinsic(b, "maximum", m, v)  # NaN-propagating, as numpy's maximum
        E.store(Y, E.add(y_base, E.add(E.mul(loh.i, wo), ow)), m)

    def vector(ow0, n):
        at = E.add(x_base, E.add(E.mul(loh.i, 2 * w), E.mul(ow0, 2)))
        x00, x01, x10, x11 = _window_positions_2x2(E, X, at, w, n)
        _vstore(E, Y, E.add(y_base, E.add(E.mul(loh.i, wo), ow0)),
                _vmaximum(b, _vmaximum(b, _vmaximum(b, x00, x01), x10), x11))

    _over_windows(b, wo, vector, single, g["vector"])
    loh.close()
    lp.close()
    b.ret_void()


def emit_max_pool_grad(module, plan):
    """Windows that tile the input write each position once: ``dout * hit`` straight into dx.
    Otherwise (overlapping or padded windows) a first pass finds each window's first max offset
    (kept on the stack, one int per window of the plane) and a second adds ``dout * hit`` into the
    zeroed plane offset by offset, in the numpy implementation's order (identical results)."""
    g = plan.geometry
    _, _, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    pt, _, pl, _ = g["pads"]
    ho, wo = g["out_hw"]
    tiles = g["tiles"]
    E, lo, hi = begin(module, plan)
    b = E.b
    X, OUT, DOUT, DX = 0, 1, 2, 3
    i32 = ir.IntType(32)
    first = None if tiles else b.alloca(i32, size=ho * wo, name="first")
    lp = _Loop(b, lo, hi, "plane")
    x_base, o_base = E.mul(lp.i, h * w), E.mul(lp.i, ho * wo)
    loh = _Loop(b, const64(0), const64(ho), "oh")

    def single(ow):
        at = E.add(E.mul(loh.i, wo), ow)
        best = E.load(OUT, E.add(o_base, at))
        grad = E.load(DOUT, E.add(o_base, at)) if tiles else None
        found = ir.Constant(i32, kh * kw)
        taken = ir.Constant(ir.IntType(1), 0)
        for k, (off, inside) in enumerate(_window_positions(E, g, loh.i, ow)):
            v = E.load(X, E.add(x_base, off))
            if inside is not None:
                v = b.select(inside, v, E.ninf)
            hit = b.and_(b.fcmp_ordered("==", v, best), b.not_(taken))
            taken = b.or_(taken, hit)
            if tiles:  # dout * hit, as numpy computes it (inf/nan in dout reach where it does)
                E.store(DX, E.add(x_base, off), b.fmul(grad, b.uitofp(hit, E.ty)))
            else:
                found = b.select(hit, ir.Constant(i32, k), found)
        if not tiles:
            b.store(found, b.gep(first, [at], inbounds=True))

    def vector(ow0, n):
        at = E.add(x_base, E.add(E.mul(loh.i, 2 * w), E.mul(ow0, 2)))
        yat = E.add(o_base, E.add(E.mul(loh.i, wo), ow0))
        best, grad = _vload(E, OUT, yat, n), _vload(E, DOUT, yat, n)
        flags = ir.VectorType(ir.IntType(1), n)
        taken, ones = ir.Constant(flags, [0] * n), ir.Constant(flags, [1] * n)
        shares = []
        for v in _window_positions_2x2(E, X, at, w, n):  # the first max of each window, row-major
            hit = b.and_(b.fcmp_ordered("==", v, best), b.xor(taken, ones))
            taken = b.or_(taken, hit)
            shares.append(b.fmul(grad, b.uitofp(hit, best.type)))
        _vstore(E, DX, at, _interleave(b, shares[0], shares[1], n))
        _vstore(E, DX, E.add(at, w), _interleave(b, shares[2], shares[3], n))

    _over_windows(b, wo, vector, single, g["vector"])
    loh.close()
    if not tiles:
        E.zero_fill(DX, x_base, h * w)
        li = _Loop(b, const64(0), const64(kh), "i")
        lj = _Loop(b, const64(0), const64(kw), "j")
        k = b.trunc(E.add(E.mul(li.i, kw), lj.i), i32)
        loh = _Loop(b, const64(0), const64(ho), "oh2")
        ih = E.add(E.add(E.mul(loh.i, sh), li.i), -pt)
        low = _Loop(b, const64(0), const64(wo), "ow2")
        iw = E.add(E.add(E.mul(low.i, sw), lj.i), -pl)
        at = E.add(E.mul(loh.i, wo), low.i)
        hit = b.icmp_unsigned("==", b.load(b.gep(first, [at], inbounds=True)), k)
        share = b.fmul(E.load(DOUT, E.add(o_base, at)), b.uitofp(hit, E.ty))
        pos = E.add(x_base, E.add(E.mul(ih, w), iw))
        if any(g["pads"]):  # numpy adds into padding that is cropped away: skip those
            inside = b.and_(b.icmp_unsigned("<", ih, const64(h)), b.icmp_unsigned("<", iw, const64(w)))
            with b.if_then(inside):
                E.store(DX, pos, b.fadd(E.load(DX, pos), share))
        else:
            E.store(DX, pos, b.fadd(E.load(DX, pos), share))
        low.close()
        loh.close()
        lj.close()
        li.close()
    lp.close()
    b.ret_void()
