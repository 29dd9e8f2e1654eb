"""Cell: the base class of networks (``construct`` + ``__call__``), with parameter bookkeeping.

Parameters and sub-Cells assigned as attributes are registered (in assignment order) and also
stored as plain instance attributes, so ``self.weight`` inside ``construct`` is an ordinary
attribute load. Assigning a Tensor to an attribute that holds a Parameter updates the Parameter
in place (``ops.assign``), in both modes.

Example:
    >>> import runtime as ms
    >>> from runtime import nn, ops
    >>> class Net(nn.Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Dense(3, 2)
    ...     def construct(self, x):
    ...         return ops.relu(self.fc(x))
    >>> [p.name for p in Net().trainable_params()]
    ['fc.weight', 'fc.bias']
"""
from __future__ import annotations

import types
from collections import OrderedDict

import numpy as np

from graph.ops import REGISTRY, bind
from graph.ops.core import computing_in, is_tensorlike

from .. import context as _context
from .. import dynamic_shape as _dynamic_shape
from .. import tape as _tape
from ..parameter import Parameter
from ..tensor import Tensor

_ASSIGN = REGISTRY["assign"]
_CAST = REGISTRY["cast"]


class _PrecisionSettings:
    """Counts ``to_float`` calls: compiled graphs are guarded on it, since a Cell's compute
    dtype changes what its ops compute."""
    epoch = 0


_PRECISION_SETTINGS = _PrecisionSettings()


def cast_float_inputs(args, dtype):
    """``args`` with float tensors (also inside tuples/lists) cast to ``dtype``, as MindSpore's
    mixed-precision Cells cast their inputs."""
    def cast(a):
        if isinstance(a, (tuple, list)):
            items = [cast(x) for x in a]
            return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
        if is_tensorlike(a) and getattr(a.dtype, "is_float", False) and a.dtype != dtype:
            return bind(_CAST, a, dtype=dtype)
        return a
    return tuple(cast(a) for a in args)


