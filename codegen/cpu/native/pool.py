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
    low = _Loop(b, const64(0), const64(wo), "ow")
    m = E.ninf
    for off, inside in _window_positions(E, g, loh.i, low.i):
        v = E.load(X, E.add(x_base, off))
        if inside is not None:
            v = b.select(inside, v, E.ninf)
        m = intrinsic(b, "maximum", m, v)  # NaN-propagating, as numpy's maximum
    E.store(Y, E.add(y_base, E.add(E.mul(loh.i, wo), low.i)), m)
    low.close()
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
    low = _Loop(b, const64(0), const64(wo), "ow")
    at = E.add(E.mul(loh.i, wo), low.i)
    best = E.load(OUT, E.add(o_base, at))
    grad = E.load(DOUT, E.add(o_base, at)) if tiles else None
    none = ir.Constant(i32, kh * kw)
    found = none
    taken = ir.Constant(ir.IntType(1), 0)
    for k, (off, inside) in enumerate(_window_positions(E, g, loh.i, low.i)):
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
    low.close()
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
