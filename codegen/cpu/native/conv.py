"""Convolution kernels: the columns (im2col) and their adjoint (col2im), and the direct
convolution with its filter gradient for thin layers."""
from __future__ import annotations

from llvmlite import ir

from ..emitter import I64
from ..kernels import _Loop
from .body import const64, opaque, sums_over, valid_range, begin


# -- conv_im2col / conv_col2im ----------------------------------------------------------------------------
def _ranges(E, module, name, g):
    """Constant tables of the valid output rows per kernel row i and valid output columns per
    kernel column j (where the window reads the input, not padding), indexed at run time:
    ``rows(i) -> (lo, hi)``, ``cols(j) -> (lo, hi)``."""
    _, _, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    dh, dw = g["dilation"]
    pt, _, pl, _ = g["pads"]
    ho, wo = g["out_hw"]
    rows = [valid_range(ho, h, sh, i * dh - pt) for i in range(kh)]
    cols = [valid_range(wo, w, sw, j * dw - pl) for j in range(kw)]

    def table(suffix, pairs):
        flat = [v for pair in pairs for v in pair]
        ty = ir.ArrayType(I64, len(flat))
        gv = ir.GlobalVariable(module, ty, name=f"{name}.{suffix}")
        gv.global_constant = True
        gv.linkage = "internal"
        gv.initializer = ir.Constant(ty, flat)

        def lookup(k):
            b = E.b
            at = E.mul(k, 2)
            lo = b.load(b.gep(gv, [ir.Constant(ir.IntType(32), 0), at], inbounds=True))
            hi = b.load(b.gep(gv, [ir.Constant(ir.IntType(32), 0), E.add(at, 1)], inbounds=True))
            return lo, hi
        return lookup
    full_rows = all(r == (0, ho) for r in rows)
    full_cols = all(c == (0, wo) for c in cols)
    return table("rows", rows), table("cols", cols), full_rows, full_cols


def _conv_layout(module, plan, to_columns):
    """conv_im2col (``to_columns``) or conv_col2im: loops over channel c, kernel row i, kernel
    column j (run time, bounds from :func:`_ranges`) and the valid output rows/columns; the
    innermost loop runs over contiguous column entries. Column row k = (c, i, j) of image n starts
    at (n*K + k)*P in the "nkp" layout, (k*N + n)*P in "knp".

    "nkp" runs over images [lo, hi), each image's columns one contiguous block. "knp" runs over
    channels [lo, hi) with the images inside the kernel offsets, so each column row is written (or
    read) from start to end, N*P contiguous values, while the channel's N input planes stay in
    cache for its kh*kw rows: image by image, the rows' P-long pieces lie N*P apart (at LeNet5's
    sizes that is 150 streams of 400 bytes at the same cache set: 6x slower)."""
    g = plan.geometry
    n_, c_, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    dh, dw = g["dilation"]
    pt, _, pl, _ = g["pads"]
    ho, wo = g["out_hw"]
    p = ho * wo
    E, lo, hi = begin(module, plan)
    b = E.b
    rows, cols, full_rows, full_cols = _ranges(E, module, plan.name, g)
    if to_columns:
        X, COLS = 0, 1
    else:
        COLS, X = 0, 1
    per_image = g.get("layout", "nkp") == "nkp"
    kh_, kw_ = opaque(module, plan.name, b, (kh, kw))
    if per_image:
        ln = _Loop(b, lo, hi, "n")
        if not to_columns:  # col2im adds into the image: start from zero
            E.zero_fill(X, E.mul(ln.i, c_ * h * w), c_ * h * w)
        lc = _Loop(b, const64(0), const64(c_), "c")
        outer = [ln, lc]
    else:
        lc = _Loop(b, lo, hi, "c")
        outer = [lc]
        if not to_columns:  # col2im adds into the channel's planes: start from zero
            lz = _Loop(b, const64(0), const64(n_), "nz")
            E.zero_fill(X, E.add(E.mul(lz.i, c_ * h * w), E.mul(lc.i, h * w)), h * w)
            lz.close()
    li = _Loop(b, const64(0), kh_, "i")
    # static bounds where every window row/column reads the input: known trip counts
    oh_lo, oh_hi = (const64(0), const64(ho)) if full_rows else rows(li.i)
    lj = _Loop(b, const64(0), kw_, "j")
    ow_lo, ow_hi = (const64(0), const64(wo)) if full_cols else cols(lj.i)
    k = E.add(E.mul(E.add(E.mul(lc.i, kh), li.i), kw), lj.i)  # the column row (c, i, j)
    if per_image:
        row = E.mul(E.add(E.mul(ln.i, c_ * kh * kw), k), p)
        if to_columns and not (full_rows and full_cols):  # window positions in padding read 0
            E.zero_fill(COLS, row, p)
        inner = []
    else:
        if to_columns and not (full_rows and full_cols):
            E.zero_fill(COLS, E.mul(k, n_ * p), n_ * p)
        ln = _Loop(b, const64(0), const64(n_), "n")
        row = E.mul(E.add(E.mul(k, n_), ln.i), p)
        inner = [ln]
    x_base = E.add(E.mul(ln.i, c_ * h * w), E.mul(lc.i, h * w))
    loh = _Loop(b, oh_lo, oh_hi, "oh")
    at_row = E.add(row, E.mul(loh.i, wo))
    x_row = E.add(x_base, E.mul(E.add(E.add(E.mul(loh.i, sh), E.mul(li.i, dh)), -pt), w),
                  E.add(E.mul(lj.i, dw), -pl))
    low = _Loop(b, ow_lo, ow_hi, "ow")
    at_col = E.add(at_row, low.i)
    at_x = E.add(x_row, E.mul(low.i, sw))
    if to_columns:
        E.store(COLS, at_col, E.load(X, at_x))
    else:  # the same additions in the same (i, j) order as the numpy implementation
        E.store(X, at_x, b.fadd(E.load(X, at_x), E.load(COLS, at_col)))
    low.close()
    loh.close()
    for lp in reversed(inner):
        lp.close()
    lj.close()
    li.close()
    for lp in reversed(outer):
        lp.close()
    b.ret_void()


