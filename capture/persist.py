"""Warm start: compiled capture entries kept on disk, so a new process skips bytecode translation.

A frame's entry (its translated graph, the guards it was compiled under, where its inputs come
from and how its result is rebuilt) is saved next to the kernel cache (``codegen/cpu/diskcache``;
``$MSJIT_CACHE_DIR``, ``CAPTURE_DISK_CACHE=0`` turns this off) under a key made of everything
the translation depends on but cannot check with a guard: the root function's code (bytecode,
constants, names, file, first line), the Python version, the framework's own files, the capture
config and context mode, and the kinds and shapes of the call's arguments. The first call of that
code in a new process loads the entry instead of translating, when all of this holds:

* the file passes the envelope's checks (checksum, bound to its key; ``diskcache.Store``) and
  unpickles through an allowlist (graph/IR classes, sources, numpy arrays, plain Python
  values; nothing in the file can name a callable to run);
* every object the guards name is found again: the objects the frame reached (a Cell, its
  Parameters, a global) through the path the translation used (``globals['model'].fc1``,
  ``args[0]``), bound anew in this process and checked to be of the same class (and, for
  tuples/lists, of the same length); classes and functions by module and qualified name;
* every function whose code was inlined (the user's ``construct``, a loss function, an
  ``__init__``) is found again and still has the same code, unless it belongs to the
  framework, whose files are part of the key;
* the guards, compiled with those objects, pass for this call.

Anything else -- a failed check, an object that cannot be named, a file that does not load --
means the frame is translated as usual (and a fresh entry is saved). Entries that were never
valid are never trusted: the graph only runs when the guards it was compiled under pass.

``capture.reset(disk=True)`` deletes the saved entries (:func:`clear`).

Example:
    >>> code_fingerprint((lambda x: x + 1).__code__) == code_fingerprint((lambda x: x + 1).__code__)
    True
"""
from __future__ import annotations

import builtins
import collections
import functools
import hashlib
import io
import logging
import os
import pickle
import re
import sys
import types
import weakref

import numpy as np

from codegen.cpu import diskcache
from graph.errors import FRAMEWORK_PACKAGES, INTERNAL_DIRS

log = logging.getLogger("capture")

FORMAT = 1
_MAGIC = b"MSJITC1\n"
_SUFFIX = ".capture"
#: how deep the search for an unnamed object goes from the named ones (``o55[3]``: depth 1)
SEARCH_DEPTH = 3


def _marker(key: str) -> bytes:
    return b"msjit-capture-key:" + key.encode("ascii")


STORE = diskcache.Store(_SUFFIX, _MAGIC, _marker, lambda payload: payload[:1] == b"\x80")


def enabled() -> bool:
    return os.environ.get("CAPTURE_DISK_CACHE", "1") != "0" and diskcache.cache_dir() is not None


def clear() -> None:
    """Delete every saved entry (``capture.reset(disk=True)``)."""
    root = diskcache.cache_dir()
    if not root or not os.path.isdir(root):
        return
    for sub in os.listdir(root):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            continue
        for f in os.listdir(d):
            if f.endswith(_SUFFIX):
                try:
                    os.remove(os.path.join(d, f))
                except OSError:
                    pass


# -- keys -----------------------------------------------------------------------------------------------
def code_fingerprint(code) -> str:
    """sha256 of what a code object computes and where it lives (bytecode, constants with nested
    code, names, file, first line, flags): equal for the same source in any process."""
    h = hashlib.sha256()
    _hash_code(h, code)
    return h.hexdigest()


def _hash_code(h, code):
    for part in (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                 code.co_filename, getattr(code, "co_qualname", code.co_name), code.co_firstlineno,
                 code.co_flags, code.co_argcount, code.co_kwonlyargcount, code.co_posonlyargcount):
        h.update(repr(part).encode())
        h.update(b"\0")
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _hash_code(h, c)
        else:
            h.update(f"{type(c).__name__}:{c!r}".encode())
        h.update(b"\1")


_FRAMEWORK = {}  # "fingerprint" -> the value computed once per process


