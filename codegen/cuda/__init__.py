"""The GPU backend: schedules compiled to CUDA C through NVRTC and run with CuPy.

* :mod:`codegen.cuda.emitter`: the ops' scalar expressions (graph/ops/emit.py) as CUDA C - the
  same builders the LLVM emitter lowers, so an op has one definition for every backend;
* :mod:`codegen.cuda.kernels`: fused elementwise kernels and warp-shuffle reductions from a
  :class:`codegen.fused_plan.FusedPlan`;
* :mod:`codegen.cuda.compiler`: NVRTC (no GPU needed to compile), the key-bound disk cache of PTX
  and cubins, module loading;
* :mod:`codegen.cuda.runner`: the compiled graph (CuPy arrays in and out, cuBLAS matmuls, the
  ops' cupy impls for everything not fused, CUDA-graph replay of small graphs).

Nothing here imports CuPy at module import: the package loads (and its generator and compile-only
paths run) on machines without CuPy or without a GPU.

Example:
    >>> from codegen.cuda import compile_schedule
    >>> # run = compile_schedule(graph.passes.optimize(graph)); outputs, updates = run(cupy_arrays)
"""
from __future__ import annotations


def compile_schedule(schedule, name=None):
    """A :class:`codegen.cuda.runner.CudaCompiledGraph` for the current CUDA device."""
    from .runner import CudaCompiledGraph
    return CudaCompiledGraph(schedule, name)


def render_module(plans):
    """(module source, {plan name: CudaKernel}) of fused plans: one compilation unit."""
    from .compiler import module_source
    from .kernels import render
    rendered = [render(p) for p in plans]
    return module_source([k.source for k in rendered]), {k.plan.name: k for k in rendered}


def schedule_source(schedule, name=None):
    """The module :func:`compile_schedule` builds for a schedule, without CuPy or a GPU (the
    compile-only tier NVRTC-compiles it): (source, {plan name: CudaKernel})."""
    from ..fused_plan import FusedPlan, plan_schedule
    plans = plan_schedule(schedule, name or schedule.graph.name)
    return render_module([p for p in plans.values() if isinstance(p, FusedPlan)])


def compile_graph(graph, level="O1"):
    from .. import schedule_graph
    return compile_schedule(schedule_graph(graph, level))
