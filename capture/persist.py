"""Warm start, correct by construction: the pass pipeline's result kept on disk, keyed by the graph.

Every process translates its own frames: translation reads *that* process's objects (its
arrays, its monkeypatched functions, its Cells' precision, which objects are the same object)
and builds that process's guards. Nothing a trace read is ever carried to another process, so
there is nothing to re-establish on load and no list of cases to keep complete.

What another process may reuse is only what the traced graph determines:

* the optimised :class:`graph.passes.schedule.Schedule` (graph passes, fusion into kernels,
  memory plan) -- saved here, one file per graph;
* the kernels' object code -- ``codegen/cpu`` keeps it in its own cache, keyed by each kernel's
  canonical description (:func:`codegen.cpu.compiler.build_described`).

A schedule's key is the sha256 of: this module's format, :func:`framework_fingerprint` (the
*content* of the framework's source files and the versions of Python, numpy and llvmlite,
:func:`codegen.cpu.diskcache.framework_fingerprint`; an edit that keeps a file's size and
modification time still changes it), the
backend and pass-pipeline level, and :func:`graph.passes.canonical.canonical_text` of the traced
graph (ops, operands, attributes, input avals, constants' bytes, outputs, updates, and which
nodes share a source location). Equal keys mean the same graph given to the same pipeline, which computes the same
schedule, so loading one is never less correct than computing it. A graph whose text cannot be
stated exactly (an attribute of an unknown type, a user-registered op) is compiled, not cached.

Source locations (the lines messages point at) are not in the key, only how the nodes share
them: a script edited above the code it runs (a comment, an import) keeps its keys; nor are the
names of the graph, its inputs and constants (a renamed function, argument or Cell attribute
keeps them too; the loaded schedule takes this graph's names). A saved
schedule names each node's location by its class in the traced graph, and a loaded one takes
this process's location of that class: the very locations a schedule computed here would carry
(the passes only copy the traced nodes' locations; a schedule with any other is not saved).

Files are read with :meth:`codegen.cpu.diskcache.Store.load` (regular files only, bounded,
checksummed, bound to their key) and unpickled through an allowlist (IR and schedule classes,
numpy arrays, plain values; ops and dtypes by registry name): a file can only name graph data,
never a callable to run. A file that fails any check is deleted and the graph compiled anew.

Environment: ``CAPTURE_DISK_CACHE=0`` turns this cache off; ``CAPTURE_DISK_CACHE=always``
compiles every graph from the copy read back from disk, even the first time (the CI run of the
capture suite: loaded schedules must behave exactly like fresh ones). ``MSJIT_NO_CACHE=1`` or an
empty ``MSJIT_CACHE_DIR`` turns off every disk cache.

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph
    >>> from graph.ops import F
    >>> g = Graph("f"); x = g.add_input(AVal((2, 3), float32), "x"); g.set_outputs([F.mul(x, 2.0)])
    >>> schedule_key(g, "llvm", "O1") == schedule_key(g, "llvm", "O1") != schedule_key(g, "llvm", "O2")
    True
"""
from __future__ import annotations

import hashlib
import io
import logging
import os
import pickle

import numpy as np

from codegen.cpu import diskcache
from graph import config as settings
from graph.passes.canonical import Uncacheable, canonical_text, location_classes
from .errors import interrupting

log = logging.getLogger("capture")

FORMAT = 3
_MAGIC = b"MSJITS1\n"
_SUFFIX = ".sched"
#: files of earlier formats, deleted by :func:`clear`
_OLD_SUFFIXES = (".capture",)
#: what a cache lookup did in this process (tests read it: a warm run must really hit)
STATS = {"hits": 0, "misses": 0, "saved": 0, "uncacheable": 0, "rejected": 0}


def _marker(key: str) -> bytes:
    return b"msjit-schedule-key:" + key.encode("ascii")


STORE = diskcache.Store(_SUFFIX, _MAGIC, _marker, lambda payload: payload[:1] == b"\x80")


def mode() -> str:
    """``"0"`` (off), ``"1"`` (on) or ``"always"`` (round-trip every schedule through the disk)."""
    return settings.get("CAPTURE_DISK_CACHE")


def enabled() -> bool:
    return mode() != "0" and diskcache.cache_dir() is not None


def clear() -> None:
    """Delete every saved schedule (``capture.reset(disk=True)``); kernels' object files stay."""
    root = diskcache.cache_dir()
    if not root or not os.path.isdir(root):
        return
    for sub in os.listdir(root):
        d = os.path.join(root, sub)
        if not os.path.isdir(d) or os.path.islink(d):
            continue
        for f in os.listdir(d):
            if f.endswith((_SUFFIX,) + _OLD_SUFFIXES):
                try:
                    os.remove(os.path.join(d, f))
                except OSError:
                    pass


