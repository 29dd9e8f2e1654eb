"""The thread pool's native side: worker loops and the parallel-for, generated once per process.

A kernel split over Python-level workers paid ~100 us per split on an idle 2-core VM: a worker
asleep on a lock wakes through the OS (and the hypervisor), takes the GIL, and the caller waits
for it the same way; OpenBLAS's own threads, which spin, made it look cheap by keeping the other
cores awake. Here the workers are native loops (hosted by Python threads that never come back
from the call) that wait on one 32-bit *job word*:

* ``msjit_parallel_for(kernel, args, lo, hi, parts, align)`` cuts ``[lo, hi)`` like
  :func:`msjit_pool_cut`, publishes the job (kernel, args, bounds, then the job's number and
  number of parts, whose low 32 bits are the job word), takes parts itself and spins until
  every part is done. One job at a time: a caller that finds the pool busy (another thread, or a
  kernel inside a kernel) runs its range alone. Generated code calls it too (segments), so a run
  of kernels with split ones among them is still one native call.
* a worker spins on the job word while a compiled call is running (``msjit_pool_hot``: the calls
  that may split mark the pool hot while they run), for at most ``hot_ns`` without work, and for
  ``idle_ns`` otherwise; then it sleeps on the word (a futex on Linux) and the next job or hot
  call wakes it. So the pool's threads own the cores while compiled code runs and leave them
  shortly after it ends (``idle_ns``: long enough to bridge a training loop's Python between two
  steps, short against numpy's own BLAS threads in PyNative code that follows). Workers past
  the cores this process may use never spin hot (an oversubscribed pool would spin against the
  workers doing the job).

Parts are *claimed*, not assigned. A job's range is cut into :data:`SUBPARTS` parts per thread
(fewer when the caller asks: one BLAS call per part suits a big product best); thread ``t`` (the
caller 0, worker ``j`` is ``j + 1``) claims and runs the parts of its *home region* ``[t*R,
(t+1)*R)`` in order, then claims whatever is still unclaimed, from the end of the range. When the
threads keep pace each runs exactly its region (consecutive kernels cut alike give each thread
the rows it wrote before, still in its core's cache); when one lags, or a worker is late or off
its core, the others take over the tail of its region a part at a time instead of waiting for
it, or of taking its whole share while it was about to start. (With one part per thread, a
worker that did not run for milliseconds on a busy machine made the caller wait at every split
kernel: two processes training LeNet5 b32 side by side on 2 cores took 76 ms a step instead of
1.1 ms; stealing a whole share at once cost parallelism whenever a worker was a little late.)
Split four ways per thread, MLP b32's step went from 0.38 to 0.32 ms and LeNet5 b256's from
~8.4 to ~7.4 ms on the 2-core VM.

Jobs are numbered (``pool.desc``: the number << 8 | the number of parts, read in one load); part ``i`` is
claimed for job ``J`` by raising ``pool.flags[i]`` from below ``J`` to ``J`` (compare-and-swap).
The caller waits for every claimed part before it publishes the next job, so a claim made with
the number of a finished job always fails: a late worker never runs a part of a job it did not
see, nor reads half of a new one. Spinning threads yield the core now and then (a system call
that returns at once when nothing else wants the core), so they give way to busy
threads of other processes.

Example:
    >>> from codegen.cpu import native_pool
    >>> lib = native_pool.library()
    >>> lib.address("msjit_parallel_for") > 0
    True
"""
from __future__ import annotations

import functools
import platform
import sys

from llvmlite import ir

#: the job word keeps the number of parts in its low 8 bits
MAX_PARTS = 255
#: parts per thread: each thread runs its home region of parts in order, then takes the parts no
#: one has claimed yet from the end of the range, so a thread that finishes first takes over the
#: tail of a slower one's region
SUBPARTS = 4
I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
I8P = I8.as_pointer()
KERNEL = ir.FunctionType(ir.VoidType(), [I8P.as_pointer(), I64, I64])
#: futex(2) system call numbers, per machine (Linux); elsewhere a sleeping worker polls
_SYS_FUTEX = {"x86_64": 202, "amd64": 202, "aarch64": 98, "arm64": 98}
FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE = 128, 129
CLOCK_MONOTONIC = 1

