/* The guard checks of compiled entries, run in C (capture/guard_program.py lowers them).

   A compiled entry is reused only while every guard recorded for it holds: ~100 expressions
   for a LeNet5 train step (each parameter's shape and dtype, each sub-Cell and hyperparameter
   read while tracing). Evaluated as one generated Python function they cost ~6 us per call;
   here the same checks are a flat list of instructions over registers:

     value instructions  (op, dst, a, b): dst = args[a] | getattr(r[a], consts[b])
                                          | r[a][consts[b]] | type(r[a]) | len(r[a]) | r[a](r[b])
                                          | r[a]() (a weak reference held by the entry)
                                          | the object of the weak reference consts[-1 - a]
                                            (an object guarded by identity, held weakly: once it
                                            died, the check fails -- no dead object is read)
     test instructions   (op, 0, a, b):   r[a] is r[b], ==, !=, in, not in, shape equal, item
                                          types equal, not hasattr, a tensor's type, array type,
                                          shape and dtype -- the first that fails ends the check

   An operand r[x] with x < 0 is the constant consts[-1 - x] (no instruction loads it).

   A check that raises an Exception (a missing attribute, a failing __eq__) fails, as the
   Python guard does when the cache catches its error; BaseExceptions (KeyboardInterrupt)
   propagate. Guards the lowering does not handle run afterwards in a residual Python function.

   Array shapes and dtypes are compared in place where the numpy array layout was verified from
   Python (the offsets of ``nd``, ``dimensions`` and ``descr`` in the array object): ``a.shape``
   builds a tuple. A tensor test (capture.guards.GuardSet.tensor: ``type(t) is T and type(_d :=
   t._data) is A and _d.shape == S and (_d.dtype is D or _d.dtype == D)``) reads ``t._data``
   straight from its slot while T is the type it was when the program was made (its version
   tag): a LeNet5 step checks 22 tensors, and in a training loop, with the caches taken by the
   kernels, each attribute lookup it saves is a few cache misses. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "msjit_weakref.h"  /* msjit_referent() */
#include <structmember.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    V_ARG = 1, V_ATTR, V_ITEM, V_TYPE, V_LEN, V_CALL, V_CALL0, V_DEREF,
    T_IS = 16, T_ISNOT, T_EQ, T_NE, T_EQ_ID, T_IN, T_NOTIN, T_SHAPE, T_NOT_HASATTR, T_TRUE, T_ITEM_TYPES,
    T_TENSOR,
};

typedef struct {
    PyObject_HEAD
    int32_t *code;        /* 4 ints an instruction */
    Py_ssize_t n_code;    /* instructions */
    Py_ssize_t n_regs;
    PyObject *consts;     /* tuple */
    PyObject *residual;   /* callable(args) -> truth, or None */
    PyObject *ndarray;    /* numpy.ndarray, or None: shapes through the ``shape`` attribute */
    Py_ssize_t nd_offset, dims_offset, descr_offset;
    Py_ssize_t *slot_offset;       /* per instruction: where a tensor test reads ``_data`` (0: by name) */
    unsigned int *slot_version;    /* ... while its tensor type has this version tag */
    /* the stable section: guards on held objects' plain attributes (see below) */
    int32_t *stable; Py_ssize_t n_stable;
    PyObject *watched;             /* tuple: (object, 1 if it is a dict watched itself else 0) */
    PyTypeObject **w_type; unsigned int *w_tag; PyObject **w_dict; uint64_t *w_version;
    int stable_holds;              /* the section held when the watched state was last recorded */
    vectorcallfunc vectorcall;
} Program;

static PyObject *DATA_NAME;        /* "_data" */


