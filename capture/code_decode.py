"""Fast decoding of a code object into the ``bytecode`` package's abstract instructions.

The translator works on ``list(Bytecode.from_code(code))``: ``Instr`` objects whose jump arguments
are ``Label``s, with ``TryBegin``/``TryEnd`` pseudo instructions for the exception table.
``capture/resume.py`` copies those objects into new ``Bytecode`` objects and assembles them with
``to_code``, so they must be the package's own objects. The package builds them through a
``ConcreteBytecode`` (one object per code unit, CACHE entries included) and several passes over
it; in a fresh process that is most of the per-code-object cost of a translation.

:func:`decode` reads the code object's fields directly (``co_code``, ``co_consts``, the name
tuples, ``co_exceptiontable``, ``co_positions()``) in two passes and builds the same list: the same
instruction names, the same argument objects (the constants themselves, ``(bool, name)`` pairs,
``CellVar``/``FreeVar``, the package's enums, one ``Label`` per jump/handler target), the same
``InstrLocation`` per instruction (shared by consecutive code units with equal positions, as
the package shares them), the same ``TryBegin(label, push_lasti, UNSET)``/``TryEnd`` placement.
Instructions are created without the package's argument validation (as the package's own
``from_code`` fast path does): every argument is built from the code object exactly as the
package builds it, and ``tests/capture/test_code_decode.py`` checks the result object by object
against ``Bytecode.from_code`` over this repository and the standard library.

It also returns what the translator's exception-handler table needs (each instruction's byte
offset and the exception-table entries), so the table needs no second ``dis`` pass.

Fallback: :func:`decode` returns ``None`` (the caller then uses ``Bytecode.from_code``) for an
interpreter or ``bytecode`` release it was not verified against, and for anything unusual in the
code object (an ``EXTENDED_ARG`` before an argument-less instruction or at the end, an unknown
opcode, an argument out of range, a jump into the middle of an instruction, nested exception
ranges...): there the package's own behaviour, result or error, is what the caller gets.
"""
from __future__ import annotations

import dis
import opcode as _opcode
import sys

import bytecode as _bytecode
from bytecode import Instr, Label, TryBegin, TryEnd

#: interpreters and ``bytecode`` releases the decoder was checked against (test_code_decode.py);
#: anywhere else :func:`decode` returns None and the package decodes
VERIFIED_PYTHONS = ((3, 11), (3, 12), (3, 13))
VERIFIED_BYTECODE = ("0.19.1",)

PY312 = sys.version_info[:2] == (3, 12)
PY313 = sys.version_info[:2] >= (3, 13)

try:
    from bytecode.instr import (BINARY_OPS, BITFLAG2_OPCODES, BITFLAG_OPCODES, CACHE_OPCODE,
                                COMMON_CONSTANT_OPS, DUAL_ARG_OPCODES, EXTENDEDARG_OPCODE,
                                FORMAT_VALUE_OPS, HAS_ABSOLUTE_JUMP, HAS_BACKWARD_RELATIVE_JUMP,
                                HAS_FORWARD_RELATIVE_JUMP, HAS_JUMP, INTRINSIC_1OP, INTRINSIC_2OP,
                                MIN_INSTRUMENTED_OPCODE, NOP_OPCODE, SPECIAL_OPS, UNSET, BinaryOp,
                                CellVar, CommonConstant, Compare, FormatValue, FreeVar,
                                InstrLocation, Intrinsic1Op, Intrinsic2Op, SpecialMethod,
                                opcode_has_argument)
    _IMPORTED = True
except ImportError:  # another release of the package: not verified, never used
    _IMPORTED = False

#: whether :func:`decode` decodes here (tests switch it off to check the fallback)
ENABLED = (_IMPORTED and sys.version_info[:2] in VERIFIED_PYTHONS
           and getattr(_bytecode, "__version__", None) in VERIFIED_BYTECODE)


class _Unsupported(Exception):
    """Something :func:`decode` does not reproduce: the package decodes this code object."""