#: source text of the generated module's design: part of its cache key
VERSION = "pool-13"


def _futex_number():
    return _SYS_FUTEX.get(platform.machine().lower()) if sys.platform.startswith("linux") else None


def _global(module, name, ty, init=0):
    g = ir.GlobalVariable(module, ty, name=name)
    g.linkage = "internal"
    g.initializer = ir.Constant(ty, init)
    g.align = 64  # one cache line each: the spinning workers read the job word all the time
    return g


def _declare(module, name, ret, args, var_arg=False):
    fn = module.globals.get(name)
    return fn if fn is not None else ir.Function(module, ir.FunctionType(ret, args, var_arg=var_arg), name)


def _loop(b, name):
    """An open loop: returns (head block, exit block); the caller branches back to head."""
    head = b.function.append_basic_block(f"{name}.head")
    exit_ = b.function.append_basic_block(f"{name}.exit")
    b.branch(head)
    b.position_at_end(head)
    return head, exit_


class _Module:
    """The pool's LLVM module: globals and small helpers shared by its functions."""

    def __init__(self, module):
        self.m = module
        self.job = _global(module, "pool.job", I32)
        self.kernel = _global(module, "pool.kernel", I8P, None)
        self.args = _global(module, "pool.args", I8P.as_pointer(), None)
        self.bounds = _global(module, "pool.bounds", ir.ArrayType(I64, MAX_PARTS + 1), None)
        self.desc = _global(module, "pool.desc", I64)  # job number << 8 | number of parts
        self.flags = _global(module, "pool.flags", ir.ArrayType(I64, MAX_PARTS + 1), None)  # job that claimed part i
        self.done = _global(module, "pool.done", I64)  # parts of the current job finished
        self.threads = _global(module, "pool.threads", I64)  # threads taking part in the current job
        self.region = _global(module, "pool.region", I64)  # parts per thread's home region
        self.busy = _global(module, "pool.busy", I32)
        self.hot = _global(module, "pool.hot", I64)
        self.sleepers = _global(module, "pool.sleepers", I32)
        self.workers = _global(module, "pool.workers", I64)
        self.spinners = _global(module, "pool.spinners", I64)
        self.hot_ns = _global(module, "pool.hot_ns", I64)
        self.idle_ns = _global(module, "pool.idle_ns", I64)
        self.epoch = _global(module, "pool.epoch", I64)  # workers of an older epoch leave their loop
        self.ready = _global(module, "pool.ready", I64)  # workers of this epoch waiting for jobs
        self.futex = _futex_number()
        self.x86 = platform.machine().lower() in ("x86_64", "amd64")
        self._timespec = {}

    # -- helpers ---------------------------------------------------------------------------------
    def bounds_ptr(self, b):
        return b.gep(self.bounds, [ir.Constant(I32, 0), ir.Constant(I32, 0)], inbounds=True)

    def pause(self, b):
        if self.x86:  # tells the core this is a spin loop (less power, no memory-order stall on exit)
            b.call(_declare(self.m, "llvm.x86.sse2.pause", ir.VoidType(), []), [])

    def now_ns(self, b):
        ts_ty = ir.LiteralStructType([I64, I64])
        fn = _declare(self.m, "clock_gettime", I32, [I32, ts_ty.as_pointer()])
        ts = self._timespec.get(b.function)
        if ts is None:  # one stack slot per function, allocated in its entry block
            here = b.block
            b.position_at_start(b.function.entry_basic_block)
            ts = self._timespec[b.function] = b.alloca(ts_ty, name="ts")
            b.position_at_end(here)
        b.call(fn, [ir.Constant(I32, CLOCK_MONOTONIC), ts])
        sec = b.load(b.gep(ts, [ir.Constant(I32, 0), ir.Constant(I32, 0)]))
        nsec = b.load(b.gep(ts, [ir.Constant(I32, 0), ir.Constant(I32, 1)]))
        return b.add(b.mul(sec, ir.Constant(I64, 1_000_000_000)), nsec)

    def sleep_on_job(self, b, seen):
        """Block until the job word differs from ``seen`` (or a wake-up); may return early."""
        if self.futex is not None:
            fn = _declare(self.m, "syscall", I64, [I64], var_arg=True)
            b.call(fn, [ir.Constant(I64, self.futex), self.job, ir.Constant(I64, FUTEX_WAIT_PRIVATE),
                        b.zext(seen, I64), ir.Constant(I8P, None)])
        else:
            b.call(_declare(self.m, "usleep", I32, [I32]), [ir.Constant(I32, 50)])

    def wake_sleepers(self, b):
        """Wake the workers asleep on the job word, if any (a system call only then)."""
        n = b.load_atomic(self.sleepers, "seq_cst", 4)
        with b.if_then(b.icmp_signed(">", n, ir.Constant(I32, 0)), likely=False):
            if self.futex is not None:
                fn = _declare(self.m, "syscall", I64, [I64], var_arg=True)
                b.call(fn, [ir.Constant(I64, self.futex), self.job, ir.Constant(I64, FUTEX_WAKE_PRIVATE),
                            ir.Constant(I64, 2 ** 31 - 1), ir.Constant(I8P, None)])

    def call_kernel(self, b, kernel, args, lo, hi):
        b.call(b.bitcast(kernel, KERNEL.as_pointer()), [args, lo, hi])

    def yield_every(self, b, spins, mask):
        """``sched_yield()`` when ``spins & mask == 0``: a spinning thread gives way to runnable
        threads waiting for its core (the call returns at once when there are none)."""
        with b.if_then(b.icmp_signed("==", b.and_(spins, ir.Constant(I64, mask)), ir.Constant(I64, 0)), likely=False):
            b.call(_declare(self.m, "sched_yield", I32, []), [])


