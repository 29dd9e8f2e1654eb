"""Schedule -> a compiled callable ``run(arrays) -> (outputs, {param_input_index: new_array})``.

All fused kernels of a schedule, and the native kernels of the extern ops that have one
(convolution layout, pooling: codegen/cpu/native/), go into one LLVM module (one compile, one
cache entry); matrix products call the one product kernel every graph shares, compiled once per
process (codegen/cpu/native/gemm.py: ``library``). The runner is a precomputed list of steps over a flat
environment list: compiled steps call their kernel through a cached ctypes function pointer with
a preallocated ``void*`` argument array (only pointers that change per call are rewritten); a run
of compiled kernels is a *segment*, one generated function calling them in order (the big ones
through the thread pool's native parallel-for, codegen/cpu/native_pool.py), so the whole run
costs one Python-level call; views of planned buffers are made once;
other extern/view/random/state steps call the op's ``impl(numpy, ...)`` (matrix products without
a native kernel ``np.matmul(out=)``). Intermediate results of compiled kernels and matrix
products live in one arena allocated once per schedule and reused by every call, cut into
buffers by the project's one memory planner (graph/passes/memory.py: values whose lifetimes do
not overlap share a slot, ops that may return views keep their operands' slots busy); graph outputs and
parameter updates get fresh arrays on each call, since the caller keeps them (recycled from
small pools once the caller has dropped them) -- except the updates a fused kernel can write
into the parameter's own array (:meth:`CompiledGraph._plan_inplace`) when the caller donates it
(``donate=True``: the capture path, for arrays only their Tensor references). In a training loop
a call's pointers repeat (two calls apart where updates go to the pools), and a call restored
from a snapshot of them binds only what changed (codegen/cpu/call_snapshots.py), in C where the
graph allows (codegen/cpu/_restored_call.c). ``steps`` keeps one step per kernel: the recording
run (``record=``) uses them, to snapshot every value.

While a call runs, the thread pool owns the cores: BLAS is single-threaded (the products are
split over the pool like any kernel, codegen/cpu/blas.py) and the pool's workers spin between
split kernels instead of sleeping (:meth:`codegen.cpu.threads.Pool.hot`).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading

import numpy as np

from graph import config as settings
from graph import forksafe
from graph.dtypes import float16
from graph.ir import Value
from graph.ops import comm
from graph.ops.promotion import cast_operands, promotion_target
from graph.passes import memory

from ..fused_plan import plan_schedule
from . import call_snapshots, compiler, kernels, native, threads
from .arena import Arena


def _free_rc():
    probe = [(np.empty(1), 0)]
    return sys.getrefcount(probe[0][0])


_FREE_RC = _free_rc()  # refcount of an array referenced only by a pool entry (while checked)


def _donated_rc():
    arrays = [np.empty(1)]
    a = arrays[0]
    return sys.getrefcount(a) + 1  # (+ its owner's reference: the Tensor whose data it is)


#: refcount of a donated array while ``_take_donations`` checks it: the caller's list, its owner,
#: the check's local name and ``getrefcount``'s argument
_DONATED_RC = _donated_rc()


def _matmul_out(node, target=None):
    """np.matmul(..., out=buf) for float matmuls of rank >= 2 without promotion (None otherwise)."""
    if node.op.name != "matmul" or target is not None:
        return None
    a, b = node.inputs
    o = node.outputs[0]
    if (not isinstance(a, Value) or not isinstance(b, Value) or a.ndim < 2 or b.ndim < 2
            or a.dtype is not b.dtype or not o.dtype.is_float):
        return None
    ta, tb = node.attrs.get("transpose_a", False), node.attrs.get("transpose_b", False)
    swap = np.swapaxes

    def call(x, y, out):
        np.matmul(swap(x, -1, -2) if ta else x, swap(y, -1, -2) if tb else y, out=out)
        return out
    return call


_NO_CONTEXT = contextlib.nullcontext()


def _per_thread_bits(plan) -> int:
    """The parts-per-thread field of the pool's ``parts`` argument for ``plan`` (0: the default)."""
    return min(getattr(plan, "parts_per_thread", 0), 255) << 8


