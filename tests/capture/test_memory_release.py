"""Compiled code is freed with what it was compiled for (issue 11 item 5): execution engines,
buffers and cache entries go when their Cell or jitted closure dies and on ``capture.reset()``;
memory stays flat over many model re-creations."""
import gc
import os

import numpy as np

import capture
import runtime as ms
from codegen.cpu import compiler
from runtime import Tensor, nn, ops


def _collect():
    """Collect until nothing more is freed: a Cell in a reference cycle dies in one collection,
    its finalizer drops its entries there, and their own cycles (a runner's bound methods) go in
    the next one."""
    for _ in range(5):
        if not gc.collect():
            break


def _entries():
    return sum(len(c.entries) for c in capture.cache._CACHES.values())


def _rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


class Net(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Dense(n, 8)

    def construct(self, x):
        return ops.relu(self.fc(x)) * 2


def test_models_created_and_dropped_release_their_compiled_code():
    ms.set_context(mode=ms.GRAPH_MODE)
    capture.reset()
    gc.collect()
    base_libs, base_entries = compiler.live_libraries(), _entries()
    for i in range(60):
        n = 4 + i % 20  # different shapes: different kernels
        net = Net(n)
        net(Tensor(np.ones((2, n), np.float32)))
        assert compiler.live_libraries() > base_libs
        del net
    _collect()
    assert compiler.live_libraries() == base_libs and _entries() == base_entries


def test_dropped_jitted_closures_release_their_entries_and_what_they_capture():
    def make_step(net, big):
        @ms.jit
        def step(x):
            return net(x) + big.sum()
        return step

    gc.collect()
    base, base_entries = compiler.live_libraries(), _entries()
    rss = []
    for rnd in range(4):
        for _ in range(25):
            step = make_step(nn.Dense(16, 16), Tensor(np.ones((512, 512), np.float32)))  # 1 MiB captured
            step(Tensor(np.ones((2, 16), np.float32)))
            del step
        gc.collect()
        assert compiler.live_libraries() == base and _entries() == base_entries
        rss.append(_rss_mib())
    assert rss[-1] - rss[0] < 20, rss  # kept closures would hold 25 MiB per round


def test_reset_releases_every_engine():
    capture.reset()
    gc.collect()
    base = compiler.live_libraries()
    f = ms.jit(lambda x: ops.tanh(x) * 3)
    for b in range(1, 6):
        f(Tensor(np.ones((b, 3), np.float32)))
    assert compiler.live_libraries() > base
    capture.reset()
    gc.collect()
    assert compiler.live_libraries() == base and _entries() == 0
