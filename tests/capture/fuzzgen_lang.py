"""A seeded generator of small random programs about generators, dict views and ``__dict__``
for differential testing of capture against PyNative (see test_fuzz_lang.py).

Programs mix tensor arithmetic with generator functions (``yield``, ``yield from`` and its
return value, ``send``, ``close``, ``throw``, generators with side effects on a log list and a
nonlocal counter, a generator that prints: a graph break inside its body), generator
expressions (consumed by ``sum``/``list``/``any``/``in``/``zip``/``enumerate``/``list.extend``,
partly consumed before a ``break``, ``next`` with a default), generators and views returned
unconsumed or half consumed, dict views (live after mutation, set algebra, ``.mapping``,
``type``), and ``__dict__``/``vars`` of an outside object and of one the frame creates.
``generate(seed)`` returns the source of ``def prog(x, y, k, st):``; ``compile_program`` turns it
into a function whose globals hold the helpers.
"""
from __future__ import annotations

import random
import types

import numpy as np

import runtime as ms
from runtime import Tensor, ops

_CONSTS = ["0.5", "1.5", "0.25", "2.0", "-1.0"]


class State:
    """An outside object the programs read and write attributes of (and its ``__dict__``)."""

    def __init__(self):
        self.a = 1
        self.b = "two"


class Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b


