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
  parameter updates, input sources and output plan. An attribute may differ only by holding
  ``n1`` where the other holds ``n2`` (a reshape or broadcast target framework code copied from a
  shape); it is substituted at re-instantiation. A constant that depends on the size (``1/n`` of
  a mean's gradient) differs, so the dimension is refused.

When the check passes the two entries become one *shape-generic* entry whose guard checks the
argument's type, dtype, rank, other sizes and ``size >= 2`` (and a declared ``Symbol``'s range,
divisor and remainder) instead of the size. A new size re-instantiates the first graph (no
translation, no new guards) and compiles the backend for those concrete shapes, kept per size on
the entry (at most :data:`MAX_INSTANCES`, least recently used dropped): kernels are still
specialised per size (the on-disk cache of ``capture.persist`` keys them on the graph, so another
process compiles a size once). When the check fails, sizes keep being specialised as before and
``explain()`` says why.

Dimensions declared dynamic (``Cell.set_inputs``, ``jit(input_signature=...)`` with None or a
``Symbol``) use the same mechanism; a declared dimension's new size is not counted against the
recompile limit.
"""
from __future__ import annotations

import os
import re
import threading

import numpy as np

from graph.ir import Graph, Value

#: whether entries may become shape-generic (``CAPTURE_DYNAMIC=0``: every size specialised)
ENABLED = os.environ.get("CAPTURE_DYNAMIC", "1") not in ("0", "")

#: False only in tests showing that the comparison is what keeps results right: differences
#: between the traces are then ignored (attribute substitutions still found where they exist)
CHECK = True

#: compiled sizes one shape-generic entry keeps (least recently used first out)
MAX_INSTANCES = 64
#: the smallest size a generic entry serves: 0 and 1 stay specialised (broadcasting)
MIN_GENERIC_SIZE = 2

_ARG = re.compile(r"args\[(\d+)\]")


# -- which dimension: the guards ---------------------------------------------------------------------
def one_dim_change(guard_set, flat):
    """``(dims, old size, new size)`` when ``flat`` fails ``guard_set`` only by sizes of top-level
    tensor arguments, one dimension each, that all were ``old size`` and all are ``new size``
    (a batch dimension shared by inputs and labels); ``dims``: their (argument index, dim), in
    guard order. Else None."""
    from .errors import interrupting
    failing = []
    for expr in guard_set.exprs:
        try:
            ok = eval(expr, dict(guard_set.namespace), {"args": flat})  # noqa: S307 - our own strings
        except Exception as e:
            if interrupting(e) is not None:
                raise
            ok = False
        if not ok:
            failing.append(expr)
    if not failing:
        return None
    dims, sizes = [], set()
    for expr in failing:
        item = guard_set.watched.get(expr)
        if item is None or item[2][0] != "tensor":
            return None
        value_expr, _desc, seen = item
        m = _ARG.fullmatch(value_expr)
        if m is None:
            return None
        i = int(m.group(1))
        _, cls, array_type, shape, dtype = seen
        now = flat[i] if i < len(flat) else None
        if type(now) is not cls or type(getattr(now, "_data", None)) is not array_type or now.dtype != dtype:
            return None
        new_shape = tuple(now.shape)
        if len(new_shape) != len(shape):
            return None
        changed = [d for d, (a, b) in enumerate(zip(shape, new_shape)) if a != b]
        if len(changed) != 1:
            return None
        d = changed[0]
        dims.append((i, d))
        sizes.add((shape[d], new_shape[d]))
    if len(sizes) != 1:
        return None
    (n1, n2), = sizes
    return tuple(dims), n1, n2


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


def _check_guards(old, new, dims):
    """The guard sets are the same but for the tensor guards of the arguments in ``dims``."""
    go, gn = old.guard_set, new.guard_set
    if len(go.exprs) != len(gn.exprs):
        raise Refused("the traces made different guards")
    args = {f"args[{i}]" for i, _d in dims}
    for a, b in zip(go.exprs, gn.exprs):
        if a == b:
            continue
        ia, ib = go.watched.get(a), gn.watched.get(b)
        if ia is None or ib is None or ia[0] != ib[0] or ia[0] not in args:
            raise Refused("the traces made different guards")
    if set(go.namespace) != set(gn.namespace) or not all(_same_object(go.namespace[k], gn.namespace[k])
                                                         for k in go.namespace if k != "np"):
        raise Refused("the traces guard different objects")


def _graph_values(g: Graph):
    """Every Value of ``g`` -> a position that names it the same way in a graph of the same build."""
    pos = {}
    for i, v in enumerate(g.inputs):
        pos[v] = ("in", i)
    for i, v in enumerate(g.consts):
        pos[v] = ("const", i)
    for i, n in enumerate(g.nodes):
        for j, v in enumerate(n.outputs):
            pos[v] = ("node", i, j)
    return pos


def _operand(pos, v):
    return pos.get(v, ("?",)) if isinstance(v, Value) else ("py", type(v), v)


def _attr_substitutions(a, b, n1, n2, path=()):
    """Positions in attribute value ``a`` (first trace) where it holds ``n1`` and ``b`` (second)
    holds ``n2``; raises Refused where they differ otherwise."""
    if type(a) is not type(b):
        raise Refused("an op attribute differs between the traces")
    if isinstance(a, tuple):
        if len(a) != len(b):
            raise Refused("an op attribute differs between the traces")
        out = []
        for k, (x, y) in enumerate(zip(a, b)):
            out += _attr_substitutions(x, y, n1, n2, path + (k,))
        return out
    if _same_object(a, b):
        return []
    if type(a) is int and a == n1 and b == n2:
        return [path]
    raise Refused("an op attribute depends on the size in a way other than holding it")


def _refuse(message):
    if CHECK:
        raise Refused(message)


def compare_graphs(g1: Graph, g2: Graph, inputs, n1: int, n2: int):
    """The attribute substitutions that turn ``g1`` re-inferred at ``n2`` into ``g2``; raises
    Refused (saying what differs) when they are not the same computation."""
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
    p1, p2 = _graph_values(g1), _graph_values(g2)
    for i, (a, b) in enumerate(zip(g1.nodes, g2.nodes)):
        if a.op is not b.op or len(a.inputs) != len(b.inputs) or list(a.attrs) != list(b.attrs):
            _refuse(f"the traces have different graphs (node {i}: {a.op.name} vs {b.op.name})")
            continue
        for x, y in zip(a.inputs, b.inputs):
            ox, oy = _operand(p1, x), _operand(p2, y)
            if ox[0] == "py":
                if oy[0] != "py" or ox[1] is not oy[1] or not _same_object(ox[2], oy[2]):
                    _refuse(f"a Python number in the graph depends on the size ({a.op.name} "
                            f"{_short(ox[2])} vs {_short(oy[2] if oy[0] == 'py' else y)})")
            elif ox != oy:
                _refuse(f"the traces have different graphs (node {i}: {a.op.name} operands)")
        for key in a.attrs:
            try:
                paths = _attr_substitutions(a.attrs[key], b.attrs[key], n1, n2)
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
        g3 = instantiate(g1, inputs, n2, subs)
        for a, b in zip(g3.nodes, g2.nodes):
            if [v.aval for v in a.outputs] != [v.aval for v in b.outputs]:
                raise Refused(f"re-inferring the graph at the new size does not give the traced shapes ({a.op.name})")
    return subs


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _substitute(value, path, n):
    if not path:
        return n
    k = path[0]
    return value[:k] + (_substitute(value[k], path[1:], n),) + value[k + 1:]


def instantiate(g: Graph, inputs, n: int, subs) -> Graph:
    """``g`` with the sizes ``inputs`` ({graph input index: dim}) set to ``n``: every node added
    again (its output avals inferred by its op's rule, errors included), attributes at ``subs``
    holding the new size."""
    new = Graph(g.name)
    mapping = {}
    for i, v in enumerate(g.inputs):
        aval = v.aval
        if i in inputs:
            shape = list(aval.shape)
            shape[inputs[i]] = n
            aval = type(aval)(shape, aval.dtype)
        mapping[v] = new.add_input(aval, v.name, v.kind, ref=v.ref)
    for v in g.consts:
        c = Value(new, v.aval, v.kind, name=v.name, data=v.data)
        new.consts.append(c)
        mapping[v] = c
    for i, node in enumerate(g.nodes):
        attrs = dict(node.attrs)
        for key, paths in ((k, p) for (j, k), p in subs.items() if j == i):
            for path in paths:
                attrs[key] = _substitute(attrs[key], path, n)
        inputs = [mapping[x] if isinstance(x, Value) else x for x in node.inputs]
        out = new.add_node(node.op, inputs, attrs, loc=node.loc)
        outs = out if isinstance(out, tuple) else (out,)
        for a, b in zip(node.outputs, outs):
            mapping[a] = b
    new.set_outputs([mapping[v] if isinstance(v, Value) else v for v in g.outputs])
    new.updates = {mapping[p]: mapping[v] for p, v in g.updates.items()}
    return new


# -- the shape-generic entry -----------------------------------------------------------------------------
class DynamicDim:
    """What makes an entry shape-generic in one argument's dimension: the first trace's graph,
    the attribute substitutions, and the entries compiled per size (``instances``)."""

    def __init__(self, dims, inputs, base, base_size, subs, how, make_runner):
        self.dims = dims  # ((argument index, dim), ...): the sizes that are one symbol
        self.arg_index, self.dim = dims[0]
        self.inputs = inputs  # {graph input index: dim}
        self.input_index = next(iter(inputs))  # (read for the size of a call in C)
        self.input_dim = inputs[self.input_index]
        self.base = base  # the first trace's entry (its graph is re-instantiated)
        self.base_size = base_size
        self.subs = subs
        self.how = how  # "declared" or "automatic"
        self.instances: dict = {}
        self.reinstantiations = 0  # sizes compiled without a translation
        self._make_runner = make_runner
        self._lock = threading.RLock()

    def call(self, arrays):
        """The runner of the size of ``arrays`` (what a call in C runs)."""
        n = arrays[self.input_index].shape[self.input_dim]
        inst = self.instances.get(n)
        if inst is None:
            inst = self.instance(n)
        return _call_of(inst)(arrays)

    def instance_for(self, flat):
        return self.instance(flat[self.arg_index]._data.shape[self.dim])

    def instance(self, n):
        """The entry compiled for size ``n`` (re-instantiated and compiled now if new)."""
        inst = self.instances.get(n)
        if inst is not None:
            return inst
        with self._lock:
            inst = self.instances.get(n)
            if inst is None:
                inst = self._reinstantiate(n)
                self.instances[n] = inst
                while len(self.instances) > MAX_INSTANCES:
                    oldest = next(iter(self.instances))
                    if oldest == n:
                        break
                    self.instances.pop(oldest)
        return inst

    def _reinstantiate(self, n):
        import time

        from .cache import Entry
        from .report import events
        t0 = time.perf_counter()
        base = self.base
        graph = instantiate(base.graph, self.inputs, n, self.subs)
        runner = self._make_runner(graph)
        inst = Entry(base.guard_set, graph=graph, sources=base.sources, template=base.template,
                     name=base.name, config=base.config, closure=base.closure, check=base.check)
        inst.runner = runner
        inst.device = base.device
        inst.copy_outputs = base.copy_outputs
        inst.compile_time = time.perf_counter() - t0
        self.reinstantiations += 1
        events.record_reinstantiation(base.name, self, n, inst.compile_time)
        return inst


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


def generic_guard_set(old_set, dims, declared, how):
    """``old_set`` with the tensor guards of the arguments in ``dims`` checking their other sizes
    and the dynamic one's range instead of its value, and one more guard: the dynamic sizes are
    equal (the graph was traced with them equal)."""
    from .guards import GuardSet
    which = dict(dims)
    new = GuardSet()
    new.namespace = dict(old_set.namespace)
    new._ids = dict(old_set._ids)
    new._paths = dict(old_set._paths)
    new.watched = dict(old_set.watched)
    for expr, desc in zip(old_set.exprs, old_set.descs):
        item = old_set.watched.get(expr)
        m = _ARG.fullmatch(item[0]) if item is not None and item[2][0] == "tensor" else None
        if m is None or int(m.group(1)) not in which:
            new.add(expr, desc)
            continue
        index = int(m.group(1))
        dim = which[index]
        value_expr, name, seen = item
        shape = seen[3]
        size = f"_d.shape[{dim}]"
        conds = [f"len(_d.shape) == {len(shape)}"]
        conds += [f"_d.shape[{k}] == {s}" for k, s in enumerate(shape) if k != dim]
        bound = _size_bounds(size, declared.get((index, dim)))
        old_cond = f"_d.shape == {shape!r}"
        if old_cond not in expr:
            raise Refused("an argument's guard has an unexpected form")
        new_expr = expr.replace(old_cond, " and ".join(conds + bound))
        sizes = ", ".join("n" if k == dim else str(s) for k, s in enumerate(shape))
        ranges = " and ".join(b.replace(size, "n") for b in bound)
        new.add(new_expr, f"{name}: Tensor {seen[4]}[{sizes}] with {ranges} (dim {dim} dynamic, {how})")
        new.watched[new_expr] = item
    if len(dims) > 1:
        (i0, d0), rest = dims[0], dims[1:]
        new.add(" and ".join(f"args[{i}]._data.shape[{d}] == args[{i0}]._data.shape[{d0}]" for i, d in rest),
                "the dynamic sizes are equal: " + ", ".join(f"argument {i} dim {d}" for i, d in dims))
    return new


def generalise(cache, old, new, change, declared, make_runner):
    """Turn ``old`` and ``new`` (entries of two traces differing in one size: ``change``) into one
    shape-generic entry, added to ``cache`` in their place; returns it, or raises Refused saying
    why the code is not polymorphic in that size."""
    from .cache import Entry
    dims, n1, n2 = change
    if min(n1, n2) < MIN_GENERIC_SIZE:
        raise Refused(f"sizes 0 and 1 are specialised (broadcasting): {n1} -> {n2}")
    if old.graph is None or new.graph is None or old.plan is not None or new.plan is not None:
        raise Refused("a graph break or an eager entry")
    if old.runner is None or new.runner is None:
        raise Refused("no compiled graph")
    _check_shape_reads(old, new)
    _check_guards(old, new, dims)
    if not _same_object(list(old.sources), list(new.sources)):
        raise Refused("the traces read different inputs")
    inputs = {}
    for index, dim in dims:
        k = next((k for k, s in enumerate(old.sources) if getattr(s, "path", None) == (index,)), None)
        if k is None:
            raise Refused(f"argument {index} is not a graph input")
        inputs[k] = dim
    if not _same_object((old.template.result, old.template.effects), (new.template.result, new.template.effects)):
        raise Refused("the traces rebuild different results or side effects")
    subs = compare_graphs(old.graph, new.graph, inputs, n1, n2)
    how = "declared" if all(d in declared for d in dims) else "automatic"
    guard_set = generic_guard_set(old.guard_set, dims, declared, how)
    entry = Entry(guard_set, graph=old.graph, sources=old.sources, template=old.template, name=old.name,
                  config=old.config, closure=old.closure)
    entry.globals, entry.owner = old.globals, old.owner
    entry.runner, entry.device, entry.copy_outputs = old.runner, old.device, old.copy_outputs
    entry.compile_time = old.compile_time + new.compile_time
    entry.shape_reads = old.shape_reads
    dyn = DynamicDim(dims, inputs, old, n1, subs, how, make_runner)
    dyn.instances[n1] = old
    dyn.instances[n2] = new
    entry.dynamic = dyn
    entry.call = dyn.call
    cache.drop(lambda e: e is not old and e is not new)
    cache.add(entry)
    return entry
