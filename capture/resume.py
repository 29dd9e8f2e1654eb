"""Graph breaks that resume: compiled prefix + the breaking instruction run eagerly + a resume
function that is itself captured.

When the root frame's translation breaks at instruction ``k`` (a break inside an inlined call
counts as a break at the root's call instruction), capture re-translates the frame and stops
right *before* ``k``. The graph built so far is the *prefix*; its outputs and the symbolic state
(stack and live locals) are turned into *recipes* that rebuild the Python values at run time.
A compiled entry with a :class:`ResumePlan` then runs:

1. the prefix graph;
2. the recipes: the Python stack and the live locals as real objects (tensors from the graph's
   outputs or the call's arguments, Python values from the trace, fresh lists/dicts rebuilt,
   written-to free variables stored back into their cells);
3. a generated *step* function: bytecode that re-pushes the stack, executes the original
   instruction ``k`` (CPython itself runs it, so it behaves exactly as in PyNative) and calls the
   *resume function* of the instruction that follows (both successors for a conditional jump);
4. the resume function, through :func:`capture.dispatch.call_captured`: it is captured on its first
   call and cached per code object like any other frame.

A resume function is the original code object with a prologue (``MAKE_CELL`` for the cells,
``COPY_FREE_VARS``, ``RESUME``, pushes of the saved stack, a jump to the resume offset); its
parameters are the live locals (by their own names) then the stack values. Resume and step code
objects are generated from the *original* code and cached by (code, offset, stack layout, live
names), so converging paths share them. Instructions that cannot be stepped on their own (e.g.
a break inside a ``try``/``with`` body, whose handler must see the eager exception) resume *at*
``k`` and run the rest of the frame eagerly: the prefix still runs as a graph. A break inside
an ``except``/``finally`` handler, while the exception is being handled, resumes at the entry of
that handler's ``try`` statement (the translator records where each try region was entered), so
CPython itself re-raises and handles the exception in the eager rest: the handler's state (the
exception on the value stack, ``sys.exc_info()``, the saved lasti) is never rebuilt.

Generated code is checked before use (:func:`check_generated_code`, :func:`check_handlers_kept`:
each copied instruction keeps the original's handler, depth and lasti). A failed check is a bug
here: reported as a warning and the frame runs eagerly, or raised with RAISE_ON_INVALID_CODE.
"""
from __future__ import annotations

import inspect
import threading
import types

from bytecode import UNSET, Bytecode, CellVar, Instr, Label, TryBegin, TryEnd

from graph import forksafe

from . import bytecode_compat as bc
from .errors import GraphBreak
from .reconstruct import NotResumable, Recipes, apply_effects, build  # NotResumable re-exported
from .variables.base import Variable


class InvalidGeneratedCode(NotResumable):
    """Generated resume/step code failed its check (stack depth, exception table): a bug in
    this module, never a property of the user's program. The frame then runs eagerly and the
    fallback is logged as a warning; with :data:`RAISE_ON_INVALID_CODE` (the test suites set
    it) the error reaches the caller instead, so a failed check fails the test."""


#: re-raise :class:`InvalidGeneratedCode` instead of falling back to eager (the tests' conftest sets it)
RAISE_ON_INVALID_CODE = False



# -- resume-code bookkeeping ------------------------------------------------------------------------
class ResumeInfo:
    """What a generated resume code object is: ``orig`` code, its index map into ``orig``'s
    abstract instruction list, and the offset it resumes at."""

    __slots__ = ("orig", "index_map", "orig_index", "line")

    def __init__(self, orig, index_map, orig_index, line):
        self.orig = orig
        self.index_map = index_map
        self.orig_index = orig_index
        self.line = line


RESUME_INFO: dict = {}  # resume code -> ResumeInfo
_RESUME_CODES: dict = {}  # (orig code, orig index, layout, live names) -> resume code
_STEP_CODES: dict = {}
_STEP_CODE_SET: set = set()


def is_generated_code(code) -> bool:
    """Is ``code`` a resume or step function this module generated (it carries the user's file
    and name, but the frame hook must never treat it as user code)?"""
    return code in RESUME_INFO or code in _STEP_CODE_SET