# -- per-opcode tables (built once) ----------------------------------------------------------------
# How the package turns an instruction's integer argument into the abstract argument
# (ConcreteBytecode.to_bytecode), in the package's order of tests.
_NONE, _CONST, _LOCAL, _DUAL, _NAME, _NAME_FLAG, _NAME_FLAG2, _FREE, _COMPARE, _ENUM, \
    _FORMAT_FLAG, _INT, _BAD = range(13)


def _argument_kind(op):
    """(kind, enum class or None) of opcode ``op`` as the package decodes its argument."""
    name = _opcode.opname[op]
    if name.startswith("<") or op >= MIN_INSTRUMENTED_OPCODE or op == EXTENDEDARG_OPCODE:
        return _BAD, None
    has_arg = opcode_has_argument(op)
    if op in _opcode.hasconst:
        kind = _CONST, None
    elif op in _opcode.haslocal:
        kind = (_DUAL if op in DUAL_ARG_OPCODES else _LOCAL), None
    elif op in _opcode.hasname:
        kind = ((_NAME_FLAG if op in BITFLAG_OPCODES else
                 _NAME_FLAG2 if op in BITFLAG2_OPCODES else _NAME), None)
    elif op in _opcode.hasfree:
        kind = _FREE, None
    elif op in _opcode.hascompare:
        kind = _COMPARE, None
    elif op in INTRINSIC_1OP:
        kind = _ENUM, Intrinsic1Op
    elif op in INTRINSIC_2OP:
        kind = _ENUM, Intrinsic2Op
    elif op in BINARY_OPS:
        kind = _ENUM, BinaryOp
    elif op in COMMON_CONSTANT_OPS:
        kind = _ENUM, CommonConstant
    elif op in SPECIAL_OPS:
        kind = _ENUM, SpecialMethod
    elif op in FORMAT_VALUE_OPS:
        kind = (_FORMAT_FLAG, None) if op in BITFLAG_OPCODES else (_ENUM, FormatValue)
    else:
        kind = _INT, None
    if not has_arg:
        # an argument-less opcode gets UNSET; one the package would still try to decode is not
        # expected on any verified version and is left to the package
        return (_NONE, None) if kind[0] == _INT else (_BAD, None)
    return kind


def _cache_entries(op):
    """Inline CACHE units after ``op`` (what the package adds to a relative jump's origin)."""
    table = dis._inline_cache_entries  # type: ignore[attr-defined]
    if PY313:
        return table.get(_opcode.opname[op], 0)
    return table[op]


def _jump_kind(op):
    """0: not a jump; 1: forward relative; 2: backward relative; 3: absolute."""
    if op in HAS_FORWARD_RELATIVE_JUMP:
        return 1
    if op in HAS_BACKWARD_RELATIVE_JUMP:
        return 2
    if op in HAS_ABSOLUTE_JUMP:
        return 3
    return 0


if ENABLED:
    _KIND = [_argument_kind(op)[0] for op in range(256)]
    _KIND[CACHE_OPCODE] = _BAD  # a CACHE unit where an instruction starts: the package's business
    _ENUM_OF = [_argument_kind(op)[1] for op in range(256)]
    _HAS_ARG = [opcode_has_argument(op) for op in range(256)]
    _JUMP = [_jump_kind(op) for op in range(256)]
    _CACHES = [_cache_entries(op) for op in range(256)]
    _IS_JUMP = [op in HAS_JUMP for op in range(256)]
    _OPNAME = list(_opcode.opname[:256])
    #: the package's enum member per (enum, value): Compare(3) is a singleton, cached here
    _ENUM_MEMBERS: dict = {}


def _enum_member(enum, value):
    try:
        return _ENUM_MEMBERS[enum, value]
    except KeyError:
        try:
            member = enum(value)
        except ValueError:
            raise _Unsupported(f"{enum.__name__}({value})") from None
        _ENUM_MEMBERS[enum, value] = member
        return member


def _compare_value(c_arg):
    """The package's Compare value of a COMPARE_OP argument (the layout differs per version)."""
    if PY313:
        return (c_arg >> 5) + ((1 << 4) if (c_arg & 16) else 0)
    if PY312:
        return c_arg >> 4
    return c_arg