/* the truth of ``a <op> b`` */
static int
compare_true(PyObject *a, PyObject *b, int op)
{
    PyObject *r = PyObject_RichCompare(a, b, op);
    if (r == NULL)
        return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* r[a] == shape (a tuple of ints) */
static int
shape_equal(Program *p, PyObject *array, PyObject *shape)
{
    Py_ssize_t n = PyTuple_GET_SIZE(shape);
    if (p->ndarray != Py_None && Py_TYPE(array) == (PyTypeObject *)p->ndarray) {
        int nd = *(int *)((char *)array + p->nd_offset);
        if (nd != n)
            return 0;
        Py_ssize_t *dims = *(Py_ssize_t **)((char *)array + p->dims_offset);
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t want = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
            if (want == -1 && PyErr_Occurred())
                return -1;
            if (dims[i] != want)
                return 0;
        }
        return 1;
    }
    PyObject *got = PyObject_GetAttrString(array, "shape");
    if (got == NULL)
        return -1;
    int r = compare_true(got, shape, Py_EQ);
    Py_DECREF(got);
    return r;
}

/* every item of the sequence r[a] has exactly the type at the same place of ``types`` */
static int
item_types_equal(PyObject *seq, PyObject *types)
{
    PyObject *fast = PySequence_Fast(seq, "item types");
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int ok = n == PyTuple_GET_SIZE(types);
    for (Py_ssize_t i = 0; ok && i < n; i++)
        ok = (PyObject *)Py_TYPE(PySequence_Fast_GET_ITEM(fast, i)) == PyTuple_GET_ITEM(types, i);
    Py_DECREF(fast);
    return ok;
}

/* the tensor test of instruction i on t, spec = (tensor type, array type, shape, dtype) */
static int
tensor_matches(Program *p, Py_ssize_t i, PyObject *t, PyObject *spec)
{
    PyTypeObject *tensor_type = (PyTypeObject *)PyTuple_GET_ITEM(spec, 0);
    if (Py_TYPE(t) != tensor_type)
        return 0;
    PyObject *data;
    /* (a type's version tag is 0 once it is modified, and a tag is never given out twice) */
    if (i >= 0 && p->slot_offset[i] > 0 && tensor_type->tp_version_tag == p->slot_version[i]) {
        data = *(PyObject **)((char *)t + p->slot_offset[i]);
        if (data == NULL)
            return 0; /* (reading the empty slot raises AttributeError: the guard fails) */
        Py_INCREF(data);
    } else if ((data = PyObject_GetAttr(t, DATA_NAME)) == NULL) {
        return -1;
    }
    int ok = Py_TYPE(data) == (PyTypeObject *)PyTuple_GET_ITEM(spec, 1);
    if (ok)
        ok = shape_equal(p, data, PyTuple_GET_ITEM(spec, 2));
    if (ok == 1) {
        PyObject *want = PyTuple_GET_ITEM(spec, 3), *dtype;
        if (p->ndarray != Py_None && Py_TYPE(data) == (PyTypeObject *)p->ndarray && p->descr_offset > 0)
            dtype = Py_NewRef(*(PyObject **)((char *)data + p->descr_offset));
        else
            dtype = PyObject_GetAttrString(data, "dtype");
        if (dtype == NULL)
            ok = -1;
        else {
            ok = dtype == want ? 1 : compare_true(dtype, want, Py_EQ);
            Py_DECREF(dtype);
        }
    }
    Py_DECREF(data);
    return ok;
}

/* where instances of ``type`` keep ``_data`` when it is a plain slot read by the generic
   attribute lookup (else 0), and the type's version tag that makes the answer stand */
static Py_ssize_t
data_slot(PyTypeObject *type, unsigned int *version)
{
    if (type->tp_getattro != PyObject_GenericGetAttr)
        return 0;
#if PY_VERSION_HEX >= 0x030D0000
    PyUnstable_Type_AssignVersionTag(type); /* (older versions give one in the lookup below) */
#endif
    PyObject *descr = PyObject_GetAttr((PyObject *)type, DATA_NAME); /* (the member descriptor itself) */
    if (descr == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t offset = 0;
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
#ifdef Py_RELATIVE_OFFSET
        int relative = m->flags & Py_RELATIVE_OFFSET;
#else
        int relative = 0;
#endif
        if (m->type == T_OBJECT_EX && !relative && m->offset > 0 && type->tp_version_tag != 0) {
            offset = m->offset;
            *version = type->tp_version_tag;
        }
    }
    Py_DECREF(descr);
    return offset;
}