def _emit_cut(M):
    """``i64 msjit_pool_cut(lo, hi, parts, align, i64* out)``: ``out[0..count]`` = the bounds of
    at most ``parts`` contiguous non-empty pieces of ``[lo, hi)``; inner bounds rounded down to a
    multiple of ``align`` from ``lo`` when every piece is long enough (vector loops keep whole
    blocks). Returns ``count``."""
    fn = ir.Function(M.m, ir.FunctionType(I64, [I64, I64, I64, I64, I64.as_pointer()]), "msjit_pool_cut")
    lo, hi, parts, align, out = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    n = b.sub(hi, lo)
    big = b.icmp_signed(">", n, b.mul(b.mul(align, parts), ir.Constant(I64, 4)))
    b.store(lo, out)
    pre = b.block
    head, done = _loop(b, "cut")
    i = b.phi(I64, "i")
    count = b.phi(I64, "count")
    start = b.phi(I64, "start")
    i.add_incoming(ir.Constant(I64, 1), pre)
    count.add_incoming(ir.Constant(I64, 0), pre)
    start.add_incoming(lo, pre)
    body = fn.append_basic_block("cut.body")
    b.cbranch(b.icmp_signed("<", i, parts), body, done)
    b.position_at_end(body)
    end = b.add(lo, b.sdiv(b.mul(n, i), parts))
    end = b.select(big, b.sub(end, b.srem(b.sub(end, lo), align)), end)
    grows = b.icmp_signed(">", end, start)
    count2 = b.select(grows, b.add(count, ir.Constant(I64, 1)), count)
    with b.if_then(grows):
        b.store(end, b.gep(out, [count2]))
    i.add_incoming(b.add(i, ir.Constant(I64, 1)), b.block)
    count.add_incoming(count2, b.block)
    start.add_incoming(b.select(grows, end, start), b.block)
    b.branch(head)
    b.position_at_end(done)
    total = b.add(count, ir.Constant(I64, 1))
    b.store(hi, b.gep(out, [total]))
    b.ret(total)
    return fn