DERIVED: dict = {}  # orig code -> set of resume codes made from it (reset with it)
_LIVENESS: dict = {}
_LOCK = threading.RLock()
forksafe.renew_in_child(globals(), "_LOCK", threading.RLock)


def origin_of(code, index):
    """(original code, index in its abstract instruction list) of instruction ``index`` of ``code``."""
    info = RESUME_INFO.get(code)
    if info is None:
        return code, index
    j = info.index_map[index]
    if j is None:
        raise NotResumable("break inside a resume prologue")
    return info.orig, j


def _instructions(code):
    from .translator import _instructions as ti
    return ti(code)


# -- liveness of fast locals -----------------------------------------------------------------------
_UNCOND = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT",
           "JUMP_ABSOLUTE"}
_FINAL = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"}


def _name_of(arg):
    return arg if isinstance(arg, str) else getattr(arg, "name", None)


def _local_effects(ins):
    """[(is_load, name)] in execution order for the fast-local accesses of one instruction."""
    n = ins.name
    if n in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR"):
        return [(True, _name_of(ins.arg))]
    if n in ("STORE_FAST", "DELETE_FAST"):
        return [(False, _name_of(ins.arg))]
    if n == "LOAD_FAST_LOAD_FAST":
        return [(True, _name_of(ins.arg[0])), (True, _name_of(ins.arg[1]))]
    if n == "STORE_FAST_LOAD_FAST":
        return [(False, _name_of(ins.arg[0])), (True, _name_of(ins.arg[1]))]
    if n == "STORE_FAST_STORE_FAST":
        return [(False, _name_of(ins.arg[0])), (False, _name_of(ins.arg[1]))]
    return ()


_SUCCESSORS: dict = {}


def successors(code):
    """Per abstract-instruction index: the indices control can go to next (its handler included)."""
    hit = _SUCCESSORS.get(code)
    if hit is not None:
        return hit
    insts, labels, _ = _instructions(code)
    n = len(insts)
    handler = [None] * n
    cur = None
    for i, ins in enumerate(insts):
        if isinstance(ins, TryBegin):
            cur = labels[ins.target]
        elif isinstance(ins, TryEnd):
            cur = None
        handler[i] = cur
    succ = []
    for i, ins in enumerate(insts):
        s = []
        if isinstance(ins, Instr):
            if ins.name in _FINAL:
                pass
            elif ins.name in _UNCOND:
                s.append(labels[ins.arg])
            else:
                s.append(i + 1)
                if isinstance(ins.arg, Label):
                    s.append(labels[ins.arg])
            if handler[i] is not None:
                s.append(handler[i])
        else:
            s.append(i + 1)
        succ.append([j for j in s if j < n])
    _SUCCESSORS[code] = succ
    return succ


def reachable_from(code, index):
    """The abstract-instruction indices control can reach from ``index`` (handlers included)."""
    succ = successors(code)
    seen, todo = set(), [index]
    while todo:
        i = todo.pop()
        if i in seen or i >= len(succ):
            continue
        seen.add(i)
        todo.extend(succ[i])
    return seen


def liveness(code):
    """Per abstract-instruction index: the fast locals read before being written on some path
    from there (exception handlers included). Cells/free variables are not tracked here."""
    hit = _LIVENESS.get(code)
    if hit is not None:
        return hit
    insts, _, _ = _instructions(code)
    n = len(insts)
    succ = successors(code)
    effects = [_local_effects(ins) if isinstance(ins, Instr) else () for ins in insts]
    live = [frozenset()] * (n + 1)
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out = set()
            for j in succ[i]:
                out |= live[j]
            for is_load, name in reversed(effects[i]):
                if is_load:
                    out.add(name)
                else:
                    out.discard(name)
            fs = frozenset(out)
            if fs != live[i]:
                live[i] = fs
                changed = True
    _LIVENESS[code] = live
    return live


# -- code generation --------------------------------------------------------------------------------
_GEN_FLAGS_OFF = (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR | inspect.CO_COROUTINE
                  | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE)
_PROLOGUE = {"MAKE_CELL", "COPY_FREE_VARS", "RESUME"}
_SUPER = {"LOAD_FAST_LOAD_FAST": ("LOAD_FAST_CHECK", "LOAD_FAST_CHECK"),
          "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST_CHECK"),
          "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST")}


