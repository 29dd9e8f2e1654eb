/* A compiled training step's steady-state call, in C (codegen/cpu/call_snapshots.py builds it).

   Once a graph that updates every parameter in place has run from a snapshot of its argument
   pointers, the next call with the same donated parameter arrays needs almost nothing from
   Python: the pointers of the parameters and of everything computed from them are in the
   argument block already. What a call still does is what this object does:

     1. take the runner's lock (not blocking: a busy runner is left to the Python path);
     2. check that each parameter array is the one donated before and that its owner and the
        argument list are still its only holders (the runner's own refcount rule);
     3. point the block at this call's other inputs (the batch) where they changed, after
        checking their dtype and layout through the buffer protocol;
     4. choose each returned output's array from its pool (one only the pool holds);
     5. enter the call region (BLAS on one thread, the pool's workers spinning), run the
        segments with the GIL released, leave the region;
     6. return the outputs, or None where a kernel flagged bad input.

   Whenever one of these finds something it does not handle, it returns None before any kernel
   ran and the runner takes its Python path, which is the reference: this object only ever
   repeats what that path does in the same state. The runner arms it (``armed``) after a Python
   call that left the block holding a snapshot, with the thread-count epoch it saw, and disarms it
   whenever the Python path runs. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "msjit_weakref.h"  /* msjit_referent() */
#include <structmember.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

typedef void (*region_fn)(int64_t);
typedef void (*segment_fn)(void *, void *);

typedef struct {
    Py_ssize_t input;      /* index in the call's argument list */
    Py_ssize_t *positions; /* where in the block its pointer goes */
    Py_ssize_t n_positions;
    char format[16];       /* the buffer-protocol format of its dtype */
    Py_ssize_t itemsize;
} InputRead;

typedef struct {
    PyObject_HEAD
    PyObject *acquire, *release; /* the runner lock's bound methods */
    region_fn enter, leave;      /* NULL: no region */
    int64_t region_flags;
    Py_ssize_t n_inputs;
    Py_ssize_t *inplace; Py_ssize_t n_inplace;
    Py_ssize_t donated_refcount; /* a held donated array's references: the argument list, its owner, ``held`` */
    PyObject *held;              /* list: the arrays donated before, by in-place input */
    InputRead *reads; Py_ssize_t n_reads;
    PyObject *bound;             /* list: a weak reference to the array each read's positions point at now */
    PyObject **pools; Py_ssize_t *out_positions; Py_ssize_t n_outs;
    int *result_kind; Py_ssize_t *result_index; PyObject **result_value; Py_ssize_t n_results;
    segment_fn *segments; void **tables; void **parts; Py_ssize_t n_segments;
    int64_t **flags; Py_ssize_t n_flags;
    int64_t *epoch_word;
    uintptr_t *block;
    /* read and written from Python */
    int armed;
    long long epoch;
    Py_ssize_t hits;
    int timing;                  /* add the kernels' time to native_ns (bench/call_overhead.py) */
    long long native_ns;
    PyObject *keep;              /* the configuration tuple: keeps pools, constants, lock alive */
    PyObject *fallback;          /* ``call``'s Python path: the runner with donation, or None */
    vectorcallfunc vectorcall;
} RestoredCall;

enum { RESULT_OUT = 0, RESULT_CONST = 1, RESULT_INPUT = 2 };