def _emit_run_parts(M):
    """``void pool.run_parts(i64 job, i64 count, i64 thread)``: for a thread taking part in job
    number ``job``, claim and run the parts of its home region in order, then every part no one
    has claimed, from the last."""
    claim = ir.Function(M.m, ir.FunctionType(ir.IntType(1), [I64, I64]), "pool.claim")
    claim.linkage = "internal"
    part, job = claim.args
    b = ir.IRBuilder(claim.append_basic_block("entry"))
    flag = b.gep(M.flags, [ir.Constant(I32, 0), part], inbounds=True)
    head, taken = _loop(b, "cas")
    seen = b.load_atomic(flag, "acquire", 8)
    try_ = claim.append_basic_block("cas.try")
    b.cbranch(b.icmp_signed(">=", seen, job), taken, try_)
    b.position_at_end(try_)
    got = b.extract_value(b.cmpxchg(flag, seen, job, "acq_rel", "acquire"), 1)
    won = claim.append_basic_block("cas.won")
    b.cbranch(got, won, head)
    b.position_at_end(won)
    b.ret(ir.Constant(ir.IntType(1), 1))
    b.position_at_end(taken)
    b.ret(ir.Constant(ir.IntType(1), 0))

    run_part = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I64]), "pool.run_part")
    run_part.linkage = "internal"
    b = ir.IRBuilder(run_part.append_basic_block("entry"))
    part = run_part.args[0]
    bounds = M.bounds_ptr(b)
    M.call_kernel(b, b.load(M.kernel), b.load(M.args), b.load(b.gep(bounds, [part])),
                  b.load(b.gep(bounds, [b.add(part, ir.Constant(I64, 1))])))
    b.atomic_rmw("add", M.done, ir.Constant(I64, 1), "release")
    b.ret_void()

    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I64, I64, I64]), "pool.run_parts")
    fn.linkage = "internal"
    job, count, thread = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def take(part):
        with b.if_then(b.call(claim, [part, job])):
            b.call(run_part, [part])

    def each(start, stop, step, name):
        pre = b.block
        head, done = _loop(b, name)
        i = b.phi(I64, "i")
        i.add_incoming(start, pre)
        body = fn.append_basic_block(f"{name}.body")
        b.cbranch(b.icmp_signed("<", i, stop) if step > 0 else b.icmp_signed(">=", i, stop), body, done)
        b.position_at_end(body)
        take(i)
        i.add_incoming(b.add(i, ir.Constant(I64, step)), b.block)
        b.branch(head)
        b.position_at_end(done)

    # (a job's threads and region are written before its descriptor, which was read with acquire)
    with b.if_then(b.icmp_signed("<", thread, b.load_atomic(M.threads, "monotonic", 8))):
        region = b.load_atomic(M.region, "monotonic", 8)
        start = b.mul(thread, region)
        stop = b.add(start, region)
        each(start, b.select(b.icmp_signed("<", stop, count), stop, count), 1, "home")
        each(b.sub(count, ir.Constant(I64, 1)), ir.Constant(I64, 0), -1, "steal")
    b.ret_void()
    return fn