def _parse_exception_table(table):
    """[(start, length, target, depth, lasti)] in code units, as the package reads them."""
    out = []
    it = iter(table)
    for b in it:
        fields = []
        while True:
            val = b & 63
            while b & 64:
                val <<= 6
                b = next(it, None)
                if b is None:
                    raise _Unsupported("truncated exception table")
                val |= b & 63
            fields.append(val)
            if len(fields) == 4:
                break
            b = next(it, None)
            if b is None:  # a truncated entry: the package drops it too, let it decide
                raise _Unsupported("truncated exception table")
        start, length, target, dl = fields
        out.append((start, length, target, dl >> 1, bool(dl & 1)))
    return out


def decode(code):
    """``(instructions, offsets, exception_entries)`` for ``code``, or None (see the module doc).

    ``instructions`` equals ``list(Bytecode.from_code(code))`` object by object; ``offsets[i]`` is
    the byte offset of ``instructions[i]`` when it is an ``Instr`` (None for pseudo instructions;
    ``offsets`` itself is None for a code object without exception table, where no use has it);
    ``exception_entries`` are ``dis._parse_exception_table``'s ``(start, end, depth, lasti)``."""
    if not ENABLED:
        return None
    try:
        return _decode(code)
    except (_Unsupported, IndexError, KeyError, TypeError, ValueError):
        # an argument out of range, a jump to no instruction start...: where the package would
        # raise too, or decode something this module does not reproduce
        return None


