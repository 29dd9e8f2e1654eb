"""Inputs of the collectives program on rank ``r`` (the test recomputes them for its numpy oracle)."""
import numpy as np


def case_inputs(rank):
    g = np.random.default_rng(1000 + rank)
    return {
        "x": g.normal(size=(4, 3)).astype(np.float32),
        "xpos": g.uniform(0.5, 1.5, size=(4, 3)).astype(np.float32),
        "xint": g.integers(-5, 5, size=(2, 2)).astype(np.int32),
        "w": g.normal(size=(4, 3)).astype(np.float32),
        "w_gather": g.normal(size=(8, 3)).astype(np.float32),
        "w_scatter": g.normal(size=(2, 3)).astype(np.float32),
    }
