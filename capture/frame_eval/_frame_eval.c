/*
 * capture.frame_eval._frame_eval: the PEP 523 frame-evaluation hook of the capture JIT.
 *
 * Design: /work/shared/notes/frame-eval-hook.md, section 1 ("Recommended minimal C helper") and
 * 2.B ("Call redirection"). Everything except the hook itself lives in Python.
 *
 * - The shim is installed on the interpreter only while at least one thread has a callback
 *   (thread-local in a Py_tss slot; install on 0->1 threads, restore the previous evaluator on
 *   1->0) and it chains to the evaluator that was installed before it.
 * - Per code object, the callback decides once: ``cb(code) -> None`` (never capture: a SKIP mark
 *   in co_extra) or a *dispatcher* (a strong reference kept in co_extra; the slot's free function
 *   drops it). Decisions carry a generation: ``reset_all()`` makes every decision stale.
 * - For a registered frame the dispatcher is called as ``dispatcher(func, *arg_slots)`` with the
 *   thread's callback switched off; it returns None (evaluate the frame normally) or a replacement
 *   callable, which is called with the frame's argument slots (callback on again) instead of
 *   evaluating the frame. A code object may also have a *fast* callable (``set_fast``), tried
 *   first the same way as the dispatcher: its result is the frame's, unless it declines. The
 *   original frame is then released exactly as the version requires:
 *   3.11: the caller (_PyEval_Vector) frees it; 3.12/3.13: the evaluator owns it, so this hook
 *   clears and pops it on every path (3.13: exported _PyEval_FrameClearAndPop; 3.12: the short
 *   copy below, valid under the preconditions checked before we take the frame).
 *
 * C, not C++: the internal headers pull in <stdatomic.h>.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030E0000
#error "capture.frame_eval._frame_eval supports CPython 3.11-3.13 only; review the frame code for a new version"
#endif
#ifdef Py_GIL_DISABLED
#error "capture.frame_eval._frame_eval does not support free-threaded builds"
#endif

#define Py_BUILD_CORE
#if PY_VERSION_HEX >= 0x030C0000 && PY_VERSION_HEX < 0x030D0000
#undef _PyGC_FINALIZED /* cpython#105268 */
#endif
#include <internal/pycore_frame.h>
#if PY_VERSION_HEX >= 0x030D0000
#include <internal/pycore_ceval.h>
#endif
#undef Py_BUILD_CORE

#if PY_VERSION_HEX >= 0x030D0000
#define FRAME_CODE(f) ((PyCodeObject *)(f)->f_executable)
#define FRAME_FUNC(f) ((f)->f_funcobj)
#define FRAME_NOT_STARTED(f, co) ((f)->instr_ptr == _PyCode_CODE(co))
#elif PY_VERSION_HEX >= 0x030C0000
#define FRAME_CODE(f) ((f)->f_code)
#define FRAME_FUNC(f) ((f)->f_funcobj)
#define FRAME_NOT_STARTED(f, co) ((f)->prev_instr == _PyCode_CODE(co) - 1)
#else
#define FRAME_CODE(f) ((f)->f_code)
#define FRAME_FUNC(f) ((PyObject *)(f)->f_func)
#define FRAME_NOT_STARTED(f, co) ((f)->prev_instr == _PyCode_CODE(co) - 1)
#endif

#if PY_VERSION_HEX >= 0x030C0000
#define CODE_GET_EXTRA PyUnstable_Code_GetExtra
#define CODE_SET_EXTRA PyUnstable_Code_SetExtra
#define REQUEST_EXTRA_INDEX PyUnstable_Eval_RequestCodeExtraIndex
#else
#define CODE_GET_EXTRA _PyCode_GetExtra
#define CODE_SET_EXTRA _PyCode_SetExtra
#define REQUEST_EXTRA_INDEX _PyEval_RequestCodeExtraIndex
#endif

#if PY_VERSION_HEX >= 0x030C0000
#define FRAME_SIZE(co) ((co)->co_framesize)
#else
#define FRAME_SIZE(co) ((co)->co_nlocalsplus + (co)->co_stacksize + FRAME_SPECIALS_SIZE)
#endif