/* an array's data pointer if it is C-contiguous with the wanted format, else NULL (no error) */
static void *
contiguous_data(PyObject *a, InputRead *r)
{
    Py_buffer view;
    if (PyObject_GetBuffer(a, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return NULL;
    }
    void *data = NULL;
    if (view.itemsize == r->itemsize && view.format != NULL && strcmp(view.format, r->format) == 0)
        data = view.buf;
    PyBuffer_Release(&view);
    return data;
}

/* Whether ``ref`` (an entry of ``bound``: None or a weak reference) refers to ``a``, alive. The
   array is held weakly, so a graph that no longer runs does not keep an old parameter array
   alive (capture keeps one graph per input shape); while it lives, its data pointer is the one
   the positions hold, and once it is gone no array can be taken for it. */
static int
is_bound(PyObject *ref, PyObject *a)
{
    if (ref == Py_None || !PyWeakref_Check(ref))
        return 0;
    PyObject *obj = msjit_referent(ref);
    int same = obj == a;
    Py_XDECREF(obj);
    return same;
}

static PyObject *
restored_call(RestoredCall *self, PyObject *arrays)
{
    if (!self->armed || self->acquire == NULL || !PyList_CheckExact(arrays)
            || PyList_GET_SIZE(arrays) != self->n_inputs || *self->epoch_word != self->epoch)
        Py_RETURN_NONE;
    PyObject *no = Py_False;
    PyObject *got = PyObject_Vectorcall(self->acquire, &no, 1, NULL);
    if (got == NULL)
        return NULL;
    int locked = got == Py_True;
    Py_DECREF(got);
    if (!locked)
        Py_RETURN_NONE;
    PyObject *result = NULL;
    PyObject **chosen = NULL;
    if (!self->armed || *self->epoch_word != self->epoch)
        goto fallback; /* (a Python call took the lock in between, and may have changed the block) */
    /* 2. the donated parameters: the same arrays, held by the argument list, their owner and
       the runner alone (the runner's own rule: codegen/cpu/runner.py, _take_donations) */
    for (Py_ssize_t k = 0; k < self->n_inplace; k++) {
        PyObject *a = PyList_GET_ITEM(arrays, self->inplace[k]);
        if (a != PyList_GET_ITEM(self->held, k) || Py_REFCNT(a) != self->donated_refcount)
            goto fallback;
    }
    /* 3. the other inputs */
    for (Py_ssize_t k = 0; k < self->n_reads; k++) {
        InputRead *r = &self->reads[k];
        PyObject *a = PyList_GET_ITEM(arrays, r->input);
        if (is_bound(PyList_GET_ITEM(self->bound, k), a))
            continue;
        void *data = contiguous_data(a, r);
        if (data == NULL)
            goto fallback;
        PyObject *ref = PyWeakref_NewRef(a, NULL);
        if (ref == NULL)
            goto error;
        for (Py_ssize_t p = 0; p < r->n_positions; p++)
            self->block[r->positions[p]] = (uintptr_t)data;
        PyList_SetItem(self->bound, k, ref); /* (the positions point at it: it is bound, as in Python) */
    }
    /* 4. the returned outputs' arrays */
    chosen = PyMem_Malloc(sizeof(PyObject *) * (self->n_outs + 1));
    if (chosen == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t j = 0; j < self->n_outs; j++) {
        PyObject *pool = self->pools[j];
        chosen[j] = NULL;
        for (Py_ssize_t e = 0; e < PyList_GET_SIZE(pool); e++) {
            PyObject *entry = PyList_GET_ITEM(pool, e); /* (array, address) */
            if (Py_REFCNT(PyTuple_GET_ITEM(entry, 0)) == 1) {
                void *address = PyLong_AsVoidPtr(PyTuple_GET_ITEM(entry, 1));
                if (address == NULL && PyErr_Occurred())
                    goto error;
                self->block[self->out_positions[j]] = (uintptr_t)address;
                chosen[j] = PyTuple_GET_ITEM(entry, 0);
                break;
            }
        }
        if (chosen[j] == NULL)
            goto fallback; /* every pooled array is still held: the Python path makes a new one */
    }
    result = PyList_New(self->n_results);
    if (result == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < self->n_results; i++) {
        PyObject *v = self->result_value[i];
        if (self->result_kind[i] == RESULT_OUT)
            v = chosen[self->result_index[i]];
        else if (self->result_kind[i] == RESULT_INPUT)
            v = PyList_GET_ITEM(arrays, self->result_index[i]);
        Py_INCREF(v);
        PyList_SET_ITEM(result, i, v);
    }
    /* 5. the kernels */
    if (self->enter != NULL)
        self->enter(self->region_flags);
    struct timespec t0, t1;
    if (self->timing)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t s = 0; s < self->n_segments; s++)
        self->segments[s](self->tables[s], self->parts[s]);
    Py_END_ALLOW_THREADS
    if (self->timing) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        self->native_ns += (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    }
    if (self->leave != NULL)
        self->leave(self->region_flags);
    /* 6. a kernel that flagged bad input: the Python path runs the call again and raises the
       op's error (the kernels after the flagging one did not run: emit_segment) */
    for (Py_ssize_t f = 0; f < self->n_flags; f++) {
        if (*self->flags[f]) {
            Py_CLEAR(result);
            self->armed = 0; /* (so the Python path does not come back here first) */
            goto fallback;
        }
    }
    self->hits++;
    PyMem_Free(chosen);
    got = PyObject_CallNoArgs(self->release);
    if (got == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    Py_DECREF(got);
    return result;

fallback:
    PyMem_Free(chosen);
    got = PyObject_CallNoArgs(self->release);
    if (got == NULL)
        return NULL;
    Py_DECREF(got);
    Py_RETURN_NONE;

error:
    PyMem_Free(chosen);
    Py_XDECREF(result);
    {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        got = PyObject_CallNoArgs(self->release);
        Py_XDECREF(got);
        PyErr_Restore(type, value, tb);
    }
    return NULL;
}

static PyObject *
restored_vectorcall(RestoredCall *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames))) {
        PyErr_SetString(PyExc_TypeError, "RestoredCall takes one argument, the input arrays");
        return NULL;
    }
    if (self->keep == NULL)
        Py_RETURN_NONE;
    return restored_call(self, args[0]);
}

