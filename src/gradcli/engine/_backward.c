/* The backward's loop compiled: autograd.py's _plain (for a backward without create_graph or
 * a trace), step for step, in C.
 *
 * The walks that plan a backward are here too (counts, reach, plan: _run's and _plan's loops
 * over every reachable node, which a scalar script makes one per statement).  The formulas
 * themselves, the sums into .grad (_accumulate) and every node with hooks, a retained grad, a
 * capture or a mask of its own (_run's special) stay the Python that autograd.py, ops.py and
 * graph.py define; this file runs the loop between them without the interpreter's
 * cost per node and per edge: the next node picked, its gradient taken from the buffers, its
 * gradients summed into the buffers of the nodes its edges lead to, an AccumulateGrad pushed on
 * the ready heap when its last gradient arrives.  For a node of graph.Node's class exactly
 * (its apply and free Node's own, not wrapped since) it also does what Node.apply does on arrays (each needed formula called with the arguments its
 * plan names, the result summed down to the input's shape by graph.sum_to and cast to its
 * dtype) and what Node.free does in a run that keeps nothing freed (node_apply, node_free);
 * a subclass's own apply and free are called.  autograd.py and graph.py say what each step
 * means; tests/test_compiled_engine.py holds this file to them, and GRADCLI_PURE=1 runs _plain.
 *
 * setup(AccumulateGrad, _accumulate, _array_formulas, _check_nan, heappush, heappop,
 * (Node, its slot descriptors, GRAD_ONLY, sum_to, Tensor)): once, when autograd.py is
 * imported.  run(order, ready, buffers, adds, deps, marked, special, ctx, accumulate,
 * retain_graph, at): one backward, as _plain(..., slow=False).  counts(roots), reach(roots),
 * plan(nodes, needed, roots): autograd._counts, _reach and _plan's pass.
 */
#include "../_capi.h"  /* Python.h, and the slot and name helpers the extensions share */

static PyObject *accumulate_grad, *accumulate_fn, *formulas_fn, *check_nan_fn, *heappush, *heappop;
static PyObject *s_hooks, *s_retained, *s_variable, *s_mask, *s_backend, *s_apply, *s_free;
static PyObject *s_anomaly, *s_anomaly_nan, *s_edges, *s_seq, *one;
static PyObject *s_plans, *s_shape, *s_dtype, *s_data, *s_astype, *s_unpack, *s_keep_freed,
    *s_free_tag;
/* graph.Node (the class exactly: a subclass may have its own apply and free), the offsets of
 * the slots its apply and free read, ops.GRAD_ONLY, graph.sum_to and Tensor */
enum { N_OP, N_SAVED, N_SHAPES, N_FREED, N_FREED_BY, N_DTYPES, N_PARAMS, N_BACKEND, N_EDGES,
       N_HOOKS, N_MASK, N_RETAINED, N_SEQ, N_FIELDS };
static PyTypeObject *node_cls;
static Py_ssize_t n_off[N_FIELDS];
static PyObject *grad_only, *sum_to_fn, *tensor_cls, *node_apply_fn, *node_free_fn;
#define SLOT(o, f) SLOT_AT(o, n_off[f])

/* n.<name>, a new reference: slot f read directly for a Node or an AccumulateGrad (the classes
 * exactly: a subclass may define the name otherwise), else the attribute */
static PyObject *field(PyObject *n, int f, PyObject *name) {
    PyTypeObject *type = Py_TYPE(n);
    if (type == node_cls || (PyObject *)type == accumulate_grad) {
        PyObject *v = SLOT(n, f);
        if (v != NULL) return Py_NewRef(v);
    }
    return PyObject_GetAttr(n, name);
}

/* 1 when n.<name> (slot f, as field() reads it) is not None, 0 when it is, -1 with an
 * exception set */
static int field_set(PyObject *n, int f, PyObject *name) {
    PyObject *v = field(n, f, name);
    if (v == NULL) return -1;
    int r = v != Py_None;
    Py_DECREF(v);
    return r;
}

