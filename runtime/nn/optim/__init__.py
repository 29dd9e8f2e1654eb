"""Optimizers: ``optimizer(grads)`` updates the parameters in place (see optimizer.py)."""
from .optimizer import Optimizer, opt_init_args_register  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401
from .adam import Adam, AdamW, AdamWeightDecay, Lamb  # noqa: F401
from .adagrad import Adagrad, RMSProp  # noqa: F401

__all__ = ["Optimizer", "opt_init_args_register", "SGD", "Momentum", "Adam", "AdamW", "AdamWeightDecay", "Lamb", "RMSProp", "Adagrad"]