def emit_im2col(module, plan):
    _conv_layout(module, plan, to_columns=True)


def emit_col2im(module, plan):
    _conv_layout(module, plan, to_columns=False)


# -- direct convolution --------------------------------------------------------------------------------
def _window_offsets(g):
    """(input offset within an image, weight offset within an output channel) per window
    position (c, i, j), for output position (0, 0)."""
    _, _, h, w = g["shape"]
    _, c_, kh, kw = g["weight"]
    dh, dw = g["dilation"]
    return [((c * h + i * dh) * w + j * dw, (c * kh + i) * kw + j)
            for c in range(c_) for i in range(kh) for j in range(kw)]


def emit_direct_conv(module, plan):
    """out[n, o, oh, ow] = sum over (c, i, j) of w[o, c, i, j] * x[n, c, oh*sh + i*dh, ow*sw + j*dw],
    images [lo, hi); the window sum unrolled (fused multiply-adds). With stride 1 the output
    plane is computed as one flat run over input-width rows (every window position then reads the
    input at a fixed offset from t = oh*W + ow, so the loop is long and vectorises fully; the
    W - Wo extra columns per row are dropped when copying out), else row by row."""
    g = plan.geometry
    _, c_, h, w = g["shape"]
    o_, _, kh, kw = g["weight"]
    sh, sw = g["stride"]
    ho, wo = g["out_hw"]
    k = c_ * kh * kw
    E, lo, hi = begin(module, plan)
    b = E.b
    X, W, OUT = 0, 1, 2
    flat = (sh, sw) == (1, 1)
    span = (ho - 1) * w + wo  # flat positions t covering every output (oh, ow) at t = oh*W + ow
    wide = b.alloca(E.ty, size=span, name="wide") if flat else None
    ln = _Loop(b, lo, hi, "n")
    lo_ = _Loop(b, const64(0), const64(o_), "o")
    weights = [E.load(W, E.add(E.mul(lo_.i, k), wk)) for _, wk in _window_offsets(g)]
    x_img = E.mul(ln.i, c_ * h * w)
    out_plane = E.mul(E.add(E.mul(ln.i, o_), lo_.i), ho * wo)

    def window_sum(x_at):
        acc = None
        for (xk, _), wv in zip(_window_offsets(g), weights):
            term = b.fmul(wv, E.load(X, E.add(x_at, xk)), flags=("contract",))
            acc = term if acc is None else b.fadd(acc, term, flags=("contract",))  # (fused multiply-adds)
        return acc

    if flat:
        lt = _Loop(b, const64(0), const64(span), "t")
        b.store(window_sum(E.add(x_img, lt.i)), b.gep(wide, [lt.i], inbounds=True))
        lt.close()
        loh = _Loop(b, const64(0), const64(ho), "oh")
        low = _Loop(b, const64(0), const64(wo), "ow")
        v = b.load(b.gep(wide, [E.add(E.mul(loh.i, w), low.i)], inbounds=True))
        E.store(OUT, E.add(out_plane, E.add(E.mul(loh.i, wo), low.i)), v)
        low.close()
        loh.close()
    else:
        loh = _Loop(b, const64(0), const64(ho), "oh")
        x_row = E.add(x_img, E.mul(loh.i, sh * w))
        low = _Loop(b, const64(0), const64(wo), "ow")
        E.store(OUT, E.add(out_plane, E.add(E.mul(loh.i, wo), low.i)), window_sum(E.add(x_row, E.mul(low.i, sw))))
        low.close()
        loh.close()
    lo_.close()
    ln.close()
    b.ret_void()


