"""Data-parallel pieces that need no MPI: a world of one process (collectives are identities, so a
data-parallel script runs as ``python train.py``), init/group errors, the auto-parallel context,
gradient buckets, the passes' handling of collectives, dataset sharding, rank-0 output and the
launcher's command line."""
import inspect
import os
import sys

import numpy as np
import pytest

import capture
import runtime as ms
from graph.ops import comm
from runtime import Tensor, nn, ops
from runtime import communication as C
from runtime.communication import management
from runtime.communication.launcher import launched_size
from runtime.data import Dataset, GeneratorDataset, MappableDataset, NumpySlicesDataset
from runtime.parallel import reducer
from runtime.train import CheckpointConfig, LossMonitor, ModelCheckpoint


@pytest.fixture(autouse=True)
def clean_state():
    ms.reset_auto_parallel_context()
    yield
    if C.GlobalComm.INITED:
        C.release()
    comm.set_world(None)
    reducer.reset()
    ms.reset_auto_parallel_context()


def _x():
    return Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) - 5)


# -- a world of one process ------------------------------------------------------------------------------
@pytest.mark.parametrize("compiled", [False, True])
def test_collectives_are_identities_in_one_process(compiled):
    def f(x):
        return (ops.all_reduce(x), ops.AllReduce(ops.ReduceOp.MAX)(x), ops.all_gather(x), ops.reduce_scatter(x),
                ops.Broadcast(0)((x,))[0], C.comm_func.all_reduce(x, ops.ReduceOp.PROD))
    x = _x()
    outs = (ms.jit(f) if compiled else f)(x)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), x.asnumpy())
    g = ms.grad(lambda v: (ops.all_reduce(v) * v).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy())


def test_init_without_a_launcher_is_a_world_of_one(monkeypatch):
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "RANK_SIZE", "MSJIT_COMM"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(RuntimeError, match="init"):
        C.get_rank()
    C.init()
    assert (C.get_rank(), C.get_group_size(), C.get_local_rank(), C.get_local_rank_size()) == (0, 1, 0, 1)
    assert C.GlobalComm.INITED and C.GlobalComm.WORLD_COMM_GROUP == "mccl_world_group"
    assert ms.get_auto_parallel_context("device_num") == 1
    assert sys.excepthook is not management._abort_every_rank  # only launched ranks abort the job
    C.release()
    assert not C.GlobalComm.INITED
    C.init("nccl")
    assert C.GlobalComm.WORLD_COMM_GROUP == "nccl_world_group" and C.get_rank("nccl_world_group") == 0


def test_init_rejects_bad_backends():
    with pytest.raises(TypeError, match="backend_name must be a str"):
        C.init(3)
    with pytest.raises(RuntimeError, match="unknown backend 'gloo'"):
        C.init("gloo")


def test_more_ranks_than_the_launcher_started_is_an_error(monkeypatch):
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MSJIT_COMM"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RANK_SIZE", "2")
    with pytest.raises(RuntimeError, match=r"2 ranks were asked for .*python -m runtime.launch -n 2"):
        C.init()
    monkeypatch.delenv("RANK_SIZE")
    ms.set_auto_parallel_context(device_num=4)
    with pytest.raises(RuntimeError, match="4 ranks were asked for"):
        C.init()


def test_launched_without_mpi4py_is_an_error(monkeypatch):
    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setenv("PMI_RANK", "0")
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import mpi4py fails
    with pytest.raises(RuntimeError, match=r"started as one of 2 ranks, but mpi4py cannot be imported"):
        C.init()
    assert not C.GlobalComm.INITED


def test_data_parallel_training_checks_the_world(monkeypatch):
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    net = nn.Dense(2, 1)
    grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, net.trainable_params())
    x = Tensor(np.ones((1, 2), np.float32))
    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setenv("PMI_RANK", "1")
    with pytest.raises(RuntimeError, match="one of 2 launched ranks, but runtime.communication.init"):
        grad_fn(x)
    monkeypatch.delenv("PMI_SIZE")
    ms.set_auto_parallel_context(device_num=2)
    with pytest.raises(RuntimeError, match="device_num=2 asks for 2 processes"):
        grad_fn(x)
    ms.set_auto_parallel_context(device_num=1)
    grad_fn(x)


