"""CPython ``Lib/test/test_dict.py`` ported as capture-vs-eager differential cases (see
port_harness.py): dict construction, merging, update, get/setdefault/pop/popitem, iteration that
mutates, equality, views, ``fromkeys``, ``__missing__`` and partial/object keys."""
import collections
import functools

import pytest

from port_harness import check, parametrize


def case_constructor(x, state):
    """test_constructor / test_literal_constructor / test_invalid_keyword_arguments."""
    out = [dict(), {}, dict(a=1, b=2), dict([("a", 1), ("b", 2)]), dict({"a": 1}, b=3), {"a": 1, **{"b": 2}}]
    try:
        dict({}, {})
    except TypeError as e:
        out.append(str(e))
    return out, x


def case_merge_operator(x, state):
    """test_merge_operator."""
    a = {0: 0, 1: 1, 2: 1}
    b = {1: 1, 2: 2, 3: 3}
    c = a.copy()
    c |= b
    d = b.copy()
    d |= a
    e = a.copy()
    e |= [(1, 1), (2, 2), (3, 3)]
    return a | b, c, b | a, d, e, x + 1


def case_bool_len_contains(x, state):
    """test_bool / test_len / test_contains."""
    d = {"a": 1, "b": 2}
    return bool({}), bool(d), len(d), len({}), "a" in d, "c" in d, "c" not in d, x


def case_keys_values_items(x, state):
    """test_keys / test_values / test_items."""
    d = {"a": 1, "b": 2}
    return list(d.keys()), list(d.values()), list(d.items()), sorted(d), repr({}.keys()), x


def case_getitem(x, state):
    """test_getitem."""
    d = {"a": 1, "b": 2}
    out = [d["a"], d["b"]]
    d["c"] = 3
    d["a"] = 4
    out.append(d["c"])
    out.append(d["a"])
    del d["b"]
    out.append(d)
    try:
        d["b"]
    except KeyError as e:
        out.append(repr(e))
    return out, x


def case_clear(x, state):
    """test_clear."""
    d = {1: 1, 2: 2, 3: 3}
    d.clear()
    return d, x


def case_update(x, state):
    """test_update."""
    d = {}
    d.update({1: 100})
    d.update({2: 20})
    d.update({1: 1, 2: 2, 3: 3})
    d.update()
    d.update([(4, 4)], five=5)
    out = [dict(d)]
    try:
        d.update(None)
    except (TypeError, AttributeError) as e:
        out.append(type(e).__name__)
    try:
        {}.update({}, {})
    except TypeError as e:
        out.append(str(e))
    return out, x


def case_fromkeys(x, state):
    """test_fromkeys."""
    return (dict.fromkeys("abc"), dict.fromkeys((4, 5), 0), dict.fromkeys([]), {}.fromkeys([1, 2], "v"),
            type(collections.OrderedDict.fromkeys("ab")).__name__, x)


def case_copy(x, state):
    """test_copy: a copy is a new dict with the same items."""
    d = {1: 1, 2: 2, 3: 3}
    c = d.copy()
    c[4] = 4
    return d, c, d.copy() == d, {}.copy(), x


def case_get(x, state):
    """test_get."""
    d = {}
    out = [d.get("c"), d.get("c", 3)]
    d = {"a": 1, "b": 2}
    out += [d.get("c"), d.get("c", 3), d.get("a"), d.get("a", 3)]
    return out, x


def case_setdefault(x, state):
    """test_setdefault."""
    d = {}
    out = [d.setdefault("key0"), d.setdefault("key0", [])]
    d.setdefault("key", []).append(3)
    d.setdefault("key", []).append(4)
    out.append(d["key"])
    out.append(d)
    return out, x


def case_popitem(x, state):
    """test_popitem (small sizes): LIFO order, KeyError on empty."""
    a = {}
    for i in range(5):
        a[repr(i)] = i
    popped = [a.popitem() for _ in range(5)]
    try:
        {}.popitem()
    except KeyError as e:
        popped.append(str(e))
    return popped, a, x


def case_pop(x, state):
    """test_pop."""
    d = {}
    k, v = "abc", "def"
    d[k] = v
    out = []
    try:
        d.pop("ghi")
    except KeyError as e:
        out.append(repr(e))
    out.append(d.pop(k))
    out.append(len(d))
    out.append(d.pop(k, v))
    d[k] = v
    out.append(d.pop(k, 1))
    return out, x


def case_mutating_iteration(x, state):
    """test_mutating_iteration: changing size while iterating raises RuntimeError."""
    d = {1: 1}
    try:
        for i in d:
            d[i + 1] = 1
    except RuntimeError as e:
        return str(e), x
    return None, x