HELPERS = {"Tensor": Tensor, "ops": ops, "np": np, "ms": ms, "types": types, "Pair": Pair}


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.n = 0
        self.ret = []  # extra values returned (generators, views)

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def tv(self):
        return self.r.choice(["x", "y", "t"])

    def fresh(self):
        self.n += 1
        return self.n

    def stmt(self, depth):
        r = self.r
        kind = r.choice(["gen_for", "gen_next", "yield_from", "send", "close", "throw", "genexp_sum",
                         "genexp_list", "extend", "contains", "anyall", "ret_gen", "zip_enum", "views",
                         "views_ret", "objdict", "newobj_dict", "gen_print", "isgen", "gen_in_comp",
                         "tensor_step"])
        getattr(self, "s_" + kind)(depth)

    # -- statements -----------------------------------------------------------------------------
    def gen_def(self, depth, name, body_side_effect=True):
        """A generator function ``name(a, m)`` yielding m tensors, logging and counting."""
        self.emit(depth, f"def {name}(a, m):")
        self.emit(depth + 1, "nonlocal cnt")
        self.emit(depth + 1, "for i in range(m):")
        if body_side_effect:
            self.emit(depth + 2, f"log.append(('{name}', i))")
        self.emit(depth + 2, "cnt += 1")
        self.emit(depth + 2, f"yield a * (i + {self.r.choice(_CONSTS)})")
        self.emit(depth + 1, f"return {self.r.randint(0, 9)}")

    def s_tensor_step(self, depth):
        self.emit(depth, f"t = t + {self.tv()} * {self.r.choice(_CONSTS)}")

    def s_gen_for(self, depth):
        i = self.fresh()
        self.gen_def(depth, f"g{i}")
        self.emit(depth, f"for v in g{i}({self.tv()}, k % 3 + {self.r.randint(0, 2)}):")
        self.emit(depth + 1, "t = t + v")
        self.emit(depth + 1, f"log.append(('body', {i}, cnt))")

    def s_gen_next(self, depth):
        i = self.fresh()
        self.gen_def(depth, f"g{i}")
        self.emit(depth, f"it{i} = g{i}({self.tv()}, {self.r.randint(1, 3)})")
        self.emit(depth, f"log.append(('made', {i}, cnt))")
        self.emit(depth, f"t = t + next(it{i})")
        self.emit(depth, f"log.append(('after', {i}, cnt))")
        if self.r.random() < 0.5:
            self.emit(depth, f"w{i} = next(it{i}, None)")
            self.emit(depth, f"log.append(w{i} is None)")

    def s_yield_from(self, depth):
        i = self.fresh()
        self.gen_def(depth, f"inner{i}")
        self.emit(depth, f"def outer{i}(a):")
        self.emit(depth + 1, f"r = yield from inner{i}(a, {self.r.randint(1, 3)})")
        self.emit(depth + 1, "log.append(('ret', r))")
        self.emit(depth + 1, "yield a * r")
        self.emit(depth, f"for v in outer{i}({self.tv()}):")
        self.emit(depth + 1, "t = t + v")

    def s_send(self, depth):
        i = self.fresh()
        self.emit(depth, f"def acc{i}():")
        self.emit(depth + 1, "total = 0")
        self.emit(depth + 1, "while True:")
        self.emit(depth + 2, "v = yield total")
        self.emit(depth + 2, "log.append(('got', v))")
        self.emit(depth + 2, "total += v")
        self.emit(depth, f"s{i} = acc{i}()")
        self.emit(depth, f"next(s{i})")
        self.emit(depth, f"log.append(s{i}.send({self.r.randint(1, 5)}))")
        self.emit(depth, f"log.append(s{i}.send(k))")
        self.emit(depth, f"t = t * (s{i}.send(1) % 4 + 1)")

    def s_close(self, depth):
        i = self.fresh()
        self.gen_def(depth, f"g{i}")
        self.emit(depth, f"c{i} = g{i}({self.tv()}, 3)")
        if self.r.random() < 0.6:
            self.emit(depth, f"t = t + next(c{i})")
        self.emit(depth, f"c{i}.close()")
        self.emit(depth, f"log.append(list(c{i}))")

    def s_throw(self, depth):
        i = self.fresh()
        self.emit(depth, f"def h{i}():")
        self.emit(depth + 1, "try:")
        self.emit(depth + 2, "yield 1")
        self.emit(depth + 2, "yield 2")
        self.emit(depth + 1, "except ValueError as e:")
        self.emit(depth + 2, "log.append(('caught', str(e)))")
        self.emit(depth + 2, "yield 10")
        self.emit(depth, f"q{i} = h{i}()")
        self.emit(depth, f"log.append(next(q{i}))")
        self.emit(depth, f"log.append(q{i}.throw(ValueError('boom{i}')))")
        self.emit(depth, f"t = t + {self.tv()}")

    def s_genexp_sum(self, depth):
        self.emit(depth, f"t = t + sum(({self.tv()} * c for c in ({self.r.choice(_CONSTS)}, "
                         f"{self.r.choice(_CONSTS)})), {self.tv()})")

    def s_genexp_list(self, depth):
        self.emit(depth, f"log.append(list(v * 2 for v in range(k) if v % {self.r.randint(1, 3)} == 0))")

    def s_extend(self, depth):
        self.emit(depth, f"lst = [{self.r.randint(0, 3)}]")
        self.emit(depth, "lst.extend(lst[-1] + z for z in range(3))")
        self.emit(depth, "log.append(lst)")

    def s_contains(self, depth):
        i = self.fresh()
        self.emit(depth, f"ge{i} = (j * j for j in range(6))")
        self.emit(depth, f"log.append(({self.r.choice([1, 4, 9])} in ge{i}, {self.r.choice([4, 9, 16, 30])} in ge{i}, "
                         f"list(ge{i})))")

    def s_anyall(self, depth):
        fn = self.r.choice(["any", "all"])
        cmp = self.r.choice(["> 2", "< 3", "== k"])
        self.emit(depth, f"log.append({fn}(log.append(('aa', j)) or j {cmp} for j in range(5)))")

    def s_ret_gen(self, depth):
        i = self.fresh()
        self.gen_def(depth, f"rg{i}")
        self.emit(depth, f"r{i} = rg{i}({self.tv()}, 2)")
        if self.r.random() < 0.4:
            self.emit(depth, f"t = t + next(r{i})")
        self.ret.append(f"r{i}")

    def s_zip_enum(self, depth):
        i = self.fresh()
        self.emit(depth, f"z{i} = zip(enumerate(v * 2 for v in range(5)), 'abcde')")
        self.emit(depth, f"for pair in z{i}:")
        self.emit(depth + 1, "if pair[0][0] == k % 4:")
        self.emit(depth + 2, "break")
        self.emit(depth, f"log.append(list(z{i}))")

    def s_views(self, depth):
        i = self.fresh()
        self.emit(depth, f"dd{i} = {{'a': 1, 'b': k, 'c': 3}}")
        view = self.r.choice(["keys", "items", "values"])
        self.emit(depth, f"vw{i} = dd{i}.{view}()")
        self.emit(depth, f"dd{i}['z'] = {self.r.randint(0, 5)}")
        self.emit(depth, f"log.append((type(vw{i}).__name__, list(vw{i}), len(vw{i})))")
        if view == "keys":
            op = self.r.choice(["&", "|", "-", "^"])
            self.emit(depth, f"log.append(sorted(vw{i} {op} {{'a', 'q'}}))")
            self.emit(depth, f"log.append(('b' in vw{i}, vw{i} == {{'a', 'b', 'c', 'z'}}, vw{i}.isdisjoint(['q'])))")
        elif view == "items":
            self.emit(depth, f"log.append(sorted(vw{i} - {{('a', 1)}}))")
            self.emit(depth, f"log.append((('b', k) in vw{i}, vw{i}.mapping['a']))")
        else:
            self.emit(depth, f"log.append(sum(vw{i}))")
        self.emit(depth, f"t = t + {self.tv()} * len(vw{i})")

    def s_views_ret(self, depth):
        i = self.fresh()
        self.emit(depth, f"dv{i} = {{'u': k, 'w': 2}}")
        self.ret.append(f"dv{i}.{self.r.choice(['keys', 'items', 'values'])}()")

    def s_objdict(self, depth):
        i = self.fresh()
        choice = self.r.randint(0, 3)
        if choice == 0:
            self.emit(depth, f"st.c{i} = k")
            self.emit(depth, "log.append(dict(st.__dict__))")
        elif choice == 1:
            self.emit(depth, f"st.__dict__['d{i}'] = k * 2")
            self.emit(depth, f"log.append(st.d{i})")
        elif choice == 2:
            self.emit(depth, f"vars(st)['a'] = {self.r.randint(5, 9)}")
            self.emit(depth, "log.append((st.a, sorted(vars(st))))")
        else:
            self.emit(depth, "log.append(('a' in st.__dict__, len(st.__dict__), list(st.__dict__.keys())))")

    def s_newobj_dict(self, depth):
        i = self.fresh()
        self.emit(depth, f"p{i} = Pair(1, k)")
        self.emit(depth, f"p{i}.__dict__['c'] = 3")
        self.emit(depth, f"p{i}.d = 4")
        self.emit(depth, f"log.append((dict(p{i}.__dict__), p{i}.c))")

    def s_gen_print(self, depth):
        i = self.fresh()
        self.emit(depth, f"def gp{i}(a):")
        self.emit(depth + 1, "yield a + 1.0")
        self.emit(depth + 1, f"print('in generator {i}', k)")
        self.emit(depth + 1, "yield a * 2.0")
        self.emit(depth, f"for v in gp{i}({self.tv()}):")
        self.emit(depth + 1, "t = t + v")

    def s_isgen(self, depth):
        i = self.fresh()
        self.emit(depth, f"ig{i} = (v for v in range(2))")
        self.emit(depth, f"log.append((isinstance(ig{i}, types.GeneratorType), type(ig{i}).__name__, next(ig{i})))")

    def s_gen_in_comp(self, depth):
        self.emit(depth, "log.append([type(v for v in range(j)).__name__ for j in range(2)])")
        self.emit(depth, "log.append([sum(v for v in range(j)) for j in range(k % 4)])")

    def program(self):
        self.emit(0, "def prog(x, y, k, st):")
        self.emit(1, "log = []")
        self.emit(1, "cnt = 0")
        self.emit(1, "t = x * 0.5")
        for _ in range(self.r.randint(2, 6)):
            self.stmt(1)
        extra = "".join(f", {v}" for v in self.ret)
        self.emit(1, f"return t, log, cnt{extra}")
        return "\n".join(self.lines) + "\n"


def generate(seed: int) -> str:
    """The source of one random program (deterministic in ``seed``)."""
    return _Gen(seed).program()


def compile_program(src: str, filename: str):
    """``prog`` defined from ``src`` (its file registered with linecache, so breaks name lines)."""
    import linecache
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = dict(HELPERS)
    exec(compile(src, filename, "exec"), ns)
    return ns["prog"]


def inputs(seed: int, call: int):
    rng = np.random.default_rng(seed * 11 + call)
    x = Tensor(rng.standard_normal(3).astype(np.float32))
    y = Tensor(rng.standard_normal(3).astype(np.float32))
    return x, y, int(rng.integers(0, 7)), State()
