"""``runtime``: the framework users import (``import runtime as ms``).

PyNative (eager) execution of the op registry, tensors, tape autodiff, nn, training and data.
Graph mode is reached through ``set_context(mode=GRAPH_MODE)``, ``ms.jit`` or ``Cell.compile``,
which route into the ``capture`` package (imported on first use).

Example:
    >>> import runtime as ms
    >>> from runtime import nn, ops, Tensor
    >>> class Net(nn.Cell):
    ...     def construct(self, x, y):
    ...         return ops.add(x, y)
    >>> Net()(Tensor([1.0, 2.0, 3.0]), Tensor([4.0, 5.0, 6.0]))
    Tensor(shape=[3], dtype=Float32, value=[5., 7., 9.])
"""
from . import dtype  # noqa: F401
from .device import limit_blas_threads as _limit_blas_threads
from .dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8)  # noqa: F401
from .dtype import byte, double, half, intc, intp, short, single, ubyte  # noqa: F401
from .dtype import dtype_to_nptype, dtype_to_pytype, pytype_to_dtype  # noqa: F401
from .context import GRAPH_MODE, PYNATIVE_MODE, STRICT, COMPATIBLE, LAX, get_context, set_context  # noqa: F401
from .tensor import Tensor, is_tensor  # noqa: F401
from . import eager as _eager  # noqa: F401  (registers the eager bind handler)
from .parameter import Parameter, ParameterTuple  # noqa: F401
from .autograd import grad, value_and_grad, get_grad  # noqa: F401
from .transforms import vjp, jvp, jacrev, jacfwd  # noqa: F401
from .vmap import vmap  # noqa: F401
from .random import set_seed, get_seed  # noqa: F401
from .jit_api import jit, JitConfig  # noqa: F401
from .dynamic_shape import Symbol  # noqa: F401
from . import ops  # noqa: F401
from . import common  # noqa: F401
from .common.initializer import Normal, Uniform, XavierUniform, HeUniform, HeNormal, initializer  # noqa: F401
from .common.initializer import One, Zero, TruncatedNormal, Constant  # noqa: F401
from . import nn  # noqa: F401
from . import amp  # noqa: F401
from .train import (Model, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig,  # noqa: F401
                    save_checkpoint, load_checkpoint, load_param_into_net, Callback, EarlyStopping,
                    ReduceLROnPlateau, LearningRateScheduler, SummaryCollector, export, load,
                    build_train_network, LossScaleManager, FixedLossScaleManager, DynamicLossScaleManager)
from . import data  # noqa: F401
from . import dataset  # noqa: F401  (MindSpore's module name for runtime.data)
from . import numpy  # noqa: F401  (mindspore.numpy; absolute `import numpy` elsewhere is unaffected)
from . import boost  # noqa: F401
from . import mint  # noqa: F401  (mindspore.mint: torch-style spellings over ops/nn)
from .common.sparse_tensor import RowTensor  # noqa: F401

# ``ms.tensor(...)`` is MindSpore's function; the module stays importable as ``runtime.tensor``
from .compat_names import tensor, from_numpy, mutable, jit_class, ms_function, ms_class  # noqa: F401
from .parallel import (ParallelMode, set_auto_parallel_context, get_auto_parallel_context,  # noqa: F401
                       reset_auto_parallel_context)
from . import communication  # noqa: F401

_limit_blas_threads()

# ``from runtime import *`` gives every public name except the ``numpy`` submodule (mindspore.numpy):
# a program that did ``import numpy`` keeps its numpy (MindSpore's __all__ leaves it out too)
__all__ = sorted(n for n in list(globals()) if not n.startswith("_") and n != "numpy")

__version__ = "0.1.0"
