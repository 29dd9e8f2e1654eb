import os
import tempfile

import numpy as np
import pytest

# keep the suite's compiled objects out of the user's ~/.cache/msjit
os.environ.setdefault("MSJIT_CACHE_DIR", tempfile.mkdtemp(prefix="msjit-test-"))

pytest.importorskip("llvmlite")


@pytest.fixture
def rng():
    return np.random.default_rng(0)
