"""The symbolic bytecode interpreter: runs a frame's bytecode over symbolic values and records
the registered ops it reaches into the IR.

One handler method per (normalised) opcode name; version differences come from
``bytecode_compat``. Python-valued control flow is followed at trace time (loops unrolled);
anything that needs run-time data raises :class:`GraphBreak` with a reason and the user's line.
Calls into user functions, methods, closures, properties and sub-Cells' ``construct`` are
inlined; generators (and generator expressions) run lazily, one step per ``next()``, in a
suspended translator of their own (``variables.generators``). Exceptions the
traced code raises (``raise``, a missing key, ``1 / 0`` on constants, an unbound name...) are
:class:`~capture.errors.UserException`: the translator unwinds to the handler named by the
frame's exception table (the caller's frame when the callee has none), pushes the exception as
CPython would and traces the ``except``/``finally``/``with`` cleanup code like any other, so
try/except/else/finally, ``raise ... from``, re-raise and ``with`` on Python context managers
(``contextlib``'s included; ``@contextmanager`` ones in two halves, see variables/ctxmanagers.py)
need no graph break. An exception no traced handler catches is a graph break at the root's
instruction (the eager run raises it with its real traceback); a tensor shape/dtype error inside
a ``try`` is a break too (the eager run lets the handler see it). Importing an already-imported
module is allowed. Locations reported to the user (node locations, breaks, errors) are those of the
innermost *user* frame: inlined framework code points at the user's call.
"""
from __future__ import annotations

import builtins
import contextlib
import inspect
import linecache
import os
import sys
import types

from bytecode import Bytecode, Instr, Label, TryBegin, TryEnd

from graph.errors import is_internal_file

from . import bytecode_compat as bc
from . import code_decode
from .builder import GraphBuilder
from .errors import CaptureUserError, GraphBreak, MissingAttribute, UserException
from .guards import GuardSet
from .side_effects import SideEffects
from .sources import Attr, Item
from .variable_builder import wrap_attribute, wrap_guarded, wrap_value
from .variables import (NULL, Box, BoxVariable, ConstantVariable, DictVariable, IteratorVariable,
                        ListVariable, ModuleVariable, NestedFunctionVariable, NullVariable, SetVariable,
                        SliceVariable, TensorVariable, TupleVariable, Variable)
from .variables.base import BINARY_OPS, COMPARE_OPS, NoPythonValue
from .variables.exceptions import ExceptionVariable, plain_exception_class, python_init_exception_class
from .variables.functions import is_framework_callable
from .variables.objects import NewObjectVariable
from .variables.streams import StringIOVariable
from .variables.base import NotResumable
from .variables.deques import DequeVariable
from .variables.containers import ListIteratorVariable, check_mutable, dict_key, has_dict_key
from .variables.generators import YIELDED, GeneratorVariable
from .variables.object_dicts import ObjectDictVariable
from .variables.dict_views import DictIteratorVariable, DictViewVariable

MAX_INSTRUCTIONS = 500_000
MAX_INLINE_DEPTH = 64
STOPPED = object()  # returned by a root translator stopped before a graph break
_CODE_CACHE: dict[types.CodeType, tuple] = {}


def _instructions(code):
    """(instructions, label -> index, in_user_try flags) of a code object, cached. The
    instructions are ``list(Bytecode.from_code(code))``, built by ``code_decode`` (the same
    objects, several times faster) where it can, by the ``bytecode`` package otherwise."""
    hit = _CODE_CACHE.get(code)
    if hit is None:
        decoded = code_decode.decode(code)
        if decoded is None:
            try:
                insts = list(Bytecode.from_code(code))
            except IndexError as e:
                # the ``bytecode`` package (0.16) maps 3.13's fast-locals indices by name: a free
                # variable named like a local -- a 3.13 inlined comprehension's hidden iteration
                # cell ``[lambda: x for x in ...]`` inside a function that also closes over an
                # outer ``x`` -- has its own slot, which the package's table lacks. This frame
                # (or call) runs in Python instead of failing inside capture.
                raise GraphBreak(f"the bytecode of {getattr(code, 'co_qualname', code.co_name)} cannot be "
                                 f"decoded ({type(e).__name__}: {e}); a free variable sharing a local's name?",
                                 hint="the call runs eagerly") from None
        else:
            insts = decoded[0]
            _DECODED[code] = decoded
        labels = {}
        for i, ins in enumerate(insts):
            if isinstance(ins, Label):
                labels[ins] = i + 1
        hit = (insts, labels, _user_try_flags(insts, labels))
        _CODE_CACHE[code] = hit
    return hit


def _user_try_flags(insts, labels):
    """For each instruction: is it covered (directly, or through compiler cleanup handlers that
    re-raise) by a user ``try``/``with`` handler? Exception-table ranges never overlap, so the
    handler of an instruction is the one of the last TryBegin before it not yet ended."""
    handler_of = [None] * len(insts)
    current = None
    for i, ins in enumerate(insts):
        if isinstance(ins, TryBegin):
            current = ins.target
        elif isinstance(ins, TryEnd):
            current = None
        handler_of[i] = current
    memo = {}

    def user(label, depth=0):
        if label is None or depth > 50:
            return False
        if label not in memo:
            memo[label] = False
            j = labels[label]
            while j < len(insts) and not isinstance(insts[j], Instr):
                j += 1
            if j < len(insts):
                memo[label] = insts[j].name == "PUSH_EXC_INFO" or user(handler_of[j], depth + 1)
        return memo[label]

    return [user(h) for h in handler_of]


_HANDLERS: dict = {}
#: code -> what code_decode.decode returned for the instruction list _instructions cached
_DECODED: dict = {}
#: packages whose context managers a `with` enters eagerly (a break) instead of tracing them
_FRAMEWORK_PACKAGES = frozenset({"runtime", "graph", "codegen", "capture"})


def _handler_table(code, insts):
    """Per abstract instruction: (handler label, stack depth, push lasti) of the exception-table
    entry covering it, or None. The handler comes from the ``bytecode`` package's TryBegin (its
    ranges never overlap); the depth and lasti flag from the code object's real exception table
    (the package does not carry the depth into abstract instructions): the abstract instructions
    are matched one to one with the code's real ones (EXTENDED_ARG/CACHE aside; ``code_decode``
    knows their offsets when it decoded ``insts`` itself). When they do not match, no handler is
    known and a raise inside a ``try`` is a graph break as before."""
    hit = _HANDLERS.get(code)
    if hit is not None and len(hit) == len(insts):
        return hit
    decoded = _DECODED.pop(code, None)  # needed once: the table is cached below
    if decoded is not None and decoded[0] is insts:
        offsets, entries = decoded[1], decoded[2]
    else:
        offsets = code_decode.instruction_offsets(code, insts)
        entries = code_decode.exception_entries(code) if offsets is not None else ()
    if offsets is None:
        hit = [None] * len(insts)
    else:
        hit = code_decode.handler_table(insts, offsets, entries)
    _HANDLERS[code] = hit
    return hit


class Tracer:
    """State shared by the root frame and every inlined frame of one capture."""

    def __init__(self, name: str):
        self.builder = GraphBuilder(name)
        self.guards = GuardSet()
        self.guards.compute_precision()
        self.instruction_count = 0
        self.max_instructions = MAX_INSTRUCTIONS
        self.call_site = None  # the user's line that called the captured frame (if known)
        self.wrapping: set[int] = set()  # ids of containers being wrapped (a cycle must not recurse)
        #: id(tensor) -> (its Variable, guard expression, description) of each tensor argument
        #: wrapped so far: an aliased argument is that Variable (see variable_builder)
        self.tensor_args: dict[int, tuple] = {}
        # Closure cells of Python functions outside the frame, read or written while tracing: one
        # Box per real cell (every function sharing the cell sees its writes); changed ones are
        # written back after the graph runs (nonlocal writes are side effects of the frame).
        self.cell_boxes: dict[int, tuple] = {}  # id(cell) -> (cell, Box, value at entry)
        self.free_cells: dict[int, object] = {}  # id(Box) -> cell (what resume recipes rebuild)
        self.side_effects = SideEffects()
        self.containers: dict[int, tuple] = {}  # id(outside list/dict) -> (it, its Variable)
        # functions whose code was inlined (a saved entry checks their code is unchanged)
        self.inlined: list = []
        # the exception being handled (sys.exception()) in the traced code: set by PUSH_EXC_INFO,
        # restored by POP_EXCEPT; thread state in CPython, so shared by inlined frames
        self.handled_exception = None
        # generators made by the traced code, counted in creation order (the same in every
        # translation of one call): the serial of one that escapes the frame once started is
        # given to a second translation, which breaks where it is first started (compile_policy)
        self.generators_made = 0
        self.break_on_start = None

    def box_for_cell(self, tx, cell, name):
        """The Box standing for the real closure ``cell`` (guarded on its contents)."""
        known = self.cell_boxes.get(id(cell))
        if known is not None:
            return known[1]
        try:
            contents = cell.cell_contents
        except ValueError:
            # At the root the frame cannot start without it; in a callee the call runs eagerly.
            raise GraphBreak(f"closure variable {name!r} is not bound yet",
                             resumable=tx.depth > 0) from None
        box = Box(tx.guard_and_wrap(Attr(tx.guards.obj(cell), "cell_contents"), contents, f"closure variable {name}"))
        self.cell_boxes[id(cell)] = (cell, box, box.value)
        self.free_cells[id(box)] = cell
        return box

    def changed_cells(self):
        """[(cell, new value Variable)] for closure cells the traced code wrote."""
        return [(cell, box.value) for cell, box, initial in self.cell_boxes.values()
                if box.value is not None and box.value is not initial]


