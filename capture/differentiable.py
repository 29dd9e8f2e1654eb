"""A captured region called under ``grad``: one node on the eager tape with a compiled backward.

The region's graph is split once (``graph.partition.split_for_training``) into a forward graph that
also returns the activations the backward needs, and a backward graph. Calling the region runs the
forward; the tape records one entry whose VJP runs the backward graph. Under nested tapes
(higher-order gradients) the caller replays the ops eagerly instead, so the backward itself is
differentiable.
"""
from __future__ import annotations

from graph.partition import split_for_training
from runtime import tape as _tape
from runtime.tensor import Tensor

from .runner import apply_updates


class CompiledRegion:
    """Tape-entry op whose VJP is the compiled backward graph of one call."""

    name = "compiled_region"

    def __init__(self, split, backward, saved):
        self.split = split
        self.backward = backward
        self.saved = saved

    def vjp(self, g, out, *inputs):
        gs = g if isinstance(g, tuple) else (g,)
        sp = self.split
        arrays = list(self.saved) + [inputs[i]._data for i in sp.read_inputs] + \
            [gs[i]._data for i in sp.diff_outputs]
        grads, _ = self.backward(arrays)
        result = [None] * len(inputs)
        for i, ga in zip(sp.wrt, grads):
            if i not in sp.unconnected:  # as on the eager tape: an input the outputs do not reach gets None
                result[i] = Tensor._wrap(ga)
        return tuple(result)


def training_runners(entry, backend_factory):
    """(split, forward runner, backward runner) for an entry, built once and cached on it."""
    cached = getattr(entry, "training", None)
    if cached is None:
        split = split_for_training(entry.graph)
        cached = (split, backend_factory(split.forward), backend_factory(split.backward))
        entry.training = cached
    return cached


def run_differentiable(entry, arrays, tensors, backend_factory):
    """Run the region's forward and record one tape entry; returns the output Tensors."""
    split, forward, backward = training_runners(entry, backend_factory)
    results, updates = forward(arrays)
    if updates:
        apply_updates(tensors, updates)  # (all or none: not interruptible half-way)
    outs = tuple(Tensor._wrap(o) for o in results[:split.n_outputs])
    op = CompiledRegion(split, backward, results[split.n_outputs:])
    inputs = tuple(tensors)
    for tp in _tape.ACTIVE:
        tp.record(op, inputs, {}, outs)
    return list(outs)