static PyObject *setup(PyObject *self, PyObject *args) {
    PyObject *fns[6], *node, *slots;
    if (!PyArg_ParseTuple(args, "O!OOOOO(O!O!OOO!)", &PyType_Type, &fns[0], &fns[1], &fns[2],
                          &fns[3], &fns[4], &fns[5], &PyType_Type, &node, &PyTuple_Type, &slots,
                          &grad_only, &sum_to_fn, &PyType_Type, &tensor_cls)) return NULL;
    if (slot_offsets(node, slots, n_off, N_FIELDS, "setup(): Node") < 0) return NULL;
    node_apply_fn = PyDict_GetItemWithError(((PyTypeObject *)node)->tp_dict, s_apply);
    node_free_fn = PyDict_GetItemWithError(((PyTypeObject *)node)->tp_dict, s_free);
    if (node_apply_fn == NULL || node_free_fn == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "setup(): Node.apply, Node.free");
        return NULL;
    }
    Py_INCREF(node_apply_fn); Py_INCREF(node_free_fn);
    Py_INCREF(grad_only); Py_INCREF(sum_to_fn); Py_INCREF(tensor_cls); Py_INCREF(node);
    node_cls = (PyTypeObject *)node;
    PyObject **targets[6] = {&accumulate_grad, &accumulate_fn, &formulas_fn, &check_nan_fn,
                             &heappush, &heappop};
    for (int i = 0; i < 6; i++) {
        Py_INCREF(fns[i]);
        Py_XSETREF(*targets[i], fns[i]);
    }
    Py_RETURN_NONE;
}

/* n's slot f, a new reference; unset raises as reading it in Python does */
static PyObject *nget(PyObject *n, int f, const char *name) {
    PyObject *v = SLOT(n, f);
    if (v == NULL) return PyObject_GetAttrString(n, name);
    Py_INCREF(v);
    return v;
}

/* The saved value of name for Node n's formula (Node.apply's kind 2, arrays): its array as
 * saved, or Node.unpack's checked path when n is freed or the value was modified in place */
static PyObject *saved_value(PyObject *n, PyObject *name) {
    PyObject *saved = nget(n, N_SAVED, "saved"), *freed = nget(n, N_FREED, "freed"), *v = NULL;
    int checked = -1;
    if (saved == NULL || freed == NULL) goto done;
    if ((checked = PyObject_IsTrue(freed)) != 0) goto done;
    PyObject *s = PyObject_GetItem(saved, name);
    if (s == NULL) goto done;
    if (PyTuple_CheckExact(s) && PyTuple_GET_SIZE(s) >= 4) {
        PyObject *vc = PyTuple_GET_ITEM(s, 2);
        if (vc == Py_None) {
            checked = 0;
        } else {
            PyObject *now = PySequence_GetItem(vc, 0);
            checked = now ? PyObject_RichCompareBool(now, PyTuple_GET_ITEM(s, 3), Py_NE) : -1;
            Py_XDECREF(now);
        }
        if (checked == 0) v = Py_NewRef(PyTuple_GET_ITEM(s, 0));
    } else {
        checked = 1;
    }
    Py_DECREF(s);
done:
    Py_XDECREF(saved); Py_XDECREF(freed);
    if (checked > 0) v = PyObject_CallMethodObjArgs(n, s_unpack, name, Py_False, NULL);
    return v;
}

/* Whether n is a graph.Node (the class exactly) whose method name is still Node's own fn (a
 * test may wrap it on the class: then the method is called) */
static int own(PyObject *n, PyObject *name, PyObject *fn) {
    return Py_TYPE(n) == node_cls && _PyType_Lookup(node_cls, name) == fn;
}

/* Node.apply(grad, needed, xp, False) for a node of the class exactly: each needed input's
 * gradient by its formula (the plan's arguments gathered), summed down to the input's shape
 * and cast to its dtype; a list with None elsewhere */
