"""On-disk cache of compiled object files: ``$MSJIT_CACHE_DIR`` or ``~/.cache/msjit``.

Each entry ``<key>.o`` is an envelope: an 8-byte magic, the entry's full key (64 hex digits), the
sha256 of key and payload, then the PIC object code. Nothing in a file is trusted:

* a truncated or corrupted file fails the checksum;
* a valid file stored under another key (two files swapped, a copy) carries the wrong key;
* the object code itself must embed the key (the compiler puts it in a constant, see
  :func:`key_symbol`), so another graph's object re-wrapped under this key is refused too;
* the payload must be a well-formed relocatable object for this machine (header and section
  table inside the file) before LLVM sees it, so a forged file cannot crash the loader.

Any failed check deletes the file and the kernel is recompiled. A path that is not a regular
file (a symbolic link -- to ``/dev/zero``, say --, a FIFO, a device, a directory) or is larger than
:data:`MAX_ENTRY_BYTES` is a miss: it is opened without following links and without blocking,
checked with ``fstat`` and read with a bound (:func:`read_regular_file`), so no cache entry can
hang the program or exhaust its memory. Writes go to a temporary file renamed into place (atomic). ``MSJIT_CACHE_DIR=""`` (empty) or ``MSJIT_NO_CACHE=1`` disables the
cache.

The envelope and its checks are one :class:`Store`; the module functions are the store of LLVM
objects (``OBJECTS``). Other artefacts (codegen/cuda's PTX and cubins) make a ``Store`` of their own
with their file suffix, magic, embedded key marker and format check.

Example:
    >>> from codegen.cpu import diskcache
    >>> diskcache.unwrap("0" * 64, diskcache.wrap("1" * 64, b"payload")) is None  # another key's file
    True
"""
from __future__ import annotations

import hashlib
import os
import platform
import stat
import struct
import sys
import tempfile
import threading

import numpy as np

from graph import config as settings
from graph.errors import INTERNAL_DIRS

MAGIC = b"MSJITO2\n"
_KEY_LEN = 64
_HEAD = len(MAGIC) + _KEY_LEN + 32
#: the largest cache file read (larger ones are a miss): object code and schedules are far smaller
MAX_ENTRY_BYTES = 1 << 30
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def read_regular_file(path: str, limit: int = MAX_ENTRY_BYTES) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes, else None.

    Opened without following a symbolic link (``O_NOFOLLOW``) and without blocking
    (``O_NONBLOCK``: a FIFO with no writer opens at once), checked with ``fstat`` on the open
    descriptor (no race with a rename), and read up to its size: a link to ``/dev/zero``, a FIFO,
    a device or a directory is None, never a hang or an endless read."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except (OSError, ValueError):  # missing, a link (ELOOP), no permission, a NUL in the path
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, remaining = [], st.st_size
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 24))
            if not chunk:
                break  # (truncated meanwhile: the envelope's checks refuse what was read)
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


_FINGERPRINT_EXTENSIONS = (".py", ".c", ".h")
_FRAMEWORK: dict = {}  # "fingerprint" -> the value, computed once per process
_FRAMEWORK_LOCK = threading.Lock()


def framework_fingerprint() -> str:
    """sha256 over the *content* of every framework source file (graph, runtime, codegen,
    capture: ``.py``, ``.c``, ``.h``; each file's path relative to the install, length and bytes,
    in sorted order) and the versions of Python, numpy and llvmlite: part of the key of every
    artefact a later process reuses (kernels: codegen/cpu/compiler.py; schedules:
    capture/persist.py). An edit that keeps a file's size and modification time changes it (a
    key made of sizes and times would not). Computed once per process, on first use (~2 MB read
    and hashed, a few ms; graph mode asks for it when it is switched on, before a first step)."""
    fp = _FRAMEWORK.get("fingerprint")
    if fp is not None:
        return fp
    with _FRAMEWORK_LOCK:
        fp = _FRAMEWORK.get("fingerprint")
        if fp is None:
            fp = _FRAMEWORK["fingerprint"] = _hash_framework()
    return fp


def _hash_framework() -> str:
    try:
        import llvmlite
        llvmlite_version = llvmlite.__version__
    except ImportError:  # pragma: no cover - a declared dependency
        llvmlite_version = None
    h = hashlib.sha256(f"{sys.version} {np.__version__} {llvmlite_version}".encode())
    for root in INTERNAL_DIRS:
        base = os.path.dirname(root.rstrip(os.sep))
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if not name.endswith(_FINGERPRINT_EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                except OSError:
                    data = b"<unreadable>"
                h.update(f"{os.path.relpath(path, base)}\0{len(data)}\0".encode())
                h.update(data)
    return h.hexdigest()


def cache_dir() -> str | None:
    if settings.get("MSJIT_NO_CACHE"):
        return None
    return settings.get("MSJIT_CACHE_DIR")


def key_symbol(key: str) -> bytes:
    """The bytes every object compiled for ``key`` embeds (checked before loading it)."""
    return b"msjit-cache-key:" + key.encode("ascii")


_ELF_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183, "ppc64le": 21, "s390x": 22,
                 "riscv64": 243}


