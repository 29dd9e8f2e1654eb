"""Per-code-object cache of compiled entries, with the recompile limit.

An :class:`Entry` is what one capture produced for one set of guards: either a compiled graph
(with its input sources and output template) or an ``eager`` marker recording why capture broke.
Entries belong to the capture config (backend, fullgraph...) they were made under: two ``jit``
wrappers of one function with different backends never share entries. Lookup checks entries
most-recently-hit first. Every change of a cache's entries (and of what an entry runs)
disarms the jitted functions' calls in C (capture/fast_call.py), which repeat the first entry
of a cache as it was.
"""
from __future__ import annotations

import threading
import weakref

from graph import forksafe

from .errors import interrupting
from .guards import DEAD
from .fast_call import invalidate as _invalidate_fast_calls

RECOMPILE_LIMIT = 8
#: entries one code object may accumulate over all Cell instances/closures/configs (bounds the
#: lookup cost and the memory held by entries when many instances share one ``construct``)
ACCUMULATED_LIMIT = 256

COMPILE_LOCK = threading.RLock()
forksafe.renew_in_child(globals(), "COMPILE_LOCK", threading.RLock)


class Entry:
    def __init__(self, guard_set, graph=None, sources=None, template=None, break_info=None,
                 compile_time=0.0, name="", config=None, closure=None, check=None, size_of=None):
        self.guard_set = guard_set
        self.config = config
        self.closure = closure  # the function's __closure__: closures of one code never share entries
        #: the function's __globals__ (set by compile_entry): functions of one code object with
        #: different globals dicts never share entries (the guards read the globals they were made with)
        self.globals = None
        self.check = guard_set.compile() if check is None else check
        self.graph = graph
        self.sources = sources
        self._cache = None  # a weak reference to the CodeCache holding it (set by CodeCache.add)
        if size_of is None:
            self._hold_inputs_weakly()
        # (else one size of the shape-generic entry ``size_of`` (capture.dynamic): its guards and
        # sources are that entry's, which holds them weakly and is dropped, sizes and all, when a
        # referent dies; a callback per size would only pile up on the shared guard set)
        self.template = template
        self.break_info = break_info  # BreakInfo when this entry runs eagerly
        self.compile_time = compile_time
        self.name = name
        self._hits = 0  # (calls counted by the Python way; ``fast`` counts those made in C)
        self.fast = None  # the FastEntry repeating this entry in C (capture/fast_call.py), once armed
        self.runner = None  # the backend's compiled callable
        self.device = "CPU"  # where the graph's tensors are (the backend was chosen for it)
        self.copy_outputs = ()  # output indices that are graph constants (copied per call)
        self.owner = None  # the recompile-budget key it was compiled under (see compile_policy._owner_key)
        #: the budget key its compile was charged to (None: not charged), given back when the
        #: entry is dropped because an object its guards held weakly died
        self.charged_to = None
        self.plan = None  # capture.resume.ResumePlan: what runs after the prefix graph at a graph break
        self.fetch = None  # flat arguments -> (input arrays, tensors), made on first run (capture.runner)
        self.call = None  # input arrays -> (outputs, updates): the runner, donating where it can (first run)
        self.warm_start = False  # its schedule was read from the disk cache (capture.persist)
        #: sizes the traced Python code read from tensor shapes (capture.builder: shape_reads)
        self.shape_reads = None
        #: where the graph holds sizes computed by Python arithmetic, and how (capture.symbolic_sizes.strip)
        self.size_exprs = {}
        #: capture.dynamic.DynamicShape when this entry serves every size of some dimensions
        self.dynamic = None
        #: calls a size's entry of a generic one ran through the reference interpreter (0:
        #: compiled by the backend; see capture.dynamic.TIER_UP_CALLS)
        self.interpreted_calls = 0
        self.hold_recipes_weakly()

    def _hold_inputs_weakly(self) -> None:
        """The graph inputs its guards hold weakly (a Parameter named by a global, a sub-Cell's
        weight) are read through weak references too, and the entry is dropped from its cache
        once one of them dies: a dead object can never pass an identity guard again, so the entry
        is garbage, and it must not keep anything else alive meanwhile."""
        weak = {id(obj): ref for ref in self.guard_set.weak.values() if (obj := ref()) is not DEAD}
        if not weak:
            return
        from .sources import Object
        for source in self.sources or ():
            if type(source) is Object and source.ref is None and id(source.obj) in weak:
                # (a plain reference: the fetch in Python calls it, and it has no callback to run)
                source.hold_weakly(weakref.ref(source.obj))
        self.guard_set.when_dead(_dropper(weakref.ref(self)))

    def hold_recipes_weakly(self) -> None:
        """The objects its output plan (``template``) and resume plan (``plan``, set after it was
        made: call again then) name are read through the weak references its guards hold them
        by (capture.reconstruct.hold_weakly): a returned net, or one live across a graph break,
        must not keep the entry -- and so itself and its Parameters -- alive."""
        weak = self.guard_set.weak
        if not weak:
            return
        held = {id(obj): ref for ref in weak.values() if (obj := ref()) is not DEAD}
        from .reconstruct import OutputPlan, hold_effects_weakly, hold_weakly
        t = self.template
        if type(t) is OutputPlan:
            self.template = OutputPlan(hold_weakly(t.result, held), hold_effects_weakly(t.effects, held))
        plan = self.plan
        if plan is not None:
            plan.stack_recipes = [hold_weakly(r, held) for r in plan.stack_recipes]
            plan.local_recipes = [hold_weakly(r, held) for r in plan.local_recipes]
            plan.effects = hold_effects_weakly(plan.effects, held)

    @property
    def hits(self) -> int:
        """Calls that ran this entry."""
        return self._hits + (self.fast.hits if self.fast is not None else 0)

    def adopt_fast(self, fast) -> None:
        """Repeat this entry through ``fast`` from now on (the calls the old one made stay counted)."""
        self._hits = self.hits
        self.fast = fast
        if fast is not None:
            self._hits -= fast.hits

    @property
    def eager(self) -> bool:
        return self.graph is None

    @property
    def communicates(self) -> bool:
        """Whether the graph exchanges data with other processes (collective ops)."""
        return self.graph is not None and any(n.op.communicates for n in self.graph.nodes)

    def make_eager(self, break_info) -> None:
        """Turn a compiled entry into an eager one (its backend failed at run time)."""
        self.graph = None
        self.runner = self.call = None
        self.break_info = break_info
        _invalidate_fast_calls()


