"""``mindspore.train.serialization``: checkpoint saving and loading, graph export and loading."""
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from .mindir import export, load  # noqa: F401