def _emit_parallel_for(M, cut, run_parts):
    """``void msjit_parallel_for(i8* kernel, i8** args, lo, hi, parts, align)``."""
    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I8P, I8P.as_pointer(), I64, I64, I64, I64]),
                     "msjit_parallel_for")
    fn.attributes.add("nounwind")
    kernel, args, lo, hi, parts, align = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    alone = fn.append_basic_block("alone")
    # ``parts``: threads in its low 8 bits, parts per thread above them (0: SUBPARTS)
    per_thread = b.lshr(parts, ir.Constant(I64, 8))
    per_thread = b.select(b.icmp_signed(">", per_thread, ir.Constant(I64, 0)), per_thread, ir.Constant(I64, SUBPARTS))
    parts = b.and_(parts, ir.Constant(I64, MAX_PARTS))
    # threads: at most the workers + 1, the range's length and what the job word holds
    p = parts
    for cap in (b.add(b.load_atomic(M.workers, "monotonic", 8), ir.Constant(I64, 1)), b.sub(hi, lo),
                ir.Constant(I64, MAX_PARTS)):
        p = b.select(b.icmp_signed("<", cap, p), cap, p)
    try_pool = fn.append_basic_block("try_pool")
    b.cbranch(b.icmp_signed(">", p, ir.Constant(I64, 1)), try_pool, alone)
    b.position_at_end(try_pool)
    got = b.extract_value(b.cmpxchg(M.busy, ir.Constant(I32, 0), ir.Constant(I32, 1), "acquire", "monotonic"), 1)
    owned = fn.append_basic_block("owned")
    b.cbranch(got, owned, alone)
    b.position_at_end(owned)
    bounds = M.bounds_ptr(b)
    pieces = b.mul(p, per_thread)
    pieces = b.select(b.icmp_signed("<", ir.Constant(I64, MAX_PARTS), pieces), ir.Constant(I64, MAX_PARTS), pieces)
    count = b.call(cut, [lo, hi, pieces, align, bounds])
    release_alone = fn.append_basic_block("release_alone")
    publish = fn.append_basic_block("publish")
    b.cbranch(b.icmp_signed(">", count, ir.Constant(I64, 1)), publish, release_alone)
    b.position_at_end(release_alone)
    b.store_atomic(ir.Constant(I32, 0), M.busy, "release", 4)
    b.branch(alone)
    b.position_at_end(publish)
    b.store(kernel, M.kernel)
    b.store(args, M.args)
    b.store_atomic(p, M.threads, "monotonic", 8)
    b.store_atomic(b.sdiv(b.add(count, b.sub(p, ir.Constant(I64, 1))), p), M.region, "monotonic", 8)
    b.store_atomic(ir.Constant(I64, 0), M.done, "monotonic", 8)
    job = b.add(b.lshr(b.load_atomic(M.desc, "monotonic", 8), ir.Constant(I64, 8)), ir.Constant(I64, 1))
    desc = b.or_(b.shl(job, ir.Constant(I64, 8)), count)
    # the descriptor (with the job's kernel, args and bounds before it), then the job word the
    # workers wait on (its low 32 bits)
    b.store_atomic(desc, M.desc, "release", 8)
    b.store_atomic(b.trunc(desc, I32), M.job, "seq_cst", 4)
    M.wake_sleepers(b)
    b.call(run_parts, [job, count, ir.Constant(I64, 0)])
    # every part is claimed now (the caller took what no worker had): wait for those still
    # running, yielding now and then
    pre = b.block
    head, done = _loop(b, "wait")
    spins = b.phi(I64, "spins")
    spins.add_incoming(ir.Constant(I64, 0), pre)
    body = fn.append_basic_block("wait.body")
    finished = b.load_atomic(M.done, "acquire", 8)
    b.cbranch(b.icmp_signed(">=", finished, count), done, body)
    b.position_at_end(body)
    M.pause(b)
    nxt = b.add(spins, ir.Constant(I64, 1))
    M.yield_every(b, nxt, 1023)
    spins.add_incoming(nxt, b.block)
    b.branch(head)
    b.position_at_end(done)
    b.store_atomic(ir.Constant(I32, 0), M.busy, "release", 4)
    b.ret_void()
    b.position_at_end(alone)
    M.call_kernel(b, kernel, args, lo, hi)
    b.ret_void()
    return fn