def framework_fingerprint() -> str:
    """The framework's own files (path, size, modification time) and the versions of Python,
    numpy and llvmlite: an edited or upgraded framework never uses entries of another."""
    fp = _FRAMEWORK.get("fingerprint")
    if fp is None:
        import llvmlite
        h = hashlib.sha256(f"{FORMAT} {sys.version} {np.__version__} {llvmlite.__version__}".encode())
        for root in INTERNAL_DIRS:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames.sort()
                for f in sorted(filenames):
                    if f.endswith((".py", ".so", ".c")):
                        st = os.stat(os.path.join(dirpath, f))
                        h.update(f"{dirpath}/{f} {st.st_size} {st.st_mtime_ns}\n".encode())
        fp = _FRAMEWORK["fingerprint"] = h.hexdigest()
    return fp


def in_framework(filename: str) -> bool:
    return os.path.abspath(filename).startswith(INTERNAL_DIRS)


def _signature(flat, depth=0) -> str:
    """The kinds of the call's arguments (a tensor's shape and dtype, a scalar's value; nested
    lists/tuples a few levels deep: the guards check the rest)."""
    from runtime.tensor import Tensor
    if depth > 3:
        return "..."
    parts = []
    for v in flat:
        if isinstance(v, Tensor):
            parts.append(f"T{tuple(v.shape)}{v._data.dtype}{type(v._data).__module__}")
        elif isinstance(v, (int, float, str, bool, type(None))):
            parts.append(f"{type(v).__name__}={v!r}")
        elif isinstance(v, (tuple, list)):
            parts.append(f"{type(v).__name__}[{_signature(v, depth + 1)}]")
        else:
            parts.append(f"{type(v).__module__}.{type(v).__qualname__}")
    return ",".join(parts)


def entry_key(fn, flat, config) -> str:
    from runtime import context
    cfg = config.jit_config
    text = "\n".join([framework_fingerprint(), code_fingerprint(fn.__code__), _signature(flat),
                      repr((config.fullgraph, config.backend if isinstance(config.backend, str) else
                            (None if config.backend is None else "custom"), getattr(cfg, "jit_level", None),
                            config.max_instructions, config.resume_in_loops)),
                      repr((context.mode(), context.get_context("device_target"),
                            os.environ.get("CAPTURE_BACKEND"), os.environ.get("CAPTURE_JIT_LEVEL")))])
    return hashlib.sha256(text.encode()).hexdigest()


def persistable_config(config) -> bool:
    """Only named backends (not a callable such as a test's counting backend) are persisted."""
    return config.backend is None or isinstance(config.backend, str)


# -- naming objects ---------------------------------------------------------------------------------
class Unpersistable(Exception):
    """Something the entry holds cannot be named for another process: the entry is not saved."""


_BINDING = re.compile(r"^(?P<expr>.+) is (?P<name>o\d+(?:_\d+)?)(?P<call>\(\))?$")
_SAFE_VALUES = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis), range, slice, np.dtype,
                np.generic)


def _global_ref(obj):
    """(module, qualname) under which ``obj`` (a class or function) is importable, else None."""
    module = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if not module or not qual or "<locals>" in qual or module not in sys.modules:
        return None
    try:
        found = sys.modules[module]
        for part in qual.split("."):
            found = getattr(found, part)
    except AttributeError:
        return None
    if found is obj or (isinstance(obj, types.FunctionType) and getattr(found, "__func__", None) is obj):
        return module, qual
    return None


def _class_ref(cls):
    """(module, qualname) of a class: importable ones, and the interpreter's own types by their
    name in ``types`` (``types.FunctionType``)."""
    ref = _global_ref(cls)
    if ref is None:
        for name, value in vars(types).items():
            if value is cls:
                return "types", name
    return ref


def _module_dicts() -> dict:
    return {id(getattr(mod, "__dict__", None)): name for name, mod in list(sys.modules.items())}


def _framework_globals() -> dict:
    """id(value) -> (module, name) of the globals of the framework's modules (settings objects
    such as the context's state, found again by name in another process); made for each save,
    so a global rebound since the last one is seen as it is now."""
    index = {}
    for name, mod in list(sys.modules.items()):
        if name.partition(".")[0] in FRAMEWORK_PACKAGES:
            for attr, value in list(getattr(mod, "__dict__", {}).items()):
                index.setdefault(id(value), (name, attr))
    return index


