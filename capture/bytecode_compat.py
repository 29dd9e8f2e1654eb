"""Every CPython-version difference the translator needs, in one place (3.11, 3.12, 3.13).

The ``bytecode`` package gives abstract instructions (jump targets are Labels); this module maps
their names and arguments onto one vocabulary so the translator's handlers are version-free.
"""
from __future__ import annotations

import sys

PY = sys.version_info[:2]
SUPPORTED = (3, 11) <= PY <= (3, 13)
PY311 = PY == (3, 11)
PY312 = PY == (3, 12)
PY313 = PY == (3, 13)

#: on 3.11/3.12 a call's stack is [NULL|method, callable|self, args]; on 3.13 [callable, NULL|self, args]
NULL_AFTER_CALLABLE = PY >= (3, 13)

#: instructions after a FOR_ITER's exhaustion target that the real interpreter skips
FOR_ITER_SKIP = {(3, 11): 0, (3, 12): 1, (3, 13): 2}.get(PY, 0)

_RENAMES = {
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "JUMP_FORWARD": "JUMP",
    "JUMP_BACKWARD": "JUMP",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "LOAD_FAST_CHECK": "LOAD_FAST",
}


def opname(instr) -> str:
    return _RENAMES.get(instr.name, instr.name)


def load_attr_arg(instr):
    """(is_method, name) for LOAD_ATTR on every version (3.11 has LOAD_METHOD separately)."""
    if instr.name == "LOAD_METHOD":
        return True, instr.arg
    if isinstance(instr.arg, tuple):
        return instr.arg
    return False, instr.arg


def load_global_arg(instr):
    """(push_null, name)."""
    if isinstance(instr.arg, tuple):
        return instr.arg
    return False, instr.arg


def compare_name(arg) -> str:
    """Compare enum -> '<', '<=', ... (3.13 adds *_CAST variants that also convert to bool)."""
    name = getattr(arg, "name", str(arg)).replace("_CAST", "")
    return {"LT": "<", "LE": "<=", "EQ": "==", "NE": "!=", "GT": ">", "GE": ">="}[name]


def binary_op_name(arg) -> str:
    return getattr(arg, "name", str(arg))


def compare_casts(arg) -> bool:
    """3.13: does this COMPARE_OP convert its result to bool (it feeds a jump)?"""
    return PY313 and "_CAST" in getattr(arg, "name", "")


# -- emitting instructions (generated resume and step code) -------------------------------------------
def _instr(*args, **kwargs):
    from bytecode import Instr
    return Instr(*args, **kwargs)


def load_local_checked(name, loc):
    """A local read that never pushes NULL (3.12+: LOAD_FAST_CHECK raises on an unbound local)."""
    return _instr("LOAD_FAST" if PY311 else "LOAD_FAST_CHECK", name, location=loc)


def call_local(nargs, fn_name, loc):
    """(instructions before, after) the ``nargs`` pushed values that call local ``fn_name``."""
    if NULL_AFTER_CALLABLE:
        pre = [_instr("LOAD_FAST", fn_name, location=loc), _instr("PUSH_NULL", location=loc)]
    else:
        pre = [_instr("PUSH_NULL", location=loc), _instr("LOAD_FAST", fn_name, location=loc)]
    post = [_instr("PRECALL", nargs, location=loc)] if PY311 else []
    post.append(_instr("CALL", nargs, location=loc))
    return pre, post


def call_preamble(nargs, kw_names, loc):
    """What precedes a CALL of ``nargs`` arguments: KW_NAMES (3.11/3.12), PRECALL (3.11)."""
    out = []
    if kw_names and not PY313:
        out.append(_instr("KW_NAMES", tuple(kw_names), location=loc))
    if PY311:
        out.append(_instr("PRECALL", nargs, location=loc))
    return out


#: instructions a CALL's arguments may be followed by before the CALL itself
CALL_PREAMBLE_NAMES = () if PY313 else ("PRECALL", "KW_NAMES")


def load_attr(attr, loc):
    """A plain attribute load (not the method form)."""
    return _instr("LOAD_ATTR", attr if PY311 else (False, attr), location=loc)


def forward_jump(name):
    """The name of conditional jump ``name`` pointing forward (3.11 names the direction)."""
    if PY311 and name.startswith("POP_JUMP_") and "FORWARD" not in name:
        return name.replace("BACKWARD_", "").replace("POP_JUMP_", "POP_JUMP_FORWARD_")
    return name


def method_layout():
    """The stack slots a method load leaves (callable and NULL/self), bottom first."""
    return ["val", "null"] if NULL_AFTER_CALLABLE else ["null", "val"]


def jump_needs_exact_bool(name) -> bool:
    """3.13's POP_JUMP_IF_TRUE/FALSE accept only an exact bool (TO_BOOL precedes them)."""
    return PY313 and name in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
