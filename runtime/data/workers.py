"""Worker pools for the dataset pipeline: ``fn(*task)`` for a stream of tasks, results in task order.

``ordered_map(fn, tasks, num_workers, processes=False)`` is what ``map(num_parallel_workers=N)``
(threads) and ``map(..., python_multiprocessing=True)`` (processes) run on. The results come back
in the order of the tasks whatever the number of workers, so a pipeline gives the same rows in the
same order with 1 or 8 workers; the pool lives as long as the generator, and closing the generator
(end of an epoch, an abandoned iterator, an exception) shuts its workers down:

- threads: a ``ThreadPoolExecutor``; queued tasks are cancelled and the running ones (one each)
  finish before ``close`` returns.
- processes: daemon processes forked from this one (``spawn`` where there is no ``fork``), one pipe
  each, tasks handed out round-robin with one task in flight per worker (so neither side ever
  blocks on a full pipe). A worker that dies is reported with its exit code instead of waiting
  for it forever; on shutdown each worker is asked to stop, then terminated if it has not within
  a few seconds; multiprocessing terminates daemon workers at interpreter exit too.

An exception raised by ``fn`` reaches the caller as the same exception type; from a process it
carries the worker's traceback as its ``__cause__`` (the way ``concurrent.futures`` does).

Example:
    >>> from runtime.data.workers import ordered_map
    >>> list(ordered_map(pow, [(2, 3), (3, 2), (10, 0)], num_workers=2))
    [8, 9, 1]
"""
from __future__ import annotations

import collections
import concurrent.futures
import multiprocessing
import os
import pickle
import signal
import traceback

#: seconds a stopping worker process gets to exit by itself before it is terminated
STOP_TIMEOUT_S = 5.0
#: how often a parent waiting for a worker process's result checks that the worker still lives
_LIVENESS_POLL_S = 0.2
#: how often an idle worker process checks that its parent still lives
_PARENT_CHECK_S = 1.0
_END = object()


def ordered_map(fn, tasks, num_workers=1, processes=False, what="map"):
    """Yield ``fn(*task)`` for each task of the iterable ``tasks``, in order.

    ``num_workers == 1`` runs in the calling thread. Tasks are pulled from ``tasks`` lazily, a
    few ahead of the results consumed (2 per worker), so memory stays bounded on long streams.
    ``what`` names the pipeline step in error messages.
    """
    if num_workers <= 1:
        return (fn(*task) for task in tasks)
    if processes:
        return _process_map(fn, tasks, num_workers, what)
    return _thread_map(fn, tasks, num_workers, what)


# ---------------------------------------------------------------------------------------------
# threads
# ---------------------------------------------------------------------------------------------
def _thread_map(fn, tasks, num_workers, what):
    pool = concurrent.futures.ThreadPoolExecutor(num_workers, thread_name_prefix=f"msjit-{what}-worker")
    pending = collections.deque()
    tasks = iter(tasks)
    try:
        while True:
            while len(pending) < 2 * num_workers:
                task = next(tasks, _END)
                if task is _END:
                    break
                pending.append(pool.submit(fn, *task))
            if not pending:
                return
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------------------------------------
# processes
# ---------------------------------------------------------------------------------------------
class WorkerTraceback(Exception):
    """The traceback text of an exception raised in a worker process (the ``__cause__`` of the
    exception re-raised in the parent)."""

    def __str__(self):
        return "\n" + self.args[0]


def _process_worker_main(fn, conn, inherited):
    """Loop of one worker process: receive a task, send ``(True, result)`` or ``(False, exception,
    traceback text)``; stop on ``None``, when the parent's end of the pipe closes, or when the
    parent has gone (killed without a chance to stop its workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for parent_end in inherited:
        parent_end.close()
    parent = os.getppid()
    while True:
        try:
            while not conn.poll(_PARENT_CHECK_S):
                if os.getppid() != parent:
                    return
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            reply = (True, fn(*task))
        except BaseException as e:  # everything goes back to the parent
            reply = (False, _portable(e), traceback.format_exc())
        try:
            conn.send(reply)
        except (BrokenPipeError, EOFError, OSError):
            return
        except Exception as e:  # the result or the exception would not pickle
            tb = reply[2] if not reply[0] else ""
            try:
                conn.send((False, TypeError(f"could not send the worker's {'result' if reply[0] else 'exception'} "
                                            f"back to the main process: {type(e).__name__}: {e}"), tb))
            except Exception:
                return


def _portable(exc):
    """``exc`` if it survives pickling (the parent re-raises the same type), else a RuntimeError
    with its type name and message (an exception class whose __init__ takes other arguments than
    its args cannot be rebuilt on the other side)."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}")