class InstructionTranslator:
    def __init__(self, tracer: Tracer, code, f_globals, local_vars: dict, boxes: dict, depth=0,
                 self_var=None, cls=None, parent=None):
        self.tracer = tracer
        self.builder = tracer.builder
        self.guards = tracer.guards
        self.code = code
        self.f_globals = f_globals
        self.locals = local_vars  # name -> Variable, or Box for cells and free variables
        self.locals.update(boxes)
        self.depth = depth
        self.self_var = self_var
        self.cls = cls
        self.parent = parent
        self.stack: list[Variable] = []
        self.insts, self.labels, self.in_user_try = _instructions(code)
        self.handlers = _handler_table(code, self.insts)
        self.ip = 0
        self.kw_names = ()
        self.loc = (code.co_filename, code.co_firstlineno,
                    linecache.getline(code.co_filename, code.co_firstlineno).strip())
        self.return_value = None
        # a generator's frame (run lazily by a GeneratorVariable): stops at each yield with the
        # yielded value here and ``return_value`` set to ``generators.YIELDED``
        self.is_generator = False
        self.yielded = None
        # locations reported to the user (node locs, errors, breaks) are those of the innermost
        # *user* frame: framework code inlined from runtime/graph/... points at the user's call
        self.is_user = not is_internal_file(code.co_filename)
        self.user_frame = self if self.is_user else (parent.user_frame if parent is not None else None)
        # root frame only: number of instructions begun, and where to stop (re-translation of
        # the prefix before a graph break: stop before the ``stop_at``-th instruction)
        self.exec_count = 0
        self.stop_at = None
        # root frame only: where each try region (by handler label) was last entered while no
        # exception was being handled, as (index, exec_count); and the entry of the try statement
        # whose handler runs now. A break inside a handler re-translates up to that entry (the
        # try statement then runs eagerly in a resume function: the handler's state, i.e. the
        # exception being handled, sys.exc_info() and the handler's stack, has no rebuild)
        self.region_entry = {}
        self.current_region = None
        self.handling_entry = None
        # a generator run in steps (start_generator): it stops at each yield
        self.pause_at_yield = False
        self.paused = False
        self.paused_at = None

    def user_loc(self):
        """(file, line, source) of the innermost user frame's current line."""
        if self.user_frame is not None:
            return self.user_frame.loc
        return self.tracer.call_site or self.loc

    # -- running ---------------------------------------------------------------------------------
    def run(self) -> Variable:
        insts = self.insts
        tracer = self.tracer
        graph = self.builder.graph
        while True:
            ins = insts[self.ip]
            self.ip += 1
            if not isinstance(ins, Instr):
                continue
            here = self.ip - 1
            if self.stop_at is not None and self.exec_count + 1 == self.stop_at:
                self.ip = here
                return STOPPED
            self.exec_count += 1
            if self.parent is None:
                entry = self.handlers[here]
                region = entry[0] if entry is not None else None
                if region is not None and region is not self.current_region and tracer.handled_exception is None:
                    self.region_entry[region] = (here, self.exec_count)
                self.current_region = region
            try:
                tracer.instruction_count += 1
                if tracer.instruction_count > tracer.max_instructions:
                    raise GraphBreak("the traced code runs too many instructions (an unbounded loop?)",
                                     resumable=False)
                if ins.lineno is not None and ins.lineno != self.loc[1]:
                    fn = self.code.co_filename
                    self.loc = (fn, ins.lineno, linecache.getline(fn, ins.lineno).strip())
                graph.current_loc = self.user_loc()
                handler = getattr(self, bc.opname(ins), None)
                if handler is None:
                    raise GraphBreak(f"the bytecode instruction {ins.name} is not supported by graph capture")
                handler(ins)
            except UserException as e:
                if not e.chained:
                    self._chain(e)
                if self.parent is None and tracer.handled_exception is None and self.handlers[here] is not None:
                    self.handling_entry = self.region_entry.get(self.handlers[here][0])
                if self._unwind(e.error, here):
                    continue  # tracing goes on in the frame's own handler
                if self.parent is None:  # no traced handler catches it: the frame raises it
                    err = e.error
                    e.reason = (f"{type(err).__name__} raised inside the captured region and not caught there"
                                + (f": {str(err).splitlines()[0]}" if str(err) else ""))
                    e.args = (e.reason,)
                self._mark_break(e, here)
                raise
            except GraphBreak as e:
                if self.parent is None and e.root_index is None:
                    if tracer.handled_exception is not None and self.handling_entry is not None:
                        # inside a handler of this frame: resume at its try statement's entry
                        e.root_index, e.root_count = self.handling_entry
                        e.in_handler = True
                    else:
                        e.root_index, e.root_count = here, self.exec_count
                if e.loc is None:
                    if not self.is_user:
                        e.reason = (f"{e.reason} (in {getattr(self.code, 'co_qualname', self.code.co_name)} at "
                                    f"{os.path.basename(self.loc[0])}:{self.loc[1]})")
                        e.args = (e.reason,)
                    if self.user_frame is not None or self.parent is None:
                        e.loc = self.user_loc()
                raise
            except CaptureUserError as e:
                if self.in_user_try[here]:
                    # the user's except/with may handle it: let the eager run decide
                    raise GraphBreak(f"{type(e.error).__name__} raised inside a try/with block while tracing: "
                                     f"{str(e.error).splitlines()[0]}",
                                     hint="the frame runs eagerly so its exception handler runs",
                                     loc=self.user_loc())
                raise
            except Exception as e:  # an internal error: remember the innermost user line for the report
                if getattr(e, "capture_loc", None) is None:
                    try:
                        e.capture_loc = self.user_loc()
                    except AttributeError:
                        pass
                raise
            if self.return_value is not None:
                return self.return_value
            if self.paused:
                return STOPPED

    # -- a generator frame run in steps (contextlib.contextmanager: variables/ctxmanagers.py) ----------
    def start_generator(self, fn, args, kwargs):
        """A paused inlined frame of generator function ``fn`` (not started)."""
        code = fn.__code__
        if not code.co_flags & inspect.CO_GENERATOR:
            raise GraphBreak(f"@contextmanager on {fn.__qualname__}, which is not a generator function")
        if self.depth >= MAX_INLINE_DEPTH:
            raise GraphBreak("call depth too large while inlining (recursion?)")
        self.tracer.inlined.append(fn)
        if not is_framework_callable(fn):
            g, o = self.guards, self.guards.obj(fn)
            g.identity(Attr(o, "__code__"), code, f"{fn.__qualname__}.__code__")
            g.python_value(Attr(o, "__defaults__"), fn.__defaults__, f"{fn.__qualname__}.__defaults__")
            g.python_value(Attr(o, "__kwdefaults__"), fn.__kwdefaults__, f"{fn.__qualname__}.__kwdefaults__")
        boxes = {name: self.tracer.box_for_cell(self, cell, name)
                 for name, cell in zip(code.co_freevars, fn.__closure__ or ())}
        local_vars = bind_arguments(self, code, list(args), dict(kwargs), fn.__defaults__, fn.__kwdefaults__)
        sub = InstructionTranslator(self.tracer, code, fn.__globals__, local_vars, boxes, self.depth + 1,
                                    self_var=args[0] if args else None, parent=self)
        sub.is_generator = True
        sub.pause_at_yield = True
        return sub

    def run_generator_step(self, sent, throw=None):
        """Run a paused generator frame to its next ``yield`` (returns the yielded Variable) or
        to its end (returns None). ``sent`` is the value ``yield`` evaluates to (None at the
        start), ``throw`` an exception raised at the ``yield`` instead. An exception the
        generator does not handle propagates as a UserException."""
        if self.return_value is not None:
            return None
        if throw is not None:
            if not self._unwind(ExceptionVariable(throw), self.paused_at):
                raise UserException(throw)
        elif sent is not None:
            self.push(sent)
        self.paused = False
        try:
            self.run()
        finally:
            self.builder.graph.current_loc = (self.parent or self).user_loc()
        if self.paused:
            return self.yielded
        return None

    def _mark_break(self, e, here):
        """Where an exception no traced handler catches breaks: the root's instruction."""
        if self.parent is None and e.root_index is None:
            e.root_index, e.root_count = here, self.exec_count
        if e.loc is None and (self.user_frame is not None or self.parent is None):
            e.loc = self.user_loc()

    def _unwind(self, error, here):
        """CPython's exception unwinding for ``error`` raised by instruction ``here``: the
        exception-table entry covering it names the handler, the stack depth to pop to and
        whether the raising instruction's offset is pushed (``lasti``, for ``finally`` cleanup).
        Returns False when no handler of this frame covers it (the caller's frame may)."""
        entry = self.handlers[here]
        if entry is None:
            return False
        target, depth, lasti = entry
        if target not in self.labels or depth > len(self.stack):
            return False
        del self.stack[depth:]
        self.kw_names = ()  # a pending KW_NAMES dies with the call that raised
        if lasti:
            self.push(ConstantVariable(here))
        self.push(error if isinstance(error, Variable) else ExceptionVariable(error))
        self.jump(target)
        return True

    def push(self, v):
        self.stack.append(v)

    def pop(self):
        return self.stack.pop()

    def popn(self, n):
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def jump(self, label):
        self.ip = self.labels[label]

    # -- wrapping Python values (capture.variable_builder) -------------------------------------------
    def wrap(self, value, fresh=False, source=None) -> Variable:
        return wrap_value(self, value, fresh, source)

    def wrap_attr(self, owner, name: str, value) -> Variable:
        return wrap_attribute(self, owner, name, value)

    def guard_and_wrap(self, source, value, desc):
        return wrap_guarded(self, source, value, desc)

    def python_value(self, var):
        """The object ``var`` stands for while tracing: its Python object when it has one
        (``Variable.python_value``), else what framework code is handed for it (a SymTensor for
        a tensor, a realized container...); breaks when there is neither."""
        try:
            return var.python_value()
        except NoPythonValue:
            return var.realize(self)

    # -- helpers used by variables ----------------------------------------------------------------------
    def flatten_tensors(self, var):
        if isinstance(var, TensorVariable):
            return [var]
        if isinstance(var, TupleVariable):
            out = []
            for v in var.items:
                out.extend(self.flatten_tensors(v))
            return out
        raise GraphBreak(f"expected tensors, got a {var.describe()}")

    def binary_op(self, opname, a, b):
        if opname.startswith("INPLACE_"):
            done = self._inplace_container_op(opname, a, b)
            if done is not None:
                return done
        fn = BINARY_OPS.get(opname)
        if fn is None:
            raise GraphBreak(f"binary operator {opname} is not supported")
        return self.apply_python_operator(fn, [a, b])

    def _inplace_container_op(self, opname, a, b):
        """``lst += items`` extends the list and ``s |= other`` updates the set in place (every
        name bound to it sees the change), as in Python; None for other operands."""
        import operator
        if opname == "INPLACE_ADD" and isinstance(a, ListVariable):
            check_mutable(self, a, "+=")
            a.items.extend(b.iterate(self))
            return a
        inplace = {"INPLACE_OR": operator.ior, "INPLACE_AND": operator.iand, "INPLACE_SUBTRACT": operator.isub,
                   "INPLACE_XOR": operator.ixor}.get(opname)
        if inplace is not None and isinstance(a, SetVariable) and b.is_const():
            try:
                inplace(a.value, b.value)
            except TypeError as e:
                raise GraphBreak(f"{opname.lower()} raises TypeError at trace time: {e}")
            return a
        return None

    def apply_python_operator(self, fn, args):
        import operator
        symbolic = _symbolic_size_operation(fn, args)
        if symbolic is not None:
            return symbolic
        constant = all(a.is_const() for a in args)
        if constant and not any(_holds_symbolic_size(a) for a in args):
            return self._operator_at_trace_time(fn, args)
        if any(isinstance(a, TensorVariable) for a in args):
            # (``x * n`` with a size n: the op's Python number operand keeps n's expression)
            with symbolic_realize(self):
                operands = [a.realize(self) for a in args]
            return self.wrap(fn(*operands), fresh=True)
        if fn in (operator.eq, operator.ne) and len(args) == 2 and _compared_by_identity(*args):
            # object.__eq__ on both sides (builtin constants return NotImplemented for a foreign
            # object): Python falls back to identity
            return ConstantVariable((args[0] is args[1]) == (fn is operator.eq))
        if len(args) == 2 and isinstance(args[0], TupleVariable) and fn.__name__ in ("add", "iadd"):
            if isinstance(args[1], TupleVariable):
                return type(args[0])(args[0].items + args[1].items)
        if len(args) == 2 and isinstance(args[0], TupleVariable) and fn.__name__ == "mul" and args[1].is_const():
            return type(args[0])(args[0].items * args[1].value)
        if constant:  # (a tuple of sizes compared, say: their values are read)
            return self._operator_at_trace_time(fn, args)
        raise GraphBreak(f"operator {fn.__name__} on {', '.join(a.describe() for a in args)}")

    def _operator_at_trace_time(self, fn, args):
        try:
            out = fn(*[a.value for a in args])
        except Exception as e:
            raise UserException(e, f"{fn.__name__} raised {type(e).__name__} at trace time: {e}",
                                hint="the frame runs eagerly so Python raises the error") from None
        return self.wrap(out, fresh=True)

    def call_variable(self, fn: Variable, args, kwargs):
        if args and isinstance(args[0], ExceptionVariable):
            target = getattr(fn, "fn", None) if getattr(fn, "fn", None) is not None else getattr(fn, "value", None)
            owner = getattr(target, "__objclass__", None)
            if isinstance(owner, type) and issubclass(owner, BaseException) and \
                    isinstance(args[0].value, owner):
                # ``BaseException.__init__(self, ...)`` (a builtin slot of an exception class) on
                # a trace-local exception: run on the very object
                from .variables.exceptions import ExceptionMethodVariable
                bound = target.__get__(args[0].value, type(args[0].value))
                return ExceptionMethodVariable(args[0], getattr(target, "__name__", "method"), bound).call(
                    self, list(args[1:]), dict(kwargs))
        return fn.call(self, list(args), dict(kwargs))

    def current_self(self):
        return self.python_value(self.self_var) if self.self_var is not None else None

    def current_self_var(self):
        return self.self_var

    def current_class(self):
        return self.cls

    # -- inlining -----------------------------------------------------------------------------------------
    def inline_function(self, fn, args, kwargs, make_function=None, made_type=None):
        code = fn.__code__
        self.tracer.inlined.append(fn)
        if not is_framework_callable(fn):
            # a user function's code and defaults may be replaced after tracing (the function
            # object itself is guarded where it was read)
            g, o = self.guards, self.guards.obj(fn)
            g.identity(Attr(o, "__code__"), code, f"{fn.__qualname__}.__code__")
            g.python_value(Attr(o, "__defaults__"), fn.__defaults__, f"{fn.__qualname__}.__defaults__")
            g.python_value(Attr(o, "__kwdefaults__"), fn.__kwdefaults__, f"{fn.__qualname__}.__kwdefaults__")
        boxes = {name: self.tracer.box_for_cell(self, cell, name)
                 for name, cell in zip(code.co_freevars, fn.__closure__ or ())}
        cls = None
        if "__class__" in code.co_freevars:
            cls = fn.__closure__[code.co_freevars.index("__class__")].cell_contents
        return self.inline_code(code, fn.__globals__, args, kwargs, fn.__defaults__, fn.__kwdefaults__,
                                boxes, name=fn.__qualname__, cls=cls,
                                make_function=make_function or (lambda rec: rec.object_recipe(fn)),
                                made_type=made_type)

    def inline_code(self, code, f_globals, args, kwargs, defaults, kwdefaults, closure, name="fn", cls=None,
                    make_function=None, made_type=None):
        """Run ``code`` inline with these arguments; its return value. For a generator function
        (or generator expression): a :class:`GeneratorVariable` whose body runs on demand.
        ``make_function(rec)``: the recipe of the function being called (a generator that
        outlives the graph is made again by calling it); ``made_type``: the type of generator
        object it stands for (a polyfilled ``itertools`` class)."""
        if self.depth >= MAX_INLINE_DEPTH:
            raise GraphBreak("call depth too large while inlining (recursion?)")
        if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE):
            raise GraphBreak(f"calling coroutine function {name}")
        local_vars = bind_arguments(self, code, args, kwargs, defaults, kwdefaults)
        if isinstance(closure, dict):
            boxes = dict(closure)
        else:
            boxes = dict(zip(code.co_freevars, closure))
        self_var = args[0] if args else None
        sub = InstructionTranslator(self.tracer, code, f_globals, local_vars, boxes, self.depth + 1,
                                    self_var=self_var, cls=cls, parent=self)
        if code.co_flags & inspect.CO_GENERATOR:
            sub.is_generator = True
            if make_function is None:
                def make_function(rec):
                    raise NotResumable(f"generator {name} has no function to call again")
            gen = GeneratorVariable(sub, name, make_function, args, kwargs,
                                    made_type=made_type or types.GeneratorType)
            gen.serial = self.tracer.generators_made
            self.tracer.generators_made += 1
            return gen
        try:
            return sub.run()
        except RecursionError:
            # the translator's own Python stack ran out (deep inlining under a low recursion
            # limit): not capture's bug; this call runs in Python, where the limit applies as in eager
            raise GraphBreak(f"inlining {name} needs more Python stack than sys.getrecursionlimit() "
                             f"({sys.getrecursionlimit()}) leaves the translator",
                             hint="the call runs eagerly; raise the limit to capture it") from None
        finally:
            self.builder.graph.current_loc = self.user_loc()

    # ================================ opcode handlers ================================================
    def NOP(self, ins):
        pass

    RESUME = PRECALL = COPY_FREE_VARS = NOP

    def CACHE(self, ins):
        pass

    def PUSH_NULL(self, ins):
        self.push(NULL)

    def POP_TOP(self, ins):
        self.pop()

    def COPY(self, ins):
        self.push(self.stack[-ins.arg])

    def SWAP(self, ins):
        i = ins.arg
        self.stack[-1], self.stack[-i] = self.stack[-i], self.stack[-1]

    def LOAD_CONST(self, ins):
        self.push(self.wrap(ins.arg) if not isinstance(ins.arg, types.CodeType) else ConstantVariable(ins.arg))

    def RETURN_VALUE(self, ins):
        self.return_value = self.pop()

    def RETURN_CONST(self, ins):
        self.return_value = self.wrap(ins.arg)

    # locals, cells and free variables
    # One slot per name, as in CPython's fast locals: a slot holds a Variable, or a Box for a
    # cell / free variable. The slot's kind is dynamic: 3.12+ inlined comprehensions save and
    # restore a cell with LOAD_FAST_AND_CLEAR/STORE_FAST and may use the same name as a plain
    # local in between; 3.13 builds closure tuples with LOAD_FAST on the cell.
    def _box_name(self, arg):
        return arg.name if hasattr(arg, "name") else arg

    def _load_fast(self, arg):
        name = self._box_name(arg)
        v = self.locals.get(name)
        if v is None:
            raise UserException(
                UnboundLocalError(f"cannot access local variable {name!r} where it is not associated with a value"),
                f"local variable {name!r} is not bound (UnboundLocalError at run time)")
        self.push(BoxVariable(v) if isinstance(v, Box) else v)

    def _store_fast(self, arg, v):
        name = self._box_name(arg)
        if isinstance(v, BoxVariable):
            self.locals[name] = v.box
        elif isinstance(v, NullVariable):
            self.locals.pop(name, None)
        else:
            self.locals[name] = v

    def LOAD_FAST(self, ins):
        self._load_fast(ins.arg)

    def LOAD_FAST_AND_CLEAR(self, ins):
        v = self.locals.pop(self._box_name(ins.arg), None)
        self.push(NULL if v is None else BoxVariable(v) if isinstance(v, Box) else v)

    def LOAD_FAST_LOAD_FAST(self, ins):
        a, b = ins.arg
        self._load_fast(a)
        self._load_fast(b)

    def STORE_FAST(self, ins):
        self._store_fast(ins.arg, self.pop())

    def STORE_FAST_LOAD_FAST(self, ins):
        a, b = ins.arg
        self._store_fast(a, self.pop())
        self._load_fast(b)

    def STORE_FAST_STORE_FAST(self, ins):
        a, b = ins.arg
        self._store_fast(a, self.pop())
        self._store_fast(b, self.pop())

    def DELETE_FAST(self, ins):
        self.locals.pop(self._box_name(ins.arg), None)

    def MAKE_CELL(self, ins):
        name = self._box_name(ins.arg)
        cur = self.locals.get(name)
        self.locals[name] = Box(None if isinstance(cur, Box) else cur)

    def _box(self, name):
        box = self.locals.get(name)
        if not isinstance(box, Box):
            box = self.locals[name] = Box(box)
        return box

    def LOAD_CLOSURE(self, ins):
        self.push(BoxVariable(self._box(self._box_name(ins.arg))))

    def LOAD_DEREF(self, ins):
        name = self._box_name(ins.arg)
        box = self.locals.get(name)
        if not isinstance(box, Box) or box.value is None:
            raise GraphBreak(f"free variable {name!r} is not bound (NameError at run time)")
        self.push(box.value)

    def STORE_DEREF(self, ins):
        self._box(self._box_name(ins.arg)).value = self.pop()

    def DELETE_DEREF(self, ins):
        self._box(self._box_name(ins.arg)).value = None

    # globals
    def LOAD_GLOBAL(self, ins):
        push_null, name = bc.load_global_arg(ins)
        var = self.read_global(self.f_globals, name, f"global {name}")
        if var is None:
            if not hasattr(builtins, name):
                # NameError, as long as neither the globals nor the builtins gain the name
                g = self.guards
                g.absent(g.obj(self.f_globals), name, f"global {name} is not defined")
                g.absent(g.obj(builtins.__dict__), name, f"builtin {name} is not defined")
                raise UserException(NameError(f"name {name!r} is not defined", name=name),
                                    f"name {name!r} is not defined")
            # a global defined later with this name would shadow the builtin
            self.guards.absent(self.guards.obj(self.f_globals), name, f"global {name} is the builtin")
            value = getattr(builtins, name)
            # ... and the builtin is the one traced (a program may replace ``builtins.print``)
            self.guards.identity(Item(self.guards.obj(builtins.__dict__), name), value, f"builtin {name}")
            var = self.wrap(value)
        if push_null and not bc.NULL_AFTER_CALLABLE:
            self.push(NULL)
        self.push(var)
        if push_null and bc.NULL_AFTER_CALLABLE:
            self.push(NULL)

    def read_global(self, d, name, desc):
        """``d[name]`` of a module's globals, guarded like a global (or what the frame has stored
        there, ``global X; X = ...``); None when the module has no such name."""
        written = self.tracer.side_effects.written_global(d, name)
        if written is not None:
            return written
        if name not in d:
            return None
        return self.guard_and_wrap(Item(self.guards.obj(d), name), d[name], desc)

    def STORE_GLOBAL(self, ins):
        self.tracer.side_effects.set_global(self.f_globals, ins.arg, self.pop())

    # attributes
    def LOAD_ATTR(self, ins):
        is_method, name = bc.load_attr_arg(ins)
        obj = self.pop()
        attr = obj.getattr(self, name)
        if is_method:
            if bc.NULL_AFTER_CALLABLE:
                self.push(attr)
                self.push(NULL)
            else:
                self.push(NULL)
                self.push(attr)
        else:
            self.push(attr)

    LOAD_METHOD = LOAD_ATTR

    def LOAD_SUPER_ATTR(self, ins):
        is_method, two_args, name = ins.arg if isinstance(ins.arg, tuple) and len(ins.arg) == 3 else (True, True, ins.arg)
        self_var = self.pop()
        cls_var = self.pop()
        self.pop()  # the global `super`
        cls = self.python_value(cls_var)
        obj = self.python_value(self_var)
        attr = getattr(super(cls, obj), name)
        from .variables.functions import UserFunctionVariable
        if isinstance(self_var, ExceptionVariable) and not isinstance(attr, types.MethodType) \
                and getattr(attr, "__self__", None) is obj:
            from .variables.exceptions import ExceptionMethodVariable  # super().__init__(msg)
            var = ExceptionMethodVariable(self_var, name, attr)
        elif isinstance(attr, types.MethodType) and not is_framework_callable(attr):
            var = UserFunctionVariable(attr.__func__, self_var)
        else:
            var = self.wrap(attr)
        if is_method:
            if bc.NULL_AFTER_CALLABLE:
                self.push(var)
                self.push(NULL)
            else:
                self.push(NULL)
                self.push(var)
        else:
            self.push(var)

    def STORE_ATTR(self, ins):
        obj = self.pop()
        value = self.pop()
        obj.setattr(self, ins.arg, value)

    # operators
    def BINARY_OP(self, ins):
        b = self.pop()
        a = self.pop()
        self.push(self.binary_op(bc.binary_op_name(ins.arg), a, b))

    def UNARY_NEGATIVE(self, ins):
        import operator
        self.push(self.apply_python_operator(operator.neg, [self.pop()]))

    def UNARY_POSITIVE(self, ins):  # 3.11 (3.12+ use CALL_INTRINSIC_1 INTRINSIC_UNARY_POSITIVE)
        import operator
        self.push(self.apply_python_operator(operator.pos, [self.pop()]))

    def UNARY_INVERT(self, ins):
        import operator
        self.push(self.apply_python_operator(operator.invert, [self.pop()]))

    def UNARY_NOT(self, ins):
        self.push(ConstantVariable(not self.pop().truth(self)))

    def TO_BOOL(self, ins):
        v = self.pop()
        self.push(ConstantVariable(v.truth(self)))

    def COMPARE_OP(self, ins):
        b = self.pop()
        a = self.pop()
        out = self.apply_python_operator(COMPARE_OPS[bc.compare_name(ins.arg)], [a, b])
        if isinstance(out, TensorVariable) and bc.compare_casts(ins.arg):
            # 3.13: the comparison feeds a jump and is converted to bool by CPython
            out.truth(self)
        self.push(out)

    def IS_OP(self, ins):
        b = self.pop()
        a = self.pop()
        if isinstance(a, TensorVariable) or isinstance(b, TensorVariable):
            current = self.builder.current
            same = a is b or (isinstance(a, TensorVariable) and isinstance(b, TensorVariable)
                              and current(a.sym.value) is current(b.sym.value))
        elif isinstance(a, (TupleVariable, DictVariable)) or isinstance(b, (TupleVariable, DictVariable)):
            same = _same_container(a, b)
            if a is not b and a.source is not None and b.source is not None:
                # decided by the objects read: later calls must read the same (distinct) ones
                (self.guards.same_object if same else self.guards.distinct_objects)(
                    a.source, b.source, f"{a.source} is {'' if same else 'not '}{b.source}")
        elif a.is_const() and b.is_const():
            same = a.value is b.value
        elif isinstance(a, (NewObjectVariable, StringIOVariable)) or isinstance(b, (NewObjectVariable, StringIOVariable)):
            same = a is b  # (objects the frame made: one Variable each)
        else:
            same = self.python_value(a) is self.python_value(b)
        self.push(ConstantVariable(same != bool(ins.arg)))

    def CONTAINS_OP(self, ins):
        container = self.pop()
        item = self.pop()
        if not item.is_const():
            raise GraphBreak("`in` test on a traced value")
        if container.is_const():  # strings (substrings), ranges, sets...: Python itself answers
            try:
                found = item.value in container.value
            except Exception as e:
                raise GraphBreak(f"`in` test raises at trace time: {type(e).__name__}: {e}")
        elif isinstance(container, DictVariable):
            found = item.value in container.items
        elif isinstance(container, IteratorVariable):
            found = self._iterator_contains(container, item.value)
        elif isinstance(container, ObjectDictVariable):
            found = isinstance(item.value, str) and container.contains(self, item.value)
        else:
            items = list(container.iterate(self))
            if not all(v.is_const() for v in items):
                # `c in [tensor, ...]` compares with ==, whose result depends on tensor values
                raise GraphBreak("`in` test against a container holding traced values")
            found = item.value in [v.value for v in items]
        self.push(ConstantVariable(found != bool(ins.arg)))

    def _iterator_contains(self, it, value):
        """``value in iterator``: items are taken one at a time until one equals ``value`` (the
        rest stay in the iterator, and a generator runs only that far), as Python does."""
        while (v := it.next(self)) is not None:
            if not v.is_const():
                raise GraphBreak("`in` test against an iterator yielding traced values")
            if v.value is value or v.value == value:
                return True
        return False

    # subscripts and slices
    def BINARY_SUBSCR(self, ins):
        key = self.pop()
        obj = self.pop()
        self.push(obj.getitem(self, key))

    def BUILD_SLICE(self, ins):
        parts = self.popn(ins.arg)
        if len(parts) == 2:
            parts.append(ConstantVariable(None))
        v = SliceVariable(*parts)
        self.push(_folded_slice(v))

    def BINARY_SLICE(self, ins):
        stop = self.pop()
        start = self.pop()
        obj = self.pop()
        sl = SliceVariable(start, stop, ConstantVariable(None))
        self.push(obj.getitem(self, _folded_slice(sl)))

    def STORE_SUBSCR(self, ins):
        key = self.pop()
        obj = self.pop()
        value = self.pop()
        self._store_item(obj, key, value)

    def STORE_SLICE(self, ins):  # 3.12+: container[start:stop] = value
        stop = self.pop()
        start = self.pop()
        obj = self.pop()
        value = self.pop()
        sl = SliceVariable(start, stop, ConstantVariable(None))
        self._store_item(obj, _folded_slice(sl), value)

    def _store_item(self, obj, key, value):
        if isinstance(obj, ListVariable) and key.is_const():
            check_mutable(self, obj, "item assignment")
            try:
                if isinstance(key.value, slice):
                    obj.items[key.value] = value.iterate(self)
                else:
                    obj.items[key.value] = value
            except (IndexError, TypeError) as e:
                raise GraphBreak(f"list assignment fails at trace time: {e}")
        elif isinstance(obj, DictVariable) and has_dict_key(key):
            check_mutable(self, obj, "item assignment")
            obj.items[dict_key(key)] = value
        elif isinstance(obj, ObjectDictVariable):
            obj.set_item(self, key, value)
        elif isinstance(obj, (TensorVariable, DequeVariable)):
            obj.setitem(self, key, value)
        else:
            raise GraphBreak(f"item assignment on a {obj.describe()} inside a captured region",
                             hint="build a new tensor with ops (e.g. ops.where / concat) instead of writing in place")

    def DELETE_SUBSCR(self, ins):
        key = self.pop()
        obj = self.pop()
        if isinstance(obj, (ListVariable, DictVariable)) and key.is_const():
            check_mutable(self, obj, "del")
            try:
                del obj.items[key.value]
            except (IndexError, KeyError, TypeError) as e:
                raise GraphBreak(f"del fails at trace time: {e!r}")
        else:
            raise GraphBreak(f"del of an item of a {obj.describe()} inside a captured region")

    # building containers
    def BUILD_TUPLE(self, ins):
        self.push(TupleVariable(self.popn(ins.arg)))

    def BUILD_LIST(self, ins):
        self.push(ListVariable(self.popn(ins.arg)))

    def BUILD_SET(self, ins):
        items = self.popn(ins.arg)
        if not all(i.is_const() for i in items):
            raise GraphBreak("a set of traced values (tensors) inside a captured region")
        self.push(SetVariable({i.value for i in items}))

    def SET_UPDATE(self, ins):
        v = self.pop()
        target = self.stack[-ins.arg]
        items = v.iterate(self)
        if not isinstance(target, SetVariable) or not all(i.is_const() for i in items):
            raise GraphBreak("a set of traced values (tensors) inside a captured region")
        target.value.update(i.value for i in items)

    def BUILD_MAP(self, ins):
        items = self.popn(2 * ins.arg)
        d = {}
        for k, v in zip(items[::2], items[1::2]):
            d[dict_key(k)] = v
        self.push(DictVariable(d))

    def BUILD_CONST_KEY_MAP(self, ins):
        keys = self.pop()
        values = self.popn(ins.arg)
        self.push(DictVariable(dict(zip(keys.value, values))))

    def LIST_APPEND(self, ins):
        v = self.pop()
        check_mutable(self, self.stack[-ins.arg], "appending")  # (a list handed over by a graph break)
        self.stack[-ins.arg].items.append(v)

    def LIST_EXTEND(self, ins):
        v = self.pop()
        check_mutable(self, self.stack[-ins.arg], "extending")
        self.stack[-ins.arg].items.extend(v.iterate(self))

    def SET_ADD(self, ins):
        v = self.pop()
        target = self.stack[-ins.arg]
        if not isinstance(target, SetVariable) or not v.is_const():
            raise GraphBreak("a set of traced values (tensors) inside a captured region")
        target.value.add(v.value)

    def MAP_ADD(self, ins):
        v = self.pop()
        k = self.pop()
        key = dict_key(k)
        check_mutable(self, self.stack[-ins.arg], "item assignment")
        self.stack[-ins.arg].items[key] = v

    def DICT_UPDATE(self, ins):
        v = self.pop()
        target = self.stack[-ins.arg]
        if isinstance(v, DictVariable):
            check_mutable(self, target, "dict update")
            target.items.update(v.items)
        else:
            raise GraphBreak("dict.update with a non-dict")

    def DICT_MERGE(self, ins):
        """``f(**a, **b)`` / ``f(k=1, **a)``: like DICT_UPDATE, except that a keyword given twice
        is a TypeError ("f() got multiple values for keyword argument 'k'"): that call breaks,
        so Python raises it with its own message (the merged dict used to keep the last value)."""
        v = self.stack[-1]
        target = self.stack[-1 - ins.arg]
        if isinstance(v, DictVariable) and isinstance(target, DictVariable):
            repeated = [k for k in v.items if k in target.items]
            if repeated:
                raise GraphBreak(f"keyword argument {repeated[0]!r} given twice (TypeError at run time)")
        self.DICT_UPDATE(ins)

    def LIST_TO_TUPLE(self, ins):
        self.push(TupleVariable(self.pop().items))

    def CALL_INTRINSIC_1(self, ins):
        name = getattr(ins.arg, "name", str(ins.arg))
        if name == "INTRINSIC_LIST_TO_TUPLE":
            self.push(TupleVariable(self.pop().items))
        elif name == "INTRINSIC_UNARY_POSITIVE":
            import operator
            self.push(self.apply_python_operator(operator.pos, [self.pop()]))
        elif name == "INTRINSIC_STOPITERATION_ERROR" and isinstance(self.stack[-1], ExceptionVariable):
            # 3.12+: an exception leaving a generator's body; PEP 479 turns StopIteration into
            # RuntimeError (chained to it), anything else goes on unchanged
            exc = self.stack[-1].value
            if isinstance(exc, StopIteration):
                new = RuntimeError("generator raised StopIteration")
                new.__cause__ = exc
                new.__suppress_context__ = True
                new.__context__ = exc
                self.stack[-1] = ExceptionVariable(new)
        else:
            raise GraphBreak(f"intrinsic {name} is not supported")

    def UNPACK_SEQUENCE(self, ins):
        v = self.pop()
        items = v.iterate(self)
        if len(items) != ins.arg:
            raise GraphBreak(f"cannot unpack {len(items)} values into {ins.arg}")
        for item in reversed(items):
            self.push(item)

    def UNPACK_EX(self, ins):
        before, after = ins.arg & 0xFF, ins.arg >> 8
        items = self.pop().iterate(self)
        if len(items) < before + after:
            raise GraphBreak("not enough values to unpack")
        head, mid, tail = items[:before], items[before:len(items) - after], items[len(items) - after:]
        for item in reversed(tail):
            self.push(item)
        self.push(ListVariable(mid))
        for item in reversed(head):
            self.push(item)

    # iteration
    def GET_ITER(self, ins):
        v = self.pop()
        if isinstance(v, IteratorVariable):
            self.push(v)
        elif isinstance(v, ListVariable) and v.kind is list:
            self.push(ListIteratorVariable(v))  # live: reaches items appended while iterating
        elif isinstance(v, DictVariable) and not isinstance(v, ObjectDictVariable):
            self.push(DictIteratorVariable(v, "keys"))  # live: a size change is Python's RuntimeError
        elif isinstance(v, DictViewVariable) and isinstance(v.d, DictVariable):
            self.push(DictIteratorVariable(v.d, v.kind))
        else:
            self.push(IteratorVariable(v.iterate(self)))

    def FOR_ITER(self, ins):
        it = self.stack[-1]
        if not isinstance(it, IteratorVariable):
            raise GraphBreak(f"iterating over a {it.describe()} produced at run time")
        nxt = it.next(self)
        if nxt is None:
            self.pop()
            self.jump(ins.arg)
            skip = bc.FOR_ITER_SKIP
            while skip:
                if isinstance(self.insts[self.ip], Instr):
                    skip -= 1
                self.ip += 1
        else:
            self.push(nxt)

    def END_FOR(self, ins):
        self.pop()
        if bc.PY312:
            self.pop()

    # control flow
    def JUMP(self, ins):
        self.jump(ins.arg)

    def POP_JUMP_IF_FALSE(self, ins):
        if not self.pop().truth(self):
            self.jump(ins.arg)

    def POP_JUMP_IF_TRUE(self, ins):
        if self.pop().truth(self):
            self.jump(ins.arg)

    def _is_none(self, v):
        return isinstance(v, ConstantVariable) and v.value is None

    def POP_JUMP_IF_NONE(self, ins):
        if self._is_none(self.pop()):
            self.jump(ins.arg)

    def POP_JUMP_IF_NOT_NONE(self, ins):
        if not self._is_none(self.pop()):
            self.jump(ins.arg)

    def JUMP_IF_FALSE_OR_POP(self, ins):
        if not self.stack[-1].truth(self):
            self.jump(ins.arg)
        else:
            self.pop()

    def JUMP_IF_TRUE_OR_POP(self, ins):
        if self.stack[-1].truth(self):
            self.jump(ins.arg)
        else:
            self.pop()

    # calls
    def KW_NAMES(self, ins):
        self.kw_names = tuple(ins.arg)

    def _do_call(self, nargs, kw_names):
        args = self.popn(nargs)
        if bc.NULL_AFTER_CALLABLE:
            self_or_null = self.pop()
            fn = self.pop()
            if not isinstance(self_or_null, NullVariable):
                args = [self_or_null] + args
        else:
            second = self.pop()
            first = self.pop()
            if isinstance(first, NullVariable):
                fn = second
            else:
                fn, args = first, [second] + args
        kwargs = {}
        if kw_names:
            kwargs = dict(zip(kw_names, args[len(args) - len(kw_names):]))
            args = args[:len(args) - len(kw_names)]
        self.push(self.call_variable(fn, args, kwargs))

    def CALL(self, ins):
        kw, self.kw_names = self.kw_names, ()
        self._do_call(ins.arg, kw)

    def CALL_KW(self, ins):
        names = self.pop()
        self._do_call(ins.arg, tuple(names.value))

    def CALL_FUNCTION_EX(self, ins):
        kwargs = self.pop() if ins.arg & 1 else None
        argsv = self.pop()
        if bc.NULL_AFTER_CALLABLE:
            null = self.pop()
            fn = self.pop()
        else:
            fn = self.pop()
            null = self.pop()
        args = list(argsv.iterate(self))
        if not isinstance(null, NullVariable):
            args = [null] + args
        if kwargs is None:
            kw = {}
        elif isinstance(kwargs, DictVariable):
            kw = dict(kwargs.items)
        elif kwargs.is_const() and isinstance(kwargs.value, dict):
            kw = {k: self.wrap(v) for k, v in kwargs.value.items()}
        else:
            raise GraphBreak(f"**kwargs from a {kwargs.describe()}")
        self.push(self.call_variable(fn, args, kw))

    def MAKE_FUNCTION(self, ins):
        code_var = self.pop()
        code = code_var.value
        flags = ins.arg if isinstance(ins.arg, int) else 0  # 3.13: no arg (SET_FUNCTION_ATTRIBUTE)
        closure = self.pop().items if flags & 0x08 else ()
        if flags & 0x04:
            self.pop()
        kwdefaults = self.pop().items if flags & 0x02 else None
        defaults = self.pop().items if flags & 0x01 else None
        boxes = tuple(b.box for b in closure)
        self.push(NestedFunctionVariable(code, self.f_globals, defaults, kwdefaults, boxes))

    def SET_FUNCTION_ATTRIBUTE(self, ins):
        fn = self.pop()
        value = self.pop()
        flag = ins.arg
        if flag & 0x08:
            fn.closure = tuple(b.box for b in value.items)
        elif flag & 0x02:
            fn.kwdefaults = dict(value.items)
        elif flag & 0x01:
            fn.defaults = tuple(value.items)
        self.push(fn)

    # strings
    def FORMAT_VALUE(self, ins):
        flags = ins.arg if isinstance(ins.arg, int) else 0
        spec = self.pop().value if flags & 0x04 else ""
        v = self.pop()
        if not v.is_const():
            raise GraphBreak(f"formatting a {v.describe()} into a string needs run-time data")
        val = v.value
        conv = flags & 0x03
        if conv == 1:
            val = str(val)
        elif conv == 2:
            val = repr(val)
        elif conv == 3:
            val = ascii(val)
        self.push(ConstantVariable(format(val, spec)))

    def CONVERT_VALUE(self, ins):
        v = self.pop()
        if not v.is_const():
            raise GraphBreak(f"formatting a {v.describe()} into a string needs run-time data")
        fn = {1: str, 2: repr, 3: ascii}.get(int(getattr(ins.arg, "value", ins.arg)), str)
        self.push(ConstantVariable(fn(v.value)))

    def FORMAT_SIMPLE(self, ins):
        v = self.pop()
        if not v.is_const():
            raise GraphBreak(f"formatting a {v.describe()} into a string needs run-time data")
        self.push(ConstantVariable(format(v.value)))

    def FORMAT_WITH_SPEC(self, ins):
        spec = self.pop()
        v = self.pop()
        if not v.is_const():
            raise GraphBreak(f"formatting a {v.describe()} into a string needs run-time data")
        self.push(ConstantVariable(format(v.value, spec.value)))

    def BUILD_STRING(self, ins):
        parts = self.popn(ins.arg)
        self.push(ConstantVariable("".join(p.value for p in parts)))

    # assertions, raising, unsupported blocks
    def LOAD_ASSERTION_ERROR(self, ins):
        self.push(self.wrap(AssertionError))

    # -- exceptions (run on the frame's exception table: see _unwind) ----------------------------------
    def _exception_object(self, v, what):
        """The exception instance ``raise v`` raises: an instance, or a class called without
        arguments (only classes whose construction runs no Python code are made at trace time)."""
        if isinstance(v, ExceptionVariable):
            return v.value
        if v.is_const():
            val = v.value
            if isinstance(val, BaseException):
                return val
            if plain_exception_class(val):
                return val()
            if python_init_exception_class(val):  # its Python __init__ traced (may raise itself)
                made = self.call_variable(self.wrap(val), [], {})
                if isinstance(made, ExceptionVariable):
                    return made.value
            if isinstance(val, type) and issubclass(val, BaseException):
                raise GraphBreak(f"{what} of {val.__name__}, whose constructor is Python code")
        if v.is_const():
            raise UserException(TypeError("exception causes must derive from BaseException" if what == "raise ... from"
                                          else "exceptions must derive from BaseException"))
        raise GraphBreak(f"{what} of a {v.describe()}")

    def _chain(self, e):
        """Link a newly raised exception to the one being handled (``__context__``) as CPython
        does; a re-raise keeps its chain."""
        e.chained = True
        if getattr(e, "reraise", False):
            return
        exc = e.error
        if getattr(e, "fresh", True):
            exc.__context__ = None  # raised by an operation: Python's chain inside capture is not the user's
        handled = self.tracer.handled_exception
        if handled is not None and handled.value is not exc:
            ctx = handled.value
            o = ctx  # CPython breaks a cycle in the context chain before linking
            while o is not None:
                if o.__context__ is exc:
                    o.__context__ = None
                    break
                o = o.__context__
            exc.__context__ = ctx

    def _raise(self, exc, cause=None, has_cause=False):
        """Raise ``exc`` in the traced code (``raise ... from`` sets ``__cause__`` and suppresses
        the context)."""
        if has_cause:
            exc.__cause__ = cause
            exc.__suppress_context__ = True
        e = UserException(exc, f"{type(exc).__name__} raised inside a captured region: {exc}")
        e.fresh = False
        raise e

    def _reraise(self, exc):
        e = UserException(exc, f"{type(exc).__name__} re-raised inside a captured region: {exc}")
        e.reraise = True
        raise e

    def RAISE_VARARGS(self, ins):
        if ins.arg == 0:  # bare `raise`: re-raise the exception being handled
            handled = self.tracer.handled_exception
            if handled is None:
                raise GraphBreak("bare raise with no exception being handled in the captured code",
                                 hint="the raise runs eagerly")
            self._reraise(handled.value)
        cause = None
        if ins.arg == 2:
            c = self.pop()
            cause = None if (c.is_const() and c.value is None) else self._exception_object(c, "raise ... from")
        exc = self._exception_object(self.pop(), "raise")
        self._raise(exc, cause, ins.arg == 2)

    def RERAISE(self, ins):
        exc = self.pop()  # (a non-zero oparg only *peeks* at the saved lasti to set f_lasti)
        if not isinstance(exc, ExceptionVariable):
            raise GraphBreak(f"re-raising a {exc.describe()}")
        self._reraise(exc.value)

    def PUSH_EXC_INFO(self, ins):
        exc = self.pop()
        prev = self.tracer.handled_exception
        self.push(prev if prev is not None else ConstantVariable(None))
        self.tracer.handled_exception = exc
        self.push(exc)

    def POP_EXCEPT(self, ins):
        prev = self.pop()
        self.tracer.handled_exception = None if prev.is_const() and prev.value is None else prev
        if self.tracer.handled_exception is None and self.parent is None:
            self.handling_entry = None

    def CHECK_EXC_MATCH(self, ins):
        typ = self.pop()
        exc = self.stack[-1]
        classes = self.python_value(typ)
        items = classes if isinstance(classes, tuple) else (classes,)
        if not all(isinstance(c, type) and issubclass(c, BaseException) for c in items):
            raise UserException(TypeError("catching classes that do not inherit from BaseException is not allowed"))
        self.push(ConstantVariable(isinstance(exc.value, classes)))

    def CHECK_EG_MATCH(self, ins):
        raise GraphBreak("except* inside a captured region")

    def BEFORE_WITH(self, ins):
        mgr = self.pop()
        mod = getattr(mgr.python_type(), "__module__", "") or ""
        if mod.split(".")[0] in _FRAMEWORK_PACKAGES:
            # the framework's own managers switch state the tracing itself reads (compute dtype,
            # the tape): entered eagerly, capture resumes inside the block with that state set
            raise GraphBreak(f"`with` on the framework's {mgr.python_type().__name__}",
                             hint="the context manager is entered eagerly; capture resumes inside the block")
        try:
            # special methods are looked up on the type, so a missing one raises TypeError / AttributeError
            enter = mgr.getattr(self, "__enter__")
            exit_ = mgr.getattr(self, "__exit__")
        except MissingAttribute:
            raise GraphBreak(f"`with` on a {mgr.describe()} that is not a context manager",
                             hint="the with statement runs eagerly, so Python raises the error") from None
        except GraphBreak as e:
            raise GraphBreak(f"`with` on a {mgr.describe()}: {e.reason}",
                             hint="the context manager is entered eagerly; capture resumes inside the block") from None
        result = self.call_variable(enter, [], {})
        self.push(exit_)
        self.push(result)

    def WITH_EXCEPT_START(self, ins):
        # stack: ..., __exit__, lasti, previous exception, exception (3.11-3.13)
        exc = self.stack[-1]
        exit_ = self.stack[-4]
        if not isinstance(exc, ExceptionVariable):
            raise GraphBreak(f"`with` exit with a {exc.describe()}")
        e = exc.value
        self.push(self.call_variable(exit_, [ConstantVariable(type(e)), exc, ConstantVariable(e.__traceback__)], {}))

    def RETURN_GENERATOR(self, ins):
        if not self.is_generator:
            raise GraphBreak("generator function")
        self.push(ConstantVariable(None))  # the value the first next() sends in (popped next)

    def YIELD_VALUE(self, ins):
        """Stop the generator's frame here. A ``@contextmanager`` frame run in two halves
        (``start_generator``) pauses (``run_generator_step`` takes the value); a frame a
        GeneratorVariable runs stops (``GeneratorVariable.resume`` takes the value). Either
        continues with the value sent in pushed."""
        if self.pause_at_yield:
            self.yielded = self.pop()
            self.paused, self.paused_at = True, self.ip - 1
            return
        if not self.is_generator:
            raise GraphBreak("yield outside a generator being traced")
        self.yielded = self.pop()
        self.return_value = YIELDED

    def GET_YIELD_FROM_ITER(self, ins):
        if not self.is_generator:
            raise GraphBreak("`yield from` outside a generator being traced")
        v = self.pop()
        self.push(v if isinstance(v, IteratorVariable) else IteratorVariable(v.iterate(self)))

    def SEND(self, ins):
        """``yield from``: the delegated iterator's next item (yielded by the YIELD_VALUE that
        follows), or, once it is exhausted, its return value and a jump past the loop. A value
        sent into this generator is sent on to a delegated generator."""
        sent = self.pop()
        it = self.stack[-1]
        if not isinstance(it, IteratorVariable):
            raise GraphBreak(f"`yield from` a {it.describe()}")
        if isinstance(it, GeneratorVariable):
            item = it.resume(self, sent)
        elif sent.is_const() and sent.value is None:
            item = it.next(self)
        else:
            raise GraphBreak(f"send() into `yield from` a {it.describe()} (AttributeError at run time)")
        if item is None:
            if bc.PY311:
                self.pop()  # 3.12+ pop the iterator at END_SEND
            self.push(getattr(it, "return_value", None) or ConstantVariable(None))
            self.jump(ins.arg)
        else:
            self.push(item)

    def END_SEND(self, ins):
        value = self.pop()
        self.pop()
        self.push(value)

    # structural pattern matching (``match``): the tests Python makes, on trace-time values
    def GET_LEN(self, ins):
        self.push(ConstantVariable(self.stack[-1].length(self)))

    def MATCH_SEQUENCE(self, ins):
        import collections.abc
        t = self.stack[-1].python_type()
        self.push(ConstantVariable(issubclass(t, collections.abc.Sequence) and
                                   not issubclass(t, (str, bytes, bytearray))))

    def MATCH_MAPPING(self, ins):
        import collections.abc
        self.push(ConstantVariable(issubclass(self.stack[-1].python_type(), collections.abc.Mapping)))

    def MATCH_KEYS(self, ins):
        keys = self.stack[-1]
        subject = self.stack[-2]
        if not isinstance(subject, DictVariable) or not keys.is_const():
            raise GraphBreak(f"matching keys of a {subject.describe()}")
        seen = set()
        for k in keys.value:  # (a value pattern can repeat a literal key: CPython checks at run time)
            if k in seen:
                raise UserException(ValueError(f"mapping pattern checks duplicate key ({k!r})"))
            seen.add(k)
        found = [subject.items[k] for k in keys.value if k in subject.items]
        self.push(TupleVariable(found) if len(found) == len(keys.value) else ConstantVariable(None))

    def COPY_DICT_WITHOUT_KEYS(self, ins):
        keys = self.pop()
        subject = self.stack[-1]
        if not isinstance(subject, DictVariable) or not keys.is_const():
            raise GraphBreak(f"matching **rest of a {subject.describe()}")
        self.push(DictVariable({k: v for k, v in subject.items.items() if k not in keys.value}))

    def MATCH_CLASS(self, ins):
        from .variables import BuiltinVariable
        names = self.pop()
        cls_var = self.pop()
        subject = self.pop()
        if not BuiltinVariable(isinstance).call(self, [subject, cls_var], {}).value:
            self.push(ConstantVariable(None))
            return
        cls = self.python_value(cls_var)
        wanted = []
        if ins.arg:
            match_args = getattr(cls, "__match_args__", None)
            if match_args is None and cls in _SELF_MATCHING and ins.arg == 1:
                wanted = [None]  # int(x), str(s), ...: the subject itself
            elif not isinstance(match_args, tuple) or len(match_args) < ins.arg:
                raise GraphBreak(f"{cls.__name__}() accepts fewer positional sub-patterns (TypeError at run time)")
            else:
                wanted = list(match_args[:ins.arg])
        wanted += list(names.value)
        values = []
        for name in wanted:
            if name is None:
                values.append(subject)
                continue
            try:
                values.append(subject.getattr(self, name))
            except UserException as e:  # a property raising: AttributeError means "no match"
                if not isinstance(e.error, AttributeError):
                    raise
                self.push(ConstantVariable(None))
                return
            except MissingAttribute:
                self.push(ConstantVariable(None))
                return
        self.push(TupleVariable(values))

    def IMPORT_NAME(self, ins):
        """``import x.y`` / ``from x import y`` of a module that is already imported (no side
        effects); importing a new module breaks (its import runs code)."""
        fromlist = self.pop()
        level = self.pop()
        name = ins.arg
        try:
            lvl = int(level.value)
            if lvl:
                import importlib.util
                name = importlib.util.resolve_name("." * lvl + name, self.f_globals.get("__package__") or "")
        except Exception:
            raise GraphBreak("relative import inside a captured region", hint="import at module level")
        mod = sys.modules.get(name)
        if mod is None:
            raise GraphBreak(f"import of {name!r}, which is not imported yet, inside a captured region",
                             hint="import at module level")
        if not fromlist.is_const() or not fromlist.value:
            mod = sys.modules.get(name.partition(".")[0], mod)  # `import a.b` binds `a`
        self.push(ModuleVariable(mod))

    def IMPORT_FROM(self, ins):
        mod = self.stack[-1]
        if not isinstance(mod, ModuleVariable):
            raise GraphBreak("from-import of a non-module")
        m = mod.mod
        try:
            value = getattr(m, ins.arg)
        except AttributeError:
            value = sys.modules.get(f"{m.__name__}.{ins.arg}")
            if value is None:
                raise GraphBreak(f"cannot import name {ins.arg!r} from {m.__name__!r}")
        self.push(self.wrap(value))


