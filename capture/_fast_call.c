/* A jitted function's steady-state call, in C (capture/fast_call.py arms it).

   ``jit(fn)`` returns a JitFunction (capture/api.py), which derives from FastCall, as does what
   runs a Cell's calls in GRAPH_MODE (a _CellCall, called with the Cell first). Every call
   first goes the whole Python way (capture/dispatch.py, call_captured: the cache lookup with
   each entry's guards, the input fetch, the runner, the outputs as Tensors, the result built).
   When the entry it ran is one this object can repeat (no graph break, no constant returned,
   positional arguments -- ``*args`` flattened as the Python way does --, the first entry of its
   cache), the Python side arms it with that
   entry's pieces, a FastEntry, and the next calls need no Python frame at all:

     1. decline -- go the Python way -- when anything could make the Python way take another
        turn: keyword arguments, another argument count, the function's code replaced, a tape
        recording, capture suspended (tracing, ``explain`` timing). A change of its cache
        disarms it at once (capture/fast_call.py: ``invalidate``);
     2. run the entry's guard check; false (or raising) -> decline: the Python way checks every
        entry and compiles on a miss;
     3. fetch the input arrays (the ``_data`` of the argument tensors and the held parameters);
     4. call the runner -> (outputs, in-place updates); where it raises, the Python way settles
        the error as it would have (``_settle_fast``: dispatch._settle, an eager rerun);
     5. apply the updates, wrap the output arrays as Tensors (what Tensor._wrap does: a new
        object of the type, its ``_data`` slot set), build the result.

   The frame hook (capture/frame_eval/_frame_eval.c) enters the same way through ``_try_frame``
   for frames of a code object it captures, with the frame's function and argument slots; it
   also declines where the function has another closure or globals dict than the entry's, or where
   ``call_eagerly`` lets a frame of the code through (``set_bypass``), and returns DECLINED, the
   hook's cue to ask its Python dispatcher.

   Nothing before step 4 has an effect, so a decline repeats nothing; the Python way is the
   reference and this object only repeats what it does in the same state. In a training loop the
   kernels leave the caches to their own data, and the Python way's ten frames cost microseconds
   of cache misses per step (bench/call_overhead.py measures the difference). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "msjit_weakref.h"  /* msjit_referent() */
#include <structmember.h>
#include <stddef.h>

static long SUSPENDED;           /* > 0: every call goes the Python way (``suspend``/``resume``) */
static PyObject *TAPE_ACTIVE;    /* runtime.tape.ACTIVE (a list): non-empty -> the Python way */
static PyObject *DATA_NAME;      /* "_data" */
static PyObject *SLOW_NAME;      /* "_call_slow": the Python way, a method of the subclass */
static PyObject *SETTLE_NAME;    /* "_settle_fast": its settling of a graph's error (entry, args, error) */
static PyObject *DECLINED;       /* what ``_try_frame`` returns where it does not repeat the entry */
static Py_tss_t BYPASS = Py_tss_NEEDS_INIT; /* per thread: the code whose next frame runs as it is
                                               (capture.dispatch.call_eagerly; borrowed: it runs meanwhile) */

typedef struct {
    PyObject_HEAD
    PyObject *entry;        /* the capture.cache.Entry */
    PyObject *code;         /* the code it was compiled from (the function's ``__code__``) */
    PyObject *check;        /* entry.check: callable(args) -> truth */
    PyObject *sources;      /* tuple: an int (argument index) or the object itself, per input */
    PyObject *call;         /* entry.call: callable(arrays) -> (outputs, updates) */
    PyObject *tensor_type;  /* the type outputs are wrapped in */
    PyObject *data_slot;    /* its ``_data`` member descriptor */
    PyObject *build;        /* entry.template.build(outs, args), unless out_index >= 0 */
    PyObject *closure;      /* entry.closure: the ``__closure__`` (or None) of functions it runs for */
    PyObject *globals;      /* entry.globals: the ``__globals__`` of functions it runs for (None: any) */
    Py_ssize_t n_args;      /* the function's positional parameters */
    int varargs;            /* 1: it takes ``*args`` too (the flat arguments end with their tuple) */
    Py_ssize_t out_index, n_sources;
    Py_ssize_t *arg_index;  /* per input: its flat argument's index, or -1 (held: ``held[k]``) */
    Py_ssize_t *item_index; /* ... and the item of that argument (a tuple or list) it is, or -1 */
    PyObject **held;        /* borrowed from ``sources``: the object, or a weak reference to it */
    char *weak;             /* per input: 1 where ``held[k]`` is a weak reference (the entry's guards
                               hold the object weakly: capture.guards.GuardSet.hold_weakly) */
    Py_ssize_t hits;
} FastEntry;