_ROOT_NAMES = ("args", "C")


def _roots(fn, flat) -> dict:
    """What the expressions naming a frame's objects start from: the call's flat arguments and
    the root function's closure cells."""
    return {"args": flat, "C": fn.__closure__ or ()}


class _Namer:
    """Names every object an entry holds for another process: ``bound`` objects are found again
    from the call (``args``), the root function's globals and closure and other bound objects by
    an expression; ``refs`` are found without the call (a module's dict, an importable class or
    function, a framework module's global)."""

    def __init__(self, fn, flat, namespace, inlined=()):
        self.fn = fn
        self.namespace = namespace
        self.inlined = inlined  # the functions inlined into the entry
        self.env = _roots(fn, flat)
        self.bound = {}  # id -> name
        self.bindings = []  # (name, kind, expr) in evaluation order
        self.values = {}  # name -> object (this process)
        self.weak = set()  # names bound to a weak reference to their object
        self.extra = []  # (expr, desc) guards that check a bound object is what it was
        self.framework_globals = _framework_globals()
        self.module_dicts = _module_dicts()
        self.live = {}  # id -> persistent id of the containers the guards read live

    def bind(self, name, kind, expr, value):
        if kind == "weak":
            self.weak.add(name)
        self.bound[id(value)] = name
        self.values[name] = value
        self.bindings.append((name, kind, expr))
        self.env[name] = weakref.ref(value) if kind == "weak" else value
        cls_ref = _class_ref(type(value))
        if cls_ref is None:
            raise Unpersistable(f"{name}: its class {type(value).__qualname__} is not importable")
        ref = f"{name}{'()' if kind == 'weak' else ''}"
        tname = f"__cls_{len(self.extra)}"
        self.extra.append((f"type({ref}) is {tname}", tname, type(value)))
        if isinstance(value, (tuple, list)):
            self.extra.append((f"len({ref}) == {len(value)}", None, None))
        # an object's settings (a Primitive's attributes, a gradient function's flags, a
        # partial's bound arguments) made the graph, and only its identity is guarded in this
        # process: the object found in another one must have the same (``ReduceSum(keep_dims=
        # True)`` is another graph)
        for attr, setting in _settings(value):
            sname = f"__set_{len(self.extra)}"
            self.extra.append((f"getattr({ref}, {attr!r}, None) == {sname}", sname, setting))

    def bind_guards(self, exprs):
        """Bindings from identity guards ``EXPR is oN`` (and ``EXPR is oN()`` for weakly held
        Cells), in guard order: each EXPR reads only the call and names bound before it."""
        for expr in exprs:
            m = _BINDING.match(expr)
            if m is None or " and " in m["expr"] or " or " in m["expr"]:
                continue
            name = m["name"]
            if name in self.values:
                continue
            target = self.namespace.get(name)
            if m["call"]:
                target = target() if isinstance(target, weakref.ref) else None
            if target is None or isinstance(target, (types.ModuleType, dict)) or self._plain(target):
                continue
            try:
                found = eval(m["expr"], {"__builtins__": builtins}, dict(self.env))  # noqa: S307 - our guard text
            except Exception:
                continue
            if found is target:
                self.bind(name, "weak" if m["call"] else "eval", m["expr"], target)

    @staticmethod
    def _plain(value):
        return isinstance(value, _SAFE_VALUES) or value is None

    def search(self, target):
        """An expression reaching ``target`` from a bound object through ``__dict__`` attributes
        and tuple/list items (breadth first, :data:`SEARCH_DEPTH` steps), or None."""
        # (a weakly held Cell is reached through its reference: ``o3_4().network``); the call's
        # arguments and the root function's closure cells are roots too
        frontier = [(f"{name}()" if name in self.weak else name, v) for name, v in self.values.items()]
        flat, cells = self.env["args"], self.env["C"]
        frontier += [(f"args[{i}]", v) for i, v in enumerate(flat)]
        for i, cell in enumerate(cells):
            try:
                frontier.append((f"C[{i}].cell_contents", cell.cell_contents))
            except ValueError:  # an empty cell
                pass
        for expr, obj in frontier:
            if obj is target:
                return expr
        seen = {id(v) for _, v in frontier}
        for _ in range(SEARCH_DEPTH):
            nxt = []
            for expr, obj in frontier:
                for sub_expr, sub in _children(expr, obj):
                    if sub is target:
                        return sub_expr
                    if id(sub) not in seen and not self._plain(sub):
                        seen.add(id(sub))
                        nxt.append((sub_expr, sub))
            frontier = nxt
        return None

    def name_of(self, obj):
        """A persistent id for a live object (bound or found by :meth:`search`), else raise."""
        name = self.bound.get(id(obj))
        if name is not None:
            return name
        expr = self.search(obj)
        if expr is None:
            raise Unpersistable(f"no path from the frame's inputs to a {type(obj).__qualname__}")
        name = f"s{len(self.bindings)}"
        self.bind(name, "eval", expr, obj)
        return name


