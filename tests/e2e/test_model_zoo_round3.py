"""Model-zoo style programs (round 3), written the way MindSpore's model zoo and tutorials write them:
``nn.Cell`` subclasses whose ``construct`` uses Python control flow, ``ops.*`` and Tensor methods, trained
with ``nn.TrainOneStepCell`` or ``value_and_grad`` + an optimizer.

Each model trains for a few steps three ways from identical weights and data:

* PyNative (the oracle for the other two),
* ``GRAPH_MODE`` (``ms.set_context(mode=ms.GRAPH_MODE)``: every ``Cell.construct`` is captured),
* PyNative with the user's train step wrapped in ``ms.jit`` (the whole step is one captured frame),

and the losses and every updated parameter (and BatchNorm buffer) must agree (rtol 1e-5); the graph and
jit runs must really have run compiled graphs (``capture.explain.recording``), with exactly the graph
breaks the model needs. For ViT, BERT, the GRU seq2seq and the UNet a PyTorch twin built from the same
initial weights (functional torch code, torch's own kernels and autograd) is the independent oracle for
the PyNative numbers; the DCGAN written as the tutorial's cells is checked against the DCGAN written with
value_and_grad; greedy decoding against a numpy decoder.

Models: 1 ViT-tiny, 2 BERT-tiny with a padding mask, 3 GRU/LSTM seq2seq with teacher forcing and greedy
decoding, 4 UNet with BatchNorm in train mode, 5 DCGAN (two nets, two optimizers, stop_gradient),
6 VAE with the reparameterisation trick; then more model-zoo idioms (see the section below).
"""
import numpy as np
import pytest

import runtime as ms
from capture.explain import recording
from runtime import Parameter, Tensor, nn, ops

MODES = ("pynative", "graph", "jit")
RTOL, ATOL = 1e-5, 1e-6


# ---------------------------------------------------------------------------------------------------------
# harness
# ---------------------------------------------------------------------------------------------------------
def _all_state(cells):
    """name -> numpy copy of every Parameter (trainable or buffer) of the given cells."""
    out = {}
    for tag, cell in cells.items():
        for name, p in cell.parameters_and_names():
            out[f"{tag}.{name}"] = p.asnumpy().copy()
    return out


def _train(build, mode, steps, breaks=0, compiled=("graph", "jit")):
    """Build the program with a fixed seed, run ``steps`` train steps in ``mode``; losses and final state.

    ``build()`` returns (step_fn, batches, cells): ``step_fn(*batch)`` is the user's train step returning
    its loss (or a tuple of losses), ``cells`` the dict of networks whose parameters are compared."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(1)
    np.random.seed(1)
    step, batches, cells = build()
    initial = _all_state(cells)
    if mode == "jit":
        step = ms.jit(step)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    losses = []
    try:
        with recording() as report:
            for i in range(steps):
                out = step(*batches[i % len(batches)])
                out = out if isinstance(out, tuple) else (out,)
                losses.append([float(o.asnumpy()) for o in out])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    if mode != "pynative":
        # the step really ran as compiled graphs, with only the graph breaks the model must have
        assert report.graph_break_count == breaks, str(report)
        if mode in compiled:
            assert report.compiled_calls >= steps, str(report)
    else:
        assert report.compiled_calls == 0
    return np.array(losses), initial, _all_state(cells)


_PYNATIVE_RUNS = {}


def _pynative_run(build, steps):
    """PyNative's run, computed once per (model, steps): the mode test and the torch test share it."""
    key = (build.__name__, steps)
    if key not in _PYNATIVE_RUNS:
        _PYNATIVE_RUNS[key] = _train(build, "pynative", steps)
    return _PYNATIVE_RUNS[key]


def _check_modes(build, steps=3, rtol=RTOL, atol=ATOL, breaks=0, compiled=("graph", "jit")):
    """Train in every mode; assert graph and jit equal PyNative; return PyNative's (losses, init, final).
    ``breaks``: the graph breaks the model must have; ``compiled``: the modes that must run compiled graphs."""
    runs = {m: _train(build, m, steps, breaks, compiled) for m in MODES if m != "pynative"}
    runs["pynative"] = _pynative_run(build, steps)
    ref_losses, ref_init, ref_final = runs["pynative"]
    assert np.all(np.isfinite(ref_losses))
    for m in ("graph", "jit"):
        losses, init, final = runs[m]
        for k in ref_init:  # same seed -> the same initial weights: the comparison starts from one point
            np.testing.assert_array_equal(init[k], ref_init[k], err_msg=k)
        np.testing.assert_allclose(losses, ref_losses, rtol=rtol, atol=atol, err_msg=f"{m} losses")
        for k in ref_final:
            np.testing.assert_allclose(final[k], ref_final[k], rtol=rtol, atol=atol, err_msg=f"{m}: {k}")
    # the parameters did move: the comparison is not between untouched copies
    moved = [k for k in ref_final if not np.array_equal(ref_final[k], ref_init[k])]
    assert moved
    return runs["pynative"]


def _torch_params(state, prefix):
    """The initial weights of one network as torch leaves needing grad (names without the prefix)."""
    import torch
    return {k[len(prefix) + 1:]: torch.tensor(v, requires_grad=True)
            for k, v in state.items() if k.startswith(prefix + ".")}


def _torch_momentum_train(params, loss_fn, batches, steps, lr, momentum, trainable=None):
    """torch.optim.SGD(momentum) == nn.Momentum (v = m*v + g; p -= lr*v) over ``steps`` batches."""
    import torch
    trainable = trainable if trainable is not None else list(params.values())
    opt = torch.optim.SGD(trainable, lr=lr, momentum=momentum)
    losses = []
    for i in range(steps):
        opt.zero_grad()
        loss = loss_fn(params, *[torch.from_numpy(b.asnumpy()) for b in batches[i % len(batches)]])
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return np.array(losses), {k: v.detach().numpy() for k, v in params.items()}


def _compare_with_torch(ref, torch_losses, torch_state, prefix, rtol=1e-4, atol=1e-5):
    losses, _, final = ref
    np.testing.assert_allclose(losses[:, 0], torch_losses, rtol=rtol, atol=atol)
    for k, v in torch_state.items():
        np.testing.assert_allclose(final[f"{prefix}.{k}"], v, rtol=rtol, atol=atol, err_msg=k)