/* (neither holds what the function's closure holds: an entry lives in the capture cache as long
   as that function, and a dead function's finalizer drops its entries) */
typedef struct {
    PyObject_HEAD
    FastEntry *armed;
    PyObject *function;     /* the jitted function, whose ``__code__`` must stay the entry's (NULL:
                               the hook's frames, whose functions come with each call) */
} FastCall;

/* -- FastEntry -------------------------------------------------------------------------------- */

static int
entry_traverse(FastEntry *e, visitproc visit, void *arg)
{
    Py_VISIT(e->entry); Py_VISIT(e->code); Py_VISIT(e->check); Py_VISIT(e->sources);
    Py_VISIT(e->call); Py_VISIT(e->tensor_type); Py_VISIT(e->data_slot); Py_VISIT(e->build);
    Py_VISIT(e->closure);
    Py_VISIT(e->globals);
    return 0;
}

static int
entry_clear(FastEntry *e)
{
    Py_CLEAR(e->entry); Py_CLEAR(e->code); Py_CLEAR(e->check); Py_CLEAR(e->sources);
    Py_CLEAR(e->call); Py_CLEAR(e->tensor_type); Py_CLEAR(e->data_slot); Py_CLEAR(e->build);
    Py_CLEAR(e->closure);
    Py_CLEAR(e->globals);
    e->n_sources = 0; /* (``held`` points into ``sources``) */
    return 0;
}

static void
entry_dealloc(FastEntry *e)
{
    PyObject_GC_UnTrack(e);
    entry_clear(e);
    PyMem_Free(e->arg_index);
    PyMem_Free(e->item_index);
    PyMem_Free(e->held);
    PyMem_Free(e->weak);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

/* FastEntry(entry, code, n_args, varargs, check, sources, call, tensor_type, build, out_index[, closure[, globals]]); a
   source is an int (a flat argument), a pair of ints (an item of a flat argument that is a
   tuple -- like ``*args`` -- or a list), the object itself, or a weak reference to it (read
   through it on each call: a dead one declines) */
static PyObject *
entry_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *entry, *code, *check, *sources, *call, *tensor_type, *build, *closure = Py_None, *globals = Py_None;
    Py_ssize_t n_args, out_index;
    int varargs;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "FastEntry takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OO!npOO!OO!On|OO", &entry, &PyCode_Type, &code, &n_args, &varargs, &check,
                          &PyTuple_Type, &sources, &call, &PyType_Type, &tensor_type, &build, &out_index, &closure,
                          &globals))
        return NULL;
    /* the ``_data`` slot: set straight through its descriptor, as ``t._data = a`` does while the
       type has no __setattr__ of its own (checked by the caller) */
    PyObject *slot = PyObject_GetAttr(tensor_type, DATA_NAME);
    if (slot == NULL)
        return NULL;
    if (Py_TYPE(slot)->tp_descr_set == NULL || Py_TYPE(slot)->tp_descr_get == NULL) {
        Py_DECREF(slot);
        PyErr_SetString(PyExc_TypeError, "FastEntry: the tensor type's _data is not a slot");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(sources);
    FastEntry *e = (FastEntry *)type->tp_alloc(type, 0);
    if (e == NULL) {
        Py_DECREF(slot);
        return NULL;
    }
    e->data_slot = slot;
    e->arg_index = PyMem_Calloc(n ? n : 1, sizeof(Py_ssize_t));
    e->item_index = PyMem_Calloc(n ? n : 1, sizeof(Py_ssize_t));
    e->held = PyMem_Calloc(n ? n : 1, sizeof(PyObject *));
    e->weak = PyMem_Calloc(n ? n : 1, 1);
    if (e->arg_index == NULL || e->item_index == NULL || e->held == NULL || e->weak == NULL) {
        Py_DECREF(e);
        return PyErr_NoMemory();
    }
    Py_ssize_t n_flat = n_args + (varargs != 0);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *s = PyTuple_GET_ITEM(sources, k);
        e->arg_index[k] = e->item_index[k] = -1;
        if (PyLong_CheckExact(s)) {
            e->arg_index[k] = PyLong_AsSsize_t(s);
        } else if (PyTuple_CheckExact(s) && PyTuple_GET_SIZE(s) == 2 && PyLong_CheckExact(PyTuple_GET_ITEM(s, 0))
                   && PyLong_CheckExact(PyTuple_GET_ITEM(s, 1))) {
            e->arg_index[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(s, 0));
            e->item_index[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(s, 1));
            if (e->item_index[k] < 0 && !PyErr_Occurred())
                e->arg_index[k] = -2; /* (reported below) */
        } else {
            e->held[k] = s;
            e->weak[k] = PyWeakref_CheckRef(s) != 0;
            continue;
        }
        if (e->arg_index[k] < 0 || e->arg_index[k] >= n_flat) {
            Py_DECREF(e);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "FastEntry: input %zd reads argument %R of %zd", k, s, n_flat);
            return NULL;
        }
    }
    e->n_sources = n;
    e->entry = Py_NewRef(entry);
    e->code = Py_NewRef(code);
    e->check = Py_NewRef(check);
    e->sources = Py_NewRef(sources);
    e->call = Py_NewRef(call);
    e->tensor_type = Py_NewRef(tensor_type);
    e->build = Py_NewRef(build);
    e->closure = Py_NewRef(closure);
    e->globals = Py_NewRef(globals);
    e->n_args = n_args;
    e->varargs = varargs;
    e->out_index = out_index;
    return (PyObject *)e;
}

