"""Build glue for the optional C helper of the capture JIT (metadata lives in pyproject.toml).

``capture.frame_eval._frame_eval`` is the PEP 523 frame-evaluation hook (CPython 3.11-3.13).
It is optional: where it cannot be compiled (another interpreter, no compiler), installation
still succeeds and ``capture.enable()`` falls back to the pure-Python path with one warning.
"""
from setuptools import Extension, setup

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
            optional=True,
        ),
        Extension(  # a jitted function's steady-state call (capture/fast_call.py)
            "capture._fast_call",
            ["capture/_fast_call.c"],
            optional=True,
        ),
        Extension(  # a compiled step's steady-state call (codegen/cpu/call_snapshots.py)
            "codegen.cpu._restored_call",
            ["codegen/cpu/_restored_call.c"],
            optional=True,
        ),
    ],
)
