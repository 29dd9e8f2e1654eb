"""Every rank starts a data-parallel step from rank 0's whole network: its trainable weights and
its other Parameters (a non-trainable scale that differs per rank before the first step). Prints
one line per mode: ``mode=<m> rank=<r> scale=<value after the first step>``."""
import numpy as np

import runtime as ms
from runtime import Parameter, Tensor, nn, ops
from runtime.communication import get_rank, init


class Scaled(nn.Cell):
    def __init__(self, rank):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.scale = Parameter(Tensor(np.full((2,), rank + 1, np.float32)), name="scale", requires_grad=False)

    def construct(self, x):
        return self.fc(x) * self.scale


init()
rank = get_rank()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.zeros((4, 2), np.float32))
for mode in ("pynative", "jit"):
    net = Scaled(rank)
    opt = nn.SGD(net.trainable_params(), 0.1)
    grad_fn = ms.value_and_grad(nn.WithLossCell(net, nn.MSELoss()), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    (ms.jit(step) if mode == "jit" else step)(x, y)
    print(f"mode={mode} rank={rank} scale={ops.reduce_sum(net.scale).asnumpy():g}", flush=True)