def _no_breaks(fn, *args):
    """capture.explain(fn)(*args): the graph count and that no break happened (run in GRAPH_MODE)."""
    import capture
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        report = capture.explain(fn)(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert report.graph_break_count == 0, str(report)
    return report


# ---------------------------------------------------------------------------------------------------------
# 1. ViT-tiny (MindSpore's ViT tutorial: patch embedding by Conv2d, cls token tiled and concatenated,
#    learned position embedding, pre-norm blocks, hand-written attention with BatchMatMul)
# ---------------------------------------------------------------------------------------------------------
class PatchEmbedding(nn.Cell):
    MIN_NUM_PATCHES = 4

    def __init__(self, image_size=32, patch_size=8, embed_dim=16, input_channels=3):
        super().__init__()
        self.image_size = image_size
        self.patch_size = patch_size
        self.num_patches = (image_size // patch_size) ** 2
        self.conv = nn.Conv2d(input_channels, embed_dim, kernel_size=patch_size, stride=patch_size,
                              has_bias=True)

    def construct(self, x):
        x = self.conv(x)
        b, c, h, w = x.shape
        x = ops.reshape(x, (b, c, h * w))
        x = ops.transpose(x, (0, 2, 1))
        return x


class Attention(nn.Cell):
    def __init__(self, dim, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = Tensor(head_dim ** -0.5, ms.float32)
        self.qkv = nn.Dense(dim, dim * 3)
        self.out = nn.Dense(dim, dim)
        self.softmax = nn.Softmax(axis=-1)
        self.q_matmul_k = ops.BatchMatMul(transpose_b=True)
        self.attn_matmul_v = ops.BatchMatMul()

    def construct(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x)
        qkv = ops.reshape(qkv, (b, n, 3, self.num_heads, c // self.num_heads))
        qkv = ops.transpose(qkv, (2, 0, 3, 1, 4))
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = self.q_matmul_k(q, k) * self.scale
        attn = self.softmax(attn)
        out = self.attn_matmul_v(attn, v)
        out = ops.transpose(out, (0, 2, 1, 3))
        out = ops.reshape(out, (b, n, c))
        return self.out(out)


class FeedForward(nn.Cell):
    def __init__(self, in_features, hidden_features):
        super().__init__()
        self.dense1 = nn.Dense(in_features, hidden_features)
        self.activation = nn.GELU(approximate=False)
        self.dense2 = nn.Dense(hidden_features, in_features)

    def construct(self, x):
        return self.dense2(self.activation(self.dense1(x)))


class ResidualCell(nn.Cell):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def construct(self, x):
        return self.cell(x) + x


class TransformerEncoder(nn.Cell):
    def __init__(self, dim, num_layers, num_heads, mlp_dim):
        super().__init__()
        layers = []
        for _ in range(num_layers):
            normalization1 = nn.LayerNorm((dim,), epsilon=1e-6)
            normalization2 = nn.LayerNorm((dim,), epsilon=1e-6)
            attention = Attention(dim, num_heads)
            feedforward = FeedForward(dim, mlp_dim)
            layers.append(nn.SequentialCell([
                ResidualCell(nn.SequentialCell([normalization1, attention])),
                ResidualCell(nn.SequentialCell([normalization2, feedforward])),
            ]))
        self.layers = nn.SequentialCell(layers)

    def construct(self, x):
        return self.layers(x)


class ViT(nn.Cell):
    def __init__(self, image_size=32, input_channels=3, patch_size=8, embed_dim=16, num_layers=2,
                 num_heads=2, mlp_dim=32, num_classes=5):
        super().__init__()
        self.patch_embedding = PatchEmbedding(image_size, patch_size, embed_dim, input_channels)
        num_patches = self.patch_embedding.num_patches
        self.cls_token = Parameter(Tensor(np.random.normal(0, 1.0, (1, 1, embed_dim)).astype(np.float32)),
                                   name="cls", requires_grad=True)
        self.pos_embedding = Parameter(
            Tensor(np.random.normal(0, 0.2, (1, num_patches + 1, embed_dim)).astype(np.float32)),
            name="pos_embedding", requires_grad=True)
        self.transformer = TransformerEncoder(embed_dim, num_layers, num_heads, mlp_dim)
        self.norm = nn.LayerNorm((embed_dim,), epsilon=1e-6)
        self.head = nn.Dense(embed_dim, num_classes)

    def construct(self, x):
        x = self.patch_embedding(x)
        cls_tokens = ops.tile(self.cls_token.astype(x.dtype), (x.shape[0], 1, 1))
        x = ops.concat((cls_tokens, x), axis=1)
        x += self.pos_embedding
        x = self.transformer(x)
        x = self.norm(x)
        x = x[:, 0]
        return self.head(x)


def _build_vit():
    net = ViT()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)

    def forward_fn(data, label):
        logits = net(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    net.set_train()
    batches = [(Tensor(np.random.randn(4, 3, 32, 32).astype(np.float32)),
                Tensor(np.random.randint(0, 5, (4,)).astype(np.int32))) for _ in range(2)]
    return train_step, batches, {"net": net}


def _torch_vit_loss(p, x, y):
    import torch
    import torch.nn.functional as F
    x = F.conv2d(x, p["patch_embedding.conv.weight"], p["patch_embedding.conv.bias"], stride=8)
    b, c, h, w = x.shape
    x = x.reshape(b, c, h * w).transpose(1, 2)
    x = torch.cat([p["cls_token"].expand(b, 1, c), x], 1) + p["pos_embedding"]
    for i in range(2):
        pre = f"transformer.layers.{i}."
        a = pre + "0.cell."
        hdn = F.layer_norm(x, (c,), p[a + "0.gamma"], p[a + "0.beta"], 1e-6)
        n = hdn.shape[1]
        qkv = F.linear(hdn, p[a + "1.qkv.weight"], p[a + "1.qkv.bias"]).reshape(b, n, 3, 2, c // 2)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) * (c // 2) ** -0.5, -1)
        o = (att @ v).transpose(1, 2).reshape(b, n, c)
        x = x + F.linear(o, p[a + "1.out.weight"], p[a + "1.out.bias"])
        f = pre + "1.cell."
        hdn = F.layer_norm(x, (c,), p[f + "0.gamma"], p[f + "0.beta"], 1e-6)
        hdn = F.gelu(F.linear(hdn, p[f + "1.dense1.weight"], p[f + "1.dense1.bias"]))
        x = x + F.linear(hdn, p[f + "1.dense2.weight"], p[f + "1.dense2.bias"])
    x = F.layer_norm(x, (c,), p["norm.gamma"], p["norm.beta"], 1e-6)[:, 0]
    return F.cross_entropy(F.linear(x, p["head.weight"], p["head.bias"]), y.long())


def _batches_of(build):
    ms.set_seed(1)
    np.random.seed(1)
    return build()[1]


def test_vit_tiny_three_modes():
    _check_modes(_build_vit, steps=4)


def test_vit_tiny_matches_torch():
    pytest.importorskip("torch")
    ref = _pynative_run(_build_vit, 4)
    _, init, _ = ref
    batches = _batches_of(_build_vit)
    losses, state = _torch_momentum_train(_torch_params(init, "net"), _torch_vit_loss, batches, 4, 0.05, 0.9)
    _compare_with_torch(ref, losses, state, "net")


def test_vit_forward_is_one_graph():
    ms.set_seed(1)
    np.random.seed(1)
    step, batches, cells = _build_vit()
    report = _no_breaks(cells["net"], batches[0][0])
    assert report.graph_count >= 1


# ---------------------------------------------------------------------------------------------------------
# 2. BERT-tiny (model zoo's BertModel: word + position + token_type embeddings, post-norm encoder layers,
#    an attention mask from the padding, [CLS] pooler), trained with WithLoss + nn.TrainOneStepCell
# ---------------------------------------------------------------------------------------------------------
PAD_ID = 0


class BertEmbeddings(nn.Cell):
    def __init__(self, vocab_size, hidden_size, max_position, type_vocab_size=2):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(max_position, hidden_size)
        self.token_type_embeddings = nn.Embedding(type_vocab_size, hidden_size)
        self.layernorm = nn.LayerNorm((hidden_size,), epsilon=1e-12)

    def construct(self, input_ids, token_type_ids):
        seq_length = input_ids.shape[1]
        position_ids = ops.expand_dims(ops.arange(seq_length), 0)
        words = self.word_embeddings(input_ids)
        positions = self.position_embeddings(position_ids)
        token_types = self.token_type_embeddings(token_type_ids)
        return self.layernorm(words + positions + token_types)


class BertSelfAttention(nn.Cell):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_size = hidden_size // num_heads
        self.query = nn.Dense(hidden_size, hidden_size)
        self.key = nn.Dense(hidden_size, hidden_size)
        self.value = nn.Dense(hidden_size, hidden_size)
        self.output = nn.Dense(hidden_size, hidden_size)
        self.layernorm = nn.LayerNorm((hidden_size,), epsilon=1e-12)

    def split_heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.num_heads, self.head_size).transpose(0, 2, 1, 3)

    def construct(self, hidden, attention_mask):
        q = self.split_heads(self.query(hidden))
        k = self.split_heads(self.key(hidden))
        v = self.split_heads(self.value(hidden))
        scores = ops.matmul(q, k.swapaxes(-1, -2)) / ops.sqrt(ops.scalar_to_tensor(self.head_size, ms.float32))
        # (B, S) padding mask -> (B, 1, 1, S): a padded key is masked for every query and head
        mask = ops.expand_dims(ops.expand_dims(attention_mask, 1), 1)
        scores = scores.masked_fill(mask == 0, -1e9)
        probs = ops.softmax(scores, axis=-1)
        context = ops.matmul(probs, v).transpose(0, 2, 1, 3)
        b, s = context.shape[0], context.shape[1]
        context = context.reshape(b, s, -1)
        return self.layernorm(hidden + self.output(context))


class BertLayer(nn.Cell):
    def __init__(self, hidden_size, num_heads, intermediate_size):
        super().__init__()
        self.attention = BertSelfAttention(hidden_size, num_heads)
        self.intermediate = nn.Dense(hidden_size, intermediate_size, activation=nn.GELU(approximate=False))
        self.output = nn.Dense(intermediate_size, hidden_size)
        self.layernorm = nn.LayerNorm((hidden_size,), epsilon=1e-12)

    def construct(self, hidden, attention_mask):
        attention_output = self.attention(hidden, attention_mask)
        return self.layernorm(attention_output + self.output(self.intermediate(attention_output)))


class BertTiny(nn.Cell):
    def __init__(self, vocab_size=30, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=32,
                 max_position=16, num_labels=3):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab_size, hidden_size, max_position)
        self.layers = nn.CellList([BertLayer(hidden_size, num_heads, intermediate_size)
                                   for _ in range(num_layers)])
        self.pooler = nn.Dense(hidden_size, hidden_size, activation="tanh")
        self.classifier = nn.Dense(hidden_size, num_labels)

    def construct(self, input_ids, token_type_ids):
        attention_mask = ops.cast(input_ids != PAD_ID, ms.int32)
        hidden = self.embeddings(input_ids, token_type_ids)
        for layer in self.layers:
            hidden = layer(hidden, attention_mask)
        pooled = self.pooler(hidden[:, 0])          # the [CLS] token
        return self.classifier(pooled)


class BertWithLoss(nn.Cell):
    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss = nn.CrossEntropyLoss()

    def construct(self, input_ids, token_type_ids, labels):
        return self.loss(self.network(input_ids, token_type_ids), labels)


def _bert_batch(batch=4, seq=8, vocab=30):
    ids = np.random.randint(2, vocab, (batch, seq)).astype(np.int32)
    ids[:, 0] = 1                                    # [CLS]
    lengths = np.random.randint(3, seq + 1, batch)
    types = np.zeros((batch, seq), np.int32)
    for i, n in enumerate(lengths):
        ids[i, n:] = PAD_ID
        types[i, n // 2:n] = 1
    labels = np.random.randint(0, 3, batch).astype(np.int32)
    return Tensor(ids), Tensor(types), Tensor(labels)


def _build_bert():
    net = BertTiny()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    train_net = nn.TrainOneStepCell(BertWithLoss(net), optimizer)
    train_net.set_train()
    batches = [_bert_batch() for _ in range(2)]
    return train_net, batches, {"net": net}


def _torch_bert_loss(p, ids, types, labels):
    import torch
    import torch.nn.functional as F
    ids, types = ids.long(), types.long()
    s = ids.shape[1]
    h = p["embeddings.word_embeddings.embedding_table"][ids] + \
        p["embeddings.position_embeddings.embedding_table"][torch.arange(s)][None] + \
        p["embeddings.token_type_embeddings.embedding_table"][types]
    h = F.layer_norm(h, (16,), p["embeddings.layernorm.gamma"], p["embeddings.layernorm.beta"], 1e-12)
    pad = (ids == PAD_ID)[:, None, None, :]
    for i in range(2):
        a = f"layers.{i}.attention."
        lin = lambda x, n: F.linear(x, p[n + ".weight"], p[n + ".bias"])
        heads = lambda x: x.view(x.shape[0], s, 2, 8).transpose(1, 2)
        q, k, v = heads(lin(h, a + "query")), heads(lin(h, a + "key")), heads(lin(h, a + "value"))
        scores = (q @ k.transpose(-1, -2) / np.sqrt(8.0)).masked_fill(pad, -1e9)
        ctx = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(h.shape[0], s, 16)
        att = F.layer_norm(h + lin(ctx, a + "output"), (16,), p[a + "layernorm.gamma"], p[a + "layernorm.beta"],
                           1e-12)
        ff = lin(F.gelu(lin(att, f"layers.{i}.intermediate")), f"layers.{i}.output")
        h = F.layer_norm(att + ff, (16,), p[f"layers.{i}.layernorm.gamma"], p[f"layers.{i}.layernorm.beta"], 1e-12)
    pooled = torch.tanh(F.linear(h[:, 0], p["pooler.weight"], p["pooler.bias"]))
    return F.cross_entropy(F.linear(pooled, p["classifier.weight"], p["classifier.bias"]), labels.long())


def test_bert_tiny_three_modes():
    _check_modes(_build_bert, steps=4)


def test_bert_tiny_matches_torch():
    pytest.importorskip("torch")
    ref = _pynative_run(_build_bert, 4)
    losses, state = _torch_momentum_train(_torch_params(ref[1], "net"), _torch_bert_loss, _batches_of(_build_bert),
                                          4, 0.1, 0.9)
    _compare_with_torch(ref, losses, state, "net")


def test_bert_padding_mask_is_respected():
    """The padded positions cannot change the [CLS] logits (the mask is -1e9 before the softmax)."""
    ms.set_seed(1)
    np.random.seed(1)
    net = BertTiny()
    net.set_train(False)
    ids, types, _ = _bert_batch()
    ids_np = ids.asnumpy()
    assert (ids_np == PAD_ID).any()
    types_np = types.asnumpy().copy()
    types_np[ids_np == PAD_ID] = 1                 # the padded positions' embeddings change
    outs = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        try:
            outs.append((net(ids, types).asnumpy(), net(ids, Tensor(types_np)).asnumpy()))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in outs:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------------------------------------------------
# 3. Seq2seq: an LSTMCell encoder and a GRUCell decoder unrolled by Python for-loops over time steps,
#    teacher forcing in training, greedy decoding in eval mode
# ---------------------------------------------------------------------------------------------------------
BOS = 1


class Seq2Seq(nn.Cell):
    def __init__(self, vocab_size=12, embed_size=8, hidden_size=16, max_len=5):
        super().__init__()
        self.hidden_size = hidden_size
        self.max_len = max_len
        self.src_embedding = nn.Embedding(vocab_size, embed_size)
        self.tgt_embedding = nn.Embedding(vocab_size, embed_size)
        self.encoder = nn.LSTMCell(embed_size, hidden_size)
        self.decoder = nn.GRUCell(embed_size, hidden_size)
        self.projection = nn.Dense(hidden_size, vocab_size)

    def encode(self, src):
        batch, src_len = src.shape
        h = ops.zeros((batch, self.hidden_size), ms.float32)
        c = ops.zeros((batch, self.hidden_size), ms.float32)
        embedded = self.src_embedding(src)
        for t in range(src_len):
            h, c = self.encoder(embedded[:, t, :], (h, c))
        return h

    def construct(self, src, tgt_in):
        h = self.encode(src)
        if self.training:                           # teacher forcing: the decoder reads the true tokens
            logits = []
            for t in range(tgt_in.shape[1]):
                h = self.decoder(self.tgt_embedding(tgt_in[:, t]), h)
                logits.append(self.projection(h))
            return ops.stack(logits, axis=1)
        token = ops.fill(ms.int32, (src.shape[0],), BOS)
        outputs = []
        for _ in range(self.max_len):               # greedy: the decoder reads its own previous argmax
            h = self.decoder(self.tgt_embedding(token), h)
            token = ops.argmax(self.projection(h), dim=-1).astype(ms.int32)
            outputs.append(token)
        return ops.stack(outputs, axis=1)


def _seq2seq_batch(batch=4, src_len=6, tgt_len=5, vocab=12):
    src = np.random.randint(2, vocab, (batch, src_len)).astype(np.int32)
    tgt = src[:, ::-1][:, :tgt_len].copy()          # task: reverse the source
    tgt_in = np.concatenate([np.full((batch, 1), BOS, np.int32), tgt[:, :-1]], axis=1)
    return Tensor(src), Tensor(tgt_in), Tensor(tgt)


def _build_seq2seq():
    net = Seq2Seq()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.2, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def forward_fn(src, tgt_in, tgt):
        logits = net(src, tgt_in)
        return loss_fn(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(src, tgt_in, tgt):
        loss, grads = grad_fn(src, tgt_in, tgt)
        optimizer(grads)
        return loss

    net.set_train()
    return train_step, [_seq2seq_batch() for _ in range(2)], {"net": net}


def _torch_seq2seq_loss(p, src, tgt_in, tgt):
    import torch
    import torch.nn.functional as F
    src, tgt_in, tgt = src.long(), tgt_in.long(), tgt.long()
    emb = p["src_embedding.embedding_table"][src]
    h = c = torch.zeros(src.shape[0], 16)
    for t in range(src.shape[1]):
        h, c = torch._VF.lstm_cell(emb[:, t], (h, c), p["encoder.weight_ih"], p["encoder.weight_hh"],
                                   p["encoder.bias_ih"], p["encoder.bias_hh"])
    logits = []
    for t in range(tgt_in.shape[1]):
        h = torch._VF.gru_cell(p["tgt_embedding.embedding_table"][tgt_in[:, t]], h, p["decoder.weight_ih"],
                               p["decoder.weight_hh"], p["decoder.bias_ih"], p["decoder.bias_hh"])
        logits.append(F.linear(h, p["projection.weight"], p["projection.bias"]))
    logits = torch.stack(logits, 1)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))


def test_seq2seq_three_modes():
    _check_modes(_build_seq2seq, steps=4)


def test_seq2seq_matches_torch():
    pytest.importorskip("torch")
    ref = _pynative_run(_build_seq2seq, 4)
    losses, state = _torch_momentum_train(_torch_params(ref[1], "net"), _torch_seq2seq_loss,
                                          _batches_of(_build_seq2seq), 4, 0.2, 0.9)
    _compare_with_torch(ref, losses, state, "net")


def test_seq2seq_greedy_decoding_eval_mode():
    """Eval mode takes the greedy branch (self.training is a guarded constant): tokens equal in all modes,
    and equal a numpy greedy decoder over the same weights."""
    ms.set_seed(1)
    np.random.seed(1)
    step, batches, cells = _build_seq2seq()
    for i in range(3):
        step(*batches[i % 2])
    net = cells["net"]
    net.set_train(False)
    src = batches[0][0]
    decoded = {}
    for mode in MODES:
        fn = ms.jit(net.construct) if mode == "jit" else net
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        try:
            decoded[mode] = fn(src, batches[0][1]).asnumpy()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    p = {n: q.asnumpy() for n, q in net.parameters_and_names()}
    sig = lambda x: 1 / (1 + np.exp(-x))
    emb = p["src_embedding.embedding_table"][src.asnumpy()]
    h = c = np.zeros((4, 16), np.float32)
    for t in range(emb.shape[1]):
        g = emb[:, t] @ p["encoder.weight_ih"].T + p["encoder.bias_ih"] + h @ p["encoder.weight_hh"].T + \
            p["encoder.bias_hh"]
        i_, f_, g_, o_ = np.split(g, 4, axis=1)
        c = sig(f_) * c + sig(i_) * np.tanh(g_)
        h = sig(o_) * np.tanh(c)
    token = np.full(4, BOS)
    expected = []
    for _ in range(5):
        x = p["tgt_embedding.embedding_table"][token]
        gi = x @ p["decoder.weight_ih"].T + p["decoder.bias_ih"]
        gh = h @ p["decoder.weight_hh"].T + p["decoder.bias_hh"]
        r = sig(gi[:, :16] + gh[:, :16])
        z = sig(gi[:, 16:32] + gh[:, 16:32])
        n = np.tanh(gi[:, 32:] + r * gh[:, 32:])
        h = (1 - z) * n + z * h
        token = np.argmax(h @ p["projection.weight"].T + p["projection.bias"], -1)
        expected.append(token)
    expected = np.stack(expected, 1)
    for mode in MODES:
        np.testing.assert_array_equal(decoded[mode], expected, err_msg=mode)
    assert decoded["pynative"].shape == (4, 5)


# ---------------------------------------------------------------------------------------------------------
# 4. A small UNet: double convs with BatchNorm2d (train mode: batch statistics, moving averages updated),
#    MaxPool2d down, Conv2dTranspose and ResizeNearestNeighbor up, ops.concat skip connections
# ---------------------------------------------------------------------------------------------------------
class DoubleConv(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.double_conv = nn.SequentialCell(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, has_bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, has_bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )

    def construct(self, x):
        return self.double_conv(x)


class Down(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.SequentialCell(nn.MaxPool2d(kernel_size=2, stride=2), DoubleConv(in_channels,
                                                                                                 out_channels))

    def construct(self, x):
        return self.maxpool_conv(x)


class UpTranspose(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.up = nn.Conv2dTranspose(in_channels, in_channels // 2, kernel_size=2, stride=2, has_bias=True)
        self.conv = DoubleConv(in_channels, out_channels)

    def construct(self, x1, x2):
        x1 = self.up(x1)
        return self.conv(ops.concat((x2, x1), axis=1))


class UpResize(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = DoubleConv(in_channels, out_channels)

    def construct(self, x1, x2):
        _, _, h, w = x2.shape
        x1 = ops.ResizeNearestNeighbor((h, w))(x1)
        return self.conv(ops.concat((x2, x1), axis=1))


class UNet(nn.Cell):
    def __init__(self, n_channels=2, n_classes=1):
        super().__init__()
        self.inc = DoubleConv(n_channels, 4)
        self.down1 = Down(4, 8)
        self.down2 = Down(8, 8)
        self.up1 = UpResize(16, 8)
        self.up2 = UpTranspose(8, 4)
        self.outc = nn.Conv2d(4, n_classes, kernel_size=1, has_bias=True)

    def construct(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x = self.up1(x3, x2)
        x = self.up2(x, x1)
        return self.outc(x)


def _build_unet():
    net = UNet()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.BCEWithLogitsLoss()), optimizer)
    train_net.set_train()
    batches = []
    for _ in range(2):
        x = np.random.randn(2, 2, 16, 16).astype(np.float32)
        y = (x[:, :1] + x[:, 1:] > 0).astype(np.float32)
        batches.append((Tensor(x), Tensor(y)))
    return train_net, batches, {"net": net}


def _torch_unet_loss(p, x, y):
    import torch
    import torch.nn.functional as F

    def double(x, pre):
        for conv, bn in ((0, 1), (3, 4)):
            x = F.conv2d(x, p[f"{pre}.double_conv.{conv}.weight"], padding=1)
            x = F.batch_norm(x, p[f"{pre}.double_conv.{bn}.moving_mean"], p[f"{pre}.double_conv.{bn}.moving_variance"],
                             p[f"{pre}.double_conv.{bn}.gamma"], p[f"{pre}.double_conv.{bn}.beta"], training=True,
                             momentum=0.1, eps=1e-5)
            x = F.relu(x)
        return x
    x1 = double(x, "inc")
    x2 = double(F.max_pool2d(x1, 2, 2), "down1.maxpool_conv.1")
    x3 = double(F.max_pool2d(x2, 2, 2), "down2.maxpool_conv.1")
    u = F.interpolate(x3, size=x2.shape[-2:], mode="nearest")
    u = double(torch.cat([x2, u], 1), "up1.conv")
    u = F.conv_transpose2d(u, p["up2.up.weight"], p["up2.up.bias"], stride=2)
    u = double(torch.cat([x1, u], 1), "up2.conv")
    out = F.conv2d(u, p["outc.weight"], p["outc.bias"])
    return F.binary_cross_entropy_with_logits(out, y)


def test_unet_batchnorm_three_modes():
    _check_modes(_build_unet, steps=3)


def test_unet_matches_torch():
    import_torch = pytest.importorskip("torch")
    ref = _pynative_run(_build_unet, 3)
    params = _torch_params(ref[1], "net")
    buffers = [k for k in params if k.endswith(("moving_mean", "moving_variance"))]
    for k in buffers:                                       # running statistics are buffers, not leaves
        params[k] = import_torch.tensor(params[k].detach().numpy())
    trainable = [v for k, v in params.items() if k not in buffers]
    losses, state = _torch_momentum_train(params, _torch_unet_loss, _batches_of(_build_unet), 3, 0.1, 0.9,
                                          trainable=trainable)
    _compare_with_torch(ref, losses, state, "net")


# ---------------------------------------------------------------------------------------------------------
# 5. DCGAN: generator and discriminator, two Adam optimizers, alternating D and G steps in one train step,
#    the generator's output stopped (ops.stop_gradient) for the discriminator's step
# ---------------------------------------------------------------------------------------------------------
class Generator(nn.Cell):
    def __init__(self, latent=8, ngf=8):
        super().__init__()
        self.ngf = ngf
        self.fc = nn.Dense(latent, ngf * 2 * 4 * 4)
        self.generate = nn.SequentialCell(
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(),
            nn.Conv2dTranspose(ngf * 2, ngf, 4, 2, pad_mode="pad", padding=1),
            nn.BatchNorm2d(ngf),
            nn.ReLU(),
            nn.Conv2dTranspose(ngf, 1, 4, 2, pad_mode="pad", padding=1),
            nn.Tanh(),
        )

    def construct(self, z):
        x = self.fc(z).reshape(-1, self.ngf * 2, 4, 4)
        return self.generate(x)


class Discriminator(nn.Cell):
    def __init__(self, ndf=8):
        super().__init__()
        self.features = nn.SequentialCell(
            nn.Conv2d(1, ndf, 4, 2, pad_mode="pad", padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(ndf, ndf * 2, 4, 2, pad_mode="pad", padding=1),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2),
        )
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(ndf * 2 * 4 * 4, 1)

    def construct(self, x):
        return self.fc(self.flatten(self.features(x)))


def _build_gan():
    netG, netD = Generator(), Discriminator()
    optimizerG = nn.Adam(netG.trainable_params(), learning_rate=0.002, beta1=0.5)
    optimizerD = nn.Adam(netD.trainable_params(), learning_rate=0.002, beta1=0.5)
    adversarial_loss = nn.BCEWithLogitsLoss()

    def discriminator_forward(real, z):
        fake = ops.stop_gradient(netG(z))           # D's step must not reach G's parameters
        real_out = netD(real)
        fake_out = netD(fake)
        real_loss = adversarial_loss(real_out, ops.ones_like(real_out))
        fake_loss = adversarial_loss(fake_out, ops.zeros_like(fake_out))
        return real_loss + fake_loss

    def generator_forward(z):
        fake_out = netD(netG(z))
        return adversarial_loss(fake_out, ops.ones_like(fake_out))

    grad_d = ms.value_and_grad(discriminator_forward, None, optimizerD.parameters)
    grad_g = ms.value_and_grad(generator_forward, None, optimizerG.parameters)

    def train_step(real, z):
        d_loss, d_grads = grad_d(real, z)
        optimizerD(d_grads)
        g_loss, g_grads = grad_g(z)
        optimizerG(g_grads)
        return d_loss, g_loss

    netG.set_train()
    netD.set_train()
    batches = [(Tensor(np.tanh(np.random.randn(4, 1, 16, 16)).astype(np.float32)),
                Tensor(np.random.randn(4, 8).astype(np.float32))) for _ in range(2)]
    return train_step, batches, {"G": netG, "D": netD}


def test_dcgan_three_modes():
    losses, init, final = _check_modes(_build_gan, steps=3)
    assert losses.shape == (3, 2)


def test_dcgan_stop_gradient_keeps_generator_out_of_d_step():
    """A D step alone (value_and_grad over D's params with G's output stopped) leaves G's weights as they were
    and yields no gradient through the stopped fake images, in every mode."""
    for mode in MODES:
        ms.set_seed(1)
        np.random.seed(1)
        netG, netD = Generator(), Discriminator()
        netG.set_train()
        netD.set_train()
        loss_fn = nn.BCEWithLogitsLoss()

        def d_forward(real, z):
            fake = ops.stop_gradient(netG(z))
            out = netD(ops.concat((real, fake)))
            return loss_fn(out, ops.concat((ops.ones((4, 1)), ops.zeros((4, 1)))))

        params = netG.trainable_params()
        grad_all = ms.value_and_grad(d_forward, None, params)
        fn = ms.jit(grad_all) if mode == "jit" else grad_all
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        try:
            _, grads = fn(Tensor(np.random.randn(4, 1, 16, 16).astype(np.float32)),
                          Tensor(np.random.randn(4, 8).astype(np.float32)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        for g in grads:
            assert not np.any(g.asnumpy()), mode


# ---------------------------------------------------------------------------------------------------------
# 6. VAE: encoder to (mu, log_var), z = mu + exp(log_var / 2) * eps with eps from ops.standard_normal
#    inside construct, Bernoulli reconstruction loss plus the KL term
# ---------------------------------------------------------------------------------------------------------
class VAE(nn.Cell):
    def __init__(self, in_features=16, hidden=12, latent=4):
        super().__init__()
        self.latent = latent
        self.encoder = nn.Dense(in_features, hidden, activation="relu")
        self.fc_mu = nn.Dense(hidden, latent)
        self.fc_log_var = nn.Dense(hidden, latent)
        self.decoder = nn.SequentialCell(nn.Dense(latent, hidden, activation="relu"), nn.Dense(hidden, in_features))

    def reparameterize(self, mu, log_var):
        std = ops.exp(0.5 * log_var)
        eps = ops.standard_normal(mu.shape)
        return mu + eps * std

    def construct(self, x):
        h = self.encoder(x)
        mu, log_var = self.fc_mu(h), self.fc_log_var(h)
        z = self.reparameterize(mu, log_var)
        return self.decoder(z), mu, log_var


class VAELoss(nn.Cell):
    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self.network = network
        self.reconstruction = nn.BCEWithLogitsLoss(reduction="sum")

    def construct(self, x):
        logits, mu, log_var = self.network(x)
        kl = -0.5 * ops.sum(1 + log_var - mu.pow(2) - log_var.exp())
        return (self.reconstruction(logits, x) + kl) / x.shape[0]


def _build_vae():
    net = VAE()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)
    train_net = nn.TrainOneStepCell(VAELoss(net), optimizer)
    train_net.set_train()
    batches = [(Tensor((np.random.rand(8, 16) > 0.5).astype(np.float32)),) for _ in range(2)]
    return train_net, batches, {"net": net}


def test_vae_three_modes():
    _check_modes(_build_vae, steps=4)


def test_vae_noise_in_graph_mode_is_pynatives_stream():
    """ops.standard_normal inside a captured construct draws from the global generator seeded by ms.set_seed,
    as PyNative does: the same numbers for the same seed, new numbers on each call (not a constant baked into
    the graph), and the jitted function continues the stream exactly as eager calls would."""
    class Noise(nn.Cell):
        def construct(self, mu):
            return mu + ops.standard_normal(mu.shape)

    mu = ops.zeros((3, 4))
    draws = {}
    for mode in MODES:
        net = Noise()
        fn = ms.jit(net.construct) if mode == "jit" else net
        ms.set_seed(7)
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        try:
            draws[mode] = [fn(mu).asnumpy() for _ in range(3)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not np.array_equal(draws["pynative"][0], draws["pynative"][1])
    for mode in ("graph", "jit"):
        for a, b in zip(draws[mode], draws["pynative"]):
            np.testing.assert_array_equal(a, b, err_msg=mode)
    # and they are standard normal draws (a loose moment check over more samples)
    ms.set_seed(7)
    big = ops.standard_normal((20000,)).asnumpy()
    assert abs(big.mean()) < 0.03 and abs(big.std() - 1) < 0.03


class NoisyVAE(VAE):
    """The VAE with the noise drawn each of the ways MindSpore code draws it, and dropout on the mean."""

    def __init__(self, how):
        super().__init__()
        self.how = how
        self.normal = ops.StandardNormal(seed=2)
        self.dropout = nn.Dropout(p=0.2)

    def reparameterize(self, mu, log_var):
        std = ops.exp(0.5 * log_var)
        if self.how == "randn_like":
            eps = ops.randn_like(std)
        elif self.how == "primitive":
            eps = self.normal(mu.shape)
        elif self.how == "normal":
            eps = ops.normal(mu.shape, 0.0, 1.0)
        else:
            eps = ops.randn(*mu.shape)
        return self.dropout(mu) + eps * std


@pytest.mark.parametrize("how", ["randn_like", "primitive", "normal", "randn"])
def test_vae_noise_variants_and_dropout_three_modes(how):
    def build():
        net = NoisyVAE(how)
        train_net = nn.TrainOneStepCell(VAELoss(net), nn.Adam(net.trainable_params(), learning_rate=0.01))
        train_net.set_train()
        return train_net, [(Tensor((np.random.rand(8, 16) > 0.5).astype(np.float32)),) for _ in range(2)], \
            {"net": net}
    build.__name__ = f"_build_vae_{how}"
    _check_modes(build, steps=3)


# ---------------------------------------------------------------------------------------------------------
# more model-zoo idioms: ViT with nn.MultiheadAttention + Dropout + AdamWeightDecay + label smoothing,
# BERT's optimizer setup (grouped weight decay, warm-up + polynomial decay LR, dynamic loss scale),
# the DCGAN tutorial's WithLossCellD/G + two TrainOneStepCells inside one DCGAN cell, hand-written
# running-statistics Parameters updated with ops.assign, a bidirectional nn.LSTM with seq_length,
# a UNet up-step with bilinear interpolate and ops.pad to an odd size, a masked_select token loss
# ---------------------------------------------------------------------------------------------------------
class MhaBlock(nn.Cell):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.norm1 = nn.LayerNorm((d,), epsilon=1e-6)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.dropout = nn.Dropout(p=0.1)
        self.norm2 = nn.LayerNorm((d,), epsilon=1e-6)
        self.mlp = nn.SequentialCell(nn.Dense(d, 32), nn.GELU(), nn.Dropout(p=0.1), nn.Dense(32, d))

    def construct(self, x):
        h = self.norm1(x)
        attn_output, _ = self.attn(h, h, h, need_weights=False)
        x = x + self.dropout(attn_output)
        return x + self.mlp(self.norm2(x))


class ViTMha(nn.Cell):
    def __init__(self, d=16, num_patches=16, num_classes=5):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, d, 8, 8, has_bias=True, pad_mode="valid")
        self.cls_token = Parameter(ops.zeros((1, 1, d)), name="cls_token")
        self.pos_embed = Parameter(Tensor(np.random.normal(0, .02, (1, num_patches + 1, d)).astype(np.float32)),
                                   name="pos_embed")
        self.pos_drop = nn.Dropout(p=0.1)
        self.blocks = nn.CellList([MhaBlock(d) for _ in range(2)])
        self.head = nn.Dense(d, num_classes)

    def construct(self, x):
        x = self.patch_embed(x).flatten(start_dim=2).swapaxes(1, 2)
        cls_token = self.cls_token.broadcast_to((x.shape[0], -1, -1))
        x = self.pos_drop(ops.cat([cls_token, x], axis=1) + self.pos_embed)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x[:, 0])


def _build_vit_mha():
    net = ViTMha()
    optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3, weight_decay=0.05)
    train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss(label_smoothing=0.1)), optimizer)
    train_net.set_train()
    return train_net, [(Tensor(np.random.randn(4, 3, 32, 32).astype(np.float32)),
                        Tensor(np.random.randint(0, 5, (4,)).astype(np.int32))) for _ in range(2)], {"net": net}


def test_vit_multihead_attention_dropout_three_modes():
    # the key projection's bias has a zero gradient in exact arithmetic (softmax ignores a shift shared by a
    # row of scores): its computed gradient is rounding noise (~1e-8), which AdamWeightDecay's division by
    # sqrt(v) + eps turns into steps of up to ~1e-6 of either sign, differently in each mode's rounding
    _check_modes(_build_vit_mha, steps=3, atol=5e-6)


class BertLearningRate(nn.LearningRateSchedule):
    """The model zoo's BERT schedule: linear warm-up, then polynomial decay."""

    def __init__(self, learning_rate, end_learning_rate, warmup_steps, decay_steps, power):
        super().__init__()
        self.warmup_lr = nn.WarmUpLR(learning_rate, warmup_steps)
        self.decay_lr = nn.PolynomialDecayLR(learning_rate, end_learning_rate, decay_steps, power)
        self.warmup_steps = Tensor(np.array([warmup_steps]).astype(np.float32))
        self.greater = ops.Greater()
        self.one = Tensor(np.array([1.0]).astype(np.float32))
        self.cast = ops.Cast()

    def construct(self, global_step):
        decay_lr = self.decay_lr(global_step)
        is_warmup = self.cast(self.greater(self.warmup_steps, global_step), ms.float32)
        warmup_lr = self.warmup_lr(global_step)
        return (self.one - is_warmup) * decay_lr + is_warmup * warmup_lr


def _build_bert_zoo_optimizer():
    net = BertTiny()
    params = net.trainable_params()
    decay_params = list(filter(lambda x: "layernorm" not in x.name and "bias" not in x.name, params))
    other_params = list(filter(lambda x: "layernorm" in x.name or "bias" in x.name, params))
    group_params = [{"params": decay_params, "weight_decay": 0.01}, {"params": other_params, "weight_decay": 0.0},
                    {"order_params": params}]
    optimizer = nn.AdamWeightDecay(group_params, learning_rate=BertLearningRate(1e-2, 1e-4, 2, 10, 1.0), eps=1e-6)
    update_cell = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 16, scale_factor=2, scale_window=1000)
    train_net = nn.TrainOneStepWithLossScaleCell(BertWithLoss(net), optimizer, scale_sense=update_cell)
    train_net.set_train()
    return train_net, [_bert_batch() for _ in range(2)], {"net": net, "optimizer": optimizer}


def test_bert_zoo_optimizer_loss_scale_three_modes():
    # AdamWeightDecay divides each gradient element by sqrt(v) + eps: an element whose gradient is near
    # eps / sqrt(1 - beta2) (3e-5 here) turns the ~1e-7 rounding difference of the two modes' gradients
    # (both within float32 rounding of each other, relative to the largest gradient) into a ~1e-4 relative
    # difference of its step: the parameters are compared with an absolute 2e-5 (a step is lr * ~3 = 0.03)
    losses, _, final = _check_modes(_build_bert_zoo_optimizer, steps=3, atol=2e-5)
    assert losses.shape == (3, 3)                  # (loss, overflow, loss scale)
    assert not losses[:, 1].any() and (losses[:, 2] == 2.0 ** 16).all()
    assert final["optimizer.global_step"].item() == 3


class WithLossCellG(nn.Cell):
    def __init__(self, netD, netG, loss_fn):
        super().__init__(auto_prefix=True)
        self.netD = netD
        self.netG = netG
        self.loss_fn = loss_fn

    def construct(self, latent_code):
        fake_data = self.netG(latent_code)
        out = self.netD(fake_data)
        label_real = ops.OnesLike()(out)
        return self.loss_fn(out, label_real)


class WithLossCellD(nn.Cell):
    def __init__(self, netD, netG, loss_fn):
        super().__init__(auto_prefix=True)
        self.netD = netD
        self.netG = netG
        self.loss_fn = loss_fn

    def construct(self, real_data, latent_code):
        out_real = self.netD(real_data)
        label_real = ops.OnesLike()(out_real)
        loss_real = self.loss_fn(out_real, label_real)
        fake_data = self.netG(latent_code)
        fake_data = ops.stop_gradient(fake_data)
        out_fake = self.netD(fake_data)
        label_fake = ops.ZerosLike()(out_fake)
        loss_fake = self.loss_fn(out_fake, label_fake)
        return loss_real + loss_fake


class SigmoidDiscriminator(nn.Cell):
    def __init__(self, netD):
        super().__init__()
        self.netD = netD

    def construct(self, x):
        return ops.sigmoid(self.netD(x))


class DCGAN(nn.Cell):
    def __init__(self, myTrainOneStepCellForD, myTrainOneStepCellForG):
        super().__init__(auto_prefix=True)
        self.myTrainOneStepCellForD = myTrainOneStepCellForD
        self.myTrainOneStepCellForG = myTrainOneStepCellForG

    def construct(self, real_data, latent_code):
        output_D = self.myTrainOneStepCellForD(real_data, latent_code).view(-1)
        netD_loss = output_D.mean()
        output_G = self.myTrainOneStepCellForG(latent_code).view(-1)
        netG_loss = output_G.mean()
        return netD_loss, netG_loss


def _build_dcgan_tutorial():
    netG, netD = Generator(), Discriminator()
    netD_sigmoid = SigmoidDiscriminator(netD)
    loss = nn.BCELoss(reduction="mean")
    optimizerD = nn.Adam(netD.trainable_params(), learning_rate=0.002, beta1=0.5)
    optimizerG = nn.Adam(netG.trainable_params(), learning_rate=0.002, beta1=0.5)
    netD_with_criterion = WithLossCellD(netD_sigmoid, netG, loss)
    netG_with_criterion = WithLossCellG(netD_sigmoid, netG, loss)
    myTrainOneStepCellForD = nn.TrainOneStepCell(netD_with_criterion, optimizerD)
    myTrainOneStepCellForG = nn.TrainOneStepCell(netG_with_criterion, optimizerG)
    dcgan = DCGAN(myTrainOneStepCellForD, myTrainOneStepCellForG)
    dcgan.set_train()
    batches = [(Tensor(np.tanh(np.random.randn(4, 1, 16, 16)).astype(np.float32)),
                Tensor(np.random.randn(4, 8).astype(np.float32))) for _ in range(2)]
    return dcgan, batches, {"G": netG, "D": netD}


def test_dcgan_tutorial_cells_three_modes():
    losses, init, final = _check_modes(_build_dcgan_tutorial, steps=3)
    assert losses.shape == (3, 2)
    # the same GAN written the other way (value_and_grad + two optimizers, BCEWithLogits instead of BCELoss
    # after a sigmoid) from the same seed: the same weights, losses and updates, an oracle of another shape
    # (by position: the DCGAN cell's auto_prefix renames the shared networks' parameters)
    other_losses, other_init, other_final = _pynative_run(_build_gan, 3)
    assert len(init) == len(other_init)
    for (k, a), b in zip(init.items(), other_init.values()):
        np.testing.assert_array_equal(a, b, err_msg=k)
    np.testing.assert_allclose(losses, other_losses, rtol=1e-5, atol=1e-6)
    for (k, a), b in zip(final.items(), other_final.values()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=k)


class RunningCenter(nn.Cell):
    """Hand-written running statistics: Parameters with requires_grad=False updated with ops.assign in train
    mode (and a step counter with ops.assign_add), read instead of the batch statistics in eval mode."""

    def __init__(self, num_features, momentum=0.9):
        super().__init__()
        self.running_mean = Parameter(ops.zeros(num_features), name="running_mean", requires_grad=False)
        self.num_batches_tracked = Parameter(Tensor(0, ms.int32), name="num_batches_tracked", requires_grad=False)
        self.momentum = momentum

    def construct(self, x):
        if self.training:
            mean = x.mean(axis=0)
            ops.assign(self.running_mean,
                       self.momentum * self.running_mean + (1 - self.momentum) * ops.stop_gradient(mean))
            ops.assign_add(self.num_batches_tracked, Tensor(1, ms.int32))
        else:
            mean = self.running_mean
        return x - mean


class CenteredMLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.center = RunningCenter(8)
        self.fc2 = nn.Dense(8, 2)

    def construct(self, x):
        return self.fc2(ops.relu(self.center(self.fc1(x))))


def _build_running_buffers():
    net = CenteredMLP()
    train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    train_net.set_train()
    return train_net, [(Tensor(np.random.randn(5, 6).astype(np.float32)),
                        Tensor(np.random.randn(5, 2).astype(np.float32))) for _ in range(2)], {"net": net}


def test_parameter_buffers_updated_in_construct_three_modes():
    _, init, final = _check_modes(_build_running_buffers, steps=3)
    assert final["net.center.num_batches_tracked"] == 3
    assert not np.array_equal(final["net.center.running_mean"], init["net.center.running_mean"])


class BiLSTMClassifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(12, 8)
        self.lstm = nn.LSTM(8, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Dense(16, 3)

    def construct(self, x, lengths):
        _, (h, _) = self.lstm(self.embedding(x), seq_length=lengths)
        return self.fc(ops.concat((h[-2], h[-1]), axis=1))


class ClassifierWithLoss(nn.Cell):
    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss = nn.CrossEntropyLoss()

    def construct(self, x, lengths, labels):
        return self.loss(self.network(x, lengths), labels)


def _build_bilstm():
    net = BiLSTMClassifier()
    train_net = nn.TrainOneStepCell(ClassifierWithLoss(net), nn.Adam(net.trainable_params(), learning_rate=0.01))
    train_net.set_train()
    return train_net, [(Tensor(np.random.randint(1, 12, (4, 6)).astype(np.int32)), Tensor(np.array([6, 3, 5, 2],
                        np.int32)), Tensor(np.random.randint(0, 3, 4).astype(np.int32))) for _ in range(2)], {"net": net}


def test_bidirectional_lstm_with_seq_length_three_modes():
    _check_modes(_build_bilstm, steps=3)


class PaddedUpNet(nn.Cell):
    """UNet's up step for odd sizes: bilinear up-sampling, then ops.pad by the size difference computed in
    Python from the shapes, then the skip concatenation."""

    def __init__(self):
        super().__init__()
        self.inc = nn.Conv2d(2, 4, 3, has_bias=True)
        self.down = nn.Conv2d(4, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.conv = nn.Conv2d(8, 4, 3, has_bias=True)
        self.outc = nn.Conv2d(4, 1, 1, has_bias=True)

    def construct(self, x):
        x1 = ops.relu(self.inc(x))
        x2 = ops.relu(self.down(x1))
        up = ops.interpolate(x2, scale_factor=2.0, mode="bilinear", align_corners=False, recompute_scale_factor=True)
        diffY = x1.shape[2] - up.shape[2]
        diffX = x1.shape[3] - up.shape[3]
        up = ops.pad(up, (diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2))
        return self.outc(ops.relu(self.conv(ops.concat((x1, up), axis=1))))


def _build_padded_up():
    net = PaddedUpNet()
    train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.BCEWithLogitsLoss()),
                                    nn.Momentum(net.trainable_params(), 0.05, 0.9))
    train_net.set_train()
    batches = []
    for _ in range(2):
        x = np.random.randn(2, 2, 15, 15).astype(np.float32)
        batches.append((Tensor(x), Tensor((x[:, :1] > 0).astype(np.float32))))
    return train_net, batches, {"net": net}


def test_unet_odd_size_bilinear_pad_three_modes():
    _check_modes(_build_padded_up, steps=3)


class MaskedTokenLoss(nn.Cell):
    """The seq2seq loss over the non-padding target tokens only, by ops.masked_select (a data-dependent shape:
    one graph break, reported by explain())."""

    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self.network = network
        self.cross_entropy = nn.CrossEntropyLoss(reduction="none")

    def construct(self, src, tgt_in, tgt):
        logits = self.network(src, tgt_in)
        per_token = self.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
        return ops.masked_select(per_token, tgt.reshape(-1) != PAD_ID).mean()


def _build_masked_token_loss():
    net = Seq2Seq()
    train_net = nn.TrainOneStepCell(MaskedTokenLoss(net), nn.Momentum(net.trainable_params(), 0.2, 0.9))
    train_net.set_train()
    batches = []
    for _ in range(2):
        src, tgt_in, tgt = _seq2seq_batch()
        tgt = tgt.asnumpy().copy()
        tgt[:, 3:] = PAD_ID
        tgt[0, 1:] = PAD_ID
        batches.append((src, tgt_in, Tensor(tgt)))
    return train_net, batches, {"net": net}


def test_masked_select_token_loss_breaks_once_and_agrees():
    """GRAPH_MODE compiles the loss cell around the break. Under ms.jit the step cannot resume after a break
    inside its differentiated loss ('a gradient function is live at the break') and runs eagerly, but the
    frames it calls are still captured, so the loss compiles around the break there too (before, the whole
    jitted step ran eagerly: no compiled call at all)."""
    _check_modes(_build_masked_token_loss, steps=3, breaks=1, compiled=("graph", "jit"))
    ms.set_seed(1)
    np.random.seed(1)
    train_net, batches, _ = _build_masked_token_loss()
    import capture
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        report = capture.explain(train_net.network)(*batches[0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert report.graph_break_count == 1 and report.graph_count == 2
    assert "masked_select" in report.break_reasons[0].reason


class _Wrap(nn.Cell):
    def __init__(self, cell):
        super().__init__()
        self.body = cell


def test_parameter_names_of_a_shared_network_follow_mindspore():
    """MindSpore (mindspore/nn/cell.py): parameters_and_names yields attribute paths, and a Cell
    assigned under an auto_prefix parent has each parameter renamed prefix + path (no prefix
    accumulates when a network is shared by two parents, as the DCGAN tutorial's netG is)."""
    shared = nn.Dense(2, 2)
    _Wrap(shared)
    second = _Wrap(shared)
    assert shared.weight.name == "body.weight"                   # set from the path, not prefixed twice
    assert [n for n, _ in second.parameters_and_names()] == ["body.weight", "body.bias"]
    net = ViT()                                                  # Parameter(name="cls") held as self.cls_token
    assert next(iter(net.parameters_and_names()))[0] == "cls_token"


def test_parameter_names_under_the_dcgan_tutorial_s_nesting_follow_mindspore():
    """netG and netD shared by two loss cells, each under a training cell with auto_prefix=False,
    both under the DCGAN cell: each parameter ends named by its path under the last parent that
    renamed it (mindspore/nn/cell.py: _set_attr_for_cell calls update_parameters_name)."""
    class WithLoss(nn.Cell):
        def __init__(self, net_d, net_g):
            super().__init__()
            self.netD, self.netG = net_d, net_g

    class Train(nn.Cell):
        def __init__(self, network):
            super().__init__(auto_prefix=False)
            self.network = network

    class DCGAN(nn.Cell):
        def __init__(self, train_d, train_g):
            super().__init__()
            self.myTrainOneStepCellForD = train_d
            self.myTrainOneStepCellForG = train_g

    net_g, net_d = nn.Dense(2, 2), nn.Dense(2, 1)
    train_d = Train(WithLoss(net_d, net_g))
    assert net_g.weight.name == "netG.weight"        # auto_prefix=False: Train renames nothing
    gan = DCGAN(train_d, Train(WithLoss(net_d, net_g)))
    assert net_g.weight.name == "myTrainOneStepCellForG.network.netG.weight"
    assert net_d.bias.name == "myTrainOneStepCellForG.network.netD.bias"
    assert [n for n, _ in gan.parameters_and_names()] == [
        "myTrainOneStepCellForD.network.netD.weight", "myTrainOneStepCellForD.network.netD.bias",
        "myTrainOneStepCellForD.network.netG.weight", "myTrainOneStepCellForD.network.netG.bias"]
    assert list(gan.parameters_dict()) == [p.name for p in gan.get_parameters()]
    assert [n for n, _ in net_g.parameters_and_names("g", expand=False)] == ["g.weight", "g.bias"]
    # recurse=False: the Cell's own parameters only (it has none of its own here)
    assert gan.trainable_params(recurse=False) == [] and len(gan.trainable_params()) == 4
    assert [p.name for p in net_g.trainable_params(recurse=False)] == ["myTrainOneStepCellForG.network.netG.weight",
                                                                      "myTrainOneStepCellForG.network.netG.bias"]
