"""The MindSpore 2.x compatibility table (``docs/mindspore-compat.md``), generated from the code.

Every public name of ``runtime`` (as ``mindspore``), ``runtime.ops``, ``runtime.nn``, ``runtime.mint``
(with its ``nn``, ``nn.functional`` and ``optim``), ``runtime.amp``,
``Tensor`` and ``runtime.dataset`` (with its ``vision`` and ``transforms``)
is listed with the signature it really has here, plus a note where its behaviour differs from
MindSpore 2.x (:data:`DIFFERENCES`); :data:`MISSING` lists MindSpore 2.x names users reach for
that do not exist yet. ``tests/runtime/test_compat_table.py`` fails when the committed page and
the code disagree, when a note names something that does not exist, or when a "missing" name
appears (so the table is updated in the same change).

Regenerate with ``python -m runtime.compat_table --write``.

Example:
    >>> from runtime.compat_table import lookup
    >>> lookup("ops.argmax").__name__
    'argmax'
"""
from __future__ import annotations

import inspect
import os
import sys

#: where a name here behaves differently from MindSpore 2.x, and how
DIFFERENCES = {
    "ops.dropout": "`seed` is accepted; masks come from the one stream `ms.set_seed` seeds. `keep_prob=` "
                   "(the 1.x spelling) is accepted instead of `p`.",
    "ops.randn": "`seed` is accepted and validated; numbers come from the global stream (`ms.set_seed`).",
    "ops.rand": "as `ops.randn`.",
    "ops.randint": "as `ops.randn`.",
    "ops.uniform": "as `ops.randn`.",
    "ops.normal": "as `ops.randn`.",
    "ops.standard_normal": "`seed`/`seed2` are accepted and validated; numbers come from the global stream.",
    "ops.StandardNormal": "as `ops.standard_normal`.",
    "ops.UniformReal": "as `ops.standard_normal`.",
    "ops.UniformInt": "as `ops.standard_normal`; minval/maxval are read at trace time.",
    "ops.one_hot": "keyword-only `strict=True` (an extension) raises on indices outside [0, depth) "
                   "instead of giving a row of `off_value`.",
    "ops.topk": "results are always sorted (`sorted=False` is accepted); ties come in index order.",
    "ops.pad": "modes constant, reflect, replicate, circular.",
    "ops.norm": "matrix norms `ord=2`, `-2` and `'nuc'` (singular values) raise ValueError; the other "
                "vector and matrix norms of MindSpore's table are computed.",
    "ops.Print": "prints on every call; in graph mode it is a graph break (the print happens in Python).",
    "ops.depend": "returns `value`; Python already evaluates `expr` first.",
    "ops.Split": "the 1.x Primitive `(axis, output_num)`; `ops.split` is the 2.x function.",
    "ops.batch_norm": "running statistics must be Parameters when `training=True` under graph capture "
                      "(they are updated in place).",
    "ops.sort": "indices are int32 (MindSpore: int32 too); ties keep their order (stable).",
    "jit": "a bytecode-capture JIT: unsupported Python falls back to eager through graph breaks "
           "(`capture.explain()` lists them) instead of raising, so `jit_syntax_level` does not change "
           "what runs. Inside a jit call (and in GRAPH_MODE) the static-graph syntax Python lacks works: "
           "`self.weight = 1` fills a Parameter, `d.has_key(k)`; plain PyNative code still raises as Python "
           "does. Integer inputs get their gradients through graph breaks (`while`/`if` on a tensor) too.",
    "set_context": "`device_target`, `mode`, `jit_syntax_level` and the other documented keys are "
                   "accepted; device targets other than CPU/GPU are refused.",
    "nn.BatchNorm2d": "momentum follows MindSpore (`moving = momentum * moving + (1 - momentum) * batch`).",
    "Tensor.argmax": "2.x form: `axis=None` means the flattened tensor; int64 indices.",
    "Tensor.repeat": "numpy's `repeat` (MindSpore 2.x Tensor.repeat), not torch's tile.",
    "amp.auto_mixed_precision": "float16 only (no bfloat16 dtype here); O1 wraps white-list Cells and "
                                "Primitive attributes of your Cells instead of rewriting `construct`.",
    "amp.build_train_network": "loss-scale update Cells work on the CPU too (MindSpore refuses them there); "
                               "`level='auto'` is O0 on the CPU and O2 on the GPU.",
    "nn.TrainOneStepWithLossScaleCell": "an overflowing step is skipped with selects inside the graph "
                                        "(no Python branch); the returned scale is the one the step used.",
    "export": "writes this framework's own graph format (docs/export-format.md) for `file_format=\"MINDIR\"` "
              "(the default here); \"AIR\"/\"ONNX\", encryption, `dataset` and obfuscation raise ValueError.",
    "load": "reads only files written by this framework's `export`; foreign or damaged files raise ValueError "
            "(MindSpore: RuntimeError).",
    "nn.GraphCell": "runs the graph compiled by graph mode's backend; gradients flow through it (its ops are "
                    "replayed on the tape).",
    "dataset.MnistDataset": "the `label` column is uint32 with `output_numpy=True`, but an Int64 Tensor from the "
                            "Tensor iterators (no UInt32 dtype here); the same holds for Cifar10Dataset and "
                            "ImageFolderDataset labels. Cast with `transforms.TypeCast(ms.int32)` as the tutorials do.",
    "dataset.ImageFolderDataset": "`cache` is refused; `num_parallel_workers` threads read and decode the files.",
    "dataset.GeneratorDataset": "`num_parallel_workers`/`python_multiprocessing` are accepted; the source is read "
                                "in one thread (parallelise with `map`). Over another dataset with shuffle, "
                                "num_samples, sharding or a sampler, that dataset's rows of one epoch are read into "
                                "memory once. A plain iterable given as `sampler` together with `shuffle=True` or "
                                "`num_shards` raises ValueError (MindSpore ignores those two).",
    "dataset.DistributedSampler": "the shuffle seed is the dataset seed when the iterator is made (MindSpore: when "
                                  "the sampler is made); with `offset`, a shard left empty gives no rows "
                                  "(MindSpore pads it with row 0 for ConcatDataset).",
    "dataset.WeightedRandomSampler": "every epoch draws anew, also under a fixed seed (MindSpore reseeds each epoch "
                                     "with the fixed seed, so it repeats the draw); the same holds for "
                                     "`SubsetRandomSampler`.",
    "dataset.MappableDataset": "`shuffle=True` (or None) with `num_samples` draws distinct rows (a RandomSampler "
                               "without replacement); MindSpore's `select_sampler` draws them with replacement.",
    "dataset.PKSampler": "needs a source with a label column (MnistDataset, Cifar10Dataset, ImageFolderDataset); "
                         "it takes no child sampler.",
    "dataset.Sampler": "`reset()` is called right after each epoch's indices are taken.",
    "dataset.vision.Grayscale": "numpy images (<H, W, 3> or RGBA) work too, giving numpy (<H, W> or <H, W, 3>); "
                                "MindSpore takes PIL images only. PIL in gives PIL out.",
    "dataset.vision.RandomColorAdjust": "hue turns through a float HSV conversion (MindSpore: OpenCV's 8-bit "
                                        "HSV), so uint8 results may differ from MindSpore's by a level or two; an "
                                        "adjustment left at its default range is skipped.",
    "dataset.text.WhitespaceTokenizer": "splits on Python's `str.isspace` characters (MindSpore: ICU's); offsets "
                                        "are UTF-8 byte offsets as MindSpore's.",
    "dataset.text.PadEnd": "the same transform as `dataset.transforms.PadEnd`.",
    "dataset.Dataset.padded_batch": "`batch_size` must be an int (no callable).",
    "dataset.Dataset.bucket_batch_by_length": "the partly filled buckets left at the end of an epoch are emitted "
                                              "in bucket order.",
    "dataset.Dataset": "`map(num_parallel_workers=)`: threads, or processes with `python_multiprocessing=True`, "
                       "giving the same rows and random augmentations for any worker count; the default is "
                       "`config.get_num_parallel_workers()`, 1 unless set (MindSpore: 8). `batch` runs in one "
                       "thread.",
    "ops.conv_im2col": "an extension, not MindSpore's `Im2Col`: the columns graph mode lowers `Conv2D` to, "
                       "(N, C*kh*kw, Ho*Wo) (`layout='nkp'`, the default) or (C*kh*kw, N, Ho*Wo) "
                       "(`layout='knp'`) with Conv2D's `pad_mode`/`padding`/`dilation`.",
    "ops.lstm_recurrence": "an extension: an LSTM layer's recurrence over a whole sequence from its input "
                           "projections (seq, batch, 4 * hidden), returning (hs, cs, activated gates); nn.LSTM "
                           "runs on it (MindSpore's `ops.LSTM` Primitive takes flattened weights instead).",
    "ops.lstm_recurrence_grad": "an extension: the backward through time of `ops.lstm_recurrence`.",
    "ops.gru_recurrence": "an extension: a GRU layer's recurrence over a whole sequence from its input "
                          "projections (seq, batch, 3 * hidden), returning (hs, activated gates, h W_hn^T + b_hn); "
                          "nn.GRU runs on it.",
    "ops.gru_recurrence_grad": "an extension: the backward through time of `ops.gru_recurrence`.",
    "ops.conv_col2im": "an extension: the adjoint of `ops.conv_im2col` (Conv2D's input gradient is "
                       "`conv_col2im(weight^T @ dout)`).",
    "Tensor.move_to": "`to` is 'CPU' or 'GPU' (no Ascend); `blocking=False` is accepted and the copy is complete "
                      "when it returns. Tensors made under `device_target='GPU'` are already on the GPU.",
    "set_auto_parallel_context": "stand-alone and data parallel only (model-parallel modes raise); parameters "
                                 "are broadcast from rank 0 at the first data-parallel step whatever "
                                 "`parameter_broadcast` says; gradient buckets follow `comm_fusion` / "
                                 "`all_reduce_fusion_config` (25 MB by default). See docs/distributed.md.",
    "ops.AllReduce": "over MPI (mpi4py) whatever the backend name; float16 is reduced in float32. In a "
                     "process of its own (no mpiexec) every collective is an identity.",
    "ops.AllGather": "as `ops.AllReduce`.",
    "ops.ReduceScatter": "as `ops.AllReduce`; only `op='sum'` has a gradient (as in MindSpore).",
    "ops.Broadcast": "as `ops.AllReduce`; the gradient sums every rank's cotangent into the root's input "
                     "(the other ranks' inputs get zeros).",
    "ops.all_reduce": "an extension: the registry op's functional form (MindSpore's is "
                      "`communication.comm_func.all_reduce`).",
    "ops.all_gather": "an extension, as `ops.all_reduce` (`comm_func.all_gather_into_tensor`).",
    "ops.reduce_scatter": "an extension, as `ops.all_reduce` (`comm_func.reduce_scatter_tensor`).",
    "ops.broadcast": "an extension: `ops.Broadcast`'s functional form; returns a tuple.",
    "ops.all_reduce_start": "an extension: starts a non-blocking all-reduce (a gradient bucket) and returns "
                            "its ticket for `ops.all_reduce_wait`.",
    "ops.all_reduce_wait": "an extension: the result of the all-reduce of a ticket.",
    "ops.AllReduceStart": "as `ops.all_reduce_start`.",
    "ops.AllReduceWait": "as `ops.all_reduce_wait`.",
    "nn.MaxPool1d": "`dilation`, `return_indices` and `ceil_mode` also work with pad_mode 'valid' (as padding 0; "
                    "MindSpore allows them with 'pad' only); with 'same' they raise ValueError.",
    "nn.MaxPool2d": "as `nn.MaxPool1d` for `dilation`/`return_indices`/`ceil_mode`; (C, H, W) input works in every "
                    "pad_mode.",
    "nn.AvgPool1d": "`ceil_mode=True` or `count_include_pad=False` with pad_mode 'same' raise ValueError.",
    "ops.ResizeBilinearV2": "`half_pixel_centers=True` works on the CPU too (MindSpore's CPU backend refuses it).",
    "EarlyStopping": "`baseline` is the value documented (MindSpore's source stores `min_delta` in its place); a "
                     "monitored value of 0 is watched (MindSpore skips falsy values).",
    "ReduceLROnPlateau": "a monitored value of 0 is watched (MindSpore skips falsy values).",
    "Tensor": "`Tensor(ndarray)` copies the array (as MindSpore's constructor does); `Tensor.from_numpy` / "
              "`ms.from_numpy` share its memory.",
    "vmap": "a batching transform: ops with a batching rule (runtime/vmap_rules.py: elementwise, reductions, "
            "shape ops, matmul, gather, gather_nd, tensor_scatter_*, conv/pool, layer_norm...) run once on the whole batch, any other op once per "
            "example (a loop). A CellList (model ensembling) runs its models one after the other (not vectorised). "
            "Under `jit` a vmapped function built outside the jitted code compiles into its graph.",
    "jvp": "forward mode by double VJP (the gradient of <J^T u, v> with respect to u): no per-op JVP rules, the "
           "numbers of reverse mode.",
    "jacfwd": "one JVP (double VJP) per input element; `jacrev` one VJP per output element.",
    "vjp": "`vjp_fn(v)` gives the gradients of all inputs as a tuple (with `weights`: (inputs, weights)).",
    "ms_function": "warns (FutureWarning) that it is deprecated, then is `jit`; `input_signature`/`hash_args` "
                   "are accepted and not needed.",
    "ops.unique": "sorted (as numpy.unique); a data-dependent output shape: runs in PyNative; under `jit`/GRAPH_MODE/the frame hook it breaks the graph (`explain()` says so) and runs eagerly between two compiled graphs.",
    "ops.Unique": "as `ops.unique`.",
    "ops.unique_consecutive": "idx and counts are int32; a data-dependent output shape: a graph break under "
                              "`jit`/GRAPH_MODE, as `ops.unique`.",
    "ops.UniqueConsecutive": "returns all three of (output, idx, counts); as `ops.unique_consecutive`.",
    "ops.unique_with_pad": "static shapes (padded): compiles without a graph break.",
    "ops.nonzero": "a data-dependent output shape: runs in PyNative; under `jit`/GRAPH_MODE/the frame hook it breaks the graph (`explain()` says so) and runs eagerly between two compiled graphs.",
    "ops.NonZero": "as `ops.nonzero`.",
    "ops.masked_select": "a data-dependent output shape: runs in PyNative; under `jit`/GRAPH_MODE/the frame hook it breaks the graph (`explain()` says so) and runs eagerly between two compiled graphs.",
    "ops.MaskedSelect": "as `ops.masked_select`.",
    "ops.tensor_scatter_max": "the gradient goes to every value attaining the maximum, split equally among ties "
                              "(MindSpore's bprop; also `tensor_scatter_min`).",
    "ops.tensor_scatter_mul": "the gradient is exact with repeated index rows too, except for an update of 0 "
                              "sharing its row with another update (MindSpore's bprop assumes distinct rows).",
    "ops.ScatterNdUpdate": "`use_locking` is accepted (one stream: every update is atomic).",
    "ops.cumprod": "the gradient divides by the input, as MindSpore's CumProd bprop does (a zero input gives inf/NaN).",
    "ops.CumProd": "as `ops.cumprod`: the gradient divides by the input.",
    "numpy.cumprod": "an integer input keeps its dtype (as `numpy.cumsum` here; numpy widens int32 to int64).",
    "numpy.histogram": "float32 counts (MindSpore's examples); integer data gets float32 edges (numpy: float64); "
                       "compiled code may fuse the edges' linspace into FMAs (within 1 ulp of numpy's). Also "
                       "`histogram2d`, `histogramdd`, `histogram_bin_edges`.",
    "numpy.bincount": "without `length` the output length is read from the data: under `jit`/GRAPH_MODE it runs "
                      "eagerly (a graph break); with `length` it compiles. `ops.bincount` likewise. Counts are "
                      "float32, as MindSpore's (numpy: int64); negative values raise ValueError (MindSpore clips "
                      "them to 0).",
    "numpy.pad": "modes constant, edge, linear_ramp, maximum, mean, minimum, reflect, symmetric, wrap, empty "
                 "(zero-filled); 'median' (as in MindSpore) and a padding function as `mode` raise ValueError.",
    "numpy.copysign": "the result has `x1`'s dtype (an integer `x1` stays integer, as MindSpore's; numpy gives "
                      "float); `ops.copysign` is float.",
    "numpy.indices": "one Tensor of shape `(len(dimensions),) + dimensions`, as the r2.4 text and numpy say "
                     "(MindSpore's implementation and example give a list of Tensors, `meshgrid(..., indexing='ij')`).",
    "numpy.piecewise": "the result has `x`'s dtype, as the r2.4 text and numpy say (MindSpore's example prints an "
                       "int result for a float `x` with int values in `funclist`).",
    "numpy.ravel_multi_index": "int32 indices (MindSpore r2.4's example prints float32 ones: an artifact of its "
                               "float32 sum, not kept here).",
    "numpy.where": "the one-argument form (`nonzero`) has a data-dependent shape and raises ValueError.",
    "numpy.empty": "zero-filled (there is no uninitialised memory to hand out).",
    "numpy.take": "`mode='raise'` clips (a graph cannot raise on a value).",
    "boost": "only `GradientAccumulation` exists.",
    "nn.AvgPool3d": "with pad_mode 'same' the divisor counts only the input's cells in each window.",
    "nn.LazyAdam": "gradients are dense here (no RowTensor), so the update is Adam's; the lazy sparse "
                   "row update does not arise.",
    "nn.FTRL": "dense gradients only; the parameter-server / sparse paths do not exist.",
    "nn.AdaFactor": "`compression=True` is accepted but the running averages stay in the parameter dtype; "
                    "no fused CPU kernel (the same arithmetic, composed of registry ops).",
    "ops.multinomial": "indices are int32 (MindSpore's page says float32; its kernels return int32 indices); "
                       "with replacement an inverse CDF of one uniform per draw, without it Gumbel top-k, from the one "
                       "stream `ms.set_seed` seeds (`seed` is accepted and validated).",
    "ops.bernoulli": "as `ops.randn`.",
    "ops.random_categorical": "as `ops.randn`; Gumbel-max draws.",
    "ops.shuffle": "as `ops.randn`.",
    "ops.randperm": "as `ops.randn`; `offset` is accepted.",
    "ops.laplace": "as `ops.randn`.",
    "ops.standard_laplace": "as `ops.standard_normal`.",
    "ops.rrelu": "as `ops.randn`.",
    "ops.gumbel_softmax": "as `ops.randn`.",
    "ops.median": "of an even count the lower middle value (as MindSpore's CPU kernel); equal values: the index of "
                  "the first in a stable sort.",
    "ops.cummax": "equal values: the index of the last one (also `ops.cummin`).",
    "ops.matrix_power": "a negative `n` raises ValueError (no matrix inverse here).",
    "ops.erfinv": "Giles' approximation refined by two Newton steps (float64 results within rounding of the "
                  "true inverse); the gradient is `sqrt(pi)/2 * exp(y**2)`.",
    "ops.sequence_mask": "with `maxlen=None` the length is read from the data: a graph break under `jit`.",
    "ops.range": "read from the values: a graph break under `jit` when they are Tensors.",
    "ops.argwhere": "a data-dependent shape: as `ops.nonzero`.",
    "ops.real": "there are no complex dtypes here: `real`/`conj` return the input, `imag` zeros, `angle` 0 or pi, "
                "`isreal` True, `is_complex` False, `sgn` the sign.",
    "ops.float_power": "computes in float64 (as MindSpore) and returns float64.",
    "ops.det": "partial-pivoting elimination unrolled over the matrix size with registry ops (also `slogdet`, "
               "`logdet`, `inverse`, `matrix_solve`, `cholesky*` and their Primitives): meant for small matrices; "
               "a singular matrix gives 0 / inf / NaN entries instead of an error.",
    "ops.lgamma": "Lanczos' approximation with the reflection formula below 1/2 (float64 within about 1e-13 of "
                  "`math.lgamma`); `ops.digamma` a shifted asymptotic series; -inf/NaN at the poles as torch.",
    "ops.avg_pool3d": "a 2-D pool over the folded depth then the depth windows; `ceil_mode`, `divisor_override` and "
                      "`count_include_pad=False` with padding raise ValueError.",
    "ops.max_pool3d": "`return_indices` and `ceil_mode` raise ValueError; `ops.adaptive_max_pool3d` likewise has no "
                      "`return_indices`.",
    "ops.grid_sample": "4-D input only (5-D raises ValueError); 'bilinear'/'nearest' with PyTorch's padding rules.",
    "ops.SpaceToDepth": "TF's channel order `(i * b + j) * C + c` (also `ops.DepthToSpace`).",
    "ops.lstsq": "through the normal equations: `A` must have full column rank.",
    "ops.gamma": "`beta` is the scale (the density of MindSpore's Gamma kernel and its documented outputs); Marsaglia-"
                 "Tsang with 12 proposals per sample from the one stream (`ms.set_seed`), as `ops.random_gamma`.",
    "ops.igamma": "the power series below x = a + 1 and Legendre's continued fraction above, unrolled (300 and 200 "
                  "terms: float64 within about 1e-11 for a up to ~1000); also `ops.igammac`.",
    "mint.sort": "always stable (`stable` is accepted); indices int32 as `ops.sort`.",
    "mint.allclose": "reads the values (a Python bool): a graph break under `jit`.",
    "mint.repeat_interleave": "`output_size` is accepted and not used (a hint in MindSpore too).",
    "mint.nn.functional.one_hot": "`num_classes=-1` reads `max(tensor) + 1` from the values: a graph break "
                                  "under `jit`.",
    "mint.nn.functional.embedding": "`max_norm` and `scale_grad_by_freq` raise ValueError.",
    "mint.nn.functional.relu": "`inplace=True` raises ValueError (also `silu`, `leaky_relu`, `elu`, "
                               "`dropout` and `mint.nn.Dropout`).",
    "mint.searchsorted": "`sorter` raises ValueError.",
    "mint.rand": "`generator` raises ValueError; numbers come from the global stream (`ms.set_seed`); "
                 "also `mint.randn`.",
    "mint.argsort": "always stable (`stable` is accepted).",
    "mint.nn.BatchNorm2d": "torch's `momentum` (0.1: the weight of the batch statistic); the parameters keep "
                           "`nn.BatchNorm2d`'s names (`gamma`, `beta`, `moving_mean`, `moving_variance`). Also "
                           "`mint.nn.BatchNorm1d`.",
    "mint.nn.Embedding": "`max_norm`, `scale_grad_by_freq` and `sparse` raise ValueError.",
    "mint.nn.Conv2d": "`padding_mode` other than 'zeros' raises ValueError.",
    "mint.unique": "`sorted=False` also returns ascending values (torch leaves the order unspecified); the "
                   "output's size depends on the values: a graph break under `jit`.",
    "Tensor.scatter_add": "both MindSpore spellings: `(dim, index, src)` (torch's, as `mint.scatter_add`) and "
                          "`(indices, updates)` (`ops.tensor_scatter_add`).",
    "mint.unique_consecutive": "the output's size depends on the values: a graph break under `jit`.",
    "mint.bucketize": "torch's `right` (`searchsorted`'s side); `boundaries` a 1-D Tensor.",
    "mint.empty": "the contents are zeros (also `mint.empty_like`).",
    "mint.normal": "`generator` raises ValueError; numbers come from the global stream (`ms.set_seed`); also "
                   "`mint.randint`, `mint.randint_like`, `mint.randperm`, `mint.bernoulli`.",
    "mint.nn.ConvTranspose2d": "`padding_mode` other than 'zeros' raises ValueError; `output_padding` must be "
                               "below the stride (also `mint.nn.functional.conv_transpose2d`).",
    "mint.nn.BatchNorm3d": "torch's `momentum`; the statistics live in the inner `bn2d` cell, as MindSpore's "
                           "`nn.BatchNorm3d`.",
    "mint.optim.AdamW": "`amsgrad=True` raises ValueError (also `mint.optim.Adam`); group dicts take "
                        "`params`, `lr` and `weight_decay`.",
    "nn.DistributedGradReducer": "`fusion_type` is accepted; buckets follow the auto-parallel context. "
                                 "Parameters it is built for are not reduced again by grad/value_and_grad, "
                                 "which reduce the others themselves in data-parallel mode.",
}

