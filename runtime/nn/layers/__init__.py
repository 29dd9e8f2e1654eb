"""nn layers (``runtime.nn.Dense``...), one module per family as in ``mindspore.nn.layer``."""
from .basic import *  # noqa: F403
from .basic import __all__ as _basic
from .conv import *  # noqa: F403
from .conv import __all__ as _conv
from .pooling import *  # noqa: F403
from .pooling import __all__ as _pool
from .normalization import *  # noqa: F403
from .normalization import __all__ as _norm
from .embedding import *  # noqa: F403
from .embedding import __all__ as _emb
from .activation import *  # noqa: F403
from .activation import __all__ as _act
from .spatial import *  # noqa: F403
from .spatial import __all__ as _spatial
from .rnn import *  # noqa: F403
from .rnn import __all__ as _rnn
from .attention import *  # noqa: F403
from .attention import __all__ as _attention
from .transformer import *  # noqa: F403
from .transformer import __all__ as _transformer
from .pooling3d import *  # noqa: F403
from .pooling3d import __all__ as _pool3d
from .more_norm import *  # noqa: F403
from .more_norm import __all__ as _more_norm
from .more_activations import *  # noqa: F403
from .more_activations import __all__ as _more_act
from .containers import *  # noqa: F403
from .containers import __all__ as _containers
from .small_layers import *  # noqa: F403
from .small_layers import __all__ as _small

__all__ = (_basic + _conv + _pool + _norm + _emb + _act + _spatial + _rnn + _attention + _transformer
           + _pool3d + _more_norm + _more_act + _containers + _small)