#define NOT_CAPTURED_FLAGS (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE)

/* ---------------------------------------------------------------------------------------------- */
/* co_extra decisions
 *   NULL                  unseen
 *   odd value             SKIP, generation in the upper bits
 *   even value            Decision* (a registered code object's dispatcher)                       */

typedef struct {
    uintptr_t generation;
    PyObject *dispatcher; /* strong reference */
    PyObject *fast;       /* strong reference or NULL: tried first, see set_fast */
} Decision;

/* what a ``fast`` callable returns where it leaves the frame to the dispatcher (set_fast) */
static PyObject *declined = NULL;

static Py_ssize_t extra_index = -1;
static uintptr_t generation = 0; /* bumped by reset_all(); kept below 2**62 */

#define IS_SKIP(p) (((uintptr_t)(p)) & 1u)
#define SKIP_GEN(p) (((uintptr_t)(p)) >> 1)
#define MAKE_SKIP() ((void *)((generation << 1) | 1u))

static void
free_extra(void *p)
{
    if (p == NULL || IS_SKIP(p)) {
        return;
    }
    Decision *d = (Decision *)p;
    PyObject *disp = d->dispatcher, *fast = d->fast;
    PyMem_Free(d);
    Py_XDECREF(disp);
    Py_XDECREF(fast);
}

/* ---------------------------------------------------------------------------------------------- */
/* thread-local callback, installation */

static Py_tss_t cb_key = Py_tss_NEEDS_INIT;
/* the value of a thread's slot while its callback runs: frames are never intercepted then */
static char in_callback_mark;
#define IN_CALLBACK ((void *)&in_callback_mark)

static long active_threads = 0;
static int installed = 0;
static PyInterpreterState *installed_interp = NULL;
static _PyFrameEvalFunction previous_eval = NULL;

static struct {
    unsigned long long decisions;   /* first-sight callback calls */
    unsigned long long dispatches;  /* dispatcher calls (registered frames) */
    unsigned long long replaced;    /* frames run by a replacement (or their fast callable) */
    unsigned long long fast;        /* ... of which by the fast callable */
    unsigned long long errors;      /* NULL from callback/dispatcher/replacement */
    unsigned long long installs;
} counters;

static PyObject *
shim(PyThreadState *tstate, _PyInterpreterFrame *frame, int throwflag);

static inline PyObject *
eval_default(PyThreadState *tstate, _PyInterpreterFrame *frame, int throwflag)
{
    _PyFrameEvalFunction prev = previous_eval;
    if (prev == NULL || prev == shim) {
        prev = _PyEval_EvalFrameDefault;
    }
    return prev(tstate, frame, throwflag);
}

/* Release a frame that this hook took over instead of evaluating (3.12+ only). */
static inline void
consume_frame(PyThreadState *tstate, _PyInterpreterFrame *frame)
{
#if PY_VERSION_HEX >= 0x030D0000
    _PyEval_FrameClearAndPop(tstate, frame);
#elif PY_VERSION_HEX >= 0x030C0000
    /* Copied, simplified, from CPython 3.12 Python/ceval.c clear_thread_frame,
     * Python/frame.c _PyFrame_ClearExceptCode and Python/pystate.c _PyThreadState_PopFrame
     * (none exported). The preconditions were checked before the frame was taken and cannot
     * change meanwhile (the frame is not linked into the frame chain, so no frame object can be
     * created for it): owned by the thread, no frame object, never started, and every frame
     * pushed above it since has been popped, so it is the top of the data stack. */
    PyCodeObject *code = frame->f_code;
    if ((PyObject **)frame + FRAME_SIZE(code) != tstate->datastack_top ||
        frame->frame_obj != NULL || frame->owner != FRAME_OWNED_BY_THREAD) {
        Py_FatalError("capture.frame_eval: frame invariants violated while releasing a replaced frame");
    }
    for (int i = 0; i < frame->stacktop; i++) {
        Py_XDECREF(frame->localsplus[i]);
    }
    frame->stacktop = 0;
    Py_XDECREF(frame->f_locals);
    Py_DECREF(frame->f_funcobj);
    Py_DECREF(frame->f_code);
    /* _PyThreadState_PopFrame */
    PyObject **base = (PyObject **)frame;
    if (base == &tstate->datastack_chunk->data[0]) {
        _PyStackChunk *chunk = tstate->datastack_chunk;
        _PyStackChunk *previous = chunk->previous;
        if (previous == NULL) {
            Py_FatalError("capture.frame_eval: popping the root data-stack chunk");
        }
        tstate->datastack_top = &previous->data[previous->top];
        tstate->datastack_chunk = previous;
        PyObjectArenaAllocator arena;
        PyObject_GetArenaAllocator(&arena);
        arena.free(arena.ctx, chunk, chunk->size);
        tstate->datastack_limit = (PyObject **)(((char *)previous) + previous->size);
    }
    else {
        tstate->datastack_top = base;
    }
#else
    (void)tstate;
    (void)frame; /* 3.11: _PyEval_Vector clears and pops the frame after the evaluator returns */
#endif
}

