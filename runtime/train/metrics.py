"""Metrics for ``Model`` (``mindspore.train`` re-exports them): the classes live in
:mod:`runtime.nn.metrics`; ``Model(..., metrics={"Accuracy": nn.Accuracy()})`` or a set of names
(``{"accuracy", "loss"}``) hooks them into ``Model.eval``/``Model.fit``."""
from ..nn.metrics import *  # noqa: F403
from ..nn.metrics import __all__  # noqa: F401
