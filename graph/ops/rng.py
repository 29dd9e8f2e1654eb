"""The random stream random ops draw from (dropout masks...).

Eager execution and compiled graphs draw from this one generator in program order, so a seeded
run gives the same numbers in PyNative and in graph mode.
"""
from __future__ import annotations

import numpy as np

_state = {"seed": None, "gen": np.random.default_rng()}


def seed(n: int | None) -> None:
    _state["seed"] = n
    _state["gen"] = np.random.default_rng(n)


def get_seed():
    return _state["seed"]


def generator() -> np.random.Generator:
    return _state["gen"]