static PyObject *node_apply(PyObject *n, PyObject *grad, PyObject *needed, PyObject *xp) {
    PyObject *op = nget(n, N_OP, "op"), *plans = NULL, *shapes = NULL, *out = NULL;
    PyObject *need = PySequence_Fast(needed, "a node's mask");
    if (op == NULL || need == NULL) goto fail;
    if ((plans = PyObject_GetAttr(op, s_plans)) == NULL ||
        (shapes = nget(n, N_SHAPES, "shapes")) == NULL) goto fail;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(need);
    if ((out = PyList_New(count)) == NULL) goto fail;
    for (Py_ssize_t i = 0; i < count; i++) PyList_SET_ITEM(out, i, Py_NewRef(Py_None));
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *use = PySequence_Fast_GET_ITEM(need, i);
        int on = use == Py_True ? 1 : use == Py_False ? 0 : PyObject_IsTrue(use);
        if (on < 0) goto fail;
        if (!on) continue;
        PyObject *entry = PySequence_GetItem(plans, i), *g = NULL;
        if (entry == NULL) goto fail;
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
            Py_DECREF(entry);
            PyErr_SetString(PyExc_TypeError, "an op's plans: (formula, plan) pairs");
            goto fail;
        }
        PyObject *formula = PyTuple_GET_ITEM(entry, 0), *plan = PyTuple_GET_ITEM(entry, 1);
        if (plan == grad_only) {
            g = PyObject_CallOneArg(formula, grad);
        } else {
            PyObject *steps = PySequence_Fast(plan, "a formula's plan"), *argv[16];
            Py_ssize_t m = steps ? PySequence_Fast_GET_SIZE(steps) : 0, j = 0;
            if (steps != NULL && m > 16) {
                PyErr_SetString(PyExc_ValueError, "a formula of more than 16 arguments");
            } else if (steps != NULL) {
                for (; j < m; j++) {
                    PyObject *step = PySequence_Fast_GET_ITEM(steps, j);
                    if (!PyTuple_Check(step) || PyTuple_GET_SIZE(step) != 2) {
                        PyErr_SetString(PyExc_TypeError, "a formula's plan: (kind, name) pairs");
                        break;
                    }
                    long kind = PyLong_AsLong(PyTuple_GET_ITEM(step, 0));
                    PyObject *nm = PyTuple_GET_ITEM(step, 1), *params;
                    if (kind == -1 && PyErr_Occurred()) break;
                    if (kind == 0) argv[j] = Py_NewRef(grad);
                    else if (kind == 2) argv[j] = saved_value(n, nm);
                    else if (kind == 1) argv[j] = Py_NewRef(xp);
                    else if (kind == 3) argv[j] = PySequence_GetItem(shapes, 0);
                    else if (kind == 4) {  /* a param, else its default (Op.defaults) */
                        params = nget(n, N_PARAMS, "params");
                        argv[j] = params ? PyDict_GetItemWithError(params, nm) : NULL;
                        Py_XINCREF(argv[j]);
                        Py_XDECREF(params);
                        if (argv[j] == NULL && !PyErr_Occurred()) {
                            PyObject *defaults = PyObject_GetAttrString(op, "defaults");
                            argv[j] = defaults ? PyObject_GetItem(defaults, nm) : NULL;
                            Py_XDECREF(defaults);
                        }
                    } else argv[j] = PyLong_FromSsize_t(i);
                    if (argv[j] == NULL) break;
                }
                if (j == m) g = PyObject_Vectorcall(formula, argv, m, NULL);
                for (Py_ssize_t q = 0; q < j; q++) Py_DECREF(argv[q]);
            }
            Py_XDECREF(steps);
        }
        Py_DECREF(entry);
        if (g == NULL) goto fail;
        PyObject *want = PySequence_GetItem(shapes, i), *have = PyObject_GetAttr(g, s_shape);
        int differ = want && have ? PyObject_RichCompareBool(have, want, Py_NE) : -1;
        Py_XDECREF(have);
        if (differ > 0) {
            Py_SETREF(g, PyObject_CallFunctionObjArgs(sum_to_fn, xp, g, want, Py_True, NULL));
        }
        Py_XDECREF(want);
        if (differ < 0 || g == NULL) {
            Py_XDECREF(g);
            goto fail;
        }
        PyObject *dtypes = nget(n, N_DTYPES, "dtypes");
        if (dtypes == NULL) {
            Py_DECREF(g);
            goto fail;
        }
        if (dtypes != Py_None) {  /* the gradient takes its input's dtype */
            PyObject *dt = PySequence_GetItem(dtypes, i), *arr, *have_dt = NULL;
            arr = (PyObject *)Py_TYPE(g) == tensor_cls ? PyObject_GetAttr(g, s_data)
                                                        : Py_NewRef(g);
            if (dt && arr) have_dt = PyObject_GetAttr(arr, s_dtype);
            if (have_dt != NULL && have_dt != dt)
                Py_SETREF(g, PyObject_CallMethodObjArgs(xp, s_astype, g, dt, NULL));
            int failed = have_dt == NULL;
            Py_XDECREF(dt); Py_XDECREF(arr); Py_XDECREF(have_dt);
            if (failed || g == NULL) {
                Py_XDECREF(g);
                Py_DECREF(dtypes);
                goto fail;
            }
        }
        Py_DECREF(dtypes);
        PyList_SetItem(out, i, g);  /* steals g, releases the None */
    }
    Py_DECREF(op); Py_DECREF(need); Py_DECREF(plans); Py_DECREF(shapes);
    return out;