class Cell:
    """Base class for all networks. Subclasses implement ``construct``."""

    _mixed_precision_type = None  # set by to_float
    _amp_level = ""  # set by amp.auto_mixed_precision
    _jit_config = None  # set by set_jit_config: how GRAPH_MODE compiles this Cell
    _dynamic_inputs = None  # set by set_inputs: the declared inputs (placeholders / Tensors)
    _param_prefix = ""  # set by update_cell_prefix (MindSpore's Cell.param_prefix)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # MindSpore: a Cell that defines ``bprop(self, *inputs, out, dout)`` is differentiated by
        # it, not through ``construct``. Such a class gets its own ``__call__`` (see
        # _call_with_custom_bprop); it only applies where that class defines bprop itself.
        if "bprop" in cls.__dict__ and callable(cls.__dict__["bprop"]) and cls.__call__ is Cell.__call__:
            cls.__call__ = _call_with_custom_bprop

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_cell_name", type(self).__name__)
        object.__setattr__(self, "_jit", None)  # set by ms.jit(construct) / Cell.compile
        # name prefix of this Cell inside the Cell it was attached to ("" while it is a root), so
        # Parameters and Cells added after attachment (CellList.append...) get full names too
        object.__setattr__(self, "_scope", "")

    # -- attribute registration -------------------------------------------------------------------
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_params" not in d:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() before assigning attributes")
        if isinstance(value, Parameter):
            if d["_params"].get(name) is not value:
                if not value._named or value.name == "Parameter":
                    value.name = name
                    value._named = True
                if d["_scope"] and not value.name.startswith(d["_scope"] + "."):
                    value.name = f"{d['_scope']}.{value.name}"
            d["_params"][name] = value
            d["_cells"].pop(name, None)
        elif isinstance(value, Cell):
            if self._auto_prefix:
                self._name_child(name, value)
            d["_cells"][name] = value
            d["_params"].pop(name, None)
        elif name in d["_params"]:
            if isinstance(value, Tensor):
                # in-place update of the existing Parameter (recorded in graph mode)
                bind(_ASSIGN, d["_params"][name], value)
                return
            if value is None:
                del d["_params"][name]
            elif isinstance(value, (int, float, bool)) and _context.in_static_graph_syntax():
                # MindSpore's static-graph syntax (GRAPH_MODE, or a ``jit`` function in PyNative):
                # ``self.weight = 1`` assigns the number to every element of the Parameter
                # (plain PyNative code refuses it, as MindSpore does)
                param = d["_params"][name]
                bind(_ASSIGN, param, Tensor._of_owned_array(np.full(param.shape, value, param.dtype.np)))
                return
            else:
                raise TypeError(f"{type(self).__name__}.{name} holds a Parameter; assign a Tensor or Parameter, "
                                f"not {type(value).__name__}")
        elif name in d["_cells"] and value is None:
            del d["_cells"][name]
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self._params.pop(name, None)
        self._cells.pop(name, None)
        object.__delattr__(self, name)

    def _name_child(self, name, child):
        """Name every parameter below ``child``, held here as ``name``, by its path (MindSpore's
        ``Cell._set_attr_for_cell``: ``update_parameters_name(name + '.')``), whatever it was
        called before: a network shared by two parents takes the later one's path, and no prefix
        accumulates. The path starts at this Cell's own prefix, so a Cell added to a network
        already built is named in full, as MindSpore's containers name what they append. Each
        Cell below records its prefix: a Parameter assigned to it later is named alike."""
        prefix = f"{self._scope}.{name}" if self._scope else name
        child.update_parameters_name(prefix + ".")
        for path, cell in child.cells_and_names(name_prefix=prefix):
            object.__setattr__(cell, "_scope", path)

    def insert_child_to_cell(self, child_name, child_cell):
        if not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: {child_name} must be a Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def _wrap_child(self, child_name, wrapper):
        """Replace child ``child_name`` by ``wrapper`` (a Cell holding it, as mixed precision's
        output casts) with every parameter name unchanged; a container's cell list follows."""
        old = self._cells[child_name]
        object.__setattr__(wrapper, "_scope", old._scope)
        self._cells[child_name] = wrapper
        object.__setattr__(self, child_name, wrapper)
        if "cell_list" in self.__dict__:
            self.cell_list = list(self._cells.values())

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"insert_param_to_cell: parameter name {param_name!r} must not contain '.'")
        setattr(self, param_name, param)

    # -- traversal -----------------------------------------------------------------------------------
    def cells(self):
        return list(self._cells.values())

    def name_cells(self):
        return OrderedDict(self._cells)

    def cells_and_names(self, cells=None, name_prefix=""):
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, c in self._cells.items():
            yield from c.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

    def parameters_and_names(self, name_prefix="", expand=True):
        """(path, Parameter) of each parameter once, as MindSpore yields them: the path of
        attribute names from this Cell (``name_prefix`` before it), not the Parameter's
        ``name``; ``expand=False``: this Cell's own parameters only.

        Example:
            >>> from runtime import nn
            >>> [n for n, _ in nn.SequentialCell([nn.Dense(2, 2)]).parameters_and_names("net")]
            ['net.0.weight', 'net.0.bias']
        """
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen = set()
        for cell_path, cell in cells:
            for attr, p in cell._params.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{cell_path}.{attr}" if cell_path else attr), p

    def get_parameters(self, expand=True):
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def update_parameters_name(self, prefix="", recurse=True):
        """Name every parameter ``prefix`` + its path from this Cell (MindSpore: the path of
        :meth:`parameters_and_names`, no separator added); ``recurse=False``: this Cell's own
        parameters only.

        Example:
            >>> from runtime import nn
            >>> net = nn.Dense(2, 1)
            >>> net.update_parameters_name("head.")
            >>> [p.name for p in net.get_parameters()]
            ['head.weight', 'head.bias']
        """
        if not isinstance(prefix, str):
            raise TypeError(f"update_parameters_name: prefix must be a str, got {type(prefix).__name__}")
        for path, p in list(self.parameters_and_names(expand=recurse)):
            p.name = prefix + path

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """``Parameter.name -> Parameter`` (MindSpore keys it by name, not by path)."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    # -- modes -----------------------------------------------------------------------------------------
    def set_train(self, mode=True):
        if not isinstance(mode, bool):
            raise TypeError(f"set_train: mode must be a bool, got {mode!r}")
        for _, c in self.cells_and_names():
            object.__setattr__(c, "training", mode)
        return self

    def set_grad(self, requires_grad=True):
        return self

    def to_float(self, dst_type):
        """Run this Cell and every sub-Cell in ``dst_type`` (``ms.float16`` or ``ms.float32``),
        as MindSpore's ``Cell.to_float``: float inputs of the Cell and float operands of every op
        inside it (parameters included) are cast to ``dst_type``; the parameters themselves stay
        float32 (master weights), and their gradients come back float32 through the casts.
        A sub-Cell set to another type afterwards (``bn.to_float(ms.float32)``) keeps its own.

        Example:
            >>> import numpy as np, runtime as ms
            >>> from runtime import nn
            >>> net = nn.Dense(3, 2).to_float(ms.float16)
            >>> out = net(ms.Tensor(np.ones((1, 3), np.float32)))
            >>> out.dtype, net.weight.dtype
            (Float16, Float32)
        """
        from graph.dtypes import float16, float32
        if dst_type not in (float16, float32):
            raise ValueError(f"Cell.to_float: dst_type must be ms.float16 or ms.float32, got {dst_type!r}")
        for _, c in self.cells_and_names():
            object.__setattr__(c, "_mixed_precision_type", dst_type)
        _PRECISION_SETTINGS.epoch += 1
        return self

    def _call_in_precision(self, args, kwargs):
        """``__call__`` of a Cell marked by :meth:`to_float`: float tensor inputs cast to its
        type, and every op inside computes in it."""
        dtype = self._mixed_precision_type
        with computing_in(dtype):
            args = cast_float_inputs(args, dtype)
            return self._dispatch(args, kwargs)

    # -- calling -------------------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement construct()")

    def __call__(self, *args, **kwargs):
        if self._dynamic_inputs is not None and _declared_call(args):
            _dynamic_shape.check_inputs(self._dynamic_inputs, args, f"{type(self).__name__}.set_inputs",
                                        _dynamic_shape.parameter_names(type(self).construct, True))
        if self._mixed_precision_type is not None:
            return self._call_in_precision(args, kwargs)
        return self._dispatch(args, kwargs)

    def _dispatch(self, args, kwargs):
        if self._jit is not None:
            if _tape.VMAP_LEVEL[0] and _batched(args):
                return self.construct(*args, **kwargs)
            return self._jit(*args, **kwargs)
        if _context._state["mode"] == _context.GRAPH_MODE or _context.CELL_CAPTURE.depth:
            if _tape.VMAP_LEVEL[0] and _batched(args):
                # inside ``vmap``: the inputs stand for a whole batch; construct runs on them
                # directly (its ops are batched as they bind), it is not captured per example
                return self.construct(*args, **kwargs)
            if self._jit_config is not None:
                return self._configured_graph_call()(*args, **kwargs)
            handler = _context.graph_handler()
            if handler is not None:
                return handler(self, args, kwargs)
        return self.construct(*args, **kwargs)

    @property
    def param_prefix(self):
        """The prefix of this Cell's direct Parameters ('' until :meth:`update_cell_prefix` is
        called on a Cell above it, as in MindSpore)."""
        return self._param_prefix

    def update_cell_prefix(self):
        """Set ``param_prefix`` of every Cell under this one to its name path ("dense", "a.b")."""
        for cell_name, cell in self.cells_and_names():
            object.__setattr__(cell, "_param_prefix", cell_name)

    def set_inputs(self, *inputs):
        """``Cell.set_inputs(*inputs)``: declare the inputs of ``construct`` -- Tensors, or
        placeholders ``Tensor(shape=[None, 784], dtype=ms.float32)`` whose None/``ms.Symbol``
        dimensions vary between calls. Calls whose arguments do not match raise ValueError (in
        both modes); graph mode compiles a declared dimension once for all its lengths where the
        traced code does not depend on it (``capture.dynamic``)."""
        from ..tensor import Tensor
        for i, t in enumerate(inputs):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"{type(self).__name__}.set_inputs: input {i} must be a Tensor (or a "
                                f"placeholder Tensor(shape=..., dtype=...)), got {type(t).__name__}")
        object.__setattr__(self, "_dynamic_inputs", tuple(inputs))
        _dynamic_shape.declarations_changed()

    def get_inputs(self):
        """The inputs given to :meth:`set_inputs` (None if none were)."""
        return None if self._dynamic_inputs is None else list(self._dynamic_inputs)

    def set_jit_config(self, jit_config):
        """``Cell.set_jit_config(jit_config)``: compile this Cell with ``jit_config`` (an
        ``ms.JitConfig``: ``jit_level`` picks the optimisation passes) when it runs in GRAPH_MODE;
        PyNative calls are unaffected, as in MindSpore."""
        from ..jit_api import JitConfig
        if not isinstance(jit_config, JitConfig):
            raise TypeError(f"{type(self).__name__}.set_jit_config: expects a JitConfig, got "
                            f"{type(jit_config).__name__}")
        object.__setattr__(self, "_jit_config", jit_config)
        object.__setattr__(self, "_configured_call", None)

    def _configured_graph_call(self):
        """``construct`` jitted with this Cell's JitConfig (made on the first GRAPH_MODE call)."""
        call = self.__dict__.get("_configured_call")
        if call is None:
            from ..jit_api import jit
            construct = type(self).construct
            construct = getattr(construct, "__wrapped_jit__", construct)
            call = jit(types.MethodType(construct, self), jit_config=self._jit_config)
            object.__setattr__(self, "_configured_call", call)
        return call

    def compile(self, *args, **kwargs):
        """Capture and compile ``construct`` for these inputs without running it."""
        handler = _context.graph_handler()
        if handler is None:
            return None
        return handler.compile(self, args, kwargs)

    def __repr__(self):
        lines = [f"{type(self).__name__}<"]
        for name, c in self._cells.items():
            sub = repr(c).replace("\n", "\n  ")
            lines.append(f"  ({name}): {sub}")
        extra = self.extend_repr()
        if len(lines) == 1:
            return f"{type(self).__name__}<{extra}>"
        if extra:
            lines.insert(1, f"  {extra}")
        lines.append("  >")
        return "\n".join(lines)

    def extend_repr(self):
        return ""