#: MindSpore 2.x names users reach for that do not exist here yet (the test checks they are absent)
MISSING = [
    "dataset.MindDataset", "dataset.TFRecordDataset",
]

def lookup(name: str):
    """The object a table name (``ops.argmax``, ``Tensor.repeat``, ``jit``) stands for; AttributeError
    when it does not exist."""
    import runtime
    obj = runtime
    for part in name.split("."):
        obj = getattr(runtime, part) if obj is runtime and part == "Tensor" else getattr(obj, part)
    return obj


def _signature(obj) -> str:
    from runtime.ops import Primitive
    if isinstance(obj, type) and issubclass(obj, Primitive) and obj.op is not None:
        if obj.__init__ is not Primitive.__init__:  # a hand-written Primitive (ops.Gather): its own signature
            init = str(inspect.signature(obj.__init__)).replace("(self, ", "(").replace("(self)", "()")
            call = str(inspect.signature(obj.__call__)).replace("(self, ", "(").replace("(self)", "()")
            return f"{init}{call}"
        op = obj.op
        init = [k for k in op.attrs if k not in op.call_attrs]
        call = [n.lstrip("*") for n in op.inputs] + list(op.call_attrs)
        return f"({', '.join(init)})({', '.join(call)})"
    if isinstance(obj, type) and obj.__init__ is object.__init__:
        return "()"
    target = obj.__init__ if isinstance(obj, type) else obj
    try:
        sig = str(inspect.signature(target))
    except (TypeError, ValueError):
        return ""
    if isinstance(obj, type):
        sig = sig.replace("(self, ", "(").replace("(self)", "()")
    return sig.replace("|", "\\|")