/* The stable section. A guard on a held object's plain attribute (``self.fc1 is o34``,
   ``self.has_bias is False``: read from the instance dict, the class holding no data
   descriptor of that name) or on a held dict's item is decided by that dict's contents and the
   class alone, where it compares by identity or against an immutable value (an int, a str, a
   tuple of them). capture/guard_program.py puts such guards in a section of their own and
   lists the objects they read (``watched``). Once the section held, it is run again only when
   one of those objects changed: another type, a type modified (its version tag), another
   instance dict, or a dict modified (its version, which CPython 3.11 and 3.12 give a dict
   anew at each change, ``ma_version_tag``). A LeNet5 train step has ~60 such guards on ~12
   objects: reading 12 versions replaces 60 attribute lookups. (3.13 no longer renews the
   version when an attribute kept in the object's inline values changes, nor tells dict
   watchers: the lowering keeps every guard in the main section there.) */
#if PY_VERSION_HEX < 0x030D0000
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static inline uint64_t
dict_version(PyObject *d)
{
    return ((PyDictObject *)d)->ma_version_tag;
}
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* the instance dict attached to ``o`` (nothing made, no lookup), else NULL */
static PyObject *
attached_dict(PyObject *o)
{
    PyTypeObject *type = Py_TYPE(o);
    PyObject *d = NULL;
    if (type->tp_flags & Py_TPFLAGS_MANAGED_DICT)
        d = ((PyObject **)o)[-3]; /* (3.11, 3.12: three words before the object; 3.12 tags values with bit 0) */
    else if (type->tp_dictoffset > 0)
        d = *(PyObject **)((char *)o + type->tp_dictoffset);
    return d != NULL && ((uintptr_t)d & 1) == 0 && PyDict_CheckExact(d) ? d : NULL;
}

/* watched object k (borrowed), or NULL where it is held weakly and died */
static inline PyObject *
watched_object(Program *p, Py_ssize_t k)
{
    PyObject *o = PyTuple_GET_ITEM(PyTuple_GET_ITEM(p->watched, k), 0);
    if (PyWeakref_CheckRef(o)) { /* (an object the entry holds weakly) */
        o = PyWeakref_GET_OBJECT(o); /* (borrowed: nothing runs before the caller is done with it) */
        return o == Py_None ? NULL : o;
    }
    return o;
}

/* the dict watched for object k (NULL: none, nothing can be recorded) */
static inline PyObject *
watched_dict(Program *p, Py_ssize_t k, PyObject *o)
{
    if (PyTuple_GET_ITEM(PyTuple_GET_ITEM(p->watched, k), 1) == Py_True)
        return PyDict_CheckExact(o) ? o : NULL;
    return attached_dict(o);
}

static int
watched_unchanged(Program *p)
{
    Py_ssize_t n = PyTuple_GET_SIZE(p->watched);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *o = watched_object(p, k);
        if (o == NULL)
            return 0; /* (it died: the section runs again, and fails) */
        PyTypeObject *type = Py_TYPE(o);
        if (type != p->w_type[k] || type->tp_version_tag != p->w_tag[k])
            return 0;
        PyObject *d = watched_dict(p, k, o);
        if (d != p->w_dict[k] || dict_version(d) != p->w_version[k])
            return 0;
    }
    return 1;
}

/* record the watched state (the section just held); 0 where it cannot be recorded */
static int
record_watched(Program *p)
{
    Py_ssize_t n = PyTuple_GET_SIZE(p->watched);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *o = watched_object(p, k);
        PyObject *d = o == NULL ? NULL : watched_dict(p, k, o);
        if (d == NULL || Py_TYPE(o)->tp_version_tag == 0)
            return 0; /* (a type without a valid tag: every change of it would go unseen) */
        p->w_type[k] = Py_TYPE(o);
        p->w_tag[k] = Py_TYPE(o)->tp_version_tag;
        p->w_dict[k] = d; /* (compared by address only: the object or dict holds it) */
        p->w_version[k] = dict_version(d);
    }
    return 1;
}
#else
static int watched_unchanged(Program *p) { return 0; }
static int record_watched(Program *p) { return 0; }
#endif