fail:
    Py_XDECREF(op); Py_XDECREF(need); Py_XDECREF(plans); Py_XDECREF(shapes); Py_XDECREF(out);
    return NULL;
}

/* Node.free() for a node of the class exactly, in a run that keeps no freed values: every
 * saved value dropped for its shape; 0, or -1 with an exception set */
static int node_free(PyObject *n, PyObject *ctx) {
    PyObject *saved = nget(n, N_SAVED, "saved"), *freed = nget(n, N_FREED, "freed");
    PyObject *shapes = NULL, *tag = NULL;
    int status = -1, go = saved && freed ? PyObject_IsTrue(saved) : -1;
    if (go > 0) go = PyObject_IsTrue(freed) == 0 ? 1 : PyErr_Occurred() ? -1 : 0;
    if (go <= 0) {
        status = go;
        goto done;
    }
    int keep = attr_true(ctx, s_keep_freed);
    if (keep != 0) {  /* the listings keep what was freed: Node.free's own path */
        if (keep > 0) {
            PyObject *r = PyObject_CallMethodNoArgs(n, s_free);
            status = r ? 0 : -1;
            Py_XDECREF(r);
        }
        goto done;
    }
    if ((tag = PyObject_GetAttr(ctx, s_free_tag)) == NULL || (shapes = PyDict_New()) == NULL)
        goto done;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    if (!PyDict_Check(saved)) {
        PyErr_SetString(PyExc_TypeError, "a node's saved: a dict");
        goto done;
    }
    while (PyDict_Next(saved, &pos, &key, &value)) {
        PyObject *v = PyTuple_Check(value) && PyTuple_GET_SIZE(value) ? PyTuple_GET_ITEM(value, 0)
                                                                       : NULL, *shape;
        if (v == NULL) {
            PyErr_SetString(PyExc_TypeError, "a node's saved: tuples");
            goto done;
        }
        if (v == Py_None) {
            shape = Py_NewRef(Py_None);
        } else if ((shape = PyObject_GetAttr(v, s_shape)) == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) goto done;
            PyErr_Clear();
            shape = PyTuple_New(0);
        }
        if (shape == NULL) goto done;
        int failed = PyDict_SetItem(shapes, key, shape);
        Py_DECREF(shape);
        if (failed) goto done;
    }
    Py_XSETREF(SLOT(n, N_FREED), Py_NewRef(Py_True));
    Py_XSETREF(SLOT(n, N_FREED_BY), tag);
    tag = NULL;
    Py_XSETREF(SLOT(n, N_SAVED), shapes);
    shapes = NULL;
    status = 0;
done:
    Py_XDECREF(saved); Py_XDECREF(freed); Py_XDECREF(shapes); Py_XDECREF(tag);
    return status;
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
    PyObject *edges = field(n, N_EDGES, s_edges), *e = NULL, *gs = NULL, *ms = NULL;
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
                PyObject *seq = field(m, N_SEQ, s_seq);
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
        if (!odd && (odd = field_set(n, N_HOOKS, s_hooks)) < 0) goto fail;
        if (!odd && (odd = field_set(n, N_RETAINED, s_retained)) < 0) goto fail;
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
            PyObject *backend = field(n, N_BACKEND, s_backend);
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
            if ((mask = field(n, N_MASK, s_mask)) == NULL) goto fail;
            grads_in = own(n, s_apply, node_apply_fn) ? node_apply(n, g, mask, fx)
                : PyObject_CallMethodObjArgs(n, s_apply, g, mask, fx, Py_False, NULL);
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
            if (own(n, s_free, node_free_fn)) {
                if (node_free(n, ctx) < 0) goto fail;
            } else {
                Py_XSETREF(r, PyObject_CallMethodNoArgs(n, s_free));
                if (r == NULL) goto fail;
            }
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

/* The walks that plan a backward (autograd.py's _run and _plan), for graphs of many nodes (a
 * scalar script's backward walks one node per statement).  Each is the Python loop it stands
 * for, step for step, so the dicts keep the Python's order. */

/* the tuple of n.edges (a new reference), or NULL with an exception set */
static PyObject *edges_of(PyObject *n) {
    PyObject *edges = field(n, N_EDGES, s_edges);
    if (edges != NULL && !PyTuple_Check(edges)) {
        Py_SETREF(edges, PySequence_Tuple(edges));
    }
    return edges;
}

/* The depth-first walk from roots (each once, in order, first) along the nodes' edges: with
 * counting, {node: how many edges of reachable nodes point into it} (the roots at 0); else
 * {node: None}, in the order the walk meets them. */