def _declared_call(args) -> bool:
    """Whether a call's arguments are checked against ``set_inputs``: not while capture traces
    (symbolic tensors) or vmap batches them (the guards / the eager ops check those)."""
    return not any(is_tensorlike(a) and not isinstance(a, Tensor) for a in args)


def _batched(args) -> bool:
    """Is one of ``args`` a vmap BatchedTensor? (checked only once vmap has been used)"""
    from ..vmap import BatchedTensor
    return any(type(a) is BatchedTensor for a in args)


def _call_with_custom_bprop(self, *args, **kwargs):
    """``__call__`` of a Cell class that defines ``bprop``. (Capture traces a Cell whose class
    overrides ``__call__`` through that ``__call__``, so it meets _custom_bprop_call below.)"""
    return _custom_bprop_call(self, args, kwargs)


class _CustomBprop:
    """Tape op for one call of a Cell with a user ``bprop``: its VJP calls
    ``cell.bprop(*inputs, out, dout)`` (``out``/``dout`` a Tensor, or a tuple for a Cell that
    returns a tuple) and returns the gradient of each positional input."""

    batchable_vjp = True  # the user's bprop runs on batched cotangents through bind (vmap)

    def __init__(self, cell, multi):
        self.cell = cell
        self.multi = multi
        self.name = f"{type(cell).__name__}.bprop"

    def vjp(self, g, out, *inputs):
        grads = self.cell.bprop(*inputs, out, g)
        if isinstance(grads, Tensor):  # (MindSpore wants a tuple; a lone Tensor for one input is accepted)
            grads = (grads,)
        if not isinstance(grads, (tuple, list)) or len(grads) != len(inputs):
            raise TypeError(f"{type(self.cell).__name__}.bprop must return a tuple with one gradient per "
                            f"input ({len(inputs)}), got {type(grads).__name__}"
                            + (f" of length {len(grads)}" if isinstance(grads, (tuple, list)) else ""))
        return tuple(g if isinstance(g, Tensor) else None for g in grads)