class CodeCache:
    def __init__(self, code):
        self.code = code
        self.entries: list[Entry] = []
        self.compiles_per_owner: dict = {}  # (Cell id or 0, config id) -> compiles so far
        self.disabled: dict = {}  # same keys -> the eager Entry used once the limit was hit
        self.watched: set = set()  # owner keys whose Cell has a finalizer dropping its entries
        self.dropped_dead = 0  # entries dropped because an object their guards held weakly died
        self._arena = None

    @property
    def arena(self):
        """The memory the compiled graphs of this code object keep their intermediates in, one
        for all its entries (codegen/cpu/arena.py): allocated when one runs, as big as the biggest,
        released with them."""
        if self._arena is None:
            from codegen.cpu.arena import Arena
            self._arena = Arena()
        return self._arena

    def lookup(self, flat_args, config=None, closure=None, f_globals=None):
        entries = self.entries
        for i, e in enumerate(entries):
            if e.config is not config or e.closure is not closure:
                continue
            if f_globals is not None and e.globals is not None and e.globals is not f_globals:
                continue  # one code run with another globals dict: its guards read the other one
            try:
                ok = e.check(flat_args)
            except Exception as error:
                if interrupting(error) is not None:  # (the user's signal, not a failed guard)
                    raise
                ok = False
            if ok:
                if i:
                    entries.insert(0, entries.pop(i))
                    _invalidate_fast_calls(self)
                e._hits += 1
                return e
        return None

    def failure_reason(self, flat_args, config=None, closure=None, f_globals=None, owner=None) -> str:
        """Why no entry ran this call: the first failing guard of the most recently used entry,
        said as a change (``x: shape (32, 784) -> (17, 784), dim 0 changed``). Entries of the same
        ``owner`` (the Cell instance) are asked first: another instance's entry would only say
        that ``self`` is another object."""
        mine = [e for e in self.entries if e.config is config and e.closure is closure
                and (f_globals is None or e.globals is None or e.globals is f_globals)]
        if not mine:
            return ("the entries compiled before were dropped: an object their guards named died"
                    if self.dropped_dead else "first call")
        own = [e for e in mine if owner is not None and e.owner == owner]
        return (own or mine)[0].guard_set.first_failure(flat_args) or "guard failed"

    def add(self, entry: Entry) -> None:
        entry._cache = weakref.ref(self)
        self.entries.insert(0, entry)
        _invalidate_fast_calls(self)

    def forget_entry(self, entry: Entry) -> None:
        """Drop ``entry`` (an object its guards hold weakly died). Its compile no longer counts
        against the recompile limit: a loop that builds a fresh net each iteration and jits it
        recompiles for every net, but only ever holds one entry; the limit is for entries that
        keep missing while alive (unstable shapes or Python values)."""
        if any(e is entry for e in self.entries):
            self.dropped_dead += 1
            self.drop(lambda e: e is not entry)
            owner, entry.charged_to = entry.charged_to, None
            if owner is not None:
                self.refund(owner)
                if self.compiles_per_owner.get(owner, 0) < RECOMPILE_LIMIT:
                    self.disabled.pop(owner, None)  # (it may compile again)

    def drop(self, keep=lambda entry: False) -> None:
        """Keep only the entries ``keep`` accepts (none by default)."""
        dropped = [e for e in self.entries if not keep(e)]
        self.entries = [e for e in self.entries if keep(e)]
        _invalidate_fast_calls(self)
        _release(dropped)

    # -- the recompile budget ------------------------------------------------------------------------
    def over_budget(self, owner, qual, reason) -> str | None:
        """Why ``owner`` (a Cell instance, config and closure) may not compile again, else None:
        :data:`RECOMPILE_LIMIT` compiles per owner, :data:`ACCUMULATED_LIMIT` entries per code
        object (both read per call: users may change them)."""
        limit = RECOMPILE_LIMIT
        if self.compiles_per_owner.get(owner, 0) >= limit:
            return f"recompile limit ({limit}) reached for {qual}; last reason: {reason}"
        if len(self.entries) >= ACCUMULATED_LIMIT:
            return (f"accumulated recompile limit ({ACCUMULATED_LIMIT} entries for one code object, over all "
                    f"instances) reached for {qual}")
        return None

    def charge(self, owner) -> int:
        """Count one compile for ``owner``; returns how many it had before (0: a first compile)."""
        n = self.compiles_per_owner.get(owner, 0)
        self.compiles_per_owner[owner] = n + 1
        return n

    def refund(self, owner) -> None:
        """Take back the compile :meth:`charge` counted for ``owner`` (it was interrupted: the
        user's signal, not a recompile)."""
        n = self.compiles_per_owner.get(owner, 0)
        if n > 1:
            self.compiles_per_owner[owner] = n - 1
        else:
            self.compiles_per_owner.pop(owner, None)

    def forget_closure(self, closure_id) -> None:
        """Drop what was compiled for one closure (called when its function is collected: the
        entries would otherwise keep the closure's cells -- a model, big tensors -- alive)."""
        self.drop(lambda e: e.closure is None or id(e.closure) != closure_id)
        self.watched.discard(("closure", closure_id))

    def forget_owner(self, owner) -> None:
        """Drop what was compiled for one Cell instance (called when that Cell is collected)."""
        self.drop(lambda e: e.owner != owner)
        self.compiles_per_owner.pop(owner, None)
        self.disabled.pop(owner, None)
        self.watched.discard(owner)


