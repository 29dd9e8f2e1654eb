"""``ms.export`` and ``ms.load``: a net's forward graph and parameters in one file, run later by
``nn.GraphCell`` without the Python class.

The file (``file_format="MINDIR"``; this framework's own format, not MindSpore's protobuf) is the
checkpoint container (``runtime/train/checkpoint.py``: magic, version, a JSON index, raw arrays,
SHA-256) with its own magic bytes and ``format`` tag; the index carries the graph document of
``graph/serialize.py``. ``docs/export-format.md`` describes every byte. Writing is atomic; loading
checks the magic, version, lengths, checksum, every array, and then every op, attribute and shape
of the graph, and refuses anything else with a ValueError saying what is wrong. Nothing in the file
is ever executed: op names are looked up in the registry, everything else is data.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.Conv2d(1, 1, kernel_size=3, weight_init="ones")
    >>> x = ms.Tensor(np.ones([1, 1, 3, 3]).astype(np.float32))
    >>> name = os.path.join(tempfile.mkdtemp(), "net")
    >>> ms.export(net, x, file_name=name, file_format="MINDIR")
    >>> graph = ms.load(name + ".mindir")
    >>> print(nn.GraphCell(graph)(x))
    [[[[4. 6. 4.]
       [6. 9. 6.]
       [4. 6. 4.]]]]
"""
from __future__ import annotations

import os

import numpy as np

from graph.serialize import FuncGraph, GraphFormatError, decode, encode

from .. import context as _context
from .checkpoint import CHECKPOINT, FileKind, read_tensor_file, write_tensor_file

MAGIC = b"\x89MSJMIR\n"
VERSION = 1
FORMAT = "msjit-mindir"
MINDIR = FileKind(MAGIC, VERSION, FORMAT, "MINDIR", "load")
SUFFIX = ".mindir"
#: formats MindSpore's export accepts; this framework writes only the first
MINDSPORE_FORMATS = ("MINDIR", "AIR", "ONNX")
_UNSUPPORTED_OPTIONS = ("enc_key", "dataset", "obf_config", "custom_func")
_ACCEPTED_OPTIONS = ("enc_mode", "incremental") + _UNSUPPORTED_OPTIONS


def export(net, *inputs, file_name: str, file_format: str = "MINDIR", **kwargs) -> None:
    """Export ``net`` (a Cell, or a function) traced on ``inputs`` (Tensors) to ``file_name``
    (".mindir" is appended unless it already ends so).

    The file holds the forward graph captured as graph mode captures it, for these input shapes
    and dtypes, in the net's current mode (call ``net.set_train(False)`` first for inference), and
    the values of the Parameters it reads. ``construct`` must capture as one graph (a graph break
    raises ``capture.FullGraphError`` naming it). ``file_format`` must be "MINDIR"; MindSpore's
    "AIR" and "ONNX" are refused with a ValueError. Encryption (``enc_key``), ``dataset``
    preprocessing, obfuscation and ``custom_func`` are not supported (ValueError).
    """
    if not isinstance(file_format, str) or file_format not in MINDSPORE_FORMATS:
        raise ValueError(f"export: file_format must be one of {list(MINDSPORE_FORMATS)}, got {file_format!r}")
    if file_format != "MINDIR":
        raise ValueError(f"export: this framework does not write {file_format} files; it writes 'MINDIR' only "
                         "(its own graph format, see docs/export-format.md)")
    if not isinstance(file_name, str) or not file_name:
        raise ValueError(f"export: file_name must be a non-empty string, got {file_name!r}")
    _check_options(kwargs)
    if not inputs:
        raise ValueError("export: give the net's inputs (Tensors with the shapes and dtypes to export for)")
    handler = _context.graph_handler()
    if handler is None:
        raise RuntimeError("export: graph capture is unavailable on this Python version, so no graph can be traced")
    traced = handler.export(net, inputs)
    doc, tensors = encode(traced.graph, traced.param_values, traced.structure)
    meta = {"graph": doc, "producer": {"name": "msjit", "version": _framework_version()},
            "requires_grad": traced.requires_grad}
    if not file_name.endswith(SUFFIX):
        file_name += SUFFIX
    entries = [(name, arr.dtype.name, list(arr.shape), arr) for name, arr in tensors]
    write_tensor_file(file_name, entries, MAGIC, VERSION, FORMAT, meta)


