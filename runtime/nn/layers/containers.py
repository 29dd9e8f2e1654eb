"""``nn.CellDict`` (an ordered dict of named child Cells) and ``nn.Unflatten`` (MindSpore 2.x).

Example:
    >>> from runtime import nn
    >>> cells = nn.CellDict({"conv": nn.Conv2d(1, 2, 3), "act": nn.ReLU()})
    >>> list(cells.keys()), len(cells), "act" in cells
    (['conv', 'act'], 2, True)
    >>> [p.name for p in cells.get_parameters()]
    ['conv.weight']
"""
from __future__ import annotations

from collections import abc

from ... import ops
from ..cell import Cell

__all__ = ["CellDict", "Unflatten"]


class CellDict(Cell):
    """An ordered dict of Cells, each registered as a child under its key (so its parameters
    are named ``<key>.<name>``). Built from a mapping or an iterable of (key, Cell) pairs; keys
    are non-empty strings without '.' that do not shadow a Cell attribute. A container: it has no
    ``construct`` of its own (call the cells it holds)."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        if len(args) > 1:
            raise TypeError(f"CellDict: expected at most 1 positional argument, got {len(args)}")
        if args and args[0] is not None:
            self.update(args[0])
        if kwargs:
            self.update(kwargs)

    def _check_key(self, key):
        if not isinstance(key, str):
            raise TypeError(f"CellDict: keys must be str, got {type(key).__name__} {key!r}")
        if not key or "." in key:
            raise KeyError(f"CellDict: a key must be a non-empty string without '.', got {key!r}")
        if key not in self._cells and hasattr(self, key):
            raise KeyError(f"CellDict: key {key!r} would shadow an attribute of the Cell")
        return key

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        if not isinstance(cell, Cell):
            raise TypeError(f"CellDict: values must be Cells, got {type(cell).__name__}")
        if cell is self:
            raise ValueError("CellDict: a cell cannot contain itself")
        self.insert_child_to_cell(self._check_key(key), cell)

    def __delitem__(self, key):
        del self._cells[key]
        self.__dict__.pop(key, None)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells))

    def __contains__(self, key):
        return key in self._cells

    def clear(self):
        """Remove every cell."""
        for key in list(self._cells):
            del self[key]

    def pop(self, key):
        """Remove the cell under ``key`` and return it (KeyError when there is none)."""
        cell = self._cells[key]
        del self[key]
        return cell

    def keys(self):
        return list(self._cells.keys())

    def values(self):
        return list(self._cells.values())

    def items(self):
        return list(self._cells.items())

    def update(self, cells):
        """Add (or replace) cells from a mapping, or an iterable of (key, Cell) pairs."""
        if isinstance(cells, (abc.Mapping, CellDict)):
            for key, cell in cells.items():
                self[key] = cell
            return
        if not isinstance(cells, abc.Iterable) or isinstance(cells, (str, Cell)):
            raise TypeError(f"CellDict.update: expected a mapping or an iterable of (key, Cell) pairs, "
                            f"got {type(cells).__name__}")
        for i, pair in enumerate(cells):
            if not isinstance(pair, abc.Iterable) or isinstance(pair, str) or len(pair) != 2:
                raise ValueError(f"CellDict.update: element {i} must be a (key, Cell) pair, got {pair!r}")
            self[pair[0]] = pair[1]

    def construct(self, *inputs):
        raise NotImplementedError("CellDict is a container and has no construct; call its cells instead")


class Unflatten(Cell):
    """Split axis ``axis`` of the input into ``unflattened_size`` (a tuple or list of ints whose
    product is that axis's size; one entry may be -1)."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Unflatten: axis must be an int, got {type(axis).__name__} {axis!r}")
        if not isinstance(unflattened_size, (tuple, list)) or not unflattened_size or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size):
            raise TypeError(f"Unflatten: unflattened_size must be a tuple or list of ints, got {unflattened_size!r}")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input):  # noqa: A002 (MindSpore's argument name)
        shape = tuple(input.shape)
        axis = self.axis + len(shape) if self.axis < 0 else self.axis
        if not 0 <= axis < len(shape):
            raise ValueError(f"Unflatten: axis {self.axis} is out of range for an input of shape {shape}")
        known = 1
        for size in self.unflattened_size:
            known *= size if size != -1 else 1
        fits = (shape[axis] % known == 0) if -1 in self.unflattened_size else known == shape[axis]
        if not fits:  # MindSpore raises TypeError here
            raise TypeError(f"Unflatten: the product of unflattened_size {self.unflattened_size} must equal "
                            f"the size {shape[axis]} of axis {self.axis} (input shape {shape})")
        return ops.reshape(input, shape[:axis] + self.unflattened_size + shape[axis + 1:])