# -- the framework's content ------------------------------------------------------------------------------
#: sha256 over the content of the framework's source files (see codegen/cpu/diskcache.py): part
#: of every key of the schedules (here) and of the kernels (codegen/cpu/compiler.py)
framework_fingerprint = diskcache.framework_fingerprint


# -- keys -------------------------------------------------------------------------------------------------
def schedule_key(graph, backend: str, level: str) -> str:
    """The cache key of ``graph``'s schedule under ``backend`` at pipeline ``level`` (see the
    module docstring); raises :class:`graph.passes.canonical.Uncacheable`."""
    h = hashlib.sha256(f"msjit-schedule {FORMAT}\n{framework_fingerprint()}\n{backend} {level}\n".encode())
    h.update(canonical_text(graph).encode())
    return h.hexdigest()


# -- (un)pickling: graph data only ------------------------------------------------------------------------
class _Pickler(pickle.Pickler):
    """Ops and dtypes by their registry names; a Parameter a PARAM input refers to (``Value.ref``,
    this process's object) is left out: the loaded graph gets the new process's own."""

    def __init__(self, file):
        super().__init__(file, protocol=4)
        from graph.dtypes import DType
        from graph.ops.core import Op
        from runtime.tensor import Tensor
        self._Op, self._DType, self._Tensor = Op, DType, Tensor

    def persistent_id(self, obj):
        if isinstance(obj, self._Op):
            return ("op", obj.name)
        if isinstance(obj, self._DType):
            return ("dtype", obj.name)
        if isinstance(obj, self._Tensor):
            return ("ref",)
        return None


_ALLOWED_CLASS = frozenset([
    ("graph.ir", "Graph"), ("graph.ir", "Node"), ("graph.ir", "Value"), ("graph.aval", "AVal"),
    ("graph.passes.schedule", "Schedule"), ("graph.passes.schedule", "Kernel"),
])
_ALLOWED_BUILTINS = frozenset({"tuple", "list", "dict", "set", "frozenset", "slice", "range", "complex",
                               "bytearray"})


class _Unpickler(pickle.Unpickler):
    """Refuses every class but the IR's, the schedule's, plain containers and numpy arrays."""

    def persistent_load(self, pid):
        from graph.dtypes import ALL as DTYPES
        from graph.ops.core import REGISTRY
        kind = pid[0] if isinstance(pid, tuple) and pid else None
        if kind == "op" and pid[1] in REGISTRY:
            return REGISTRY[pid[1]]
        if kind == "dtype":
            for d in DTYPES:
                if d.name == pid[1]:
                    return d
        if kind == "ref":
            return None
        raise pickle.UnpicklingError(f"unknown reference {pid!r} in a schedule file")

    def find_class(self, module, name):
        if (module, name) in _ALLOWED_CLASS:
            return super().find_class(module, name)
        if module == "builtins" and name in _ALLOWED_BUILTINS:
            return super().find_class(module, name)
        if module.split(".")[0] == "numpy" and name in ("_reconstruct", "ndarray", "dtype", "scalar") or \
                (module == "numpy.dtypes" and name.endswith("DType")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a schedule file")


def _const_origins(schedule, graph) -> list:
    """For each constant of the schedule's graph, the index of the traced graph's constant whose
    very array it holds (the passes keep it), else -1 (a constant the passes made)."""
    index = {id(v.data): i for i, v in enumerate(graph.consts) if v.data is not None}
    return [index.get(id(v.data), -1) for v in schedule.graph.consts]


def _schedule_nodes(schedule) -> list:
    """Every node of the schedule (its graph's, and its kernels', which are the same objects)."""
    seen, nodes = set(), []
    for node in [*schedule.graph.nodes, *(n for k in schedule.kernels for n in k.nodes)]:
        if id(node) not in seen:
            seen.add(id(node))
            nodes.append(node)
    return nodes


def _location_origins(schedule, graph) -> list:
    """For each node of the schedule (:func:`_schedule_nodes`), the class of its source location
    in the traced graph (:func:`graph.passes.canonical.location_classes`), or -1 for none; raises
    :class:`Uncacheable` for a location the traced graph does not have (a later process could not
    give it its own)."""
    classes = location_classes(graph.nodes)
    origins = []
    for node in _schedule_nodes(schedule):
        if not node.loc:
            origins.append(-1)
        elif node.loc in classes:
            origins.append(classes[node.loc])
        else:
            raise Uncacheable(f"the schedule's {node.op.name} has a source location the traced graph lacks")
    return origins


def _dump(key: str, schedule, graph) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf).dump({"format": FORMAT, "key": _marker(key).decode(), "schedule": schedule,
                        "const_origins": _const_origins(schedule, graph),
                        "location_origins": _location_origins(schedule, graph)})
    return buf.getvalue()


