"""Run generated CUDA C on the host: the CUDA backend's kernels compiled with the host C++
compiler (the prelude's ``MSJIT_HOST_EMULATION`` side) and launched one thread per block over
the kernels' own grids, so every kernel body, index decoding, accumulation, split reduction and
store runs and can be compared with numpy on a machine without a GPU. What this cannot check:
the warp shuffles and shared-memory combine of a block (a block here is one thread); those are
checked on a device (tests/codegen/test_cuda_device.py) and compiled by NVRTC in the compile tier.
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
        src += "\nmsjit_dim3 threadIdx, blockIdx, blockDim, gridDim;\n"
        for k in cuda_kernels:
            for entry, params in k.params.items():
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
            argv = (ctypes.c_void_p * len(ptrs))(*ptrs)
            fn = getattr(self.lib, f"host_{launch.entry}")
            fn(ctypes.c_uint(launch.grid[0]), ctypes.c_uint(launch.grid[1]), argv)


    def get_function(self, entry):
        """A launcher like a CUDA module's kernel: ``fn(grid, block, args)`` with device arrays
        of the CuPy stand-in (tests/device_standin.py) as arguments; the block size is ignored
        (one thread per block)."""
        host = getattr(self.lib, f"host_{entry}")

        def launch(grid, block, args):
            ptrs = [_storage_view(a._a).ctypes.data for a in args]
            host(ctypes.c_uint(grid[0]), ctypes.c_uint(grid[1]), (ctypes.c_void_p * len(ptrs))(*ptrs))
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