def test_launcher_detection():
    assert launched_size({"PMI_SIZE": "3", "PMI_RANK": "2"}) == 3
    assert launched_size({"OMPI_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_RANK": "0"}) == 8
    assert launched_size({"SLURM_STEP_NUM_TASKS": "4", "SLURM_PROCID": "1"}) == 4
    assert launched_size({"SLURM_NTASKS": "4"}) is None  # a batch script, not a launched rank
    assert launched_size({"PMI_SIZE": "2"}) is None  # a size without a rank is not a launch


def test_groups_in_one_process():
    C.init()
    C.create_group("solo", [0])
    assert C.get_group_size("solo") == 1 and C.get_rank("solo") == 0
    assert C.get_world_rank_from_group_rank("solo", 0) == 0
    assert C.get_group_rank_from_world_rank(0, "solo") == 0
    np.testing.assert_array_equal(ops.AllReduce(group="solo")(_x()).asnumpy(), _x().asnumpy())
    with pytest.raises(ValueError, match="already exists"):
        C.create_group("solo", [0])
    with pytest.raises(ValueError, match=r"rank_ids \[1\] are not ranks of the world"):
        C.create_group("two", [0, 1])
    with pytest.raises(ValueError, match="duplicates"):
        C.create_group("dup", [0, 0])
    with pytest.raises(ValueError, match="world group"):
        C.create_group("hccl_world_group", [0])
    C.destroy_group("solo")
    with pytest.raises(ValueError, match=r"AllReduce \(ops.all_reduce\): unknown communication group 'solo'"):
        ops.AllReduce(group="solo")(_x())
    with pytest.raises(ValueError, match="unknown group"):
        C.destroy_group("solo")


def test_collective_errors_name_the_op():
    with pytest.raises(TypeError, match=r"AllReduce \(ops.all_reduce\): bool tensors cannot be reduced"):
        ops.all_reduce(Tensor(np.array([True, False])))
    with pytest.raises(ValueError, match=r"AllReduce \(ops.all_reduce\): attribute op must be one of"):
        ops.AllReduce(op="mean")
    with pytest.raises(ValueError, match=r"Broadcast \(ops.broadcast\): root_rank 1 is not a rank"):
        ops.Broadcast(1)((_x(),))
    with pytest.raises(ValueError, match=r"AllGather \(ops.all_gather\): expects a tensor of rank >= 1"):
        ops.all_gather(Tensor(np.float32(1.0)))
    with pytest.raises(RuntimeError, match="ticket 123456 is not an all-reduce in flight"):
        ops.all_reduce_wait(Tensor(np.array(123456, np.int64)), _x())


# -- passes keep collectives in order ------------------------------------------------------------------------
def _graph_with(build):
    from graph.aval import AVal
    from graph.dtypes import float32
    from graph.ir import Graph
    g = Graph("t")
    x = g.add_input(AVal((4, 3), float32), "x")
    y = g.add_input(AVal((4, 3), float32), "y")
    g.set_outputs(list(build(g, x, y)))
    g.verify()
    return g


def test_passes_never_drop_merge_or_fold_collectives():
    from graph.ops import F
    from graph.passes import cse, dce, fold_constants

    def build(g, x, y):
        F.all_reduce(x)  # unused: every process must still take part
        a, b = F.all_reduce(y), F.all_reduce(y)  # twins: two exchanges
        c = F.all_reduce(g.add_const(np.ones((4, 3), np.float32), "one"))  # constant operand: not folded
        return [F.add(F.add(a, b), c)]
    g = fold_constants(cse(dce(_graph_with(build))))
    assert [n.op.name for n in g.nodes].count("all_reduce") == 4