def _public(module_or_cls, names=None):
    names = names if names is not None else [n for n in dir(module_or_cls) if not n.startswith("_")]
    out = []
    for n in sorted(set(names)):
        obj = getattr(module_or_cls, n, None)
        if obj is None or inspect.ismodule(obj):
            continue
        out.append((n, obj))
    return out


def _row(prefix, name, obj):
    key = f"{prefix}{name}"
    kind = "class" if isinstance(obj, type) else ("function" if callable(obj) else type(obj).__name__)
    sig = _signature(obj) if callable(obj) else ""
    note = DIFFERENCES.get(key, "")
    return f"| `{key}` | {kind} | `{sig}` | {note} |" if sig else f"| `{key}` | {kind} | | {note} |"


def generate() -> str:
    """The whole page as Markdown."""
    import runtime
    import runtime.numpy as mnp
    from runtime import Tensor, amp, dataset, mint, nn, ops
    lines = ["# MindSpore 2.x compatibility", "",
             "Generated by `python -m runtime.compat_table --write` from the code; "
             "`tests/runtime/test_compat_table.py` fails when this page and the code disagree.", "",
             "Import `runtime` where a script imports `mindspore` (or run it unchanged with "
             "`python -m capture run --mindspore script.py`). Every name below exists with the signature "
             "shown; a note says where behaviour differs from MindSpore 2.x.", ""]
    sections = [("mindspore", "", _public(runtime, [n for n in dir(runtime) if not n.startswith("_")])),
                ("mindspore.ops", "ops.", _public(ops, ops.__all__)),
                ("mindspore.nn", "nn.", _public(nn)),
                ("mindspore.mint", "mint.", _public(mint, mint.__all__)),
                ("mindspore.mint.nn", "mint.nn.", _public(mint.nn, mint.nn.__all__)),
                ("mindspore.mint.nn.functional", "mint.nn.functional.",
                 _public(mint.nn.functional, mint.nn.functional.__all__)),
                ("mindspore.mint.optim", "mint.optim.", _public(mint.optim, mint.optim.__all__)),
                ("mindspore.amp", "amp.", _public(amp, amp.__all__)),
                ("mindspore.Tensor methods and properties", "Tensor.", _public(Tensor)),
                ("mindspore.dataset", "dataset.", _public(dataset, dataset.__all__)),
                ("mindspore.dataset.vision", "dataset.vision.", _public(dataset.vision, dataset.vision.__all__)),
                ("mindspore.dataset.transforms", "dataset.transforms.",
                 _public(dataset.transforms, dataset.transforms.__all__)),
                ("mindspore.dataset.text", "dataset.text.", _public(dataset.text, dataset.text.__all__)),
                ("mindspore.dataset.Dataset methods", "dataset.Dataset.", _public(dataset.Dataset)),
                ("mindspore.numpy", "numpy.", _public(mnp, mnp.__all__))]
    for title, prefix, rows in sections:
        lines += [f"## {title}", "", "| name | kind | signature | differs from MindSpore 2.x |",
                  "|---|---|---|---|"]
        lines += [_row(prefix, n, obj) for n, obj in rows]
        lines.append("")
    lines += _numpy_coverage(mnp)
    lines += _primitive_coverage()
    lines += _function_coverage()
    lines += ["## Not available yet", "",
              "MindSpore 2.x names scripts use that do not exist here yet (importing them fails with an "
              "AttributeError/ImportError naming them):", ""]
    lines += [f"- `{name}`" for name in MISSING]
    lines.append("")
    return "\n".join(lines)


