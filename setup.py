"""Build glue for the optional C helpers of the capture JIT and the CPU backend (metadata lives in pyproject.toml).

``capture.frame_eval._frame_eval`` is the PEP 523 frame-evaluation hook (CPython 3.11-3.13).
It is optional: where it cannot be compiled (another interpreter, no compiler), installation
still succeeds and ``capture.enable()`` falls back to the pure-Python path with one warning.
"""
from setuptools import Extension, setup

#: csrc/ holds the headers the C helpers share (msjit_weakref.h: the weak-reference read)
SHARED_HEADERS = ["csrc"]
WEAKREF_HEADER = ["csrc/msjit_weakref.h"]

setup(
    ext_modules=[
        Extension(
            "capture.frame_eval._frame_eval",
            ["capture/frame_eval/_frame_eval.c"],
            optional=True,
        ),
        Extension(  # the guard checks of compiled entries (capture/guard_program.py)
            "capture._guard_vm",
            ["capture/_guard_vm.c"],
            include_dirs=SHARED_HEADERS, depends=WEAKREF_HEADER,
            optional=True,
        ),
        Extension(  # a jitted function's steady-state call (capture/fast_call.py)
            "capture._fast_call",
            ["capture/_fast_call.c"],
            include_dirs=SHARED_HEADERS, depends=WEAKREF_HEADER,
            optional=True,
        ),
        Extension(  # a compiled step's steady-state call (codegen/cpu/call_snapshots.py)
            "codegen.cpu._restored_call",
            ["codegen/cpu/_restored_call.c"],
            include_dirs=SHARED_HEADERS, depends=WEAKREF_HEADER,
            optional=True,
        ),
    ],
)
