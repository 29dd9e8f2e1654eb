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

from collections import OrderedDict

from graph.ops import REGISTRY, bind

from .. import context as _context
from ..parameter import Parameter
from ..tensor import Tensor

_ASSIGN = REGISTRY["assign"]


class Cell:
    """Base class for all networks. Subclasses implement ``construct``."""

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
            if not any(c is value for c in d["_cells"].values()):  # a second alias keeps its names
                if self._auto_prefix:
                    value._prefix_param_names(name)
                if d["_scope"]:
                    value._prefix_param_names(d["_scope"])
            d["_cells"][name] = value
            d["_params"].pop(name, None)
        elif name in d["_params"]:
            if isinstance(value, Tensor):
                # in-place update of the existing Parameter (recorded in graph mode)
                bind(_ASSIGN, d["_params"][name], value)
                return
            if value is None:
                del d["_params"][name]
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

    def _prefix_param_names(self, prefix):
        # each sub-Cell and Parameter once, even when shared (tied weights) inside this subtree
        seen = set()
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_scope", f"{prefix}.{cell._scope}" if cell._scope else prefix)
            for p in cell._params.values():
                if id(p) not in seen:
                    seen.add(id(p))
                    p.name = f"{prefix}.{p.name}"

    def insert_child_to_cell(self, child_name, child_cell):
        if not isinstance(child_cell, Cell):
            raise TypeError(f"insert_child_to_cell: {child_name} must be a Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

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
        seen = set()
        for _, cell in self.cells_and_names():
            for p in cell._params.values():
                if id(p) not in seen:
                    seen.add(id(p))
                    yield p.name, p

    def get_parameters(self, expand=True):
        for _, p in self.parameters_and_names():
            yield p

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters() if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters() if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        return OrderedDict(self.parameters_and_names())

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
        """Cast this Cell's floating-point parameters to ``dst_type`` (e.g. ms.float16)."""
        from graph.dtypes import as_dtype
        dt = as_dtype(dst_type)
        for p in self.get_parameters():
            if p.dtype.is_float:
                p._data = p._data.astype(dt.np)
        return self

    # -- calling -------------------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement construct()")

    def __call__(self, *args, **kwargs):
        if self._jit is not None:
            return self._jit(*args, **kwargs)
        if _context._state["mode"] == _context.GRAPH_MODE:
            handler = _context.graph_handler()
            if handler is not None:
                return handler(self, args, kwargs)
        return self.construct(*args, **kwargs)

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