def _loc_of(insts, index):
    for j in range(index, len(insts)):
        ins = insts[j]
        if isinstance(ins, Instr) and ins.lineno is not None:
            return ins.location
    return None


def _set_meta(b, orig, name):
    b.name = orig.co_name
    b.qualname = getattr(orig, "co_qualname", orig.co_name)
    b.filename = orig.co_filename
    b.first_lineno = orig.co_firstlineno
    b.flags = (orig.co_flags & ~_GEN_FLAGS_OFF) | inspect.CO_OPTIMIZED | inspect.CO_NEWLOCALS
    b.docstring = None


def _stack_names(layout):
    return [f"___stack{i}" for i, kind in enumerate(layout) if kind != "null"]


def resume_code(orig, index, layout, names):
    """The resume function's code: ``orig`` continued at abstract index ``index`` with the stack
    ``layout`` (per slot: "null", "val" or "iter" (a sequence turned back into an iterator)) and
    the locals ``names`` as its parameters (locals first, then the non-NULL stack slots)."""
    key = (orig, index, tuple(layout), tuple(names))
    with _LOCK:
        hit = _RESUME_CODES.get(key)
        if hit is not None:
            return hit
        insts, labels, _ = _instructions(orig)
        loc = _loc_of(insts, index)
        b = Bytecode()
        _set_meta(b, orig, orig.co_name)
        snames = _stack_names(layout)
        b.argnames = list(names) + snames
        b.argcount = len(b.argnames)
        b.posonlyargcount = 0
        b.kwonlyargcount = 0
        b.cellvars = list(orig.co_cellvars)
        b.freevars = list(orig.co_freevars)
        pro = []
        for c in orig.co_cellvars:
            pro.append(Instr("MAKE_CELL", CellVar(c), location=loc))
        if orig.co_freevars:
            pro.append(Instr("COPY_FREE_VARS", len(orig.co_freevars), location=loc))
        pro.append(Instr("RESUME", 0, location=loc))
        si = iter(snames)
        for kind in layout:
            if kind == "null":
                pro.append(Instr("PUSH_NULL", location=loc))
            else:
                pro.append(Instr("LOAD_FAST", next(si), location=loc))
                if kind == "iter":
                    pro.append(Instr("GET_ITER", location=loc))
        target = Label()
        pro.append(Instr("JUMP_FORWARD", target, location=loc))
        body, index_map = [], [None] * (len(pro) + 1)
        tb_map = {}
        # The bytecode package computes a handler's depth by following control flow to its
        # TryBegin; resuming mid-frame, a region entered only by a jump into its middle (a loop's
        # back edge into a try body begun before the resume point) or only in dead code would get
        # a bogus depth (32768); and its own computation takes the smallest depth among the
        # TryBegins the flow reaches, which for a handler shared by regions before and inside a
        # loop is the loop's depth when the ones before the loop are dead (a wrong depth leaves
        # the iterator on the stack under the handler). So every copied TryBegin keeps the
        # original's depth, and check_handlers_kept verifies the result against the original.
        region_depth = _region_depths(orig, insts)
        all_preset = all(id(t) in region_depth for t in insts if isinstance(t, TryBegin))
        started = False
        active = None  # the (copied) TryBegin whose region the current instruction is in
        for j, ins in enumerate(insts):
            if j == index:
                if active is not None:
                    # The prologue jumps into the middle of a try region. The bytecode package
                    # computes a handler's stack depth (and the frame's stack size) by following
                    # control flow from each TryBegin: one the jump skips would be dead code, its
                    # handler left at a bogus depth (32768) and unaccounted in co_stacksize, so a
                    # caught exception would corrupt the value stack. Close the region here and
                    # reopen it after the jump target, where the flow from the prologue sees it.
                    body.append(TryEnd(active))
                    index_map.append(None)
                    body.append(target)
                    index_map.append(None)
                    active = TryBegin(active.target, active.push_lasti, active.stack_depth)
                    body.append(active)
                    index_map.append(None)
                else:
                    body.append(target)
                    index_map.append(None)
            if isinstance(ins, Instr):
                if not started and ins.name in _PROLOGUE:
                    new = Instr("NOP", location=ins.location)
                    if ins.name == "RESUME":
                        started = True
                elif ins.name == "LOAD_FAST":
                    new = bc.load_local_checked(ins.arg, ins.location)  # never read NULL
                elif ins.name in _SUPER:
                    # 3.13 super-instructions pack two local indices in 4 bits each: the resume
                    # code's locals are reordered (parameters first), so split them in two
                    first, second = _SUPER[ins.name]
                    body.append(Instr(first, ins.arg[0], location=ins.location))
                    index_map.append(j)
                    body.append(Instr(second, ins.arg[1], location=ins.location))
                    index_map.append(None)
                    continue
                else:
                    new = ins.copy()
            elif isinstance(ins, TryBegin):
                new = TryBegin(ins.target, ins.push_lasti, region_depth.get(id(ins), UNSET))
                tb_map[id(ins)] = new
                active = new
            elif isinstance(ins, TryEnd):
                new = TryEnd(active if active is not None and tb_map.get(id(ins.entry)) is not None
                             else tb_map.get(id(ins.entry), ins.entry))
                active = None
            else:
                new = ins
            body.append(new)
            index_map.append(j)
        if index >= len(insts):
            body.append(target)
            index_map.append(None)
        b.extend(pro)
        b.append(Label())  # the body starts after a label (index_map has a slot for it)
        b.extend(body)
        try:
            code = b.to_code(compute_exception_stack_depths=not all_preset)
        except Exception as e:  # e.g. "Failed to compute stacksize": never use such code
            raise InvalidGeneratedCode(f"the generated resume code is invalid ({type(e).__name__}: {e})") from None
        if code.co_stacksize < orig.co_stacksize:
            # a handler reached only through a region the flow from the resume point does not
            # pass is not counted by the package; the resume code never needs more than the
            # original (its prologue pushes the stack the original had at that point)
            code = code.replace(co_stacksize=orig.co_stacksize)
        check_generated_code(code, orig, index)
        assert len(index_map) == len(list(b)), (len(index_map), len(list(b)))
        # the translator must see exactly this instruction list (the index map refers to it)
        from .translator import _CODE_CACHE, _user_try_flags
        lst = list(b)
        check_handlers_kept(code, lst, orig, index_map, index, reachable_from(orig, index))
        lab = {ins: i + 1 for i, ins in enumerate(lst) if isinstance(ins, Label)}
        _CODE_CACHE[code] = (lst, lab, _user_try_flags(lst, lab))
        line = loc.lineno if loc is not None else orig.co_firstlineno
        RESUME_INFO[code] = ResumeInfo(orig, index_map, index, line)
        _RESUME_CODES[key] = code
        DERIVED.setdefault(orig, set()).add(code)
        return code


