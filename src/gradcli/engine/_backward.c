/* The backward's loop compiled: autograd.py's _plain (for a backward without create_graph or
 * a trace), step for step, in C.
 *
 * The plan (which nodes run, in which order, the AccumulateGrads' dependency counts), the
 * formulas (Node.apply), freeing (Node.free), the sums into .grad (_accumulate) and every node
 * with hooks, a retained grad, a capture or a mask of its own (_run's special) stay the Python
 * that autograd.py and graph.py define; this file only runs the loop between them without the
 * interpreter's cost per node and per edge: the next node picked, its gradient taken from the
 * buffers, its gradients summed into the buffers of the nodes its edges lead to, an
 * AccumulateGrad pushed on the ready heap when its last gradient arrives.  autograd.py says
 * what each step means; the engine's tests run this loop, and GRADCLI_PURE=1 runs _plain.
 *
 * setup(AccumulateGrad, _accumulate, _array_formulas, _check_nan, heappush, heappop): once,
 * when autograd.py is imported.  run(order, ready, buffers, adds, deps, marked, special, ctx,
 * accumulate, retain_graph, at): one backward, as _plain(..., slow=False).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *accumulate_grad, *accumulate_fn, *formulas_fn, *check_nan_fn, *heappush, *heappop;
static PyObject *s_hooks, *s_retained, *s_variable, *s_mask, *s_backend, *s_apply, *s_free;
static PyObject *s_anomaly, *s_anomaly_nan, *s_edges, *s_seq, *one;

static PyObject *setup(PyObject *self, PyObject *args) {
    PyObject *fns[6];
    if (!PyArg_ParseTuple(args, "O!OOOOO", &PyType_Type, &fns[0], &fns[1], &fns[2], &fns[3],
                          &fns[4], &fns[5])) return NULL;
    PyObject **slots[6] = {&accumulate_grad, &accumulate_fn, &formulas_fn, &check_nan_fn,
                           &heappush, &heappop};
    for (int i = 0; i < 6; i++) {
        Py_INCREF(fns[i]);
        Py_XSETREF(*slots[i], fns[i]);
    }
    Py_RETURN_NONE;
}

/* 1 when attribute name of o is truthy, 0 when not, -1 with an exception set */
static int attr_true(PyObject *o, PyObject *name) {
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) return -1;
    int r = v == Py_True ? 1 : v == Py_False ? 0 : PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

/* 1 when attribute name of o is not None, 0 when it is, -1 with an exception set */
static int attr_set(PyObject *o, PyObject *name) {
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) return -1;
    int r = v != Py_None;
    Py_DECREF(v);
    return r;
}

/* adds.get(n, 0), a new reference */
static PyObject *count_of(PyObject *adds, PyObject *n) {
    PyObject *c = PyDict_GetItemWithError(adds, n);
    if (c == NULL) return PyErr_Occurred() ? NULL : PyLong_FromLong(0);
    Py_INCREF(c);
    return c;
}

/* The node's gradients sent along its edges (_plain's loop over zip(edges, grads_in, mask)):
 * each summed into the buffer of the node it leads to, an AccumulateGrad counted down and
 * pushed on the ready heap at 0.  0, or -1 with an exception set. */
