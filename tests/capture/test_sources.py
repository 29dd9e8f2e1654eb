"""capture.sources: one description of where a value lives, read three ways -- directly
(``read``), as Python text (``expr``, what messages show and the fallback guard check evaluates)
and as a reconstruction recipe (``recipe``, evaluated by ``capture.reconstruct.build``). The
three must give the same value; the oracle for each is plain Python indexing of the objects."""
import types

import numpy as np
import pytest

from capture import reconstruct
from capture.guards import GuardSet
from capture.sources import Arg, Attr, Call, Item, Len, Lit, Object, Source, Text, TypeOf, arg_source


class Holder:
    def __init__(self):
        self.table = {"k": [10, 20, 30]}
        self.scale = 2.5


class _Recipes:
    """What a source's recipe asks of ``capture.reconstruct.Recipes``: objects are held as they are."""

    def object_recipe(self, obj):
        return ("val", obj)


def _cases():
    """(source, the value plain Python gives) over one call's arguments and a guard set's names."""
    gs = GuardSet()
    holder, cell = Holder(), types.CellType(7.0)
    args = ({"a": [1, 2]}, (np.float32(3.0), "s"), holder)
    g_holder, g_cell = gs.obj(holder), gs.obj(cell)
    cases = [
        (Arg(0), args[0]),
        (Item(Item(Arg(0), "a"), 1), 2),
        (arg_source((1, 0)), args[1][0]),
        (Attr(Arg(2), "scale"), 2.5),
        (Item(Item(Attr(g_holder, "table"), "k"), 2), 30),
        (Attr(g_cell, "cell_contents"), 7.0),
        (Item(gs.obj(globals()), "Holder"), Holder),
        (TypeOf(Item(Arg(1), 1)), str),
        (Len(Item(Attr(g_holder, "table"), "k")), 3),
        (Call(gs.obj(sorted), Item(Arg(0), "a")), [1, 2]),
        (Lit((1, "x")), (1, "x")),
    ]
    return gs, args, cases


def test_read_and_expr_give_the_value_python_gives():
    gs, args, cases = _cases()
    for src, want in cases:
        assert src.read(args) == want, src.expr()
        assert eval(src.expr(), dict(gs.namespace), {"args": args}) == want, src.expr()
        assert str(src) == src.expr()


def test_recipes_read_the_same_value_for_a_call():
    gs, args, cases = _cases()
    with_recipes = 0
    for src, want in cases:
        try:
            recipe = src.recipe(_Recipes())
        except NotImplementedError:  # (guard-only reads: type(), len(), a call)
            assert isinstance(src, (TypeOf, Call))
            continue
        with_recipes += 1
        assert reconstruct.build(recipe, [], args, {}) == want, src.expr()
    assert with_recipes == 8


def test_argument_paths():
    assert Arg(3).path == (3,) and Item(Item(Arg(0), "a"), 1).path == (0, "a", 1)
    assert arg_source((2, "k", 0)).expr() == "args[2]['k'][0]"
    assert Attr(Arg(0), "x").path is None and Item(Object([]), 0).path is None
    # an argument's item is read from the call itself (export and the C call read the path)
    assert Item(Arg(1), 0).recipe(_Recipes())[0] == "src"


def test_a_held_object_reads_through_its_weak_reference_once_held_weakly():
    gs = GuardSet()
    holder = Holder()
    src = gs.obj(holder)
    gs.identity(Attr(Arg(0), "h"), holder, "h")  # (guarded by identity, read from outside: held weakly)
    gs.compile()
    assert src.name in gs.weak and src.ref is gs.weak[src.name]
    assert src.read(()) is holder and src.expr(gs.weak) == src.name + "()"
    del holder
    import gc
    gc.collect()
    from capture.guards import DEAD
    assert src.read(()) is DEAD


def test_unnamed_objects_show_their_name_and_text_is_evaluated_with_the_guard_names():
    class Named:
        name = "fc.weight"
    assert Object(Named()).expr() == "fc.weight" and Object(3).expr() == "int"
    with pytest.raises(NotImplementedError):
        Text("args[0]").read((1,))
    assert Text("o1 is o12").expr({"o1": 0}) == "o1() is o12"
    assert all(issubclass(c, Source) for c in (Arg, Attr, Call, Item, Len, Lit, Object, Text, TypeOf))
