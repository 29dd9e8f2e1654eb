"""Data-parallel training on every rank, in each execution mode: writes rank{r}.npz and the
checkpoints; tests/distributed/test_data_parallel_mpi.py compares it with single-process
training on the combined batches.

Modes: TrainOneStepCell in PyNative and in GRAPH_MODE (its DistributedGradReducer), a functional
value_and_grad + optimizer step under @ms.jit (reduced automatically), the same step with an
explicit DistributedGradReducer (MindSpore style: must not reduce twice), and Model.train with
LossMonitor and ModelCheckpoint in GRAPH_MODE. Rank 1 perturbs its freshly built parameters
first: training must still start from rank 0's values (broadcast at the first step).
"""
import os
import sys

import numpy as np

import capture
import runtime as ms
from runtime import Model, Tensor, nn
from runtime.communication import get_group_size, get_rank, init
from runtime.train import CheckpointConfig, LossMonitor, ModelCheckpoint

import dp_setup as S

init()
rank, size = get_rank(), get_group_size()
out_dir = sys.argv[1]
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                             comm_fusion={"allreduce": {"mode": "size", "config": S.BUCKET_MB}})
results = {}


def fresh_network():
    net = S.network()
    if rank == 1:  # a replica that starts elsewhere: the first step must broadcast rank 0's values
        for p in net.trainable_params():
            p.set_data(Tensor(p.asnumpy() + 1.0))
    return net


def graph_stats(fn, *args):
    report = capture.explain(fn)(*args)
    starts = sum(n.op.name == "all_reduce_start" for c in report.compiles for n in c.graph.nodes)
    return [report.graph_count, report.graph_break_count, starts]


def record(mode, step_fn, net):
    batches = S.shard_batches(size, rank)
    losses, params = [], []
    for x, y in batches:
        loss = step_fn(Tensor(x), Tensor(y))
        losses.append(float(loss.asnumpy()))
        params.append(S.flat_params(net))
    results[f"{mode}_loss"] = np.array(losses)
    results[f"{mode}_params"] = np.stack(params)
    results[f"{mode}_x"] = np.concatenate([x for x, _ in batches])
    if mode != "pynative":
        x, y = batches[0]
        results[f"{mode}_graphs"] = np.array(graph_stats(step_fn, Tensor(x), Tensor(y)))


def train_one_step_cell():
    net = fresh_network()
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, S.loss_fn()), S.optimizer(net))


net, cell = train_one_step_cell()
record("pynative", cell, net)

ms.set_context(mode=ms.GRAPH_MODE)
net, cell = train_one_step_cell()
record("graph", cell, net)
ms.set_context(mode=ms.PYNATIVE_MODE)

net = fresh_network()
opt = S.optimizer(net)
grad_fn = ms.value_and_grad(nn.WithLossCell(net, S.loss_fn()), None, opt.parameters)


@ms.jit
def auto_step(x, y):
    loss, grads = grad_fn(x, y)
    opt(grads)
    return loss


record("jit", auto_step, net)

net = fresh_network()
opt2 = S.optimizer(net)
grad_fn2 = ms.value_and_grad(nn.WithLossCell(net, S.loss_fn()), None, opt2.parameters)
reducer = nn.DistributedGradReducer(opt2.parameters)


@ms.jit
def explicit_step(x, y):
    loss, grads = grad_fn2(x, y)
    opt2(reducer(grads))
    return loss


record("explicit", explicit_step, net)

# Model.train over the sharded dataset, compiled, with rank-0 printing and checkpoints
ms.set_context(mode=ms.GRAPH_MODE)
net = fresh_network()
model = Model(net, S.loss_fn(), S.optimizer(net))
ckpt_dir = os.path.join(out_dir, "ckpt")
callbacks = [LossMonitor(1),
             ModelCheckpoint("dp", ckpt_dir, CheckpointConfig(save_checkpoint_steps=1000, keep_checkpoint_max=1)),
             ModelCheckpoint("each", ckpt_dir, CheckpointConfig(save_checkpoint_steps=1000, keep_checkpoint_max=1,
                                                                per_rank=True))]
ms.set_seed(S.SEED)  # the dataset's shuffles follow the seed, as in shard_batches
model.train(S.EPOCHS, S.dataset(size, rank), callbacks=callbacks)
results["model_params"] = S.flat_params(net)
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **results)
