"""Checkpoints: ``save_checkpoint``, ``load_checkpoint``, ``load_param_into_net``.

File format (version 1), all integers little-endian::

    offset 0   8 bytes   magic b"\\x89MSJCKPT"
    offset 8   uint32    format version (1)
    offset 12  uint64    length L of the JSON index
    offset 20  L bytes   JSON index (UTF-8): {"format": "msjit-checkpoint", "version": 1,
                         "byteorder": "little", "data_start": D, "data_size": S,
                         "tensors": [{"name", "dtype", "shape", "offset", "nbytes"}, ...]}
               padding   zero bytes up to D (a multiple of 64)
    offset D   S bytes   the raw array bytes; each tensor at D + offset (offsets 64-aligned),
                         C order; dtype "string" entries hold UTF-8 text
    offset D+S 32 bytes  SHA-256 of every byte before it

The same container (a different magic, ``format`` tag and version, extra keys in the JSON index)
holds exported graphs (``runtime/train/mindir.py``): :func:`write_tensor_file` and
:func:`read_tensor_file` are that shared part.

Writing is atomic: the file is written to a temporary file in the same directory, flushed and
fsync'ed, then renamed over the target (a failed save leaves no partial file and keeps an existing
checkpoint intact). Loading checks the magic, version, lengths, checksum, dtypes and shapes, and
raises ValueError naming the file and the problem.

Example:
    >>> import os, tempfile
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.Dense(3, 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "dense.ckpt")
    >>> ms.save_checkpoint(net, path)
    >>> params = ms.load_checkpoint(path)
    >>> list(params)
    ['weight', 'bias']
    >>> ms.load_param_into_net(nn.Dense(3, 2), params)
    ([], [])
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import struct
import tempfile
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

MAGIC = b"\x89MSJCKPT"
VERSION = 1
FORMAT = "msjit-checkpoint"
ALIGN = 64
_HEADER = struct.Struct("<8sIQ")  # magic, version, index length
_DIGEST = 32
_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")

logger = logging.getLogger("runtime.train")


# ---------------------------------------------------------------------------------------------
# collecting what to save
# ---------------------------------------------------------------------------------------------
def _as_array(value, name):
    from ..tensor import Tensor
    if isinstance(value, Tensor):
        arr = value.asnumpy()
    elif isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, (bool, np.bool_)):
        arr = np.asarray(value, np.bool_)
    elif isinstance(value, (int, np.integer)):
        arr = np.asarray(value, np.int64)
    elif isinstance(value, (float, np.floating)):
        arr = np.asarray(value, np.float32)
    else:
        raise TypeError(f"save_checkpoint: value of {name!r} must be a Tensor, Parameter, numpy array or "
                        f"number, got {type(value).__name__}")
    if arr.dtype.name not in _DTYPES:
        raise TypeError(f"save_checkpoint: {name!r} has unsupported dtype {arr.dtype}; supported: {', '.join(_DTYPES)}")
    return arr


def _collect(save_obj, append_dict, choice_func):
    from ..nn.cell import Cell
    items = []
    if isinstance(save_obj, Cell):
        for p in save_obj.get_parameters():  # by Parameter.name, as MindSpore saves them
            items.append((p.name, p))
    elif isinstance(save_obj, dict):
        items = list(save_obj.items())
    elif isinstance(save_obj, (list, tuple)):
        for i, entry in enumerate(save_obj):
            if not isinstance(entry, dict) or "name" not in entry or "data" not in entry:
                raise TypeError(f"save_checkpoint: list entry {i} must be a dict with 'name' and 'data', got {entry!r:.80}")
            items.append((entry["name"], entry["data"]))
    else:
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, a dict name -> Tensor or a list of "
                        f"{{'name': ..., 'data': ...}} dicts, got {type(save_obj).__name__}")
    if append_dict is not None:
        if not isinstance(append_dict, dict):
            raise TypeError(f"save_checkpoint: append_dict must be a dict, got {type(append_dict).__name__}")
        items.extend(append_dict.items())
    out = []
    seen = set()
    for name, value in items:
        if not isinstance(name, str) or not name:
            raise TypeError(f"save_checkpoint: parameter names must be non-empty strings, got {name!r}")
        if choice_func is not None and not choice_func(name):
            continue
        if name in seen:
            raise ValueError(f"save_checkpoint: the name {name!r} appears twice; checkpoint names must be unique")
        seen.add(name)
        if isinstance(value, str):
            out.append((name, "string", [], value.encode("utf-8")))
        else:
            arr = _as_array(value, name)
            out.append((name, arr.dtype.name, list(arr.shape), arr))
    return out


# ---------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------
def _write_array(f, hasher, arr):
    """Write one tensor's bytes (little-endian, C order) and feed them to the checksum."""
    if isinstance(arr, bytes):
        buf = arr
    else:
        a = np.ascontiguousarray(arr)
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        buf = a.reshape(-1).view(np.uint8).data if a.size else b""
    f.write(buf)
    hasher.update(buf)


