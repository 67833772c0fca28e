/* What gradcli's C extensions share (language/_lalr.c, engine/_backward.c, engine/_record.c):
 * reading a Python class's slot offsets from its slot descriptors, to write an object's
 * fields as its constructor would, truth tests, and interning the attribute names a module
 * reads.
 * A header of static inline functions: each extension compiles its own copy of those it uses.
 */
#ifndef GRADCLI_CAPI_H
#define GRADCLI_CAPI_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* o's object slot at byte offset off (borrowed; NULL while unset) */
#define SLOT_AT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* The offsets of descriptors (a tuple of n of type's own object slot descriptors, in the
 * order the caller numbers its fields) into offsets; 0, or -1 with a TypeError naming what */
static inline int slot_offsets(PyObject *type, PyObject *descriptors, Py_ssize_t *offsets,
                        Py_ssize_t n, const char *what) {
    if (!PyType_Check(type) || !PyTuple_Check(descriptors) ||
        PyTuple_GET_SIZE(descriptors) != n) {
        PyErr_Format(PyExc_TypeError, "%s: a class and %zd slot descriptors", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PyTuple_GET_ITEM(descriptors, i);
        if (!Py_IS_TYPE(d, &PyMemberDescr_Type) ||
            ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX ||
            ((PyMemberDescrObject *)d)->d_common.d_type != (PyTypeObject *)type) {
            PyErr_Format(PyExc_TypeError, "%s: the class's own object slots", what);
            return -1;
        }
        offsets[i] = ((PyMemberDescrObject *)d)->d_member->offset;
    }
    return 0;
}

/* spec[key] (spec a dict): (a class, its slot descriptors in the caller's order of fields);
 * the class kept in *cls (a new reference), the offsets in offsets; 0, or -1 with an error */
static inline int class_slots(PyObject *spec, const char *key, PyTypeObject **cls,
                              Py_ssize_t *offsets, Py_ssize_t n) {
    PyObject *entry = PyDict_GetItemString(spec, key), *type, *descriptors;
    if (entry == NULL || !PyArg_ParseTuple(entry, "OO", &type, &descriptors)) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_KeyError, "%s", key);
        return -1;
    }
    if (slot_offsets(type, descriptors, offsets, n, key) < 0) return -1;
    Py_INCREF(type);
    Py_XSETREF(*cls, (PyTypeObject *)type);
    return 0;
}

/* v's truthiness, v a new reference (released here; NULL passes a failure on): 1, 0, -1 */
static inline int truth(PyObject *v) {
    if (v == NULL) return -1;
    int r = v == Py_True ? 1 : v == Py_False ? 0 : PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* o.name's truthiness: 1, 0, or -1 with an exception set */
static inline int attr_true(PyObject *o, PyObject *name) {
    return truth(PyObject_GetAttr(o, name));
}

/* *names[i] = the interned texts[i], for i < n; 0, or -1 with an exception set */
static inline int intern_all(PyObject **names[], const char *texts[], int n) {
    for (int i = 0; i < n; i++) {
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) return -1;
    }
    return 0;
}

#endif
