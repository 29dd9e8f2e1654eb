"""codegen/cpu/profile.py: the per-kernel timing of a compiled call. Oracles: the kernels of the
schedule (every kernel gets a row, in order), the products' FLOPs from their shapes (2*m*n*k),
the graph's own outputs (a profiled call computes what a plain call does, parameters untouched)."""
import numpy as np

from codegen import compile_schedule, schedule_graph
from codegen.cpu import profile
from graph.ops import F

from codegen_helpers import graph_of


def test_profile_rows_cover_every_kernel_and_count_product_flops():
    a = np.random.default_rng(0).standard_normal((3, 40, 30)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((30, 20)).astype(np.float32)
    g = graph_of(lambda x, w: F.mul(F.relu(F.matmul(x, w)), 2.0), (a.shape, a.dtype), (b.shape, b.dtype))
    compiled = compile_schedule(schedule_graph(g))
    want = compiled([a, b])[0][0]
    rows = profile.profile_call(compiled, [a, b], rounds=2)
    assert [r.index for r in rows] == list(range(len(compiled.schedule.kernels)))
    assert all(r.seconds >= 0 for r in rows)
    products = [r for r in rows if r.category == "product (sgemm)"]
    assert len(products) == 1 and products[0].flops == 2 * 3 * 40 * 20 * 30
    assert any(r.category == "fused elementwise" for r in rows)
    table = profile.table(rows, top=3)
    assert "product (sgemm)" in table and "total" in table
    np.testing.assert_array_equal(compiled([a, b])[0][0], want)
    np.testing.assert_allclose(want, np.maximum(a @ b, 0) * 2, rtol=1e-5, atol=1e-5)


def test_categories_name_the_convolution_pieces():
    assert profile.categorize(("conv_im2col",)) == "conv_im2col"
    assert profile.categorize(("matmul",)) == "product (sgemm)"
    assert profile.categorize(("mul", "reduce_sum"), "k3 fused[llvm] x") == "fused with reduction"