def _pad(f, hasher, n):
    if n:
        z = b"\0" * n
        f.write(z)
        hasher.update(z)


def _build_index(entries, fmt=FORMAT, version=VERSION, meta=None):
    tensors = []
    offset = 0
    for name, dtype, shape, data in entries:
        nbytes = len(data) if isinstance(data, bytes) else int(data.nbytes)
        tensors.append({"name": name, "dtype": dtype, "shape": shape, "offset": offset, "nbytes": nbytes})
        offset += -(-nbytes // ALIGN) * ALIGN
    data_size = offset
    index = dict(meta or {})
    index.update({"format": fmt, "version": version, "byteorder": "little", "data_start": 0,
                  "data_size": data_size, "tensors": tensors})
    # data_start depends on the index length, which depends on data_start: iterate to a fixed point
    start = 0
    while True:
        index["data_start"] = start
        blob = json.dumps(index, separators=(",", ":"), allow_nan=False).encode("utf-8")
        need = -(-(_HEADER.size + len(blob)) // ALIGN) * ALIGN
        if need == start:
            return blob, start, tensors
        start = need


def _checkpoint_path(ckpt_file_name, what):
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"{what}: ckpt_file_name must be a path string, got {type(ckpt_file_name).__name__}")
    path = os.fspath(ckpt_file_name)
    if not path:
        raise ValueError(f"{what}: ckpt_file_name is empty")
    return path


def save_checkpoint(save_obj, ckpt_file_name: str, integrated_save: bool = True, async_save: bool = False,
                    append_dict: dict | None = None, enc_key=None, enc_mode: str = "AES-GCM", choice_func=None,
                    **kwargs) -> None:
    """Save the parameters of ``save_obj`` (a Cell, a dict name -> Tensor/Parameter, or a list of
    ``{"name": ..., "data": ...}``) to ``ckpt_file_name`` (".ckpt" is appended when missing).

    ``append_dict`` adds extra values (numbers, strings, Tensors); ``choice_func(name)`` chooses
    which names to save. The write is atomic.
    """
    path = _checkpoint_path(ckpt_file_name, "save_checkpoint")
    if not path.endswith(".ckpt"):
        path += ".ckpt"
    if enc_key is not None:
        raise ValueError("save_checkpoint: encrypted checkpoints (enc_key) are not supported")
    if choice_func is not None and not callable(choice_func):
        raise TypeError("save_checkpoint: choice_func must be callable")
    write_tensor_file(path, _collect(save_obj, append_dict, choice_func))


def write_tensor_file(path, entries, magic=MAGIC, version=VERSION, fmt=FORMAT, meta=None):
    """Write the container atomically: ``entries`` are (name, dtype name or "string", shape, numpy
    array or bytes); ``meta`` adds JSON-safe keys to the index (the format's own description)."""
    blob, data_start, tensors = _build_index(entries, fmt, version, meta)
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    remove_stale_temp_files(path)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path) + f"{_HOST}.{os.getpid()}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            hasher = hashlib.sha256()
            head = _HEADER.pack(magic, version, len(blob)) + blob
            f.write(head)
            hasher.update(head)
            _pad(f, hasher, data_start - len(head))
            for (name, dtype, shape, data), t in zip(entries, tensors):
                _write_array(f, hasher, data)
                _pad(f, hasher, -(-t["nbytes"] // ALIGN) * ALIGN - t["nbytes"])
            f.write(hasher.digest())
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


_HOST = socket.gethostname().replace(".", "_") or "host"


def _temp_prefix(path):
    return "." + os.path.basename(path) + "."


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # exists (another user's) / not a pid we can judge: leave it
    return True


def remove_stale_temp_files(path) -> list:
    """Delete the temp files that writers of ``path`` on this machine left when they died
    (``kill -9`` mid-save leaves ``.NAME.HOST.PID.XXXX.tmp``); a live writer's file is kept.
    Returns the removed paths."""
    directory, prefix = os.path.dirname(os.path.abspath(path)), _temp_prefix(path) + _HOST + "."
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid = name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            try:
                os.unlink(os.path.join(directory, name))
                removed.append(os.path.join(directory, name))
            except OSError:
                pass
    return removed


def _fsync_dir(directory):
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


# ---------------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------------
class FileKind(NamedTuple):
    """What one use of the container calls itself: its magic bytes, version and ``format`` tag, the
    noun error messages use ("checkpoint") and the API named in them ("load_checkpoint")."""

    magic: bytes
    version: int
    fmt: str
    noun: str
    what: str


CHECKPOINT = FileKind(MAGIC, VERSION, FORMAT, "checkpoint", "load_checkpoint")


def _bad(kind, path, msg):
    return ValueError(f"{kind.what}: {path}: {msg}")


def _parse_index(kind, path, raw, blob):
    try:
        index = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _bad(kind, path, f"the {kind.noun} index is corrupt ({e})") from None
    if not isinstance(index, dict) or index.get("format") != kind.fmt:
        raise _bad(kind, path, f"the {kind.noun} index is corrupt (no format tag)")
    return index


def read_checkpoint(path):
    """Validate the file at ``path`` and return an ordered list of (name, numpy array or str)."""
    return read_tensor_file(path, CHECKPOINT)[1]


def read_tensor_file(path, kind: FileKind):
    """Validate the container at ``path`` (magic, version, lengths, checksum, every entry) and
    return ``(index, entries)``: the JSON index and an ordered list of (name, array or str)."""
    what = kind.what
    path = _checkpoint_path(path, what)
    remove_stale_temp_files(path)
    if not os.path.exists(path):
        raise ValueError(f"{what}: the {kind.noun} file {path} does not exist")
    if not os.path.isfile(path):
        raise ValueError(f"{what}: {path} is not a file")
    with open(path, "rb") as f:
        raw = f.read()
    size = len(raw)
    magic = kind.magic
    if size < len(magic) or raw[:len(magic)] != magic:
        hint = ""
        if size == 0:
            hint = " (the file is empty)"
        raise _bad(kind, path, f"not a {kind.noun} file of this framework: the file does not start with the "
                               f"{kind.noun} magic bytes {magic!r}{hint}")
    if size < _HEADER.size:
        raise _bad(kind, path, f"the file is truncated: {size} bytes, shorter than the {_HEADER.size}-byte header")
    _, version, index_len = _HEADER.unpack_from(raw, 0)
    if version != kind.version:
        raise _bad(kind, path, f"unsupported {kind.noun} format version {version} (this framework reads "
                               f"version {kind.version})")
    index_end = _HEADER.size + index_len
    if index_end + _DIGEST > size:
        raise _bad(kind, path, f"the file is truncated: its header declares a {index_len}-byte index, but "
                               f"the file has only {size} bytes")
    index = None
    try:
        index = _parse_index(kind, path, raw, raw[_HEADER.size:index_end])
    except ValueError as e:
        index_error = e
    else:
        index_error = None
    expected_size = None
    if index is not None:
        ds, dz = index.get("data_start"), index.get("data_size")
        if isinstance(ds, int) and isinstance(dz, int):
            expected_size = ds + dz + _DIGEST
    if expected_size is not None and expected_size != size:
        state = "truncated" if size < expected_size else "longer than its index says (corrupt or appended to)"
        raise _bad(kind, path, f"the file is {state}: expected {expected_size} bytes, found {size}")
    digest = hashlib.sha256(memoryview(raw)[:size - _DIGEST]).digest()
    if digest != raw[size - _DIGEST:]:
        raise _bad(kind, path, "the file is corrupt: its SHA-256 checksum does not match its contents")
    if index_error is not None:
        raise index_error
    return index, _decode(kind, path, raw, index)


def _decode(kind, path, raw, index):
    ds, dz = index["data_start"], index["data_size"]
    tensors = index.get("tensors")
    if not isinstance(tensors, list) or ds < _HEADER.size or ds % ALIGN:
        raise _bad(kind, path, f"the {kind.noun} index is corrupt (bad layout)")
    out = []
    names = set()
    for t in tensors:
        try:
            name, dtype, shape, off, nbytes = t["name"], t["dtype"], t["shape"], t["offset"], t["nbytes"]
        except (KeyError, TypeError):
            raise _bad(kind, path, f"the {kind.noun} index has a malformed entry {t!r:.100}") from None
        if not isinstance(name, str) or name in names:
            raise _bad(kind, path, f"the {kind.noun} index has an invalid or duplicate name {name!r}")
        names.add(name)
        if not (isinstance(off, int) and isinstance(nbytes, int) and 0 <= off and 0 <= nbytes
                and off + nbytes <= dz):
            raise _bad(kind, path, f"entry {name!r} points outside the data section (offset {off}, {nbytes} bytes)")
        start = ds + off
        if dtype == "string":
            try:
                out.append((name, raw[start:start + nbytes].decode("utf-8")))
            except UnicodeDecodeError:
                raise _bad(kind, path, f"string entry {name!r} is not valid UTF-8") from None
            continue
        if dtype not in _DTYPES:
            raise _bad(kind, path, f"entry {name!r} has unsupported dtype {dtype!r}")
        if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
            raise _bad(kind, path, f"entry {name!r} has an invalid shape {shape!r}")
        dt = np.dtype(dtype).newbyteorder("<")
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if count * dt.itemsize != nbytes:
            raise _bad(kind, path, f"entry {name!r}: shape {tuple(shape)} of {dtype} needs "
                                   f"{count * dt.itemsize} bytes but the index says {nbytes}")
        arr = np.frombuffer(raw, dtype=dt, count=count, offset=start).reshape(shape)
        out.append((name, arr.astype(np.dtype(dtype), copy=True)))
    return out


def _prefix_list(value, what):
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        raise TypeError(f"load_checkpoint: {what} must be a non-empty string or a list of them, got {value!r}")
    return tuple(value)


def load_checkpoint(ckpt_file_name: str, net=None, strict_load: bool = False, filter_prefix=None, dec_key=None,
                    dec_mode: str = "AES-GCM", specify_prefix=None, choice_func=None, **kwargs) -> dict:
    """Read a checkpoint: returns an ordered dict name -> Parameter (string entries stay str).

    ``filter_prefix`` drops names starting with any of the given prefixes, ``specify_prefix``
    keeps only those, ``choice_func(name)`` decides per name. With ``net``, the parameters are
    also loaded into it (:func:`load_param_into_net`).
    """
    from ..parameter import Parameter
    from ..tensor import Tensor
    if dec_key is not None:
        raise ValueError("load_checkpoint: encrypted checkpoints (dec_key) are not supported")
    filters = _prefix_list(filter_prefix, "filter_prefix")
    specify = _prefix_list(specify_prefix, "specify_prefix")
    if choice_func is not None and not callable(choice_func):
        raise TypeError("load_checkpoint: choice_func must be callable")
    entries = read_checkpoint(ckpt_file_name)
    result = OrderedDict()
    for name, value in entries:
        if filters and name.startswith(filters):
            continue
        if specify and not name.startswith(specify):
            continue
        if choice_func is not None and not choice_func(name):
            continue
        result[name] = value if isinstance(value, str) else Parameter(Tensor(value), name=name)
    if net is not None:
        load_param_into_net(net, result, strict_load=strict_load)
    return result


def _kind(dtype):
    return "f" if dtype.is_float else ("i" if dtype.is_int else "b")


def load_param_into_net(net, parameter_dict: dict, strict_load: bool = False, **kwargs):
    """Copy values from ``parameter_dict`` (name -> Parameter/Tensor/array) into ``net``'s parameters
    with the same names. Returns ``(param_not_load, ckpt_not_load)``: the network parameters that
    got no value, and the dict entries that were not used.

    A shape mismatch raises ValueError naming the parameter and both shapes. A dtype mismatch
    within the same kind (float/float, int/int) is converted unless ``strict_load``; other dtype
    mismatches raise. Without ``strict_load``, a name that matches no parameter exactly may still
    match a parameter whose name ends with it (or vice versa), when that match is unique.
    """
    from graph.dtypes import from_numpy
    from ..nn.cell import Cell
    from ..tensor import Tensor
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got {type(parameter_dict).__name__}")
    params = [(p.name, p) for p in net.get_parameters()]  # matched by Parameter.name, as MindSpore does
    used = set()
    param_not_load = []
    pending = []
    for name, param in params:
        if name in parameter_dict:
            _assign(param, name, parameter_dict[name], strict_load, from_numpy, Tensor)
            used.add(name)
        else:
            pending.append((name, param))
    if pending and not strict_load:
        unused = [k for k in parameter_dict if k not in used and not isinstance(parameter_dict[k], str)]
        for name, param in pending:
            cands = [k for k in unused if k.endswith("." + name) or name.endswith("." + k)]
            if len(cands) == 1 and cands[0] not in used:
                _assign(param, name, parameter_dict[cands[0]], strict_load, from_numpy, Tensor)
                used.add(cands[0])
            else:
                param_not_load.append(name)
    else:
        param_not_load = [n for n, _ in pending]
    ckpt_not_load = [k for k in parameter_dict if k not in used]
    if param_not_load:
        logger.warning("load_param_into_net: %d parameter(s) of the network got no value from the "
                       "checkpoint: %s", len(param_not_load), param_not_load)
    return param_not_load, ckpt_not_load


def _assign(param, name, value, strict_load, from_numpy, Tensor):
    if isinstance(value, str):
        raise ValueError(f"load_param_into_net: checkpoint entry {name!r} is a string, not a tensor")
    arr = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    if tuple(arr.shape) != tuple(param.shape):
        raise ValueError(f"load_param_into_net: parameter {name!r} has shape {tuple(param.shape)} in the "
                         f"network but shape {tuple(arr.shape)} in the checkpoint")
    want, got = param.dtype, from_numpy(arr.dtype)
    if want != got:
        if strict_load or _kind(want) != _kind(got):
            raise ValueError(f"load_param_into_net: parameter {name!r} has dtype {want} in the network but "
                             f"{got} in the checkpoint" + (" (strict_load=True)" if strict_load else ""))
        arr = arr.astype(want.np)
    param.set_data(arr)  # (set_data copies an array into the Parameter)