def case_eq(x, state):
    """test_eq."""
    return {} == {}, {1: 2} == {1: 2}, {1: 2} == {1: 3}, {1: 2} != {2: 2}, {"a": 1, "b": 2} == {"b": 2, "a": 1}, x


def case_keys_contained(x, state):
    """test_keys_contained."""
    d = {"a": 1, "b": 2}
    e = {"a": 1}
    return (d.keys() > e.keys(), e.keys() < d.keys(), d.keys() >= d.keys(), e.keys() <= {"a", "z"},
            d.items() > e.items(), {}.keys() < d.keys(), x)


def case_dictview_set_operations_on_keys(x, state):
    """test_dictview_set_operations_on_keys."""
    k1 = {1: 1, 2: 2}.keys()
    k2 = {1: 1, 2: 2, 3: 3}.keys()
    k3 = {4: 4}.keys()
    return k1 - k2, k1 - k3, k2 - k1, k2 - k3, k1 | k2, k1 | k3, k1 ^ k2, k1 ^ k3, x


def case_dictview_mixed_set_operations(x, state):
    """test_dictview_mixed_set_operations."""
    return ({1: 1}.keys() == {1}, {1} == {1: 1}.keys(), {1: 1}.keys() | {2}, {2} | {1: 1}.keys(),
            {(1, 1): 1}.keys() == {1: 1}.items(), {1: 1}.items() | {2}, x)


def case_missing(x, state):
    """test_missing: a dict subclass's __missing__ (the frame runs what Python runs)."""
    class D(dict):
        def __missing__(self, key):
            return 42
    d = D({1: 2, 3: 4})
    return d[1], d[3], 2 in d, d[2], hasattr(dict, "__missing__"), x


def case_tuple_keyerror(x, state):
    """test_tuple_keyerror: a tuple key in the KeyError."""
    d = {}
    try:
        d[(1,)]
    except KeyError as e:
        return e.args, x
    return None, x


def case_reversed(x, state):
    """test_reversed."""
    d = {"a": 1, "b": 2, "foo": 0, "c": 3, "d": 4}
    del d["foo"]
    return list(reversed(d)), list(reversed(d.values())), list(reversed(d.items())), list(reversed({})), x


def case_dict_copy_order(x, state):
    """test_dict_copy_order."""
    od = collections.OrderedDict([("a", 1), ("b", 2)])
    od.move_to_end("a")
    expected = list(od.items())
    return list(dict(od).items()) == expected, list(dict(od)), x


def case_partial_as_key(x, state):
    """A functools.partial object as a dict key (issue 33: KeyError under capture)."""
    p = functools.partial(max, 1)
    d = {p: "made here"}
    q = state.setdefault("p", functools.partial(min, 3))
    d[q] = "from outside"
    return d[p], d[q], len(d), p in d, x


def case_dict_of_tensors(x, state):
    """Items of tensors: get, setdefault, pop and update over a dict the frame builds."""
    d = {"a": x}
    d.setdefault("b", x * 2)
    d.update(c=x + 1)
    y = d.pop("a") + d.get("z", x)
    return y + d["b"], sorted(d)


def case_outside_dict_mutation(x, state):
    """A dict from outside the frame mutated inside: the caller sees the changes."""
    state["n"] = state.get("n", 0) + 1
    state.update(k="v")
    state.setdefault("lst", []).append(1)
    return x * 2


NOT_PORTABLE = {
    "test_copy_fuzz / test_copy_maintains_tracking / test_copy_noncompact": "gc tracking and dict internals",
    "test_setdefault_atomic / test_setitem_atomic_at_resize": "counts __hash__/__eq__ calls of a key class "
                                                              "(dict internals)",
    "test_mutating_lookup / test_bad_key / test_errors_in_view_containment_check": "keys whose __eq__/__hash__ "
                                                                                     "raise or mutate the dict",
    "test_resize1 / test_resize2 / test_empty_presized_dict_in_freelist": "dict resizing internals",
    "test_container_iterator / test_track_*": "gc tracking (gc.is_tracked)",
    "test_splittable_*": "key-sharing (split) dict internals via sys.getsizeof",
    "test_*_pickling": "pickling of dict iterators",
    "test_instance_dict_getattr_str_subclass / test_object_set_item_single_instance_non_str_key": "str subclass "
                                                                                                    "keys in __dict__",
    "test_reentrant_insertion / test_merge_and_mutate / test_free_after_iterating / *use_after_free*": "crash "
        "regressions with keys whose __eq__/__del__ mutate dicts (C-level robustness)",
    "test_getitem_knownhash": "_testcapi",
    "test_str_nonstr": "large generated matrix of str subclass keys; the str-key paths are ported",
    "test_repr_deep / test_repr (recursive)": "recursion limit",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_dict_port(case):
    check(case)
