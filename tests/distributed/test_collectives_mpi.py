"""Collectives on 2 MPI ranks: results and gradients, eager and compiled, against numpy formulas
over both ranks' inputs (the oracle sees every rank's data; the ranks saw only their own)."""
import numpy as np
import pytest

from mpi_run import check_ok, run_ranks
from programs.collective_inputs import case_inputs

N = 2


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("collectives")
    check_ok(run_ranks("collectives.py", out, n=N), "collectives.py on 2 ranks")
    return [dict(np.load(out / f"rank{r}.npz")) for r in range(N)]


@pytest.fixture(scope="module")
def inputs():
    return [case_inputs(r) for r in range(N)]


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def test_world_and_group(ranks):
    for r, res in enumerate(ranks):
        assert res["world"].tolist() == [r, N, r, N]  # one machine: local rank = rank
        assert res["group"].tolist() == [r, N]


def test_reductions(ranks, inputs):
    xs = np.stack([i["x"] for i in inputs])
    for res in ranks:
        _close(res["sum"], xs.sum(0))
        _close(res["group_sum"], xs.sum(0))
        _close(res["max"], xs.max(0))
        _close(res["func_max"], xs.max(0))
        _close(res["min"], xs.min(0))
        _close(res["prod"], np.prod([i["xpos"] for i in inputs], axis=0))
        np.testing.assert_array_equal(res["int_sum"], sum(i["xint"] for i in inputs))
        assert res["int_sum"].dtype == np.int32 and res["half_sum"].dtype == np.float16
        halves = xs.astype(np.float16).astype(np.float32)
        _close(res["half_sum"].astype(np.float32), halves.sum(0), rtol=2e-3, atol=2e-3)


def test_gather_scatter_broadcast(ranks, inputs):
    xs = [i["x"] for i in inputs]
    total = sum(xs)
    for r, res in enumerate(ranks):
        _close(res["gather"], np.concatenate(xs))
        _close(res["func_gather"], np.concatenate(xs))
        _close(res["scatter"], total[2 * r:2 * r + 2])
        _close(res["func_scatter"], total[2 * r:2 * r + 2])
        _close(res["bcast"], xs[1])
        _close(res["func_bcast"], xs[1])
        np.testing.assert_array_equal(res["bcast_int"], inputs[1]["xint"])


def test_compiled_collectives_equal_the_formula_on_every_call(ranks, inputs):
    xs = [i["x"] for i in inputs]
    for r, res in enumerate(ranks):
        want = 2 * sum(xs) + xs[0]  # all_gather(x)[:4] is rank 0's rows
        _close(res["jit_mixed"], want)
        _close(res["jit_mixed_again"], want)
        _close(res["jit_max"], np.maximum(*xs))


def _grad_oracles(inputs):
    """d/dx_r of F = sum over ranks q of sum(w_q * collective(x)_q), for each loss of the program."""
    w = [i["w"] for i in inputs]
    sw = sum(w)
    xs = [i["x"] for i in inputs]
    xmax = np.maximum(*xs)
    prod = np.prod([i["xpos"] for i in inputs], axis=0)
    wg = sum(i["w_gather"] for i in inputs)
    ws = np.concatenate([i["w_scatter"] for i in inputs])
    out = []
    for r in range(N):
        out.append({
            "sum": sw,
            "max": sw * (xs[r] == xmax),
            "prod": sw * prod / inputs[r]["xpos"],
            "gather": wg[4 * r:4 * r + 4],
            "scatter": ws,
            "bcast": sw if r == 1 else np.zeros_like(sw),
        })
    return out


@pytest.mark.parametrize("name", ["sum", "max", "prod", "gather", "scatter", "bcast"])
def test_gradients_eager_and_compiled(ranks, inputs, name):
    want = _grad_oracles(inputs)
    for r, res in enumerate(ranks):
        _close(res[f"grad_{name}"], want[r][name], rtol=1e-5, atol=1e-5)
        _close(res[f"jit_grad_{name}"], res[f"grad_{name}"], rtol=1e-5, atol=1e-6)
