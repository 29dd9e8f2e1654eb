"""CPython ``Lib/test/test_patma.py`` (3.11) ported as capture-vs-eager differential cases (see
port_harness.py): structural pattern matching -- literal, value, capture, wildcard, or, as,
guard, sequence (star), mapping (``**rest``), class (``__match_args__``, keyword sub-patterns,
self-matching builtins) patterns, and the TypeError/ValueError that bad patterns raise at run
time. The test bodies are CPython's, unchanged; ``self`` is a ``Checks`` recorder
(unittest_shim.py), so every value CPython's test compares is also compared between eager and
captured runs, and the eager run must pass CPython's own assertions. The last cases match on
Tensors (capture's own interest: the subject of a class/sequence pattern is a traced value)."""
import array
import collections
import collections.abc
import dataclasses
import enum

import pytest

from port_harness import check, parametrize
from runtime import Tensor
from unittest_shim import Checks, assert_eager_passes


@dataclasses.dataclass
class Point:
    x: int
    y: int


def case_patma_000(tensor, state):
    """TestPatma.test_patma_000"""
    self = Checks(state)
    match 0:
        case 0:
            x = True
    self.assertIs(x, True)
    return tensor + 1


def case_patma_001(tensor, state):
    """TestPatma.test_patma_001"""
    self = Checks(state)
    match 0:
        case 0 if False:
            x = False
        case 0 if True:
            x = True
    self.assertIs(x, True)
    return tensor + 1


def case_patma_002(tensor, state):
    """TestPatma.test_patma_002"""
    self = Checks(state)
    match 0:
        case 0:
            x = True
        case 0:
            x = False
    self.assertIs(x, True)
    return tensor + 1


def case_patma_003(tensor, state):
    """TestPatma.test_patma_003"""
    self = Checks(state)
    x = False
    match 0:
        case 0 | 1 | 2 | 3:
            x = True
    self.assertIs(x, True)
    return tensor + 1


def case_patma_004(tensor, state):
    """TestPatma.test_patma_004"""
    self = Checks(state)
    x = False
    match 1:
        case 0 | 1 | 2 | 3:
            x = True
    self.assertIs(x, True)
    return tensor + 1


def case_patma_005(tensor, state):
    """TestPatma.test_patma_005"""
    self = Checks(state)
    x = False
    match 2:
        case 0 | 1 | 2 | 3:
            x = True
    self.assertIs(x, True)
    return tensor + 1


def case_patma_006(tensor, state):
    """TestPatma.test_patma_006"""
    self = Checks(state)
    x = False
    match 3:
        case 0 | 1 | 2 | 3:
            x = True
    self.assertIs(x, True)
    return tensor + 1


def case_patma_007(tensor, state):
    """TestPatma.test_patma_007"""
    self = Checks(state)
    x = False
    match 4:
        case 0 | 1 | 2 | 3:
            x = True
    self.assertIs(x, False)
    return tensor + 1


def case_patma_008(tensor, state):
    """TestPatma.test_patma_008"""
    self = Checks(state)
    x = 0
    class A:
        y = 1
    match x:
        case A.y as z:
            pass
    self.assertEqual(x, 0)
    self.assertEqual(A.y, 1)
    return tensor + 1


def case_patma_009(tensor, state):
    """TestPatma.test_patma_009"""
    self = Checks(state)
    class A:
        B = 0
    match 0:
        case x if x:
            z = 0
        case _ as y if y == x and y:
            z = 1
        case A.B:
            z = 2
    self.assertEqual(A.B, 0)
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertEqual(z, 2)
    return tensor + 1


def case_patma_010(tensor, state):
    """TestPatma.test_patma_010"""
    self = Checks(state)
    match ():
        case []:
            x = 0
    self.assertEqual(x, 0)
    return tensor + 1


