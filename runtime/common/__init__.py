"""MindSpore's ``mindspore.common`` namespace: initializers, dtypes, Tensor/Parameter, the seed."""
from . import initializer  # noqa: F401
from ..tensor import Tensor  # noqa: F401
from ..parameter import Parameter  # noqa: F401
from . import dtype, parameter, tensor  # noqa: F401
from . import seed  # noqa: F401
from .seed import get_seed, set_seed  # noqa: F401
from ..jit_api import JitConfig  # noqa: F401  (mindspore.common.JitConfig)