def _decode(code):
    co = code.co_code
    ops = co[0::2]
    opargs = co[1::2]
    n_units = len(ops)
    positions = list(code.co_positions())
    if len(positions) != n_units or len(co) % 2:
        raise _Unsupported("positions do not cover the code")
    KIND, HAS_ARG, JUMP, CACHES = _KIND, _HAS_ARG, _JUMP, _CACHES
    OPNAME, IS_JUMP, ENUM_OF = _OPNAME, _IS_JUMP, _ENUM_OF
    EXT, NOP = EXTENDEDARG_OPCODE, NOP_OPCODE

    entries = _parse_exception_table(code.co_exceptiontable)
    ex_start = {}
    ex_end = {}
    targets = set()
    for k, (start, length, target, _depth, _lasti) in enumerate(entries):
        targets.add(target)
        ex_start[start] = k
        ex_end.setdefault(start + length - 1, []).append(k)

    # pass 1: the package's concrete instructions, EXTENDED_ARG folded into the next one and
    # inline CACHE units skipped: (first code unit, opcode's code unit, opcode, integer argument
    # or None, exception-table entries ending on its units or None); the jump targets
    concrete = []
    ext = None
    ext_start = 0
    skipped = 0
    starts_seen = 0
    u = 0
    while u < n_units:
        op = ops[u]
        if op == EXT:
            if ext is None:
                ext, ext_start = opargs[u], u
            else:
                ext = (ext << 8) + opargs[u]
            u += 1
            continue
        if ext is not None:
            if op == NOP:
                arg = None
            elif not HAS_ARG[op]:
                raise _Unsupported("EXTENDED_ARG before an instruction without argument")
            else:
                arg = (ext << 8) + opargs[u]
            start, ext = ext_start, None
        else:
            start = u
            arg = opargs[u] if HAS_ARG[op] else None
        caches = CACHES[op]
        jump = JUMP[op]
        if jump:
            if jump == 1:
                targets.add(u + 1 + caches + arg)
            elif jump == 2:
                targets.add(u + 1 + caches - arg)
            else:
                targets.add(arg)
        ends = None
        if ex_end:
            if start in ex_start:
                starts_seen += 1
            for v in range(u, u + caches + 1):
                e = ex_end.get(v)
                if e is not None:  # the package closes those of one unit in reverse order
                    ends = list(reversed(e)) if ends is None else ends + list(reversed(e))
        concrete.append((start, u, op, arg, ends))
        skipped += caches
        u += 1 + caches
    if ext is not None:
        raise _Unsupported("EXTENDED_ARG at the end of the code")
    # the package treats every zero opcode as a CACHE unit: the skipped units must be exactly those
    if u != n_units or ops.count(0) != skipped:
        raise _Unsupported("CACHE units where the opcode table does not put them")
    if starts_seen != len(ex_start):
        raise _Unsupported("an exception range starting inside an instruction")

    # the name tables as the package indexes them (3.11+: cells and locals share one array)
    consts, names, varnames = code.co_consts, code.co_names, code.co_varnames
    freevars = code.co_freevars
    cells_lookup = list(varnames) + [CellVar(c) for c in code.co_cellvars if c not in varnames]
    ncells = len(cells_lookup)
    if PY313:
        locals_lookup = cells_lookup + [FreeVar(f) for f in freevars if f not in varnames]
    else:
        locals_lookup = varnames

    # pass 2: labels, TryBegin/TryEnd and instructions in the package's order
    insts = []
    add = insts.append
    labels = {}
    jumps = []  # (index in insts, target unit)
    try_begins = {}  # exception-table entry index -> TryBegin
    last_u = -1  # the code unit of the last instruction's opcode, and its position and location
    last_pos = loc = None
    new = object.__new__
    set_field = object.__setattr__
    for start, u, op, c_arg, ends in concrete:
        if start in targets:
            label = Label()
            labels[start] = label
            add(label)
        if ex_start:
            k = ex_start.get(start)
            if k is not None and k not in try_begins:
                tb = TryBegin(None, entries[k][4], UNSET)
                try_begins[k] = tb
                add(tb)
        kind = KIND[op]
        if kind == _NONE:
            arg = UNSET
        elif kind == _INT:
            arg = c_arg
        elif kind == _CONST:
            arg = consts[c_arg]
        elif kind == _LOCAL:
            arg = locals_lookup[c_arg]
        elif kind == _NAME:
            arg = names[c_arg]
        elif kind == _NAME_FLAG:
            arg = (bool(c_arg & 1), names[c_arg >> 1])
        elif kind == _DUAL:
            arg = (locals_lookup[c_arg >> 4], locals_lookup[c_arg & 15])
        elif kind == _NAME_FLAG2:
            arg = (bool(c_arg & 1), bool(c_arg & 2), names[c_arg >> 2])
        elif kind == _FREE:
            if c_arg < ncells:
                cell = cells_lookup[c_arg]
                arg = cell if isinstance(cell, CellVar) else CellVar(cell)
            else:
                arg = FreeVar(freevars[c_arg - ncells])
        elif kind == _COMPARE:
            arg = _enum_member(Compare, _compare_value(c_arg))
        elif kind == _FORMAT_FLAG:
            arg = (bool(c_arg & 1), _enum_member(FormatValue, c_arg >> 1))
        elif kind == _BAD:
            raise _Unsupported(f"opcode {op}")
        elif kind == _ENUM:
            arg = _enum_member(ENUM_OF[op], c_arg)
        else:
            raise _Unsupported(f"opcode {op}")
        # the package shares one InstrLocation over a run of equal consecutive positions
        # (EXTENDED_ARG and CACHE units included)
        pos = positions[u]
        if pos != last_pos or positions[last_u + 1:u].count(pos) != u - last_u - 1:
            # what InstrLocation._from_tuple builds (the fields of a frozen dataclass)
            last_pos = pos
            loc = new(InstrLocation)
            set_field(loc, "lineno", pos[0])
            set_field(loc, "end_lineno", pos[1])
            set_field(loc, "col_offset", pos[2])
            set_field(loc, "end_col_offset", pos[3])
        jump = JUMP[op]
        if jump:
            target = (u + 1 + CACHES[op] + c_arg if jump == 1 else
                      u + 1 + CACHES[op] - c_arg if jump == 2 else c_arg)
            jumps.append((len(insts), target))
        # what the package's Instr._from_trusted builds (it does not validate either)
        ins = new(Instr)
        ins._name = OPNAME[op]
        ins._opcode = op
        ins._is_jump = IS_JUMP[op]
        ins._arg = arg
        ins._location = loc
        add(ins)
        last_u = u
        if ends is not None:
            for k in ends:
                tb = try_begins.get(k)
                if tb is None:
                    tb = TryBegin(None, entries[k][4], UNSET)
                    try_begins[k] = tb
                    add(tb)
                add(TryEnd(tb))
    for index, target in jumps:
        insts[index]._arg = labels[target]
    for k, tb in try_begins.items():
        tb.target = labels[entries[k][2]]
    if len(try_begins) > 1:
        _check_not_nested(insts)
    # byte offset of each Instr (the k-th Instr is the k-th concrete instruction), for the
    # handler table; without an exception table it has no use
    offsets = None
    if entries:
        units = iter(concrete)
        offsets = [2 * next(units)[1] if type(ins) is Instr else None for ins in insts]
    dis_entries = [(2 * s, 2 * (s + length), depth, lasti) for s, length, _t, depth, lasti in entries]
    return insts, offsets, dis_entries