static PyObject *walk(PyObject *roots, int counting) {
    if (!PyList_Check(roots)) {
        PyErr_SetString(PyExc_TypeError, "roots: a list");
        return NULL;
    }
    PyObject *seen = PyDict_New(), *stack = PyList_New(0), *zero = PyLong_FromLong(0);
    if (seen == NULL || stack == NULL || zero == NULL) goto fail;
    PyObject *first = counting ? zero : Py_None;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(roots); i++) {
        PyObject *r = PyList_GET_ITEM(roots, i);
        int has = PyDict_Contains(seen, r);
        if (has < 0) goto fail;
        if (!has && (PyDict_SetItem(seen, r, first) < 0 || PyList_Append(stack, r) < 0))
            goto fail;
    }
    while (PyList_GET_SIZE(stack)) {
        Py_ssize_t last = PyList_GET_SIZE(stack) - 1;
        PyObject *n = Py_NewRef(PyList_GET_ITEM(stack, last));
        if (PyList_SetSlice(stack, last, last + 1, NULL) < 0) { Py_DECREF(n); goto fail; }
        PyObject *edges = edges_of(n);
        Py_DECREF(n);
        if (edges == NULL) goto fail;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(edges); j++) {
            PyObject *m = PyTuple_GET_ITEM(edges, j);
            if (m == Py_None) continue;
            PyObject *c = PyDict_GetItemWithError(seen, m);
            if (c == NULL && PyErr_Occurred()) { Py_DECREF(edges); goto fail; }
            if (c != NULL && !counting) continue;
            PyObject *next = c != NULL ? PyNumber_Add(c, one) : Py_NewRef(counting ? one : Py_None);
            int bad = next == NULL || PyDict_SetItem(seen, m, next) < 0 ||
                      (c == NULL && PyList_Append(stack, m) < 0);
            Py_XDECREF(next);
            if (bad) { Py_DECREF(edges); goto fail; }
        }
        Py_DECREF(edges);
    }
    Py_DECREF(stack); Py_DECREF(zero);
    return seen;
fail:
    Py_XDECREF(seen); Py_XDECREF(stack); Py_XDECREF(zero);
    return NULL;
}

/* counts(roots): _run's walk without targets, {node: edges into it} */
static PyObject *counts(PyObject *self, PyObject *roots) { return walk(roots, 1); }

/* reach(roots): _run's walk to targets, {node: None} of every node reachable from roots */
static PyObject *reach(PyObject *self, PyObject *roots) { return walk(roots, 0); }

typedef struct { long long seq; Py_ssize_t at; PyObject *n; } Ranked;

static int by_seq(const void *a, const void *b) {  /* sorted(..., key=seq): stable */
    const Ranked *x = a, *y = b;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* plan(nodes, needed, roots): autograd._plan's pass over nodes (an iterable, taken in
 * increasing seq as sorted() orders them), with needed the set of targets (it grows to the
 * nodes that lead to one): (deps, masks, run) */