/* call(arrays) -> (outputs, updates): this call where it applies, else ``fallback(arrays)`` */
static PyObject *
restored_call_or_fallback(RestoredCall *self, PyObject *arrays)
{
    PyObject *outs = self->keep == NULL ? Py_NewRef(Py_None) : restored_call(self, arrays);
    if (outs == NULL)
        return NULL;
    if (outs != Py_None) {
        PyObject *updates = PyDict_New(); /* (every update was in place) */
        if (updates == NULL) {
            Py_DECREF(outs);
            return NULL;
        }
        PyObject *pair = PyTuple_Pack(2, outs, updates);
        Py_DECREF(outs);
        Py_DECREF(updates);
        return pair;
    }
    Py_DECREF(outs);
    if (self->fallback == NULL || self->fallback == Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "RestoredCall.call: no fallback");
        return NULL;
    }
    return PyObject_CallOneArg(self->fallback, arrays);
}

/* bind(lock, fallback): the runner's lock (a new one after a fork) and Python path; disarms */
static PyObject *
restored_bind(RestoredCall *self, PyObject *args)
{
    PyObject *lock, *fallback;
    if (!PyArg_ParseTuple(args, "OO", &lock, &fallback))
        return NULL;
    PyObject *acquire = PyObject_GetAttrString(lock, "acquire");
    if (acquire == NULL)
        return NULL;
    PyObject *release = PyObject_GetAttrString(lock, "release");
    if (release == NULL) {
        Py_DECREF(acquire);
        return NULL;
    }
    self->armed = 0;
    Py_XSETREF(self->acquire, acquire);
    Py_XSETREF(self->release, release);
    Py_XSETREF(self->fallback, Py_NewRef(fallback));
    Py_RETURN_NONE;
}

static PyMethodDef restored_methods[] = {
    {"call", (PyCFunction)restored_call_or_fallback, METH_O,
     "call(arrays) -> (outputs, updates): the call restored here where it applies, else fallback(arrays)"},
    {"bind", (PyCFunction)restored_bind, METH_VARARGS,
     "bind(lock, fallback): the runner's lock and Python path (call's fallback); disarms"},
    {NULL},
};

static void *
address_of(PyObject *o)
{
    return PyLong_AsVoidPtr(o);
}

/* RestoredCall(region, n_inputs, donated_refcount, inplace, held, reads, bound, outs, results,
                segments, flags, epoch_address, block_address); ``bind`` gives it the runner's lock */