_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def bind_arguments(tx, code, args, kwargs, defaults, kwdefaults):
    """Map call arguments (Variables) onto the code's local names, applying defaults.

    Follows CPython's own binding from the code object (not ``inspect``, which renames the
    implicit ``.0`` argument of comprehensions). ``defaults``/``kwdefaults`` hold Python values
    or Variables. A call that would raise TypeError breaks, so the eager call raises it.
    """
    flags = code.co_flags
    nargs, nposonly, nkwonly = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    names = code.co_varnames
    pos_names = names[:nargs]
    kwonly_names = names[nargs:nargs + nkwonly]
    i = nargs + nkwonly
    varargs_name = varkw_name = None
    if flags & inspect.CO_VARARGS:
        varargs_name = names[i]
        i += 1
    if flags & inspect.CO_VARKEYWORDS:
        varkw_name = names[i]
    fname = code.co_name

    def fail(msg):
        return GraphBreak(f"call of {fname}() fails: {msg}", hint="the frame runs eagerly so Python raises the error")

    if len(args) > nargs and varargs_name is None:
        raise fail(f"takes {nargs} positional argument(s) but {len(args)} were given")
    local_vars = dict(zip(pos_names, args))
    if varargs_name is not None:
        local_vars[varargs_name] = TupleVariable(list(args[nargs:]))
    extra_kw = {}
    for k, v in kwargs.items():
        if k in pos_names[nposonly:] or k in kwonly_names:
            if k in local_vars:
                raise fail(f"got multiple values for argument {k!r}")
            local_vars[k] = v
        elif varkw_name is not None:
            extra_kw[k] = v
        else:
            raise fail(f"got an unexpected keyword argument {k!r}")
    defaults = tuple(defaults or ())
    first_default = nargs - len(defaults)
    for j, name in enumerate(pos_names):
        if name not in local_vars:
            if j < first_default:
                raise fail(f"missing required argument {name!r}")
            local_vars[name] = tx.wrap(defaults[j - first_default])
    for name in kwonly_names:
        if name not in local_vars:
            if not kwdefaults or name not in kwdefaults:
                raise fail(f"missing required keyword-only argument {name!r}")
            local_vars[name] = tx.wrap(kwdefaults[name])
    if varkw_name is not None:
        local_vars[varkw_name] = DictVariable(extra_kw)
    return local_vars


