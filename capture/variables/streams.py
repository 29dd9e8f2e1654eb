"""``io.StringIO`` made by the traced code, and ``print`` into it, without a graph break.

A StringIO the frame makes is modelled by :class:`StringIOVariable`: the text written to it, as
a list of *pieces* in write order: constant strings, and tensors whose text (``str(tensor)``,
as ``print`` writes it) exists only once the graph ran. ``print(..., file=f)``, and ``print``
while ``sys.stdout`` is ``f`` (``contextlib.redirect_stdout(f)``, whose ``setattr(sys, ...)`` is
a traced side effect), append to the model instead of printing. ``f.getvalue()`` is a constant
when every piece is one. When the StringIO outlives the graph (returned, stored, live at a graph
break, or the stream a break leaves in ``sys.stdout``), it is rebuilt after the graph ran: a
new StringIO (one per call, as the frame makes one per call) with its pieces written in order,
tensors' text taken from the graph's outputs.

What is not modelled breaks the graph, as before: printing a value whose text is not known
(a user object's ``__str__`` runs Python code, which may read state the frame changes later),
printing to another stream (the terminal: the print must happen where it happens, between the
graph's parts), reading back run-time text, seeking, reading, closing.
"""
from __future__ import annotations

import io
import sys

from ..builder import SymTensor
from ..errors import GraphBreak
from .base import ConstantVariable, Variable
from .containers import TupleVariable
from .tensor import TensorVariable

#: types whose ``str()`` is computed at trace time (no user code runs)
_PLAIN_TEXT_TYPES = (str, int, float, bool, type(None), complex)



def _print_break():
    return GraphBreak("print() inside a captured region: it must print on every call",
                      hint="remove the print, or accept the graph break (the print runs eagerly between two graphs)")


def rebuild_stringio(*pieces):
    """A new StringIO holding ``pieces`` written in order (tensors as ``print`` writes them)."""
    stream = io.StringIO()
    for p in pieces:
        stream.write(p if type(p) is str else str(p))
    return stream


class StringIOVariable(Variable):
    """An ``io.StringIO()`` the traced code made (see the module docstring)."""

    def __init__(self):
        self.pieces: list = []  # str, or TensorVariable (a snapshot of the tensor printed)

    def python_type(self):
        return io.StringIO

    def describe(self):
        return "io.StringIO made in the captured code"

    def text_if_known(self):
        if all(type(p) is str for p in self.pieces):
            return "".join(self.pieces)
        return None

    def write_pieces(self, pieces):
        for p in pieces:
            if type(p) is str and self.pieces and type(self.pieces[-1]) is str:
                self.pieces[-1] += p
            elif not (type(p) is str and not p):
                self.pieces.append(p)

    def reconstruct(self, rec):
        pieces = [("val", p) if type(p) is str else rec.of(p) for p in self.pieces]
        return ("call", ("val", rebuild_stringio), pieces, {}, rec.memo_key())

    def getattr(self, tx, name):
        if name in _METHODS:
            return StringIOMethodVariable(self, name)
        if name == "closed":
            return ConstantVariable(False)  # (close() breaks)
        raise GraphBreak(f"attribute {name!r} of an io.StringIO made in the captured code",
                         hint="the rest runs eagerly with the StringIO rebuilt")


class StringIOMethodVariable(Variable):
    """A method of a :class:`StringIOVariable` (``write``, ``getvalue``, ``flush``, ``close``...)."""

    def __init__(self, stream, name):
        self.stream, self.name = stream, name

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.stream), self.name)

    def describe(self):
        return f"StringIO.{self.name}"

    def call(self, tx, args, kwargs):
        s, name = self.stream, self.name
        if kwargs:
            raise GraphBreak(f"StringIO.{name} with keyword arguments")
        if name == "write" and len(args) == 1:
            a = args[0]
            if not (a.is_const() and isinstance(a.value, str)):
                if a.is_const():
                    from ..errors import UserException
                    raise UserException(TypeError(f"string argument expected, got '{type(a.value).__name__}'"))
                raise GraphBreak(f"StringIO.write of a {a.describe()}")
            s.write_pieces([a.value])
            return ConstantVariable(len(a.value))
        if name == "getvalue" and not args:
            text = s.text_if_known()
            if text is None:
                raise GraphBreak("reading back a StringIO that holds a tensor's text: the text exists only at run "
                                 "time", hint="the rest runs eagerly with the StringIO rebuilt")
            return ConstantVariable(text)
        if name == "flush" and not args:
            return ConstantVariable(None)
        if name == "writable" and not args:
            return ConstantVariable(True)
        raise GraphBreak(f"StringIO.{name}() on a StringIO made in the captured code",
                         hint="the rest runs eagerly with the StringIO rebuilt")


_METHODS = frozenset({"write", "getvalue", "flush", "writable", "seek", "tell", "read", "readline",
                      "readlines", "truncate", "close", "writelines", "__enter__", "__exit__"})


def _text_piece(tx, v):
    """What ``print`` writes for ``v``: a str, a snapshot TensorVariable, or None (not known)."""
    if v.is_const() and type(v.value) in _PLAIN_TEXT_TYPES:
        return str(v.value)
    if isinstance(v, TupleVariable) and v.is_const() and all(type(i.value) in _PLAIN_TEXT_TYPES for i in v.items):
        return str(v.python_type()(i.value for i in v.items)) if v.cls is None else None
    if isinstance(v, TensorVariable):
        # the value printed now: a later in-place update of the tensor must not show
        return TensorVariable(SymTensor(tx.builder.current(v.sym.value), tx.builder))
    return None


def trace_print(tx, args, kwargs):
    """``print(*args, sep=, end=, file=, flush=)``: appended to a StringIO the frame made (the
    stream named by ``file``, else the one ``sys.stdout`` was set to in the frame); anything else
    is the graph break print has always been."""
    unknown = set(kwargs) - {"sep", "end", "file", "flush"}
    if unknown:
        raise _print_break()
    target = kwargs.get("file")
    if target is None or (target.is_const() and target.value is None):
        target = tx.tracer.side_effects.written_global(sys.__dict__, "stdout")
    if not isinstance(target, StringIOVariable):
        raise _print_break()
    texts = {}
    for k, default in (("sep", " "), ("end", "\n")):
        v = kwargs.get(k)
        if v is None or (v.is_const() and v.value is None):
            texts[k] = default
        elif v.is_const() and isinstance(v.value, str):
            texts[k] = v.value
        else:
            raise _print_break()
    pieces = []
    for i, a in enumerate(args):
        p = _text_piece(tx, a)
        if p is None:
            raise _print_break()
        if i:
            pieces.append(texts["sep"])
        pieces.append(p)
    pieces.append(texts["end"])
    target.write_pieces(pieces)
    return ConstantVariable(None)
