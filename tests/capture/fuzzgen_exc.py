"""A seeded generator of random programs about exceptions and context managers, for differential
testing of capture against PyNative (tests/capture/test_fuzz_exc.py).

Programs ``def prog(x, y, k, log):`` mix tensor arithmetic with try/except/else/finally (nested,
with ``raise``, ``raise ... from``, bare re-raise, exceptions raised by operations: missing keys,
bad indices, division by zero, failing int(); by a called helper; caught by class, tuple or base
class, bound with ``as``), ``with`` over a custom manager (that may swallow), ``contextlib``'s
``suppress``/``nullcontext`` and ``@contextmanager`` managers, loops with ``continue``/``break``
inside handlers, graph breaks *inside* try bodies and handlers (a print of a tensor, ``.asnumpy()``),
and exceptions that escape the frame. ``log`` records the order of events (compared with eager).
"""
from __future__ import annotations

import contextlib
import random

import numpy as np

from runtime import Tensor, ops

_EXC = ["ValueError", "KeyError", "IndexError", "TypeError", "RuntimeError", "ZeroDivisionError"]
_CATCH = ["ValueError", "KeyError", "LookupError", "(KeyError, IndexError)", "ArithmeticError", "Exception",
          "(TypeError, ValueError)", "RuntimeError"]


class Mgr:
    """A context manager recording enter/exit in ``log``; swallows exceptions when asked."""

    def __init__(self, log, name, swallow=False):
        self.log, self.name, self.swallow = log, name, swallow

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self.name

    def __exit__(self, t, v, tb):
        self.log.append(("exit", self.name, None if t is None else t.__name__))
        return self.swallow


@contextlib.contextmanager
def gen_mgr(log, name):
    log.append(("gen enter", name))
    try:
        yield name
    finally:
        log.append(("gen exit", name))


@contextlib.contextmanager
def gen_catch(log, name):
    log.append(("catch enter", name))
    try:
        yield name
    except (ValueError, KeyError) as e:
        log.append(("caught in manager", name, type(e).__name__))


def helper_raise(n, log):
    log.append(("helper", n))
    if n % 3 == 0:
        raise ValueError(f"helper {n}")
    if n % 3 == 1:
        return {"a": 1}["b" if n > 3 else "a"]
    return n


def helper_finally(v, log):
    try:
        return v * 2.0
    finally:
        log.append("helper finally")


