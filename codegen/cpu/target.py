"""LLVM initialisation and the (cached) host target machine.

One target machine per process for object emission; its CPU name, feature string, the llvmlite
version and the code model are part of every cache key. On AVX-512 hosts ``-prefer-256-bit`` is
dropped so loops use zmm registers.

Objects use the *large code model with absolute relocations*: every reference between sections
(the kernels' constant pools, for one) is a 64-bit absolute address patched at load time. With the
default small code model they are 32-bit PC-relative, and a process whose address space is large
and fragmented (torch and jax loaded, long runs) can get a code section and a data section placed
more than 2 GB apart by the JIT's memory manager: LLVM then aborts the whole process
(``RuntimeDyldELF ... isInt<32>(RealOffset)``). A relocatable object with absolute relocations
still loads at any address, so the disk cache keeps working.
"""
from __future__ import annotations

import functools
import threading

import llvmlite
import llvmlite.binding as llvm

from graph import forksafe

_LOCK = threading.RLock()

#: no 32-bit offsets between sections: loading never depends on where the sections land
RELOC, CODE_MODEL = "static", "large"


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
    return target.create_target_machine(cpu=cpu, features=feats, opt=3, reloc=RELOC, codemodel=CODE_MODEL)


def jit_target_machine():
    """A fresh target machine for an MCJIT engine (the engine takes ownership of it)."""
    triple, cpu, feats = host()
    return llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, features=feats, opt=3,
                                                                 reloc=RELOC, codemodel=CODE_MODEL)


def cache_salt() -> str:
    triple, cpu, feats = host()
    return f"{triple}|{cpu}|{feats}|llvmlite={llvmlite.__version__}|{RELOC}/{CODE_MODEL}|codegen=2"


LOCK = _LOCK
forksafe.renew_in_child(globals(), ("_LOCK", "LOCK"), threading.RLock)
