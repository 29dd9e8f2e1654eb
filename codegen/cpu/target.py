"""LLVM initialisation and the (cached) host target machine.

One target machine per process for object emission (PIC, so the ``.o`` files in the on-disk cache
can be loaded anywhere); its CPU name, feature string and the llvmlite version are part of every
cache key. On AVX-512 hosts ``-prefer-256-bit`` is dropped so loops use zmm registers.
"""
from __future__ import annotations

import functools
import threading

import llvmlite
import llvmlite.binding as llvm

from graph import forksafe

_LOCK = threading.RLock()


@functools.lru_cache(maxsize=None)
def _init():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return True


@functools.lru_cache(maxsize=None)
def host():
    """(triple, cpu name, feature string) of this machine."""
    _init()
    feats = llvm.get_host_cpu_features()
    flat = feats.flatten()
    if feats.get("avx512f", False):
        flat = ",".join(f for f in flat.split(",") if f and f.lstrip("+-") != "prefer-256-bit")
        flat += ",-prefer-256-bit"
    return llvm.get_process_triple(), llvm.get_host_cpu_name(), flat


def has_feature(name: str) -> bool:
    return f"+{name}" in host()[2].split(",")


def vector_width_bits() -> int:
    if has_feature("avx512f"):
        return 512
    if has_feature("avx2") or has_feature("avx"):
        return 256
    return 128


@functools.lru_cache(maxsize=None)
def target_machine():
    """The cached PIC target machine used for optimisation and object emission."""
    triple, cpu, feats = host()
    target = llvm.Target.from_triple(triple)
    return target.create_target_machine(cpu=cpu, features=feats, opt=3, reloc="pic",
                                        codemodel="default")


def jit_target_machine():
    """A fresh target machine for an MCJIT engine (the engine takes ownership of it)."""
    triple, cpu, feats = host()
    return llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, features=feats, opt=3,
                                                                 reloc="pic", codemodel="default")


def cache_salt() -> str:
    triple, cpu, feats = host()
    return f"{triple}|{cpu}|{feats}|llvmlite={llvmlite.__version__}|codegen=1"


LOCK = _LOCK
forksafe.renew_in_child(globals(), ("_LOCK", "LOCK"), threading.RLock)