def well_formed_object(obj: bytes) -> bool:
    """A structural check of a 64-bit little-endian ELF relocatable for this machine (the format
    LLVM emits on Linux): header, section table and every section's bytes inside the buffer.
    Objects of other platforms' formats are accepted as they are (their key checks still apply)."""
    if not sys.platform.startswith("linux"):
        return True
    return well_formed_elf(obj, 1, _ELF_MACHINES.get(platform.machine().lower()))


def well_formed_elf(obj: bytes, e_type_wanted: int, machine: int | None) -> bool:
    """64-bit little-endian ELF of type ``e_type_wanted`` (1 relocatable, 2 executable) for
    ``machine`` (None: any) whose section table and sections lie inside the buffer."""
    if len(obj) < 64 or obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        return False
    e_type, e_machine = struct.unpack_from("<HH", obj, 16)
    if e_type != e_type_wanted or (machine is not None and e_machine != machine):
        return False
    e_shoff, = struct.unpack_from("<Q", obj, 40)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", obj, 58)
    if e_shentsize != 64 or e_shnum == 0 or e_shstrndx >= e_shnum or e_shoff + e_shnum * 64 > len(obj):
        return False
    for i in range(e_shnum):
        base = e_shoff + i * 64
        sh_type, = struct.unpack_from("<I", obj, base + 4)
        sh_offset, sh_size = struct.unpack_from("<QQ", obj, base + 24)
        if sh_type != 8 and sh_offset + sh_size > len(obj):  # 8: SHT_NOBITS takes no file bytes
            return False
    return True


class Store:
    """One kind of cached artefact: files ``<dir>/<key[:2]>/<key><suffix>`` in the envelope
    ``magic + key + sha256(key + payload) + payload``; a payload is accepted only when it
    contains ``marker(key)`` (the compiler embedded it) and ``well_formed(payload)`` holds."""

    def __init__(self, suffix: str, magic: bytes, marker, well_formed):
        assert len(magic) == len(MAGIC)
        self.suffix, self.magic, self.marker, self.well_formed = suffix, magic, marker, well_formed

    def path_for(self, key: str) -> str | None:
        d = cache_dir()
        return os.path.join(d, key[:2], key + self.suffix) if d else None

    def wrap(self, key: str, payload: bytes) -> bytes:
        k = key.encode("ascii")
        return self.magic + k + hashlib.sha256(k + payload).digest() + payload

    def unwrap(self, key: str, data: bytes) -> bytes | None:
        """The payload of a cache file for ``key``, or None when any check fails."""
        k = key.encode("ascii")
        if len(k) != _KEY_LEN or len(data) < _HEAD or data[:len(self.magic)] != self.magic:
            return None
        if data[len(self.magic):len(self.magic) + _KEY_LEN] != k:
            return None  # a valid entry of another key
        payload = data[_HEAD:]
        if hashlib.sha256(k + payload).digest() != data[len(self.magic) + _KEY_LEN:_HEAD]:
            return None
        if self.marker(key) not in payload or not self.well_formed(payload):
            return None
        return payload

    def load(self, key: str) -> bytes | None:
        p = self.path_for(key)
        if p is None:
            return None
        data = read_regular_file(p)
        if data is None:
            return None  # missing, or not a regular file: a miss (a store replaces it)
        payload = self.unwrap(key, data)
        if payload is None:
            self.discard(key)  # corrupted, truncated, swapped or forged: recompile
        return payload

    def store(self, key: str, payload: bytes) -> None:
        p = self.path_for(key)
        if p is None:
            return
        tmp = None
        try:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(p), prefix=".tmp-", suffix=self.suffix)
            with os.fdopen(fd, "wb") as f:
                f.write(self.wrap(key, payload))
            os.replace(tmp, p)
        except OSError:  # a read-only or full cache directory never breaks compilation
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    def discard(self, key: str) -> None:
        p = self.path_for(key)
        if p:
            try:
                os.unlink(p)
            except OSError:
                pass


#: LLVM object files (codegen/cpu)
OBJECTS = Store(".o", MAGIC, key_symbol, well_formed_object)
wrap, unwrap, load, store = OBJECTS.wrap, OBJECTS.unwrap, OBJECTS.load, OBJECTS.store
discard, path_for = OBJECTS.discard, OBJECTS.path_for