/* 1: every guard of ``code`` (``n`` instructions) holds; 0: one fails; -1: an error is set */
static int
run(Program *p, const int32_t *code, Py_ssize_t n, PyObject *args, PyObject **reg)
{
    const int32_t *c = code;
    PyObject *consts = p->consts;
#define R(x) ((x) >= 0 ? reg[x] : PyTuple_GET_ITEM(consts, -1 - (x)))
    for (Py_ssize_t i = 0; i < n; i++, c += 4) {
        int32_t dst = c[1], a = c[2], b = c[3];
        PyObject *v;
        int ok;
        switch (c[0]) {
        case V_ARG:
            if (a >= PyTuple_GET_SIZE(args))
                return 0;
            v = PyTuple_GET_ITEM(args, a);
            Py_INCREF(v);
            reg[dst] = v;
            continue;
        case V_ATTR:
            if ((reg[dst] = PyObject_GetAttr(R(a), PyTuple_GET_ITEM(consts, b))) == NULL)
                return -1;
            continue;
        case V_ITEM:
            if ((reg[dst] = PyObject_GetItem(R(a), PyTuple_GET_ITEM(consts, b))) == NULL)
                return -1;
            continue;
        case V_TYPE:
            v = (PyObject *)Py_TYPE(R(a));
            Py_INCREF(v);
            reg[dst] = v;
            continue;
        case V_CALL:
            if ((reg[dst] = PyObject_CallOneArg(R(a), R(b))) == NULL)
                return -1;
            continue;
        case V_CALL0:
            if ((reg[dst] = PyObject_CallNoArgs(R(a))) == NULL)
                return -1;
            continue;
        case V_DEREF:
            if ((reg[dst] = msjit_referent(R(a))) == NULL)
                return 0; /* (the held object died: nothing can be it) */
            continue;
        case V_LEN: {
            Py_ssize_t n = PyObject_Length(R(a));
            if (n < 0)
                return -1;
            if ((reg[dst] = PyLong_FromSsize_t(n)) == NULL)
                return -1;
            continue;
        }
        case T_IS: ok = R(a) == R(b); break;
        case T_ISNOT: ok = R(a) != R(b); break;
        case T_EQ: ok = compare_true(R(a), R(b), Py_EQ); break;
        case T_NE: ok = compare_true(R(a), R(b), Py_NE); break;
        case T_EQ_ID: ok = R(a) == R(b) ? 1 : compare_true(R(a), R(b), Py_EQ); break;
        case T_IN: ok = PySequence_Contains(R(b), R(a)); break;
        case T_NOTIN:
            ok = PySequence_Contains(R(b), R(a));
            if (ok >= 0)
                ok = !ok;
            break;
        case T_SHAPE: ok = shape_equal(p, R(a), PyTuple_GET_ITEM(consts, b)); break;
        case T_ITEM_TYPES: ok = item_types_equal(R(a), PyTuple_GET_ITEM(consts, b)); break;
        case T_TENSOR: ok = tensor_matches(p, code == p->code ? i : -1, R(a), PyTuple_GET_ITEM(consts, b)); break;
        case T_NOT_HASATTR:
            v = PyObject_GetAttr(R(a), PyTuple_GET_ITEM(consts, b));
            if (v != NULL) {
                Py_DECREF(v);
                ok = 0;
            } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
                PyErr_Clear();
                ok = 1;
            } else {
                ok = -1;
            }
            break;
        case T_TRUE: ok = PyObject_IsTrue(R(a)); break;
        default:
            PyErr_Format(PyExc_SystemError, "guard program: bad instruction %d", (int)c[0]);
            return -1;
        }
        if (ok <= 0)
            return ok;
    }
#undef R
    return 1;
}

