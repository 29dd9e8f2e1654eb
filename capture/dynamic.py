"""Dynamic dimensions: one translation serves every length of an input dimension the traced code
is provably polymorphic in, instead of one translation (and, past the recompile limit, eager) per
length.

The IR is static (``graph.aval.AVal``): a graph traced at batch ``n`` holds ``n`` in its shapes.
It is reused at another length ``m`` only where re-running the ops' shape inference over its nodes
(``Graph.add_node`` infers each node's AVal from the registry's rules) gives exactly the graph a
translation at ``m`` would give. That is decided by comparing two real traces, as TorchDynamo's
automatic dynamic marks a dimension dynamic after a second distinct value:

* the two entries' guards differ only in one tensor argument's size in one dimension
  (``n1 != n2``, both >= 2: sizes 0 and 1 change what broadcasting means and stay specialised);
* the translator's log of sizes the Python code read (``GraphBuilder.shape_reads``: ``x.shape[0]``,
  ``len(x)``, ``x.size``, iterating over a tensor, a whole shape read by framework code) is the
  same in both traces, so no Python code saw the dimension (no branch, loop or arithmetic on it);
* re-inferring the first graph at ``n2`` gives the second graph: the same ops, inputs, Python
  scalars and constants (values and shapes), the same avals everywhere, the same outputs,
  parameter updates, input sources and output plan. An attribute or Python number operand may
  differ where both traces computed it by the same *size expression* (capture.symbolic_sizes:
  ``batch * heads``, ``n // 2 + 1``, a VJP rule's ``tuple(x.shape)``, leaves naming dims of graph
  values by position), evaluated at re-instantiation on the re-inferred graph; otherwise only by
  holding ``n1`` where the other holds ``n2`` (a size copied as a plain int), and a Python number
  operand only by being the size itself (a mean's gradient divides by its count). After
  re-instantiating at ``n2``, every node's avals, attributes and number operands must equal the
  second trace's. A constant or number that depends on the size otherwise (``1/n``, a tensor of
  the size's shape) differs, so the dimension is refused. Comparisons and branches on sizes,
  ``len(x)``, ``range(n)`` and builtins such as ``min(n, 4)`` read the value: logged, so they
  refuse the dimension (the reads differ).

When the check passes the two entries become one *shape-generic* entry whose guard checks the
argument's type, dtype, rank, other sizes and ``size >= 2`` (and a declared ``Symbol``'s range,
divisor and remainder) instead of the size. A new size re-instantiates the first graph (no
translation, no new guards), runs it through the reference interpreter for its first calls and
compiles the backend for those concrete shapes once the size recurs (:data:`TIER_UP_CALLS`), kept
per size on the entry (at most :data:`MAX_INSTANCES`, least recently used dropped): kernels are
still specialised per size (the on-disk cache of ``capture.persist`` keys them on the graph, so
another process compiles a size once). Guards, the argument fetch and the call in C
(capture/fast_call.py) are the entry's; only the runner is picked per size
(:meth:`DynamicShape.call`). When the check fails, sizes keep being specialised as before and
``explain()`` says why.

Dimensions declared dynamic (``Cell.set_inputs``, ``jit(input_signature=...)`` with None or a
``Symbol``) use the same mechanism; a declared dimension's new size is not counted against the
recompile limit.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from graph import config
from graph.ir import Graph, Value

from . import symbolic_sizes

#: whether entries may become shape-generic (``CAPTURE_DYNAMIC=0``: every size specialised)
ENABLED = config.get("CAPTURE_DYNAMIC")

#: False only in tests showing that the comparison is what keeps results right: differences
#: between the traces are then ignored, Python numbers are not substituted (attribute
#: substitutions are still found where they exist)
CHECK = True

#: compiled sizes one shape-generic entry keeps (least recently used first out)
MAX_INSTANCES = 64
#: a new size runs its re-instantiated graph through the reference interpreter (the ops' own
#: array code, no compiling) until its call number TIER_UP_CALLS, which compiles it with the
#: backend: a size met once (a growing decode input) costs no compile, a recurring one runs
#: compiled. 1: compile at the first call. (A padded-text training step compiles in ~1-3 s with
#: llvm on a loaded 2-core machine, and runs interpreted at ~1.5-2x its PyNative time: a size
#: pays its compile back only after many calls.)
TIER_UP_CALLS = 8
#: the smallest size a generic entry serves: 0 and 1 stay specialised (broadcasting)
MIN_GENERIC_SIZE = 2



def _tensor_argument(guard):
    """(flat index, what tracing saw) of a guard on a top-level tensor argument, else None."""
    from .sources import Arg
    if guard.seen is None or guard.seen[1][0] != "tensor" or type(guard.source) is not Arg:
        return None
    return guard.source.index, guard.seen[1]


# -- which dimension: the guards ---------------------------------------------------------------------
class SizeSymbol:
    """One size that varies: the (argument index, dim) pairs that hold it (a batch shared by
    inputs and labels), its size in the first trace (``n1``) and in the second (``n2``)."""

    __slots__ = ("dims", "n1", "n2")

    def __init__(self, dims, n1, n2):
        self.dims, self.n1, self.n2 = tuple(dims), n1, n2

    def __repr__(self):
        return f"SizeSymbol({self.dims}, {self.n1} -> {self.n2})"


def size_changes(guard_set, flat):
    """The sizes by which ``flat`` fails ``guard_set``, as :class:`SizeSymbol` s (grouped by old
    and new size), when every failing guard is a top-level tensor argument's guard whose type,
    dtype and rank still hold, and no two groups share an old or a new size (a size must name one
    symbol in both traces). Else None."""
    failing = list(guard_set.failures(flat))
    if not failing:
        return None
    groups: dict = {}
    for guard in failing:
        arg = _tensor_argument(guard)
        if arg is None:
            return None
        i, (_, cls, array_type, shape, dtype) = arg
        now = flat[i] if i < len(flat) else None
        if type(now) is not cls or type(getattr(now, "_data", None)) is not array_type or now.dtype != dtype:
            return None
        new_shape = tuple(now.shape)
        if len(new_shape) != len(shape):
            return None
        for d, (a, b) in enumerate(zip(shape, new_shape)):
            if a != b:
                groups.setdefault((a, b), []).append((i, d))
    if not groups:
        return None
    olds = [a for a, _b in groups]
    news = [b for _a, b in groups]
    if len(set(olds)) != len(olds) or len(set(news)) != len(news):
        return None
    return tuple(SizeSymbol(dims, a, b) for (a, b), dims in groups.items())


def declared_dims(fn, flat, config) -> dict:
    """{(flat index, dim): Symbol or None} declared dynamic for this call: by ``input_signature``
    (a method's ``self`` not counted) or by ``set_inputs`` of the Cell whose construct this is."""
    from runtime.dynamic_shape import dynamic_dims
    from runtime.nn.cell import Cell
    sig = getattr(config, "input_signature", None)
    if sig is not None:
        code = fn.__code__
        offset = 1 if code.co_argcount and code.co_varnames[0] == "self" and len(flat) == len(sig) + 1 else 0
        return {(i + offset, d): s for (i, d), s in dynamic_dims(sig).items()}
    if flat and isinstance(flat[0], Cell) and flat[0]._dynamic_inputs is not None:
        own = type(flat[0]).construct
        if getattr(own, "__wrapped_jit__", own) is fn:
            return {(i + 1, d): s for (i, d), s in dynamic_dims(flat[0]._dynamic_inputs).items()}
    return {}


# -- the two traces ------------------------------------------------------------------------------------
class Refused(Exception):
    """The two traces do not show the code to be polymorphic in the dimension (the message says why)."""


def _same_object(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same_object(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_object(a[k], b[k]) for k in a)
    if isinstance(a, (int, float, str, bytes, bool, complex, type(None), np.generic, np.dtype)):
        return a == b or (a != a and b != b)
    if hasattr(type(a), "__slots__") and type(a).__module__.startswith("capture."):  # sources, recipes
        return all(_same_object(getattr(a, s, None), getattr(b, s, None)) for s in type(a).__slots__)
    import weakref
    if isinstance(a, weakref.ref):
        return a() is not None and a() is b()
    return False


def _check_shape_reads(old, new):
    """The Python code of both traces read the same sizes (so none read the dynamic one)."""
    if old.shape_reads != new.shape_reads and CHECK:
        raise Refused("Python code read the size (x.shape / len(x) / x.size / iteration): "
                      f"sizes read {_short(old.shape_reads)} vs {_short(new.shape_reads)}")


def _check_guards(old, new, symbols):
    """The guard sets are the same but for the tensor guards of the arguments with a symbol."""
    go, gn = old.guard_set, new.guard_set
    if len(go.exprs) != len(gn.exprs):
        raise Refused("the traces made different guards")
    args = {i for sym in symbols for i, _d in sym.dims}
    for a, b, ga, gb in zip(go.exprs, gn.exprs, go.guards, gn.guards):
        if a == b:
            continue
        ia, ib = _tensor_argument(ga), _tensor_argument(gb)
        if ia is None or ib is None or ia[0] != ib[0] or ia[0] not in args:
            raise Refused("the traces made different guards")
    if set(go.namespace) != set(gn.namespace) or not all(_same_object(go.namespace[k], gn.namespace[k])
                                                         for k in go.namespace if k != "np"):
        raise Refused("the traces guard different objects")


def _operand(pos, v):
    return pos.get(v, ("?",)) if isinstance(v, Value) else ("py", type(v), v)


def _attr_substitutions(a, b, pairs, path=()):
    """``[(position, symbol index)]`` where attribute value ``a`` (first trace) holds a symbol's
    first size and ``b`` (second trace) its second (``pairs``: (n1, n2) -> symbol index); raises
    Refused where they differ otherwise."""
    if type(a) is not type(b):
        raise Refused("an op attribute differs between the traces")
    if isinstance(a, tuple):
        if len(a) != len(b):
            raise Refused("an op attribute differs between the traces")
        out = []
        for k, (x, y) in enumerate(zip(a, b)):
            out += _attr_substitutions(x, y, pairs, path + (k,))
        return out
    if _same_object(a, b):
        return []
    if type(a) is int and (a, b) in pairs:
        return [(path, pairs[(a, b)])]
    raise Refused("an op attribute depends on the size in a way other than holding it")


def _refuse(message):
    if CHECK:
        raise Refused(message)


def _symbolic_positions(a, b, e1, e2, where):
    """The paths inside attribute (or operand) values ``a`` / ``b`` that hold a size expression
    (capture.symbolic_sizes) in both traces, the same expression (``e1`` / ``e2``: {path:
    expression}, leaves named by graph position); ``a`` and ``b`` with those paths masked, for
    the comparison of the rest. Raises Refused where the traces computed an attribute
    differently (one of them from sizes, or by other expressions)."""
    if not e1 and not e2:
        return [], a, b
    if set(e1) != set(e2) or not all(symbolic_sizes.same(e1[p], e2[p]) for p in e1):
        raise Refused(f"{where} is computed from the sizes differently in the two traces")
    masked_a, masked_b = a, b
    for path in e1:
        masked_a = _substitute(masked_a, path, _MASK)
        masked_b = _substitute(masked_b, path, _MASK)
    return [(path, e1[path]) for path in sorted(e1)], masked_a, masked_b


#: stands for a symbolic position while the rest of an attribute is compared
_MASK = ("<size expression>",)


def compare_graphs(g1: Graph, g2: Graph, inputs, symbols, exprs1=None, exprs2=None):
    """The attribute substitutions that turn ``g1`` re-inferred at ``n2`` into ``g2``; raises
    Refused (saying what differs) when they are not the same computation. ``exprs1`` /
    ``exprs2``: the size expressions the traces put into attributes and number operands
    (capture.symbolic_sizes.strip); a position holding the same expression in both is
    substituted by evaluating it on the re-instantiated graph."""
    exprs1, exprs2 = exprs1 or {}, exprs2 or {}
    if (len(g1.inputs), len(g1.consts), len(g1.nodes), len(g1.outputs)) != \
            (len(g2.inputs), len(g2.consts), len(g2.nodes), len(g2.outputs)):
        _refuse("the traces have different graphs (op counts differ)")
    for a, b in zip(g1.consts, g2.consts):
        if not _same_object(a.data, b.data):
            _refuse(f"a constant of the graph depends on the size ({_short(a.data)} vs {_short(b.data)})")
    for a, b in zip(g1.inputs, g2.inputs):
        if a.kind != b.kind or a.name != b.name or a.ref is not b.ref or a.aval.dtype is not b.aval.dtype:
            _refuse("the traces have different graph inputs")
    subs = {}
    pairs = {(sym.n1, sym.n2): k for k, sym in enumerate(symbols)}
    p1, p2 = symbolic_sizes.graph_positions(g1), symbolic_sizes.graph_positions(g2)
    for i, (a, b) in enumerate(zip(g1.nodes, g2.nodes)):
        if a.op is not b.op or len(a.inputs) != len(b.inputs) or list(a.attrs) != list(b.attrs):
            _refuse(f"the traces have different graphs (node {i}: {a.op.name} vs {b.op.name})")
            continue
        for k, (x, y) in enumerate(zip(a.inputs, b.inputs)):
            ox, oy = _operand(p1, x), _operand(p2, y)
            e1, e2 = exprs1.get((i, ("input", k))), exprs2.get((i, ("input", k)))
            if e1 or e2:
                if not CHECK:
                    continue
                found, _, _ = _symbolic_positions(x, y, e1 or {}, e2 or {}, f"a number operand of {a.op.name}")
                subs[(i, ("input", k))] = found
                continue
            if ox[0] == "py":
                if CHECK and oy[0] == "py" and ox[1] is oy[1] and ox[1] in (int, float) and (x, y) in pairs:
                    # the size itself (a mean's gradient divides by its count): held, as by an attribute
                    subs[(i, ("input", k))] = [((), pairs[(x, y)])]
                elif oy[0] != "py" or ox[1] is not oy[1] or not _same_object(ox[2], oy[2]):
                    _refuse(f"a Python number in the graph depends on the size ({a.op.name} "
                            f"{_short(ox[2])} vs {_short(oy[2] if oy[0] == 'py' else y)})")
            elif ox != oy:
                _refuse(f"the traces have different graphs (node {i}: {a.op.name} operands)")
        for key in a.attrs:
            try:
                found, va, vb = _symbolic_positions(a.attrs[key], b.attrs[key], exprs1.get((i, key), {}),
                                                    exprs2.get((i, key), {}), f"attribute {key} of {a.op.name}")
                paths = found + _attr_substitutions(va, vb, pairs)
            except Refused:
                _refuse(f"attribute {key}={a.attrs[key]!r} of {a.op.name} vs {b.attrs[key]!r}")
                continue
            if paths:
                subs[(i, key)] = paths
    for a, b in zip(g1.outputs, g2.outputs):
        if _operand(p1, a) != _operand(p2, b):
            _refuse("the traces have different graph outputs")
    if {p1[k]: p1[v] for k, v in g1.updates.items()} != {p2[k]: p2[v] for k, v in g2.updates.items()}:
        _refuse("the traces update different parameters")
    if CHECK:
        g3 = instantiate(g1, inputs, tuple(sym.n2 for sym in symbols), subs)
        p3 = symbolic_sizes.graph_positions(g3)
        for a, b in zip(g3.nodes, g2.nodes):
            if [v.aval for v in a.outputs] != [v.aval for v in b.outputs]:
                raise Refused(f"re-inferring the graph at the new size does not give the traced shapes ({a.op.name})")
            # the substituted attributes and numbers (sizes, size expressions) are the traced ones
            if not _same_object(dict(a.attrs), dict(b.attrs)) or \
                    [_operand(p3, x) for x in a.inputs] != [_operand(p2, y) for y in b.inputs]:
                raise Refused(f"re-instantiating the graph at the new size does not give the traced "
                              f"attributes ({a.op.name})")
    return subs


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _substitute(value, path, n):
    if not path:
        return n
    k = path[0]
    if type(value) is slice:
        parts = [value.start, value.stop, value.step]
        parts[k] = _substitute(parts[k], path[1:], n)
        return slice(*parts)
    if type(value) is list:
        return value[:k] + [_substitute(value[k], path[1:], n)] + value[k + 1:]
    return value[:k] + (_substitute(value[k], path[1:], n),) + value[k + 1:]


def _size_at(new, g, mapping):
    """Evaluates a leaf (a graph position and dim of ``g``) on the re-instantiated graph
    ``new``: the size shape inference gave that value at the new sizes."""
    def size_of(position, dim):
        if position[0] == "in":
            value = new.inputs[position[1]]
        elif position[0] == "const":
            value = new.consts[position[1]]
        else:
            value = mapping[g.nodes[position[1]].outputs[position[2]]]
        return value.aval.shape[dim]
    return size_of


def _new_size(how, sizes, size_of):
    """What a substitution puts in: a symbol's new size, or a size expression evaluated."""
    return sizes[how] if type(how) is int else symbolic_sizes.evaluate(how, size_of)


def instantiate(g: Graph, inputs, sizes, subs) -> Graph:
    """``g`` with the sizes of its symbols set to ``sizes`` (``inputs``: {graph input index:
    {dim: symbol index}}): every node added again (its output avals inferred by its op's rule,
    errors included), attributes at ``subs`` ({(node index, name): [(position, symbol index)]})
    holding the new sizes."""
    new = Graph(g.name)
    mapping = {}
    for i, v in enumerate(g.inputs):
        aval = v.aval
        if i in inputs:
            shape = list(aval.shape)
            for d, k in inputs[i].items():
                shape[d] = sizes[k]
            aval = type(aval)(shape, aval.dtype)
        mapping[v] = new.add_input(aval, v.name, v.kind, ref=v.ref)
    for v in g.consts:
        c = Value(new, v.aval, v.kind, name=v.name, data=v.data)
        new.consts.append(c)
        mapping[v] = c
    size_of = _size_at(new, g, mapping)
    for i, node in enumerate(g.nodes):
        attrs = dict(node.attrs)
        for key in node.attrs:
            for path, how in subs.get((i, key), ()):
                attrs[key] = _substitute(attrs[key], path, _new_size(how, sizes, size_of))
        inputs_ = [mapping[x] if isinstance(x, Value) else x for x in node.inputs]
        for k, x in enumerate(node.inputs):
            for _path, how in subs.get((i, ("input", k)), ()):
                inputs_[k] = type(x)(_new_size(how, sizes, size_of))
        out = new.add_node(node.op, inputs_, attrs, loc=node.loc)
        outs = out if isinstance(out, tuple) else (out,)
        for a, b in zip(node.outputs, outs):
            mapping[a] = b
    new.set_outputs([mapping[v] if isinstance(v, Value) else v for v in g.outputs])
    new.updates = {mapping[p]: mapping[v] for p, v in g.updates.items()}
    return new


# -- the shape-generic entry -----------------------------------------------------------------------------
class DynamicShape:
    """What makes an entry shape-generic: its size symbols, the first trace's entry (whose graph
    is re-instantiated), the attribute substitutions, and the entries compiled per tuple of sizes
    (``instances``)."""

    def __init__(self, symbols, inputs, base, subs, how, make_runner):
        self.symbols = symbols  # (SizeSymbol, ...): n1 is the base trace's size
        self.inputs = inputs  # {graph input index: {dim: symbol index}}
        #: per symbol, one (graph input index, dim) holding it (read for a call's sizes in C)
        self.readers = []
        for k in range(len(symbols)):
            self.readers.append(next((i, d) for i, dims in inputs.items() for d, s in dims.items() if s == k))
        self.base = base
        self.subs = subs
        self.how = how  # "declared" or "automatic"
        self.instances: dict = {}
        self.reinstantiations = 0  # sizes compiled without a translation
        self._make_runner = make_runner
        self._lock = threading.RLock()
        #: the sizes of an interpreted instance whose next call is the one that traced it (already
        #: counted in its ``interpreted_calls``): capture.compile_policy interprets a second trace
        #: that differs from the first only in sizes, and runs it through this entry
        self.uncounted = None

    def call(self, arrays):
        """The runner of the sizes of ``arrays`` (what a call in C runs)."""
        key = tuple(arrays[i].shape[d] for i, d in self.readers)
        inst = self.instances.get(key)
        if inst is None or inst.interpreted_calls:
            inst = self.instance(key)
        return _call_of(inst)(arrays)

    def instance_for(self, flat):
        sym = self.symbols
        return self.instance(tuple(flat[s.dims[0][0]]._data.shape[s.dims[0][1]] for s in sym))

    def instance(self, key):
        """The entry for the sizes ``key``: re-instantiated now if new (interpreted for its first
        calls, see :data:`TIER_UP_CALLS`), compiled with the backend once the size recurs."""
        inst = self.instances.get(key)
        if inst is not None and not inst.interpreted_calls:
            return inst
        with self._lock:
            inst = self.instances.get(key)
            if inst is not None and inst.interpreted_calls and key == self.uncounted:
                self.uncounted = None
            elif inst is not None and inst.interpreted_calls:
                inst.interpreted_calls += 1
                if inst.interpreted_calls >= TIER_UP_CALLS:
                    inst = self.instances[key] = self._reinstantiate(key, inst.graph)
            elif inst is None:
                inst = self._reinstantiate(key, None)
                self.instances[key] = inst
                while len(self.instances) > MAX_INSTANCES:
                    oldest = next(iter(self.instances))
                    if oldest == key:
                        break
                    self.instances.pop(oldest)
        return inst

    def _reinstantiate(self, key, graph):
        """The entry running the base graph at sizes ``key`` (``graph``: already instantiated):
        through the reference interpreter when the size is new and :data:`TIER_UP_CALLS` > 1,
        else compiled by the backend."""
        import time

        from .backends import numpy_backend
        from .cache import Entry
        from .report import events
        t0 = time.perf_counter()
        base = self.base
        new_size = graph is None
        if new_size:
            graph = instantiate(base.graph, self.inputs, key, self.subs)
        interpreted = new_size and TIER_UP_CALLS > 1
        runner = numpy_backend(graph) if interpreted else self._make_runner(graph)
        inst = Entry(base.guard_set, graph=graph, sources=base.sources, template=base.template,
                     name=base.name, config=base.config, closure=base.closure, check=base.check,
                     size_of=base)
        inst.runner = runner
        inst.device = base.device
        inst.copy_outputs = base.copy_outputs
        inst.interpreted_calls = 1 if interpreted else 0
        inst.compile_time = time.perf_counter() - t0
        if new_size:
            self.reinstantiations += 1
            events.record_reinstantiation(base.name, self, key, inst.compile_time)
        else:
            events.record_tier_up(base.name, self, key, inst.compile_time)
        return inst

    def describe(self) -> str:
        return "; ".join(", ".join(f"argument {i} dim {d}" for i, d in s.dims) for s in self.symbols)

    def size_expressions(self, limit=3) -> list:
        """Up to ``limit`` of the graph's attributes or numbers computed from the sizes, as text
        (``reshape shape[1] = s0 * 2``; ``s0``: the first symbol, where a graph input holds it)."""
        graph = self.base.graph

        def name_of(position, dim):
            if position[0] == "in" and dim in self.inputs.get(position[1], {}):
                return f"s{self.inputs[position[1]][dim]}"
            if position[0] == "node":
                return f"{graph.nodes[position[1]].op.name}#{position[1]}.shape[{dim}]"
            return f"{position[0]}{position[1]}.shape[{dim}]"
        out = []
        for (i, key), found in self.subs.items():
            for path, how in found:
                if type(how) is int or (how[0] == "dim" and how[1][0] == "in"
                                         and how[2] not in self.inputs.get(how[1][1], {})):
                    continue  # (a symbol itself, or a static size copied)
                where = f"operand {key[1]}" if isinstance(key, tuple) else key
                index = "".join(f"[{k}]" for k in path)
                text = f"{graph.nodes[i].op.name} {where}{index} = {symbolic_sizes.describe(how, name_of)}"
                if text not in out:
                    out.append(text)
        return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


def _call_of(inst):
    call = inst.call
    if call is None:
        runner = inst.runner
        call = inst.call = runner.donating_call if getattr(runner, "inplace_inputs", None) else runner
    return call


def _size_bounds(size, symbol):
    """Conditions on ``size`` (an expression) a generic entry admits: >= 2, and a declared
    Symbol's range, divisor and remainder."""
    bound = [f"{size} >= {MIN_GENERIC_SIZE}"]
    if symbol is not None:
        bound = [f"{size} >= {max(MIN_GENERIC_SIZE, symbol.min)}"]
        if symbol.max > symbol.min:
            bound.append(f"{size} <= {symbol.max}")
        if symbol.divisor > 1 or symbol.remainder:
            bound.append(f"{size} % {symbol.divisor} == {symbol.remainder}")
            bound.append(f"{size} >= {symbol.divisor + symbol.remainder}")
    return bound


def generic_guard_set(old_set, symbols, declared, how):
    """``old_set`` with the tensor guards of the arguments holding a symbol checking their other
    sizes and the dynamic ones' ranges instead of their values, and, per symbol held by several
    dims, one more guard: those sizes are equal (the graph was traced with them equal)."""
    from .guards import Guard, GuardSet
    from .sources import Arg, Attr, Item, Text
    which: dict = {}
    for sym in symbols:
        for i, d in sym.dims:
            which.setdefault(i, []).append(d)
    new = GuardSet()
    new.namespace = dict(old_set.namespace)
    new._ids = dict(old_set._ids)
    new._paths = dict(old_set._paths)
    # the objects held weakly (capture.guards.Held) are the old set's, whose references report
    # deaths to it: passed on, so the generic entry is dropped when one of them dies, too
    new.weak = dict(old_set.weak)
    if old_set.weak:
        new_ref = weakref.ref(new)
        old_set.when_dead(lambda: (s := new_ref()) is not None and s._referent_died(None))
    for guard in old_set.guards:
        arg = _tensor_argument(guard)
        if arg is None or arg[0] not in which:
            new._record(guard)
            continue
        index, seen = arg
        dims = which[index]
        name = guard.seen[0]
        shape = seen[3]
        conds = [f"len(_d.shape) == {len(shape)}"]
        conds += [f"_d.shape[{k}] == {s}" for k, s in enumerate(shape) if k not in dims]
        ranges = []
        for dim in dims:
            bound = _size_bounds(f"_d.shape[{dim}]", declared.get((index, dim)))
            conds += bound
            ranges += [b.replace(f"_d.shape[{dim}]", f"dim {dim}") for b in bound]
        if guard.kind != "tensor":
            raise Refused("an argument's guard has an unexpected form")
        sizes = ", ".join("?" if k in dims else str(s) for k, s in enumerate(shape))
        # (the tensor guard's type, array type and dtype; its sizes as conditions (Python, the
        # residual function runs it); a failure is reported as the tensor guard's)
        tensor_type, array_type, _shape, dtype = guard.expected
        new._record(Guard("tensor_sizes", guard.source, (tensor_type, array_type, Text(" and ".join(conds)), dtype),
                          f"{name}: Tensor {seen[4]}[{sizes}] with {' and '.join(ranges)} (dynamic, {how})",
                          guard.seen))
    for sym in symbols:
        if len(sym.dims) > 1:
            (i0, d0), rest = sym.dims[0], sym.dims[1:]
            def size(i, d):  # args[i]._data.shape[d]
                return Item(Attr(Attr(Arg(i), "_data"), "shape"), d)
            new._record(Guard("eqs", None, tuple(x for i, d in rest for x in (size(i, d), size(i0, d0))),
                              "equal dynamic sizes: " + ", ".join(f"argument {i} dim {d}" for i, d in sym.dims)))
    return new


def generalise(cache, old, new, symbols, declared, make_runner, replaced=None):
    """Turn ``old`` and ``new`` (entries of two traces differing in the sizes ``symbols``) into one
    shape-generic entry, added to ``cache`` in their place (and in place of ``replaced``, a
    generic entry whose base ``old`` is: its compiled sizes are kept); returns it, or raises
    Refused saying why the code is not polymorphic in those sizes."""
    from .cache import Entry
    for sym in symbols:
        if min(sym.n1, sym.n2) < MIN_GENERIC_SIZE:
            raise Refused(f"sizes 0 and 1 are specialised (broadcasting): {sym.n1} -> {sym.n2}")
    if old.graph is None or new.graph is None or old.plan is not None or new.plan is not None:
        raise Refused("a graph break or an eager entry")
    if old.runner is None or new.runner is None:
        raise Refused("no compiled graph")
    if old.interpreted_calls:
        raise Refused("the first trace is not compiled")
    _check_shape_reads(old, new)
    _check_guards(old, new, symbols)
    if not _same_object(list(old.sources), list(new.sources)):
        raise Refused("the traces read different inputs")
    inputs: dict = {}
    for k, sym in enumerate(symbols):
        for index, dim in sym.dims:
            g = next((g for g, src in enumerate(old.sources) if getattr(src, "path", None) == (index,)), None)
            if g is None:
                raise Refused(f"argument {index} is not a graph input")
            inputs.setdefault(g, {})[dim] = k
    if not _same_object((old.template.result, old.template.effects), (new.template.result, new.template.effects)):
        raise Refused("the traces rebuild different results or side effects")
    subs = compare_graphs(old.graph, new.graph, inputs, symbols, old.size_exprs, new.size_exprs)
    how = "declared" if all(d in declared for sym in symbols for d in sym.dims) else "automatic"
    guard_set = generic_guard_set(old.guard_set, symbols, declared, how)
    entry = Entry(guard_set, graph=old.graph, sources=old.sources, template=old.template, name=old.name,
                  config=old.config, closure=old.closure)
    entry.globals, entry.owner = old.globals, old.owner
    entry.runner, entry.device, entry.copy_outputs = old.runner, old.device, old.copy_outputs
    entry.compile_time = old.compile_time + new.compile_time
    entry.shape_reads = old.shape_reads
    dyn = DynamicShape(symbols, inputs, old, subs, how, make_runner)
    if replaced is not None:
        _keep_instances(replaced.dynamic, dyn)
    dyn.instances[tuple(s.n1 for s in symbols)] = old
    dyn.instances[tuple(s.n2 for s in symbols)] = new
    if new.interpreted_calls:
        dyn.uncounted = tuple(s.n2 for s in symbols)
    entry.dynamic = dyn
    entry.call = dyn.call
    cache.drop(lambda e: e is not old and e is not new and e is not replaced)
    cache.add(entry)
    return entry


def _keep_instances(previous, dyn):
    """The sizes ``previous`` (generic in fewer symbols, same base) compiled, under ``dyn``'s keys:
    a symbol ``previous`` did not have keeps the base trace's size."""
    where = {}
    for k, sym in enumerate(previous.symbols):
        match = next((j for j, s in enumerate(dyn.symbols) if s.dims == sym.dims), None)
        if match is None:
            return
        where[match] = k
    for key, inst in previous.instances.items():
        dyn.instances[tuple(key[where[j]] if j in where else s.n1 for j, s in enumerate(dyn.symbols))] = inst