static int send(PyObject *n, PyObject *grads_in, PyObject *mask, PyObject *buffers,
                PyObject *adds, PyObject *deps, PyObject *ready) {
    PyObject *edges = PyObject_GetAttr(n, s_edges), *e = NULL, *gs = NULL, *ms = NULL;
    int status = -1;
    if (edges == NULL) return -1;
    e = PySequence_Fast(edges, "a node's edges");
    gs = PySequence_Fast(grads_in, "a node's gradients");
    ms = PySequence_Fast(mask, "a node's mask");
    if (e == NULL || gs == NULL || ms == NULL) goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(e);
    if (PySequence_Fast_GET_SIZE(gs) < count) count = PySequence_Fast_GET_SIZE(gs);
    if (PySequence_Fast_GET_SIZE(ms) < count) count = PySequence_Fast_GET_SIZE(ms);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *use = PySequence_Fast_GET_ITEM(ms, i);
        int on = use == Py_True ? 1 : use == Py_False ? 0 : PyObject_IsTrue(use);
        if (on < 0) goto done;
        if (!on) continue;
        PyObject *m = PySequence_Fast_GET_ITEM(e, i), *gi = PySequence_Fast_GET_ITEM(gs, i);
        PyObject *prev = PyDict_GetItemWithError(buffers, m);
        if (prev == NULL && PyErr_Occurred()) goto done;
        if (prev == NULL || prev == Py_None) {
            if (PyDict_SetItem(buffers, m, gi) < 0) goto done;
        } else if (gi != Py_None) {
            PyObject *sum = PyNumber_Add(prev, gi);  /* prev is borrowed: added before it goes */
            if (sum == NULL) goto done;
            int failed = PyDict_SetItem(buffers, m, sum);
            Py_DECREF(sum);
            if (failed) goto done;
            PyObject *c = count_of(adds, m), *c1;
            if (c == NULL) goto done;
            c1 = PyNumber_Add(c, one);
            Py_DECREF(c);
            if (c1 == NULL) goto done;
            failed = PyDict_SetItem(adds, m, c1);
            Py_DECREF(c1);
            if (failed) goto done;
        }
        if ((PyObject *)Py_TYPE(m) == accumulate_grad) {
            PyObject *d = PyDict_GetItemWithError(deps, m);
            if (d == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, m);
                goto done;
            }
            long left = PyLong_AsLong(d) - 1;
            if (left == -2 && PyErr_Occurred()) goto done;
            PyObject *l = PyLong_FromLong(left);
            if (l == NULL) goto done;
            int failed = PyDict_SetItem(deps, m, l);
            Py_DECREF(l);
            if (failed) goto done;
            if (left == 0) {
                PyObject *seq = PyObject_GetAttr(m, s_seq);
                if (seq == NULL) goto done;
                PyObject *item = PyTuple_Pack(2, seq, m);
                Py_DECREF(seq);
                if (item == NULL) goto done;
                PyObject *r = PyObject_CallFunctionObjArgs(heappush, ready, item, NULL);
                Py_DECREF(item);
                if (r == NULL) goto done;
                Py_DECREF(r);
            }
        }
    }
    status = 0;
done:
    Py_DECREF(edges);
    Py_XDECREF(e);
    Py_XDECREF(gs);
    Py_XDECREF(ms);
    return status;
}