def _plain_setting(v) -> bool:
    from graph.dtypes import DType
    if isinstance(v, (_SAFE_VALUES, DType)) or v is None:
        return True
    if type(v) in (tuple, list):
        return all(map(_plain_setting, v))
    if type(v) is dict:
        return all(isinstance(k, str) and _plain_setting(x) for k, x in v.items())
    return False


def _settings(value) -> list:
    """(attribute, value) of the plain settings of a framework object other than a Cell or a
    tensor (whose attributes the guards read one by one) or of a ``functools.partial``; [] for
    anything else."""
    from runtime.nn.cell import Cell
    from runtime.tensor import Tensor
    if type(value) is functools.partial:
        return [(k, getattr(value, k)) for k in ("args", "keywords") if _plain_setting(getattr(value, k))]
    module = getattr(type(value), "__module__", "") or ""
    if module.split(".")[0] not in FRAMEWORK_PACKAGES or isinstance(value, (Cell, Tensor, type)):
        return []
    d = getattr(value, "__dict__", None)
    if not isinstance(d, dict):
        return []
    return [(k, v) for k, v in sorted(d.items()) if isinstance(k, str) and _plain_setting(v)]


def _children(expr, obj):
    if isinstance(obj, (tuple, list)) and len(obj) <= 256:
        for i, v in enumerate(obj):
            yield f"{expr}[{i}]", v
    d = getattr(obj, "__dict__", None)
    if isinstance(d, dict) and not isinstance(obj, (type, types.ModuleType)):
        for k, v in list(d.items()):
            if isinstance(k, str) and k.isidentifier():
                yield f"{expr}.{k}", v


#: types always pickled by value, decided before anything else (most of what an entry holds)
_QUICK = frozenset({str, int, float, bool, tuple, bytes, type(None), complex})