def _same_container(a, b) -> bool:
    """``a is b`` where one operand is a tuple, list or dict Variable. Such an object has one
    Variable while tracing (the frame's names hold that Variable; an argument or outside container
    met twice is memoized to its first Variable), so identity is Variable identity. Never compare
    their realized values: each realization is a fresh object (``d = {}; d is d`` was False).
    A tuple read from an existing object has a Variable per read: two reads are the same object
    when the tuples they were made from are (``origin``). The one exception among the tuples the
    frame builds is CPython's empty-tuple singleton: every ``()`` is the same object."""
    if a is b:
        return True

    def origin(v):
        if isinstance(v, TupleVariable):
            return v.origin
        return v.value if v.is_const() and isinstance(v, ConstantVariable) else None
    if origin(a) is not None and origin(b) is not None:
        return origin(a) is origin(b)
    def empty_tuple(v):
        if isinstance(v, TupleVariable):
            return v.python_type() is tuple and not v.items
        return v.is_const() and type(v.value) is tuple and not v.value
    return empty_tuple(a) and empty_tuple(b)


def _compared_by_identity(a, b) -> bool:
    """Whether ``a == b`` is ``a is b`` for these Variables: at least one is an object the frame
    made whose class keeps ``object``'s ``__eq__``/``__ne__``, and the other is such an object too
    or a constant of a builtin type (whose ``__eq__`` returns NotImplemented for it)."""
    from .variables.objects import NewObjectVariable

    def plain_object(v):
        return isinstance(v, NewObjectVariable) and v.cls.__eq__ is object.__eq__ and v.cls.__ne__ is object.__ne__

    def builtin_constant(v):
        return v.is_const() and type(v.value) in (type(None), int, float, bool, str, bytes)

    return (plain_object(a) and (plain_object(b) or builtin_constant(b))) or (plain_object(b) and builtin_constant(a))


