"""Optimizer state updated inside framework helper methods (global_step, beta powers) must be part
of the captured graph, not run once at trace time."""
import numpy as np
import pytest

import capture
import runtime as ms
from runtime import Tensor, nn


@pytest.mark.parametrize("make_opt", [
    lambda ps: nn.SGD(ps, 0.1, momentum=0.9),
    lambda ps: nn.Momentum(ps, 0.1, 0.9),
    lambda ps: nn.Adam(ps, 0.01),
])
def test_optimizer_state_matches_pynative_in_graph_mode(make_opt):
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        capture.reset()
        ms.set_seed(3)
        net = nn.Dense(3, 2)
        opt = make_opt(net.trainable_params())
        grads = (Tensor(np.full((2, 3), 0.5, np.float32)), Tensor(np.ones(2, np.float32)))
        ms.set_context(mode=mode)
        try:
            for _ in range(5):
                opt(grads)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        results[mode] = {name: p.asnumpy().copy() for name, p in opt.parameters_dict().items()}
    eager, graph = results[ms.PYNATIVE_MODE], results[ms.GRAPH_MODE]
    assert eager.keys() == graph.keys()
    assert int(eager[[k for k in eager if k.endswith("global_step")][0]].reshape(-1)[0]) == 5
    for k in eager:
        np.testing.assert_allclose(graph[k], eager[k], rtol=1e-6, err_msg=k)
