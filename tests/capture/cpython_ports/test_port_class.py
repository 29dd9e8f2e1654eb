"""CPython ``Lib/test/test_class.py`` and the portable parts of ``test_descr.py`` ported as
capture-vs-eager differential cases (see port_harness.py): special methods called by operators,
attribute hooks, ``__dict__``/``vars``, properties, class/static methods, ``super()``,
``__slots__``, descriptors and instance creation inside the traced frame."""
import pytest

from port_harness import check, parametrize

callLst = []


def trackCall(f):
    def track(*args, **kwargs):
        callLst.append((f.__name__, len(args)))
        return f(*args, **kwargs)
    return track


class AllTests:
    """test_class: a class whose special methods record their calls."""

    @trackCall
    def __add__(self, *args):
        return "add"

    @trackCall
    def __radd__(self, *args):
        return "radd"

    @trackCall
    def __sub__(self, *args):
        return "sub"

    @trackCall
    def __mul__(self, *args):
        return "mul"

    @trackCall
    def __eq__(self, *args):
        return True

    @trackCall
    def __lt__(self, *args):
        return False

    @trackCall
    def __len__(self):
        return 3

    @trackCall
    def __getitem__(self, key):
        return key

    @trackCall
    def __contains__(self, item):
        return item == 1

    @trackCall
    def __hash__(self):
        return 7

    @trackCall
    def __bool__(self):
        return True


def case_binary_ops(x, state):
    """testBinaryOps: operators call the special methods."""
    del callLst[:]
    t = AllTests()
    out = [t + 1, 1 + t, t - 1, t * 1, t == 1, t < 1, len(t), t[5], 1 in t, 2 in t, bool(t)]
    return out, list(callLst), x


class Point:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def total(self):
        return self.a + self.b


def case_instance_dict(x, state):
    """test_descr.test_dict / test_class.testSetattrWrapperNameIntern: __dict__ and attributes
    are one storage (issue 33: o.c = 3; dict(o.__dict__) missed c)."""
    o = state.setdefault("o", Point(1, 2))
    o.c = 3
    snap = dict(o.__dict__)
    o.__dict__["d"] = 4
    return snap, o.d, sorted(vars(o)), "c" in o.__dict__, len(o.__dict__), x


def case_new_object_dict(x, state):
    """__dict__ of an object created in the frame."""
    p = Point(x, 2)
    p.__dict__["c"] = 3
    p.d = 4
    return dict(p.__dict__), p.c, p.total() * 1.0, p


def case_dict_item_bypasses_setattr(x, state):
    """Writing __dict__ directly skips __setattr__ (test_descr.test_setattr_hooks)."""
    class Logged:
        def __setattr__(self, name, value):
            print("setattr", name)
            object.__setattr__(self, name, value)
    o = state.setdefault("logged", Logged())
    o.__dict__["quiet"] = 1
    o.loud = 2
    return o.quiet, o.loud, x


class Getattr:
    def __getattr__(self, name):
        return "missing " + name


def case_getattr_hook(x, state):
    """testGetSetAndDel / test_descr.test_getattr_hooks: __getattr__ is called for missing names."""
    g = Getattr()
    g.real = 1
    return g.real, g.spam, hasattr(g, "anything"), x


class Prop:
    def __init__(self):
        self._v = 1

    @property
    def v(self):
        return self._v * 10

    @v.setter
    def v(self, value):
        self._v = value


def case_properties(x, state):
    """test_descr.test_properties."""
    p = Prop()
    a = p.v
    p.v = 5
    return a, p.v, p._v, x


class Methods:
    counter = 0

    @classmethod
    def make(cls, v):
        obj = cls()
        obj.v = v
        return obj

    @staticmethod
    def twice(v):
        return v * 2

    def bump(self):
        type(self).counter += 0
        return self.v + 1


def case_class_and_static_methods(x, state):
    """test_descr.test_classmethods / test_staticmethods."""
    m = Methods.make(3)
    return m.v, Methods.twice(4), m.twice(5), m.bump(), Methods.twice(x)


class Base:
    def hello(self):
        return "base"

    def value(self, v):
        return v + 1


class Derived(Base):
    def hello(self):
        return "derived+" + super().hello()

    def value(self, v):
        return super().value(v) * 2


def case_super(x, state):
    """test_descr.test_supers."""
    d = Derived()
    return d.hello(), d.value(3), d.value(x), isinstance(d, Base), issubclass(Derived, Base), type(d).__name__


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1


def case_slots(x, state):
    """test_descr.test_slots: no __dict__, unset slots raise AttributeError."""
    s = Slotted()
    out = [s.a, hasattr(s, "__dict__"), hasattr(s, "b")]
    try:
        s.c = 1
    except AttributeError as e:
        out.append(type(e).__name__)
    return out, x


class Desc:
    def __get__(self, obj, owner=None):
        return "got from " + (type(obj).__name__ if obj is not None else "class")


class HasDesc:
    d = Desc()


def case_descriptor(x, state):
    """test_descr.test_descrdoc / non-data descriptors on instances and classes."""
    h = HasDesc()
    return h.d, HasDesc.d, x


def case_class_attribute_shadowing(x, state):
    """An instance attribute shadows a class attribute; deleting it reveals the class's."""
    class C:
        v = "class"
    c = C()
    c.v = "instance"
    a = c.v
    del c.v
    return a, c.v, C.v, x


def case_eq_and_hash(x, state):
    """testHashStuff / test_descr.test_hash_inheritance: __eq__ without __hash__ is unhashable."""
    class E:
        def __eq__(self, other):
            return True
    out = [E.__hash__ is None]
    try:
        hash(E())
    except TypeError as e:
        out.append(str(e))
    return out, x


def case_callable_object(x, state):
    """testCall: __call__."""
    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, v):
            return v * self.k
    return Scale(3)(x), callable(Scale(1))


def case_repr_str(x, state):
    """test_descr.test_repr / test_str."""
    class R:
        def __repr__(self):
            return "R()"

        def __str__(self):
            return "r"
    r = R()
    return repr(r), str(r), f"{r}", f"{r!r}", x


def case_object_in_container(x, state):
    """Objects created in the frame inside containers returned to the caller."""
    pts = [Point(i, x) for i in range(2)]
    return pts, {p.a: p for p in pts}


NOT_PORTABLE = {
    "testDel / test_descr.test_delete_hook": "__del__ timing (garbage collection)",
    "testSFBug532646 / testHashComparisonOfMethods (recursion)": "RecursionError from self-referencing __call__",
    "testBadTypeReturned / testMisbehavedByteCode": "C-level type checks of special method results",
    "test_descr (metaclasses, __init_subclass__, __class_getitem__, mro())": "class creation: class bodies are "
                                                                                "not captured",
    "test_descr.test_dynamics / test_assign_slice": "mutating classes at run time (type's own dict)",
    "test_descr (C types: int/str/list subclasses' internals)": "builtin subclass internals",
    "test_descr.test_weakref_segfault / test_cycle_through_dict": "gc and weak references",
    "test_class.testSetattrNonStringName / testTypeAttributeAccessErrorMessages": "type internals "
                                                                                  "(type.__setattr__)",
}


@pytest.mark.parametrize("case", parametrize(globals()))
def test_class_port(case):
    check(case)
