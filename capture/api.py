"""The user-facing API of graph mode: ``jit`` (decorator / function transform), the GRAPH_MODE
Cell handler (and ``Cell.compile``), and the registry of jitted code objects the frame hook reads.

Every call ends in :func:`capture.dispatch.call_captured` (cache lookup, compile on a miss by
``capture.compile_policy``, run). At a graph break the part before it is a compiled graph, the
breaking instruction runs eagerly and a resume function (itself captured) continues
(capture/resume.py); the break is recorded with its reason and line for ``explain()``.

Example:
    >>> import capture, runtime as ms
    >>> @capture.jit
    ... def f(x, y):
    ...     return ms.ops.relu(x * y + 1)
    >>> f(ms.Tensor([1.0, -2.0]), ms.Tensor([3.0, 4.0]))
    Tensor(shape=[2], dtype=Float32, value=[4., 0.])
"""
from __future__ import annotations

from collections.abc import Callable

import logging
import types
import weakref

from runtime import context as _context
from runtime.nn.cell import Cell

from . import backends
from .builder import SymTensor
from .cache import cache_for

from .compile_policy import DEFAULT_CONFIG, CaptureConfig, UserErrorWhileCapturing, build_runner, resolve
from .dispatch import with_dump_path, call_captured, flatten_call, install_grad_handler, settle_error
from .fast_call import FastCall, invalidate as _invalidate_fast_calls
from runtime import dynamic_shape as _dynamic_shape
from runtime.dynamic_shape import check_inputs


def signature_args(fn, args):
    """The arguments ``input_signature`` describes: a method's, without ``self``."""
    code = getattr(fn, "__code__", None)
    if code is not None and code.co_argcount and code.co_varnames[0] == "self" and args:
        return tuple(args[1:])
    return tuple(args)


_dynamic_shape.ON_DECLARATIONS_CHANGED.append(_invalidate_fast_calls)

log = logging.getLogger("capture")


#: code objects of jitted functions -> their config (id(code) -> (weakref to code, config))
JIT_CODES: dict = {}

#: set by capture.frame_eval: forgets the hook's cached decision for a code object
on_code_registered = None

def register_code(code, config) -> None:
    """Register a jitted function's code: with the frame hook enabled its frames are captured."""
    key = id(code)
    JIT_CODES[key] = (weakref.ref(code, lambda _r, key=key: JIT_CODES.pop(key, None)), config)
    if on_code_registered is not None:
        on_code_registered(code)

def jit_config_of(code):
    """The config ``code`` was registered with by ``jit``, or None."""
    item = JIT_CODES.get(id(code))
    if item is not None and item[0]() is code:
        return item[1]
    return None

class _CapturedCall(FastCall):
    """Calls of ``__wrapped_jit__`` through the capture cache under ``config``: once a call ran an
    entry the C call can repeat, the next calls repeat it without Python frames
    (capture/fast_call.py) until something the cache lookup reads changes."""

    name = None  # (what reports call the captured function; None: its qualified name)

    def _call_slow(self, args, kwargs):
        """A call the Python way (FastCall's ``__call__`` comes here unless it repeats an entry).
        Traced and run as static-graph syntax (``runtime.context.static_graph_syntax``).
        Arguments are checked against ``input_signature`` here: a call in C repeats an entry
        whose guards admit only arguments a checked call had (exact shapes, or a dynamic dim's
        declared range: ``capture.dynamic``)."""
        sig = self.config.input_signature
        if sig is not None:
            fn = self.__wrapped_jit__
            check_inputs(sig, signature_args(fn, args), f"{self.__name__}: input_signature",
                         _dynamic_shape.parameter_names(fn, True))
        with _context.static_graph_syntax():
            return call_captured(self.__wrapped_jit__, args, kwargs or {}, self.config, name=self.name,
                                 caller=self)

    def _settle_fast(self, entry, args, error):
        """The graph a call in C ran raised ``error``: settled as the Python way settles it."""
        return settle_error(self.__wrapped_jit__, args, entry, error, self.config)


class JitFunction(_CapturedCall):
    """What ``jit(fn)`` returns: calls go through the capture cache; works as a method too."""

    def __init__(self, fn, config: CaptureConfig):
        self.__wrapped_jit__ = fn
        self.config = config
        self.__name__ = getattr(fn, "__name__", "jit_function")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__module__ = getattr(fn, "__module__", None)
        if isinstance(getattr(fn, "__code__", None), types.CodeType):
            register_code(fn.__code__, config)
        backends.preload(config.backend)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __repr__(self):
        return f"<jit {self.__qualname__}>"

class _JitCellConstruct(JitFunction):
    """``jit(cell)``'s calls: the construct of the Cell's class *at the call*. Entries guard the
    class's ``construct`` (compile_policy._setup_root), so after ``Net.construct = g`` the call
    in C declines and this slow path rebinds to the new construct before capturing it."""

    def _call_slow(self, args, kwargs):
        if args:
            own = type(args[0]).construct
            current = getattr(own, "__wrapped_jit__", own)
            if current is not self.__wrapped_jit__ and isinstance(getattr(current, "__code__", None), types.CodeType):
                self.__wrapped_jit__ = current
                self.__name__ = getattr(current, "__name__", self.__name__)
                self.__qualname__ = getattr(current, "__qualname__", self.__qualname__)
                register_code(current.__code__, self.config)
        return super()._call_slow(args, kwargs)