def _load(key: str, payload: bytes, graph):
    """The schedule in ``payload`` made for ``graph`` (its PARAM inputs refer to this process's
    Parameters), or raise."""
    from graph.passes.schedule import Schedule
    doc = _Unpickler(io.BytesIO(payload)).load()
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("key") != _marker(key).decode():
        raise ValueError("another format or key")
    schedule = doc["schedule"]
    if type(schedule) is not Schedule:
        raise ValueError("not a schedule")
    loaded = schedule.graph
    # (no ``verify()``: the file is checksummed and bound to a key naming this very graph, and
    # was written by the same framework; a cheap check that its graph takes this call's inputs)
    if [(v.kind, v.aval) for v in loaded.inputs] != [(v.kind, v.aval) for v in graph.inputs] or \
            len(loaded.outputs) != len(graph.outputs):
        raise ValueError("the schedule's graph does not take this graph's inputs")
    for mine, traced in zip(loaded.inputs, graph.inputs):
        mine.ref, mine.name = traced.ref, traced.name  # (names are not in the key: labels only)
    # a constant the traced graph holds is this process's own array, as in a schedule computed
    # here (the key says its bytes are the file's; a later in-place change of it is then seen
    # alike by both)
    origins = doc.get("const_origins")
    if not isinstance(origins, list) or len(origins) != len(loaded.consts):
        raise ValueError("no constant origins")
    for mine, origin in zip(loaded.consts, origins):
        if type(origin) is not int or origin >= len(graph.consts):
            raise ValueError("a bad constant origin")
        if origin >= 0:
            traced = graph.consts[origin]
            if traced.aval != mine.aval or np.asarray(traced.data).dtype != np.asarray(mine.data).dtype:
                raise ValueError("a constant that does not match the traced graph's")
            mine.data, mine.name = traced.data, traced.name
    # each node's source location is this process's location of its class (the key says the
    # traced graphs share locations alike; only the files' lines may differ)
    locations = list(location_classes(graph.nodes))
    nodes = _schedule_nodes(schedule)
    origins = doc.get("location_origins")
    if not isinstance(origins, list) or len(origins) != len(nodes):
        raise ValueError("no source location origins")
    for node, origin in zip(nodes, origins):
        if type(origin) is not int or not -1 <= origin < len(locations):
            raise ValueError("a bad source location origin")
        node.loc = locations[origin] if origin >= 0 else None
    loaded.current_loc = None  # (where the saving process's trace last was)
    loaded.name = graph.name  # (not in the key: the function may have been renamed since)
    return schedule


# -- the cache --------------------------------------------------------------------------------------------
#: keys this process saved (a later hit on one of them is no warm start: nothing came from another run)
_SAVED_HERE: set = set()


def cached_schedule(graph, level: str, optimize, backend: str = "llvm"):
    """(schedule of ``graph``, whether it came from an earlier process: read from the disk cache
    under a key this process did not save). ``optimize(graph, level)`` computes it on a miss
    (and the result is saved)."""
    if not enabled():
        return optimize(graph, level), False
    try:
        key = schedule_key(graph, backend, level)
    except Uncacheable as e:
        STATS["uncacheable"] += 1
        log.debug("capture: the schedule of %s is not cached: %s", graph.name, e)
        return optimize(graph, level), False
    payload = STORE.load(key)
    if payload is not None:
        try:
            schedule = _load(key, payload, graph)
        except Exception as e:  # a damaged or foreign file is a miss, never trusted
            if interrupting(e) is not None:  # the user's signal (a Timeout): not the file's fault
                raise
            log.debug("capture: saved schedule of %s refused: %s: %s", graph.name, type(e).__name__, e)
            STATS["rejected"] += 1
            STORE.discard(key)
        else:
            STATS["hits"] += 1
            return schedule, key not in _SAVED_HERE or mode() == "always"
    STATS["misses"] += 1
    schedule = optimize(graph, level)
    try:
        payload = _dump(key, schedule, graph)
    except Exception as e:  # saving is an optimisation; never fail the compile
        if interrupting(e) is not None:
            raise
        log.debug("capture: schedule of %s not saved: %s: %s", graph.name, type(e).__name__, e)
        return schedule, False
    STORE.store(key, payload)
    _SAVED_HERE.add(key)
    STATS["saved"] += 1
    if mode() == "always":
        # compile from the copy read back (what a later process would run), when it could be saved
        reread = STORE.load(key)
        if reread is not None:
            return _load(key, reread, graph), True
    return schedule, False