def _symbolic_size_operation(fn, args):
    """``fn(*args)`` as a symbolic size (capture.symbolic_sizes) where an operand is one and the
    operation keeps it symbolic (arithmetic with sizes and int or float constants); a comparison
    of two structurally equal size expressions is answered without reading a value; else None
    (the operands' values are read, and logged, by the caller)."""
    import operator
    from graph.symint import tagged
    from . import symbolic_sizes
    from .variables.tensor import ShapeDimVariable
    if not any(isinstance(a, ShapeDimVariable) and a.expr is not None for a in args):
        return None
    operands = []
    for a in args:
        if isinstance(a, ShapeDimVariable):
            if a.expr is None:
                return None
            operands.append(tagged(a._size, a.expr))
        elif a.is_const() and type(a.value) in (int, float):
            operands.append(a.value)
        else:
            return None
    if fn in (operator.eq, operator.ne, operator.le, operator.ge):
        if len(args) == 2 and all(isinstance(a, ShapeDimVariable) for a in args) and \
                symbolic_sizes.same(*(a.expr for a in args)):
            return ConstantVariable(fn is not operator.ne)  # a == a, a <= a... at every size
        return None
    if fn not in _SIZE_ARITHMETIC:
        return None
    out = symbolic_sizes.apply(fn, operands)
    if out is None:
        return None
    log = next(a._log for a in args if isinstance(a, ShapeDimVariable))
    return ShapeDimVariable(out._plain(), log, out.expr)