class _Pickler(pickle.Pickler):
    """Pickles an entry's pieces, naming every live object instead of copying it."""

    def __init__(self, file, namer):
        super().__init__(file, protocol=4)
        self.namer = namer
        self.allow_bound = True
        from graph.aval import AVal
        from graph.dtypes import DType
        from graph.ir import Graph, Node, Value
        from graph.ops.core import Op
        from runtime.nn.cell import Cell
        from runtime.tensor import Tensor
        self._quick = _QUICK | {AVal, Graph, Node, Value}
        self._DType, self._Op, self._live = DType, Op, (Tensor, Cell)

    def _bound(self, obj):
        if not self.allow_bound:
            if id(obj) in self.namer.bound:
                return ("bound", self.namer.bound[id(obj)])
            raise Unpersistable(f"a {type(obj).__qualname__} must be found from the call")
        return ("bound", self.namer.name_of(obj))

    def persistent_id(self, obj):
        if type(obj) in self._quick:
            return None
        if isinstance(obj, self._Op):
            return ("op", obj.name)
        if isinstance(obj, self._DType):
            return ("dtype", obj.name)
        if isinstance(obj, self._live):
            return self._bound(obj)
        if isinstance(obj, (np.ndarray, np.dtype, np.generic)):
            return None
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            if id(obj) in self.namer.bound:
                return ("bound", self.namer.bound[id(obj)])
            ref = _class_ref(obj) if isinstance(obj, type) else _global_ref(obj)
            if ref is None:
                return self._bound(obj)  # a local function: reached from the frame's objects
            return ("global",) + ref
        if isinstance(obj, types.ModuleType):
            return ("module", obj.__name__)
        if isinstance(obj, types.CodeType):
            # an inlined function's code (guarded: it may be replaced): the function's code when
            # the entry is loaded (which the load checks against the code saved: ``functions``)
            owner = next((f for f in self.namer.inlined if f.__code__ is obj), None)
            if owner is None:
                raise Unpersistable("a code object of no inlined function")
            return ("code_of", self.persistent_id(owner))
        if isinstance(obj, dict):
            if obj is self.namer.fn.__globals__:
                return ("root_globals",)
            mod = self.namer.module_dicts.get(id(obj))
            if mod is not None:
                return ("moddict", mod)
        if isinstance(obj, (dict, list, set)):
            # a live container the guards read (decided by _encode), else a value
            if id(obj) in self.namer.bound:
                return ("bound", self.namer.bound[id(obj)])
            return self.namer.live.get(id(obj))
        if isinstance(obj, types.CellType):
            for i, c in enumerate(self.namer.fn.__closure__ or ()):
                if c is obj:
                    return ("root_cell", i)
            raise Unpersistable("a closure cell of another function")
        if type(obj).__module__ in ("builtins", "collections") or isinstance(obj, _SAFE_VALUES):
            return None
        if id(obj) in self.namer.bound:
            return ("bound", self.namer.bound[id(obj)])
        if (type(obj).__module__, type(obj).__qualname__) in _ALLOWED_CLASS:
            return None  # IR and capture plumbing: pickled by value
        attr = self.namer.framework_globals.get(id(obj))
        if attr is not None:
            return ("modattr",) + attr
        return self._bound(obj)