def _check_options(kwargs):
    unknown = sorted(set(kwargs) - set(_ACCEPTED_OPTIONS))
    if unknown:
        raise TypeError(f"export: unknown option(s) {unknown}; MindSpore's are {list(_ACCEPTED_OPTIONS)}")
    used = [k for k in _UNSUPPORTED_OPTIONS if kwargs.get(k) is not None]
    if used:
        raise ValueError(f"export: option(s) {used} are not supported by this framework")


def _framework_version():
    from .. import __version__
    return __version__


#: leading bytes of files users may hand to ``load`` by mistake -> what they are
_OTHER_FORMATS = (
    (CHECKPOINT.magic, "a checkpoint of this framework (read it with ms.load_checkpoint)"),
    (b"PK\x03\x04", "a zip archive (e.g. a PyTorch .pt file or a .npz)"),
    (b"\x80", "a Python pickle"),
    (b"\x93NUMPY", "a numpy .npy file"),
    (b"\x89HDF", "an HDF5 file"),
)


def load(file_name, **kwargs) -> FuncGraph:
    """Read a file written by :func:`export` and return its graph, to run with ``nn.GraphCell``.

    ``file_name`` must end with ".mindir" and exist (as in MindSpore). A file that is not an
    exported graph of this framework (another format, a checkpoint, MindSpore's own protobuf
    MindIR), a truncated or corrupted one (checksum), one of another format version, or one whose
    graph uses ops, attributes or shapes this framework does not have raises ValueError. Nothing
    in the file is executed. Decryption (``dec_key``) is not supported (ValueError).
    """
    if not isinstance(file_name, str):
        raise ValueError(f"load: file_name must be a string, got {type(file_name).__name__}")
    if not file_name.endswith(SUFFIX):
        raise ValueError(f"load: the file name must end with {SUFFIX!r}, got {file_name!r}")
    if not os.path.exists(file_name):
        raise ValueError(f"load: the file {file_name} does not exist")
    unknown = sorted(set(kwargs) - {"dec_key", "dec_mode", "obf_func"})
    if unknown:
        raise TypeError(f"load: unknown option(s) {unknown}")
    if kwargs.get("dec_key") is not None or kwargs.get("obf_func") is not None:
        raise ValueError("load: encrypted or obfuscated models (dec_key, obf_func) are not supported")
    _refuse_other_formats(file_name)
    index, entries = read_tensor_file(file_name, MINDIR)
    tensors = {name: arr for name, arr in entries if isinstance(arr, np.ndarray)}
    try:
        loaded = decode(index.get("graph"), tensors, source=os.path.abspath(file_name))
    except GraphFormatError as e:
        raise ValueError(f"load: {file_name}: the graph in the file is invalid: {e}") from None
    flags = index.get("requires_grad")
    if isinstance(flags, dict):
        loaded.requires_grad = {n: flags[n] for n in loaded.params if isinstance(flags.get(n), bool)}
    return loaded


def _refuse_other_formats(file_name):
    with open(file_name, "rb") as f:
        head = f.read(len(MAGIC))
    if head == MAGIC:
        return
    for magic, what in _OTHER_FORMATS:
        if head.startswith(magic):
            raise ValueError(f"load: {file_name} is {what}, not a MINDIR file written by this framework's export")
    if head[:1] in (b"\x08", b"\x0a", b"\x12"):  # protobuf's first field tags: MindSpore MindIR, ONNX
        raise ValueError(f"load: {file_name} is not a MINDIR file of this framework (it looks like a protobuf "
                         "file, e.g. a MindIR written by MindSpore itself or an ONNX model, which this "
                         "framework cannot read)")
