"""Schedule -> a compiled callable on the GPU: ``run(arrays) -> (outputs, {param_index: array})``
over CuPy arrays, the GPU twin of codegen/cpu/runner.py (whose layout it inherits: slots,
constants, reused intermediate buffers, outputs and parameter updates).

* Fused kernels of a schedule are rendered to CUDA C (codegen/cuda/kernels.py), compiled as one
  module by NVRTC (disk-cached, codegen/cuda/compiler.py) and launched with their static grids.
* Every other node runs its op's ``impl`` with ``xp=cupy``: matmul and batched matmul are
  ``cupy.matmul`` (cuBLAS); convolution is the op's im2col + GEMM impl (cuBLAS) - CuPy 14 has no
  cuDNN bindings any more; softmax, pooling, gather... are the ops' cupy code.
* Parameters, optimizer state, constants and intermediates stay on the device; a whole train step
  captured as one graph runs without host round trips (random draws are made on the host and
  copied, so every backend sees the same numbers).
* Small graphs are replayed through a CUDA graph (:class:`GraphReplay`): launch overhead, not
  bandwidth, dominates them.

Example:
    >>> # run = CudaCompiledGraph(schedule); outputs, updates = run([cupy arrays...])
"""
from __future__ import annotations

import contextlib

import logging
import os

import numpy as np

from ..cpu.runner import CompiledGraph
from . import compiler, render_module

log = logging.getLogger("codegen.cuda")

#: graphs whose inputs total at most this many bytes are replayed through a CUDA graph
#: (``MSJIT_CUDA_GRAPHS=0`` never, ``=1`` always when the graph allows it)
GRAPH_REPLAY_BYTES = 32 << 20


def device_capability(cp) -> int:
    return int(cp.cuda.Device().compute_capability)


class CudaCompiledGraph(CompiledGraph):
    """A schedule compiled for the current CUDA device; see the module docstring."""

    kernel_tag, impl_tag = "cuda", "cupy"

    def __init__(self, schedule, name=None, xp=None):
        if xp is None:
            import cupy as xp
        self.xp = xp
        self.cuda_kernels = {}
        super().__init__(schedule, name)
        self.replay = GraphReplay.for_graph(self)

    # -- device hooks ---------------------------------------------------------------------------
    def _native_plans(self, kernels_):
        return {}  # extern ops run their cupy implementations

    def _static_views(self, kernels_, buffers):
        return {}

    def _segments(self, kernels_, plans, static_views):
        return []  # every kernel is its own launch (replayed as one CUDA graph when small)

    def _pool_context(self, plans):
        return contextlib.nullcontext()  # the device runs the kernels: no host threads

    def _build_library(self, fused, segments=()):
        if not fused:
            return None
        source, self.cuda_kernels = render_module(fused)
        return self._load_module(source)

    def _load_module(self, source):
        """The loaded module of the source (``get_function(entry)`` -> a launchable kernel)."""
        arch = compiler.target_arch(device_capability(self.xp))
        return compiler.load_module(compiler.build_image(source, arch))

    def _alloc(self, nbytes):
        return self.xp.empty(nbytes, self.xp.uint8)

    def _place_const(self, data):
        return self.xp.asarray(data)

    @staticmethod
    def _snapshot(array):
        return array.copy()

    def _step_note(self, plan, split_ok):
        k = self.cuda_kernels[plan.name]
        return f" {k.strategy}" + (f" split({k.notes[0]})" if k.partials else "")

    def _fused_step(self, plan, buffers, split_ok):
        cp = self.xp
        kernel = self.cuda_kernels[plan.name]
        launches = [(self.library.get_function(launch.entry), launch.grid, launch.block, launch.args)
                    for launch in kernel.launches]
        partials = cp.empty(kernel.partials, kernel.acc_dtype) if kernel.partials else None
        static, dynamic_in, fresh_out = [], [], []
        for j, o in enumerate(plan.operands):
            slot = self._slot[id(o.value)]
            buf = buffers.get(id(o.value))
            if o.role == "in":
                dynamic_in.append((j, slot, o.dtype))
            elif buf is not None:
                static.append((j, slot, buf))
            else:
                fresh_out.append((j, slot, tuple(o.value.shape), o.dtype))
        n_ops = len(plan.operands)
        contiguous = cp.ascontiguousarray
        empty = cp.empty

        def step(env):
            arrays = [None] * n_ops
            for j, slot, dt in dynamic_in:
                a = env[slot]
                if a.dtype != dt or not a.flags.c_contiguous:
                    a = contiguous(a, dtype=dt)
                arrays[j] = a
            for j, slot, buf in static:
                arrays[j] = env[slot] = buf
            for j, slot, shape, dt in fresh_out:
                arrays[j] = env[slot] = empty(shape, dt)
            for fn, grid, block, args in launches:
                fn(grid, block, tuple(partials if a == "partials" else arrays[a] for a in args))

        step.graph_safe = True
        return step

    # -- running ------------------------------------------------------------------------------------
    def __call__(self, arrays, record=None):
        if record is None and self.replay is not None:
            return self.replay(arrays)
        return super().__call__(arrays, record)

    def run_steps(self, arrays):
        """The plain (non-replayed) run."""
        return CompiledGraph.__call__(self, arrays)

    def describe(self) -> str:
        text = super().describe()
        return text + ("\nreplayed through a CUDA graph" if self.replay is not None else "")