HELPERS = {"ops": ops, "np": np, "Tensor": Tensor, "contextlib": contextlib, "Mgr": Mgr, "gen_mgr": gen_mgr,
           "gen_catch": gen_catch, "helper_raise": helper_raise, "helper_finally": helper_finally,
           "D": {"a": 1.0, "b": 2.0}, "L": [0.5, 1.5, 2.5]}


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.n = 0
        self.loops = 0
        self.in_handler = 0

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def const(self):
        return self.r.choice(["0.5", "1.5", "-0.25", "2.0", "0.75"])

    def tv(self):
        return self.r.choice(["x", "y"])

    # -- statements ----------------------------------------------------------------------------------
    def arith(self, d):
        t = self.tv()
        self.emit(d, self.r.choice([
            f"{t} = {t} * {self.const()} + {self.tv()}",
            f"{t} = ops.sin({t}) + {self.const()}",
            f"{t} = ops.tanh({self.tv()} * {self.const()})",
            f"{t} = {t} - {self.tv()} * {self.const()}",
            f"k = k + {self.r.randint(1, 3)}",
            "log.append(('k', k))",
        ]))

    def raising(self, d):
        """A statement that may raise (depending on k or always)."""
        c = self.r.randrange(10)
        if c == 0:
            self.emit(d, f"raise {self.r.choice(_EXC)}('r{self.n}')")
        elif c == 1:
            self.emit(d, f"{self.tv()} = {self.tv()} * D[{self.r.choice(['a', 'b', 'c', 'z'])!r}]")
        elif c == 2:
            self.emit(d, f"{self.tv()} = {self.tv()} + L[k % {self.r.randint(2, 5)}]")
        elif c == 3:
            self.emit(d, f"k = k + 6 // (k % {self.r.randint(2, 4)})")
        elif c == 4:
            self.emit(d, f"k = k + helper_raise(k + {self.r.randint(0, 5)}, log)")
        elif c == 5:
            self.emit(d, f"if k % {self.r.randint(2, 3)} == 0:")
            self.emit(d + 1, f"raise {self.r.choice(_EXC)}('cond {self.n}')")
        elif c == 6:
            self.emit(d, f"k = k + int({self.r.choice(['3', 'x1', '7', 'q'])!r})")
        elif c == 7:
            self.emit(d, f"{self.tv()} = helper_finally({self.tv()}, log)")
        elif c == 8:
            self.emit(d, f"print('in try', k, {self.tv()})")  # a graph break inside the try body
        else:
            self.emit(d, f"k = k + int({self.tv()}.asnumpy().sum() > 0)")  # a break, then a value
        self.n += 1

    def handler_body(self, d, name):
        c = self.r.randrange(8)
        if name and c < 3:
            self.emit(d, f"log.append((type({name}).__name__, str({name})))")
        elif c == 3 and self.in_handler <= 1:
            self.emit(d, f"raise RuntimeError('from handler {self.n}') from {name or 'None'}")
        elif c == 4:
            self.emit(d, "raise")
        elif c == 5 and self.loops:
            self.emit(d, self.r.choice(["continue", "break"]))
        else:
            self.arith(d)
            self.emit(d, f"log.append('handled {self.n}')")
        self.n += 1

    def try_stmt(self, d, budget):
        self.emit(d, "try:")
        self.block(d + 1, budget, raising=True)
        handlers = self.r.randint(0, 2)
        if handlers == 0 and self.r.random() < 0.5:
            handlers = 1
        for h in range(handlers):
            name = "e" if self.r.random() < 0.6 else None
            self.emit(d, f"except {self.r.choice(_CATCH)}" + (f" as {name}:" if name else ":"))
            self.in_handler += 1
            self.handler_body(d + 1, name)
            if self.r.random() < 0.4:
                self.block(d + 1, 1, raising=self.r.random() < 0.3)
            self.in_handler -= 1
        if handlers and self.r.random() < 0.3:
            self.emit(d, "else:")
            self.emit(d + 1, f"log.append('else {self.n}')")
            self.arith(d + 1)
        if not handlers or self.r.random() < 0.4:
            self.emit(d, "finally:")
            self.emit(d + 1, f"log.append('finally {self.n}')")
            if self.r.random() < 0.3:
                self.arith(d + 1)
        self.n += 1

    def with_stmt(self, d, budget):
        c = self.r.randrange(6)
        name = f"m{self.n}"
        if c == 0:
            head = f"with Mgr(log, {name!r}, swallow={self.r.random() < 0.5}) as v{self.n}:"
        elif c == 1:
            head = f"with contextlib.suppress({self.r.choice(_CATCH)}):"
        elif c == 2:
            head = f"with contextlib.nullcontext({self.r.randint(0, 9)}) as v{self.n}:"
        elif c == 3:
            head = f"with gen_mgr(log, {name!r}) as v{self.n}:"
        elif c == 4:
            head = f"with gen_catch(log, {name!r}):"
        else:
            head = f"with Mgr(log, {name!r}), Mgr(log, {name + 'b'!r}, swallow={self.r.random() < 0.5}):"
        self.n += 1
        self.emit(d, head)
        self.block(d + 1, budget, raising=True)

    def loop(self, d, budget):
        self.loops += 1
        self.emit(d, f"for i{self.loops} in range({self.r.randint(1, 3)}):")
        self.block(d + 1, budget)
        self.loops -= 1

    def block(self, d, budget, raising=False):
        n = self.r.randint(1, max(1, budget))
        for _ in range(n):
            c = self.r.random()
            if raising and c < 0.35:
                self.raising(d)
            elif budget > 1 and d < 5 and c < 0.55:
                self.try_stmt(d, budget - 1)
            elif budget > 1 and d < 5 and c < 0.7:
                self.with_stmt(d, budget - 1)
            elif budget > 1 and d < 4 and c < 0.78:
                self.loop(d, budget - 1)
            else:
                self.arith(d)

    def program(self):
        self.emit(0, "def prog(x, y, k, log):")
        self.block(1, self.r.randint(2, 4))
        if self.r.random() < 0.1:
            self.raising(1)  # may escape the frame
        self.emit(1, "return x, y, k")
        return "\n".join(self.lines) + "\n"


def generate(seed: int) -> str:
    """The source of one random program (deterministic in ``seed``)."""
    return _Gen(seed).program()


def compile_program(src: str, filename: str):
    import linecache
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    ns = dict(HELPERS)
    exec(compile(src, filename, "exec"), ns)
    return ns["prog"]


def inputs(seed: int, call: int):
    rng = np.random.default_rng(seed * 11 + call)
    x = Tensor(rng.standard_normal(3).astype(np.float32))
    y = Tensor(rng.standard_normal(3).astype(np.float32))
    return x, y, int(rng.integers(0, 7)), []