static PyObject *
restored_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *region, *inplace, *held, *reads, *bound, *outs, *results, *segments, *flags;
    PyObject *epoch_address, *block_address;
    Py_ssize_t n_inputs, donated_refcount;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "RestoredCall takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OnnO!O!O!O!O!O!O!O!OO", &region, &n_inputs, &donated_refcount, &PyTuple_Type, &inplace,
                          &PyList_Type, &held, &PyTuple_Type, &reads, &PyList_Type, &bound, &PyTuple_Type, &outs,
                          &PyTuple_Type, &results, &PyTuple_Type, &segments, &PyTuple_Type, &flags,
                          &epoch_address, &block_address))
        return NULL;
    if (PyList_GET_SIZE(held) != PyTuple_GET_SIZE(inplace) || PyList_GET_SIZE(bound) != PyTuple_GET_SIZE(reads)) {
        PyErr_SetString(PyExc_ValueError, "RestoredCall: held/bound lists do not match inplace/reads");
        return NULL;
    }
    RestoredCall *self = (RestoredCall *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->keep = Py_NewRef(args);
    self->vectorcall = (vectorcallfunc)restored_vectorcall;
    self->held = Py_NewRef(held);
    self->bound = Py_NewRef(bound);
    self->n_inputs = n_inputs;
    self->donated_refcount = donated_refcount;
    if (region != Py_None) {
        long long fl;
        PyObject *enter, *leave;
        if (!PyArg_ParseTuple(region, "OOL", &enter, &leave, &fl))
            goto fail;
        self->enter = (region_fn)address_of(enter);
        self->leave = (region_fn)address_of(leave);
        self->region_flags = fl;
        if (self->enter == NULL || self->leave == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "RestoredCall: a null region function");
            goto fail;
        }
    }
    self->n_inplace = PyTuple_GET_SIZE(inplace);
    self->inplace = PyMem_Calloc(self->n_inplace + 1, sizeof(Py_ssize_t));
    self->n_reads = PyTuple_GET_SIZE(reads);
    self->reads = PyMem_Calloc(self->n_reads + 1, sizeof(InputRead));
    self->n_outs = PyTuple_GET_SIZE(outs);
    self->pools = PyMem_Calloc(self->n_outs + 1, sizeof(PyObject *));
    self->out_positions = PyMem_Calloc(self->n_outs + 1, sizeof(Py_ssize_t));
    self->n_results = PyTuple_GET_SIZE(results);
    self->result_kind = PyMem_Calloc(self->n_results + 1, sizeof(int));
    self->result_value = PyMem_Calloc(self->n_results + 1, sizeof(PyObject *));
    self->result_index = PyMem_Calloc(self->n_results + 1, sizeof(Py_ssize_t));
    self->n_segments = PyTuple_GET_SIZE(segments);
    self->segments = PyMem_Calloc(self->n_segments + 1, sizeof(segment_fn));
    self->tables = PyMem_Calloc(self->n_segments + 1, sizeof(void *));
    self->parts = PyMem_Calloc(self->n_segments + 1, sizeof(void *));
    self->n_flags = PyTuple_GET_SIZE(flags);
    self->flags = PyMem_Calloc(self->n_flags + 1, sizeof(int64_t *));
    if (!self->inplace || !self->reads || !self->pools || !self->out_positions || !self->result_kind
            || !self->result_value || !self->result_index || !self->segments || !self->tables || !self->parts || !self->flags) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t k = 0; k < self->n_inplace; k++) {
        self->inplace[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(inplace, k));
        if (self->inplace[k] < 0 || self->inplace[k] >= n_inputs) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "RestoredCall: an in-place input index out of range");
            goto fail;
        }
    }
    for (Py_ssize_t k = 0; k < self->n_reads; k++) {
        InputRead *r = &self->reads[k];
        PyObject *positions;
        const char *format;
        Py_ssize_t format_len;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(reads, k), "nO!s#n", &r->input, &PyTuple_Type, &positions,
                              &format, &format_len, &r->itemsize))
            goto fail;
        if (r->input < 0 || r->input >= n_inputs || format_len >= (Py_ssize_t)sizeof(r->format)) {
            PyErr_SetString(PyExc_ValueError, "RestoredCall: a bad input read");
            goto fail;
        }
        memcpy(r->format, format, format_len);
        r->format[format_len] = 0;
        r->n_positions = PyTuple_GET_SIZE(positions);
        r->positions = PyMem_Calloc(r->n_positions + 1, sizeof(Py_ssize_t));
        if (r->positions == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t p = 0; p < r->n_positions; p++)
            if ((r->positions[p] = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, p))) < 0) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "RestoredCall: a negative block position");
                goto fail;
            }
    }
    for (Py_ssize_t j = 0; j < self->n_outs; j++) {
        PyObject *pool;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(outs, j), "O!n", &PyList_Type, &pool, &self->out_positions[j]))
            goto fail;
        self->pools[j] = pool; /* (kept alive by ``keep``) */
    }
    for (Py_ssize_t i = 0; i < self->n_results; i++) {
        PyObject *value;
        int kind;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(results, i), "iO", &kind, &value))
            goto fail;
        Py_ssize_t index = kind == RESULT_CONST ? 0 : PyLong_AsSsize_t(value);
        if (index == -1 && PyErr_Occurred())
            goto fail;
        if (kind < RESULT_OUT || kind > RESULT_INPUT || (kind == RESULT_OUT && index >= self->n_outs)
                || (kind == RESULT_INPUT && index >= n_inputs) || index < 0) {
            PyErr_SetString(PyExc_ValueError, "RestoredCall: a bad result");
            goto fail;
        }
        self->result_kind[i] = kind;
        self->result_index[i] = index;
        self->result_value[i] = value;
    }
    for (Py_ssize_t s = 0; s < self->n_segments; s++) {
        PyObject *fn, *tables, *parts;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(segments, s), "OOO", &fn, &tables, &parts))
            goto fail;
        self->segments[s] = (segment_fn)address_of(fn);
        self->tables[s] = address_of(tables);
        self->parts[s] = address_of(parts);
        if (self->segments[s] == NULL || self->tables[s] == NULL || self->parts[s] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "RestoredCall: a null segment address");
            goto fail;
        }
    }
    for (Py_ssize_t f = 0; f < self->n_flags; f++)
        if ((self->flags[f] = address_of(PyTuple_GET_ITEM(flags, f))) == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "RestoredCall: a null flag address");
            goto fail;
        }
    self->epoch_word = address_of(epoch_address);
    self->block = address_of(block_address);
    if (self->epoch_word == NULL || self->block == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "RestoredCall: a null epoch or block address");
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static int
restored_traverse(RestoredCall *self, visitproc visit, void *arg)
{
    Py_VISIT(self->acquire);
    Py_VISIT(self->release);
    Py_VISIT(self->held);
    Py_VISIT(self->bound);
    Py_VISIT(self->keep);
    Py_VISIT(self->fallback);
    return 0;
}