static PyObject *plan(PyObject *self, PyObject *args) {
    PyObject *given, *needed, *roots;
    if (!PyArg_ParseTuple(args, "OO!O!", &given, &PySet_Type, &needed, &PySet_Type, &roots))
        return NULL;
    if (accumulate_grad == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_backward.setup() first");
        return NULL;
    }
    PyObject *nodes = PySequence_Fast(given, "plan(): nodes");  /* holds the nodes */
    if (nodes == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(nodes);
    Ranked *ranked = PyMem_Malloc((size_t)(count ? count : 1) * sizeof(Ranked));
    if (ranked == NULL) {
        Py_DECREF(nodes);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *n = PySequence_Fast_GET_ITEM(nodes, i), *seq = field(n, N_SEQ, s_seq);
        long long v = seq == NULL ? -1 : PyLong_AsLongLong(seq);
        Py_XDECREF(seq);
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(ranked);
            Py_DECREF(nodes);
            return NULL;
        }
        ranked[i] = (Ranked){v, i, n};
    }
    qsort(ranked, (size_t)count, sizeof(Ranked), by_seq);
    PyObject *deps = PyDict_New(), *masks = PyDict_New(), *run = PyList_New(0);
    PyObject *edges = NULL, *mask = NULL, *own = NULL;
    if (deps == NULL || masks == NULL || run == NULL) goto fail;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *n = ranked[i].n;
        int accumulates = (PyObject *)Py_TYPE(n) == accumulate_grad;
        int found = PySet_Contains(needed, n);
        if (found < 0 || (edges = edges_of(n)) == NULL) goto fail;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(edges); j++) {
            PyObject *m = PyTuple_GET_ITEM(edges, j);
            if (m == Py_None) continue;  /* n.mask[j] is True */
            int in = PySet_Contains(needed, m);
            if (in < 0) goto fail;
            if (in) {  /* then n leads to a target too: count the edge */
                found = 1;
                if ((PyObject *)Py_TYPE(m) == accumulate_grad) {
                    PyObject *c = PyDict_GetItemWithError(deps, m);
                    if (c == NULL && PyErr_Occurred()) goto fail;
                    PyObject *next = c == NULL ? Py_NewRef(one) : PyNumber_Add(c, one);
                    if (next == NULL) goto fail;
                    int bad = PyDict_SetItem(deps, m, next);
                    Py_DECREF(next);
                    if (bad < 0) goto fail;
                }
            } else {
                if (mask == NULL) {
                    PyObject *m0 = field(n, N_MASK, s_mask);
                    if (m0 == NULL) goto fail;
                    mask = PySequence_List(m0);
                    Py_DECREF(m0);
                    if (mask == NULL) goto fail;
                }
                if (PyList_SetItem(mask, j, Py_NewRef(Py_False)) < 0) goto fail;
            }
        }
        Py_CLEAR(edges);
        if (found) {
            if (PySet_Add(needed, n) < 0) goto fail;
            if (!accumulates && PyList_Append(run, n) < 0) goto fail;
            int sends;
            if (mask == NULL) {
                if ((own = field(n, N_MASK, s_mask)) == NULL) goto fail;
                sends = PySequence_Contains(own, Py_True);
                Py_CLEAR(own);
                if (sends < 0) goto fail;
                if (sends) continue;
            } else {
                if ((sends = PySequence_Contains(mask, Py_True)) < 0) goto fail;
                if (sends) {
                    int bad = PyDict_SetItem(masks, n, mask);
                    Py_CLEAR(mask);
                    if (bad < 0) goto fail;
                    continue;
                }
            }
        } else {
            int root = PySet_Contains(roots, n);
            if (root < 0) goto fail;
            if (root && !accumulates && PyList_Append(run, n) < 0) goto fail;
        }
        Py_CLEAR(mask);
        if (PyDict_SetItem(masks, n, Py_None) < 0) goto fail;
    }
    if (PyList_Reverse(run) < 0) goto fail;
    PyMem_Free(ranked);
    Py_DECREF(nodes);
    return Py_BuildValue("(NNN)", deps, masks, run);
fail:
    PyMem_Free(ranked);
    Py_DECREF(nodes);
    Py_XDECREF(deps); Py_XDECREF(masks); Py_XDECREF(run);
    Py_XDECREF(edges); Py_XDECREF(mask); Py_XDECREF(own);
    return NULL;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(AccumulateGrad, _accumulate, _array_formulas, _check_nan, heappush, heappop, "
     "(Node, its slot descriptors, GRAD_ONLY, sum_to, Tensor))"},
    {"run", run, METH_VARARGS,
     "run(order, ready, buffers, adds, deps, marked, special, ctx, accumulate, retain_graph, "
     "at): autograd._plain's loop, for a backward without create_graph or a trace"},
    {"counts", counts, METH_O, "counts(roots): _run's walk without targets, its deps"},
    {"reach", reach, METH_O, "reach(roots): _run's walk to targets, the nodes it meets"},
    {"plan", plan, METH_VARARGS,
     "plan(nodes, needed, roots): _plan's pass over the nodes by seq, (deps, masks, run)"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_backward", "The backward's loop in C (autograd.py's _plain).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__backward(void) {
    PyObject **names[] = {&s_hooks, &s_retained, &s_variable, &s_mask, &s_backend, &s_apply,
                          &s_free, &s_anomaly, &s_anomaly_nan, &s_edges, &s_seq, &s_plans,
                          &s_shape, &s_dtype, &s_data, &s_astype, &s_unpack, &s_keep_freed,
                          &s_free_tag};
    const char *texts[] = {"hooks", "retained", "variable", "mask", "backend", "apply", "free",
                           "anomaly", "anomaly_nan", "edges", "seq", "plans", "shape", "dtype",
                           "data", "astype", "unpack", "keep_freed", "free_tag"};
    if (intern_all(names, texts, 19) < 0) return NULL;
    if ((one = PyLong_FromLong(1)) == NULL) return NULL;
    return PyModule_Create(&module);
}