def _region_depths(orig, insts):
    """{id(TryBegin): the stack depth of its handler in ``orig``'s exception table}."""
    from .translator import _handler_table
    table = _handler_table(orig, insts)
    out, region = {}, None
    for i, ins in enumerate(insts):
        if isinstance(ins, TryBegin):
            region = ins
        elif isinstance(ins, TryEnd):
            region = None
        elif region is not None and id(region) not in out and table[i] is not None:
            out[id(region)] = table[i][1]
    return out


def _exception_table(code):
    """[(start, end, target, depth, lasti)] of a 3.11+ code object's exception table."""
    import dis
    parse = getattr(dis, "_parse_exception_table", None)
    if parse is None:
        return []
    return [(e.start, e.end, e.target, e.depth, e.lasti) for e in parse(code)]


def check_generated_code(code, orig=None, index=None):
    """Refuse generated code CPython could crash on: every exception-table entry must name a real
    handler at a stack depth the frame's stack can hold, and the stack size must cover the
    original frame's at the same point. Raises InvalidGeneratedCode (a reported fallback: the frame
    then runs eagerly; an error under RAISE_ON_INVALID_CODE) instead of handing CPython a corrupt frame."""
    n = len(code.co_code)
    where = f" (resuming {orig.co_name} at instruction {index})" if orig is not None else ""
    for start, end, target, depth, lasti in _exception_table(code):
        if not (0 <= start < end <= n and 0 <= target < n):
            raise InvalidGeneratedCode(f"generated code has an exception-table entry out of range{where}")
        if depth < 0 or depth + 1 + int(bool(lasti)) + 2 > code.co_stacksize + 2 or depth >= 32768:
            raise InvalidGeneratedCode(f"generated code has an exception handler at stack depth {depth} beyond "
                               f"its stack size {code.co_stacksize}{where}")
        if depth + 1 + int(bool(lasti)) > code.co_stacksize:
            raise InvalidGeneratedCode(f"generated code's stack size {code.co_stacksize} cannot hold its handler "
                               f"at depth {depth}{where}")
    if code.co_stacksize < 0:
        raise InvalidGeneratedCode(f"generated code has a negative stack size{where}")


