"""The C helpers are optional at install time (setup.py: ``optional=True``, so an install without
a compiler still works, on the pure-Python paths), which also means a helper that stops compiling
fails silently: its tests skip and every call takes the slower path. Where a C compiler is
present, each helper must therefore have been built."""
import importlib
import shutil
import sysconfig

import pytest

HELPERS = ("capture.frame_eval._frame_eval", "capture._guard_vm", "capture._fast_call",
           "codegen.cpu._restored_call")


def _compiler_present():
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None


@pytest.mark.skipif(not _compiler_present(), reason="no C compiler: the helpers are optional")
@pytest.mark.parametrize("name", HELPERS)
def test_each_c_helper_was_built(name):
    importlib.import_module(name)