def test_a_bucket_all_reduce_starts_before_unrelated_work():
    from graph.ops import F
    from graph.passes import optimize

    def build(g, x, y):
        other = F.tanh(F.exp(y))  # earlier in program order, not needed by the bucket
        grad = F.mul(x, 2.0)
        ticket = F.all_reduce_start(grad)
        return [F.add(F.all_reduce_wait(ticket, grad), other)]
    for level in ("O0", "O1"):
        order = [n.op.name for k in optimize(_graph_with(build), level).kernels for n in k.nodes]
        assert order.index("all_reduce_start") < order.index("exp"), order
        assert order.index("all_reduce_wait") > order.index("tanh"), order


def test_a_graph_with_collectives_is_not_rerun_eagerly_after_an_error(monkeypatch):
    """Re-running would repeat exchanges the other processes already made: the error propagates."""
    calls = []

    @ms.jit
    def f(x):
        calls.append(1)  # counts Python executions of the body (tracing and eager runs)
        return ops.all_reduce(x) * 2.0

    x = _x()
    f(x)
    traced = len(calls)

    class PeerGone(comm.SingleProcessGroup):
        def all_reduce(self, xp, x, op):
            raise TimeoutError("peer gone")
    comm.set_world(PeerGone())
    with pytest.raises(TimeoutError, match="peer gone"):
        f(x)
    assert len(calls) == traced  # no eager re-run
    capture.reset()


# -- the auto-parallel context and gradient buckets ---------------------------------------------------------
def test_auto_parallel_context():
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=1)
    assert (ms.get_auto_parallel_context("parallel_mode"), ms.get_auto_parallel_context("gradients_mean")) == \
        ("data_parallel", True)
    with pytest.raises(ValueError, match="semi_auto_parallel' is not supported"):
        ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    with pytest.raises(ValueError, match="parallel_mode must be one of"):
        ms.set_auto_parallel_context(parallel_mode="data")
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['gradient_mean'\]"):
        ms.set_auto_parallel_context(gradient_mean=True)
    with pytest.raises(ValueError, match=r"device_num must be in \[1, 4096\]"):
        ms.set_auto_parallel_context(device_num=0)
    with pytest.raises(TypeError, match="gradients_mean must be a bool"):
        ms.set_auto_parallel_context(gradients_mean=1)
    with pytest.raises(ValueError, match="comm_fusion allreduce mode 'size' needs config"):
        ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 0}})
    with pytest.raises(ValueError, match="increasing positive indices"):
        ms.set_auto_parallel_context(all_reduce_fusion_config=[3, 2])
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("gradients_mean") is False
    from runtime import context  # MindSpore 1.x scripts reach it as mindspore.context
    context.set_auto_parallel_context(parallel_mode=context.ParallelMode.DATA_PARALLEL)
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"


def test_plan_buckets():
    f32 = ["float32"] * 4
    shapes = [(10,), (10,), (10,), (10,)]  # 40 bytes each
    assert reducer.plan_buckets(shapes, f32, bucket_bytes=80) == [[3, 2], [1, 0]]
    assert reducer.plan_buckets(shapes, f32, bucket_bytes=1) == [[3], [2], [1], [0]]
    assert reducer.plan_buckets(shapes, f32, bucket_bytes=10**9) == [[3, 2, 1, 0]]
    assert reducer.plan_buckets(shapes, ["float32", "float16", "float16", "float32"], bucket_bytes=10**9) == \
        [[3], [2, 1], [0]]  # one dtype per flat buffer
    assert reducer.plan_buckets(shapes, f32, split_indices=[1, 3]) == [[3], [2, 1], [0]]


def test_bucket_policy_follows_the_context():
    params = nn.SequentialCell([nn.Dense(3, 4), nn.Dense(4, 2)]).trainable_params()  # 12+4+8+2 floats
    assert reducer.buckets_for(params) == [[3, 2, 1, 0]]  # 25 MB by default
    ms.set_auto_parallel_context(all_reduce_fusion_config=[2])
    assert reducer.buckets_for(params) == [[3, 2], [1, 0]]
    ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 40 / 2**20}})
    assert reducer.buckets_for(params) == [[3, 2], [1, 0]]


