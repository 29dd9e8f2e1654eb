"""Per-code-object cache of compiled entries, with the recompile limit.

An :class:`Entry` is what one capture produced for one set of guards: either a compiled graph
(with its input sources and output template) or an ``eager`` marker recording why capture broke.
Lookup checks entries most-recently-hit first.
"""
from __future__ import annotations

import threading

RECOMPILE_LIMIT = 8

COMPILE_LOCK = threading.RLock()


class Entry:
    def __init__(self, guard_set, graph=None, sources=None, template=None, break_info=None,
                 compile_time=0.0, name=""):
        self.guard_set = guard_set
        self.check = guard_set.compile()
        self.graph = graph
        self.sources = sources
        self.template = template
        self.break_info = break_info  # BreakInfo when this entry runs eagerly
        self.compile_time = compile_time
        self.name = name
        self.hits = 0
        self.runner = None  # the backend's compiled callable

    @property
    def eager(self) -> bool:
        return self.graph is None


class CodeCache:
    def __init__(self, code):
        self.code = code
        self.entries: list[Entry] = []
        self.compiles_per_owner: dict[int, int] = {}
        self.disabled_reason: str | None = None

    def lookup(self, flat_args):
        entries = self.entries
        for i, e in enumerate(entries):
            try:
                ok = e.check(flat_args)
            except Exception:
                ok = False
            if ok:
                if i:
                    entries.insert(0, entries.pop(i))
                e.hits += 1
                return e
        return None

    def failure_reason(self, flat_args) -> str:
        if not self.entries:
            return "first call"
        reasons = [e.guard_set.first_failure(flat_args) for e in self.entries[:1]]
        return reasons[0] or "guard failed"

    def add(self, entry: Entry) -> None:
        self.entries.insert(0, entry)


_CACHES: dict = {}


def cache_for(code) -> CodeCache:
    c = _CACHES.get(code)
    if c is None:
        c = _CACHES[code] = CodeCache(code)
    return c


def reset(code=None) -> None:
    """Drop all compiled entries (or those of one code object)."""
    if code is None:
        _CACHES.clear()
    else:
        _CACHES.pop(code, None)