def _emit_worker(M, run_parts):
    """``void msjit_pool_worker(i64 j, i64 epoch)``: worker ``j``'s loop; returns only once the
    pool was reset (``msjit_pool_reset``: a forked child's pool, whose old workers are gone, or a
    parent that ran the fork hooks itself) so that two workers never answer to one index."""
    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I64, I64]), "msjit_pool_worker")
    j, epoch = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    seen0 = b.load_atomic(M.job, "acquire", 4)
    # jobs from now on are new to this worker: only now may jobs count on it (msjit_pool_ready)
    b.atomic_rmw("add", M.ready, ir.Constant(I64, 1), "seq_cst")
    t0 = M.now_ns(b)
    pre = b.block
    head, never = _loop(b, "wait")
    seen = b.phi(I32, "seen")
    since = b.phi(I64, "since")  # when this worker last worked or woke
    spins = b.phi(I64, "spins")
    seen.add_incoming(seen0, pre)
    since.add_incoming(t0, pre)
    spins.add_incoming(ir.Constant(I64, 0), pre)
    word = b.load_atomic(M.job, "acquire", 4)
    changed = fn.append_basic_block("changed")
    new_job = fn.append_basic_block("new_job")
    idle = fn.append_basic_block("idle")
    leave = fn.append_basic_block("leave")
    b.cbranch(b.icmp_unsigned("!=", word, seen), changed, idle)
    b.position_at_end(changed)  # a new job, or a reset: then this worker is not wanted any more
    b.cbranch(b.icmp_signed("!=", b.load_atomic(M.epoch, "acquire", 8), epoch), leave, new_job)
    b.position_at_end(leave)
    b.ret_void()
    # -- no new job: spin, and now and then check whether to sleep
    b.position_at_end(idle)
    M.pause(b)
    nxt = b.add(spins, ir.Constant(I64, 1))
    check = fn.append_basic_block("check")
    b.cbranch(b.icmp_signed("==", b.and_(nxt, ir.Constant(I64, 63)), ir.Constant(I64, 0)), check, head)
    seen.add_incoming(seen, idle)
    since.add_incoming(since, idle)
    spins.add_incoming(nxt, idle)
    b.position_at_end(check)
    M.yield_every(b, nxt, 16383)
    check_end = b.block  # (the yield's branch ends the check block)
    hot = b.and_(b.icmp_signed(">", b.load_atomic(M.hot, "monotonic", 8), ir.Constant(I64, 0)),
                 b.icmp_signed("<", j, b.load_atomic(M.spinners, "monotonic", 8)))
    budget = b.select(hot, b.load_atomic(M.hot_ns, "monotonic", 8), b.load_atomic(M.idle_ns, "monotonic", 8))
    now = M.now_ns(b)
    sleep = fn.append_basic_block("sleep")
    b.cbranch(b.icmp_signed(">", b.sub(now, since), budget), sleep, head)
    seen.add_incoming(seen, check_end)
    since.add_incoming(since, check_end)
    spins.add_incoming(nxt, check_end)
    b.position_at_end(sleep)
    b.atomic_rmw("add", M.sleepers, ir.Constant(I32, 1), "seq_cst")
    M.sleep_on_job(b, seen)
    b.atomic_rmw("sub", M.sleepers, ir.Constant(I32, 1), "seq_cst")
    woke = M.now_ns(b)
    seen.add_incoming(seen, b.block)
    since.add_incoming(woke, b.block)
    spins.add_incoming(ir.Constant(I64, 0), b.block)
    b.branch(head)
    # -- a new job (the newest one, if several were published since): its home part
    b.position_at_end(new_job)
    desc = b.load_atomic(M.desc, "acquire", 8)
    b.call(run_parts, [b.lshr(desc, ir.Constant(I64, 8)), b.and_(desc, ir.Constant(I64, MAX_PARTS)),
                       b.add(j, ir.Constant(I64, 1))])
    done = M.now_ns(b)
    seen.add_incoming(word, b.block)
    since.add_incoming(done, b.block)
    spins.add_incoming(ir.Constant(I64, 0), b.block)
    b.branch(head)
    b.position_at_end(never)
    b.unreachable()
    return fn