def _size_arithmetic():
    import operator
    return frozenset((operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod, operator.neg,
                      operator.pos, operator.iadd, operator.isub, operator.imul, operator.ifloordiv, operator.imod,
                      operator.truediv, operator.itruediv, operator.pow, operator.ipow))


#: the Python operators a size may stay symbolic under (graph.symint.SymInt decides per operand)
_SIZE_ARITHMETIC = _size_arithmetic()


def _folded_slice(sl):
    """A slice of constants as one constant; kept as parts where one is a symbolic size
    (``pe[:n]``: the index keeps n's expression, capture.symbolic_sizes)."""
    from .variables.tensor import ShapeDimVariable
    if not sl.is_const() or any(isinstance(p, ShapeDimVariable) and p.expr is not None for p in sl.parts):
        return sl
    return ConstantVariable(sl.value)


def _holds_symbolic_size(var) -> bool:
    """A tuple or list of constants with a symbolic size in it (``x.shape[:-1] + (n,)``): combined
    item by item (the sizes keep their expressions) rather than as one value."""
    from .variables.tensor import ShapeDimVariable
    return isinstance(var, (TupleVariable, ListVariable)) and \
        any(isinstance(i, ShapeDimVariable) and i.expr is not None for i in var.items)


@contextlib.contextmanager
def symbolic_realize(tx):
    """Sizes realized inside are SymInts carrying their expressions (for framework code that puts
    them into graph nodes), instead of plain ints whose read is logged."""
    tx.symbolic_realize = getattr(tx, "symbolic_realize", 0) + 1
    try:
        yield
    finally:
        tx.symbolic_realize -= 1
