"""Generated native code for the data movement of convolution and pooling (extern ops).

The numpy implementations of these ops move data in many whole-array passes (strided window
copies, a zero fill and then one ``+=`` pass per kernel offset, compare/select masks per offset).
Here each becomes one LLVM function with the static shapes baked in, that walks the data once,
one image (or one image channel) at a time so the working set stays in cache:

  * ``conv_im2col``   (N, C, H, W) -> (N, C*kh*kw, Ho*Wo) columns: a row copy per window offset,
    zeros where the window reads padding;
  * ``conv_col2im``   the adjoint: per image, zero the (C, H, W) block then add every column row
    into the input rows it was read from (the same additions in the same order as the numpy
    implementation, so the results are identical);
  * ``conv2d`` and ``conv2d_backprop_filter`` computed directly when graph lowering left them
    (few inputs per output, no padding: graph/passes/lower.py): per output row, the sum over
    the C*kh*kw window offsets, unrolled, of weight times a shifted input row; the filter
    gradient accumulates every offset's products in registers, one output channel per part;
  * ``max_pool2d``    the running maximum over the window offsets (NaN propagates, as numpy's
    ``maximum``);
  * ``max_pool2d_grad`` one pass: each window sends ``dout`` to its first position equal to the
    max (row-major), written directly when the windows tile the input, else added into a zeroed
    plane;
  * ``transpose``     keeping the last axis: contiguous rows copied into a planned buffer
    instead of a strided view that the next kernel would copy into a new array on every call;
  * ``softmax`` over the last axis, ``one_hot`` along a new last axis and
    ``sparse_softmax_cross_entropy`` row by row (the loss of a classifier and its gradient's
    pieces: a dozen numpy calls each otherwise); labels out of range set a flag the runner
    checks after the call, which then raises the op's own ValueError;
  * ``matmul``        a call of numpy's own BLAS ``cblas_?gemm`` per batch matrix
    (codegen/cpu/blas.py), so products can run inside a native run of kernels (the runner's
    segments) instead of as ``np.matmul`` steps; split over the thread pool by batch matrices,
    row/column blocks of C or blocks of a summed batch (BLAS itself runs single-threaded inside
    compiled calls). One kernel per dtype serves every product, compiled once per process in a
    library of its own (``gemm.library``); graphs' modules only declare it.

Each function has the fused kernels' ABI, ``void name(i8** args, i64 lo, i64 hi)`` over the outer
axis (images, or image channels for pooling), so the runner calls, caches and splits it over the
thread pool exactly like a fused kernel. :func:`plan_native` returns None for what is not covered
(other dtypes, groups, very large windows): the op's numpy ``impl`` runs instead.

The package: ``plan`` decides which kernels are native and with what geometry; ``conv``,
``pool``, ``gemm``, ``layout``, ``rows``, ``norm``, ``recurrent`` and ``gru`` (with
``packed_gemm``) emit them; ``body`` holds their shared IR blocks.

Example:
    >>> from codegen.cpu.native import NATIVE_OPS
    >>> sorted(NATIVE_OPS)[:6]
    ['batch_norm', 'conv2d', 'conv2d_backprop_filter', 'conv_col2im', 'conv_im2col', 'gru_recurrence']
"""
from __future__ import annotations

from .body import ATTRIBUTES, MAX_PLANE, MAX_WINDOW
from .plan import NATIVE_OPS, Absorbed, NativePlan, plan_kernels, plan_native

__all__ = ["ATTRIBUTES", "MAX_PLANE", "MAX_WINDOW", "NATIVE_OPS", "Absorbed", "NativePlan", "plan_kernels",
           "plan_native"]
