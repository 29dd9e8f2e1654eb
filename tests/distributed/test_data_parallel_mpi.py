"""2-rank data-parallel training equals single-process training on the combined batches, step by
step (rtol 1e-5), in PyNative, GRAPH_MODE and under @jit, with the automatic reducer and with an
explicit DistributedGradReducer, through Model.train (uneven final batch included), and
printing/checkpointing happen on rank 0 only.

The oracle is PyNative training in this (single) process: each step sees the concatenation of
the two ranks' batches, which is what data parallelism must be equivalent to when every rank's
batch has the same size (the shards are equal, so every step's batches are)."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn
from mpi_run import check_ok, run_ranks
from programs import dp_setup as S

N = 2
MODES = ["pynative", "graph", "jit", "explicit"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dp")
    proc = run_ranks("train_dp.py", out, n=N, timeout=150)
    check_ok(proc, "train_dp.py on 2 ranks")
    return out, proc, [dict(np.load(out / f"rank{r}.npz")) for r in range(N)]


def _combined_steps():
    per_rank = [S.shard_batches(N, r) for r in range(N)]
    return [(np.concatenate([b[k][0] for b in per_rank]), np.concatenate([b[k][1] for b in per_rank]))
            for k in range(len(per_rank[0]))]


@pytest.fixture(scope="module")
def single_process():
    """Losses and parameters after each step of single-process training on the combined batches."""
    ms.reset_auto_parallel_context()
    net = S.network()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, S.loss_fn()), S.optimizer(net))
    losses, params = [], []
    for x, y in _combined_steps():
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        params.append(S.flat_params(net))
    return np.array(losses), np.stack(params)


def test_shards_are_equal_interleaved_and_shuffled_alike():
    x, _ = S.data()
    order_epochs = []
    for r in range(N):
        seen = np.concatenate([b[0] for b in S.shard_batches(N, r)])
        assert len(seen) == 2 * 11  # ceil(22 / 2) rows per epoch, two epochs
        order_epochs.append(seen)
    for e in range(S.EPOCHS):
        rows = np.concatenate([o[11 * e:11 * e + 11] for o in order_epochs])
        # the two shards of an epoch hold every sample exactly once: one permutation for both
        assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, x.tolist()))
    assert not np.array_equal(order_epochs[0][:11], order_epochs[0][11:])  # a new order per epoch


@pytest.mark.parametrize("mode", MODES)
def test_ranks_saw_their_shards(run, mode):
    _, _, ranks = run
    for r, res in enumerate(ranks):
        np.testing.assert_array_equal(res[f"{mode}_x"], np.concatenate([b[0] for b in S.shard_batches(N, r)]))


@pytest.mark.parametrize("mode", MODES)
def test_two_ranks_equal_one_process_step_by_step(run, single_process, mode):
    _, _, ranks = run
    want_losses, want_params = single_process
    for res in ranks:  # the replicas stay identical, and equal the single process
        np.testing.assert_allclose(res[f"{mode}_params"], want_params, rtol=1e-5, atol=1e-6)
    # each rank's loss is its half's mean; halves are equal-sized, so their mean is the combined loss
    np.testing.assert_allclose((ranks[0][f"{mode}_loss"] + ranks[1][f"{mode}_loss"]) / 2, want_losses, rtol=1e-5)


@pytest.mark.parametrize("mode", ["graph", "jit", "explicit"])
def test_the_step_is_one_graph_with_bucketed_all_reduces(run, mode):
    _, _, ranks = run
    graphs, breaks, starts = ranks[0][f"{mode}_graphs"]
    assert (graphs, breaks) == (1, 0)
    assert starts >= 3  # several buckets, each its own non-blocking all-reduce


def test_model_train_with_uneven_final_batch(run, single_process):
    _, _, ranks = run
    assert [len(b[0]) for b in S.shard_batches(N, 0, epochs=1)] == [4, 4, 3]
    _, want_params = single_process
    for res in ranks:
        np.testing.assert_allclose(res["model_params"], want_params[-1], rtol=1e-5, atol=1e-6)


def test_loss_monitor_prints_on_rank_0_only(run):
    _, proc, _ = run
    lines = [ln for ln in proc.stdout.splitlines() if "loss is" in ln]
    assert len(lines) == S.EPOCHS * 3, proc.stdout
    assert lines[0].startswith("epoch: 1 step: 1, loss is ") and lines[-1].startswith("epoch: 2 step: 3, loss is ")


def test_rank_0_saves_and_per_rank_files_load_in_one_process(run, single_process):
    out, _, _ = run
    files = sorted(p.name for p in (out / "ckpt").iterdir())
    assert files == ["dp-2_3.ckpt", "each_rank0-2_3.ckpt", "each_rank1-2_3.ckpt"]
    _, want_params = single_process
    for name in files:
        net = S.network()
        ms.load_checkpoint(str(out / "ckpt" / name), net)
        np.testing.assert_allclose(S.flat_params(net), want_params[-1], rtol=1e-5, atol=1e-6)


def test_non_trainable_parameters_start_from_rank_0_too():
    """Batch-norm statistics and other Parameters without gradients are part of the replica."""
    import re
    proc = run_ranks("replica_state.py", n=N, timeout=90)
    check_ok(proc, "replica_state.py on 2 ranks")
    lines = sorted(re.findall(r"mode=(\w+) rank=(\d) scale=(\d+)", proc.stdout))  # lines may interleave
    assert lines == sorted((m, str(r), "2") for m in ("pynative", "jit") for r in range(N)), proc.stdout
