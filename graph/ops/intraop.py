"""Intra-op parallelism for array implementations: a loop over independent blocks of one op's
elements, split over a small thread pool sized to the cores this process may use
(:func:`graph.cpus.usable_cores`, or ``set_context(num_threads=N)``, which the runtime forwards
here). numpy releases the GIL inside its array loops, so the blocks of a long elementwise
computation written as many numpy calls (``special.erf``) run at once. Each block writes only
its own slice of the output, so results do not depend on the thread count.

Matrix products and convolutions are threaded by BLAS itself (runtime.device.limit_blas_threads
sizes it the same way); this pool is for the element-by-element work numpy runs on one core.

Example:
    >>> import numpy as np
    >>> out = np.zeros(10)
    >>> def fill(start, stop):
    ...     out[start:stop] = np.arange(start, stop)
    >>> run_blocks(fill, 10, 3)
    >>> out.tolist() == list(range(10))
    True
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

from ..cpus import usable_cores

#: threads for intra-op work; None: every usable core (set by ``set_context(num_threads=)``)
_requested: int | None = None
_pool: ThreadPoolExecutor | None = None
_pool_key = None  # (pid, workers) the pool was made for: a forked child makes its own
_lock = threading.Lock()
#: blocks below this many elements each are not worth a thread hand-off
MIN_BLOCK = 8192


def set_threads(n: int | None) -> None:
    """Use ``n`` threads for intra-op work (None: every usable core)."""
    global _requested
    _requested = n


def threads() -> int:
    return max(1, _requested if _requested is not None else usable_cores())


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_key
    key = (os.getpid(), workers)
    with _lock:
        if _pool is None or _pool_key != key:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="intraop")
            _pool_key = key
        return _pool


def run_blocks(fn, n: int, block: int) -> None:
    """``fn(start, stop)`` for consecutive blocks of ``block`` elements covering ``range(n)``,
    on the calling thread when one thread (or one block) suffices, else spread over the pool
    (the calling thread takes a share too). Exceptions propagate."""
    starts = range(0, n, block)
    workers = min(threads(), len(starts))
    if workers <= 1 or block < MIN_BLOCK or threading.current_thread().name.startswith("intraop"):
        for s in starts:
            fn(s, min(s + block, n))
        return
    # one contiguous run of blocks per worker: fewer hand-offs than one task per block
    per = -(-len(starts) // workers)
    runs = [(starts[i], min(starts[min(i + per, len(starts)) - 1] + block, n)) for i in range(0, len(starts), per)]

    def run(span):
        for s in range(span[0], span[1], block):
            fn(s, min(s + block, span[1]))

    pool = _executor(workers - 1)
    futures = [pool.submit(run, span) for span in runs[1:]]
    run(runs[0])
    for f in futures:
        f.result()
