from .data import *  # noqa
