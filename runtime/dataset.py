"""``runtime.dataset``: MindSpore's module name (``mindspore.dataset``) for :mod:`runtime.data`.

``import runtime.dataset as ds``, ``import runtime.dataset.vision as vision`` and
``from runtime.dataset import transforms`` work as with MindSpore.
"""
import sys as _sys

from .data import *  # noqa: F403
from .data import __all__  # noqa: F401
from .data import config, text, transforms, vision

for _name, _mod in (("vision", vision), ("transforms", transforms), ("config", config), ("text", text),
                    ("vision.c_transforms", vision), ("vision.py_transforms", vision),
                    ("transforms.c_transforms", transforms), ("transforms.py_transforms", transforms)):
    _sys.modules.setdefault(f"{__name__}.{_name}", _mod)
