"""A data-parallel job in which rank 1 goes wrong (argv[2]: how); rank 0 writes argv[1]/rank0_done
if it ever gets past the training loop (it must not: every rank has to stop).

  raise        rank 1 raises in its 3rd training step (compiled, data parallel)
  stuck        rank 1 stops taking part (sleeps) before its 3rd step: rank 0's collective times out
  before_init  rank 1 raises before calling init()
  exit         rank 1 ends early without an error (sys.exit(0)) before its 3rd step
"""
import os
import sys
import time

import numpy as np

import runtime as ms
from runtime import Tensor, nn
from runtime.communication import get_rank, init

out_dir, how = sys.argv[1], sys.argv[2]
if how == "before_init" and os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK")) == "1":
    raise RuntimeError("rank 1: the configuration file is missing")
init()
rank = get_rank()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
net = nn.Dense(4, 2)
opt = nn.SGD(net.trainable_params(), 0.1)
grad_fn = ms.value_and_grad(nn.WithLossCell(net, nn.MSELoss()), None, opt.parameters)


@ms.jit
def step(x, y):
    loss, grads = grad_fn(x, y)
    opt(grads)
    return loss


x, y = Tensor(np.ones((3, 4), np.float32)), Tensor(np.zeros((3, 2), np.float32))
for i in range(1000):
    if rank == 1 and i == 2:
        if how == "raise":
            raise ValueError("rank 1: a corrupt batch in step 3")
        if how == "stuck":
            time.sleep(600)
        if how == "exit":
            sys.exit(0)
    step(x, y)
if rank == 0:
    open(os.path.join(out_dir, "rank0_done"), "w").close()