static PyMemberDef entry_members[] = {
    {"hits", T_PYSSIZET, offsetof(FastEntry, hits), READONLY, "calls it ran"},
    {"entry", T_OBJECT, offsetof(FastEntry, entry), READONLY, "the cache entry it runs"},
    {"call", T_OBJECT, offsetof(FastEntry, call), READONLY, "the runner's call it makes"},
    {"check", T_OBJECT, offsetof(FastEntry, check), READONLY, "the guard check it runs"},
    {NULL},
};

static PyTypeObject FastEntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "capture._fast_call.FastEntry",
    .tp_basicsize = sizeof(FastEntry),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "FastEntry(entry, code, n_args, varargs, check, sources, call, tensor_type, build, out_index[, closure[, globals]]): "
              "what a FastCall repeats of one cache entry",
    .tp_new = entry_new,
    .tp_dealloc = (destructor)entry_dealloc,
    .tp_traverse = (traverseproc)entry_traverse,
    .tp_clear = (inquiry)entry_clear,
    .tp_members = entry_members,
};

/* -- the call ------------------------------------------------------------------------------------ */

/* a new object of the tensor type holding ``array`` (Tensor._wrap) */
static PyObject *
wrap(FastEntry *e, PyObject *array)
{
    PyTypeObject *type = (PyTypeObject *)e->tensor_type;
    PyObject *t = type->tp_alloc(type, 0);
    if (t == NULL)
        return NULL;
    if (Py_TYPE(e->data_slot)->tp_descr_set(e->data_slot, t, array) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

/* the updates applied and the outputs wrapped, once the runner returned ``ran`` ((outputs,
   updates)): the output ``out_index`` as a Tensor, else a list of them; NULL with an error set */
static PyObject *
finish(FastEntry *e, PyObject **tensors, PyObject *ran)
{
    if (!PyTuple_CheckExact(ran) || PyTuple_GET_SIZE(ran) != 2 || !PyDict_Check(PyTuple_GET_ITEM(ran, 1))) {
        PyErr_SetString(PyExc_TypeError, "compiled graph call did not return (outputs, updates)");
        return NULL;
    }
    PyObject *outs = PyTuple_GET_ITEM(ran, 0), *updates = PyTuple_GET_ITEM(ran, 1);
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(updates, &pos, &key, &value)) {
        Py_ssize_t k = PyLong_AsSsize_t(key);
        if (k == -1 && PyErr_Occurred())
            return NULL;
        if (k < 0 || k >= e->n_sources) {
            PyErr_Format(PyExc_IndexError, "compiled graph updated input %zd of %zd", k, e->n_sources);
            return NULL;
        }
        if (PyObject_SetAttr(tensors[k], DATA_NAME, value) < 0)
            return NULL;
    }
    PyObject *seq = PySequence_Fast(outs, "compiled graph outputs are not a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *result = NULL;
    if (e->out_index >= 0) {
        if (e->out_index >= n)
            PyErr_Format(PyExc_IndexError, "compiled graph returned %zd outputs, wanted output %zd", n, e->out_index);
        else
            result = wrap(e, PySequence_Fast_GET_ITEM(seq, e->out_index));
        Py_DECREF(seq);
        return result;
    }
    PyObject *wrapped = PyList_New(n);
    if (wrapped == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = wrap(e, PySequence_Fast_GET_ITEM(seq, i));
        if (t == NULL) {
            Py_DECREF(seq);
            Py_DECREF(wrapped);
            return NULL;
        }
        PyList_SET_ITEM(wrapped, i, t);
    }
    Py_DECREF(seq);
    return wrapped;
}

/* The flat arguments (capture.dispatch.flatten_call) of a call of ``e`` with ``args``: ``args``
   itself, or with ``*args`` its positional parameters and then the tuple of the rest; NULL
   without an error set where the call does not fit. A new reference. */
static PyObject *
flat_arguments(FastEntry *e, PyObject *args)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (!e->varargs)
        return n == e->n_args ? Py_NewRef(args) : NULL;
    if (n < e->n_args)
        return NULL;
    PyObject *flat = PyTuple_New(e->n_args + 1);
    if (flat == NULL)
        return NULL;
    PyObject *rest = PyTuple_GetSlice(args, e->n_args, n);
    if (rest == NULL) {
        Py_DECREF(flat);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < e->n_args; i++)
        PyTuple_SET_ITEM(flat, i, Py_NewRef(PyTuple_GET_ITEM(args, i)));
    PyTuple_SET_ITEM(flat, e->n_args, rest);
    return flat;
}


/* input ``k``'s tensor (a new reference: the call holds it until the updates are applied), or
   NULL (no error set) where the argument is not as traced or a held object died */
static PyObject *
input_tensor(FastEntry *e, PyObject *flat, Py_ssize_t k)
{
    Py_ssize_t i = e->arg_index[k];
    if (i < 0)
        return e->weak[k] ? msjit_referent(e->held[k]) : Py_NewRef(e->held[k]);
    PyObject *a = PyTuple_GET_ITEM(flat, i);
    Py_ssize_t j = e->item_index[k];
    if (j < 0)
        return Py_NewRef(a);
    if (PyTuple_CheckExact(a))
        return j < PyTuple_GET_SIZE(a) ? Py_NewRef(PyTuple_GET_ITEM(a, j)) : NULL;
    return PyList_CheckExact(a) && j < PyList_GET_SIZE(a) ? Py_NewRef(PyList_GET_ITEM(a, j)) : NULL;
}

static void
release_tensors(PyObject **tensors, Py_ssize_t n, PyObject **small)
{
    for (Py_ssize_t k = 0; k < n; k++)
        Py_DECREF(tensors[k]);
    if (tensors != small)
        PyMem_Free(tensors);
}

/* Steps 2-5 on the flat arguments; NULL without an error set: declined, nothing happened. */
static PyObject *
run_entry(FastCall *self, FastEntry *e, PyObject *args, PyObject *flat)
{
    /* 2. the guards */
    PyObject *ok = PyObject_CallOneArg(e->check, flat);
    if (ok == NULL) {
        if (PyErr_ExceptionMatches(PyExc_Exception))
            PyErr_Clear(); /* (a failing guard; a KeyboardInterrupt propagates) */
        return NULL;
    }
    int truth = ok == Py_True ? 1 : ok == Py_False ? 0 : PyObject_IsTrue(ok);
    Py_DECREF(ok);
    if (truth <= 0) {
        if (truth < 0 && PyErr_ExceptionMatches(PyExc_Exception))
            PyErr_Clear();
        return NULL;
    }
    e->hits++; /* (as the cache's lookup counts a hit: the guards passed) */
    /* 3. the inputs: each tensor's array, in the list the runner takes (and counts references of) */
    Py_ssize_t n = e->n_sources;
    PyObject *small[16];
    PyObject **tensors = n <= 16 ? small : PyMem_Malloc(n * sizeof(PyObject *));
    if (tensors == NULL)
        return PyErr_NoMemory();
    PyObject *arrays = PyList_New(n), *outs = NULL;
    Py_ssize_t got = 0; /* (tensors[:got] are held) */
    for (Py_ssize_t k = 0; arrays != NULL && k < n; k++) {
        PyObject *t = input_tensor(e, flat, k);
        if (t != NULL)
            tensors[got++] = t;
        PyObject *a = t == NULL ? NULL : PyObject_GetAttr(t, DATA_NAME);
        if (a == NULL) { /* (the guards passed, so this is unexpected: the Python way tells) */
            Py_CLEAR(arrays);
            if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_Exception))
                PyErr_Clear();
            break;
        }
        PyList_SET_ITEM(arrays, k, a);
    }
    if (arrays != NULL) {
        /* 4. the graph */
        PyObject *ran = PyObject_CallOneArg(e->call, arrays);
        Py_DECREF(arrays);
        if (ran != NULL) {
            outs = finish(e, tensors, ran);
            Py_DECREF(ran);
        }
        if (outs == NULL && PyErr_ExceptionMatches(PyExc_Exception)) {
            /* the graph raised: settled as the Python way settles it (an eager rerun) */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            if (tb != NULL)
                PyException_SetTraceback(value, tb);
            Py_XDECREF(type);
            Py_XDECREF(tb);
            PyObject *settled = PyObject_CallMethodObjArgs((PyObject *)self, SETTLE_NAME, e->entry, args, value, NULL);
            Py_DECREF(value);
            release_tensors(tensors, got, small);
            return settled; /* (NULL with the error eager raised, as the Python way) */
        }
    }
    release_tensors(tensors, got, small);
    if (outs == NULL || e->out_index >= 0)
        return outs;
    /* 5. the result (an error of the build is the user's: it propagates, as the Python way's) */
    PyObject *result = PyObject_CallFunctionObjArgs(e->build, outs, flat, NULL);
    Py_DECREF(outs);
    return result;
}