def _dropper(entry_ref):
    """The callback dropping the entry ``entry_ref`` names from its cache (holding neither)."""
    def drop():
        entry = entry_ref()
        cache = entry._cache() if entry is not None and entry._cache is not None else None
        if cache is not None:
            cache.forget_entry(entry)
    return drop


def _release(entries) -> None:
    """Break the cycle between a dropped entry and the C call repeating it (``Entry.fast`` holds
    the FastEntry, which holds the entry), so that its compiled code is freed as soon as nothing
    else holds it, not at some later garbage collection."""
    for e in entries:
        if e.fast is not None:
            e.adopt_fast(None)


_CACHES: dict = {}


def cache_for(code) -> CodeCache:
    c = _CACHES.get(code)
    if c is None:
        c = _CACHES[code] = CodeCache(code)
    return c


def reset(code=None) -> None:
    """Drop all compiled entries (or those of one code object and the resume functions generated
    from it). The dropped caches are emptied too: finalizers of Cells and closures may still reach
    them until their owners die."""
    if code is None:
        dropped = list(_CACHES.values())
        _CACHES.clear()
    else:
        from .resume import DERIVED
        dropped = [_CACHES.pop(c, None) for c in (code, *DERIVED.get(code, ()))]
    _invalidate_fast_calls()
    for c in dropped:
        if c is not None:
            _release(c.entries)
            c.entries = []
            c.compiles_per_owner.clear()
            c.disabled.clear()


def forget_when_dead(obj, cache: CodeCache, method: str, key) -> None:
    """When ``obj`` is collected, call ``cache.<method>(key)`` -- holding ``cache`` only weakly, so
    a cache dropped by :func:`reset` is not kept alive by the objects it once compiled for."""
    ref = weakref.ref(cache)

    def forget(ref=ref, method=method, key=key):
        c = ref()
        if c is not None:
            getattr(c, method)(key)
    weakref.finalize(obj, forget)