def check_handlers_kept(code, insts, orig, index_map, index, reachable):
    """Every instruction copied from ``orig`` into the resume ``code`` that can run (it is
    ``reachable`` from the resume point) must be covered by the
    same handler as in ``orig``, at the same stack depth and with the same lasti flag (the
    prologue pushes the saved stack, so the depths computed from the resume code's own control
    flow must come out equal). Raises InvalidGeneratedCode otherwise."""
    from .translator import _handler_table, _instructions as ti
    orig_insts = ti(orig)[0]
    want = _handler_table(orig, orig_insts)
    if not any(want):  # no exception table, or one the abstract instructions do not match
        return
    got = _handler_table(code, insts)
    if not any(got) and any(want[j] for j in index_map if j is not None and j in reachable):
        raise InvalidGeneratedCode(f"the resume code of {orig.co_name} at instruction {index} lost its "
                                   f"exception table")
    for g, j in enumerate(index_map):
        if j is None or j not in reachable or not isinstance(insts[g], Instr):
            continue
        w, h = want[j], got[g]
        if (w is None) != (h is None) or (w is not None and (w[0] is not h[0] or w[1:] != h[1:])):
            raise InvalidGeneratedCode(
                f"the resume code of {orig.co_name} at instruction {index} covers {insts[g].name} (instruction "
                f"{j}) with handler {h and h[1:]} where the original has {w and w[1:]}")


def _call_seq(nargs, fn_name, loc):
    """Instructions calling local ``fn_name`` with the ``nargs`` values pushed after them."""
    return bc.call_local(nargs, fn_name, loc)


class Continuation:
    """One successor of a stepped instruction: the resume index, the real stack after the
    instruction (per slot "null"/"val"), the layout the resume function gets, and its locals."""

    def __init__(self, index, actual, layout, names):
        self.index = index
        self.actual = actual
        self.layout = layout
        self.names = names


def step_code(orig, index, ins, pre_layout, consumed, conts, local_names, kw_names):
    """The step function's code: parameters (resume callables..., stack values..., locals...);
    re-pushes the stack, runs ``ins`` (abstract instruction of ``orig``), then calls the
    continuation's resume callable with the locals and the new stack, and returns its result."""
    key = (orig, index, tuple(pre_layout), tuple(local_names), kw_names,
           tuple((c.index, tuple(c.actual), tuple(c.layout), tuple(c.names)) for c in conts))
    with _LOCK:
        hit = _STEP_CODES.get(key)
        if hit is not None:
            return hit
        loc = ins.location
        b = Bytecode()
        _set_meta(b, orig, orig.co_name)
        rnames = [f"___resume{i}" for i in range(len(conts))]
        snames = _stack_names(pre_layout)
        b.argnames = rnames + snames + list(local_names)
        b.argcount = len(b.argnames)
        b.flags = inspect.CO_OPTIMIZED | inspect.CO_NEWLOCALS
        b.append(Instr("RESUME", 0, location=loc))
        si = iter(snames)
        depth = len(pre_layout)
        for i, kind in enumerate(pre_layout):
            if kind == "null":
                b.append(Instr("PUSH_NULL", location=loc))
            else:
                b.append(Instr("LOAD_FAST", next(si), location=loc))
                if kind == "iter" and i >= depth - consumed:
                    b.append(Instr("GET_ITER", location=loc))
        name = ins.name
        jump_label = Label() if len(conts) == 2 else None
        if name == "CALL":
            b.extend(bc.call_preamble(ins.arg, kw_names, loc))
        if name in ("LOAD_ATTR", "LOAD_METHOD"):
            _, attr = bc.load_attr_arg(ins)
            b.append(bc.load_attr(attr, loc))
        elif jump_label is not None:
            b.append(Instr(bc.forward_jump(name), jump_label, location=loc))
        else:
            b.append(ins.copy())
        for ci, c in enumerate(conts):
            if ci == 1:
                b.append(jump_label)
            tnames = []
            for i in reversed(range(len(c.actual))):
                t = f"___tmp{ci}_{i}"
                b.append(Instr("STORE_FAST", t, location=loc))
                tnames.append((i, t))
            tnames.reverse()
            args = [Instr("LOAD_FAST", n, location=loc) for n in c.names]
            args += [Instr("LOAD_FAST", t, location=loc) for (i, t) in tnames if c.actual[i] != "null"]
            pre, post = _call_seq(len(args), rnames[ci], loc)
            b.extend(pre)
            b.extend(args)
            b.extend(post)
            b.append(Instr("RETURN_VALUE", location=loc))
        try:
            code = b.to_code()
        except Exception as e:
            raise InvalidGeneratedCode(f"the generated step code is invalid ({type(e).__name__}: {e})") from None
        check_generated_code(code, orig, index)
        _STEP_CODES[key] = code
        _STEP_CODE_SET.add(code)
        return code