static PyObject *
program_vectorcall(PyObject *self, PyObject *const *argv, size_t nargsf, PyObject *kwnames)
{
    Program *p = (Program *)self;
    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "a guard program takes one argument (the call's arguments)");
        return NULL;
    }
    PyObject *args = argv[0];
    if (!PyTuple_Check(args)) {
        PyErr_SetString(PyExc_TypeError, "a guard program checks a tuple of arguments");
        return NULL;
    }
    PyObject *small[128];
    PyObject **reg = p->n_regs <= 128 ? small : PyMem_Calloc((size_t)p->n_regs, sizeof(PyObject *));
    if (reg == NULL)
        return PyErr_NoMemory();
    if (reg == small)
        memset(small, 0, sizeof(PyObject *) * (size_t)p->n_regs);
    int ok = 1;
    if (p->n_stable && !(p->stable_holds && watched_unchanged(p))) {
        p->stable_holds = 0;
        ok = run(p, p->stable, p->n_stable, args, reg);
        if (ok == 1)
            p->stable_holds = record_watched(p);
    }
    if (ok == 1)
        ok = run(p, p->code, p->n_code, args, reg);
    for (Py_ssize_t i = 0; i < p->n_regs; i++)
        Py_XDECREF(reg[i]);
    if (reg != small)
        PyMem_Free(reg);
    if (ok < 0) {
        /* the cache counts a guard's error as a failed guard; an interrupt propagates */
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            return NULL;
        PyErr_Clear();
        ok = 0;
    }
    if (ok && p->residual != Py_None)
        return PyObject_CallOneArg(p->residual, args);
    return PyBool_FromLong(ok);
}

/* Check every index of ``n`` instructions once, so running needs no bounds checks: a register
   operand is one written by an earlier instruction of the same code, or a constant. -1 (an error
   set) where one is bad. */
static int
validate(const int32_t *src, Py_ssize_t n, Py_ssize_t n_regs, PyObject *consts, const char *section)
{
    Py_ssize_t n_consts = PyTuple_GET_SIZE(consts);
    char *written = PyMem_Calloc((size_t)n_regs + 1, 1);
    if (written == NULL) {
        PyErr_NoMemory();
        return -1;
    }
#define REG_OK(x, before) ((x) < 0 ? -1 - (x) < n_consts : (x) < (before) && written[x])
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t op = src[4 * i], dst = src[4 * i + 1], a = src[4 * i + 2], b = src[4 * i + 3];
        int bad;
        switch (op) {
        case V_ARG: bad = dst < 0 || dst >= n_regs || a < 0; break;
        case V_ATTR: case V_ITEM:
            bad = dst < 0 || dst >= n_regs || !REG_OK(a, dst) || b < 0 || b >= n_consts; break;
        case V_TYPE: case V_LEN: case V_CALL0: bad = dst < 0 || dst >= n_regs || !REG_OK(a, dst); break;
        case V_DEREF:
            bad = dst < 0 || dst >= n_regs || a >= 0 || !REG_OK(a, dst)
                  || !PyWeakref_CheckRef(PyTuple_GET_ITEM(consts, -1 - a));
            break;
        case V_CALL: bad = dst < 0 || dst >= n_regs || !REG_OK(a, dst) || !REG_OK(b, dst); break;
        case T_IS: case T_ISNOT: case T_EQ: case T_NE: case T_EQ_ID: case T_IN: case T_NOTIN:
            bad = !REG_OK(a, n_regs) || !REG_OK(b, n_regs); break;
        case T_SHAPE: case T_ITEM_TYPES:
            bad = !REG_OK(a, n_regs) || b < 0 || b >= n_consts || !PyTuple_Check(PyTuple_GET_ITEM(consts, b));
            break;
        case T_NOT_HASATTR: bad = !REG_OK(a, n_regs) || b < 0 || b >= n_consts; break;
        case T_TENSOR: {
            PyObject *spec = b < 0 || b >= n_consts ? NULL : PyTuple_GET_ITEM(consts, b);
            bad = !REG_OK(a, n_regs) || spec == NULL || !PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4
                  || !PyType_Check(PyTuple_GET_ITEM(spec, 0)) || !PyType_Check(PyTuple_GET_ITEM(spec, 1))
                  || !PyTuple_Check(PyTuple_GET_ITEM(spec, 2));
            break;
        }
        case T_TRUE: bad = !REG_OK(a, n_regs); break;
        default: bad = 1;
        }
        if (!bad && op < T_IS) {  /* each register is written once */
            bad = written[dst];
            written[dst] = 1;
        }
        if (bad) {
            PyMem_Free(written);
            PyErr_Format(PyExc_ValueError, "guard program: bad instruction %zd of the %s code", i, section);
            return -1;
        }
    }