static int
restored_clear(RestoredCall *self)
{
    self->armed = 0; /* (its pools and constants go with ``keep``) */
    Py_CLEAR(self->acquire);
    Py_CLEAR(self->release);
    Py_CLEAR(self->held);
    Py_CLEAR(self->bound);
    Py_CLEAR(self->keep);
    Py_CLEAR(self->fallback);
    return 0;
}

static void
restored_dealloc(RestoredCall *self)
{
    PyObject_GC_UnTrack(self);
    restored_clear(self);
    if (self->reads != NULL)
        for (Py_ssize_t k = 0; k < self->n_reads; k++)
            PyMem_Free(self->reads[k].positions);
    PyMem_Free(self->inplace);
    PyMem_Free(self->reads);
    PyMem_Free(self->pools);
    PyMem_Free(self->out_positions);
    PyMem_Free(self->result_kind);
    PyMem_Free(self->result_value);
    PyMem_Free(self->result_index);
    PyMem_Free(self->segments);
    PyMem_Free(self->tables);
    PyMem_Free(self->parts);
    PyMem_Free(self->flags);
    Py_TYPE(self)->tp_free((PyObject *)self);
}


static PyMemberDef restored_members[] = {
    {"armed", T_INT, offsetof(RestoredCall, armed), 0, "whether the block holds a snapshot it may run from"},
    {"epoch", T_LONGLONG, offsetof(RestoredCall, epoch), 0, "the thread-count epoch it was armed in"},
    {"hits", T_PYSSIZET, offsetof(RestoredCall, hits), READONLY, "calls it ran"},
    {"timing", T_INT, offsetof(RestoredCall, timing), 0, "whether to add the kernels' time to native_ns"},
    {"native_ns", T_LONGLONG, offsetof(RestoredCall, native_ns), 0, "nanoseconds in the kernels, while timing"},
    {NULL},
};

static PyTypeObject RestoredCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "codegen.cpu._restored_call.RestoredCall",
    .tp_basicsize = sizeof(RestoredCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "RestoredCall(region, n_inputs, donated_refcount, inplace, held, reads, bound, outs, results, segments, flags, "
              "epoch_address, block_address): a compiled step's steady-state call (codegen/cpu/call_snapshots.py)",
    .tp_new = restored_new,
    .tp_dealloc = (destructor)restored_dealloc,
    .tp_traverse = (traverseproc)restored_traverse,
    .tp_clear = (inquiry)restored_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(RestoredCall, vectorcall),
    .tp_members = restored_members,
    .tp_methods = restored_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "codegen.cpu._restored_call",
    "A compiled training step's steady-state call, in C.", -1, NULL,
};

PyMODINIT_FUNC
PyInit__restored_call(void)
{
    if (PyType_Ready(&RestoredCallType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "RestoredCall", (PyObject *)&RestoredCallType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