def _emit_control(M):
    """``msjit_pool_hot(delta)`` (a compiled call starts: +1, ends: -1; +1 wakes sleeping
    workers so they are spinning when its first split kernel comes), ``msjit_pool_ready``
    (workers of this epoch that are waiting for jobs), ``msjit_pool_configure`` (how many
    workers jobs may count on, how long they spin) and ``msjit_pool_reset(forked)`` (a new epoch
    of workers: in a forked child, or when the fork hooks ran without a fork)."""
    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I64]), "msjit_pool_hot")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    delta = fn.args[0]
    b.atomic_rmw("add", M.hot, delta, "seq_cst")
    with b.if_then(b.icmp_signed(">", delta, ir.Constant(I64, 0))):
        M.wake_sleepers(b)
    b.ret_void()

    fn = ir.Function(M.m, ir.FunctionType(I64, []), "msjit_pool_ready")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    b.ret(b.load_atomic(M.ready, "seq_cst", 8))

    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I64] * 4), "msjit_pool_configure")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    for g, v in zip((M.workers, M.spinners, M.hot_ns, M.idle_ns), fn.args):
        b.store_atomic(v, g, "seq_cst", 8)
    b.ret_void()

    fn = ir.Function(M.m, ir.FunctionType(I64, [I64]), "msjit_pool_reset")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    for g in (M.workers, M.ready):  # no worker of the new epoch yet
        b.store_atomic(ir.Constant(I64, 0), g, "seq_cst", 8)
    # in a forked child nothing runs and no worker exists: forget the parent's job and sleepers
    # (without a fork, the old workers still leave through the sleeper count and any job ends)
    with b.if_then(b.icmp_signed("!=", fn.args[0], ir.Constant(I64, 0))):
        for g in (M.done, M.hot):
            b.store_atomic(ir.Constant(I64, 0), g, "seq_cst", 8)
        for g in (M.busy, M.sleepers):
            b.store_atomic(ir.Constant(I32, 0), g, "seq_cst", 4)
    epoch = b.add(b.atomic_rmw("add", M.epoch, ir.Constant(I64, 1), "seq_cst"), ir.Constant(I64, 1))
    # a changed job word (no parts) sends any worker still looping home
    desc = b.shl(b.add(b.lshr(b.load_atomic(M.desc, "monotonic", 8), ir.Constant(I64, 8)), ir.Constant(I64, 1)),
                 ir.Constant(I64, 8))
    b.store_atomic(desc, M.desc, "seq_cst", 8)
    b.store_atomic(b.trunc(desc, I32), M.job, "seq_cst", 4)
    if M.futex is not None:
        b.call(_declare(M.m, "syscall", I64, [I64], var_arg=True),
               [ir.Constant(I64, M.futex), M.job, ir.Constant(I64, FUTEX_WAKE_PRIVATE), ir.Constant(I64, 2 ** 31 - 1),
                ir.Constant(I8P, None)])
    b.ret(epoch)  # the new epoch


#: ``msjit_call_enter``/``msjit_call_leave`` flags: BLAS on one thread, the pool's workers spinning
CALL_BLAS, CALL_HOT = 1, 2
_BLAS_GET = ir.FunctionType(I32, [])
_BLAS_SET = ir.FunctionType(ir.VoidType(), [I32])