#undef REG_OK
    PyMem_Free(written);
    return 0;
}

/* a copy of a code buffer (4 int32 an instruction), its length in ``*n``; NULL with an error set */
static int32_t *
copy_code(Py_buffer *code, Py_ssize_t *n)
{
    if (code->len % 16 != 0) {
        PyErr_SetString(PyExc_ValueError, "guard program: code must be 4 int32 an instruction");
        return NULL;
    }
    int32_t *copy = PyMem_Malloc(code->len ? (size_t)code->len : 1);
    if (copy == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(copy, code->buf, (size_t)code->len);
    *n = code->len / 16;
    return copy;
}

static PyObject *
program_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    Py_buffer code, stable = {0};
    PyObject *consts, *residual, *ndarray, *watched = NULL;
    Py_ssize_t n_regs, nd_offset, dims_offset, descr_offset;
    if (!PyArg_ParseTuple(args, "y*O!nOOnnn|y*O!", &code, &PyTuple_Type, &consts, &n_regs, &residual,
                          &ndarray, &nd_offset, &dims_offset, &descr_offset, &stable, &PyTuple_Type, &watched))
        return NULL;
    Program *p = n_regs < 0 ? NULL : (Program *)type->tp_alloc(type, 0);
    if (p == NULL) {
        if (n_regs < 0)
            PyErr_SetString(PyExc_ValueError, "guard program: n_regs < 0");
        goto done;
    }
    p->consts = Py_NewRef(consts);
    p->residual = Py_NewRef(residual);
    p->ndarray = Py_NewRef(ndarray);
    p->watched = watched != NULL ? Py_NewRef(watched) : PyTuple_New(0);
    if (p->watched == NULL || (p->code = copy_code(&code, &p->n_code)) == NULL)
        goto fail;
    if (stable.buf != NULL && (p->stable = copy_code(&stable, &p->n_stable)) == NULL)
        goto fail;
    if (validate(p->code, p->n_code, n_regs, consts, "main") < 0
            || validate(p->stable, p->n_stable, n_regs, consts, "stable") < 0)
        goto fail;
    Py_ssize_t n = p->n_code, n_watched = PyTuple_GET_SIZE(p->watched);
    for (Py_ssize_t k = 0; k < n_watched; k++) {
        PyObject *item = PyTuple_GET_ITEM(p->watched, k);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2 || !PyBool_Check(PyTuple_GET_ITEM(item, 1))) {
            PyErr_SetString(PyExc_ValueError, "guard program: watched items are (object, is_dict)");
            goto fail;
        }
    }
    p->slot_offset = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    p->slot_version = PyMem_Calloc((size_t)n + 1, sizeof(unsigned int));
    p->w_type = PyMem_Calloc((size_t)n_watched + 1, sizeof(PyTypeObject *));
    p->w_tag = PyMem_Calloc((size_t)n_watched + 1, sizeof(unsigned int));
    p->w_dict = PyMem_Calloc((size_t)n_watched + 1, sizeof(PyObject *));
    p->w_version = PyMem_Calloc((size_t)n_watched + 1, sizeof(uint64_t));
    if (p->slot_offset == NULL || p->slot_version == NULL || p->w_type == NULL || p->w_tag == NULL
            || p->w_dict == NULL || p->w_version == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (p->code[4 * i] == T_TENSOR)
            p->slot_offset[i] = data_slot((PyTypeObject *)PyTuple_GET_ITEM(PyTuple_GET_ITEM(consts, p->code[4 * i + 3]), 0),
                                          &p->slot_version[i]);
    p->n_regs = n_regs;
    p->nd_offset = nd_offset;
    p->dims_offset = dims_offset;
    p->descr_offset = descr_offset;
    p->vectorcall = program_vectorcall;
    goto done;
fail:
    Py_CLEAR(p);
done:
    PyBuffer_Release(&code);
    if (stable.buf != NULL)
        PyBuffer_Release(&stable);
    return (PyObject *)p;
}