class GraphReplay:
    """Replays a compiled graph's launches through one CUDA graph.

    The first call runs the steps normally (it loads kernels and creates library handles); the
    second captures them on a private stream with a private memory pool, which the CUDA graph
    keeps: every array allocated while capturing (intermediates, library workspaces, outputs)
    stays where the graph wrote it, and no other allocation can be handed that memory. Replays
    copy the inputs into the captured input buffers, launch the graph, and copy the outputs and
    parameter updates out (the caller keeps them). The first replay is checked against a normal
    run; any difference, or any failure to capture (an op that synchronises with the host), turns
    replay off for this graph and is logged.
    """

    def __init__(self, compiled):
        self.compiled = compiled
        self.calls = 0
        self.graph = None
        self.verified = False

    @staticmethod
    def for_graph(compiled):
        mode = os.environ.get("MSJIT_CUDA_GRAPHS", "auto")
        if mode == "0":
            return None
        graph = compiled.graph
        if any(n.op.kind == "random" for n in graph.nodes):
            return None  # draws are made on the host per call: a replay would repeat them
        if any(getattr(n.op, "communicates", False) for n in graph.nodes):
            return None  # collectives go through MPI on the host, and the checking run would repeat them
        if mode != "1":
            nbytes = sum(int(np.prod(v.shape, dtype=np.int64)) * v.dtype.itemsize for v in graph.inputs)
            if nbytes > GRAPH_REPLAY_BYTES:
                return None
        return GraphReplay(compiled)

    def __call__(self, arrays):
        compiled = self.compiled
        self.calls += 1
        if self.graph is None:
            if self.calls < 2:
                return compiled.run_steps(arrays)
            try:
                self._capture(arrays)
            except Exception as e:  # an op that cannot be captured: run normally from now on
                log.info("CUDA graph capture of %s failed (%s: %s); launching kernels one by one",
                         compiled.name, type(e).__name__, e)
                compiled.replay = None
                return compiled.run_steps(arrays)
        outs, updates = self._replay(arrays)
        if not self.verified:
            self.verified = True
            want_outs, want_updates = compiled.run_steps(arrays)
            if not _same(outs, want_outs) or not all(_same([updates[k]], [v]) for k, v in want_updates.items()):
                log.warning("CUDA graph replay of %s differs from the normal run; replay turned off", compiled.name)
                compiled.replay = None
                return want_outs, want_updates
        return outs, updates

    def _capture(self, arrays):
        cp = self.compiled.xp
        self.pool = cp.cuda.MemoryPool()
        self.stream = cp.cuda.Stream(non_blocking=True)
        cp.cuda.get_current_stream().synchronize()
        with cp.cuda.using_allocator(self.pool.malloc), self.stream:
            self.inputs = [cp.empty(a.shape, a.dtype) for a in arrays]
            for dst, src in zip(self.inputs, arrays):
                dst[...] = src
            self.stream.synchronize()
            self.stream.begin_capture()
            try:
                outs, updates = self.compiled.run_steps(self.inputs)
            finally:
                graph = self.stream.end_capture()
        self.outs, self.updates = outs, updates
        self.graph = graph

    def _replay(self, arrays):
        cp = self.compiled.xp
        for dst, src in zip(self.inputs, arrays):
            if dst is not src:
                cp.copyto(dst, src)
        self.graph.launch(stream=cp.cuda.get_current_stream())
        outs = [o.copy() if isinstance(o, cp.ndarray) else o for o in self.outs]
        updates = {k: v.copy() for k, v in self.updates.items()}
        return outs, updates


def _same(got, want):
    import cupy as cp
    for a, b in zip(got, want):
        if not isinstance(b, cp.ndarray):
            continue
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            if not bool(cp.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)):
                return False
        elif not bool((a == b).all()):
            return False
    return True
