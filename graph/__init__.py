"""``graph``: what a computation is. The op registry (``graph.ops``), abstract values, the IR.

This package is the bottom layer and imports nothing else of the project.
"""
from . import dtypes  # noqa: F401
from .aval import AVal  # noqa: F401
