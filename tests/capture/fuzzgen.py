"""A seeded generator of small random ``construct``-like function bodies for differential testing
of capture against PyNative (see test_fuzz.py).

Programs mix tensor arithmetic with Python-value control flow (loops, ifs on ints, helper calls,
closures, comprehensions, lists, ``with``/``try``) and graph breaks (prints of tensors and Python
values, branches and bounded ``while`` loops on tensor values, ``.asnumpy()`` + numpy, ``.item()``,
a helper that prints). ``generate(seed)`` returns the source of ``def prog(x, y, k):``; ``compile_program``
turns it into a function whose globals hold the helpers.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import random

import numpy as np

import runtime as ms
from runtime import Tensor, nn, ops

_CONSTS = ["0.5", "1.5", "0.25", "2.0", "-1.0", "0.75"]


def helper_add(a, b, scale=0.5):
    return a * scale + b


def helper_kw(a, *rest, shift=1.0, **kw):
    out = a + shift
    for r in rest:
        out = out - r * 0.5
    return out * kw.get("mul", 1.0)


def helper_print(a):
    print("helper", a)
    return a * 0.5


def helper_branch(a):
    if a.sum() > 0:
        return a - 1.0
    return a + 1.0


class Box:
    """A plain Python object with methods (mutated by programs)."""

    def __init__(self):
        self.n = 0
        self.items = []

    def bump(self, v):
        self.n += 1
        return v * 1.25


class Pair:
    """A plain class whose objects programs create inside the frame."""

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def total(self, scale=1.0):
        return (self.a + self.b) * scale


def gen_pair(u, v):
    yield from (u, v)
    yield u * v
    return "done"


PT = collections.namedtuple("PT", "a b")


def _sq_tanh(v):
    return (ops.tanh(v) * v).sum()


HELPERS = {"helper_add": helper_add, "helper_kw": helper_kw, "helper_print": helper_print,
           "helper_branch": helper_branch, "Tensor": Tensor, "ops": ops, "np": np, "ms": ms,
           "contextlib": contextlib, "functools": functools, "Pair": Pair, "gen_pair": gen_pair, "PT": PT,
           "grad_sq": ms.grad(_sq_tanh)}


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.tvars = ["x", "y"]
        self.n = 0
        self.tags = 0
        self.loop_vars = 0

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def tv(self):
        return self.r.choice(self.tvars)

    def new_tv(self):
        if len(self.tvars) < 5 and self.r.random() < 0.5:
            name = f"t{self.n}"
            self.n += 1
            self.tvars.append(name)
            return name, True
        return self.r.choice(self.tvars), False

    def texpr(self):
        a, b, c = self.tv(), self.tv(), self.r.choice(_CONSTS)
        return self.r.choice([
            f"{a} + {b}", f"{a} * {c}", f"{a} - {b} * {c}", f"ops.relu({a}) + {c}", f"ops.tanh({a} * {b})",
            f"helper_add({a}, {b})", f"helper_add({a}, {b}, scale={c})", f"{a} * (k % 3 + 1) * 0.5",
            f"helper_kw({a}, {b}, shift={c})", f"helper_kw({a}, mul={c})", f"ops.maximum({a}, {b})",
            f"{a} / (ops.abs({b}) + 1.0)", f"({a} + {b}).mean() * {c} + {a}",
            # (continuous in their operands: rounding that fusion changes cannot flip a result)
            f"ops.concat(({a}[:1], {b}[1:]))", f"ops.stack(({a}, {b})).sum(0) * {c}",
            f"ops.softmax({a}, axis=0) + {b}", f"ops.clip_by_value({a}, -0.5, 0.5) + {b}",
            f"ops.cumsum({a}, 0) * {c}", f"ops.exp(-ops.abs({a})) + {b}", f"ops.sqrt(ops.abs({a}) + 1.0) * {b}",
            f"{a}[::-1] + {b}", f"ops.matmul({a}.reshape((1, 3)), ops.ones((3, 3), ms.float32)).reshape((3,))",
            f"ops.log1p(ops.abs({a})) - {b}", f"{a}.max() * {b} + {a}.min()", f"ops.sigmoid({a}) * {b}",
            f"ops.transpose(ops.stack(({a}, {b})), (1, 0)).sum(1)", f"ops.tile({a}[:1], (3,)) + {b}",
            f"ops.gather({a}, Tensor(np.array([2, 0, 1], np.int32)), 0) * {b}", f"ops.norm({a}) * {b}",
        ])

    def assign(self, depth):
        target, fresh = self.new_tv()
        if fresh and depth > 1:  # keep fresh names defined on every path: define at top level only
            self.tvars.pop()
            target = self.r.choice(self.tvars)
        self.emit(depth, f"{target} = {self.texpr()}")

    def stmt(self, depth):
        r = self.r
        kinds = ["assign"] * 6 + ["pyint", "print", "print_py", "tbranch", "numpy", "helper_print", "append",
                                  "item", "comp", "closure", "with", "try", "obj", "dictacc", "helper_branch",
                                  "fstring", "starred", "comp_break", "cells", "namedtuple", "nonlocal", "iters",
                                  "outside", "newobj", "dense", "grad", "setitem", "match", "reduce", "setops",
                                  "yieldfrom", "param", "cellparam", "globalt", "objattr", "listitem"]
        if depth < 3:
            kinds += ["for", "if", "while"]
        kind = r.choice(kinds)
        a = self.tv()
        if kind == "assign":
            self.assign(depth)
        elif kind == "pyint":
            self.emit(depth, r.choice(["k = k + 1", "k = (k * 3 + 1) % 7", "k = max(k - 1, 0)"]))
        elif kind == "print":
            self.tags += 1
            self.emit(depth, f"print('p{self.tags}', {a})")
        elif kind == "print_py":
            self.tags += 1
            self.emit(depth, f"print('k{self.tags}', k, len(acc))")
        elif kind == "tbranch":
            b = self.tv()
            # (not `> 0`: programs like 2x - 2*mean(x) sum to 0 up to rounding, which fusion changes)
            self.emit(depth, f"if {a}.sum() > 0.1:")
            self.emit(depth + 1, f"{b} = {b} * 0.5 + 1.0")
            self.emit(depth, "else:")
            self.emit(depth + 1, f"{b} = {b} - 0.25")
        elif kind == "numpy":
            self.emit(depth, f"{a} = Tensor(np.tanh({a}.asnumpy()) * 2.0)")
        elif kind == "helper_print":
            self.emit(depth, f"{a} = helper_print({a})")
        elif kind == "helper_branch":
            self.emit(depth, f"{a} = helper_branch({a})")
        elif kind == "append":
            self.emit(depth, f"acc.append({a} * 1.0)")
        elif kind == "item":
            self.emit(depth, f"s = {a}.sum().item()")
            self.emit(depth, f"{a} = {a} + (0.5 if s > 0 else -0.5)")
        elif kind == "comp":
            b = self.tv()
            self.emit(depth, f"parts = [v * 0.5 for v in ({a}, {b}) if v is not None]")
            self.emit(depth, f"{a} = sum(parts[1:], parts[0])")
        elif kind == "comp_break":  # a break inside a comprehension (inlined on 3.12+)
            b = self.tv()
            self.emit(depth, f"vals = [helper_print(v) for v in ({a}, {b})]")
            self.emit(depth, f"{a} = vals[0] + vals[-1] * len(vals)")
        elif kind == "cells":  # a cell variable live across a break
            self.emit(depth, f"cv = {a} * 0.5")
            self.emit(depth, "get = lambda: cv")
            self.emit(depth, f"{a} = get() + 1.0")
            self.tags += 1
            self.emit(depth, f"print('c{self.tags}', cv)")
            self.emit(depth, f"{a} = {a} + cv")
        elif kind == "closure":
            b = self.tv()
            self.emit(depth, "def inner(v, w=0.5):")
            self.emit(depth + 1, "return v * w + k")
            self.emit(depth, f"{a} = inner({b}) + (lambda q: q * 0.5)({a})")
        elif kind == "with":
            self.emit(depth, "with contextlib.nullcontext():")
            self.emit(depth + 1, f"{a} = {a} + 0.5")
            if r.random() < 0.5:
                self.tags += 1
                self.emit(depth + 1, f"print('w{self.tags}', {a})")
        elif kind == "try":
            self.emit(depth, "try:")
            self.emit(depth + 1, f"{a} = {a} * 0.75")
            if r.random() < 0.3:
                self.emit(depth + 1, "if k > 5:")
                self.emit(depth + 2, "raise ValueError('big k')")
            self.emit(depth, "except ValueError:")
            self.emit(depth + 1, f"{a} = {a} - 1.0")
            self.emit(depth, "finally:")
            self.emit(depth + 1, "k = k + 1")
        elif kind == "obj":
            self.emit(depth, f"{a} = box.bump({a})")
            if r.random() < 0.5:
                self.emit(depth, "box.items.append(k)")
        elif kind == "dictacc":
            self.emit(depth, "d['n'] = d.get('n', 0) + 1")
            self.emit(depth, f"d['last'] = {a}")
        elif kind == "fstring":
            self.emit(depth, f"msg = f'k={{k}} n={{len(acc)}} s={{{a}.shape}}'")
            self.emit(depth, "names.append(msg)")
        elif kind == "starred":
            b = self.tv()
            self.emit(depth, f"first, *rest = [{a}, {b}, {a} * 0.5]")
            self.emit(depth, f"{a} = helper_kw(first, *rest)")
        elif kind == "namedtuple":
            b = self.tv()
            self.emit(depth, f"pt = PT({a}, b={b})")
            self.emit(depth, f"{a} = pt.a + pt._replace(b={a} * 0.5).b * len(pt._asdict())")
        elif kind == "nonlocal":
            self.emit(depth, "def bump_count(step=1):")
            self.emit(depth + 1, "nonlocal cnt")
            self.emit(depth + 1, "cnt += step")
            self.emit(depth + 1, "return cnt")
            self.emit(depth, f"{a} = {a} * 0.5 + bump_count() * 0.25")
        elif kind == "iters":
            b = self.tv()
            self.emit(depth, f"pairs = zip(({a}, {b}), ({b}, {a}))")
            self.emit(depth, "for n, (u, v) in enumerate(pairs):")
            self.emit(depth + 1, f"{a} = {a} + u * v * (n * 0.25)")
            self.emit(depth + 1, "break")
            self.emit(depth, "rest_pairs = list(pairs)")
            self.emit(depth, f"{a} = {a} + len(rest_pairs) * 0.5")
        elif kind == "outside":
            self.emit(depth, r.choice(["OUT.append(k)", "CFG['n'] = CFG.get('n', 0) + k", "box.tag = k * 2",
                                       f"OUT.append({a} * 0.5)", "CFG.setdefault('seen', []).append(k)"]))
        elif kind == "newobj":
            b = self.tv()
            self.emit(depth, f"pair = Pair({a}, {b} * 0.5)")
            self.emit(depth, "pair.b = pair.b + k")
            self.emit(depth, f"{a} = pair.total(scale={r.choice(_CONSTS)})")
        elif kind == "dense":
            self.emit(depth, f"{a} = DENSE({a}.reshape((1, 3))).reshape((3,))")
        elif kind == "grad":
            self.emit(depth, f"{a} = {a} + grad_sq({a}) * 0.5")
        elif kind == "setitem":
            self.emit(depth, f"tmp = {a} * 1.5")
            self.emit(depth, f"tmp[{r.randint(0, 2)}] = k * 0.5")
            self.emit(depth, f"{a} = tmp")
        elif kind == "match":
            self.emit(depth, "match k % 3:")
            self.emit(depth + 1, "case 0:")
            self.emit(depth + 2, f"{a} = {a} + 1.0")
            self.emit(depth + 1, "case 1 | 2 if k > 3:")
            self.emit(depth + 2, f"{a} = {a} * 0.5")
            self.emit(depth + 1, "case _:")
            self.emit(depth + 2, f"{a} = {a} - 0.5")
        elif kind == "reduce":
            b = self.tv()
            self.emit(depth, f"{a} = functools.reduce(lambda u, v: u + v * 0.5, [{a}, {b}], {a})")
        elif kind == "setops":
            self.emit(depth, "ks = {k, 1}")
            self.emit(depth, "ks.add(2)")
            self.emit(depth, "ks |= {k + 3}")
            self.emit(depth, f"{a} = {a} * len(ks) * 0.25")
        elif kind == "yieldfrom":
            b = self.tv()
            self.emit(depth, f"{a} = sum(gen_pair({a}, {b}), {a}) * 0.25")
        elif kind == "param":  # a Parameter updated in place, read through names taken before
            c = r.choice(_CONSTS)
            variant = r.randint(0, 2)
            if variant == 0:
                self.emit(depth, "w = PRM")
                self.emit(depth, f"ops.assign(w, w * 0.5 + {a} * 0.25)")
                self.emit(depth, f"{a} = {a} + w * {c}")
            elif variant == 1:
                self.emit(depth, f"{a} = ops.assign(PRM, PRM * 0.5 - {a} * {c})")
            else:
                self.emit(depth, f"ops.assign_add(PRM, {a} * 0.1)")
                self.emit(depth, f"{a} = {a} - PRM * {c}")
        elif kind == "cellparam":  # a Tensor stored into a Cell's Parameter attribute updates it in place
            self.emit(depth, "bias = DENSE.bias")
            self.emit(depth, f"DENSE.bias = DENSE.bias * 0.5 + {a} * 0.1")
            self.emit(depth, f"{a} = {a} + bias * {r.choice(_CONSTS)}")
        elif kind == "globalt":  # a global tensor rebound and read back
            self.emit(depth, f"GT = GT * 0.5 + {a} * {r.choice(_CONSTS)}")
            self.emit(depth, f"{a} = {a} + GT")
        elif kind == "objattr":  # a tensor stored on an outside object and read back
            self.emit(depth, f"box.t = {a} * 0.5")
            self.emit(depth, f"{a} = {a} + box.t * k")
        elif kind == "listitem":  # an item of a list rebound
            self.emit(depth, "if acc:")
            self.emit(depth + 1, f"acc[0] = acc[0] * 0.5 + {a}")
        elif kind == "for":
            self.loop_vars += 1
            i = f"i{self.loop_vars}"
            self.emit(depth, f"for {i} in range({r.randint(1, 3)}):")
            self.body(depth + 1, r.randint(1, 3))
            if r.random() < 0.3:
                self.emit(depth + 1, f"if {i} == 1:")
                self.emit(depth + 2, "break")
        elif kind == "if":
            self.emit(depth, f"if k % 2 == {r.randint(0, 1)}:")
            self.body(depth + 1, r.randint(1, 2))
            self.emit(depth, "else:")
            self.body(depth + 1, 1)
        elif kind == "while":
            self.loop_vars += 1
            j = f"j{self.loop_vars}"
            self.emit(depth, f"{j} = 0")
            self.emit(depth, f"while {a}.sum() < {r.choice(['2.0', '5.0', '0.0'])} and {j} < 3:")
            self.emit(depth + 1, f"{a} = {a} + 1.0")
            self.emit(depth + 1, f"{j} += 1")

    def body(self, depth, n):
        for _ in range(n):
            self.stmt(depth)

    def program(self):
        self.emit(0, "def prog(x, y, k):")
        self.emit(1, "global GT")
        self.emit(1, "acc = []")
        self.emit(1, "names = []")
        self.emit(1, "d = {}")
        self.emit(1, "box = BOX")
        self.emit(1, "cnt = 0")
        self.body(1, self.r.randint(3, 9))
        self.emit(1, f"return {', '.join(self.tvars)}, k, acc, names, d.get('n', 0), box.n, cnt")
        return "\n".join(self.lines) + "\n"


def generate(seed: int) -> str:
    """The source of one random program (deterministic in ``seed``)."""
    return _Gen(seed).program()


_W = np.linspace(-0.6, 0.6, 9, dtype=np.float32).reshape(3, 3)


def compile_program(src: str, filename: str):
    """``prog`` defined from ``src`` with fresh outside state (a ``Box`` as BOX, the global list
    OUT and dict CFG, a Dense layer DENSE, a Parameter PRM, a global tensor GT), and a function
    returning that state."""
    import linecache
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    box = Box()
    dense = nn.Dense(3, 3, weight_init=Tensor(_W), bias_init=Tensor(np.full(3, 0.1, np.float32)))
    prm = ms.Parameter(Tensor(np.linspace(-0.5, 0.5, 3).astype(np.float32)), name="prm")
    ns = dict(HELPERS, BOX=box, OUT=[], CFG={}, DENSE=dense, PRM=prm, GT=Tensor(np.full(3, 0.25, np.float32)))
    exec(compile(src, filename, "exec"), ns)
    return ns["prog"], lambda: (box.n, list(box.items), getattr(box, "tag", None), list(ns["OUT"]), dict(ns["CFG"]),
                                Tensor(prm.asnumpy().copy()), Tensor(dense.bias.asnumpy().copy()), ns["GT"],
                                getattr(box, "t", None))


def inputs(seed: int, call: int):
    rng = np.random.default_rng(seed * 7 + call)
    shape = (3,)
    x = Tensor(rng.standard_normal(shape).astype(np.float32))
    y = Tensor(rng.standard_normal(shape).astype(np.float32))
    return x, y, int(rng.integers(0, 7))