class _ProcessPool:
    def __init__(self, fn, num_workers, what):
        methods = multiprocessing.get_all_start_methods()
        # fork: the workers inherit the transforms as they are (lambdas and closures included)
        self._ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self._what = what
        self._procs, self._conns = [], []
        try:
            for i in range(num_workers):
                parent_end, child_end = self._ctx.Pipe(duplex=True)
                # the parent's ends a forked child gets copies of (its own pipe's included): closed in
                # the child, so that when the parent closes them the worker sees EOF / a broken pipe
                inherited = self._conns + [parent_end] if self._ctx.get_start_method() == "fork" else []
                proc = self._ctx.Process(target=_process_worker_main, args=(fn, child_end, inherited), daemon=True,
                                         name=f"msjit-{what}-worker-{i}")
                self._procs.append(proc)
                self._conns.append(parent_end)
                proc.start()
                child_end.close()
        except BaseException as e:
            self.close()
            if isinstance(e, Exception) and self._ctx.get_start_method() == "spawn":
                raise TypeError(f"{what}(python_multiprocessing=True): could not start the worker processes "
                                f"({type(e).__name__}: {e}); with the 'spawn' start method the operations "
                                "must be picklable (module-level functions or transform objects)") from e
            raise

    def __len__(self):
        return len(self._procs)

    def send(self, worker, task):
        try:
            self._conns[worker].send(task)
        except (BrokenPipeError, EOFError, OSError):
            self._raise_dead(worker)

    def receive(self, worker):
        conn, proc = self._conns[worker], self._procs[worker]
        while True:
            try:
                if conn.poll(_LIVENESS_POLL_S):
                    reply = conn.recv()
                    break
            except (EOFError, OSError):
                self._raise_dead(worker)
            if not proc.is_alive():
                # a result sent just before exiting is still in the pipe
                try:
                    if conn.poll(0):
                        reply = conn.recv()
                        break
                except (EOFError, OSError):
                    pass
                self._raise_dead(worker)
        if reply[0]:
            return reply[1]
        _, exc, tb = reply
        try:
            exc.add_note(f"(raised in {self._what} worker process {worker}, pid {proc.pid})")
        except AttributeError:
            pass
        raise exc from WorkerTraceback(tb)

    def _raise_dead(self, worker):
        proc = self._procs[worker]
        proc.join(timeout=1.0)
        code = proc.exitcode
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
        raise RuntimeError(f"{self._what}: worker process {worker} (pid {proc.pid}) {how} before returning its "
                           "rows (python_multiprocessing=True); a transform may have crashed or called exit")

    def close(self):
        """Ask every worker to stop, wait up to STOP_TIMEOUT_S, then terminate the rest."""
        for conn in self._conns:
            try:
                conn.send(None)
            except Exception:
                pass
        # closing our ends at once also frees a worker blocked sending a result nobody will read
        # (a pipe holds ~64 KiB): its send fails and it exits; the None stays readable for the others
        for conn in self._conns:
            conn.close()
        for proc in self._procs:
            if proc.pid is not None:
                proc.join(timeout=STOP_TIMEOUT_S)
        for proc in self._procs:
            if proc.pid is not None and proc.is_alive():
                proc.terminate()
                proc.join(timeout=STOP_TIMEOUT_S)
                if proc.is_alive():
                    proc.kill()
                    proc.join()
        for proc in self._procs:
            if proc.pid is not None:
                proc.close()
        self._procs, self._conns = [], []


def _process_map(fn, tasks, num_workers, what):
    pool = _ProcessPool(fn, num_workers, what)
    try:
        tasks = iter(tasks)
        in_flight = collections.deque()  # worker numbers, in the order their tasks were handed out
        for worker in range(len(pool)):
            task = next(tasks, _END)
            if task is _END:
                break
            pool.send(worker, task)
            in_flight.append(worker)
        while in_flight:
            worker = in_flight.popleft()
            result = pool.receive(worker)
            task = next(tasks, _END)
            if task is not _END:  # the freed worker takes the next task before the result is used
                pool.send(worker, task)
                in_flight.append(worker)
            yield result
    finally:
        pool.close()
