"""Collective results and gradients on every rank, eagerly and compiled: writes rank{r}.npz.

Run as 2 ranks by tests/distributed/test_collectives_mpi.py, which checks them against numpy.
"""
import os
import sys

import numpy as np

import runtime as ms
from runtime import Tensor, ops
from runtime.communication import (comm_func, create_group, get_group_size, get_local_rank, get_local_rank_size,
                                   get_rank, init)

from collective_inputs import case_inputs

init()
rank, size = get_rank(), get_group_size()
I = case_inputs(rank)
x, xpos, xint = Tensor(I["x"]), Tensor(I["xpos"]), Tensor(I["xint"])
w, wg, ws = Tensor(I["w"]), Tensor(I["w_gather"]), Tensor(I["w_scatter"])
MAX, MIN = ops.ReduceOp.MAX, ops.ReduceOp.MIN

results = {
    "world": np.array([rank, size, get_local_rank(), get_local_rank_size()]),
    "sum": ops.all_reduce(x),
    "max": ops.AllReduce(MAX)(x),
    "min": ops.AllReduce(op=MIN)(x),
    "prod": ops.all_reduce(xpos, op="prod"),
    "int_sum": ops.all_reduce(xint),
    "half_sum": ops.all_reduce(x.astype(ms.float16)),
    "gather": ops.AllGather()(x),
    "scatter": ops.ReduceScatter()(x),
    "bcast": ops.Broadcast(1)((x, xint))[0],
    "bcast_int": ops.Broadcast(1)((x, xint))[1],
    "func_max": comm_func.all_reduce(x, MAX),
    "func_gather": comm_func.all_gather_into_tensor(x),
    "func_scatter": comm_func.reduce_scatter_tensor(x),
    "func_bcast": comm_func.broadcast(x, src=1),
}
create_group("pair", [0, 1])
results["group"] = np.array([get_rank("pair"), get_group_size("pair")])
results["group_sum"] = ops.AllReduce(group="pair")(x)

LOSSES = {
    "sum": (lambda v: (ops.all_reduce(v) * w).sum(), x),
    "max": (lambda v: (ops.AllReduce(MAX)(v) * w).sum(), x),
    "prod": (lambda v: (ops.all_reduce(v, op="prod") * w).sum(), xpos),
    "gather": (lambda v: (ops.all_gather(v) * wg).sum(), x),
    "scatter": (lambda v: (ops.reduce_scatter(v) * ws).sum(), x),
    "bcast": (lambda v: (ops.Broadcast(1)((v,))[0] * w).sum(), x),
}
for name, (loss, at) in LOSSES.items():
    results[f"grad_{name}"] = ms.grad(loss)(at)
    results[f"jit_grad_{name}"] = ms.jit(ms.grad(loss))(at)


@ms.jit
def compiled(v):
    return ops.all_reduce(v * 2.0) + ops.all_gather(v)[:4], ops.AllReduce(MAX)(v)


results["jit_mixed"], results["jit_max"] = compiled(x)
results["jit_mixed_again"], _ = compiled(x)  # the cached graph communicates again on its next call

np.savez(os.path.join(sys.argv[1], f"rank{rank}.npz"),
         **{k: (v.asnumpy() if hasattr(v, "asnumpy") else v) for k, v in results.items()})