def emit_direct_filter_grad(module, plan):
    """dw[o, c, i, j] = sum over (n, oh, ow) of dout[n, o, oh, ow] * x[n, c, oh*sh + i*dh, ow*sw + j*dw],
    output channels [lo, hi). With stride 1, each image's dout plane is first spread over
    input-width rows (zeros in the W - Wo extra columns): every window position is then one long
    dot product of that flat plane with the input at a fixed offset, all of them in one
    vectorised loop with register sums (a loop per window position instead measured 1.64x
    slower on LeNet5 b256 and compiles no faster). Other strides sum row by row."""
    g = plan.geometry
    n_, c_, h, w = g["shape"]
    o_, _, kh, kw = g["weight"]
    sh, sw = g["stride"]
    ho, wo = g["out_hw"]
    k = c_ * kh * kw
    E, lo, hi = begin(module, plan)
    b = E.b
    DOUT, X, DW = 0, 1, 2
    offsets = _window_offsets(g)
    flat = (sh, sw) == (1, 1)
    span = (ho - 1) * w + wo
    wide = b.alloca(E.ty, size=span, name="wide") if flat else None
    lo_ = _Loop(b, lo, hi, "o")
    dw_row = E.mul(lo_.i, k)
    E.zero_fill(DW, dw_row, k)
    ln = _Loop(b, const64(0), const64(n_), "n")
    d_plane = E.mul(E.add(E.mul(ln.i, o_), lo_.i), ho * wo)
    x_img = E.mul(ln.i, c_ * h * w)
    if flat:
        lz = _Loop(b, const64(0), const64(span), "z")
        b.store(E.zero, b.gep(wide, [lz.i], inbounds=True))
        lz.close()
        loh = _Loop(b, const64(0), const64(ho), "oh")
        low = _Loop(b, const64(0), const64(wo), "ow")
        b.store(E.load(DOUT, E.add(d_plane, E.add(E.mul(loh.i, wo), low.i))),
                b.gep(wide, [E.add(E.mul(loh.i, w), low.i)], inbounds=True))
        low.close()
        loh.close()

        def terms(t):
            d = b.load(b.gep(wide, [t], inbounds=True))
            return [b.fmul(d, E.load(X, E.add(E.add(x_img, t), xk)), flags=("contract",)) for xk, _ in offsets]
        sums = sums_over(b, E, const64(0), const64(span), terms, "t")
    else:
        loh = _Loop(b, const64(0), const64(ho), "oh")
        d_row = E.add(d_plane, E.mul(loh.i, wo))
        x_row = E.add(x_img, E.mul(loh.i, sh * w))

        def terms(ow):
            d = E.load(DOUT, E.add(d_row, ow))
            x_at = E.add(x_row, E.mul(ow, sw))
            return [b.fmul(d, E.load(X, E.add(x_at, xk)), flags=("contract",)) for xk, _ in offsets]
        sums = sums_over(b, E, const64(0), const64(wo), terms, "ow")
    for total, (_, wk) in zip(sums, offsets):
        at = E.add(dw_row, wk)
        E.store(DW, at, b.fadd(E.load(DW, at), total))
    if not flat:
        loh.close()
    ln.close()
    lo_.close()
    b.ret_void()