def case_patma_011(tensor, state):
    """TestPatma.test_patma_011"""
    self = Checks(state)
    match (0, 1, 2):
        case [*x]:
            y = 0
    self.assertEqual(x, [0, 1, 2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_012(tensor, state):
    """TestPatma.test_patma_012"""
    self = Checks(state)
    match (0, 1, 2):
        case [0, *x]:
            y = 0
    self.assertEqual(x, [1, 2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_013(tensor, state):
    """TestPatma.test_patma_013"""
    self = Checks(state)
    match (0, 1, 2):
        case [0, 1, *x,]:
            y = 0
    self.assertEqual(x, [2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_014(tensor, state):
    """TestPatma.test_patma_014"""
    self = Checks(state)
    match (0, 1, 2):
        case [0, 1, 2, *x]:
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_015(tensor, state):
    """TestPatma.test_patma_015"""
    self = Checks(state)
    match (0, 1, 2):
        case [*x, 2,]:
            y = 0
    self.assertEqual(x, [0, 1])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_016(tensor, state):
    """TestPatma.test_patma_016"""
    self = Checks(state)
    match (0, 1, 2):
        case [*x, 1, 2]:
            y = 0
    self.assertEqual(x, [0])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_017(tensor, state):
    """TestPatma.test_patma_017"""
    self = Checks(state)
    match (0, 1, 2):
        case [*x, 0, 1, 2,]:
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_018(tensor, state):
    """TestPatma.test_patma_018"""
    self = Checks(state)
    match (0, 1, 2):
        case [0, *x, 2]:
            y = 0
    self.assertEqual(x, [1])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_019(tensor, state):
    """TestPatma.test_patma_019"""
    self = Checks(state)
    match (0, 1, 2):
        case [0, 1, *x, 2,]:
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_020(tensor, state):
    """TestPatma.test_patma_020"""
    self = Checks(state)
    match (0, 1, 2):
        case [0, *x, 1, 2]:
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_021(tensor, state):
    """TestPatma.test_patma_021"""
    self = Checks(state)
    match (0, 1, 2):
        case [*x,]:
            y = 0
    self.assertEqual(x, [0, 1, 2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_022(tensor, state):
    """TestPatma.test_patma_022"""
    self = Checks(state)
    x = {}
    match x:
        case {}:
            y = 0
    self.assertEqual(x, {})
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_023(tensor, state):
    """TestPatma.test_patma_023"""
    self = Checks(state)
    x = {0: 0}
    match x:
        case {}:
            y = 0
    self.assertEqual(x, {0: 0})
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_024(tensor, state):
    """TestPatma.test_patma_024"""
    self = Checks(state)
    x = {}
    y = None
    match x:
        case {0: 0}:
            y = 0
    self.assertEqual(x, {})
    self.assertIs(y, None)
    return tensor + 1


def case_patma_025(tensor, state):
    """TestPatma.test_patma_025"""
    self = Checks(state)
    x = {0: 0}
    match x:
        case {0: (0 | 1 | 2 as z)}:
            y = 0
    self.assertEqual(x, {0: 0})
    self.assertEqual(y, 0)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_026(tensor, state):
    """TestPatma.test_patma_026"""
    self = Checks(state)
    x = {0: 1}
    match x:
        case {0: (0 | 1 | 2 as z)}:
            y = 0
    self.assertEqual(x, {0: 1})
    self.assertEqual(y, 0)
    self.assertEqual(z, 1)
    return tensor + 1


def case_patma_027(tensor, state):
    """TestPatma.test_patma_027"""
    self = Checks(state)
    x = {0: 2}
    match x:
        case {0: (0 | 1 | 2 as z)}:
            y = 0
    self.assertEqual(x, {0: 2})
    self.assertEqual(y, 0)
    self.assertEqual(z, 2)
    return tensor + 1


def case_patma_028(tensor, state):
    """TestPatma.test_patma_028"""
    self = Checks(state)
    x = {0: 3}
    y = None
    match x:
        case {0: (0 | 1 | 2 as z)}:
            y = 0
    self.assertEqual(x, {0: 3})
    self.assertIs(y, None)
    return tensor + 1


def case_patma_029(tensor, state):
    """TestPatma.test_patma_029"""
    self = Checks(state)
    x = {}
    y = None
    match x:
        case {0: [1, 2, {}]}:
            y = 0
        case {0: [1, 2, {}], 1: [[]]}:
            y = 1
        case []:
            y = 2
    self.assertEqual(x, {})
    self.assertIs(y, None)
    return tensor + 1


def case_patma_030(tensor, state):
    """TestPatma.test_patma_030"""
    self = Checks(state)
    x = {False: (True, 2.0, {})}
    match x:
        case {0: [1, 2, {}]}:
            y = 0
        case {0: [1, 2, {}], 1: [[]]}:
            y = 1
        case []:
            y = 2
    self.assertEqual(x, {False: (True, 2.0, {})})
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_031(tensor, state):
    """TestPatma.test_patma_031"""
    self = Checks(state)
    x = {False: (True, 2.0, {}), 1: [[]], 2: 0}
    match x:
        case {0: [1, 2, {}]}:
            y = 0
        case {0: [1, 2, {}], 1: [[]]}:
            y = 1
        case []:
            y = 2
    self.assertEqual(x, {False: (True, 2.0, {}), 1: [[]], 2: 0})
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_032(tensor, state):
    """TestPatma.test_patma_032"""
    self = Checks(state)
    x = {False: (True, 2.0, {}), 1: [[]], 2: 0}
    match x:
        case {0: [1, 2]}:
            y = 0
        case {0: [1, 2, {}], 1: [[]]}:
            y = 1
        case []:
            y = 2
    self.assertEqual(x, {False: (True, 2.0, {}), 1: [[]], 2: 0})
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_033(tensor, state):
    """TestPatma.test_patma_033"""
    self = Checks(state)
    x = []
    match x:
        case {0: [1, 2, {}]}:
            y = 0
        case {0: [1, 2, {}], 1: [[]]}:
            y = 1
        case []:
            y = 2
    self.assertEqual(x, [])
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_034(tensor, state):
    """TestPatma.test_patma_034"""
    self = Checks(state)
    x = {0: 0}
    match x:
        case {0: [1, 2, {}]}:
            y = 0
        case {0: ([1, 2, {}] | False)} | {1: [[]]} | {0: [1, 2, {}]} | [] | "X" | {}:
            y = 1
        case []:
            y = 2
    self.assertEqual(x, {0: 0})
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_035(tensor, state):
    """TestPatma.test_patma_035"""
    self = Checks(state)
    x = {0: 0}
    match x:
        case {0: [1, 2, {}]}:
            y = 0
        case {0: [1, 2, {}] | True} | {1: [[]]} | {0: [1, 2, {}]} | [] | "X" | {}:
            y = 1
        case []:
            y = 2
    self.assertEqual(x, {0: 0})
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_036(tensor, state):
    """TestPatma.test_patma_036"""
    self = Checks(state)
    x = 0
    match x:
        case 0 | 1 | 2:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_037(tensor, state):
    """TestPatma.test_patma_037"""
    self = Checks(state)
    x = 1
    match x:
        case 0 | 1 | 2:
            y = 0
    self.assertEqual(x, 1)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_038(tensor, state):
    """TestPatma.test_patma_038"""
    self = Checks(state)
    x = 2
    match x:
        case 0 | 1 | 2:
            y = 0
    self.assertEqual(x, 2)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_039(tensor, state):
    """TestPatma.test_patma_039"""
    self = Checks(state)
    x = 3
    y = None
    match x:
        case 0 | 1 | 2:
            y = 0
    self.assertEqual(x, 3)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_040(tensor, state):
    """TestPatma.test_patma_040"""
    self = Checks(state)
    x = 0
    match x:
        case (0 as z) | (1 as z) | (2 as z) if z == x % 2:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_041(tensor, state):
    """TestPatma.test_patma_041"""
    self = Checks(state)
    x = 1
    match x:
        case (0 as z) | (1 as z) | (2 as z) if z == x % 2:
            y = 0
    self.assertEqual(x, 1)
    self.assertEqual(y, 0)
    self.assertEqual(z, 1)
    return tensor + 1


def case_patma_042(tensor, state):
    """TestPatma.test_patma_042"""
    self = Checks(state)
    x = 2
    y = None
    match x:
        case (0 as z) | (1 as z) | (2 as z) if z == x % 2:
            y = 0
    self.assertEqual(x, 2)
    self.assertIs(y, None)
    self.assertEqual(z, 2)
    return tensor + 1


def case_patma_043(tensor, state):
    """TestPatma.test_patma_043"""
    self = Checks(state)
    x = 3
    y = None
    match x:
        case (0 as z) | (1 as z) | (2 as z) if z == x % 2:
            y = 0
    self.assertEqual(x, 3)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_044(tensor, state):
    """TestPatma.test_patma_044"""
    self = Checks(state)
    x = ()
    match x:
        case []:
            y = 0
    self.assertEqual(x, ())
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_045(tensor, state):
    """TestPatma.test_patma_045"""
    self = Checks(state)
    x = ()
    match x:
        case ():
            y = 0
    self.assertEqual(x, ())
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_046(tensor, state):
    """TestPatma.test_patma_046"""
    self = Checks(state)
    x = (0,)
    match x:
        case [0]:
            y = 0
    self.assertEqual(x, (0,))
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_047(tensor, state):
    """TestPatma.test_patma_047"""
    self = Checks(state)
    x = ((),)
    match x:
        case [[]]:
            y = 0
    self.assertEqual(x, ((),))
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_048(tensor, state):
    """TestPatma.test_patma_048"""
    self = Checks(state)
    x = [0, 1]
    match x:
        case [0, 1] | [1, 0]:
            y = 0
    self.assertEqual(x, [0, 1])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_049(tensor, state):
    """TestPatma.test_patma_049"""
    self = Checks(state)
    x = [1, 0]
    match x:
        case [0, 1] | [1, 0]:
            y = 0
    self.assertEqual(x, [1, 0])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_050(tensor, state):
    """TestPatma.test_patma_050"""
    self = Checks(state)
    x = [0, 0]
    y = None
    match x:
        case [0, 1] | [1, 0]:
            y = 0
    self.assertEqual(x, [0, 0])
    self.assertIs(y, None)
    return tensor + 1


def case_patma_051(tensor, state):
    """TestPatma.test_patma_051"""
    self = Checks(state)
    w = None
    x = [1, 0]
    match x:
        case [(0 as w)]:
            y = 0
        case [z] | [1, (0 | 1 as z)] | [z]:
            y = 1
    self.assertIs(w, None)
    self.assertEqual(x, [1, 0])
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_052(tensor, state):
    """TestPatma.test_patma_052"""
    self = Checks(state)
    x = [1, 0]
    match x:
        case [0]:
            y = 0
        case [1, 0] if (x := x[:0]):
            y = 1
        case [1, 0]:
            y = 2
    self.assertEqual(x, [])
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_053(tensor, state):
    """TestPatma.test_patma_053"""
    self = Checks(state)
    x = {0}
    y = None
    match x:
        case [0]:
            y = 0
    self.assertEqual(x, {0})
    self.assertIs(y, None)
    return tensor + 1


def case_patma_054(tensor, state):
    """TestPatma.test_patma_054"""
    self = Checks(state)
    x = set()
    y = None
    match x:
        case []:
            y = 0
    self.assertEqual(x, set())
    self.assertIs(y, None)
    return tensor + 1


def case_patma_055(tensor, state):
    """TestPatma.test_patma_055"""
    self = Checks(state)
    x = iter([1, 2, 3])
    y = None
    match x:
        case []:
            y = 0
    self.assertEqual([*x], [1, 2, 3])
    self.assertIs(y, None)
    return tensor + 1


def case_patma_056(tensor, state):
    """TestPatma.test_patma_056"""
    self = Checks(state)
    x = {}
    y = None
    match x:
        case []:
            y = 0
    self.assertEqual(x, {})
    self.assertIs(y, None)
    return tensor + 1


def case_patma_057(tensor, state):
    """TestPatma.test_patma_057"""
    self = Checks(state)
    x = {0: False, 1: True}
    y = None
    match x:
        case [0, 1]:
            y = 0
    self.assertEqual(x, {0: False, 1: True})
    self.assertIs(y, None)
    return tensor + 1


def case_patma_058(tensor, state):
    """TestPatma.test_patma_058"""
    self = Checks(state)
    x = 0
    match x:
        case 0:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_059(tensor, state):
    """TestPatma.test_patma_059"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case False:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, None)
    return tensor + 1


def case_patma_060(tensor, state):
    """TestPatma.test_patma_060"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case 1:
            y = 0
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_061(tensor, state):
    """TestPatma.test_patma_061"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case None:
            y = 0
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_062(tensor, state):
    """TestPatma.test_patma_062"""
    self = Checks(state)
    x = 0
    match x:
        case 0:
            y = 0
        case 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_063(tensor, state):
    """TestPatma.test_patma_063"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case 1:
            y = 0
        case 1:
            y = 1
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_064(tensor, state):
    """TestPatma.test_patma_064"""
    self = Checks(state)
    x = "x"
    match x:
        case "x":
            y = 0
        case "y":
            y = 1
    self.assertEqual(x, "x")
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_065(tensor, state):
    """TestPatma.test_patma_065"""
    self = Checks(state)
    x = "x"
    match x:
        case "y":
            y = 0
        case "x":
            y = 1
    self.assertEqual(x, "x")
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_066(tensor, state):
    """TestPatma.test_patma_066"""
    self = Checks(state)
    x = "x"
    match x:
        case "":
            y = 0
        case "x":
            y = 1
    self.assertEqual(x, "x")
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_067(tensor, state):
    """TestPatma.test_patma_067"""
    self = Checks(state)
    x = b"x"
    match x:
        case b"y":
            y = 0
        case b"x":
            y = 1
    self.assertEqual(x, b"x")
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_068(tensor, state):
    """TestPatma.test_patma_068"""
    self = Checks(state)
    x = 0
    match x:
        case 0 if False:
            y = 0
        case 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_069(tensor, state):
    """TestPatma.test_patma_069"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case 0 if 0:
            y = 0
        case 0 if 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_070(tensor, state):
    """TestPatma.test_patma_070"""
    self = Checks(state)
    x = 0
    match x:
        case 0 if True:
            y = 0
        case 0 if True:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_071(tensor, state):
    """TestPatma.test_patma_071"""
    self = Checks(state)
    x = 0
    match x:
        case 0 if 1:
            y = 0
        case 0 if 1:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_072(tensor, state):
    """TestPatma.test_patma_072"""
    self = Checks(state)
    x = 0
    match x:
        case 0 if True:
            y = 0
        case 0 if True:
            y = 1
    y = 2
    self.assertEqual(x, 0)
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_073(tensor, state):
    """TestPatma.test_patma_073"""
    self = Checks(state)
    x = 0
    match x:
        case 0 if 0:
            y = 0
        case 0 if 1:
            y = 1
    y = 2
    self.assertEqual(x, 0)
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_074(tensor, state):
    """TestPatma.test_patma_074"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case 0 if not (x := 1):
            y = 0
        case 1:
            y = 1
    self.assertEqual(x, 1)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_075(tensor, state):
    """TestPatma.test_patma_075"""
    self = Checks(state)
    x = "x"
    match x:
        case ["x"]:
            y = 0
        case "x":
            y = 1
    self.assertEqual(x, "x")
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_076(tensor, state):
    """TestPatma.test_patma_076"""
    self = Checks(state)
    x = b"x"
    match x:
        case [b"x"]:
            y = 0
        case ["x"]:
            y = 1
        case [120]:
            y = 2
        case b"x":
            y = 4
    self.assertEqual(x, b"x")
    self.assertEqual(y, 4)
    return tensor + 1


def case_patma_077(tensor, state):
    """TestPatma.test_patma_077"""
    self = Checks(state)
    x = bytearray(b"x")
    y = None
    match x:
        case [120]:
            y = 0
        case 120:
            y = 1
    self.assertEqual(x, b"x")
    self.assertIs(y, None)
    return tensor + 1


def case_patma_078(tensor, state):
    """TestPatma.test_patma_078"""
    self = Checks(state)
    x = ""
    match x:
        case []:
            y = 0
        case [""]:
            y = 1
        case "":
            y = 2
    self.assertEqual(x, "")
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_079(tensor, state):
    """TestPatma.test_patma_079"""
    self = Checks(state)
    x = "xxx"
    match x:
        case ["x", "x", "x"]:
            y = 0
        case ["xxx"]:
            y = 1
        case "xxx":
            y = 2
    self.assertEqual(x, "xxx")
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_080(tensor, state):
    """TestPatma.test_patma_080"""
    self = Checks(state)
    x = b"xxx"
    match x:
        case [120, 120, 120]:
            y = 0
        case [b"xxx"]:
            y = 1
        case b"xxx":
            y = 2
    self.assertEqual(x, b"xxx")
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_081(tensor, state):
    """TestPatma.test_patma_081"""
    self = Checks(state)
    x = 0
    match x:
        case 0 if not (x := 1):
            y = 0
        case (0 as z):
            y = 1
    self.assertEqual(x, 1)
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_082(tensor, state):
    """TestPatma.test_patma_082"""
    self = Checks(state)
    x = 0
    match x:
        case (1 as z) if not (x := 1):
            y = 0
        case 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_083(tensor, state):
    """TestPatma.test_patma_083"""
    self = Checks(state)
    x = 0
    match x:
        case (0 as z):
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_084(tensor, state):
    """TestPatma.test_patma_084"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case (1 as z):
            y = 0
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_085(tensor, state):
    """TestPatma.test_patma_085"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case (0 as z) if (w := 0):
            y = 0
    self.assertEqual(w, 0)
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_086(tensor, state):
    """TestPatma.test_patma_086"""
    self = Checks(state)
    x = 0
    match x:
        case ((0 as w) as z):
            y = 0
    self.assertEqual(w, 0)
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_087(tensor, state):
    """TestPatma.test_patma_087"""
    self = Checks(state)
    x = 0
    match x:
        case (0 | 1) | 2:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_088(tensor, state):
    """TestPatma.test_patma_088"""
    self = Checks(state)
    x = 1
    match x:
        case (0 | 1) | 2:
            y = 0
    self.assertEqual(x, 1)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_089(tensor, state):
    """TestPatma.test_patma_089"""
    self = Checks(state)
    x = 2
    match x:
        case (0 | 1) | 2:
            y = 0
    self.assertEqual(x, 2)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_090(tensor, state):
    """TestPatma.test_patma_090"""
    self = Checks(state)
    x = 3
    y = None
    match x:
        case (0 | 1) | 2:
            y = 0
    self.assertEqual(x, 3)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_091(tensor, state):
    """TestPatma.test_patma_091"""
    self = Checks(state)
    x = 0
    match x:
        case 0 | (1 | 2):
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_092(tensor, state):
    """TestPatma.test_patma_092"""
    self = Checks(state)
    x = 1
    match x:
        case 0 | (1 | 2):
            y = 0
    self.assertEqual(x, 1)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_093(tensor, state):
    """TestPatma.test_patma_093"""
    self = Checks(state)
    x = 2
    match x:
        case 0 | (1 | 2):
            y = 0
    self.assertEqual(x, 2)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_094(tensor, state):
    """TestPatma.test_patma_094"""
    self = Checks(state)
    x = 3
    y = None
    match x:
        case 0 | (1 | 2):
            y = 0
    self.assertEqual(x, 3)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_095(tensor, state):
    """TestPatma.test_patma_095"""
    self = Checks(state)
    x = 0
    match x:
        case -0:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_096(tensor, state):
    """TestPatma.test_patma_096"""
    self = Checks(state)
    x = 0
    match x:
        case -0.0:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_097(tensor, state):
    """TestPatma.test_patma_097"""
    self = Checks(state)
    x = 0
    match x:
        case -0j:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_098(tensor, state):
    """TestPatma.test_patma_098"""
    self = Checks(state)
    x = 0
    match x:
        case -0.0j:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_099(tensor, state):
    """TestPatma.test_patma_099"""
    self = Checks(state)
    x = -1
    match x:
        case -1:
            y = 0
    self.assertEqual(x, -1)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_100(tensor, state):
    """TestPatma.test_patma_100"""
    self = Checks(state)
    x = -1.5
    match x:
        case -1.5:
            y = 0
    self.assertEqual(x, -1.5)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_101(tensor, state):
    """TestPatma.test_patma_101"""
    self = Checks(state)
    x = -1j
    match x:
        case -1j:
            y = 0
    self.assertEqual(x, -1j)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_102(tensor, state):
    """TestPatma.test_patma_102"""
    self = Checks(state)
    x = -1.5j
    match x:
        case -1.5j:
            y = 0
    self.assertEqual(x, -1.5j)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_103(tensor, state):
    """TestPatma.test_patma_103"""
    self = Checks(state)
    x = 0
    match x:
        case 0 + 0j:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_104(tensor, state):
    """TestPatma.test_patma_104"""
    self = Checks(state)
    x = 0
    match x:
        case 0 - 0j:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_105(tensor, state):
    """TestPatma.test_patma_105"""
    self = Checks(state)
    x = 0
    match x:
        case -0 + 0j:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_106(tensor, state):
    """TestPatma.test_patma_106"""
    self = Checks(state)
    x = 0
    match x:
        case -0 - 0j:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_107(tensor, state):
    """TestPatma.test_patma_107"""
    self = Checks(state)
    x = 0.25 + 1.75j
    match x:
        case 0.25 + 1.75j:
            y = 0
    self.assertEqual(x, 0.25 + 1.75j)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_108(tensor, state):
    """TestPatma.test_patma_108"""
    self = Checks(state)
    x = 0.25 - 1.75j
    match x:
        case 0.25 - 1.75j:
            y = 0
    self.assertEqual(x, 0.25 - 1.75j)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_109(tensor, state):
    """TestPatma.test_patma_109"""
    self = Checks(state)
    x = -0.25 + 1.75j
    match x:
        case -0.25 + 1.75j:
            y = 0
    self.assertEqual(x, -0.25 + 1.75j)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_110(tensor, state):
    """TestPatma.test_patma_110"""
    self = Checks(state)
    x = -0.25 - 1.75j
    match x:
        case -0.25 - 1.75j:
            y = 0
    self.assertEqual(x, -0.25 - 1.75j)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_111(tensor, state):
    """TestPatma.test_patma_111"""
    self = Checks(state)
    class A:
        B = 0
    x = 0
    match x:
        case A.B:
            y = 0
    self.assertEqual(A.B, 0)
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_112(tensor, state):
    """TestPatma.test_patma_112"""
    self = Checks(state)
    class A:
        class B:
            C = 0
    x = 0
    match x:
        case A.B.C:
            y = 0
    self.assertEqual(A.B.C, 0)
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_113(tensor, state):
    """TestPatma.test_patma_113"""
    self = Checks(state)
    class A:
        class B:
            C = 0
            D = 1
    x = 1
    match x:
        case A.B.C:
            y = 0
        case A.B.D:
            y = 1
    self.assertEqual(A.B.C, 0)
    self.assertEqual(A.B.D, 1)
    self.assertEqual(x, 1)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_114(tensor, state):
    """TestPatma.test_patma_114"""
    self = Checks(state)
    class A:
        class B:
            class C:
                D = 0
    x = 0
    match x:
        case A.B.C.D:
            y = 0
    self.assertEqual(A.B.C.D, 0)
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_115(tensor, state):
    """TestPatma.test_patma_115"""
    self = Checks(state)
    class A:
        class B:
            class C:
                D = 0
                E = 1
    x = 1
    match x:
        case A.B.C.D:
            y = 0
        case A.B.C.E:
            y = 1
    self.assertEqual(A.B.C.D, 0)
    self.assertEqual(A.B.C.E, 1)
    self.assertEqual(x, 1)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_116(tensor, state):
    """TestPatma.test_patma_116"""
    self = Checks(state)
    match = case = 0
    match match:
        case case:
            x = 0
    self.assertEqual(match, 0)
    self.assertEqual(case, 0)
    self.assertEqual(x, 0)
    return tensor + 1


def case_patma_117(tensor, state):
    """TestPatma.test_patma_117"""
    self = Checks(state)
    match = case = 0
    match case:
        case match:
            x = 0
    self.assertEqual(match, 0)
    self.assertEqual(case, 0)
    self.assertEqual(x, 0)
    return tensor + 1


def case_patma_118(tensor, state):
    """TestPatma.test_patma_118"""
    self = Checks(state)
    x = []
    match x:
        case [*_, _]:
            y = 0
        case []:
            y = 1
    self.assertEqual(x, [])
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_119(tensor, state):
    """TestPatma.test_patma_119"""
    self = Checks(state)
    x = collections.defaultdict(int)
    match x:
        case {0: 0}:
            y = 0
        case {}:
            y = 1
    self.assertEqual(x, {})
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_120(tensor, state):
    """TestPatma.test_patma_120"""
    self = Checks(state)
    x = collections.defaultdict(int)
    match x:
        case {0: 0}:
            y = 0
        case {**z}:
            y = 1
    self.assertEqual(x, {})
    self.assertEqual(y, 1)
    self.assertEqual(z, {})
    return tensor + 1


def case_patma_121(tensor, state):
    """TestPatma.test_patma_121"""
    self = Checks(state)
    match ():
        case ():
            x = 0
    self.assertEqual(x, 0)
    return tensor + 1


def case_patma_122(tensor, state):
    """TestPatma.test_patma_122"""
    self = Checks(state)
    match (0, 1, 2):
        case (*x,):
            y = 0
    self.assertEqual(x, [0, 1, 2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_123(tensor, state):
    """TestPatma.test_patma_123"""
    self = Checks(state)
    match (0, 1, 2):
        case 0, *x:
            y = 0
    self.assertEqual(x, [1, 2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_124(tensor, state):
    """TestPatma.test_patma_124"""
    self = Checks(state)
    match (0, 1, 2):
        case (0, 1, *x,):
            y = 0
    self.assertEqual(x, [2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_125(tensor, state):
    """TestPatma.test_patma_125"""
    self = Checks(state)
    match (0, 1, 2):
        case 0, 1, 2, *x:
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_126(tensor, state):
    """TestPatma.test_patma_126"""
    self = Checks(state)
    match (0, 1, 2):
        case *x, 2,:
            y = 0
    self.assertEqual(x, [0, 1])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_127(tensor, state):
    """TestPatma.test_patma_127"""
    self = Checks(state)
    match (0, 1, 2):
        case (*x, 1, 2):
            y = 0
    self.assertEqual(x, [0])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_128(tensor, state):
    """TestPatma.test_patma_128"""
    self = Checks(state)
    match (0, 1, 2):
        case *x, 0, 1, 2,:
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_129(tensor, state):
    """TestPatma.test_patma_129"""
    self = Checks(state)
    match (0, 1, 2):
        case (0, *x, 2):
            y = 0
    self.assertEqual(x, [1])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_130(tensor, state):
    """TestPatma.test_patma_130"""
    self = Checks(state)
    match (0, 1, 2):
        case 0, 1, *x, 2,:
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_131(tensor, state):
    """TestPatma.test_patma_131"""
    self = Checks(state)
    match (0, 1, 2):
        case (0, *x, 1, 2):
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_132(tensor, state):
    """TestPatma.test_patma_132"""
    self = Checks(state)
    match (0, 1, 2):
        case *x,:
            y = 0
    self.assertEqual(x, [0, 1, 2])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_133(tensor, state):
    """TestPatma.test_patma_133"""
    self = Checks(state)
    x = collections.defaultdict(int, {0: 1})
    match x:
        case {1: 0}:
            y = 0
        case {0: 0}:
            y = 1
        case {}:
            y = 2
    self.assertEqual(x, {0: 1})
    self.assertEqual(y, 2)
    return tensor + 1


def case_patma_134(tensor, state):
    """TestPatma.test_patma_134"""
    self = Checks(state)
    x = collections.defaultdict(int, {0: 1})
    match x:
        case {1: 0}:
            y = 0
        case {0: 0}:
            y = 1
        case {**z}:
            y = 2
    self.assertEqual(x, {0: 1})
    self.assertEqual(y, 2)
    self.assertEqual(z, {0: 1})
    return tensor + 1


def case_patma_135(tensor, state):
    """TestPatma.test_patma_135"""
    self = Checks(state)
    x = collections.defaultdict(int, {0: 1})
    match x:
        case {1: 0}:
            y = 0
        case {0: 0}:
            y = 1
        case {0: _, **z}:
            y = 2
    self.assertEqual(x, {0: 1})
    self.assertEqual(y, 2)
    self.assertEqual(z, {})
    return tensor + 1


def case_patma_136(tensor, state):
    """TestPatma.test_patma_136"""
    self = Checks(state)
    x = {0: 1}
    match x:
        case {1: 0}:
            y = 0
        case {0: 0}:
            y = 0
        case {}:
            y = 1
    self.assertEqual(x, {0: 1})
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_137(tensor, state):
    """TestPatma.test_patma_137"""
    self = Checks(state)
    x = {0: 1}
    match x:
        case {1: 0}:
            y = 0
        case {0: 0}:
            y = 0
        case {**z}:
            y = 1
    self.assertEqual(x, {0: 1})
    self.assertEqual(y, 1)
    self.assertEqual(z, {0: 1})
    return tensor + 1


def case_patma_138(tensor, state):
    """TestPatma.test_patma_138"""
    self = Checks(state)
    x = {0: 1}
    match x:
        case {1: 0}:
            y = 0
        case {0: 0}:
            y = 0
        case {0: _, **z}:
            y = 1
    self.assertEqual(x, {0: 1})
    self.assertEqual(y, 1)
    self.assertEqual(z, {})
    return tensor + 1


def case_patma_139(tensor, state):
    """TestPatma.test_patma_139"""
    self = Checks(state)
    x = False
    match x:
        case bool(z):
            y = 0
    self.assertIs(x, False)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_140(tensor, state):
    """TestPatma.test_patma_140"""
    self = Checks(state)
    x = True
    match x:
        case bool(z):
            y = 0
    self.assertIs(x, True)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_141(tensor, state):
    """TestPatma.test_patma_141"""
    self = Checks(state)
    x = bytearray()
    match x:
        case bytearray(z):
            y = 0
    self.assertEqual(x, bytearray())
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_142(tensor, state):
    """TestPatma.test_patma_142"""
    self = Checks(state)
    x = b""
    match x:
        case bytes(z):
            y = 0
    self.assertEqual(x, b"")
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_143(tensor, state):
    """TestPatma.test_patma_143"""
    self = Checks(state)
    x = {}
    match x:
        case dict(z):
            y = 0
    self.assertEqual(x, {})
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_144(tensor, state):
    """TestPatma.test_patma_144"""
    self = Checks(state)
    x = 0.0
    match x:
        case float(z):
            y = 0
    self.assertEqual(x, 0.0)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_145(tensor, state):
    """TestPatma.test_patma_145"""
    self = Checks(state)
    x = frozenset()
    match x:
        case frozenset(z):
            y = 0
    self.assertEqual(x, frozenset())
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_146(tensor, state):
    """TestPatma.test_patma_146"""
    self = Checks(state)
    x = 0
    match x:
        case int(z):
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_147(tensor, state):
    """TestPatma.test_patma_147"""
    self = Checks(state)
    x = []
    match x:
        case list(z):
            y = 0
    self.assertEqual(x, [])
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_148(tensor, state):
    """TestPatma.test_patma_148"""
    self = Checks(state)
    x = set()
    match x:
        case set(z):
            y = 0
    self.assertEqual(x, set())
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_149(tensor, state):
    """TestPatma.test_patma_149"""
    self = Checks(state)
    x = ""
    match x:
        case str(z):
            y = 0
    self.assertEqual(x, "")
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_150(tensor, state):
    """TestPatma.test_patma_150"""
    self = Checks(state)
    x = ()
    match x:
        case tuple(z):
            y = 0
    self.assertEqual(x, ())
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_151(tensor, state):
    """TestPatma.test_patma_151"""
    self = Checks(state)
    x = 0
    match x,:
        case y,:
            z = 0
    self.assertEqual(x, 0)
    self.assertIs(y, x)
    self.assertIs(z, 0)
    return tensor + 1


def case_patma_152(tensor, state):
    """TestPatma.test_patma_152"""
    self = Checks(state)
    w = 0
    x = 0
    match w, x:
        case y, z:
            v = 0
    self.assertEqual(w, 0)
    self.assertEqual(x, 0)
    self.assertIs(y, w)
    self.assertIs(z, x)
    self.assertEqual(v, 0)
    return tensor + 1


def case_patma_153(tensor, state):
    """TestPatma.test_patma_153"""
    self = Checks(state)
    x = 0
    match w := x,:
        case y as v,:
            z = 0
    self.assertEqual(x, 0)
    self.assertIs(y, x)
    self.assertEqual(z, 0)
    self.assertIs(w, x)
    self.assertIs(v, y)
    return tensor + 1


def case_patma_154(tensor, state):
    """TestPatma.test_patma_154"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case 0 if x:
            y = 0
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_155(tensor, state):
    """TestPatma.test_patma_155"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case 1e1000:
            y = 0
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_156(tensor, state):
    """TestPatma.test_patma_156"""
    self = Checks(state)
    x = 0
    match x:
        case z:
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_157(tensor, state):
    """TestPatma.test_patma_157"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case _ if x:
            y = 0
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_158(tensor, state):
    """TestPatma.test_patma_158"""
    self = Checks(state)
    x = 0
    match x:
        case -1e1000:
            y = 0
        case 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_159(tensor, state):
    """TestPatma.test_patma_159"""
    self = Checks(state)
    x = 0
    match x:
        case 0 if not x:
            y = 0
        case 1:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_160(tensor, state):
    """TestPatma.test_patma_160"""
    self = Checks(state)
    x = 0
    z = None
    match x:
        case 0:
            y = 0
        case z if x:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, None)
    return tensor + 1


def case_patma_161(tensor, state):
    """TestPatma.test_patma_161"""
    self = Checks(state)
    x = 0
    match x:
        case 0:
            y = 0
        case _:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_162(tensor, state):
    """TestPatma.test_patma_162"""
    self = Checks(state)
    x = 0
    match x:
        case 1 if x:
            y = 0
        case 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_163(tensor, state):
    """TestPatma.test_patma_163"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case 1:
            y = 0
        case 1 if not x:
            y = 1
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_164(tensor, state):
    """TestPatma.test_patma_164"""
    self = Checks(state)
    x = 0
    match x:
        case 1:
            y = 0
        case z:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_165(tensor, state):
    """TestPatma.test_patma_165"""
    self = Checks(state)
    x = 0
    match x:
        case 1 if x:
            y = 0
        case _:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_166(tensor, state):
    """TestPatma.test_patma_166"""
    self = Checks(state)
    x = 0
    match x:
        case z if not z:
            y = 0
        case 0 if x:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_167(tensor, state):
    """TestPatma.test_patma_167"""
    self = Checks(state)
    x = 0
    match x:
        case z if not z:
            y = 0
        case 1:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_168(tensor, state):
    """TestPatma.test_patma_168"""
    self = Checks(state)
    x = 0
    match x:
        case z if not x:
            y = 0
        case z:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_169(tensor, state):
    """TestPatma.test_patma_169"""
    self = Checks(state)
    x = 0
    match x:
        case z if not z:
            y = 0
        case _ if x:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, x)
    return tensor + 1


def case_patma_170(tensor, state):
    """TestPatma.test_patma_170"""
    self = Checks(state)
    x = 0
    match x:
        case _ if not x:
            y = 0
        case 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_171(tensor, state):
    """TestPatma.test_patma_171"""
    self = Checks(state)
    x = 0
    y = None
    match x:
        case _ if x:
            y = 0
        case 1:
            y = 1
    self.assertEqual(x, 0)
    self.assertIs(y, None)
    return tensor + 1


def case_patma_172(tensor, state):
    """TestPatma.test_patma_172"""
    self = Checks(state)
    x = 0
    z = None
    match x:
        case _ if not x:
            y = 0
        case z if not x:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertIs(z, None)
    return tensor + 1


def case_patma_173(tensor, state):
    """TestPatma.test_patma_173"""
    self = Checks(state)
    x = 0
    match x:
        case _ if not x:
            y = 0
        case _:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_174(tensor, state):
    """TestPatma.test_patma_174"""
    self = Checks(state)
    def http_error(status):
        match status:
            case 400:
                return "Bad request"
            case 401:
                return "Unauthorized"
            case 403:
                return "Forbidden"
            case 404:
                return "Not found"
            case 418:
                return "I'm a teapot"
            case _:
                return "Something else"
    self.assertEqual(http_error(400), "Bad request")
    self.assertEqual(http_error(401), "Unauthorized")
    self.assertEqual(http_error(403), "Forbidden")
    self.assertEqual(http_error(404), "Not found")
    self.assertEqual(http_error(418), "I'm a teapot")
    self.assertEqual(http_error(123), "Something else")
    self.assertEqual(http_error("400"), "Something else")
    self.assertEqual(http_error(401 | 403 | 404), "Something else")  # 407
    return tensor + 1


def case_patma_175(tensor, state):
    """TestPatma.test_patma_175"""
    self = Checks(state)
    def http_error(status):
        match status:
            case 400:
                return "Bad request"
            case 401 | 403 | 404:
                return "Not allowed"
            case 418:
                return "I'm a teapot"
    self.assertEqual(http_error(400), "Bad request")
    self.assertEqual(http_error(401), "Not allowed")
    self.assertEqual(http_error(403), "Not allowed")
    self.assertEqual(http_error(404), "Not allowed")
    self.assertEqual(http_error(418), "I'm a teapot")
    self.assertIs(http_error(123), None)
    self.assertIs(http_error("400"), None)
    self.assertIs(http_error(401 | 403 | 404), None)  # 407
    return tensor + 1


def case_patma_176(tensor, state):
    """TestPatma.test_patma_176"""
    self = Checks(state)
    def whereis(point):
        match point:
            case (0, 0):
                return "Origin"
            case (0, y):
                return f"Y={y}"
            case (x, 0):
                return f"X={x}"
            case (x, y):
                return f"X={x}, Y={y}"
            case _:
                return "Not a point"
    self.assertEqual(whereis((0, 0)), "Origin")
    self.assertEqual(whereis((0, -1.0)), "Y=-1.0")
    self.assertEqual(whereis(("X", 0)), "X=X")
    self.assertEqual(whereis((None, 1j)), "X=None, Y=1j")
    self.assertEqual(whereis(42), "Not a point")
    return tensor + 1


def case_patma_177(tensor, state):
    """TestPatma.test_patma_177"""
    self = Checks(state)
    def whereis(point):
        match point:
            case Point(0, 0):
                return "Origin"
            case Point(0, y):
                return f"Y={y}"
            case Point(x, 0):
                return f"X={x}"
            case Point():
                return "Somewhere else"
            case _:
                return "Not a point"
    self.assertEqual(whereis(Point(1, 0)), "X=1")
    self.assertEqual(whereis(Point(0, 0)), "Origin")
    self.assertEqual(whereis(10), "Not a point")
    self.assertEqual(whereis(Point(False, False)), "Origin")
    self.assertEqual(whereis(Point(0, -1.0)), "Y=-1.0")
    self.assertEqual(whereis(Point("X", 0)), "X=X")
    self.assertEqual(whereis(Point(None, 1j)), "Somewhere else")
    self.assertEqual(whereis(Point), "Not a point")
    self.assertEqual(whereis(42), "Not a point")
    return tensor + 1


def case_patma_178(tensor, state):
    """TestPatma.test_patma_178"""
    self = Checks(state)
    def whereis(point):
        match point:
            case Point(1, var):
                return var
    self.assertEqual(whereis(Point(1, 0)), 0)
    self.assertIs(whereis(Point(0, 0)), None)
    return tensor + 1


def case_patma_179(tensor, state):
    """TestPatma.test_patma_179"""
    self = Checks(state)
    def whereis(point):
        match point:
            case Point(1, y=var):
                return var
    self.assertEqual(whereis(Point(1, 0)), 0)
    self.assertIs(whereis(Point(0, 0)), None)
    return tensor + 1


def case_patma_180(tensor, state):
    """TestPatma.test_patma_180"""
    self = Checks(state)
    def whereis(point):
        match point:
            case Point(x=1, y=var):
                return var
    self.assertEqual(whereis(Point(1, 0)), 0)
    self.assertIs(whereis(Point(0, 0)), None)
    return tensor + 1


def case_patma_181(tensor, state):
    """TestPatma.test_patma_181"""
    self = Checks(state)
    def whereis(point):
        match point:
            case Point(y=var, x=1):
                return var
    self.assertEqual(whereis(Point(1, 0)), 0)
    self.assertIs(whereis(Point(0, 0)), None)
    return tensor + 1


def case_patma_182(tensor, state):
    """TestPatma.test_patma_182"""
    self = Checks(state)
    def whereis(points):
        match points:
            case []:
                return "No points"
            case [Point(0, 0)]:
                return "The origin"
            case [Point(x, y)]:
                return f"Single point {x}, {y}"
            case [Point(0, y1), Point(0, y2)]:
                return f"Two on the Y axis at {y1}, {y2}"
            case _:
                return "Something else"
    self.assertEqual(whereis([]), "No points")
    self.assertEqual(whereis([Point(0, 0)]), "The origin")
    self.assertEqual(whereis([Point(0, 1)]), "Single point 0, 1")
    self.assertEqual(whereis([Point(0, 0), Point(0, 0)]), "Two on the Y axis at 0, 0")
    self.assertEqual(whereis([Point(0, 1), Point(0, 1)]), "Two on the Y axis at 1, 1")
    self.assertEqual(whereis([Point(0, 0), Point(1, 0)]), "Something else")
    self.assertEqual(whereis([Point(0, 0), Point(0, 0), Point(0, 0)]), "Something else")
    self.assertEqual(whereis([Point(0, 1), Point(0, 1), Point(0, 1)]), "Something else")
    return tensor + 1


def case_patma_183(tensor, state):
    """TestPatma.test_patma_183"""
    self = Checks(state)
    def whereis(point):
        match point:
            case Point(x, y) if x == y:
                return f"Y=X at {x}"
            case Point(x, y):
                return "Not on the diagonal"
    self.assertEqual(whereis(Point(0, 0)), "Y=X at 0")
    self.assertEqual(whereis(Point(0, False)), "Y=X at 0")
    self.assertEqual(whereis(Point(False, 0)), "Y=X at False")
    self.assertEqual(whereis(Point(-1 - 1j, -1 - 1j)), "Y=X at (-1-1j)")
    self.assertEqual(whereis(Point("X", "X")), "Y=X at X")
    self.assertEqual(whereis(Point("X", "x")), "Not on the diagonal")
    return tensor + 1


def case_patma_184(tensor, state):
    """TestPatma.test_patma_184"""
    self = Checks(state)
    class Seq(collections.abc.Sequence):
        __getitem__ = None
        def __len__(self):
            return 0
    match Seq():
        case []:
            y = 0
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_185(tensor, state):
    """TestPatma.test_patma_185"""
    self = Checks(state)
    class Seq(collections.abc.Sequence):
        __getitem__ = None
        def __len__(self):
            return 42
    match Seq():
        case [*_]:
            y = 0
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_186(tensor, state):
    """TestPatma.test_patma_186"""
    self = Checks(state)
    class Seq(collections.abc.Sequence):
        def __getitem__(self, i):
            return i
        def __len__(self):
            return 42
    match Seq():
        case [x, *_, y]:
            z = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 41)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_187(tensor, state):
    """TestPatma.test_patma_187"""
    self = Checks(state)
    w = range(10)
    match w:
        case [x, y, *rest]:
            z = 0
    self.assertEqual(w, range(10))
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    self.assertEqual(rest, list(range(2, 10)))
    return tensor + 1


def case_patma_188(tensor, state):
    """TestPatma.test_patma_188"""
    self = Checks(state)
    w = range(100)
    match w:
        case (x, y, *rest):
            z = 0
    self.assertEqual(w, range(100))
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    self.assertEqual(rest, list(range(2, 100)))
    return tensor + 1


def case_patma_189(tensor, state):
    """TestPatma.test_patma_189"""
    self = Checks(state)
    w = range(1000)
    match w:
        case x, y, *rest:
            z = 0
    self.assertEqual(w, range(1000))
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    self.assertEqual(rest, list(range(2, 1000)))
    return tensor + 1


def case_patma_190(tensor, state):
    """TestPatma.test_patma_190"""
    self = Checks(state)
    w = range(1 << 10)
    match w:
        case [x, y, *_]:
            z = 0
    self.assertEqual(w, range(1 << 10))
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_191(tensor, state):
    """TestPatma.test_patma_191"""
    self = Checks(state)
    w = range(1 << 20)
    match w:
        case (x, y, *_):
            z = 0
    self.assertEqual(w, range(1 << 20))
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_192(tensor, state):
    """TestPatma.test_patma_192"""
    self = Checks(state)
    w = range(1 << 30)
    match w:
        case x, y, *_:
            z = 0
    self.assertEqual(w, range(1 << 30))
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_193(tensor, state):
    """TestPatma.test_patma_193"""
    self = Checks(state)
    x = {"bandwidth": 0, "latency": 1}
    match x:
        case {"bandwidth": b, "latency": l}:
            y = 0
    self.assertEqual(x, {"bandwidth": 0, "latency": 1})
    self.assertIs(b, x["bandwidth"])
    self.assertIs(l, x["latency"])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_194(tensor, state):
    """TestPatma.test_patma_194"""
    self = Checks(state)
    x = {"bandwidth": 0, "latency": 1, "key": "value"}
    match x:
        case {"latency": l, "bandwidth": b}:
            y = 0
    self.assertEqual(x, {"bandwidth": 0, "latency": 1, "key": "value"})
    self.assertIs(l, x["latency"])
    self.assertIs(b, x["bandwidth"])
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_195(tensor, state):
    """TestPatma.test_patma_195"""
    self = Checks(state)
    x = {"bandwidth": 0, "latency": 1, "key": "value"}
    match x:
        case {"bandwidth": b, "latency": l, **rest}:
            y = 0
    self.assertEqual(x, {"bandwidth": 0, "latency": 1, "key": "value"})
    self.assertIs(b, x["bandwidth"])
    self.assertIs(l, x["latency"])
    self.assertEqual(rest, {"key": "value"})
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_196(tensor, state):
    """TestPatma.test_patma_196"""
    self = Checks(state)
    x = {"bandwidth": 0, "latency": 1}
    match x:
        case {"latency": l, "bandwidth": b, **rest}:
            y = 0
    self.assertEqual(x, {"bandwidth": 0, "latency": 1})
    self.assertIs(l, x["latency"])
    self.assertIs(b, x["bandwidth"])
    self.assertEqual(rest, {})
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_197(tensor, state):
    """TestPatma.test_patma_197"""
    self = Checks(state)
    w = [Point(-1, 0), Point(1, 2)]
    match w:
        case (Point(x1, y1), Point(x2, y2) as p2):
            z = 0
    self.assertEqual(w, [Point(-1, 0), Point(1, 2)])
    self.assertIs(x1, w[0].x)
    self.assertIs(y1, w[0].y)
    self.assertIs(p2, w[1])
    self.assertIs(x2, w[1].x)
    self.assertIs(y2, w[1].y)
    self.assertIs(z, 0)
    return tensor + 1


def case_patma_198(tensor, state):
    """TestPatma.test_patma_198"""
    self = Checks(state)
    class Color(enum.Enum):
        RED = 0
        GREEN = 1
        BLUE = 2
    def f(color):
        match color:
            case Color.RED:
                return "I see red!"
            case Color.GREEN:
                return "Grass is green"
            case Color.BLUE:
                return "I'm feeling the blues :("
    self.assertEqual(f(Color.RED), "I see red!")
    self.assertEqual(f(Color.GREEN), "Grass is green")
    self.assertEqual(f(Color.BLUE), "I'm feeling the blues :(")
    self.assertIs(f(Color), None)
    self.assertIs(f(0), None)
    self.assertIs(f(1), None)
    self.assertIs(f(2), None)
    self.assertIs(f(3), None)
    self.assertIs(f(False), None)
    self.assertIs(f(True), None)
    self.assertIs(f(2+0j), None)
    self.assertIs(f(3.0), None)
    return tensor + 1


def case_patma_199(tensor, state):
    """TestPatma.test_patma_199"""
    self = Checks(state)
    class Color(int, enum.Enum):
        RED = 0
        GREEN = 1
        BLUE = 2
    def f(color):
        match color:
            case Color.RED:
                return "I see red!"
            case Color.GREEN:
                return "Grass is green"
            case Color.BLUE:
                return "I'm feeling the blues :("
    self.assertEqual(f(Color.RED), "I see red!")
    self.assertEqual(f(Color.GREEN), "Grass is green")
    self.assertEqual(f(Color.BLUE), "I'm feeling the blues :(")
    self.assertIs(f(Color), None)
    self.assertEqual(f(0), "I see red!")
    self.assertEqual(f(1), "Grass is green")
    self.assertEqual(f(2), "I'm feeling the blues :(")
    self.assertIs(f(3), None)
    self.assertEqual(f(False), "I see red!")
    self.assertEqual(f(True), "Grass is green")
    self.assertEqual(f(2+0j), "I'm feeling the blues :(")
    self.assertIs(f(3.0), None)
    return tensor + 1


def case_patma_200(tensor, state):
    """TestPatma.test_patma_200"""
    self = Checks(state)
    class Class:
        __match_args__ = ("a", "b")
    c = Class()
    c.a = 0
    c.b = 1
    match c:
        case Class(x, y):
            z = 0
    self.assertIs(x, c.a)
    self.assertIs(y, c.b)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_201(tensor, state):
    """TestPatma.test_patma_201"""
    self = Checks(state)
    class Class:
        __match_args__ = ("a", "b")
    c = Class()
    c.a = 0
    c.b = 1
    match c:
        case Class(x, b=y):
            z = 0
    self.assertIs(x, c.a)
    self.assertIs(y, c.b)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_202(tensor, state):
    """TestPatma.test_patma_202"""
    self = Checks(state)
    class Parent:
        __match_args__ = "a", "b"
    class Child(Parent):
        __match_args__ = ("c", "d")
    c = Child()
    c.a = 0
    c.b = 1
    match c:
        case Parent(x, y):
            z = 0
    self.assertIs(x, c.a)
    self.assertIs(y, c.b)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_203(tensor, state):
    """TestPatma.test_patma_203"""
    self = Checks(state)
    class Parent:
        __match_args__ = ("a", "b")
    class Child(Parent):
        __match_args__ = "c", "d"
    c = Child()
    c.a = 0
    c.b = 1
    match c:
        case Parent(x, b=y):
            z = 0
    self.assertIs(x, c.a)
    self.assertIs(y, c.b)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_204(tensor, state):
    """TestPatma.test_patma_204"""
    self = Checks(state)
    def f(w):
        match w:
            case 42:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f(42), {})
    self.assertIs(f(0), None)
    self.assertEqual(f(42.0), {})
    self.assertIs(f("42"), None)
    return tensor + 1


def case_patma_205(tensor, state):
    """TestPatma.test_patma_205"""
    self = Checks(state)
    def f(w):
        match w:
            case 42.0:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f(42.0), {})
    self.assertEqual(f(42), {})
    self.assertIs(f(0.0), None)
    self.assertIs(f(0), None)
    return tensor + 1


def case_patma_206(tensor, state):
    """TestPatma.test_patma_206"""
    self = Checks(state)
    def f(w):
        match w:
            case 1 | 2 | 3:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f(1), {})
    self.assertEqual(f(2), {})
    self.assertEqual(f(3), {})
    self.assertEqual(f(3.0), {})
    self.assertIs(f(0), None)
    self.assertIs(f(4), None)
    self.assertIs(f("1"), None)
    return tensor + 1


def case_patma_207(tensor, state):
    """TestPatma.test_patma_207"""
    self = Checks(state)
    def f(w):
        match w:
            case [1, 2] | [3, 4]:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f([1, 2]), {})
    self.assertEqual(f([3, 4]), {})
    self.assertIs(f(42), None)
    self.assertIs(f([2, 3]), None)
    self.assertIs(f([1, 2, 3]), None)
    self.assertEqual(f([1, 2.0]), {})
    return tensor + 1


def case_patma_208(tensor, state):
    """TestPatma.test_patma_208"""
    self = Checks(state)
    def f(w):
        match w:
            case x:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f(42), {"x": 42})
    self.assertEqual(f((1, 2)), {"x": (1, 2)})
    self.assertEqual(f(None), {"x": None})
    return tensor + 1


def case_patma_209(tensor, state):
    """TestPatma.test_patma_209"""
    self = Checks(state)
    def f(w):
        match w:
            case _:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f(42), {})
    self.assertEqual(f(None), {})
    self.assertEqual(f((1, 2)), {})
    return tensor + 1


def case_patma_210(tensor, state):
    """TestPatma.test_patma_210"""
    self = Checks(state)
    def f(w):
        match w:
            case (x, y, z):
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f((1, 2, 3)), {"x": 1, "y": 2, "z": 3})
    self.assertIs(f((1, 2)), None)
    self.assertIs(f((1, 2, 3, 4)), None)
    self.assertIs(f(123), None)
    self.assertIs(f("abc"), None)
    self.assertIs(f(b"abc"), None)
    self.assertEqual(f(array.array("b", b"abc")), {'x': 97, 'y': 98, 'z': 99})
    self.assertEqual(f(memoryview(b"abc")), {"x": 97, "y": 98, "z": 99})
    self.assertIs(f(bytearray(b"abc")), None)
    return tensor + 1


def case_patma_211(tensor, state):
    """TestPatma.test_patma_211"""
    self = Checks(state)
    def f(w):
        match w:
            case {"x": x, "y": "y", "z": z}:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f({"x": "x", "y": "y", "z": "z"}), {"x": "x", "z": "z"})
    self.assertEqual(f({"x": "x", "y": "y", "z": "z", "a": "a"}), {"x": "x", "z": "z"})
    self.assertIs(f(({"x": "x", "y": "yy", "z": "z", "a": "a"})), None)
    self.assertIs(f(({"x": "x", "y": "y"})), None)
    return tensor + 1


def case_patma_212(tensor, state):
    """TestPatma.test_patma_212"""
    self = Checks(state)
    def f(w):
        match w:
            case Point(int(xx), y="hello"):
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f(Point(42, "hello")), {"xx": 42})
    return tensor + 1


def case_patma_213(tensor, state):
    """TestPatma.test_patma_213"""
    self = Checks(state)
    def f(w):
        match w:
            case (p, q) as x:
                out = locals()
                del out["w"]
                return out
    self.assertEqual(f((1, 2)), {"p": 1, "q": 2, "x": (1, 2)})
    self.assertEqual(f([1, 2]), {"p": 1, "q": 2, "x": [1, 2]})
    self.assertIs(f(12), None)
    self.assertIs(f((1, 2, 3)), None)
    return tensor + 1


def case_patma_214(tensor, state):
    """TestPatma.test_patma_214"""
    self = Checks(state)
    def f():
        match 42:
            case 42:
                return locals()
    self.assertEqual(set(f()), set())
    return tensor + 1


def case_patma_215(tensor, state):
    """TestPatma.test_patma_215"""
    self = Checks(state)
    def f():
        match 1:
            case 1 | 2 | 3:
                return locals()
    self.assertEqual(set(f()), set())
    return tensor + 1


def case_patma_216(tensor, state):
    """TestPatma.test_patma_216"""
    self = Checks(state)
    def f():
        match ...:
            case _:
                return locals()
    self.assertEqual(set(f()), set())
    return tensor + 1


def case_patma_217(tensor, state):
    """TestPatma.test_patma_217"""
    self = Checks(state)
    def f():
        match ...:
            case abc:
                return locals()
    self.assertEqual(set(f()), {"abc"})
    return tensor + 1


def case_patma_218(tensor, state):
    """TestPatma.test_patma_218"""
    self = Checks(state)
    def f():
        match ..., ...:
            case a, b:
                return locals()
    self.assertEqual(set(f()), {"a", "b"})
    return tensor + 1


def case_patma_219(tensor, state):
    """TestPatma.test_patma_219"""
    self = Checks(state)
    def f():
        match {"k": ..., "l": ...}:
            case {"k": a, "l": b}:
                return locals()
    self.assertEqual(set(f()), {"a", "b"})
    return tensor + 1


def case_patma_220(tensor, state):
    """TestPatma.test_patma_220"""
    self = Checks(state)
    def f():
        match Point(..., ...):
            case Point(x, y=y):
                return locals()
    self.assertEqual(set(f()), {"x", "y"})
    return tensor + 1


def case_patma_221(tensor, state):
    """TestPatma.test_patma_221"""
    self = Checks(state)
    def f():
        match ...:
            case b as a:
                return locals()
    self.assertEqual(set(f()), {"a", "b"})
    return tensor + 1


def case_patma_222(tensor, state):
    """TestPatma.test_patma_222"""
    self = Checks(state)
    def f(x):
        match x:
            case _:
                return 0
    self.assertEqual(f(0), 0)
    self.assertEqual(f(1), 0)
    self.assertEqual(f(2), 0)
    self.assertEqual(f(3), 0)
    return tensor + 1


def case_patma_223(tensor, state):
    """TestPatma.test_patma_223"""
    self = Checks(state)
    def f(x):
        match x:
            case 0:
                return 0
    self.assertEqual(f(0), 0)
    self.assertIs(f(1), None)
    self.assertIs(f(2), None)
    self.assertIs(f(3), None)
    return tensor + 1


def case_patma_224(tensor, state):
    """TestPatma.test_patma_224"""
    self = Checks(state)
    def f(x):
        match x:
            case 0:
                return 0
            case _:
                return 1
    self.assertEqual(f(0), 0)
    self.assertEqual(f(1), 1)
    self.assertEqual(f(2), 1)
    self.assertEqual(f(3), 1)
    return tensor + 1


def case_patma_225(tensor, state):
    """TestPatma.test_patma_225"""
    self = Checks(state)
    def f(x):
        match x:
            case 0:
                return 0
            case 1:
                return 1
    self.assertEqual(f(0), 0)
    self.assertEqual(f(1), 1)
    self.assertIs(f(2), None)
    self.assertIs(f(3), None)
    return tensor + 1


def case_patma_226(tensor, state):
    """TestPatma.test_patma_226"""
    self = Checks(state)
    def f(x):
        match x:
            case 0:
                return 0
            case 1:
                return 1
            case _:
                return 2
    self.assertEqual(f(0), 0)
    self.assertEqual(f(1), 1)
    self.assertEqual(f(2), 2)
    self.assertEqual(f(3), 2)
    return tensor + 1


def case_patma_227(tensor, state):
    """TestPatma.test_patma_227"""
    self = Checks(state)
    def f(x):
        match x:
            case 0:
                return 0
            case 1:
                return 1
            case 2:
                return 2
    self.assertEqual(f(0), 0)
    self.assertEqual(f(1), 1)
    self.assertEqual(f(2), 2)
    self.assertIs(f(3), None)
    return tensor + 1


def case_patma_228(tensor, state):
    """TestPatma.test_patma_228"""
    self = Checks(state)
    match():
        case():
            x = 0
    self.assertEqual(x, 0)
    return tensor + 1


def case_patma_229(tensor, state):
    """TestPatma.test_patma_229"""
    self = Checks(state)
    x = 0
    match(x):
        case(x):
            y = 0
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_230(tensor, state):
    """TestPatma.test_patma_230"""
    self = Checks(state)
    x = 0
    match x:
        case False:
            y = 0
        case 0:
            y = 1
    self.assertEqual(x, 0)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_231(tensor, state):
    """TestPatma.test_patma_231"""
    self = Checks(state)
    x = 1
    match x:
        case True:
            y = 0
        case 1:
            y = 1
    self.assertEqual(x, 1)
    self.assertEqual(y, 1)
    return tensor + 1


def case_patma_232(tensor, state):
    """TestPatma.test_patma_232"""
    self = Checks(state)
    class Eq:
        def __eq__(self, other):
            return True
    x = eq = Eq()
    y = None
    match x:
        case None:
            y = 0
    self.assertIs(x, eq)
    self.assertEqual(y, None)
    return tensor + 1


def case_patma_233(tensor, state):
    """TestPatma.test_patma_233"""
    self = Checks(state)
    x = False
    match x:
        case False:
            y = 0
    self.assertIs(x, False)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_234(tensor, state):
    """TestPatma.test_patma_234"""
    self = Checks(state)
    x = True
    match x:
        case True:
            y = 0
    self.assertIs(x, True)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_235(tensor, state):
    """TestPatma.test_patma_235"""
    self = Checks(state)
    x = None
    match x:
        case None:
            y = 0
    self.assertIs(x, None)
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_236(tensor, state):
    """TestPatma.test_patma_236"""
    self = Checks(state)
    x = 0
    match x:
        case (0 as w) as z:
            y = 0
    self.assertEqual(w, 0)
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_237(tensor, state):
    """TestPatma.test_patma_237"""
    self = Checks(state)
    x = 0
    match x:
        case (0 as w) as z:
            y = 0
    self.assertEqual(w, 0)
    self.assertEqual(x, 0)
    self.assertEqual(y, 0)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_238(tensor, state):
    """TestPatma.test_patma_238"""
    self = Checks(state)
    x = ((0, 1), (2, 3))
    match x:
        case ((a as b, c as d) as e) as w, ((f as g, h) as i) as z:
            y = 0
    self.assertEqual(a, 0)
    self.assertEqual(b, 0)
    self.assertEqual(c, 1)
    self.assertEqual(d, 1)
    self.assertEqual(e, (0, 1))
    self.assertEqual(f, 2)
    self.assertEqual(g, 2)
    self.assertEqual(h, 3)
    self.assertEqual(i, (2, 3))
    self.assertEqual(w, (0, 1))
    self.assertEqual(x, ((0, 1), (2, 3)))
    self.assertEqual(y, 0)
    self.assertEqual(z, (2, 3))
    return tensor + 1


def case_patma_239(tensor, state):
    """TestPatma.test_patma_239"""
    self = Checks(state)
    x = collections.UserDict({0: 1, 2: 3})
    match x:
        case {2: 3}:
            y = 0
    self.assertEqual(x, {0: 1, 2: 3})
    self.assertEqual(y, 0)
    return tensor + 1


def case_patma_240(tensor, state):
    """TestPatma.test_patma_240"""
    self = Checks(state)
    x = collections.UserDict({0: 1, 2: 3})
    match x:
        case {2: 3, **z}:
            y = 0
    self.assertEqual(x, {0: 1, 2: 3})
    self.assertEqual(y, 0)
    self.assertEqual(z, {0: 1})
    return tensor + 1


def case_patma_241(tensor, state):
    """TestPatma.test_patma_241"""
    self = Checks(state)
    x = [[{0: 0}]]
    match x:
        case list([({-0-0j: int(real=0+0j, imag=0-0j) | (1) as z},)]):
            y = 0
    self.assertEqual(x, [[{0: 0}]])
    self.assertEqual(y, 0)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_242(tensor, state):
    """TestPatma.test_patma_242"""
    self = Checks(state)
    x = range(3)
    match x:
        case [y, *_, z]:
            w = 0
    self.assertEqual(w, 0)
    self.assertEqual(x, range(3))
    self.assertEqual(y, 0)
    self.assertEqual(z, 2)
    return tensor + 1


def case_patma_243(tensor, state):
    """TestPatma.test_patma_243"""
    self = Checks(state)
    x = range(3)
    match x:
        case [_, *_, y]:
            z = 0
    self.assertEqual(x, range(3))
    self.assertEqual(y, 2)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_244(tensor, state):
    """TestPatma.test_patma_244"""
    self = Checks(state)
    x = range(3)
    match x:
        case [*_, y]:
            z = 0
    self.assertEqual(x, range(3))
    self.assertEqual(y, 2)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_245(tensor, state):
    """TestPatma.test_patma_245"""
    self = Checks(state)
    x = {"y": 1}
    match x:
        case {"y": (0 as y) | (1 as y)}:
            z = 0
    self.assertEqual(x, {"y": 1})
    self.assertEqual(y, 1)
    self.assertEqual(z, 0)
    return tensor + 1


def case_patma_246(tensor, state):
    """TestPatma.test_patma_246"""
    self = Checks(state)
    def f(x):
        match x:
            case ((a, b, c, d, e, f, g, h, i, 9) |
                  (h, g, i, a, b, d, e, c, f, 10) |
                  (g, b, a, c, d, -5, e, h, i, f) |
                  (-1, d, f, b, g, e, i, a, h, c)):
                w = 0
        out = locals()
        del out["x"]
        return out
    alts = [
        dict(a=0, b=1, c=2, d=3, e=4, f=5, g=6, h=7, i=8, w=0),
        dict(h=1, g=2, i=3, a=4, b=5, d=6, e=7, c=8, f=9, w=0),
        dict(g=0, b=-1, a=-2, c=-3, d=-4, e=-6, h=-7, i=-8, f=-9, w=0),
        dict(d=-2, f=-3, b=-4, g=-5, e=-6, i=-7, a=-8, h=-9, c=-10, w=0),
        dict(),
    ]
    self.assertEqual(f(range(10)), alts[0])
    self.assertEqual(f(range(1, 11)), alts[1])
    self.assertEqual(f(range(0, -10, -1)), alts[2])
    self.assertEqual(f(range(-1, -11, -1)), alts[3])
    self.assertEqual(f(range(10, 20)), alts[4])
    return tensor + 1


def case_patma_247(tensor, state):
    """TestPatma.test_patma_247"""
    self = Checks(state)
    def f(x):
        match x:
            case [y, (a, b, c, d, e, f, g, h, i, 9) |
                     (h, g, i, a, b, d, e, c, f, 10) |
                     (g, b, a, c, d, -5, e, h, i, f) |
                     (-1, d, f, b, g, e, i, a, h, c), z]:
                w = 0
        out = locals()
        del out["x"]
        return out
    alts = [
        dict(a=0, b=1, c=2, d=3, e=4, f=5, g=6, h=7, i=8, w=0, y=False, z=True),
        dict(h=1, g=2, i=3, a=4, b=5, d=6, e=7, c=8, f=9, w=0, y=False, z=True),
        dict(g=0, b=-1, a=-2, c=-3, d=-4, e=-6, h=-7, i=-8, f=-9, w=0, y=False, z=True),
        dict(d=-2, f=-3, b=-4, g=-5, e=-6, i=-7, a=-8, h=-9, c=-10, w=0, y=False, z=True),
        dict(),
    ]
    self.assertEqual(f((False, range(10), True)), alts[0])
    self.assertEqual(f((False, range(1, 11), True)), alts[1])
    self.assertEqual(f((False, range(0, -10, -1), True)), alts[2])
    self.assertEqual(f((False, range(-1, -11, -1), True)), alts[3])
    self.assertEqual(f((False, range(10, 20), True)), alts[4])
    return tensor + 1


def case_patma_248(tensor, state):
    """TestPatma.test_patma_248"""
    self = Checks(state)
    class C(dict):
        @staticmethod
        def get(key, default=None):
            return 'bar'

    x = C({'foo': 'bar'})
    match x:
        case {'foo': bar}:
            y = bar

    self.assertEqual(y, 'bar')
    return tensor + 1


def case_accepts_positional_subpatterns_0(tensor, state):
    """TestTypeErrors.test_accepts_positional_subpatterns_0"""
    self = Checks(state)
    class Class:
        __match_args__ = ()
    x = Class()
    y = z = None
    with self.assertRaises(TypeError):
        match x:
            case Class(y):
                z = 0
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_accepts_positional_subpatterns_1(tensor, state):
    """TestTypeErrors.test_accepts_positional_subpatterns_1"""
    self = Checks(state)
    x = range(10)
    y = None
    with self.assertRaises(TypeError):
        match x:
            case range(10):
                y = 0
    self.assertEqual(x, range(10))
    self.assertIs(y, None)
    return tensor + 1


def case_got_multiple_subpatterns_for_attribute_0(tensor, state):
    """TestTypeErrors.test_got_multiple_subpatterns_for_attribute_0"""
    self = Checks(state)
    class Class:
        __match_args__ = ("a", "a")
        a = None
    x = Class()
    w = y = z = None
    with self.assertRaises(TypeError):
        match x:
            case Class(y, z):
                w = 0
    self.assertIs(w, None)
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_got_multiple_subpatterns_for_attribute_1(tensor, state):
    """TestTypeErrors.test_got_multiple_subpatterns_for_attribute_1"""
    self = Checks(state)
    class Class:
        __match_args__ = ("a",)
        a = None
    x = Class()
    w = y = z = None
    with self.assertRaises(TypeError):
        match x:
            case Class(y, a=z):
                w = 0
    self.assertIs(w, None)
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_match_args_elements_must_be_strings(tensor, state):
    """TestTypeErrors.test_match_args_elements_must_be_strings"""
    self = Checks(state)
    class Class:
        __match_args__ = (None,)
    x = Class()
    y = z = None
    with self.assertRaises(TypeError):
        match x:
            case Class(y):
                z = 0
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_match_args_must_be_a_tuple_0(tensor, state):
    """TestTypeErrors.test_match_args_must_be_a_tuple_0"""
    self = Checks(state)
    class Class:
        __match_args__ = None
    x = Class()
    y = z = None
    with self.assertRaises(TypeError):
        match x:
            case Class(y):
                z = 0
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_match_args_must_be_a_tuple_1(tensor, state):
    """TestTypeErrors.test_match_args_must_be_a_tuple_1"""
    self = Checks(state)
    class Class:
        __match_args__ = "XYZ"
    x = Class()
    y = z = None
    with self.assertRaises(TypeError):
        match x:
            case Class(y):
                z = 0
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_match_args_must_be_a_tuple_2(tensor, state):
    """TestTypeErrors.test_match_args_must_be_a_tuple_2"""
    self = Checks(state)
    class Class:
        __match_args__ = ["spam", "eggs"]
        spam = 0
        eggs = 1
    x = Class()
    w = y = z = None
    with self.assertRaises(TypeError):
        match x:
            case Class(y, z):
                w = 0
    self.assertIs(w, None)
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_mapping_pattern_checks_duplicate_key_1(tensor, state):
    """TestValueErrors.test_mapping_pattern_checks_duplicate_key_1"""
    self = Checks(state)
    class Keys:
        KEY = "a"
    x = {"a": 0, "b": 1}
    w = y = z = None
    with self.assertRaises(ValueError):
        match x:
            case {Keys.KEY: y, "a": z}:
                w = 0
    self.assertIs(w, None)
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1



# -- TestInheritance (its two static helpers are module functions here) ----------------------------
def check_sequence_then_mapping(x):
    match x:
        case [*_]:
            return "seq"
        case {}:
            return "map"


def check_mapping_then_sequence(x):
    match x:
        case {}:
            return "map"
        case [*_]:
            return "seq"


def case_multiple_inheritance_mapping(tensor, state):
    """TestInheritance.test_multiple_inheritance_mapping"""
    self = Checks(state)
    class C:
        pass
    class M1(collections.UserDict, collections.abc.Sequence):
        pass
    class M2(C, collections.UserDict, collections.abc.Sequence):
        pass
    class M3(collections.UserDict, C, list):
        pass
    class M4(dict, collections.abc.Sequence, C):
        pass
    self.assertEqual(check_sequence_then_mapping(M1()), "map")
    self.assertEqual(check_sequence_then_mapping(M2()), "map")
    self.assertEqual(check_sequence_then_mapping(M3()), "map")
    self.assertEqual(check_sequence_then_mapping(M4()), "map")
    self.assertEqual(check_mapping_then_sequence(M1()), "map")
    self.assertEqual(check_mapping_then_sequence(M2()), "map")
    self.assertEqual(check_mapping_then_sequence(M3()), "map")
    self.assertEqual(check_mapping_then_sequence(M4()), "map")
    return tensor + 1


def case_multiple_inheritance_sequence(tensor, state):
    """TestInheritance.test_multiple_inheritance_sequence"""
    self = Checks(state)
    class C:
        pass
    class S1(collections.UserList, collections.abc.Mapping):
        pass
    class S2(C, collections.UserList, collections.abc.Mapping):
        pass
    class S3(list, C, collections.abc.Mapping):
        pass
    class S4(collections.UserList, dict, C):
        pass
    self.assertEqual(check_sequence_then_mapping(S1()), "seq")
    self.assertEqual(check_sequence_then_mapping(S2()), "seq")
    self.assertEqual(check_sequence_then_mapping(S3()), "seq")
    self.assertEqual(check_sequence_then_mapping(S4()), "seq")
    self.assertEqual(check_mapping_then_sequence(S1()), "seq")
    self.assertEqual(check_mapping_then_sequence(S2()), "seq")
    self.assertEqual(check_mapping_then_sequence(S3()), "seq")
    self.assertEqual(check_mapping_then_sequence(S4()), "seq")
    return tensor + 1


def case_late_registration_mapping(tensor, state):
    """TestInheritance.test_late_registration_mapping"""
    self = Checks(state)
    class Parent:
        pass
    class ChildPre(Parent):
        pass
    class GrandchildPre(ChildPre):
        pass
    collections.abc.Mapping.register(Parent)
    class ChildPost(Parent):
        pass
    class GrandchildPost(ChildPost):
        pass
    self.assertEqual(check_sequence_then_mapping(Parent()), "map")
    self.assertEqual(check_sequence_then_mapping(ChildPre()), "map")
    self.assertEqual(check_sequence_then_mapping(GrandchildPre()), "map")
    self.assertEqual(check_sequence_then_mapping(ChildPost()), "map")
    self.assertEqual(check_sequence_then_mapping(GrandchildPost()), "map")
    self.assertEqual(check_mapping_then_sequence(Parent()), "map")
    self.assertEqual(check_mapping_then_sequence(ChildPre()), "map")
    self.assertEqual(check_mapping_then_sequence(GrandchildPre()), "map")
    self.assertEqual(check_mapping_then_sequence(ChildPost()), "map")
    self.assertEqual(check_mapping_then_sequence(GrandchildPost()), "map")
    return tensor + 1


def case_late_registration_sequence(tensor, state):
    """TestInheritance.test_late_registration_sequence"""
    self = Checks(state)
    class Parent:
        pass
    class ChildPre(Parent):
        pass
    class GrandchildPre(ChildPre):
        pass
    collections.abc.Sequence.register(Parent)
    class ChildPost(Parent):
        pass
    class GrandchildPost(ChildPost):
        pass
    self.assertEqual(check_sequence_then_mapping(Parent()), "seq")
    self.assertEqual(check_sequence_then_mapping(ChildPre()), "seq")
    self.assertEqual(check_sequence_then_mapping(GrandchildPre()), "seq")
    self.assertEqual(check_sequence_then_mapping(ChildPost()), "seq")
    self.assertEqual(check_sequence_then_mapping(GrandchildPost()), "seq")
    self.assertEqual(check_mapping_then_sequence(Parent()), "seq")
    self.assertEqual(check_mapping_then_sequence(ChildPre()), "seq")
    self.assertEqual(check_mapping_then_sequence(GrandchildPre()), "seq")
    self.assertEqual(check_mapping_then_sequence(ChildPost()), "seq")
    self.assertEqual(check_mapping_then_sequence(GrandchildPost()), "seq")
    return tensor + 1



# -- patterns over Tensors (not in CPython's file: the subject or its parts are traced values) ------
def case_tensor_subjects(tensor, state):
    """Class, sequence, mapping and guard patterns whose subject holds Tensors."""
    out = []
    for subject in (tensor, [tensor, tensor * 2], (tensor, 3), {"w": tensor, "b": 1.5}, [tensor], 7):
        match subject:
            case Tensor() as t if t.shape == (3,) and len(out) == 0:
                out.append(("tensor", t * 2))
            case [Tensor() as a, Tensor() as b]:
                out.append(("pair", a + b))
            case (Tensor() as a, int(n)):
                out.append(("tensor-int", a * n))
            case {"w": Tensor() as w, **rest}:
                out.append(("map", w - 1, rest))
            case [*items]:
                out.append(("seq", len(items), items[0] + 1))
            case int(n) if n > 5:
                out.append(("int", n))
    return out


def case_tensor_point_match_args(tensor, state):
    """A dataclass's ``__match_args__`` over Tensor fields; the captures feed the graph."""
    p = Point(tensor, tensor + 1)
    match p:
        case Point(a, y=b):
            return a * b, Point(0, 1) == Point(x=0, y=1)
    return None


class Keys:
    KEY = "a"


class RaisingProperty:
    __match_args__ = ("a",)

    @property
    def a(self):
        raise AttributeError("no a")


def case_duplicate_key_module_level(tensor, state):
    """TestValueErrors.test_mapping_pattern_checks_duplicate_key_1 with its class at module level
    (a class statement in the body breaks the graph before the ``match``): the ValueError
    "mapping pattern checks duplicate key ('a')" under capture too (a capture bug: it matched)."""
    self = Checks(state)
    x = {"a": 0, "b": 1}
    w = y = z = None
    with self.assertRaises(ValueError):
        match x:
            case {Keys.KEY: y, "a": z}:
                w = 0
    self.assertIs(w, None)
    self.assertIs(y, None)
    self.assertIs(z, None)
    return tensor + 1


def case_class_pattern_attribute_error_is_no_match(tensor, state):
    """A class pattern's attribute read raising AttributeError (a property) is no match, not an
    error (PEP 634), and the next case is tried."""
    match RaisingProperty():
        case RaisingProperty(v):
            return "matched", v
        case RaisingProperty():
            return "no attribute", tensor * 2


NOT_PORTABLE = {
    "TestCompiler.test_refleaks": "reference leak counting of compiled code",
    "TestSyntaxErrors (all)": "compile-time SyntaxErrors (the source never runs)",
    "TestTracing (all)": "sys.settrace line events",
    "PerfPatma": "a benchmark",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_patma_port(case):
    if not hasattr(case, "reason"):
        assert_eager_passes(case)
    check(case)
