"""Run generated CUDA C on the host: the CUDA backend's kernels compiled with the host C++
compiler (the prelude's ``MSJIT_HOST_EMULATION`` side) and launched one thread per block over
the kernels' own grids, so every kernel body, index decoding, accumulation, split reduction and
store runs and can be compared with numpy on a machine without a GPU. What this cannot check:
the warp shuffles and shared-memory combine of a block (a block here is one thread); those are
checked on a device (tests/codegen/test_cuda_device.py) and compiled by NVRTC in the compile tier.

Cooperative kernels (``CudaKernel.cooperative``: the implicit-GEMM convolutions, whose threads
share tiles in shared memory) run with their real block size instead: every thread of a block is
a fiber and ``__syncthreads()`` a real barrier (:data:`_FIBERS`), so tile loads, the barriers
around them and every thread's register block are exercised.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

from codegen.cuda.compiler import module_source

CXX = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
_BUILD = os.path.join(tempfile.gettempdir(), f"msjit-cuda-host-{os.getuid()}")


#: host side of ``__syncthreads()`` and the fiber scheduler of cooperative kernels: each thread of a
#: block is a ucontext fiber on its own stack; the scheduler resumes every unfinished fiber in turn
#: (forward on even rounds, backward on odd ones, so a missing barrier shows up as wrong results
#: whichever thread writes first) until it reaches a barrier or returns. After a round either every
#: fiber waits at a barrier or every fiber has returned; anything else (a barrier some threads of
#: the block skip: undefined behaviour on a device) is counted in ``msjit_barrier_errors``.
_FIBERS = r"""
#include <ucontext.h>
#include <stdlib.h>
static ucontext_t msjit_sched;
static ucontext_t* msjit_fiber;
static char* msjit_stacks;
static unsigned msjit_cap, msjit_cur;
static int msjit_in_fibers;
static unsigned char* msjit_done;
static unsigned* msjit_syncs;
static void (*msjit_body)();
extern "C" { int msjit_barrier_errors = 0; }
enum { MSJIT_STACK = 1 << 16 };
void msjit_host_syncthreads() {
  if (!msjit_in_fibers) return;
  ++msjit_syncs[msjit_cur];
  swapcontext(&msjit_fiber[msjit_cur], &msjit_sched);
}
static void msjit_trampoline() { msjit_body(); msjit_done[msjit_cur] = 1; }
static void msjit_run_blocks(unsigned gx, unsigned gy, unsigned gz, unsigned nt, void (*body)()) {
  if (nt > msjit_cap) {
    free(msjit_fiber); free(msjit_stacks); free(msjit_done); free(msjit_syncs);
    msjit_fiber = (ucontext_t*)calloc(nt, sizeof(ucontext_t));
    msjit_stacks = (char*)malloc((size_t)nt * MSJIT_STACK);
    msjit_done = (unsigned char*)calloc(nt, 1);
    msjit_syncs = (unsigned*)calloc(nt, sizeof(unsigned));
    msjit_cap = nt;
  }
  msjit_body = body;
  gridDim.x = gx; gridDim.y = gy; gridDim.z = gz; blockDim.x = nt; blockDim.y = blockDim.z = 1;
  threadIdx.y = threadIdx.z = 0;
  for (unsigned z = 0; z < gz; ++z) for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {
    blockIdx.x = x; blockIdx.y = y; blockIdx.z = z;
    for (unsigned t = 0; t < nt; ++t) {
      getcontext(&msjit_fiber[t]);
      msjit_fiber[t].uc_stack.ss_sp = msjit_stacks + (size_t)t * MSJIT_STACK;
      msjit_fiber[t].uc_stack.ss_size = MSJIT_STACK;
      msjit_fiber[t].uc_link = &msjit_sched;
      makecontext(&msjit_fiber[t], msjit_trampoline, 0);
      msjit_done[t] = 0; msjit_syncs[t] = 0;
    }
    msjit_in_fibers = 1;
    for (unsigned round = 0;; ++round) {
      unsigned waiting = 0, finished = 0;
      for (unsigned s = 0; s < nt; ++s) {
        unsigned t = (round & 1) ? nt - 1 - s : s;
        if (msjit_done[t]) { ++finished; continue; }
        msjit_cur = t; threadIdx.x = t;
        swapcontext(&msjit_sched, &msjit_fiber[t]);
        if (msjit_done[t]) ++finished; else ++waiting;
      }
      if (!waiting) break;
      if (finished) ++msjit_barrier_errors;  /* some threads left while others wait at a barrier */
      for (unsigned t = 1; t < nt; ++t)
        if (!msjit_done[t] && !msjit_done[0] && msjit_syncs[t] != msjit_syncs[0]) ++msjit_barrier_errors;
    }
    msjit_in_fibers = 0;
  }
}
"""


def _cooperative_launcher(entry, params):
    casts = ", ".join(f"({t.replace('__restrict__', '').strip()})msjit_args_{entry}[{i}]"
                      for i, (t, _) in enumerate(params))
    n = len(params)
    return (f"static void* msjit_args_{entry}[{n}];\n"
            f"static void msjit_body_{entry}() {{ {entry}({casts}); }}\n"
            f'extern "C" void host_{entry}(unsigned gx, unsigned gy, unsigned gz, unsigned nt, void** a) {{\n'
            f"  for (int i = 0; i < {n}; ++i) msjit_args_{entry}[i] = a[i];\n"
            f"  msjit_run_blocks(gx, gy, gz, nt, msjit_body_{entry});\n}}\n")


def _launcher(entry, params):
    casts = ", ".join(f"({t.replace('__restrict__', '').strip()})a[{i}]" for i, (t, _) in enumerate(params))
    return (f'extern "C" void host_{entry}(unsigned gx, unsigned gy, void** a) {{\n'
            f"  gridDim.x = gx; gridDim.y = gy; gridDim.z = 1; blockDim.x = blockDim.y = blockDim.z = 1;\n"
            f"  threadIdx.x = threadIdx.y = threadIdx.z = 0; blockIdx.z = 0;\n"
            f"  for (unsigned y = 0; y < gy; ++y) for (unsigned x = 0; x < gx; ++x) {{\n"
            f"    blockIdx.x = x; blockIdx.y = y; {entry}({casts});\n  }}\n}}\n")


class HostModule:
    """The kernels of ``cuda_kernels`` (codegen.cuda.kernels.CudaKernel) built as one shared library."""

    def __init__(self, cuda_kernels):
        if CXX is None:
            raise RuntimeError("no host C++ compiler (g++/c++) to emulate CUDA kernels with")
        src = module_source([k.source for k in cuda_kernels])
        src += "\nmsjit_dim3 threadIdx, blockIdx, blockDim, gridDim;\n" + _FIBERS
        self.cooperative = set()
        for k in cuda_kernels:
            for entry, params in k.params.items():
                if getattr(k, "cooperative", False):
                    src += _cooperative_launcher(entry, params)
                    self.cooperative.add(entry)
                else:
                    src += _launcher(entry, params)
        os.makedirs(_BUILD, exist_ok=True)
        digest = hashlib.sha256(src.encode()).hexdigest()[:24]
        lib = os.path.join(_BUILD, f"k{digest}.so")
        if not os.path.exists(lib):
            cpp = os.path.join(_BUILD, f"k{digest}.cpp")
            with open(cpp, "w") as f:
                f.write(src)
            tmp = lib + f".{os.getpid()}.tmp"
            out = subprocess.run([CXX, "-x", "c++", "-std=c++17", "-O1", "-fPIC", "-shared", "-w",
                                  "-DMSJIT_HOST_EMULATION", "-ffp-contract=off", cpp, "-o", tmp],
                                 capture_output=True, text=True, timeout=600)
            if out.returncode != 0:
                raise RuntimeError(f"host compile failed:\n{out.stderr[-4000:]}")
            os.replace(tmp, lib)
        self.lib = ctypes.CDLL(lib)

    def run(self, kernel, arrays):
        """Run a kernel's launches; ``arrays`` are the plan's operands in order (inputs filled,
        outputs allocated) as numpy arrays of their storage dtypes. Writes the outputs in place."""
        store = [_storage_view(a) for a in arrays]
        partials = np.zeros(max(kernel.partials, 1), kernel.acc_dtype) if kernel.partials else None
        for launch in kernel.launches:
            ptrs = [(partials if a == "partials" else store[a]).ctypes.data for a in launch.args]
            self._launch(launch.entry, launch.grid, launch.block, ptrs)

    def _launch(self, entry, grid, block, ptrs):
        argv = (ctypes.c_void_p * len(ptrs))(*ptrs)
        fn = getattr(self.lib, f"host_{entry}")
        if entry in self.cooperative:
            before = self.barrier_errors
            fn(*(ctypes.c_uint(d) for d in (*grid, *(1,) * (3 - len(grid)))), ctypes.c_uint(block[0]), argv)
            if self.barrier_errors != before:
                raise AssertionError(f"{entry}: threads of a block disagree on the barriers they reach")
        else:
            fn(ctypes.c_uint(grid[0]), ctypes.c_uint(grid[1]), argv)

    @property
    def barrier_errors(self):
        return ctypes.c_int.in_dll(self.lib, "msjit_barrier_errors").value


    def get_function(self, entry):
        """A launcher like a CUDA module's kernel: ``fn(grid, block, args)`` with device arrays
        of the CuPy stand-in (tests/device_standin.py) as arguments; the block size is ignored
        (one thread per block)."""
        getattr(self.lib, f"host_{entry}")  # (fails now for an unknown entry)

        def launch(grid, block, args):
            self._launch(entry, grid, block, [_storage_view(a._a).ctypes.data for a in args])
        return launch


def _storage_view(a):
    assert a.flags.c_contiguous
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    if a.dtype == np.float16:
        return a.view(np.uint16)
    return a


def run_plan(plan, kernel, module, inputs):
    """Operands of ``plan`` from ``inputs`` (id(Value) -> array) and fresh outputs; run; the
    outputs as {id(Value): array}."""
    arrays, outs = [], {}
    for o in plan.operands:
        if o.role == "in":
            arrays.append(np.ascontiguousarray(inputs[id(o.value)], dtype=o.dtype))
        else:
            a = np.full(tuple(o.value.shape), 7, dtype=o.dtype)  # garbage the kernel must overwrite
            arrays.append(a)
            outs[id(o.value)] = a
    module.run(kernel, arrays)
    return outs