def _custom_bprop_call(cell, args, kwargs):
    from .. import tape as _tape
    if any(is_tensorlike(a) and not isinstance(a, Tensor) for a in args):
        # symbolic values: capture is tracing this call. Its graph autodiff would differentiate
        # ``construct`` and ignore ``bprop``, so refuse: capture turns the error into a graph
        # break and the call runs eagerly, where the tape below applies the bprop.
        raise NotImplementedError(f"{type(cell).__name__} defines a custom bprop, which runs eagerly")
    tensors = [a for a in args if isinstance(a, Tensor)]
    if kwargs or not tensors or not _tape.ACTIVE or not _tape.any_tracked(tensors):
        return Cell.__call__(cell, *args, **kwargs)
    with _tape.paused():  # the forward is not recorded: the bprop stands for all of it
        out = Cell.__call__(cell, *args)
    multi = isinstance(out, (tuple, list))
    outs = tuple(out) if multi else (out,)
    if not all(isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{type(cell).__name__}: a Cell with a custom bprop must return a Tensor or a "
                        "tuple of Tensors")
    # fresh output objects (sharing the data): an output may be an input itself (an identity
    # construct with a gradient-reversing bprop), and the tape keys gradients by object
    outs = tuple(Tensor._wrap(o._data) for o in outs)
    op = _CustomBprop(cell, multi)
    for tp in _tape.ACTIVE:
        tp.record(op, tuple(args), {}, outs)
    return type(out)(outs) if multi and not hasattr(out, "_fields") else (outs if multi else outs[0])

