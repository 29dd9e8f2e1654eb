/* The one weak-reference read the C helpers share (capture/_fast_call.c, capture/_guard_vm.c,
   codegen/cpu/_restored_call.c): the extensions are built separately, so it lives in a header.

   Python 3.13 deprecates PyWeakref_GET_OBJECT (a borrowed reference that another thread's last
   decref can free under us) for PyWeakref_GetRef (a new reference); older versions only have the
   borrowed read, which is safe there while the caller holds the GIL and runs no Python code
   before taking its own reference, as this function does at once. */
#ifndef MSJIT_WEAKREF_H
#define MSJIT_WEAKREF_H

#include <Python.h>

/* the object of the weak reference ``ref`` (a new reference), or NULL (no error set) once it died */
static inline PyObject *
msjit_referent(PyObject *ref)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *obj;
    if (PyWeakref_GetRef(ref, &obj) < 0) {
        PyErr_Clear();
        return NULL;
    }
    return obj; /* (NULL when dead) */
#else
    PyObject *obj = PyWeakref_GET_OBJECT(ref);
    return obj == Py_None ? NULL : Py_NewRef(obj);
#endif
}

#endif /* MSJIT_WEAKREF_H */
