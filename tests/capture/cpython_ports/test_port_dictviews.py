"""CPython ``Lib/test/test_dictviews.py`` ported as capture-vs-eager differential cases (see
port_harness.py): the assertions became returned values, compared across eager, ``ms.jit`` and
the frame hook."""
import collections.abc

import pytest

from port_harness import check, parametrize


def case_dict_keys(x, state):
    """test_dict_keys."""
    d = {1: 10, "a": "ABC"}
    keys = d.keys()
    e = {1: 11, "a": "def"}
    out = [len(keys), set(keys) == {1, "a"}, keys == {1, "a"}, keys != {1, "a", "b"}, keys != {1, "b"},
           keys != {1}, keys != 42, 1 in keys, "a" in keys, 10 not in keys, "Z" not in keys,
           d.keys() == d.keys(), d.keys() == e.keys()]
    del e["a"]
    out.append(d.keys() != e.keys())
    return out, x + 1


def case_dict_items(x, state):
    """test_dict_items."""
    d = {1: 10, "a": "ABC"}
    items = d.items()
    e = d.copy()
    out = [len(items), set(items) == {(1, 10), ("a", "ABC")}, items == {(1, 10), ("a", "ABC")},
           items != {(1, 10), ("a", "ABC"), "junk"}, items != {(1, 10)}, items != 42,
           (1, 10) in items, ("a", "ABC") in items, (1, 11) not in items, 1 not in items, () not in items,
           (1, 2, 3) not in items, d.items() == d.items(), d.items() == e.items()]
    e["a"] = "def"
    out.append(d.items() != e.items())
    return out, x


def case_dict_mixed_keys_items(x, state):
    """test_dict_mixed_keys_items."""
    d = {(1, 1): 11, (2, 2): 22}
    e = {1: 1, 2: 2}
    return d.keys() == e.items(), d.items() != e.keys(), x


def case_dict_values(x, state):
    """test_dict_values."""
    d = {1: 10, "a": "ABC"}
    values = d.values()
    return set(values) == {10, "ABC"}, len(values), x * 2


def case_dict_repr(x, state):
    """test_dict_repr."""
    d = {1: 10, "a": "ABC"}
    return repr(d.keys()), repr(d.items()), repr(d.values()), x


def case_keys_set_operations(x, state):
    """test_keys_set_operations (without the set subclass, which is not traced)."""
    d1 = {"a": 1, "b": 2}
    d2 = {"b": 3, "c": 2}
    d3 = {"d": 4, "e": 5}
    d4 = {"d": 4}
    out = [d1.keys() & d1.keys(), d1.keys() & d2.keys(), d1.keys() & d3.keys(), d1.keys() & set(d1.keys()),
           d1.keys() & tuple(d1.keys()), d3.keys() & d4.keys(), d4.keys() & frozenset(d3.keys()),
           type(d1.keys() & []).__name__, type([] & d1.keys()).__name__,
           d1.keys() | d2.keys(), d1.keys() | (1, 2), d1.keys() ^ d2.keys(), d1.keys() ^ set(d3.keys()),
           d1.keys() - d2.keys(), d1.keys() - set(d3.keys()), d1.keys() - (0, 1),
           d1.keys().isdisjoint(d3.keys()), d1.keys().isdisjoint(["b"]), {}.keys().isdisjoint([])]
    return out, x


def case_items_set_operations(x, state):
    """test_items_set_operations."""
    d1 = {"a": 1, "b": 2}
    d2 = {"a": 2, "b": 2}
    d3 = {"d": 4, "e": 5}
    out = [d1.items() & d1.items(), d1.items() & d2.items(), d1.items() & d3.items(),
           d1.items() | d2.items(), d1.items() ^ d2.items(), d1.items() - d2.items(),
           d1.items() - set(d3.items()), d1.items().isdisjoint(d2.items()),
           d1.items().isdisjoint({("x", 1)})]
    return out, x + 1


def case_set_operations_with_iterator(x, state):
    """test_set_operations_with_iterator."""
    origin = {1: 2, 3: 4}
    items = origin.items()
    return (origin.keys() & iter([1, 2]), origin.keys() | iter([1, 2]), origin.keys() ^ iter([1, 2]),
            origin.keys() - iter([1, 2]), items & iter([(1, 2)]), items ^ iter([(1, 2)]),
            items | iter([(1, 2)]), items - iter([(1, 2)]), x)


def case_set_operations_with_noniterable(x, state):
    """test_set_operations_with_noniterable: TypeError."""
    try:
        {}.keys() & 1
    except TypeError as e:
        state["keys"] = str(e)
    try:
        {}.items() - 1
    except TypeError as e:
        state["items"] = str(e)
    return x


def case_views_are_live(x, state):
    """Views show later changes of their dict, in insertion order."""
    d = {"b": 1, "a": 2}
    k, v, i = d.keys(), d.values(), d.items()
    d["c"] = 3
    del d["b"]
    return list(k), list(v), list(i), len(k), x


def case_view_mapping(x, state):
    """test_dict.test_views_mapping: view.mapping is a read-only proxy of the dict."""
    d = {"a": 1, "b": 2}
    m = d.keys().mapping
    d["c"] = 3
    return type(m).__name__, m["c"], len(d.items().mapping), dict(d.values().mapping), x


def case_view_types(x, state):
    """test_abc_registry (types part): the views are the collections.abc views."""
    d = {"a": 1}
    return (type(d.keys()).__name__, type(d.values()).__name__, type(d.items()).__name__,
            isinstance(d.keys(), collections.abc.KeysView), isinstance(d.values(), collections.abc.ValuesView),
            isinstance(d.items(), collections.abc.ItemsView), isinstance(d.keys(), collections.abc.Set), x)


def case_return_views(x, state):
    """Views returned by the frame are real views of the (rebuilt) dict."""
    d = {"a": 1, "b": 2}
    return d.keys(), d.values(), d.items(), x


def case_views_over_tensors(x, state):
    """A dict of tensors: iterate its items and values, return its keys view."""
    d = {"a": x, "b": x * 2}
    total = x
    for k, v in d.items():
        total = total + v
    for v in d.values():
        total = total * 0.5 + v
    return total, d.keys()


def case_outside_dict_views(x, state):
    """Views of a dict from outside the frame, mutated inside."""
    state["a"] = 1
    k = state.keys()
    state["b"] = 2
    return list(k), "b" in k, x


NOT_PORTABLE = {
    "test_constructors_not_callable": "calls type(d.keys())() expecting TypeError: a type check, no frame semantics",
    "test_recursive_repr / test_deeply_nested_repr": "recursion-limit behaviour of repr on self-referencing dicts",
    "test_copy": "copy.copy of a view raises TypeError: the copy module's pickling protocol",
    "test_compare_error": "comparisons whose __eq__ raises inside a view comparison (user __eq__ on a key)",
    "test_pickle": "pickling of views",
    "test_abc_registry (registration part)": "collections.abc registration is interpreter state",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_dictviews_port(case):
    check(case)
