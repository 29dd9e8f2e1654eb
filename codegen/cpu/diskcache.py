"""On-disk cache of compiled object files: ``$MSJIT_CACHE_DIR`` or ``~/.cache/msjit``.

Each entry is ``<sha256>.o``: an 8-byte magic, the sha256 of the payload, then the PIC object
code. Writes go to a temporary file renamed into place (atomic); a truncated or corrupted file
fails the checksum, is deleted and the kernel is recompiled. ``MSJIT_CACHE_DIR=""`` (empty) or
``MSJIT_NO_CACHE=1`` disables the cache.
"""
from __future__ import annotations

import hashlib
import os
import tempfile

MAGIC = b"MSJITO1\n"


def cache_dir() -> str | None:
    if os.environ.get("MSJIT_NO_CACHE") == "1":
        return None
    d = os.environ.get("MSJIT_CACHE_DIR")
    if d is None:
        d = os.path.join(os.path.expanduser("~"), ".cache", "msjit")
    return d or None


def _path(key: str) -> str | None:
    d = cache_dir()
    return os.path.join(d, key[:2], key + ".o") if d else None


def load(key: str) -> bytes | None:
    p = _path(key)
    if p is None:
        return None
    try:
        with open(p, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) < 40 or data[:8] != MAGIC or hashlib.sha256(data[40:]).digest() != data[8:40]:
        discard(key)  # corrupted or truncated: recompile
        return None
    return data[40:]


def store(key: str, obj: bytes) -> None:
    p = _path(key)
    if p is None:
        return
    try:
        os.makedirs(os.path.dirname(p), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(p), prefix=".tmp-", suffix=".o")
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + hashlib.sha256(obj).digest() + obj)
        os.replace(tmp, p)
    except OSError:  # a read-only or full cache directory never breaks compilation
        try:
            os.unlink(tmp)
        except Exception:
            pass


def discard(key: str) -> None:
    p = _path(key)
    if p:
        try:
            os.unlink(p)
        except OSError:
            pass


def path_for(key: str) -> str | None:
    return _path(key)