def _check_not_nested(insts):
    """Iterating a Bytecode raises on a TryBegin inside another one's range: leave that to it."""
    open_range = False
    for ins in insts:
        if type(ins) is TryBegin:
            if open_range:
                raise _Unsupported("nested TryBegin")
            open_range = True
        elif type(ins) is TryEnd:
            open_range = False


# -- the translator's exception-handler table ------------------------------------------------------

def instruction_offsets(code, insts):
    """Byte offset of each ``Instr`` of ``insts`` (None for pseudo instructions), matched one to
    one with ``code``'s real instructions (EXTENDED_ARG and CACHE aside) as ``dis`` lists them;
    None when they do not match (names or count differ)."""
    real = _real_instructions(code) if ENABLED else None
    if real is None:
        real = [(i.opname, i.offset) for i in dis.get_instructions(code)
                if i.opname not in ("EXTENDED_ARG", "CACHE")]
    offset_of = {}  # by object, as the translator always matched them (a repeated object: its last)
    k = 0
    for ins in insts:
        if isinstance(ins, Instr):
            if k >= len(real) or real[k][0] != ins.name:
                return None
            offset_of[id(ins)] = real[k][1]
            k += 1
    if k != len(real):
        return None
    return [offset_of[id(ins)] if isinstance(ins, Instr) else None for ins in insts]


def _real_instructions(code):
    """[(name, byte offset)] of ``dis.get_instructions(code)`` without EXTENDED_ARG and CACHE
    (inline cache units are skipped by count, as ``dis`` skips them)."""
    co = code.co_code
    out = []
    caches = 0
    ext, cache = EXTENDEDARG_OPCODE, CACHE_OPCODE
    for i in range(0, len(co), 2):
        if caches:
            caches -= 1
            continue
        op = co[i]
        caches = _CACHES[op]
        if op != ext and op != cache:
            out.append((_OPNAME[op], i))
    return out


def exception_entries(code):
    """``dis._parse_exception_table(code)`` as ``(start, end, depth, lasti)`` byte ranges."""
    if ENABLED:
        try:
            return [(2 * s, 2 * (s + length), depth, lasti)
                    for s, length, _t, depth, lasti in _parse_exception_table(code.co_exceptiontable)]
        except _Unsupported:
            pass
    return [(e.start, e.end, e.depth, bool(e.lasti)) for e in dis._parse_exception_table(code)]


def handler_table(insts, offsets, entries):
    """Per instruction of ``insts``: (handler label, stack depth, push lasti) of the
    exception-table entry covering it, or None. The handler is the one of the ``bytecode``
    package's TryBegin range the instruction is in (those ranges never overlap); the depth and
    lasti flag come from the code object's table entry covering its byte offset."""
    table = [None] * len(insts)
    if not entries:
        return table
    current = None
    for i, ins in enumerate(insts):
        if isinstance(ins, TryBegin):
            current = ins
        elif isinstance(ins, TryEnd):
            current = None
        elif current is not None and isinstance(ins, Instr):
            off = offsets[i]
            for start, end, depth, lasti in entries:
                if start <= off < end:
                    table[i] = (current.target, depth, bool(lasti))
                    break
    return table