/* the armed entry, where nothing that holds for every call sends it the Python way: capture not
   suspended, no tape recording; else NULL */
static inline FastEntry *
ready(FastCall *self)
{
    if (self->armed == NULL || SUSPENDED != 0 || (TAPE_ACTIVE != NULL && PyList_GET_SIZE(TAPE_ACTIVE) != 0))
        return NULL;
    return self->armed;
}

/* The call of ``e`` on ``args``; NULL without an error set: declined, nothing happened. */
static PyObject *
fast_run(FastCall *self, FastEntry *e, PyObject *args)
{
    if (PyFunction_GET_CODE(self->function) != e->code)
        return NULL;
    PyObject *flat = flat_arguments(e, args);
    if (flat == NULL)
        return NULL;
    PyObject *result = run_entry(self, e, args, flat);
    Py_DECREF(flat);
    return result;
}

static PyObject *
fast_tp_call(FastCall *self, PyObject *args, PyObject *kwargs)
{
    FastEntry *e = ready(self);
    if (e != NULL && self->function != NULL && (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0)) {
        Py_INCREF(e); /* (a call may re-arm ``self``) */
        PyObject *result = fast_run(self, e, args);
        Py_DECREF(e);
        if (result != NULL || PyErr_Occurred())
            return result;
    }
    PyObject *slow = PyObject_GetAttr((PyObject *)self, SLOW_NAME);
    if (slow == NULL)
        return NULL;
    PyObject *result = PyObject_CallFunctionObjArgs(slow, args, kwargs != NULL ? kwargs : Py_None, NULL);
    Py_DECREF(slow);
    return result;
}