# -- which instructions can be stepped on their own ----------------------------------------------------
# name -> (consumed, pushed) for single-successor instructions (pushed values are never NULL)
def _simple_effect(ins):
    n, a = ins.name, ins.arg
    if n == "CALL":
        return a + 2, 1
    if n == "CALL_KW":
        return a + 3, 1
    if n == "CALL_FUNCTION_EX":
        return 3 + (a & 1 if isinstance(a, int) else 0), 1
    if n in ("BINARY_OP", "BINARY_SUBSCR", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "FORMAT_WITH_SPEC"):
        return 2, 1
    if n in ("UNARY_NEGATIVE", "UNARY_NOT", "UNARY_INVERT", "UNARY_POSITIVE", "TO_BOOL", "GET_ITER",
             "FORMAT_SIMPLE", "CONVERT_VALUE", "CALL_INTRINSIC_1"):
        return 1, 1
    if n == "FORMAT_VALUE":
        return (2 if isinstance(a, int) and a & 0x04 else 1), 1
    if n == "BUILD_STRING" or n == "BUILD_SET":
        return a, 1
    if n == "BINARY_SLICE":
        return 3, 1
    if n == "STORE_ATTR":
        return 2, 0
    if n == "STORE_SUBSCR":
        return 3, 0
    if n == "DELETE_SUBSCR":
        return 2, 0
    if n == "STORE_SLICE":
        return 4, 0
    if n == "STORE_GLOBAL":
        return 1, 0
    if n == "BEFORE_WITH":
        return 1, 2
    if n == "UNPACK_SEQUENCE":
        return 1, a
    if n in ("LIST_APPEND", "LIST_EXTEND", "SET_ADD", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE"):
        return 1, 0  # (mutates the container deeper in the stack: a real object passed through)
    if n == "MAP_ADD":
        return 2, 0
    return None


_COND_JUMPS = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE")


def plan_step(orig, index, ins, layout, live, bound):
    """Continuations for stepping ``ins`` at ``index`` with stack ``layout``, or None when it
    cannot be stepped alone (then the frame resumes *at* it and runs the rest eagerly)."""
    insts, labels, _ = _instructions(orig)
    name = bc.opname(ins)

    def names_at(j):
        return [n for n in _ordered(orig, live[j]) if n in bound]

    if name in ("LOAD_ATTR", "LOAD_METHOD"):
        is_method, _ = bc.load_attr_arg(ins)
        if not layout or layout[-1] == "null":
            return None
        base = layout[:-1]
        if is_method:
            lay = base + bc.method_layout()
        else:
            lay = base + ["val"]
        return 1, [Continuation(index + 1, base + ["val"], lay, names_at(index + 1))]
    if name in _COND_JUMPS:
        if not layout or layout[-1] != "val" or bc.jump_needs_exact_bool(name):
            # 3.13's jumps need an exact bool: the translator breaks at the COMPARE_OP/TO_BOOL instead
            return None
        base = layout[:-1]
        t = labels[ins.arg]
        return 1, [Continuation(index + 1, base, base, names_at(index + 1)),
                   Continuation(t, base, base, names_at(t))]
    if name in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
        if not layout or layout[-1] != "val":
            return None
        base = layout[:-1]
        t = labels[ins.arg]
        return 1, [Continuation(index + 1, base, base, names_at(index + 1)),
                   Continuation(t, layout, layout, names_at(t))]
    eff = _simple_effect(ins)
    if eff is None:
        return None
    consumed, pushed = eff
    if consumed > len(layout):
        return None
    if name not in ("CALL", "CALL_KW", "CALL_FUNCTION_EX") and "null" in layout[len(layout) - consumed:]:
        return None
    after = layout[:len(layout) - consumed] + ["val"] * pushed
    return consumed, [Continuation(index + 1, after, after, names_at(index + 1))]


def _ordered(orig, names):
    order = {n: i for i, n in enumerate(orig.co_varnames + orig.co_cellvars)}
    return sorted((n for n in names if n in order), key=order.__getitem__)


# -- run-time objects ------------------------------------------------------------------------------------
class _Depth(threading.local):
    n = 0


_DEPTH = _Depth()
#: resume functions nested deeper than this run eagerly (a Python loop on a tensor condition
#: chains one resume call per iteration)
MAX_RESUME_DEPTH = 48


class ResumeCaller:
    """Calls a resume function through the capture cache (captured on its first call)."""

    __slots__ = ("fn", "config", "name")

    def __init__(self, fn, config, name):
        self.fn = fn
        self.config = config
        self.name = name

    def __call__(self, *args):
        if _DEPTH.n >= MAX_RESUME_DEPTH:
            return self.fn(*args)
        from .dispatch import call_captured
        _DEPTH.n += 1
        try:
            return call_captured(self.fn, args, {}, self.config, name=self.name)
        finally:
            _DEPTH.n -= 1


class ResumePlan:
    """What a compiled entry does after its prefix graph (see the module docstring)."""

    def __init__(self, stack_recipes, local_recipes, effects, step_fn, callers, tail_fn):
        self.stack_recipes = stack_recipes  # per non-NULL stack slot
        self.local_recipes = local_recipes
        self.effects = effects  # side effects of the prefix (capture.side_effects), as recipes
        self.step_fn = step_fn
        self.callers = callers
        self.tail_fn = tail_fn

    def run(self, outs, flat):
        memo = {}
        stack = [build(r, outs, flat, memo) for r in self.stack_recipes]
        local_vals = [build(r, outs, flat, memo) for r in self.local_recipes]
        if self.effects:  # before the breaking instruction runs, after the state is read
            apply_effects(self.effects, outs, flat, memo)
        if self.step_fn is not None:
            return self.step_fn(*self.callers, *stack, *local_vals)
        return self.tail_fn(*local_vals, *stack)


class RuntimeValueVariable(Variable):
    """A resume-function argument that is run-time data (a numpy array, a tensor's bound method,
    an iterator): guarded by type only; anything done with it breaks (runs eagerly). Live after
    the graph, it is the call's own argument again (read through its ``source``)."""

    def __init__(self, value, source):
        self.source = source  # an argument's (capture.sources)
        self.type = type(value)

    def reconstruct(self, rec):
        return rec.source(self.source)

    def python_type(self):
        return self.type

    def _brk(self, *a, **k):
        raise GraphBreak(f"using a {self.type.__name__} computed at run time (after an earlier graph break)",
                         hint="this part runs eagerly")

    getattr = setattr = call = iterate = truth = getitem = length = realize = _brk

    def describe(self):
        return f"run-time {self.type.__name__}"


def make_function(code, fn):
    """A function object for generated ``code`` with ``fn``'s globals and closure."""
    closure = fn.__closure__ if code.co_freevars else None
    f = types.FunctionType(code, fn.__globals__, code.co_name, None, closure)
    f.__qualname__ = getattr(code, "co_qualname", code.co_name)
    return f



# -- planning a break -------------------------------------------------------------------------------------
def base_name(qual):
    return qual.split(" (resumed at line ")[0]


def make_plan(root, fn, config, qual, tracer):
    """Build the :class:`ResumePlan` for a root translator stopped before its breaking
    instruction (``root.ip``). Returns (plan, graph outputs). Raises NotResumable."""
    from .translator import IteratorVariable, NullVariable
    from .variables import Box
    from .variables.generators import GeneratorVariable
    if tracer.handled_exception is not None:
        # (sys.exception() and the handler's exception on the value stack have no rebuild: the
        # resumed code would run the rest of the handler without the exception it handles)
        raise NotResumable("the break is inside an except/finally handler, while an exception is being "
                           "handled: the frame runs eagerly")
    code = root.code
    orig, oidx = origin_of(code, root.ip)
    insts, labels, user_try = _instructions(orig)
    ins = insts[oidx]
    if not isinstance(ins, Instr):
        raise NotResumable("break at a pseudo-instruction")
    live = liveness(orig)
    layout, stack_vars = [], []
    for v in root.stack:
        if isinstance(v, NullVariable):
            layout.append("null")
        elif isinstance(v, IteratorVariable) and not isinstance(v, GeneratorVariable):
            if v.lazy:
                raise NotResumable(f"a {v.describe()} over another iterator is live at the break")
            layout.append("iter")
            stack_vars.append(v)
        else:
            layout.append("val")
            stack_vars.append(v)
    cellvars = set(orig.co_cellvars)
    bound = {}
    for name, v in root.locals.items():
        if name in cellvars:
            if not isinstance(v, Box):
                raise NotResumable(f"cell variable {name!r} holds a plain value at the break")
            if v.value is not None:
                bound[name] = v.value
        elif name in orig.co_freevars:
            continue
        elif isinstance(v, Box):
            raise NotResumable(f"local {name!r} holds a cell at the break")
        elif name in orig.co_varnames:
            bound[name] = v
    always = set(cellvars)
    if orig.co_argcount or orig.co_kwonlyargcount:
        always.add(orig.co_varnames[0])  # zero-argument super() reads the first argument

    def names_at(j):
        return [n for n in _ordered(orig, live[j] | always) if n in bound]

    planned = None
    if not user_try[oidx]:
        planned = plan_step(orig, oidx, ins, layout, live, bound)
        if planned is not None:
            for c in planned[1]:  # plan_step's names ignore cells and super(): recompute
                c.names = names_at(c.index)
    rec = Recipes(root.builder, tracer.arg_paths, tracer.free_cells)

    def stack_recipe(v):
        if isinstance(v, IteratorVariable) and not isinstance(v, GeneratorVariable):
            return ("tuple", [rec.of(x) for x in v.items[v.pos:]], None, rec.memo_key())
        return rec.of(v)

    stack_recipes = [stack_recipe(v) for v in stack_vars]
    effects = tracer.side_effects.recipes(rec, tracer.changed_cells())
    base = base_name(qual)
    if planned is not None:
        consumed, conts = planned
        step_names = _ordered(orig, set().union(*[set(c.names) for c in conts]))
        callers = []
        for c in conts:
            rcode = resume_code(orig, c.index, c.layout, c.names)
            line = RESUME_INFO[rcode].line
            callers.append(ResumeCaller(make_function(rcode, fn), config, f"{base} (resumed at line {line})"))
        kw = tuple(root.kw_names) if bc.opname(ins) == "CALL" else ()
        scode = step_code(orig, oidx, ins, layout, consumed, conts, step_names, kw)
        step_fn = types.FunctionType(scode, fn.__globals__, scode.co_name)
        local_recipes = [rec.of(bound[n]) for n in step_names]
        plan = ResumePlan(stack_recipes, local_recipes, effects, step_fn, callers, None)
    else:
        k = oidx
        if ins.name == "CALL" and bc.CALL_PREAMBLE_NAMES:
            # resume at the call's PRECALL / KW_NAMES (they don't change the stack)
            j = k - 1
            while j >= 0 and isinstance(insts[j], Instr) and insts[j].name in bc.CALL_PREAMBLE_NAMES:
                k = j
                j -= 1
            if k != oidx and root.kw_names and not any(
                    isinstance(insts[i], Instr) and insts[i].name == "KW_NAMES" for i in range(k, oidx)):
                raise NotResumable("keyword names of a call are pending at the break")
        names = names_at(k)
        rcode = resume_code(orig, k, layout, names)
        tail = make_function(rcode, fn)
        local_recipes = [rec.of(bound[n]) for n in names]
        plan = ResumePlan(stack_recipes, local_recipes, effects, None, [], tail)
    return plan, rec.outputs
