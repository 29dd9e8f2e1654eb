"""Schedule -> a compiled callable on the GPU: ``run(arrays) -> (outputs, {param_index: array})``
over CuPy arrays, the GPU twin of codegen/cpu/runner.py (whose layout it inherits: slots,
constants, reused intermediate buffers, outputs and parameter updates).

* Fused kernels of a schedule are rendered to CUDA C (codegen/cuda/kernels.py), compiled as one
  module by NVRTC (disk-cached, codegen/cuda/compiler.py) and launched with their static grids.
* Convolutions (``conv2d`` and its input and filter gradients, left whole by the backend's
  pipeline) are generated implicit-GEMM kernels (codegen/cuda/conv.py) in the same module,
  launched like fused kernels with their outputs in the planned buffers. cuDNN is used instead
  when ``cupy.cudnn`` imports (CuPy 14 removed it, so in practice never); a convolution the
  kernels do not cover (see ``conv.plan_conv``) runs the op's im2col + cuBLAS ``impl``.
* Every other node runs its op's ``impl`` with ``xp=cupy``: matmul and batched matmul are
  ``cupy.matmul`` (cuBLAS); softmax, pooling, gather... are the ops' cupy code.
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

import numpy as np

from graph import config as settings
from ..cpu.runner import CompiledGraph
from ..fused_plan import FusedPlan
from . import compiler, conv, render_module

log = logging.getLogger("codegen.cuda")

#: graphs whose inputs total at most this many bytes are replayed through a CUDA graph
#: (``MSJIT_CUDA_GRAPHS=0`` never, ``=1`` always when the graph allows it)
GRAPH_REPLAY_BYTES = 32 << 20


def device_capability(cp) -> int:
    return int(cp.cuda.Device().compute_capability)


def cudnn_module(xp):
    """``cupy.cudnn`` when it imports (CuPy 13 and older, with cuDNN installed), else None (CuPy 14
    removed it; ``MSJIT_CUDNN=0`` turns it off)."""
    if not settings.get("MSJIT_CUDNN") or getattr(xp, "__name__", None) != "cupy":
        return None
    try:
        import cupy.cudnn as cudnn
        return cudnn
    except Exception:  # ImportError, or libcudnn missing
        return None


class CudaCompiledGraph(CompiledGraph):
    """A schedule compiled for the current CUDA device; see the module docstring."""

    kernel_tag, impl_tag = "cuda", "cupy"
    LAZY_ARENA = False  # (device memory: allocated with the graph, as before)

    def __init__(self, schedule, name=None, xp=None):
        if xp is None:
            import cupy as xp
        self.xp = xp
        self.cuda_kernels = {}
        self.conv_kernels = {}  # plan name -> CudaKernel of the implicit-GEMM convolutions
        self.cudnn_nodes = {}  # id(node) -> kernel index of the convolutions run through cuDNN
        super().__init__(schedule, name)
        for ki in self.cudnn_nodes.values():
            node = schedule.kernels[ki].nodes[0]
            self.descr[ki] = f"k{ki} cudnn {node.op.name}"
        self.replay = GraphReplay.for_graph(self)

    # -- device hooks ---------------------------------------------------------------------------
    def _cudnn_module(self):
        return cudnn_module(self.xp)

    def _adapt_plans(self, plans) -> None:
        """The CUDA kernels reduce over any axis with their own grid: the plans stay as planned."""

    def _native_plans(self, kernels_):
        """Convolutions: through cuDNN when CuPy has it and the padding is symmetric, else the
        generated implicit-GEMM kernels (codegen/cuda/conv.py), else (a reason recorded) the op's
        cupy impl. Other extern ops run their cupy implementations."""
        cudnn = self._cudnn_module()
        plans = {}
        for ki, r in conv.conv_kernels(self.schedule, self.SYMBOLS).items():
            node = kernels_[ki].nodes[0]
            if cudnn is not None and isinstance(r, tuple) and _cudnn_padding(node) is not None:
                self.cudnn_nodes[id(node)] = ki
                continue
            if isinstance(r, tuple):
                plan, kernel = r
                self.conv_kernels[plan.name] = kernel
                plans[ki] = plan
            else:
                plans[ki] = r  # the reason, shown by describe()
        return plans

    def _impl_step(self, node, buffers=None):
        if id(node) in self.cudnn_nodes:
            return self._cudnn_step(node)
        return super()._impl_step(node, buffers)

    def _cudnn_step(self, node):
        """A step calling ``cupy.cudnn`` (CuPy 13's signatures) for a convolution node."""
        cudnn, xp = self._cudnn_module(), self.xp
        name, a = node.op.name, node.attrs
        pad, stride, dilation, groups = _cudnn_padding(node), tuple(a["stride"]), tuple(a["dilation"]), a["groups"]
        s0, s1 = (self._slot[id(v)] for v in node.inputs)
        so = self._slot[id(node.outputs[0])]
        shape, dt = tuple(node.outputs[0].shape), node.outputs[0].dtype.np
        asc = xp.ascontiguousarray
        flags = dict(auto_tune=False, tensor_core="auto")

        def step(env):
            u, v = asc(env[s0]), asc(env[s1])
            out = xp.empty(shape, dt)
            if name == "conv2d":  # (x, W, b, y, ...)
                cudnn.convolution_forward(u, v, None, out, pad, stride, dilation, groups, **flags)
            elif name == "conv2d_backprop_input":  # (W, gy, b, gx, ...)
                cudnn.convolution_backward_data(v, u, None, out, pad, stride, dilation, groups,
                                                deterministic=True, **flags)
            else:  # (x, gy, gW, ...)
                cudnn.convolution_backward_filter(v, u, out, pad, stride, dilation, groups,
                                                  deterministic=True, **flags)
            env[so] = out
        return step

    def _static_views(self, kernels_, buffers):
        return {}

    def _segments(self, kernels_, plans, transparent):
        return []  # every kernel is its own launch (replayed as one CUDA graph when small)

    def _call_region(self, plans, calls_blas):
        return contextlib.nullcontext()  # the device runs the kernels: no host threads, no BLAS

    def _build_library(self, fused, segments=()):
        if not fused:
            return None
        source, self.cuda_kernels = render_module([p for p in fused if isinstance(p, FusedPlan)],
                                                  [self.conv_kernels[p.name] for p in fused
                                                   if p.name in self.conv_kernels])
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
        if k.cooperative:
            return f" {k.strategy} {k.notes[0]}"
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


def _cudnn_padding(node):
    """cuDNN's (pad_h, pad_w) of a convolution node, None when its padding is not symmetric
    (cuDNN pads both sides alike)."""
    try:
        t, b, l, r = conv.geometry(node).pads
    except Exception:
        return None
    return (t, l) if t == b and l == r else None


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
        mode = settings.get("MSJIT_CUDA_GRAPHS")
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
