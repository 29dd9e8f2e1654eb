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

__all__ = _basic + _conv + _pool + _norm + _emb + _act + _spatial + _rnn + _attention + _transformer
