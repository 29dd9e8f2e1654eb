"""The GPU backend: schedules compiled to CUDA C through NVRTC and run with CuPy.

* :mod:`codegen.cuda.emitter`: the ops' scalar expressions (graph/ops/emit.py) as CUDA C - the
  same builders the LLVM emitter lowers, so an op has one definition for every backend;
* :mod:`codegen.cuda.kernels`: fused elementwise kernels and warp-shuffle reductions from a
  :class:`codegen.fused_plan.FusedPlan`;
* :mod:`codegen.cuda.conv`: ``conv2d`` and its input and filter gradients as implicit-GEMM kernels
  (shared-memory tiles whose loads compute the im2col index; no column matrix, no cuDNN);
* :mod:`codegen.cuda.compiler`: NVRTC (no GPU needed to compile), the key-bound disk cache of PTX
  and cubins, module loading;
* :mod:`codegen.cuda.runner`: the compiled graph (CuPy arrays in and out, generated kernels for
  fused groups and convolutions, cuBLAS matmuls, the ops' cupy impls for the rest, CUDA-graph
  replay of small graphs).

The backend's pass pipeline (:func:`schedule_graph`) is the CPU's without ``lower``: convolutions
reach the runner whole, for the implicit-GEMM kernels, instead of as im2col/col2im + matmul.

Nothing here imports CuPy at module import: the package loads (and its generator and compile-only
paths run) on machines without CuPy or without a GPU.

Example:
    >>> from codegen.cuda import compile_schedule, schedule_graph
    >>> # run = compile_schedule(schedule_graph(graph)); outputs, updates = run(cupy_arrays)
"""
from __future__ import annotations

#: graph passes of the pipeline the CUDA backend leaves out
SKIP_PASSES = ("lower",)


def schedule_graph(graph, level="O1"):
    """``graph.passes.optimize(graph, level)`` without the passes of :data:`SKIP_PASSES`:
    convolutions stay ``conv2d`` / ``conv2d_backprop_input`` / ``conv2d_backprop_filter`` nodes
    for the implicit-GEMM kernels (codegen/cuda/conv.py)."""
    from graph.passes import optimize
    return optimize(graph, level, skip=SKIP_PASSES)


def compile_schedule(schedule, name=None):
    """A :class:`codegen.cuda.runner.CudaCompiledGraph` for the current CUDA device."""
    from .runner import CudaCompiledGraph
    return CudaCompiledGraph(schedule, name)


def render_module(plans, rendered=()):
    """(module source, {plan name: CudaKernel}) of fused plans and kernels already rendered (the
    convolutions): one compilation unit."""
    from .compiler import module_source
    from .kernels import render
    kernels = [render(p) for p in plans] + list(rendered)
    return module_source([k.source for k in kernels]), {k.plan.name: k for k in kernels}


def schedule_source(schedule, name=None):
    """The module :func:`compile_schedule` builds for a schedule, without CuPy or a GPU (the
    compile-only tier NVRTC-compiles it): (source, {plan name: CudaKernel})."""
    from ..fused_plan import FusedPlan, plan_schedule
    from .conv import conv_kernels
    name = name or schedule.graph.name
    plans = plan_schedule(schedule, name)
    convs = [r[1] for r in conv_kernels(schedule, name).values() if isinstance(r, tuple)]
    return render_module([p for p in plans.values() if isinstance(p, FusedPlan)], convs)


def compile_graph(graph, level="O1"):
    return compile_schedule(schedule_graph(graph, level))