def _emit_call_region(M):
    """What a compiled call enters and leaves, in one native call each (in Python: two context
    managers, a lock and four ctypes calls, ~2.4 us a call):

    * ``msjit_call_enter(flags)``: with :data:`CALL_BLAS`, the first call in sets the BLAS
      library to one thread (``region.set(1)``), keeping the count it found (``region.get()``)
      for the last one out, which ``msjit_call_leave(flags)`` puts back -- so numpy's own
      products outside compiled code keep every core (codegen/cpu/blas.py); with
      :data:`CALL_HOT`, the pool's workers spin while the call runs (``msjit_pool_hot``).
    * ``msjit_region_configure(get, set)``: the library's thread-count functions.
    * ``msjit_region_after_fork()``: in a forked child, a call that was running in another
      thread of the parent left the library on one thread: the child's first call puts back
      the count that call had kept.

    Callers hold the GIL through these calls (ctypes.PYFUNCTYPE, or the C restored call,
    codegen/cpu/_restored_call.c), which serialises them: the count of calls inside and the kept
    count need no lock of their own."""
    get_g = _global(M.m, "region.get", _BLAS_GET.as_pointer(), None)
    set_g = _global(M.m, "region.set", _BLAS_SET.as_pointer(), None)
    inside = _global(M.m, "region.inside", I64)  # compiled calls with CALL_BLAS running now
    kept = _global(M.m, "region.kept", I64, 1)  # the library's count when the first of them started
    restore = _global(M.m, "region.restore", I64)  # after a fork: the count to put back (0: none)
    hot = M.m.get_global("msjit_pool_hot")
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)

    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [_BLAS_GET.as_pointer(), _BLAS_SET.as_pointer()]),
                     "msjit_region_configure")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    b.store(fn.args[0], get_g)
    b.store(fn.args[1], set_g)
    b.ret_void()

    def has(b, flags, flag):
        return b.icmp_signed("!=", b.and_(flags, ir.Constant(I64, flag)), zero)

    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I64]), "msjit_call_enter")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    n_slot = b.alloca(I64, name="n")
    with b.if_then(has(b, fn.args[0], CALL_BLAS)):
        with b.if_then(b.icmp_signed("==", b.load(inside), zero)):
            found = b.load(restore)
            b.store(found, n_slot)
            with b.if_then(b.icmp_signed("==", found, zero)):
                b.store(b.sext(b.call(b.load(get_g), []), I64), n_slot)
            n = b.load(n_slot)
            b.store(zero, restore)
            b.store(n, kept)
            with b.if_then(b.icmp_signed(">", n, one)):
                b.call(b.load(set_g), [ir.Constant(I32, 1)])
        b.store(b.add(b.load(inside), one), inside)
    with b.if_then(has(b, fn.args[0], CALL_HOT)):
        b.call(hot, [one])
    b.ret_void()

    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), [I64]), "msjit_call_leave")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    with b.if_then(has(b, fn.args[0], CALL_HOT)):
        b.call(hot, [ir.Constant(I64, -1)])
    # (a call that was running when the fork hooks ran without a fork finds the count at 0)
    with b.if_then(b.and_(has(b, fn.args[0], CALL_BLAS), b.icmp_signed(">", b.load(inside), zero))):
        left = b.sub(b.load(inside), one)
        b.store(left, inside)
        n = b.load(kept)
        with b.if_then(b.and_(b.icmp_signed("==", left, zero), b.icmp_signed(">", n, one))):
            b.call(b.load(set_g), [b.trunc(n, I32)])
    b.ret_void()

    fn = ir.Function(M.m, ir.FunctionType(ir.VoidType(), []), "msjit_region_after_fork")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    with b.if_then(b.icmp_signed("!=", b.load(inside), zero)):
        b.store(b.load(kept), restore)
        b.store(zero, inside)
    b.ret_void()


def make_module():
    from . import compiler
    module = compiler.new_module("msjit_pool")
    M = _Module(module)
    cut = _emit_cut(M)
    run_parts = _emit_run_parts(M)
    _emit_parallel_for(M, cut, run_parts)
    _emit_worker(M, run_parts)
    _emit_control(M)
    _emit_call_region(M)
    return module


@functools.lru_cache(maxsize=None)
def library():
    """The compiled pool (loaded once per process; the object is in the disk cache)."""
    from . import compiler
    # compiled as written: its IR is explicit control code (atomics, spin loops, calls) that the
    # optimisation passes barely change, at 60 of the 80 ms it takes to compile (a cold first step)
    return compiler.keep_for_process(
        compiler.build_described(f"{VERSION} futex={_futex_number()} machine={platform.machine()}", make_module,
                                 speed_level=0))