/* -- FastCall ------------------------------------------------------------------------------------ */

static int
call_traverse(FastCall *self, visitproc visit, void *arg)
{
    Py_VISIT(self->armed);
    Py_VISIT(self->function);
    return 0;
}

static int
call_clear(FastCall *self)
{
    Py_CLEAR(self->armed);
    Py_CLEAR(self->function);
    return 0;
}

static void
call_dealloc(FastCall *self)
{
    PyObject_GC_UnTrack(self);
    call_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
call_arm(FastCall *self, PyObject *args)
{
    PyObject *entry, *function;
    if (!PyArg_ParseTuple(args, "OO", &entry, &function))
        return NULL;
    if (entry == Py_None) {
        Py_CLEAR(self->armed);
        Py_CLEAR(self->function);
        Py_RETURN_NONE;
    }
    if (!PyObject_TypeCheck(entry, &FastEntryType) || (function != Py_None && !PyFunction_Check(function))) {
        PyErr_SetString(PyExc_TypeError, "_arm: expected a FastEntry and the jitted function (or None)");
        return NULL;
    }
    Py_XSETREF(self->armed, (FastEntry *)Py_NewRef(entry));
    Py_XSETREF(self->function, function == Py_None ? NULL : Py_NewRef(function));
    Py_RETURN_NONE;
}

static PyObject *
call_get_armed(FastCall *self, void *closure)
{
    if (self->armed == NULL)
        Py_RETURN_NONE;
    return Py_NewRef((PyObject *)self->armed);
}

/* _try_frame(func, *slots): the frame hook's way in (capture/frame_eval/_frame_eval.c), for a
   frame of ``func`` with these argument slots (the flat arguments where the code has positional
   parameters and maybe ``*args``): the armed entry's result, or DECLINED -- the hook then asks
   the Python dispatcher, which decides as ever (compile, evaluate the frame as it is...). Where
   ``capture.dispatch.call_eagerly`` lets a frame of the code through (``set_bypass``), or the
   function has another closure than the entry's, it declines. */
static PyObject *
call_try_frame(FastCall *self, PyObject *const *argv, Py_ssize_t nargs)
{
    FastEntry *e = ready(self);
    if (e == NULL || nargs < 1 || !PyFunction_Check(argv[0]))
        return Py_NewRef(DECLINED);
    PyObject *func = argv[0], *closure = PyFunction_GET_CLOSURE(func);
    if (PyFunction_GET_CODE(func) != e->code || (closure != NULL ? closure : Py_None) != e->closure
            || (e->globals != Py_None && PyFunction_GET_GLOBALS(func) != e->globals)
            || nargs - 1 != e->n_args + e->varargs || PyThread_tss_get(&BYPASS) == (void *)e->code)
        return Py_NewRef(DECLINED);
    PyObject *call = PyTuple_New(nargs); /* (func, *slots): what settling an error needs */
    if (call == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(call, i, Py_NewRef(argv[i]));
    PyObject *flat = PyTuple_GetSlice(call, 1, nargs), *result = NULL;
    if (flat != NULL) {
        Py_INCREF(e); /* (a call may re-arm ``self``) */
        result = run_entry(self, e, call, flat);
        Py_DECREF(e);
        Py_DECREF(flat);
        if (result == NULL && !PyErr_Occurred())
            result = Py_NewRef(DECLINED);
    }
    Py_DECREF(call);
    return result;
}

static PyMethodDef call_methods[] = {
    {"_arm", (PyCFunction)call_arm, METH_VARARGS,
     "_arm(fast_entry, function): repeat this entry's calls of function (None: frames, see _try_frame) until a "
     "capture cache changes; _arm(None, None) disarms"},
    {"_try_frame", (PyCFunction)(void (*)(void))call_try_frame, METH_FASTCALL,
     "_try_frame(func, *slots): the armed entry's result for a frame of func, or DECLINED"},
    {NULL},
};

static PyGetSetDef call_getset[] = {
    {"_armed", (getter)call_get_armed, NULL, "the FastEntry the next call may repeat, or None", NULL},
    {NULL},
};

static PyTypeObject FastCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "capture._fast_call.FastCall",
    .tp_basicsize = sizeof(FastCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Base of a jitted function: calls repeat the armed entry in C, else ``self._call_slow(args, kwargs)``; "
              "a graph's error there goes to ``self._settle_fast(entry, args, error)``",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)call_dealloc,
    .tp_traverse = (traverseproc)call_traverse,
    .tp_clear = (inquiry)call_clear,
    .tp_call = (ternaryfunc)fast_tp_call,
    .tp_methods = call_methods,
    .tp_getset = call_getset,
};

/* -- module ------------------------------------------------------------------------------------- */

static PyObject *
mod_suspend(PyObject *m, PyObject *unused)
{
    SUSPENDED++;
    Py_RETURN_NONE;
}

static PyObject *
mod_resume(PyObject *m, PyObject *unused)
{
    if (SUSPENDED > 0)
        SUSPENDED--;
    Py_RETURN_NONE;
}

static PyObject *
mod_configure(PyObject *m, PyObject *active)
{
    if (!PyList_CheckExact(active)) {
        PyErr_SetString(PyExc_TypeError, "configure: expected the tape's ACTIVE list");
        return NULL;
    }
    Py_XSETREF(TAPE_ACTIVE, Py_NewRef(active));
    Py_RETURN_NONE;
}

static PyObject *
mod_set_bypass(PyObject *m, PyObject *code)
{
    if (PyThread_tss_set(&BYPASS, code == Py_None ? NULL : (void *)code) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "set_bypass: cannot set the thread's bypass");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
mod_take_bypass(PyObject *m, PyObject *code)
{
    if (PyThread_tss_get(&BYPASS) != (void *)code)
        Py_RETURN_FALSE;
    if (PyThread_tss_set(&BYPASS, NULL) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "take_bypass: cannot clear the thread's bypass");
        return NULL;
    }
    Py_RETURN_TRUE;
}

static PyMethodDef module_methods[] = {
    {"suspend", mod_suspend, METH_NOARGS, "suspend(): calls go the Python way until the matching resume()"},
    {"resume", mod_resume, METH_NOARGS, "resume(): ends one suspend()"},
    {"configure", mod_configure, METH_O, "configure(tape_active): the list whose items mean a tape records"},
    {"set_bypass", mod_set_bypass, METH_O,
     "set_bypass(code or None): on this thread, the next frame of code runs as it is (call_eagerly)"},
    {"take_bypass", mod_take_bypass, METH_O,
     "take_bypass(code) -> bool: whether this frame of code is the one to run as it is (then no longer)"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "capture._fast_call", "A jitted function's steady-state call, in C.", -1,
    module_methods,
};

PyMODINIT_FUNC
PyInit__fast_call(void)
{
    if (PyType_Ready(&FastEntryType) < 0 || PyType_Ready(&FastCallType) < 0)
        return NULL;
    if (DATA_NAME == NULL && (DATA_NAME = PyUnicode_InternFromString("_data")) == NULL)
        return NULL;
    if (SLOW_NAME == NULL && (SLOW_NAME = PyUnicode_InternFromString("_call_slow")) == NULL)
        return NULL;
    if (SETTLE_NAME == NULL && (SETTLE_NAME = PyUnicode_InternFromString("_settle_fast")) == NULL)
        return NULL;
    if (!PyThread_tss_is_created(&BYPASS) && PyThread_tss_create(&BYPASS) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "_fast_call: cannot create a thread-specific key");
        return NULL;
    }
    if (DECLINED == NULL && (DECLINED = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type)) == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "FastEntry", (PyObject *)&FastEntryType) < 0
            || PyModule_AddObjectRef(m, "FastCall", (PyObject *)&FastCallType) < 0
            || PyModule_AddObjectRef(m, "DECLINED", DECLINED) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