@pytest.mark.parametrize("compiled", [False, True])
def test_distributed_grad_reducer_averages_and_restores_shapes(compiled):
    """In one process the all-reduce is an identity: with degree=2 the reducer halves (mean)."""
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 1e-5}})
    red = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=2)
    assert len(red._buckets) > 1
    grads = tuple(Tensor(np.random.default_rng(i).normal(size=p.shape).astype(np.float32))
                  for i, p in enumerate(net.trainable_params()))
    outs = (ms.jit(red.construct) if compiled else red)(grads)
    for g, o in zip(grads, outs):
        assert o.shape == g.shape
        np.testing.assert_allclose(o.asnumpy(), g.asnumpy() / 2, rtol=1e-6)
    with pytest.raises(ValueError, match="got 1 gradients for the 4 parameters"):
        red(grads[:1])
    with pytest.raises(ValueError, match="degree must be a positive int"):
        nn.DistributedGradReducer(net.trainable_params(), degree=0)
    with pytest.raises(TypeError, match="mean must be a bool"):
        nn.DistributedGradReducer(net.trainable_params(), mean="yes")


def test_data_parallel_in_one_process_trains_like_stand_alone():
    """`python train.py` of a data-parallel script: the same numbers as without the context."""
    def train(data_parallel):
        ms.reset_auto_parallel_context()
        if data_parallel:
            C.init()
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        ms.set_seed(3)
        net = nn.Dense(3, 2)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
        assert step.reducer_flag is data_parallel
        x = Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        for _ in range(3):
            step(x, Tensor(np.ones((4, 2), np.float32)))
        return [p.asnumpy() for p in net.trainable_params()]
    for a, b in zip(train(False), train(True)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# -- datasets --------------------------------------------------------------------------------------------------
def _rows(ds):
    return [int(r[0]) for r in ds.create_tuple_iterator(output_numpy=True)]


@pytest.mark.parametrize("n, shards", [(10, 3), (9, 3), (5, 4), (2, 3)])
def test_shards_follow_mindsporess_distributed_sampler(n, shards):
    """Row k of shard d is row (k * shards + d) % n: equal sizes, wrapping to the start."""
    per = -(-n // shards)
    for d in range(shards):
        ds = NumpySlicesDataset({"v": np.arange(n)}, shuffle=False, num_shards=shards, shard_id=d)
        assert ds.get_dataset_size() == per
        assert _rows(ds) == [(k * shards + d) % n for k in range(per)]


def test_shuffled_shards_share_one_permutation_per_epoch():
    n, shards = 23, 3
    epochs = []
    for d in range(shards):
        it = NumpySlicesDataset({"v": np.arange(n)}, shuffle=True, num_shards=shards,
                                shard_id=d).create_tuple_iterator(num_epochs=2, output_numpy=True)
        epochs.append([[int(r[0]) for r in it] for _ in range(2)])
    for e in range(2):
        rows = [epochs[d][e] for d in range(shards)]
        assert all(len(r) == 8 for r in rows)
        # interleave back: the epoch's order, every row once, then the 24 - 23 = 1 wrapped row
        order = [rows[k % shards][k // shards] for k in range(8 * shards)]
        assert sorted(order[:n]) == list(range(n)) and order[n:] == order[:1]
    assert epochs[0][0] != epochs[0][1]


def test_num_samples_caps_each_shard_and_generators_shard():
    ds = NumpySlicesDataset({"v": np.arange(10)}, shuffle=False, num_shards=2, shard_id=1, num_samples=3)
    assert ds.get_dataset_size() == 3 and _rows(ds) == [1, 3, 5]

    class Source:
        def __getitem__(self, i):
            return (np.int64(i),)

        def __len__(self):
            return 7
    ds = GeneratorDataset(Source(), ["v"], shuffle=False, num_shards=2, shard_id=1)
    assert _rows(ds) == [1, 3, 5, 0]
    with pytest.raises(ValueError, match="num_shards/shard_id need a random-access source"):
        GeneratorDataset(lambda: iter([(1,)]), ["v"], num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match=r"shard_id must be in \[0, num_shards - 1\] = \[0, 1\], got 2"):
        NumpySlicesDataset({"v": np.arange(4)}, num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="give both num_shards and shard_id"):
        NumpySlicesDataset({"v": np.arange(4)}, num_shards=2)


def _source_classes():
    import runtime.data as data
    return sorted({obj for obj in vars(data).values() if isinstance(obj, type) and issubclass(obj, Dataset)
                   and (issubclass(obj, MappableDataset) or obj is GeneratorDataset) and obj is not MappableDataset},
                  key=lambda c: c.__name__)


@pytest.mark.parametrize("cls", _source_classes(), ids=lambda c: c.__name__)
def test_every_dataset_source_takes_num_shards_and_shard_id(cls):
    params = inspect.signature(cls.__init__).parameters
    assert "num_shards" in params and "shard_id" in params


# -- rank 0 prints and saves ------------------------------------------------------------------------------------
class _Rank1Of2(comm.SingleProcessGroup):
    rank, size = 1, 2


def _train_with(callbacks):
    net = nn.Dense(2, 1)
    ds = NumpySlicesDataset({"x": np.ones((4, 2), np.float32), "y": np.ones((4, 1), np.float32)},
                            shuffle=False).batch(2)
    ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1)).train(1, ds, callbacks=callbacks)


def test_other_ranks_neither_print_nor_save_unless_asked(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MSJIT_LOG_ALL_RANKS", raising=False)
    comm.set_world(_Rank1Of2())
    _train_with([LossMonitor(1), ModelCheckpoint("a", str(tmp_path), CheckpointConfig(save_checkpoint_steps=1)),
                 ModelCheckpoint("b", str(tmp_path), CheckpointConfig(save_checkpoint_steps=1, per_rank=True))])
    assert "loss is" not in capsys.readouterr().out
    assert sorted(os.listdir(tmp_path)) == ["b_rank1-1_1.ckpt", "b_rank1-1_2.ckpt"]
    monkeypatch.setenv("MSJIT_LOG_ALL_RANKS", "1")
    _train_with([LossMonitor(1)])
    assert capsys.readouterr().out.startswith("[rank 1] epoch: 1 step: 1, loss is ")


# -- the launcher's command line --------------------------------------------------------------------------------
def test_launch_command_line():
    from runtime.launch import build_command
    cmd, env = build_command(["-n", "4", "--timeout", "30", "--hostfile", "hosts", "--log-all-ranks", "t.py", "-x"],
                             environ={"MSJIT_THREADS": "3"}, mpiexec="mpiexec", flavour="openmpi", cores=8)
    assert cmd == ["mpiexec", "-n", "4", "--oversubscribe", "--hostfile", "hosts", sys.executable, "t.py", "-x"]
    assert env["MSJIT_THREADS"] == "3" and env["RUNTIME_BLAS_THREADS"] == "2" and env["OMP_NUM_THREADS"] == "2"
    assert env["MSJIT_COMM_TIMEOUT"] == "30.0" and env["MSJIT_LOG_ALL_RANKS"] == "1"
    cmd, env = build_command(["-n", "3", "t.py"], environ={}, mpiexec="mpiexec", flavour="mpich", cores=2)
    assert cmd[:3] == ["mpiexec", "-n", "3"] and "--oversubscribe" not in cmd and env["MSJIT_THREADS"] == "1"


def test_launch_without_mpiexec_says_what_to_install(monkeypatch):
    import runtime.launch as launch
    monkeypatch.setattr(launch, "find_mpiexec", lambda: None)
    with pytest.raises(SystemExit, match=r"no mpiexec found.*msjit\[distributed\]"):
        launch.build_command(["-n", "2", "t.py"], environ={})