class CompiledGraph:
    """The callable a backend returns. ``describe()`` lists the steps; ``run(arrays, record={})``
    also snapshots every materialised value (id(Value) -> array) for verification.

    The layout (slots, constants, reused buffers, step list, outputs and updates) is shared with
    the GPU runner (codegen/cuda/runner.py), which overrides the device hooks: the array module
    ``xp``, ``_build_library``, ``_alloc``, ``_place_const``, ``_fused_step``, ``_impl_step``."""

    accepts_record = True
    xp = np
    #: how ``describe()`` tags compiled kernels and array-impl steps
    kernel_tag, impl_tag = "llvm", "numpy"

    #: the prefix of the generated kernels' symbols (``<prefix>_k<kernel index>``, ``_seg<i>``): one
    #: for every graph, not the graph's name, so a kernel's description (its disk-cache key) and
    #: object code are the same whatever its function is called (a renamed train step keeps its
    #: compiled kernels); each graph's kernels load into a library of their own
    SYMBOLS = "msjit_graph"

    def __init__(self, schedule, name=None, arena=None):
        self.schedule = schedule
        self.graph = graph = schedule.graph
        # intermediates live in an arena (codegen/cpu/arena.py) allocated when the graph runs and
        # shared with the other graphs given the same ``arena`` (one code object's entries, under
        # capture), whose calls this lock serialises; a device runner allocates its own at once
        self._arena = (arena if arena is not None else Arena()) if self.LAZY_ARENA and self.xp is np else None
        self._lock = self._arena.lock if self._arena is not None else threading.Lock()
        self._arena_args = []  # (argument table, index, offset in the arena) of pointers into it
        self._arena_env = []  # (slot, _ArenaSlice) of the values every call starts with in it
        self._arena_mm = []  # (slot, _ArenaSlice) of the matrix products written into it
        self._arena_views = {}  # slot -> the matrix product's buffer, bound
        self._arena_generation = -1  # the arena generation the pointers were bound for
        self._pool_ordinals = {}  # (shape, dtype) -> fresh outputs of it so far (_output_pool)
        forksafe.track(self)
        self.name = name or graph.name
        self._half = any(v.dtype == float16 for n in graph.nodes for v in n.outputs)
        self._slot = {}
        self._init = []  # (slot, array) every call starts with: constants, planned buffers, static views
        self._pooled_addresses = {}  # (id, dtype) -> address of the arrays the output pools hold
        for i, v in enumerate(graph.inputs):
            self._slot[id(v)] = i
        self.n_inputs = len(graph.inputs)
        nslots = self.n_inputs
        for c in graph.consts:
            self._slot[id(c)] = nslots
            self._init.append((nslots, self._place_const(c.data)))
            nslots += 1
        self._consts = dict(self._init)  # slot -> constant
        kernels_ = schedule.kernels
        for k in kernels_:
            for n in k.nodes:
                for v in n.outputs:
                    if id(v) not in self._slot:
                        self._slot[id(v)] = nslots
                        nslots += 1
        self.nslots = nslots
        plans = plan_schedule(schedule, self.SYMBOLS)
        self._adapt_plans(plans)
        plans.update(self._native_plans(kernels_))
        self._block_counters = [p.block_counter for p in plans.values() if getattr(p, "block_counter", None) is not None]
        # -- buffer plan: graph/passes/memory.py, with what this backend stores where --------------
        buffers = self._plan_buffers(schedule, plans)
        # -- one module: the kernels and the native runs of kernels ---------------------------------
        static_views = self._static_views(kernels_, buffers)
        # a graph that starts non-blocking collectives lets MPI progress them between kernels (MPI
        # moves a message's pieces only inside MPI calls): one native call per kernel, no segments
        communicating = any(n.op.issue_early for k in kernels_ for n in k.nodes)
        # numpy steps that read only inputs and constants run first, so they do not cut a segment
        self._hoisted = self._input_only_steps(kernels_, plans, static_views, buffers)
        # parameter updates written into the parameter's own memory (when its caller donates it)
        self._inplace = {} if communicating else self._plan_inplace(kernels_, plans, static_views)
        self._inplace_inputs = sorted(self._inplace)
        self._donated = [False] * self.n_inputs  # per input: does this call write into it
        self._held = [None] * len(self._inplace_inputs)  # the arrays donated before, by input
        _share_identical_kernels(plans)  # (after in-place planning: it changes kernels' text)
        segments = [] if communicating else self._segments(kernels_, plans, set(static_views) | self._hoisted)
        # products inside compiled code are split over the thread pool, so BLAS must not start
        # threads of its own while they run (codegen/cpu/blas.py)
        calls_blas = any(isinstance(p, native.NativePlan) and p.calls_blas for p in plans.values())
        self._region = self._call_region(plans, calls_blas)
        # a kernel shared by identical plans (_share_identical_kernels) is built once, on every backend
        compiled = {p.name: p for p in plans.values() if not isinstance(p, (Exception, native.Absorbed))}
        self.library = self._build_library(list(compiled.values()),
                                           [(name, [(plans[ki].name, plans[ki].outer_extent, self._split_align(plans[ki]),
                                                     getattr(plans[ki], "error_flag", None))
                                                    for ki in members])
                                            for name, members in segments])
        # -- steps -----------------------------------------------------------------------------
        # every compiled kernel's argument table is a piece of one block, so a call's pointers
        # can be saved and restored at once (codegen/cpu/call_snapshots.py)
        self._argv_block = (ctypes.c_void_p * max(1, sum(
            len(p.operands) + len(getattr(p, "extra_args", ())) for p in plans.values()
            if isinstance(p, (kernels.FusedPlan, native.NativePlan)))))()
        self._argv_used = 0
        self.steps = []  # one per kernel (per node for unfused kernels): the recording run
        self.step_values = []  # ids of the values each step writes
        self.step_kernels = []  # the kernel index of each step (codegen/cpu/profile.py)
        self.descr = []
        kernel_steps = []  # per kernel: its steps
        buffers = {**buffers, **{id(kernels_[ki].nodes[0].outputs[0]): v for ki, v in static_views.items()}}
        split_ok = True  # the number of parts is decided per call (set_num_threads may change it)
        for ki, k in enumerate(kernels_):
            plan = plans.get(ki)
            if isinstance(plan, native.Absorbed):
                kernel_steps.append([])
                self.descr.append(f"k{ki} {k.kind} {'+'.join(n.op.name for n in k.nodes)} ({plan})")
                continue
            if isinstance(plan, (kernels.FusedPlan, native.NativePlan)):
                step = self._fused_step(plan, buffers, split_ok)
                kernel_steps.append([step])
                self.steps.append(step)
                self.step_kernels.append(ki)
                self.step_values.append([id(o.value) for o in plan.operands if o.role != "in"])
                what = (f"fused[{self.kernel_tag}]" if isinstance(plan, kernels.FusedPlan)
                        else f"native[{self.kernel_tag}] {plan.node.op.name}")
                self.descr.append(f"k{ki} {what} {plan.name} dims={plan.dims}{self._step_note(plan, split_ok)}")
            else:
                kernel_steps.append([])
                for n in k.nodes:
                    kernel_steps[-1].append(self._impl_step(n, buffers))
                    self.steps.append(kernel_steps[-1][-1])
                    self.step_kernels.append(ki)
                    self.step_values.append([id(v) for v in n.outputs])
                why = f" ({self.impl_tag} fallback: {plan})" if isinstance(plan, Exception) else ""
                self.descr.append(f"k{ki} {k.kind}[{self.impl_tag}] {'+'.join(n.op.name for n in k.nodes)}{why}")
        # the plain run: runs of compiled kernels become one native call each (segments), views
        # of planned buffers are made once
        self.call_steps = self._call_steps(kernel_steps, segments, static_views, plans)
        if communicating:
            self.steps = [_with_progress(s) for s in self.steps]
            self.call_steps = [_with_progress(s) for s in self.call_steps]
        self.out_slots = [(self._slot[id(v)] if isinstance(v, Value) else None, v) for v in graph.outputs]
        index = {id(v): i for i, v in enumerate(graph.inputs)}
        self.update_slots = [(index[id(p)], self._slot[id(v)]) for p, v in graph.updates.items()]
        self.snapshots = None if communicating else self._plan_snapshots(kernel_steps, static_views)
        self.fast_steps = (self._call_steps(kernel_steps, segments, static_views, plans, fast=True)
                           if self.snapshots is not None else None)
        self._restored = self._native_restored_call()
        self._env = [None] * self.nslots  # a call's environment starts as a copy of this
        for s, a in self._init:
            if isinstance(a, _ArenaSlice):
                self._arena_env.append((s, a))
            else:
                self._env[s] = a
        if self._arena is not None and self.arena_bytes:
            self._arena.attach(self)

    # -- device hooks ---------------------------------------------------------------------------
    def _adapt_plans(self, plans) -> None:
        """Backend choices on the shared fused plans: here, reductions over the outer axis of at
        least ``kernels.BLOCKED_REDUCTION_WORK`` are computed in blocks (codegen/cpu/kernels.py)."""
        for plan in plans.values():
            if isinstance(plan, kernels.FusedPlan) and plan.size * plan.cost >= kernels.BLOCKED_REDUCTION_WORK:
                kernels.block_outer_reduction(plan)

    def _native_plans(self, kernels_) -> dict:
        """kernel index -> native plan (or :class:`native.native.Absorbed`) of the extern kernels
        generated natively (codegen/cpu/native.py)."""
        return native.plan_kernels(self.graph, kernels_, self.SYMBOLS)

    def _call_region(self, plans, calls_blas):
        """The context a call runs in: kernels big enough to split run over the thread pool's
        native workers, kept spinning for the length of the call (and generated segments call
        its parallel-for, so the pool is loaded before the module); products inside compiled
        code run with BLAS on one thread (the pool splits them)."""
        flags = threads.CALL_BLAS if calls_blas else 0
        if any(self._splits(p, True) for p in plans.values() if isinstance(p, (kernels.FusedPlan, native.NativePlan))):
            flags |= threads.CALL_HOT
        return threads.pool().call_region(flags) if flags else _NO_CONTEXT

    def _build_library(self, plans, segments=()):
        """Compile the fused and native plans and the segments ((name, [(kernel name, outer
        extent)...]) runs of them) into one LLVM module (one cache entry)."""
        if not plans:
            return None
        for p in plans:  # kernels of process-wide libraries: loaded (their symbols known) first
            if isinstance(p, native.NativePlan):
                p.external_address()

        groups = kernels.part_groups(plans)

        def make_parts():
            for i, group in enumerate(groups):
                module = compiler.new_module(self.name if len(groups) == 1 else f"{self.name}.{i}")
                for p in group:
                    if isinstance(p, native.NativePlan):
                        p.emit(module)
                    else:
                        kernels.emit_fused(module, p)
                if i == len(groups) - 1:
                    for name, members in segments:
                        kernels.emit_segment(module, name, members)
                yield module
        desc = "\n".join([f"kernel {p.name}\n{p.description()}" for p in plans]
                         + [f"segment {name} {members}" for name, members in segments])
        return compiler.build_parts(desc, make_parts, len(groups))

    def _plan_buffers(self, schedule, plans) -> dict:
        """id(value) -> its buffer in this graph's arena, for the intermediate values the steps
        store into memory they are given (compiled kernels' outputs, and matrix products on the
        CPU), planned by the one memory planner (graph/passes/memory.py). Any other op runs its
        array ``impl``, which may return a view of its operands: such kernels alias. No value
        is written in place (the compiled kernels' pointers are ``noalias``)."""
        writes = {}  # kernel index -> [(value, storage dtype)]
        for ki, plan in plans.items():
            operands = getattr(plan, "operands", None)
            if operands is not None:
                writes[ki] = [(o.value, o.dtype) for o in operands if o.role != "in"]
        if self.xp is np:  # matrix products write into planned buffers too
            for ki, k in enumerate(schedule.kernels):
                if ki not in plans and k.kind == "extern" and _matmul_out(k.nodes[0]) is not None:
                    o = k.nodes[0].outputs[0]
                    writes[ki] = [(o, o.dtype.np)]
        stores = {ki: [(v, v.size * np.dtype(dt).itemsize) for v, dt in w] for ki, w in writes.items()}
        mplan = memory.plan(schedule, stores, may_alias=lambda ki, k: k.kind != "fused" and ki not in writes,
                            inplace=False)
        self.buffer_bytes = self.arena_bytes = mplan.arena_bytes
        lazy = self._arena is not None
        arena = self._alloc(mplan.arena_bytes) if mplan.arena_bytes and not lazy else None
        buffers = {}
        for w in writes.values():
            for v, dt in w:
                slot = mplan.slot_of.get(v.id)
                if slot is not None and id(v) not in buffers:
                    start = mplan.offsets[slot]
                    if lazy:  # (placed when the graph runs: _bind_arena)
                        buffers[id(v)] = _ArenaSlice(start, np.dtype(dt), tuple(v.shape))
                        continue
                    raw = arena[start:start + max(v.size * np.dtype(dt).itemsize, 1)]
                    buffers[id(v)] = raw[:v.size * np.dtype(dt).itemsize].view(dt).reshape(tuple(v.shape))
        return buffers

    #: layout-only ops whose result is a fixed view of a planned buffer: made once, no step
    STATIC_VIEW_OPS = ("reshape", "squeeze", "expand_dims")

    def _static_views(self, kernels_, buffers) -> dict:
        """kernel index -> the array a view kernel gives on every call, for views of planned
        buffers (their memory and shape never change, so the view is made once)."""
        views = {}
        made = dict(buffers)
        for ki, k in enumerate(kernels_):
            node = k.nodes[0]
            if k.kind != "view" or node.op.name not in self.STATIC_VIEW_OPS:
                continue
            src = node.inputs[0]
            base = made.get(id(src)) if isinstance(src, Value) else None
            if base is not None:
                out = node.outputs[0]
                made[id(out)] = views[ki] = base.reshape(tuple(out.shape))
        return views

    def _input_only_steps(self, kernels_, plans, static_views, buffers) -> set:
        """The kernel indices of the numpy steps (a reshape of a weight...) that read only the
        graph's inputs and constants and have no effects: a call runs them before everything
        else, where their values are ready, so the compiled kernels around them stay one run.
        (Not those writing a planned buffer: the planner gave its memory to other values before.)"""
        ready = {id(v) for v in self.graph.inputs} | {id(c) for c in self.graph.consts}
        hoisted = set()
        for ki, k in enumerate(kernels_):
            if (ki in static_views or ki in plans or len(k.nodes) != 1
                    or any(id(v) in buffers for v in k.nodes[0].outputs)):
                continue
            node = k.nodes[0]
            if not node.op.has_effects and all(id(v) in ready for v in node.inputs if isinstance(v, Value)):
                hoisted.add(ki)
        return hoisted

    def _plan_inplace(self, kernels_, plans, static_views) -> dict:
        """input index -> slot of its new value, for the parameter updates a fused kernel writes
        into the parameter's own memory when the caller donates it (``__call__``); the kernel's
        plan gets the pair in ``inplace`` (it stores the new value through the input's pointer).

        An update is written in place when nothing can tell: its new value is stored by a fused
        kernel that reads the old one at the same index (equal strides and dtype)
        and is not returned; every other read of the old value or of a view of it comes earlier
        (or runs before everything, a hoisted numpy step) and no graph output is such a view; and
        nothing after the writer can raise or run numpy (a compiled call that raises is rerun
        eagerly, which must find the parameters as they were: a kernel that flags bad input
        ends its run of kernels, ``kernels.emit_segment``)."""
        if self.xp is not np:
            return {}
        producer, readers = {}, {}
        for ki, k in enumerate(kernels_):
            plan = plans.get(ki)
            at = plan.into if isinstance(plan, native.Absorbed) else ki  # where its reads happen
            for n in k.nodes:
                for v in n.outputs:
                    producer[id(v)] = ki
                for a in n.inputs:
                    if isinstance(a, Value):
                        readers.setdefault(id(a), set()).add(at)
        compiled = {ki for ki, p in plans.items() if isinstance(p, (kernels.FusedPlan, native.NativePlan))}
        quiet = compiled | set(static_views) | self._hoisted | {ki for ki, p in plans.items() if isinstance(p, native.Absorbed)}
        quiet -= {ki for ki in compiled if getattr(plans[ki], "after_call", None) is not None}
        returned = {id(v) for v in self.graph.outputs if isinstance(v, Value)}
        index = {id(v): i for i, v in enumerate(self.graph.inputs)}
        # id(value) -> ids of the inputs whose memory it may be a view of (numpy steps' results)
        views_of = {id(v): {id(v)} for v in self.graph.inputs}
        for ki, k in enumerate(kernels_):
            if ki not in compiled:
                bases = set().union(*(views_of.get(id(a), ()) for n in k.nodes for a in n.inputs if isinstance(a, Value)))
                if bases:
                    for n in k.nodes:
                        for v in n.outputs:
                            views_of[id(v)] = bases
        chosen = {}
        for param, new in self.graph.updates.items():
            w = producer.get(id(new))
            plan = plans.get(w)
            # (a fused kernel computes each element of its iteration space once, whatever else it
            # reduces, so an element it stores is one it has read)
            if (not isinstance(plan, kernels.FusedPlan) or id(new) in returned
                    or tuple(param.shape) != tuple(new.shape)):
                continue
            roles = {(id(o.value), o.role): k for k, o in enumerate(plan.operands)}
            k_in, k_out = roles.get((id(param), "in")), roles.get((id(new), "out"))
            if (k_in is None or k_out is None or k_out in plan.inplace  # (one value, two parameters)
                    or plan.operands[k_in].strides != plan.operands[k_out].strides
                    or plan.operands[k_in].dtype != plan.operands[k_out].dtype):
                continue
            views = {v for v, bases in views_of.items() if id(param) in bases and v != id(param)}
            late = {r for r in readers.get(id(param), ()) if r > w}
            late |= {r for v in views for r in readers.get(v, ()) if r >= w}
            if (late - self._hoisted or (views | {id(param)}) & returned
                    or any(ki not in quiet for ki in range(w + 1, len(kernels_)))):
                continue
            plan.inplace[k_out] = k_in
            chosen[index[id(param)]] = self._slot[id(new)]
        return chosen

    def _segments(self, kernels_, plans, transparent) -> list:
        """[(entry name, [kernel index, ...])]: maximal runs of two or more compiled kernels
        (split ones included: the segment calls the pool's native parallel-for), across the
        ``transparent`` kernels between them (static views, the steps run first)."""
        runs, run = [], []
        for ki in range(len(kernels_)):
            if ki in transparent or isinstance(plans.get(ki), native.Absorbed):
                continue
            plan = plans.get(ki)
            if isinstance(plan, (kernels.FusedPlan, native.NativePlan)):
                run.append(ki)
                continue
            if len(run) > 1:
                runs.append(run)
            run = []
        if len(run) > 1:
            runs.append(run)
        return [(f"{self.SYMBOLS}_seg{i}", members) for i, members in enumerate(runs)]

    def _call_steps(self, kernel_steps, segments, static_views, plans, fast=False):
        """The steps of a plain run: static views leave, each segment's kernels become one step
        that sets every member's pointers and makes one native call. ``fast``: the steps of a
        call whose snapshot was restored (:meth:`_plan_snapshots`): kernels bind only what the
        snapshot does not fix, and views the snapshot made redundant leave too."""
        head = {members[0]: (name, members) for name, members in segments}
        inside = {ki for _, members in segments for ki in members}
        steps = [st for ki in self._hoisted if not (fast and ki in self._redundant_views) for st in kernel_steps[ki]]
        for ki, ksteps in enumerate(kernel_steps):
            if ki in static_views or ki in self._hoisted or (fast and ki in self._redundant_views):
                continue
            if ki in head:
                name, members = head[ki]
                steps.append(self._segment_step(name, [kernel_steps[m][0] for m in members],
                                                [plans[m] for m in members], fast))
                if not fast:
                    self.descr[ki] += f"  <- {name}: {len(members)} kernels in one native call"
            elif ki not in inside:
                steps.extend([getattr(st, "fast", st) for st in ksteps] if fast else ksteps)
        if not fast:
            for ki, view in static_views.items():
                node = self.schedule.kernels[ki].nodes[0]
                self._init.append((self._slot[id(node.outputs[0])], view))
        return steps

    def _segment_step(self, name, members, member_plans, fast=False):
        """One step for a run of compiled kernel steps: each member's ``prepare(env)`` sets its
        pointers for this call (inputs, fresh outputs), then one native call runs them all. The
        split members' numbers of parts are decided again when the thread count changes.
        ``fast``: only the members' ``fast_prepare`` run (those that have one)."""
        seg = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(self.library.address(name))
        tables = (ctypes.c_void_p * len(members))(*[ctypes.addressof(m.argv) for m in members])
        parts = (ctypes.c_int64 * len(members))()
        split = [(j, p.size * p.cost) for j, p in enumerate(member_plans) if self._split_align(p) is not None]
        per_thread = [_per_thread_bits(p) for p in member_plans]
        if fast:
            prepares = [m.binding.fast_prepare for m in members if m.binding.fast_prepare is not None]
        else:
            prepares = [m.prepare for m in members]
        afters = [m.after for m in members if m.after is not None]
        n_threads, parts_for = threads.n_threads, threads.parts_for
        sized_for = [0]  # the thread count ``parts`` was decided for

        def step(env):
            if split and sized_for[0] != n_threads():
                for j, work in split:
                    parts[j] = parts_for(work) | per_thread[j]
                sized_for[0] = n_threads()
            keep = [prepare(env) for prepare in prepares]  # copies made for this call live until it ends
            seg(tables, parts)
            del keep
            for after in afters:
                after(env)

        step.keep_alive = (members, seg, tables, parts)
        # (what a call restored in C runs instead: _native_restored_call)
        step.native = (self.library.address(name), tables, parts, members, member_plans)
        return step

    def _plan_snapshots(self, kernel_steps, static_views):
        """The :class:`call_snapshots.CallSnapshots` of this graph (None where its assumptions
        cannot hold), and each compiled kernel's ``fast_prepare``: what a call restored from a
        snapshot must still bind.

        Fixed by a snapshot: the inputs the graph updates, reshape-like views of them (the same
        memory), and the new values of those inputs where one kernel writes each into its pools
        and the graph does not also return it. The other inputs are bound by the snapshots too,
        when they change. Everything else (values of numpy steps, returned values) is bound by
        the kernels on every call."""
        self._redundant_views = set()
        bindings = [st.binding for ksteps in kernel_steps for st in ksteps if hasattr(st, "binding")]
        updated = [i for i, _ in self.update_slots]
        new_values = [s for _, s in self.update_slots]
        if self.xp is not np or len(set(new_values)) != len(new_values) or len(set(updated)) != len(updated):
            return None
        writers = {}
        for b in bindings:
            for k, out in enumerate(b.fresh_out):
                writers.setdefault(out[1], []).append((b, k))
        returned = {s for s, _ in self.out_slots if s is not None}
        managed = [(s, *writers[s][0]) for s in new_values if len(writers.get(s, ())) == 1 and s not in returned]
        # (an input's slot is its index; an update in place is the donated input itself)
        fixed = set(updated) | {s for s, _, _ in managed} | set(self._inplace.values())
        # values numpy steps, outputs and updates read from the environment must stay in it
        env_read = returned | set(new_values)
        for ksteps, k in zip(kernel_steps, self.schedule.kernels):
            if any(not hasattr(st, "binding") for st in ksteps):
                env_read |= {self._slot[id(v)] for n in k.nodes for v in n.inputs if isinstance(v, Value)}
        for b in bindings:
            if b.after_reads:
                env_read |= set(b.after_reads)
        for ki, k in enumerate(self.schedule.kernels):
            node = k.nodes[0]
            if (k.kind == "view" and len(k.nodes) == 1 and ki not in static_views and node.op.name in self.STATIC_VIEW_OPS
                    and isinstance(node.inputs[0], Value) and self._slot[id(node.inputs[0])] in fixed):
                out = self._slot[id(node.outputs[0])]
                fixed.add(out)  # a reshape of a contiguous array: a view of the same memory
                if out not in env_read:
                    self._redundant_views.add(ki)
        managed_slots = {s for s, _, _ in managed}
        # the other inputs that every kernel reads as the same dtype: slot -> [(position, dtype)],
        # bound by the snapshots when they change (the rest may need a converted copy)
        input_reads = {}
        for b in bindings:
            for j, slot, dt in b.dynamic_in:
                if slot < self.n_inputs and slot not in fixed:
                    input_reads.setdefault(slot, []).append((b.offset + j, dt))
        input_reads = {slot: reads for slot, reads in input_reads.items() if len({dt for _, dt in reads}) == 1}
        positions, reads = [], []
        for b in bindings:
            volatile_in, volatile_out = [], []
            for d in b.dynamic_in:
                if d[1] in fixed:
                    positions.append(b.offset + d[0])
                    reads.append((d[1], d[2]))
                elif d[1] not in input_reads:
                    volatile_in.append(d)
            for out in b.fresh_out:
                if out[1] in managed_slots:
                    positions.append(b.offset + out[0])
                else:
                    volatile_out.append(out)
            positions += [b.offset + j for j, *_ in b.inout]
            b.volatile_in, b.volatile_out = volatile_in, volatile_out
            b.fast_prepare = b.preparer(volatile_in, volatile_out) if volatile_in or volatile_out else None
        return call_snapshots.CallSnapshots(self._argv_block, updated, positions, reads, managed,
                                            self._pooled_addresses, _FREE_RC, input_reads)

    def _native_restored_call(self):
        """The call restored from a snapshot, in C (codegen/cpu/_restored_call.c), where the
        graph allows it: every update in place, and a restored call that is only native runs of
        kernels whose tables the snapshot fixes but for the other inputs and the returned
        outputs. None where it does not (or the extension is not built, or
        ``MSJIT_PY_RESTORED_CALL=1``): restored calls stay in Python."""
        snapshots = self.snapshots
        if (snapshots is None or self._half or len(self._inplace) != len(self.update_slots)
                or settings.get("MSJIT_PY_RESTORED_CALL")):
            return None
        try:
            from . import _restored_call
        except ImportError:
            return None
        segments, flags, outs, out_index = [], [], [], {}
        for step in self.fast_steps:
            if not hasattr(step, "native"):
                return None
            address, tables, parts, members, member_plans = step.native
            for m, plan in zip(members, member_plans):
                if m.binding.volatile_in:
                    return None
                for j, slot, _, _, pool, _ in m.binding.volatile_out:
                    out_index[slot] = len(outs)
                    outs.append((pool, m.binding.offset + j))
                if getattr(plan, "error_flag", None) is not None:
                    flags.append(m.argv[plan.error_flag])
            segments.append((address, ctypes.addressof(tables), ctypes.addressof(parts)))
        results = []
        for slot, v in self.out_slots:
            if slot is None:
                results.append((1, v))  # a constant
            elif slot in out_index:
                results.append((0, out_index[slot]))
            elif slot < self.n_inputs:
                results.append((2, slot))  # an input returned as it is
            else:
                return None
        reads = tuple((i, tuple(int(p) for p in positions), memoryview(np.empty(0, dt)).format, dt.itemsize)
                      for i, positions, dt in snapshots._input_reads)
        if snapshots.native is not None:  # (a rebuilt one: its calls stay counted)
            snapshots._hits += snapshots.native.hits
        region = None if self._region is _NO_CONTEXT else self._region.native_entry()
        # a held donated array's references, seen from C: _DONATED_RC, plus the runner's hold,
        # less the Python check's local name and argument
        held_refs = _DONATED_RC + 1 - 2
        snapshots.native = _restored_call.RestoredCall(
            region, self.n_inputs, held_refs, tuple(self._inplace_inputs), self._held, reads, snapshots._bound,
            tuple(outs), tuple(results), tuple(segments), tuple(flags), ctypes.addressof(threads.EPOCH),
            ctypes.addressof(self._argv_block))
        snapshots.native.bind(self._lock, self._donating_python_call)
        return snapshots.native

    def _donating_python_call(self, arrays):
        return self._python_call(arrays, donate=True)

    @property
    def donating_call(self):
        """``call(arrays) -> (outputs, updates)``: this graph called with ``donate=True`` (what
        the capture path runs), through the call restored in C where there is one."""
        return self._restored.call if self._restored is not None else self._donating_python_call

    # -- the arena -----------------------------------------------------------------------------------
    #: intermediates live in an arena allocated when the graph runs (codegen/cpu/arena.py); False:
    #: allocated with the graph (device runners)
    LAZY_ARENA = True

    def _arena_gen(self) -> int:
        """The arena's generation (-1 without one: nothing to bind)."""
        return -1 if self._arena is None or not self.arena_bytes else self._arena.generation

    def _bind_arena(self) -> None:
        """Point the kernels' tables, the environment's buffers and the products' outputs at the
        arena's memory (allocated now if it is not: a MemoryError here is the call's). The lock
        is held."""
        block = self._arena.memory(self.arena_bytes)
        base = block.ctypes.data
        for argv, j, offset in self._arena_args:
            argv[j] = base + offset
        env = self._env
        for s, piece in self._arena_env:
            env[s] = piece.view_of(block)
        for s, piece in self._arena_mm:
            self._arena_views[s] = piece.view_of(block)
        self._arena_generation = self._arena.generation

    def _output_pool(self, shape, dtype) -> list:
        """The pool a fresh output of ``shape`` and ``dtype`` recycles its arrays through: shared
        with the other graphs of the arena (the k-th output of a shape and dtype of each), so the
        entries of one code object keep one set of returned arrays (a gradient's shape does not
        depend on the batch size), not one per entry. Sharing is safe as a pool is: an array is
        taken only while its pool alone holds it, and the graphs of an arena run one at a time."""
        if self._arena is None:
            return []
        key = (shape, np.dtype(dtype).str)
        ordinal = self._pool_ordinals[key] = self._pool_ordinals.get(key, -1) + 1
        return self._arena.output_pool((*key, ordinal))

    def arena_moved(self) -> None:
        """The arena's memory moved or was given back (its lock held): drop the views of the old
        memory and send the next call through Python, which binds the new one."""
        self.disarm()
        self._arena_generation = -2
        env = self._env
        for s, _ in self._arena_env:
            env[s] = None
        self._arena_views.clear()

    def disarm(self) -> None:
        """The next call goes through Python (the call restored in C holds the arena's addresses)."""
        restored = getattr(self, "_restored", None)
        if restored is not None:
            restored.armed = 0

    @staticmethod
    def _alloc(nbytes):
        """A byte array starting at a multiple of the planner's slot alignment (a cache line)."""
        raw = np.empty(nbytes + memory.ALIGN, np.uint8)
        skip = -raw.ctypes.data % memory.ALIGN
        return raw[skip:skip + nbytes]

    @staticmethod
    def _place_const(data):
        return data

    @staticmethod
    def _snapshot(array):
        return np.array(array, copy=True)

    def _step_note(self, plan, split_ok):
        return " split" if self._parts(plan, split_ok) > 1 else ""

    # -- analysis --------------------------------------------------------------------------------

    def _reset_after_fork(self):
        if self._arena is not None:  # (one new lock per arena: its graphs keep sharing it)
            self._arena.renew_lock_after_fork()
            self._lock = self._arena.lock
        else:
            self._lock = threading.Lock()  # another thread of the parent may have held it
        if self._restored is not None:  # (disarmed: the pool has no workers yet)
            self._restored.bind(self._lock, self._donating_python_call)
        for counter in self._block_counters:  # ... in the middle of a blocked kernel
            counter[:] = 0

    @staticmethod
    def _parts(plan, split_ok):
        """How many parts the kernel runs in with the current thread count."""
        return threads.parts_for(plan.size * plan.cost, split_ok and plan.splittable)

    @classmethod
    def _split_align(cls, plan):
        """The alignment of a kernel's parts when it is split over the thread pool, else None."""
        return (64 if len(plan.dims) == 1 else 1) if cls._splits(plan, True) else None

    @staticmethod
    def _splits(plan, split_ok):
        """Whether the kernel is big enough to be split over the thread pool (decided once; the
        number of parts is decided per call)."""
        return split_ok and plan.splittable and plan.size * plan.cost >= threads.SPLIT_THRESHOLD

    # -- steps -------------------------------------------------------------------------------------
    def _new_argv(self, n):
        """The next ``n`` pointers of the graph's argument block, and their offset in it."""
        offset = self._argv_used
        self._argv_used += n
        return (ctypes.c_void_p * n).from_buffer(self._argv_block, offset * ctypes.sizeof(ctypes.c_void_p)), offset

    def _fused_step(self, plan, buffers, split_ok):
        external = plan.external_address() if isinstance(plan, native.NativePlan) else None
        fn = compiler.KERNEL_CFUNC(external) if external else self.library.cfunc(plan.name)
        n_ops = len(plan.operands)
        extra = getattr(plan, "extra_args", ())  # arrays after the operands: sizes, scratch, counters
        argv, offset = self._new_argv(n_ops + len(extra))
        for i, a in enumerate(extra):
            argv[n_ops + i] = a.ctypes.data
        dynamic_in = []  # (arg index, slot, dtype)
        fresh_out = []  # (arg index, slot, shape, dtype, pool, index among the fresh outputs)
        inout = []  # (arg index, input slot, slot of its new value, dtype): updates in place
        written_into = {src: out for out, src in getattr(plan, "inplace", {}).items()}
        keep_static = list(extra)
        for j, o in enumerate(plan.operands):
            slot = self._slot[id(o.value)]
            buf = buffers.get(id(o.value))
            if j in written_into:
                inout.append((j, slot, self._slot[id(plan.operands[written_into[j]].value)], o.dtype))
            elif j in getattr(plan, "inplace", ()):
                continue  # stored through its input's pointer
            elif o.role != "in":
                if isinstance(buf, _ArenaSlice):
                    self._arena_args.append((argv, j, buf.offset))
                    self._init.append((slot, buf))
                elif buf is not None:
                    argv[j] = buf.ctypes.data
                    self._init.append((slot, buf))
                    keep_static.append(buf)
                else:
                    shape = tuple(o.value.shape)
                    fresh_out.append((j, slot, shape, o.dtype, self._output_pool(shape, o.dtype), len(fresh_out)))
            else:  # a constant or a planned buffer has the same address on every call
                c = buf if buf is not None else self._consts.get(slot)
                if isinstance(c, _ArenaSlice) and c.dtype == o.dtype:
                    self._arena_args.append((argv, j, c.offset))
                elif c is not None and not isinstance(c, _ArenaSlice) and c.dtype == o.dtype and c.flags.c_contiguous:
                    argv[j] = c.ctypes.data
                    keep_static.append(c)
                else:
                    dynamic_in.append((j, slot, o.dtype))
        hi = plan.outer_extent
        work = plan.size * plan.cost
        split = self._splits(plan, split_ok)
        align = self._split_align(plan)
        parallel_for = threads.pool().native_parallel_for if split else None
        per_thread = _per_thread_bits(plan)
        fn_address = ctypes.cast(fn, ctypes.c_void_p).value
        parts_for = threads.parts_for
        binding = _Binding(argv, offset, dynamic_in, fresh_out, self._pooled_addresses, inout, self._donated)
        prepare = binding.preparer(dynamic_in, fresh_out, inout)

        after_call = getattr(plan, "after_call", None)
        if after_call is not None:  # the kernel may have flagged bad input: the op raises then
            binding.after_reads = in_slots = [self._slot[id(o.value)] for o in plan.operands if o.role == "in"]

            def after(env):
                after_call([env[s] for s in in_slots])
        else:
            after = None

        def run(env, prepare):
            keep = prepare(env) if prepare is not None else None  # copies live until the kernel ran
            if split:
                parallel_for(fn_address, argv, 0, hi, parts_for(work) | per_thread, align)
            else:
                fn(argv, 0, hi)
            del keep
            if after is not None:
                after(env)

        def step(env):
            run(env, prepare)

        def fast(env):  # a call restored from a snapshot
            run(env, binding.fast_prepare)

        step.keep_alive = (keep_static, fn, argv)
        # for segments (one call for a run) and snapshots
        step.prepare, step.argv, step.after, step.binding, step.fast = prepare, argv, after, binding, fast
        return step

    def _impl_step(self, node, buffers=None):
        """A step running the op's array ``impl`` with this runner's array module (a matrix
        product on the CPU writes into its planned buffer, or a new array)."""
        op = node.op
        xp = self.xp
        ins = [(self._slot[id(a)], None) if isinstance(a, Value) else (None, a) for a in node.inputs]
        outs = [self._slot[id(v)] for v in node.outputs]
        target = promotion_target(op, node.inputs)
        attrs = dict(node.attrs)
        impl = op.impl
        multi = op.n_outputs != 1
        asarray, ndarray = xp.asarray, xp.ndarray
        mm = _matmul_out(node, target) if xp is np else None
        if mm is not None:
            oshape, odt = tuple(node.outputs[0].shape), node.outputs[0].dtype.np
            (sa, _), (sb, _) = ins
            o = outs[0]
            buf = (buffers or {}).get(id(node.outputs[0]))
            if isinstance(buf, _ArenaSlice):
                self._arena_mm.append((o, buf))
                bound = self._arena_views

                def step(env):
                    env[o] = mm(env[sa], env[sb], bound[o])
                return step
            if buf is not None:
                def step(env):
                    env[o] = mm(env[sa], env[sb], buf)
                return step

            def step(env):
                env[o] = mm(env[sa], env[sb], np.empty(oshape, odt))
            return step

        def step(env):
            args = [env[s] if s is not None else c for s, c in ins]
            if target is not None:
                args = cast_operands(op, args, target)
            r = impl(xp, *args, **attrs)
            if multi:
                for s, x in zip(outs, r):
                    env[s] = x if isinstance(x, ndarray) else asarray(x)
            else:
                env[outs[0]] = r if isinstance(r, ndarray) else asarray(r)
        return step

    # -- running -----------------------------------------------------------------------------------
    def __call__(self, arrays, record=None, donate=False):
        """``(outputs, {input index: new value})`` for the input ``arrays``. ``donate=True``: the
        caller gives up the inputs the graph updates in place (``inplace_inputs``) where they are
        referenced only by ``arrays`` and one owner besides (the Tensor whose data they are, which
        then sees them updated): those are written in place and left out of the updates."""
        restored = self._restored
        if restored is not None and donate and record is None:
            outs = restored(arrays)  # None: not in the state it handles (or a kernel flagged bad input)
            if outs is not None:
                return outs, {}
        return self._python_call(arrays, record, donate)

    def _python_call(self, arrays, record=None, donate=False):
        """``__call__`` in Python: the reference the call restored in C repeats."""
        restored = self._restored
        if len(arrays) != self.n_inputs:
            raise ValueError(f"graph {self.name}: expected {self.n_inputs} inputs, got {len(arrays)}")
        with self._lock, self._region, (np.errstate(over="ignore", invalid="ignore") if self._half else _NO_CONTEXT):
            # (steps share argument arrays and buffers: one call at a time; float16 graphs
            # overflow to inf silently, as eager float16 does -- loss scaling detects it)
            if restored is not None:
                restored.armed = 0
            if self._arena_generation != self._arena_gen():
                self._bind_arena()  # (first run, or the arena's memory moved)
            every = self._take_donations(arrays, donate and record is None) if self._inplace else True
            env = self._env.copy()
            env[:self.n_inputs] = arrays
            snapshots = self.snapshots
            snap = snapshots.lookup(arrays) if snapshots is not None and record is None and every else None
            if snap is not None:
                snapshots.restore(snap, env)
                for step in self.fast_steps:
                    step(env)
                if restored is not None:  # the block holds the snapshot, the steps sized their parts
                    restored.epoch = threads.EPOCH[0]
                    restored.armed = 1
            else:
                if snapshots is not None:  # (first: a call that raises may have bound some inputs)
                    snapshots.forget_inputs()
                if record is None:
                    for step in self.call_steps:
                        step(env)
                    if snapshots is not None and every:
                        snapshots.record(arrays, env)
                else:  # snapshot every value right after it is computed (buffers get reused)
                    for step, vids in zip(self.steps, self.step_values):
                        step(env)
                        for vid in vids:
                            s = self._slot[vid]
                            if env[s] is not None:
                                record[vid] = self._snapshot(env[s])
            outs = [env[s] if s is not None else v for s, v in self.out_slots]
            donated = self._donated
            updates = {i: env[s] for i, s in self.update_slots if not donated[i]}
        return outs, updates

    @property
    def inplace_inputs(self) -> list:
        """The input indices this graph updates in place when they are donated (``__call__``)."""
        return self._inplace_inputs

    def _take_donations(self, arrays, donate) -> bool:
        """Mark in ``_donated`` the in-place inputs this call writes into: with ``donate``, each
        one referenced by ``arrays`` and its owner alone (a view of it references it too, so
        nobody else can read it) that owns its memory and is laid out as the kernel writes it.
        The runner keeps the arrays it wrote into, so their ids (keys of the snapshots and of the
        known addresses) stay theirs. True when every in-place input is donated.

        All or none: when one of them cannot be donated (the script holds that parameter's
        array), none is, and every update comes back in the call's ``updates``. A step's updates
        then land all together or not at all even if the call is interrupted (Ctrl-C): the
        in-place writes all happen in the last native call (``_plan_inplace``: nothing but
        compiled kernels after the first writer), and the caller applies returned updates in one
        uninterruptible call (capture.runner.apply_updates); a mix would write some parameters in
        place and leave the others to Python after the call, where a signal handler may run."""
        donated, held, inputs = self._donated, self._held, self._inplace_inputs
        if not donate:
            for i in inputs:
                donated[i] = False
            return False
        getrc, every = sys.getrefcount, True
        for k, i in enumerate(inputs):
            a = arrays[i]
            if a is held[k]:
                ok = getrc(a) == _DONATED_RC + 1
            else:
                ok = getrc(a) == _DONATED_RC and self._hold(k, a)
            donated[i] = ok
            every = every and ok
        if not every:
            for i in inputs:
                donated[i] = False
        return every

    def _hold(self, k, a) -> bool:
        """Keep ``a`` as the array in-place input ``k`` is written into, if a kernel may write it."""
        i = self._inplace_inputs[k]
        v = self.graph.inputs[i]
        if (type(a) is not np.ndarray or a.base is not None or not a.flags.c_contiguous or not a.flags.writeable
                or a.dtype != v.dtype.np or a.shape != tuple(v.shape)):
            return False
        old = self._held[k]
        if old is not None:
            del self._pooled_addresses[(id(old), old.dtype)]
            if self.snapshots is not None:  # keyed by its id, which another array may take now
                self.snapshots.clear()
        self._held[k] = a
        self._pooled_addresses[(id(a), a.dtype)] = a.ctypes.data
        return True

    def value_slot(self, v):
        return self._slot.get(id(v))

    def describe(self) -> str:
        restored = f", {len(self.fast_steps)} restored from a snapshot" if self.fast_steps is not None else ""
        restored += f", {len(self._inplace)} of {len(self.update_slots)} updates in place" if self.update_slots else ""
        return "\n".join([f"compiled {self.name}: {len(self.steps)} steps ({len(self.call_steps)} Python-level "
                          f"calls per run{restored}), {self.buffer_bytes} bytes of reused buffers"] + self.descr)