def jit(fn: Callable | None = None, *, fullgraph: bool = False, backend=None, jit_config=None,
        input_signature=None, **options):
    """Capture ``fn`` (a function, a ``construct`` method, or a Cell) into graphs.

    ``fullgraph=True`` raises instead of falling back at a graph break; ``backend`` picks the
    executor ("numpy" reference interpreter, or a registered compiler / callable);
    ``jit_config`` is an ``ms.JitConfig``; ``input_signature`` (a Tensor or tuple of Tensors,
    placeholders ``Tensor(shape=[None, ...], dtype=...)`` allowed) declares the inputs, as
    ``Cell.set_inputs`` does: calls that do not match raise ValueError, and a None/``Symbol``
    dimension is compiled once for all its lengths where the code allows (``capture.dynamic``).
    """
    if options:
        raise TypeError(f"jit: unknown option(s) {sorted(options)}")
    config = CaptureConfig(fullgraph, backend, jit_config, input_signature=input_signature)
    if fn is None:
        return lambda f: jit(f, fullgraph=fullgraph, backend=backend, jit_config=jit_config,
                             input_signature=input_signature)
    if isinstance(fn, Cell):
        construct = type(fn).construct
        construct = getattr(construct, "__wrapped_jit__", construct)
        object.__setattr__(fn, "_jit", types.MethodType(_JitCellConstruct(construct, config), fn))
        return fn
    if isinstance(fn, JitFunction):
        return fn
    if isinstance(fn, types.MethodType):
        return types.MethodType(JitFunction(fn.__func__, config), fn.__self__)
    if not callable(fn):
        raise TypeError(f"jit: expected a function or Cell, got {type(fn).__name__}")
    if not isinstance(fn, types.FunctionType):
        return JitFunction(calling(fn), config)
    return JitFunction(fn, config)

def calling(target):
    """A Python function that calls ``target`` (a ``grad``/``value_and_grad`` function, a
    ``functools.partial``, an object with ``__call__``): what ``jit`` captures for callables that
    have no bytecode of their own. ``target`` is a closure variable, so the cache guards on it."""
    def call(*args, **kwargs):
        return target(*args, **kwargs)

    call.__name__ = call.__qualname__ = getattr(target, "__name__", type(target).__name__)
    return call

#: id(cell) -> (weak reference to the Cell, its _CellCall): a Cell's calls in GRAPH_MODE
_CELL_CALLS: dict = {}


class _CellCall(_CapturedCall):
    """A Cell's calls in GRAPH_MODE: its ``construct`` through the capture cache, with the Cell
    first."""

    config = DEFAULT_CONFIG

    def __init__(self, construct, name):
        self.__wrapped_jit__ = construct
        self.name = name

    @classmethod
    def of(cls, cell, construct):
        """The calls of ``cell`` (made now: its class's ``construct`` is ``construct``)."""
        call = cls(construct, f"{type(cell).__name__}.construct")
        key = id(cell)
        _CELL_CALLS[key] = (weakref.ref(cell, lambda _r, key=key: _CELL_CALLS.pop(key, None)), call)
        return call


class GraphModeHandler:
    """Registered in ``runtime.context``: runs Cells captured when mode=GRAPH_MODE."""

    @staticmethod
    def preload():
        """Called when the program switches to GRAPH_MODE: ready the default backend, and let
        grad functions called from Python run as one compiled graph
        (:func:`capture.dispatch.call_grad_function`; ``CAPTURE_GRAD_FUNCTIONS=0``: the tape)."""
        backends.preload()
        install_grad_handler()

    def __call__(self, cell, args, kwargs):
        own = cell.__dict__.get("construct")
        if own is not None:  # set on the instance (``net.construct = f``): what Python calls, as it is
            return own(*args, **kwargs)
        construct = type(cell).construct
        construct = getattr(construct, "__wrapped_jit__", construct)
        item = _CELL_CALLS.get(id(cell))
        call = item[1] if item is not None and item[0]() is cell else None
        if call is None or call.__wrapped_jit__ is not construct:
            call = _CellCall.of(cell, construct)
        return call(cell, *args, **kwargs)

    def compile(self, cell, args, kwargs):
        construct = getattr(type(cell).construct, "__wrapped_jit__", type(cell).construct)
        flat, names = flatten_call(construct, (cell,) + tuple(args), kwargs)
        try:
            entry = resolve(construct, flat, names, DEFAULT_CONFIG, cache_for(construct.__code__),
                            f"{type(cell).__name__}.construct")
        except UserErrorWhileCapturing as r:
            raise with_dump_path(r.error, r.path) from None
        if not entry.eager and cell._jit is None:
            object.__setattr__(cell, "_jit", types.MethodType(JitFunction(construct, DEFAULT_CONFIG), cell))
        return entry

    def export(self, net, inputs):
        """``net(*inputs)`` captured as one graph for ``ms.export`` (see capture.export)."""
        from .export import capture_for_export
        return capture_for_export(net, inputs)

    def compile_graph(self, graph):
        """A runner for a graph that was not captured here (``nn.GraphCell``): the backend and JIT
        level graph mode uses, ``runner(arrays) -> (outputs, {input index: new array})``."""
        return build_runner(DEFAULT_CONFIG, graph)


SymTensor  # imported so the symbolic bind handler is registered
