"""Optimizers: ``optimizer(grads)`` updates the parameters in place (see optimizer.py)."""
from .optimizer import Optimizer, opt_init_args_register
from .sgd import SGD, Momentum
from .adam import Adam, AdamW, AdamWeightDecay, Lamb
from .adagrad import Adagrad, RMSProp
from .more import AdaMax, Adadelta, Rprop, ASGD, FTRL, ProximalAdagrad, LazyAdam, LARS, AdaFactor

__all__ = ["Optimizer", "opt_init_args_register", "SGD", "Momentum", "Adam", "AdamW", "AdamWeightDecay", "Lamb", "RMSProp", "Adagrad",
           "AdaMax", "Adadelta", "Rprop", "ASGD", "FTRL", "ProximalAdagrad", "LazyAdam", "LARS",
           "AdaFactor"]
