"""nn.Transformer / TransformerEncoder(Layer) / TransformerDecoder(Layer) with MindSpore's arguments,
against torch.nn's given the same weights (skipped without torch), and in PyNative, jit and
GRAPH_MODE against PyNative; masks, batch_first, norm_first, activations, gradients."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn
from modes import MODES, run_cell

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
D, H, FF = 8, 2, 16


def _copy_weights(ours, theirs):
    """Load torch's parameters into ours (LayerNorm weight/bias are MindSpore's gamma/beta)."""
    mine = dict(ours.parameters_and_names())
    for name, p in theirs.named_parameters():
        key = name.replace("norm1.weight", "norm1.gamma").replace("norm1.bias", "norm1.beta")
        for k in ("norm", "norm1", "norm2", "norm3"):
            if name.endswith(f"{k}.weight"):
                key = name[: -len("weight")] + "gamma"
            elif name.endswith(f"{k}.bias"):
                key = name[: -len("bias")] + "beta"
        assert key in mine, (name, sorted(mine)[:8])
        mine[key].set_data(Tensor(p.detach().numpy().copy()))
    assert len(mine) == len(list(theirs.parameters()))


def _t(a):
    return torch.tensor(a)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_equals_torch(batch_first, norm_first, activation):
    ours = nn.TransformerEncoderLayer(D, H, FF, dropout=0.1, activation=activation, batch_first=batch_first,
                                      norm_first=norm_first)
    theirs = torch.nn.TransformerEncoderLayer(D, H, FF, dropout=0.1, activation=activation, batch_first=batch_first,
                                              norm_first=norm_first)
    _copy_weights(ours, theirs)
    ours.set_train(False)
    theirs.eval()
    x = RNG.standard_normal((3, 5, D) if batch_first else (5, 3, D)).astype(np.float32)
    pad = np.zeros((3, 5), bool)
    pad[1, 3:] = True
    causal = np.triu(np.ones((5, 5), bool), 1)
    with torch.no_grad():
        want = theirs(_t(x), src_mask=_t(causal), src_key_padding_mask=_t(pad)).numpy()
    got = ours(Tensor(x), src_mask=Tensor(causal), src_key_padding_mask=Tensor(pad)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("norm_first", [False, True])
def test_full_transformer_equals_torch(norm_first):
    ours = nn.Transformer(D, H, 2, 2, FF, dropout=0.0, norm_first=norm_first, batch_first=True)
    theirs = torch.nn.Transformer(D, H, 2, 2, FF, dropout=0.0, norm_first=norm_first, batch_first=True)
    _copy_weights(ours, theirs)
    ours.set_train(False)
    theirs.eval()
    src = RNG.standard_normal((2, 6, D)).astype(np.float32)
    tgt = RNG.standard_normal((2, 4, D)).astype(np.float32)
    tgt_mask = np.triu(np.full((4, 4), -np.inf, np.float32), 1)  # a float (additive) mask
    mem_pad = np.zeros((2, 6), bool)
    mem_pad[0, 5] = True
    with torch.no_grad():
        want = theirs(_t(src), _t(tgt), tgt_mask=_t(tgt_mask), memory_key_padding_mask=_t(mem_pad)).numpy()
    got = ours(Tensor(src), Tensor(tgt), tgt_mask=Tensor(tgt_mask), memory_key_padding_mask=Tensor(mem_pad))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_decoder_in_every_mode_equals_pynative(mode):
    layer = nn.TransformerDecoderLayer(D, H, FF, dropout=0.0)
    dec = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm((D,)))
    dec.set_train(False)
    tgt = Tensor(RNG.standard_normal((4, 2, D)).astype(np.float32))
    mem = Tensor(RNG.standard_normal((6, 2, D)).astype(np.float32))
    want = dec(tgt, mem).asnumpy()
    got = run_cell(mode, dec, tgt, mem).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_clones_are_independent_and_gradients_flow():
    layer = nn.TransformerEncoderLayer(D, H, FF, dropout=0.0)
    enc = nn.TransformerEncoder(layer, 3)
    names = [n for n, _ in enc.parameters_and_names()]
    assert len(names) == len(set(names)) == 3 * len(list(layer.get_parameters()))
    w0 = enc.layers[0].linear1.weight
    assert w0 is not enc.layers[1].linear1.weight and np.array_equal(w0.asnumpy(), enc.layers[1].linear1.weight.asnumpy())
    x = Tensor(RNG.standard_normal((4, 2, D)).astype(np.float32))
    grads = ms.value_and_grad(lambda t: (enc(t) ** 2).sum(), None, enc.trainable_params())(x)[1]
    assert len(grads) == len(names) and all(np.isfinite(g.asnumpy()).all() for g in grads)
    assert np.abs(grads[0].asnumpy()).sum() > 0


def test_argument_errors():
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(D, H, activation="swish")
    with pytest.raises(ValueError, match="divisible"):
        nn.TransformerEncoderLayer(D, 3)
    with pytest.raises(ValueError, match="dropout"):
        nn.TransformerDecoderLayer(D, H, dropout=1.5)
    t = nn.Transformer(D, H, 1, 1, FF)
    with pytest.raises(ValueError, match="batch number"):
        t(Tensor(np.zeros((3, 2, D), np.float32)), Tensor(np.zeros((3, 4, D), np.float32)))