_ALLOWED_CLASS = frozenset([
    ("graph.ir", "Graph"), ("graph.ir", "Node"), ("graph.ir", "Value"), ("graph.aval", "AVal"),
    ("capture.sources", "ArgSource"), ("capture.sources", "ObjectSource"), ("capture.sources", "AttrSource"),
    ("capture.sources", "GlobalSource"), ("capture.sources", "ItemSource"), ("capture.sources", "CellSource"),
    ("capture.reconstruct", "OutputPlan"), ("graph.passes.schedule", "Schedule"),
    ("graph.passes.schedule", "Kernel"),
])
_ALLOWED_BUILTINS = frozenset({"tuple", "list", "dict", "set", "frozenset", "slice", "range", "complex",
                               "bytearray"})


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, resolve):
        super().__init__(file)
        self.resolve = resolve

    def persistent_load(self, pid):
        return self.resolve(pid)

    def find_class(self, module, name):
        if (module, name) in _ALLOWED_CLASS:
            return super().find_class(module, name)
        if module == "builtins" and name in _ALLOWED_BUILTINS:
            return super().find_class(module, name)
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        if module.split(".")[0] == "numpy" and name in ("_reconstruct", "ndarray", "dtype", "scalar") or \
                (module == "numpy.dtypes" and name.endswith("DType")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a capture cache file")


# -- saving ----------------------------------------------------------------------------------------------
def save(fn, flat, config, entry, inlined) -> str | None:
    """Save a freshly compiled entry; None, or why it was not saved."""
    if not enabled():
        return "the disk cache is off"
    if entry.plan is not None or entry.graph is None or not persistable_config(config):
        return "only whole compiled frames with a named backend are saved"
    key = entry_key(fn, flat, config)
    try:
        payload = _encode(fn, flat, key, entry, inlined)
    except Unpersistable as e:
        log.debug("capture: %s not saved for a warm start: %s", entry.name, e)
        return str(e)
    except Exception as e:  # noqa: BLE001 - saving is an optimisation; never fail the compile
        log.debug("capture: %s not saved for a warm start: %s: %s", entry.name, type(e).__name__, e)
        return f"{type(e).__name__}: {e}"
    STORE.store(key, payload)
    return None


def _encode(fn, flat, key, entry, inlined) -> bytes:
    gs = entry.guard_set
    namer = _Namer(fn, flat, gs.namespace, inlined)
    # what the guards name without an identity guard: found again without the call (a module's
    # dict, an importable class, a framework setting) or rebuilt as a value; then the bindings
    early, late = [], {}  # early: names whose values pickle without the call
    identified = {m["name"] for m in map(_BINDING.match, gs.exprs) if m is not None}
    for name, value in gs.namespace.items():
        if name == "np" or isinstance(value, weakref.ref):
            continue
        if isinstance(value, (dict, list, set)) and id(value) not in namer.module_dicts and \
                value is not fn.__globals__:
            # a container the guards read: a framework setting (found by name), else decided
            # once the frame's objects are bound
            attr = namer.framework_globals.get(id(value))
            if attr is None:
                late[name] = value
                continue
            namer.live[id(value)] = ("modattr",) + attr
        elif name in identified and not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
            late[name] = value  # the guards want this very object: bound from the call below
            continue
        try:
            _pickled(value, namer, allow_bound=False)  # (a probe: they are pickled in the head)
            early.append(name)
            namer.env[name] = value
        except Unpersistable:
            late[name] = value
    namer.bind_guards(gs.exprs)
    for name, value in late.items():
        if isinstance(value, (dict, list, set)) and name not in namer.values and namer.search(value) is not None:
            # a container reached from the frame's objects is read live; else it is a value of
            # the guards' own (a list of keys)
            namer.live[id(value)] = ("bound", namer.name_of(value))
    for name, value in gs.namespace.items():
        if isinstance(value, weakref.ref) and name not in namer.values:
            raise Unpersistable(f"{name}: a weakly held object the guards never bound")
    late = {k: v for k, v in late.items() if k not in namer.values}
    early = [k for k in early if k not in namer.values]  # a class or function bound by a guard
    functions = []
    for f in dict.fromkeys(inlined):  # (a function inlined at every call site is listed once)
        code = f.__code__
        if in_framework(code.co_filename) or code is fn.__code__:
            continue
        functions.append((f, code_fingerprint(code)))
    body = _pickled({
        "format": FORMAT, "marker": _marker(key).decode(), "name": entry.name,
        "exprs": list(gs.exprs), "descs": list(gs.descs), "namespace": late,
        "graph": entry.graph, "sources": list(entry.sources), "template": entry.template,
        "functions": functions, "schedule": compiled_schedule(entry.runner, entry.config, entry.device),
    }, namer)
    # the bindings (and the class checks) are complete only once everything is pickled (naming
    # the graph's Parameters may have searched for some): they go in front, in a second pickle
    head = _pickled({"namespace": {k: gs.namespace[k] for k in early}, "bindings": namer.bindings,
                     "extra": [e for e, _, _ in namer.extra],
                     "classes": {t: cls for _, t, cls in namer.extra if t}}, namer, allow_bound=False)
    return b"\x80" + len(head).to_bytes(8, "little") + head + body


def _pickled(value, namer, allow_bound=True):
    """``value`` pickled with live objects named (``allow_bound=False``: raise Unpersistable
    instead of binding or searching)."""
    buf = io.BytesIO()
    p = _Pickler(buf, namer)
    p.allow_bound = allow_bound
    p.dump(value)
    return buf.getvalue()


def schedule_applies(config, device) -> bool:
    """Whether entries of ``config`` on ``device`` are compiled from a saved schedule: the default
    CPU backend compiles the optimised schedule (saved too, so a warm start also skips the
    passes); other backends and ``CAPTURE_VERIFY`` runs compile the graph."""
    from .backends import default_backend
    name = config.backend if config.backend is not None else default_backend(device)
    return name == "llvm" and os.environ.get("CAPTURE_VERIFY") != "1"


def compiled_schedule(runner, config, device):
    """The schedule ``runner`` compiled when :func:`schedule_applies`, else None."""
    return getattr(runner, "schedule", None) if schedule_applies(config, device) else None


# -- loading ----------------------------------------------------------------------------------------------
class _Stale(Exception):
    """A saved entry does not apply to this process (or its file is damaged)."""


def load(fn, flat, config, cache_entry_factory):
    """The saved entry for this call, rebuilt in this process, or None."""
    if not enabled() or not persistable_config(config):
        return None
    key = entry_key(fn, flat, config)
    data = STORE.load(key)
    if data is None:
        return None
    try:
        return _decode(fn, flat, key, data, cache_entry_factory)
    except Exception as e:  # noqa: BLE001 - a saved entry is an optimisation: any failure translates anew
        log.debug("capture: saved entry of %s not used: %s: %s", fn.__qualname__, type(e).__name__, e)
        return None


def _decode(fn, flat, key, data, make_entry):
    from graph.dtypes import ALL as DTYPES
    from graph.ops.core import REGISTRY
    if data[:1] != b"\x80":
        raise _Stale("not a capture entry")
    n = int.from_bytes(data[1:9], "little")
    head, body = data[9:9 + n], data[9 + n:]
    env = _roots(fn, flat)
    dtypes = {d.name: d for d in DTYPES}

    def resolve(pid):
        if pid[0] == "code_of":  # an inlined function's code, as the function has it when loaded
            return lookup(pid[1]).__code__
        return lookup(pid)

    def lookup(pid):
        kind = pid[0]
        if kind == "op":
            return REGISTRY[pid[1]]
        if kind == "dtype":
            return dtypes[pid[1]]
        if kind == "bound":
            if pid[1] not in env:
                raise _Stale(f"{pid[1]} is not bound yet")
            value = env[pid[1]]
            return value() if isinstance(value, weakref.ref) else value
        if kind == "global":
            module, qual = pid[1], pid[2]
            if module not in sys.modules:
                raise _Stale(f"module {module} is not imported")
            found = sys.modules[module]
            for part in qual.split("."):
                found = getattr(found, part)
            return found
        if kind == "module":
            return sys.modules[pid[1]]
        if kind == "root_globals":
            return fn.__globals__
        if kind == "moddict":
            return sys.modules[pid[1]].__dict__
        if kind == "modattr":
            return getattr(sys.modules[pid[1]], pid[2])
        if kind == "root_cell":
            return (fn.__closure__ or ())[pid[1]]
        raise _Stale(f"unknown reference {pid!r}")

    # bindings are evaluated in order, each from the call and the names before it; a binding's
    # own references (the root globals, classes) resolve without the call
    meta = _Unpickler(io.BytesIO(head), _without_bindings(resolve)).load()
    env.update(meta["namespace"])
    for name, kind, expr in meta["bindings"]:
        try:
            value = eval(expr, {"__builtins__": builtins}, dict(env))  # noqa: S307 - text from our own file
        except Exception as e:
            raise _Stale(f"{name} = {expr}: {type(e).__name__}") from None
        env[name] = weakref.ref(value) if kind == "weak" else value
    doc = _Unpickler(io.BytesIO(body), resolve).load()
    if doc.get("format") != FORMAT or doc.get("marker") != _marker(key).decode():
        raise _Stale("another format or key")
    for f, fingerprint in doc["functions"]:
        if code_fingerprint(f.__code__) != fingerprint:
            raise _Stale(f"the code of {f.__qualname__} changed")
    from .guards import GuardSet
    namespace = {k: v for k, v in env.items() if k not in _ROOT_NAMES}
    namespace.update(doc["namespace"])
    # the objects found again are what they were (checked once: from now on the guards hold
    # them by identity, as for an entry compiled in this process)
    found = GuardSet()
    found.namespace.update(namespace)
    found.namespace.update(meta["classes"])
    for expr in meta["extra"]:
        found.add(expr)
    gs = GuardSet()
    gs.namespace.update(namespace)
    for expr, desc in zip(doc["exprs"], doc["descs"]):
        gs.add(expr, desc)
    for check_set in (found, gs):
        check = check_set.compile()
        try:
            ok = check(flat)
        except Exception:
            ok = False
        if not ok:
            raise _Stale(f"a guard fails: {check_set.first_failure(flat)}")
    return make_entry(gs, doc, check)  # (check: the entry's own guards, compiled once)


def _without_bindings(resolve):
    """``resolve`` for the file's head, which only names what is found without the call."""
    def r(pid):
        if pid[0] == "bound":
            raise _Stale("a binding refers to a bound object")
        return resolve(pid)
    return r