/* ---------------------------------------------------------------------------------------------- */
/* C stack guard */

#if defined(__linux__) && defined(__GLIBC__)
#include <pthread.h>
#define STACK_MARGIN (256 * 1024)
static _Thread_local char *stack_low = NULL; /* lowest address we let Python calls reach */
static _Thread_local int stack_known = 0;    /* 0 unknown, 1 known, -1 unavailable */

static int
c_stack_exhausted(void)
{
    if (stack_known == 0) {
        stack_known = -1;
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            void *addr = NULL;
            size_t size = 0;
            if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != NULL && size > 2 * STACK_MARGIN) {
                stack_low = (char *)addr + STACK_MARGIN;
                stack_known = 1;
            }
            pthread_attr_destroy(&attr);
        }
    }
    return stack_known == 1 && (char *)__builtin_frame_address(0) < stack_low;
}
#else
static inline int
c_stack_exhausted(void)
{
    return 0;
}
#endif

static PyObject *
shim(PyThreadState *tstate, _PyInterpreterFrame *frame, int throwflag)
{
#if PY_VERSION_HEX >= 0x030D0000
    if (frame->f_executable == NULL || !PyCode_Check(frame->f_executable)) {
        return eval_default(tstate, frame, throwflag);
    }
#endif
    PyCodeObject *code = FRAME_CODE(frame);
    /* A frame we may take over (and so release ourselves): a fresh function frame on top of the
     * thread's data stack, owned by the thread, with no frame object. Anything else goes to the
     * previous evaluator untouched. */
    if (throwflag || !(code->co_flags & CO_OPTIMIZED) || frame->owner != FRAME_OWNED_BY_THREAD ||
        frame->frame_obj != NULL || !FRAME_NOT_STARTED(frame, code) || FRAME_FUNC(frame) == NULL ||
        (PyObject **)frame + FRAME_SIZE(code) != tstate->datastack_top) {
        return eval_default(tstate, frame, throwflag);
    }
    if (c_stack_exhausted()) {
        /* With an evaluator installed, every Python call nests C frames (no inlined calls), so a
         * recursion limit raised by the user could overflow the C stack (3.11 segfaults). */
        PyErr_SetString(PyExc_RecursionError,
                        "maximum recursion depth exceeded (the C stack is nearly full: the capture "
                        "frame hook makes every Python call use C stack)");
        consume_frame(tstate, frame);
        return NULL;
    }
    PyObject *cb = (PyObject *)PyThread_tss_get(&cb_key);
    if (cb == NULL || cb == IN_CALLBACK || tstate->tracing || (code->co_flags & NOT_CAPTURED_FLAGS)) {
        return eval_default(tstate, frame, throwflag);
    }
    void *extra = NULL;
    if (CODE_GET_EXTRA((PyObject *)code, extra_index, &extra) < 0) {
        PyErr_Clear();
        return eval_default(tstate, frame, throwflag);
    }
    if (extra != NULL) {
        if (IS_SKIP(extra)) {
            if (SKIP_GEN(extra) == generation) {
                return eval_default(tstate, frame, throwflag);
            }
            extra = NULL; /* stale */
        }
        else if (((Decision *)extra)->generation != generation) {
            extra = NULL;
        }
    }

#if PY_VERSION_HEX >= 0x030D0000
    if (Py_IsFinalizing()) {
#else
    if (_Py_IsFinalizing()) {
#endif
        return eval_default(tstate, frame, throwflag); /* our modules may be torn down already */
    }
    /* From here on our own Python code runs: never intercept it (the thread's callback is
     * switched off until the dispatcher returns). We hold the slot's reference to cb meanwhile. */
    if (PyThread_tss_set(&cb_key, IN_CALLBACK) != 0) {
        return eval_default(tstate, frame, throwflag);
    }
    PyObject *dispatcher = NULL, *fast = NULL;
    if (extra == NULL) {
        counters.decisions++;
        PyObject *decided = PyObject_CallOneArg(cb, (PyObject *)code);
        if (decided == NULL) {
            goto error_restore;
        }
        if (decided == Py_None) {
            Py_DECREF(decided);
            (void)CODE_SET_EXTRA((PyObject *)code, extra_index, MAKE_SKIP());
            PyThread_tss_set(&cb_key, cb);
            return eval_default(tstate, frame, throwflag);
        }
        Decision *d = (Decision *)PyMem_Malloc(sizeof(Decision));
        if (d == NULL) {
            Py_DECREF(decided);
            PyErr_NoMemory();
            goto error_restore;
        }
        d->generation = generation;
        d->dispatcher = decided; /* the reference moves into co_extra */
        d->fast = NULL;
        dispatcher = Py_NewRef(decided);
        if (CODE_SET_EXTRA((PyObject *)code, extra_index, d) < 0) {
            free_extra(d);
            Py_DECREF(dispatcher);
            goto error_restore;
        }
    }
    else {
        /* keep it alive: the dispatcher may reset this code object's decision */
        dispatcher = Py_NewRef(((Decision *)extra)->dispatcher);
        fast = Py_XNewRef(((Decision *)extra)->fast);
    }

    counters.dispatches++;
    PyObject *func = FRAME_FUNC(frame);
    Py_ssize_t n = code->co_argcount + code->co_kwonlyargcount +
                   ((code->co_flags & CO_VARARGS) ? 1 : 0) + ((code->co_flags & CO_VARKEYWORDS) ? 1 : 0);
    PyObject *small[16];
    PyObject **argv = small;
    if (n + 1 > (Py_ssize_t)(sizeof(small) / sizeof(small[0]))) {
        argv = (PyObject **)PyMem_Malloc(sizeof(PyObject *) * (size_t)(n + 1));
        if (argv == NULL) {
            Py_DECREF(dispatcher);
            Py_XDECREF(fast);
            PyErr_NoMemory();
            goto error_restore;
        }
    }
    argv[0] = func;
    for (Py_ssize_t i = 0; i < n; i++) {
        argv[i + 1] = frame->localsplus[i]; /* borrowed: the frame keeps them alive */
    }
    if (fast != NULL) {
        /* the code's steady state, repeated without the dispatcher (capture/_fast_call.c,
           _try_frame): its result, or ``declined`` (nothing happened: ask the dispatcher) */
        PyObject *result = PyObject_Vectorcall(fast, argv, (size_t)(n + 1), NULL);
        Py_DECREF(fast);
        if (result != declined) {
            if (argv != small) {
                PyMem_Free(argv);
            }
            Py_DECREF(dispatcher);
            PyThread_tss_set(&cb_key, cb);
            if (result == NULL) {
                counters.errors++;
            }
            else {
                counters.replaced++;
                counters.fast++;
            }
            consume_frame(tstate, frame);
            return result;
        }
        Py_DECREF(result);
    }
    PyObject *replacement = PyObject_Vectorcall(dispatcher, argv, (size_t)(n + 1), NULL);
    if (argv != small) {
        PyMem_Free(argv);
    }
    Py_DECREF(dispatcher);
    PyThread_tss_set(&cb_key, cb);
    if (replacement == NULL) {
        goto error;
    }
    if (replacement == Py_None) {
        Py_DECREF(replacement);
        return eval_default(tstate, frame, throwflag);
    }
    counters.replaced++;
    PyObject *result = PyObject_Vectorcall(replacement, frame->localsplus, (size_t)n, NULL);
    Py_DECREF(replacement);
    if (result == NULL) {
        counters.errors++;
    }
    consume_frame(tstate, frame);
    return result;

error_restore:
    PyThread_tss_set(&cb_key, cb);
error:
    counters.errors++;
    consume_frame(tstate, frame);
    return NULL;
}

static void
install(void)
{
    PyInterpreterState *interp = PyInterpreterState_Get();
    _PyFrameEvalFunction cur = _PyInterpreterState_GetEvalFrameFunc(interp);
    if (cur != shim) {
        previous_eval = cur;
        _PyInterpreterState_SetEvalFrameFunc(interp, shim);
    }
    installed = 1;
    installed_interp = interp;
    counters.installs++;
}

static void
uninstall(void)
{
    PyInterpreterState *interp = installed_interp;
    if (interp != NULL && _PyInterpreterState_GetEvalFrameFunc(interp) == shim) {
        /* only if nobody replaced us meanwhile: never clobber a later evaluator */
        _PyInterpreterState_SetEvalFrameFunc(interp, previous_eval ? previous_eval : _PyEval_EvalFrameDefault);
    }
    installed = 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* module functions */

static PyObject *
set_callback(PyObject *module, PyObject *cb)
{
    (void)module;
    if (cb != Py_None && !PyCallable_Check(cb)) {
        PyErr_Format(PyExc_TypeError, "set_callback: expected a callable or None, got %.100s",
                     Py_TYPE(cb)->tp_name);
        return NULL;
    }
    if (installed_interp != NULL && PyInterpreterState_Get() != installed_interp && cb != Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "set_callback: the frame hook serves one interpreter only");
        return NULL;
    }
    PyObject *old = (PyObject *)PyThread_tss_get(&cb_key);
    if (old == IN_CALLBACK) {
        PyErr_SetString(PyExc_RuntimeError,
                        "set_callback: cannot change the capture callback from inside the capture callback");
        return NULL;
    }
    PyObject *new_value = (cb == Py_None) ? NULL : Py_NewRef(cb);
    if (PyThread_tss_set(&cb_key, new_value) != 0) {
        Py_XDECREF(new_value);
        PyErr_SetString(PyExc_RuntimeError, "set_callback: cannot set the thread-local callback");
        return NULL;
    }
    if (old == NULL && new_value != NULL) {
        if (active_threads++ == 0) {
            install();
        }
    }
    else if (old != NULL && new_value == NULL) {
        if (--active_threads == 0) {
            uninstall();
        }
    }
    if (old == NULL) {
        Py_RETURN_NONE;
    }
    return old; /* the slot's reference moves to the caller */
}

static PyObject *
get_callback(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *cb = (PyObject *)PyThread_tss_get(&cb_key);
    if (cb == NULL || cb == IN_CALLBACK) {
        Py_RETURN_NONE;
    }
    return Py_NewRef(cb);
}

static int
check_code(PyObject *code, const char *fn)
{
    if (!PyCode_Check(code)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a code object, got %.100s", fn, Py_TYPE(code)->tp_name);
        return -1;
    }
    return 0;
}

static PyObject *
skip_code(PyObject *module, PyObject *code)
{
    (void)module;
    if (check_code(code, "skip_code") < 0 || CODE_SET_EXTRA(code, extra_index, MAKE_SKIP()) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
reset_code(PyObject *module, PyObject *code)
{
    (void)module;
    if (check_code(code, "reset_code") < 0 || CODE_SET_EXTRA(code, extra_index, NULL) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* set_fast(code, fast, declined): frames of ``code`` (one the callback gave a dispatcher) first
   call ``fast(func, *arg_slots)``, with the thread's callback off as for the dispatcher; a result
   other than ``declined`` is the frame's (or its error); ``declined`` goes on to the dispatcher.
   ``fast`` None: no longer. Kept with the code's decision (reset_code/reset_all drop it). */
static PyObject *
set_fast(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *code, *fast, *marker;
    if (!PyArg_ParseTuple(args, "OOO", &code, &fast, &marker) || check_code(code, "set_fast") < 0) {
        return NULL;
    }
    if (fast != Py_None && !PyCallable_Check(fast)) {
        PyErr_SetString(PyExc_TypeError, "set_fast: expected a callable or None");
        return NULL;
    }
    void *extra = NULL;
    if (CODE_GET_EXTRA(code, extra_index, &extra) < 0) {
        return NULL;
    }
    if (extra == NULL || IS_SKIP(extra) || ((Decision *)extra)->generation != generation) {
        Py_RETURN_FALSE; /* (no dispatcher: nothing to put first) */
    }
    if (declined == NULL) {
        declined = Py_NewRef(marker);
    }
    else if (marker != declined) {
        PyErr_SetString(PyExc_ValueError, "set_fast: another declined marker");
        return NULL;
    }
    Decision *d = (Decision *)extra;
    Py_XSETREF(d->fast, fast == Py_None ? NULL : Py_NewRef(fast));
    Py_RETURN_TRUE;
}

static PyObject *
reset_all(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    generation = (generation + 1) & (((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 2)) - 1);
    Py_RETURN_NONE;
}

static PyObject *
decision(PyObject *module, PyObject *code)
{
    (void)module;
    if (check_code(code, "decision") < 0) {
        return NULL;
    }
    void *extra = NULL;
    if (CODE_GET_EXTRA(code, extra_index, &extra) < 0) {
        return NULL;
    }
    if (extra == NULL) {
        return PyUnicode_FromString("unseen");
    }
    if (IS_SKIP(extra)) {
        return PyUnicode_FromString(SKIP_GEN(extra) == generation ? "skip" : "unseen");
    }
    if (((Decision *)extra)->generation != generation) {
        return PyUnicode_FromString("unseen");
    }
    return Py_NewRef(((Decision *)extra)->dispatcher);
}

static PyObject *
stats(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyInterpreterState *interp = PyInterpreterState_Get();
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:l,s:O,s:O}",
                         "decisions", counters.decisions, "dispatches", counters.dispatches,
                         "replaced", counters.replaced, "fast", counters.fast, "errors", counters.errors,
                         "installs", counters.installs, "active_threads", active_threads,
                         "installed", installed ? Py_True : Py_False,
                         "shim_is_current",
                         _PyInterpreterState_GetEvalFrameFunc(interp) == shim ? Py_True : Py_False);
}

static PyMethodDef methods[] = {
    {"set_callback", set_callback, METH_O,
     "set_callback(cb_or_None) -> previous: this thread's capture callback (installs/removes the hook)."},
    {"get_callback", get_callback, METH_NOARGS, "get_callback() -> this thread's capture callback or None."},
    {"skip_code", skip_code, METH_O, "skip_code(code): never intercept frames of this code object."},
    {"reset_code", reset_code, METH_O, "reset_code(code): forget the decision for this code object."},
    {"set_fast", set_fast, METH_VARARGS,
     "set_fast(code, fast, declined) -> bool: frames of code try fast(func, *slots) before the dispatcher."},
    {"reset_all", reset_all, METH_NOARGS, "reset_all(): make every code object's decision stale."},
    {"decision", decision, METH_O, "decision(code) -> 'unseen', 'skip' or the dispatcher (for tests)."},
    {"stats", stats, METH_NOARGS, "stats() -> dict of counters and installation state."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_frame_eval", "PEP 523 frame-evaluation hook of the capture JIT.", -1, methods,
};

PyMODINIT_FUNC
PyInit__frame_eval(void)
{
    if (!PyThread_tss_is_created(&cb_key) && PyThread_tss_create(&cb_key) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "_frame_eval: cannot create the thread-local slot");
        return NULL;
    }
    if (extra_index < 0) {
        extra_index = REQUEST_EXTRA_INDEX(free_extra);
        if (extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "_frame_eval: no co_extra index left");
            return NULL;
        }
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "PY_VERSION_HEX", PY_VERSION_HEX) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
