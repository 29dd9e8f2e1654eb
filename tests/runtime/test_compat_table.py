"""The MindSpore 2.x compatibility page (docs/mindspore-compat.md) agrees with the code."""
import pytest

from runtime import compat_table


def test_committed_page_matches_the_code():
    with open(compat_table.page_path(), encoding="utf-8") as f:
        committed = f.read()
    assert committed == compat_table.generate(), (
        "docs/mindspore-compat.md is out of date: run `python -m runtime.compat_table --write` and commit it")


@pytest.mark.parametrize("name", sorted(compat_table.DIFFERENCES))
def test_every_noted_difference_names_something_that_exists(name):
    compat_table.lookup(name)


@pytest.mark.parametrize("name", compat_table.MISSING)
def test_names_listed_as_missing_are_really_missing(name):
    with pytest.raises(AttributeError):
        compat_table.lookup(name)


def test_the_page_lists_2x_signatures():
    page = compat_table.generate()
    assert "| `ops.argmax` | function | `(input, dim=None, keepdim=False)` |" in page
    assert "| `ops.ReduceSum` | class | `(keep_dims)(x, axis)` |" in page


def test_primitive_and_numpy_coverage_sections():
    """The page counts MindSpore 2.x's documented Primitives and mindspore.numpy functions that exist."""
    from runtime import compat_primitives, ops
    import runtime.numpy as mnp
    page = compat_table.generate()
    docs = compat_primitives.documented()
    assert len(docs) == len(set(docs)) > 400
    missing = compat_primitives.missing()
    assert all(not hasattr(ops, n) for n in missing) and "ReLU6" not in missing and "Atan2" not in missing and "Einsum" not in missing and "Bincount" in missing
    assert f"{len(docs) - len(missing)} of the {len(docs)} Primitive classes" in page
    assert f"of the {len(mnp.DOCUMENTED)} functions in MindSpore 2.x's `mindspore.numpy`" in page


def test_function_coverage_section():
    """The page counts the functions of MindSpore 2.x's functional mindspore.ops API that exist, and lists
    the others by section."""
    from runtime import compat_functions, ops
    page = compat_table.generate()
    docs = compat_functions.documented()
    assert len(docs) == len(set(docs)) > 550
    missing = compat_functions.missing()
    assert all(not callable(getattr(ops, n, None)) for n in missing)
    for name in ("roll", "diagonal", "xlogy", "addmm", "movedim", "hstack", "glu", "cummax", "tensor_split"):
        assert name in docs and name not in missing
    assert "bessel_j0" in missing and "coo_abs" in missing
    assert f"{len(docs) - len(missing)} of the {len(docs)} functions of MindSpore 2.x's functional" in page
    assert "- element-wise: " in page and "`bessel_j0`" in page