class _ArenaSlice:
    """Where a planned buffer lies in the arena (bytes from its start), its dtype and shape, until
    the graph runs (:meth:`CompiledGraph._bind_arena` makes it an array there)."""

    __slots__ = ("offset", "dtype", "shape")

    def __init__(self, offset, dtype, shape):
        self.offset, self.dtype, self.shape = offset, dtype, shape

    def reshape(self, shape):
        """The same memory, seen with another shape (a static view of the buffer)."""
        return _ArenaSlice(self.offset, self.dtype, tuple(shape))

    def view_of(self, block):
        nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        return block[self.offset:self.offset + nbytes].view(self.dtype).reshape(self.shape)


class _Binding:
    """How a compiled kernel's argument table is filled on each call: ``dynamic_in`` (argument
    index, slot, dtype) are read from the call's environment, ``fresh_out`` (argument index,
    slot, shape, dtype, pool, k) are new arrays the caller keeps, ``inout`` (argument index,
    input slot, new value's slot, dtype) are inputs the kernel updates in place: the input itself
    where the call's caller donated it (``donated[input slot]``), else a copy of it that becomes
    the new value (the caller's array keeps its value). ``offset``: where the table
    starts in the graph's argument block; ``chosen[k]``: the pool entry the last call that bound
    output k wrote it into (None: an array outside the pool); ``fast_prepare``: what a call
    restored from a snapshot still binds (None: nothing); ``after_reads``: the slots the kernel's
    after-call check reads."""

    #: arrays kept per output pool; beyond it, outputs the caller still holds are fresh arrays
    POOL_SIZE = 3

    def __init__(self, argv, offset, dynamic_in, fresh_out, known, inout=(), donated=()):
        self.argv, self.offset = argv, offset
        self.dynamic_in, self.fresh_out, self.inout, self.donated = dynamic_in, fresh_out, inout, donated
        # addresses of the arrays this graph's pools hold (for as long as the graph lives, so an
        # id is never reused while listed): a parameter's new value comes back as an input of the
        # next call, and ``a.ctypes.data`` costs ~0.8 us (LeNet5 reads ~40 such inputs a step)
        self.known = known
        self.chosen = [None] * len(fresh_out)
        self.fast_prepare = None
        self.after_reads = ()

    def preparer(self, dynamic_in, fresh_out, inout=()):
        """``prepare(env)``: point the arguments listed at this call's arrays; it returns the
        copies made (if any), which must live until the kernel has run."""
        argv, known, chosen, pool_size, donated = self.argv, self.known, self.chosen, self.POOL_SIZE, self.donated
        asc, empty, getrc, copy = np.ascontiguousarray, np.empty, sys.getrefcount, np.array

        def prepare(env):
            keep = None
            for j, src, slot, dt in inout:
                a = env[src]
                if donated[src]:  # the runner holds it: its address is known
                    argv[j] = known[(id(a), dt)]
                else:
                    a = copy(a, dtype=dt, order="C")
                    argv[j] = a.ctypes.data
                env[slot] = a
            for j, slot, dt in dynamic_in:
                a = env[slot]
                ptr = known.get((id(a), dt))
                if ptr is None:
                    if a.dtype != dt or not a.flags.c_contiguous:
                        a = asc(a, dtype=dt)
                        keep = (keep or []) + [a]
                    ptr = a.ctypes.data
                argv[j] = ptr
            # graph outputs are handed to the caller, so each call needs an array nobody else
            # holds; recycling a previously returned one whose only owner is its pool avoids
            # page-faulting a fresh allocation on every call (large allocations are fresh mmaps)
            for j, slot, shape, dt, pool, k in fresh_out:
                for entry in pool:
                    if getrc(entry[0]) == _FREE_RC:
                        chosen[k] = entry
                        if (id(entry[0]), dt) not in known:  # (made by another graph of the arena)
                            known[(id(entry[0]), dt)] = entry[1]
                        break
                else:
                    a = empty(shape, dt)
                    entry = (a, a.ctypes.data)
                    del a
                    if len(pool) < pool_size:
                        pool.append(entry)
                        known[(id(entry[0]), entry[0].dtype)] = entry[1]
                        chosen[k] = entry
                    else:
                        chosen[k] = None
                argv[j] = entry[1]
                env[slot] = entry[0]
            return keep
        return prepare


def _share_identical_kernels(plans) -> None:
    """Fused kernels with the same canonical text are compiled once: each later one takes the
    first one's name. An unrolled recurrence repeats one cell's kernels at every time step (an
    LSTM over 24 steps: 503 fused kernels, ~40 distinct), and LLVM's time grows with the code."""
    first = {}
    for p in plans.values():
        if isinstance(p, kernels.FusedPlan):
            p.name = first.setdefault(p.description(), p.name)


def _with_progress(step):
    progress = comm.progress

    def run(env):
        step(env)
        progress()
    return run


os  # (environment knobs live in threads.py / diskcache.py)