static int
program_traverse(Program *p, visitproc visit, void *arg)
{
    Py_VISIT(p->watched);
    Py_VISIT(p->consts);
    Py_VISIT(p->residual);
    Py_VISIT(p->ndarray);
    return 0;
}

static int
program_clear(Program *p)
{
    Py_CLEAR(p->watched);
    Py_CLEAR(p->consts);
    Py_CLEAR(p->residual);
    Py_CLEAR(p->ndarray);
    return 0;
}

static void
program_dealloc(Program *p)
{
    PyObject_GC_UnTrack(p);
    program_clear(p);
    PyMem_Free(p->code);
    PyMem_Free(p->slot_offset);
    PyMem_Free(p->slot_version);
    PyMem_Free(p->stable);
    PyMem_Free(p->w_type);
    PyMem_Free(p->w_tag);
    PyMem_Free(p->w_dict);
    PyMem_Free(p->w_version);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyObject *
program_direct_reads(Program *p, void *closure)
{
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < p->n_code; i++)
        n += p->slot_offset[i] > 0;
    return PyLong_FromSsize_t(n);
}

static PyObject *
program_stable_size(Program *p, void *closure)
{
    return PyLong_FromSsize_t(p->n_stable);
}

static PyObject *
program_stable_holds(Program *p, void *closure)
{
    return PyBool_FromLong(p->stable_holds);
}

static PyGetSetDef program_getset[] = {
    {"direct_reads", (getter)program_direct_reads, NULL, "tensor tests reading ``_data`` from its slot", NULL},
    {"stable_size", (getter)program_stable_size, NULL, "instructions in the stable section", NULL},
    {"stable_holds", (getter)program_stable_holds, NULL,
     "whether the stable section held with the watched state last recorded (it is skipped while that stands)", NULL},
    {NULL},
};

static PyTypeObject ProgramType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "capture._guard_vm.Program",
    .tp_basicsize = sizeof(Program),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Program(code, consts, n_regs, residual, ndarray, nd_offset, dims_offset, descr_offset[, stable, watched]): "
              "a compiled guard check",
    .tp_new = program_new,
    .tp_dealloc = (destructor)program_dealloc,
    .tp_traverse = (traverseproc)program_traverse,
    .tp_clear = (inquiry)program_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Program, vectorcall),
    .tp_getset = program_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "capture._guard_vm", "Guard checks of compiled entries, run in C.", -1, NULL,
};

PyMODINIT_FUNC
PyInit__guard_vm(void)
{
    if (PyType_Ready(&ProgramType) < 0)
        return NULL;
    if (DATA_NAME == NULL && (DATA_NAME = PyUnicode_InternFromString("_data")) == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&ProgramType);
    if (PyModule_AddObject(m, "Program", (PyObject *)&ProgramType) < 0) {
        Py_DECREF(&ProgramType);
        Py_DECREF(m);
        return NULL;
    }
#define ADD(name) if (PyModule_AddIntConstant(m, #name, name) < 0) { Py_DECREF(m); return NULL; }
    ADD(V_ARG) ADD(V_ATTR) ADD(V_ITEM) ADD(V_TYPE) ADD(V_LEN) ADD(V_CALL) ADD(V_CALL0) ADD(V_DEREF)
    ADD(T_IS) ADD(T_ISNOT) ADD(T_EQ) ADD(T_NE) ADD(T_EQ_ID) ADD(T_IN) ADD(T_NOTIN) ADD(T_SHAPE)
    ADD(T_NOT_HASATTR) ADD(T_TRUE) ADD(T_ITEM_TYPES) ADD(T_TENSOR)
#undef ADD
    return m;
}