def _numpy_coverage(mnp) -> list:
    """How much of mindspore.numpy's documented function list (MindSpore 2.x API reference) exists."""
    missing = mnp.missing()
    have = len(mnp.DOCUMENTED) - len(missing)
    lines = ["### mindspore.numpy coverage", "",
             f"{have} of the {len(mnp.DOCUMENTED)} functions in MindSpore 2.x's `mindspore.numpy` reference "
             "exist here (above; `fmax`, `fmin` and `vdot` are extras)." + (" Not yet:" if missing else ""), ""]
    if missing:
        lines += [f"- `numpy.{name}`: {mnp.WHY_MISSING[name]}" for name in missing] + [""]
    return lines


def _primitive_coverage() -> list:
    """How many Primitive classes of MindSpore 2.x's ops reference exist (the rest listed by section)."""
    from . import compat_primitives as cp
    from . import ops
    docs = cp.documented()
    missing = set(cp.missing())
    lines = ["### mindspore.ops Primitive coverage", "",
             f"{len(docs) - len(missing)} of the {len(docs)} Primitive classes in MindSpore 2.x's `mindspore.ops` "
             "reference exist here (in the `mindspore.ops` table above). Not yet, by the reference's sections:", ""]
    for section, names in cp.SECTIONS.items():
        absent = [n for n in names.split() if n in missing and not hasattr(ops, n)]
        if absent:
            lines.append(f"- {section}: " + ", ".join(f"`{n}`" for n in absent))
    lines.append("")
    return lines


def _function_coverage() -> list:
    """How many functions of MindSpore 2.x's functional ``mindspore.ops`` API exist (the rest listed by section)."""
    from . import compat_functions as cf
    sections = cf.sections()
    total = sum(len(names) for names in sections.values())
    missing = set(cf.missing())
    lines = ["### mindspore.ops function coverage", "",
             f"{total - len(missing)} of the {total} functions of MindSpore 2.x's functional `mindspore.ops` API "
             "exist here (in the `mindspore.ops` table above): the reference page's sections (`mindspore.ops.rst`), "
             "then the names `math_func.py`, `array_func.py` and `random_func.py` also export "
             "(runtime/compat_functions.py). The COO/CSR functions need sparse tensors, which do not exist here. "
             "Not yet, by section:", ""]
    for section, names in sections.items():
        absent = [n for n in names if n in missing]
        if absent:
            lines.append(f"- {section}: " + ", ".join(f"`{n}`" for n in absent))
    lines.append("")
    return lines


def page_path() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "mindspore-compat.md")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = generate()
    if "--write" in argv:
        path = page_path()
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)  # atomic: a reader never sees half a page
        print(f"wrote {path}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