static PyObject *run(PyObject *self, PyObject *args) {
    PyObject *order, *ready, *buffers, *adds, *deps, *marked, *special, *ctx, *at;
    int accumulate, retain_graph;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!OOppO!", &PyList_Type, &order, &PyList_Type, &ready,
                          &PyDict_Type, &buffers, &PyDict_Type, &adds, &PyDict_Type, &deps,
                          &PySet_Type, &marked, &special, &ctx, &accumulate, &retain_graph,
                          &PyList_Type, &at)) return NULL;
    if (accumulate_grad == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_backward.setup() first");
        return NULL;
    }
    if (PyList_GET_SIZE(at) != 1) {
        PyErr_SetString(PyExc_ValueError, "at: a list of one item");
        return NULL;
    }
    PyObject *fx_backend = NULL, *fx = NULL;  /* the formulas of the last node's backend */
    PyObject *n = NULL, *g = NULL, *grads_in = NULL, *mask = NULL, *r = NULL;
    Py_ssize_t k = 0;
    for (;;) {
        Py_CLEAR(n); Py_CLEAR(g); Py_CLEAR(grads_in); Py_CLEAR(mask); Py_CLEAR(r);
        if (PyList_GET_SIZE(ready)) {
            PyObject *item = PyObject_CallOneArg(heappop, ready);
            if (item == NULL) goto fail;
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
                Py_DECREF(item);
                PyErr_SetString(PyExc_TypeError, "ready: (seq, node) pairs");
                goto fail;
            }
            n = Py_NewRef(PyTuple_GET_ITEM(item, 1));
            Py_DECREF(item);
        } else if (k < PyList_GET_SIZE(order)) {
            n = Py_NewRef(PyList_GET_ITEM(order, k));
            k++;
        } else {
            break;
        }
        if (PyList_SetItem(at, 0, Py_NewRef(n)) < 0) goto fail;
        g = PyDict_GetItemWithError(buffers, n);  /* buffers.pop(n): none sent, not ready */
        if (g == NULL) {
            if (PyErr_Occurred()) goto fail;
            continue;
        }
        Py_INCREF(g);
        if (PyDict_DelItem(buffers, n) < 0) goto fail;
        int odd = g == Py_None;
        if (!odd && (odd = attr_set(n, s_hooks)) < 0) goto fail;
        if (!odd && (odd = attr_set(n, s_retained)) < 0) goto fail;
        if (!odd && PySet_GET_SIZE(marked) && (odd = PySet_Contains(marked, n)) < 0) goto fail;
        if (odd) {
            r = PyObject_CallFunctionObjArgs(special, n, g, NULL);
            if (r == NULL) goto fail;
            if (r == Py_None) continue;
            if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2) {
                PyErr_SetString(PyExc_TypeError, "special(): (gradients, mask) or None");
                goto fail;
            }
            grads_in = Py_NewRef(PyTuple_GET_ITEM(r, 0));
            mask = Py_NewRef(PyTuple_GET_ITEM(r, 1));
        } else if ((PyObject *)Py_TYPE(n) == accumulate_grad) {
            if (accumulate) {
                PyObject *variable = PyObject_GetAttr(n, s_variable), *c;
                if (variable == NULL) goto fail;
                if ((c = count_of(adds, n)) == NULL) {
                    Py_DECREF(variable);
                    goto fail;
                }
                r = PyObject_CallFunctionObjArgs(accumulate_fn, variable, g, Py_False, c, NULL);
                Py_DECREF(variable);
                Py_DECREF(c);
                if (r == NULL) goto fail;
            }
            continue;
        } else {
            PyObject *backend = PyObject_GetAttr(n, s_backend);
            if (backend == NULL) goto fail;
            if (backend != fx_backend) {
                PyObject *made = PyObject_CallOneArg(formulas_fn, backend);
                if (made == NULL) {
                    Py_DECREF(backend);
                    goto fail;
                }
                Py_XSETREF(fx, made);
                Py_XSETREF(fx_backend, Py_NewRef(backend));
            }
            Py_DECREF(backend);
            if ((mask = PyObject_GetAttr(n, s_mask)) == NULL) goto fail;
            grads_in = PyObject_CallMethodObjArgs(n, s_apply, g, mask, fx, Py_False, NULL);
            if (grads_in == NULL) goto fail;
        }
        int on = attr_true(ctx, s_anomaly);
        if (on > 0) on = attr_true(ctx, s_anomaly_nan);
        if (on < 0) goto fail;
        if (on) {
            Py_XSETREF(r, PyObject_CallFunctionObjArgs(check_nan_fn, n, grads_in, NULL));
            if (r == NULL) goto fail;
        }
        if (!retain_graph) {
            Py_XSETREF(r, PyObject_CallMethodNoArgs(n, s_free));
            if (r == NULL) goto fail;
        }
        if (send(n, grads_in, mask, buffers, adds, deps, ready) < 0) goto fail;
    }
    Py_XDECREF(fx); Py_XDECREF(fx_backend);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(n); Py_XDECREF(g); Py_XDECREF(grads_in); Py_XDECREF(mask); Py_XDECREF(r);
    Py_XDECREF(fx); Py_XDECREF(fx_backend);
    return NULL;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(AccumulateGrad, _accumulate, _array_formulas, _check_nan, heappush, heappop)"},
    {"run", run, METH_VARARGS,
     "run(order, ready, buffers, adds, deps, marked, special, ctx, accumulate, retain_graph, "
     "at): autograd._plain's loop, for a backward without create_graph or a trace"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_backward", "The backward's loop in C (autograd.py's _plain).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__backward(void) {
    PyObject **names[] = {&s_hooks, &s_retained, &s_variable, &s_mask, &s_backend, &s_apply,
                          &s_free, &s_anomaly, &s_anomaly_nan, &s_edges, &s_seq};
    const char *texts[] = {"hooks", "retained", "variable", "mask", "backend", "apply", "free",
                           "anomaly", "anomaly_nan", "edges", "seq"};
    for (int i = 0; i < 11; i++) {
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) return NULL;
    }
    if ((one = PyLong_FromLong(1)) == NULL) return NULL;
    return PyModule_Create(&module);
}
