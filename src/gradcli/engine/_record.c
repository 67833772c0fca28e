/* Recording's common calls compiled: record.py's apply for a binary op on two floating tensors
 * of one dtype, a floating tensor and a Python number, or a unary op on a floating tensor,
 * without params or a recorder (every op of a scalar script, most of a training step's).
 *
 * Step for step what record.py's apply, _apply_binary, _apply_scalar and _apply_unary do: the
 * op's forward (the Python the op table defines) on the arrays, the output Tensor, and when
 * grad is needed its Node with the saved tensors (_saved_dict), the edges (graph.edge) and the
 * shared shapes (_shared).  The Tensor and the Node are made as their constructors make them:
 * object.__new__ and every slot __init__ sets, written at the offsets their slot descriptors
 * give.  Any other call (params, a recorder, other dtypes, a number past 2**53, an input
 * without a formula, anomaly mode's traces) goes to record.py's apply, which says what each
 * step means; the engine's tests run both, and GRADCLI_PURE=1 runs record.py alone.
 *
 * apply_inplace's plain path too: an update that records nothing (no grad needed, no recorder,
 * history, tracer, vmap or saved-tensor mutation, no view or base), of a floating Tensor's own
 * NumPy array by no argument, a tensor of its dtype and shape, or a Python number, as
 * _plain_inplace computes it; then the version bumped and the statement remembered (_bumped).
 * Anything else, errors included, goes to record.py's apply_inplace.
 *
 * setup(spec): once, when record.py is imported (spec: record._compiled_spec()).
 * apply(op, args, params=_EMPTY, record=True): record.apply.
 * apply_inplace(op, target, args, params=_EMPTY): record.apply_inplace.
 */
#include "../_capi.h"  /* Python.h, and the slot and name helpers the extensions share */

enum { T_DATA, T_BACKEND, T_REQUIRES_GRAD, T_GRAD_FN, T_GRAD, T_VC, T_RETAINS_GRAD, T_STRIDES,
       T_BASE, T_CREATION, T_VIEW_FN, T_ACCUMULATOR, T_VIEWS, T_FIELDS };
enum { N_OP, N_EDGES, N_SAVED, N_PARAMS, N_SHAPES, N_BACKEND, N_RETAINED, N_DTYPES, N_HOOKS,
       N_FREED, N_FREED_BY, N_UNFREED, N_SEQ, N_PRIO, N_MASK, N_FIELDS };

static PyTypeObject *tensor_cls, *node_cls;
static Py_ssize_t t_off[T_FIELDS], n_off[N_FIELDS];
/* record.py's apply (every call the fast paths do not take), graph.edge (a leaf's first
 * AccumulateGrad), _EMPTY, _SHAPES, context._CURRENT and context.current */
static PyObject *py_apply, *py_edge, *empty, *shapes_cache, *context_var, *py_current;
/* record.py's apply_inplace, numpy.ndarray and backend.WRITES_INTO (op name -> NumPy's ufunc
 * that writes into its out=) */
static PyObject *py_apply_inplace, *ndarray_cls, *writes_into;
static PyObject *key_tt, *key_tf, *key_ft, *key_one, *scalar_first, *scalar_second;
static Py_ssize_t shapes_limit;
static PyObject *s_data, *s_backend, *s_requires_grad, *s_grad_fn, *s_accumulator, *s_dtype,
    *s_float_natives, *s_xp, *s_forward, *s_differentiable, *s_plans, *s_saves, *s_saved_names,
    *s_vc, *s_shape, *s_recorder, *s_grad_enabled, *s_seq, *s_anomaly, *s_astype, *s_zero,
    *s_base, *s_views, *s_flags, *s_writeable, *s_history, *s_tracer, *s_vmap,
    *s_allow_mutation, *s_inplace_at, *s_free_tag, *s_name, *s_one;

static int item(PyObject *spec, const char *key, PyObject **slot) {
    PyObject *v = PyDict_GetItemString(spec, key);
    if (v == NULL) {
        PyErr_Format(PyExc_KeyError, "%s", key);
        return -1;
    }
    Py_INCREF(v);
    Py_XSETREF(*slot, v);
    return 0;
}

static PyObject *setup(PyObject *self, PyObject *spec) {
    if (!PyDict_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "setup(spec): a dict");
        return NULL;
    }
    if (class_slots(spec, "tensor_class", &tensor_cls, t_off, T_FIELDS) < 0 ||
        class_slots(spec, "node_class", &node_cls, n_off, N_FIELDS) < 0) return NULL;
    const char *keys[] = {"apply", "edge", "empty", "shapes", "context", "current", "tt", "tf",
                          "ft", "t", "scalar_first", "scalar_second", "apply_inplace", "ndarray",
                          "writes_into"};
    PyObject **slots[] = {&py_apply, &py_edge, &empty, &shapes_cache, &context_var, &py_current,
                          &key_tt, &key_tf, &key_ft, &key_one, &scalar_first, &scalar_second,
                          &py_apply_inplace, &ndarray_cls, &writes_into};
    for (int i = 0; i < 15; i++) {
        if (item(spec, keys[i], slots[i]) < 0) return NULL;
    }
    PyObject *limit = PyDict_GetItemString(spec, "shapes_limit");
    if (limit == NULL || (shapes_limit = PyLong_AsSsize_t(limit)) == -1) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "shapes_limit");
        return NULL;
    }
    if (!PyDict_CheckExact(shapes_cache) || !PyDict_CheckExact(empty) ||
        !PyDict_CheckExact(writes_into) || !PyType_Check(ndarray_cls)) {
        PyErr_SetString(PyExc_TypeError,
                        "setup(spec): shapes, empty and writes_into are dicts, ndarray a type");
        return NULL;
    }
    Py_RETURN_NONE;
}


/* t.name for a Tensor t (its class exactly): its slot read at once, a new reference; an unset
 * slot raises as reading it in Python does */
static PyObject *tget(PyObject *t, int field, PyObject *name) {
    PyObject *v = SLOT_AT(t, t_off[field]);
    if (v == NULL) return PyObject_GetAttr(t, name);
    Py_INCREF(v);
    return v;
}

/* A new object of cls with the slots at offsets set to items (references taken) */
static PyObject *make(PyTypeObject *cls, const Py_ssize_t *offsets, PyObject **items, int n) {
    PyObject *o = cls->tp_alloc(cls, 0);
    if (o == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        Py_INCREF(items[i]);
        SLOT_AT(o, offsets[i]) = items[i];
    }
    return o;
}

/* Tensor(data, backend): requires_grad False, no grad_fn, version counter [0] */
static PyObject *new_tensor(PyObject *data, PyObject *backend) {
    PyObject *vc = PyList_New(1);
    if (vc == NULL) return NULL;
    Py_INCREF(s_zero);
    PyList_SET_ITEM(vc, 0, s_zero);
    PyObject *items[T_FIELDS] = {data, backend, Py_False, Py_None, Py_None, vc, Py_False,
                                 Py_None, Py_None, Py_None, Py_None, Py_None, Py_None};
    PyObject *t = make(tensor_cls, t_off, items, T_FIELDS);
    Py_DECREF(vc);
    return t;
}

/* Node(op, edges, saved, _EMPTY, shapes, backend, mask, ctx), as graph.Node.__init__ */
static PyObject *new_node(PyObject *ctx, PyObject *op, PyObject *edges, PyObject *saved,
                          PyObject *shapes, PyObject *backend, PyObject *mask) {
    PyObject *counter = PyObject_GetAttr(ctx, s_seq);
    if (counter == NULL) return NULL;
    PyObject *seq = PyIter_Next(counter);
    Py_DECREF(counter);
    if (seq == NULL) {
        if (!PyErr_Occurred()) PyErr_SetNone(PyExc_StopIteration);
        return NULL;
    }
    PyObject *prio = PyNumber_Negative(seq), *node = NULL;
    if (prio == NULL) goto done;
    PyObject *items[N_FIELDS] = {op, edges, saved, empty, shapes, backend, Py_None, Py_None,
                                 Py_None, Py_False, Py_None, Py_None, seq, prio, mask};
    node = make(node_cls, n_off, items, N_FIELDS);
done:
    Py_DECREF(seq);
    Py_XDECREF(prio);
    return node;
}

/* graph.edge(t): t's grad_fn, else its live AccumulateGrad, else graph.edge makes one */
static PyObject *edge(PyObject *t) {
    PyObject *fn = tget(t, T_GRAD_FN, s_grad_fn);
    if (fn == NULL || fn != Py_None) return fn;
    Py_DECREF(fn);
    PyObject *acc = tget(t, T_ACCUMULATOR, s_accumulator);
    if (acc == NULL) return NULL;
    if (PyWeakref_CheckRefExact(acc)) {
        PyObject *target = PyWeakref_GetObject(acc);  /* borrowed */
        if (target != NULL && target != Py_None) {
            Py_INCREF(target);
            Py_DECREF(acc);
            return target;
        }
    } else if (acc != Py_None) {
        return acc;
    }
    Py_DECREF(acc);
    return PyObject_CallOneArg(py_edge, t);
}

/* record._shared(shapes): one tuple object for equal shapes (a new reference) */
static PyObject *shared(PyObject *shapes) {
    PyObject *got = PyDict_GetItemWithError(shapes_cache, shapes);
    if (got != NULL) {
        Py_INCREF(got);
        Py_DECREF(shapes);
        return got;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(shapes);
        return NULL;
    }
    if (PyDict_GET_SIZE(shapes_cache) < shapes_limit &&
        PyDict_SetItem(shapes_cache, shapes, shapes) < 0) {
        Py_DECREF(shapes);
        return NULL;
    }
    return shapes;
}

/* record._saved_dict(saves, args, out, data) */
static PyObject *saved_dict(PyObject *saves, PyObject *args, PyObject *out, PyObject *data) {
    PyObject *saved = PyDict_New();
    if (saved == NULL) return NULL;
    PyObject *seq = PySequence_Fast(saves, "an op's saves");
    if (seq == NULL) goto fail;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, i), *name, *entry;
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "an op's saves: (name, index) pairs");
            goto fail_seq;
        }
        name = PyTuple_GET_ITEM(pair, 0);
        Py_ssize_t idx = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 1));
        if (idx == -1 && PyErr_Occurred()) goto fail_seq;
        if (idx < 0) {
            entry = PyTuple_Pack(6, data, Py_None, SLOT_AT(out, t_off[T_VC]), s_zero, Py_None,
                                 Py_True);
        } else {
            PyObject *a = PyTuple_GET_ITEM(args, idx);  /* idx < len(args): the op's own */
            if (Py_TYPE(a) == tensor_cls) {
                PyObject *vc = tget(a, T_VC, s_vc), *adata, *fn, *v0;
                if (vc == NULL) goto fail_seq;
                v0 = PySequence_GetItem(vc, 0);
                adata = tget(a, T_DATA, s_data);
                fn = tget(a, T_GRAD_FN, s_grad_fn);
                entry = v0 && adata && fn ? PyTuple_Pack(6, adata, a, vc, v0, fn, Py_False) : NULL;
                Py_DECREF(vc); Py_XDECREF(v0); Py_XDECREF(adata); Py_XDECREF(fn);
            } else {
                entry = PyTuple_Pack(6, a, Py_None, Py_None, s_zero, Py_None, Py_False);
            }
        }
        if (entry == NULL) goto fail_seq;
        int failed = PyDict_SetItem(saved, name, entry);
        Py_DECREF(entry);
        if (failed) goto fail_seq;
    }
    Py_DECREF(seq);
    return saved;
fail_seq:
    Py_DECREF(seq);
fail:
    Py_DECREF(saved);
    return NULL;
}

/* op.saves.get(key), else op.saved_names(key) */
static PyObject *saves_of(PyObject *op, PyObject *key) {
    PyObject *table = PyObject_GetAttr(op, s_saves), *got;
    if (table == NULL) return NULL;
    got = PyDict_Check(table) ? PyDict_GetItemWithError(table, key) : NULL;
    Py_XINCREF(got);
    Py_DECREF(table);
    if (got != NULL || PyErr_Occurred()) return got;
    return PyObject_CallMethodOneArg(op, s_saved_names, key);
}

/* The output's grad_fn and requires_grad set, as the fast paths of record.py set them, with
 * the node's saved tensors of args (saves by key). 0, or -1 with an exception set. */
static int attach(PyObject *ctx, PyObject *op, PyObject *key, PyObject *args, PyObject *out,
                  PyObject *data, PyObject *edges, PyObject *shapes, PyObject *backend) {
    PyObject *saves = saves_of(op, key), *saved = NULL, *node = NULL;
    int status = -1;
    if (saves == NULL) return -1;
    int any = PyObject_IsTrue(saves);
    if (any < 0) goto done;
    if (any) {
        saved = saved_dict(saves, args, out, data);
    } else {
        saved = empty;
        Py_INCREF(saved);
    }
    if (saved == NULL) goto done;
    node = new_node(ctx, op, edges, saved, shapes, backend, key);
    if (node == NULL) goto done;
    Py_SETREF(SLOT_AT(out, t_off[T_GRAD_FN]), node);
    node = NULL;
    Py_INCREF(Py_True);
    Py_SETREF(SLOT_AT(out, t_off[T_REQUIRES_GRAD]), Py_True);
    status = 0;
done:
    Py_DECREF(saves);
    Py_XDECREF(saved);
    return status;
}

/* op.forward(xp, x) or op.forward(xp, x, y): the op's result array (a new reference) */
static PyObject *forward(PyObject *op, PyObject *xp, PyObject *x, PyObject *y) {
    PyObject *fn = PyObject_GetAttr(op, s_forward);
    if (fn == NULL) return NULL;
    PyObject *data = PyObject_CallFunctionObjArgs(fn, xp, x, y, NULL);  /* y NULL: ends there */
    Py_DECREF(fn);
    return data;
}

/* out (NULL on a failure) after the fast path's temporaries are released */
static PyObject *finish(PyObject *out, PyObject *data, PyObject *edges, PyObject *shapes,
                        PyObject *inputs) {
    Py_DECREF(data); Py_XDECREF(edges); Py_XDECREF(shapes); Py_XDECREF(inputs);
    return out;
}

/* _apply_binary(op, a, b, grad_enabled, ctx) */
static PyObject *binary(PyObject *op, PyObject *a, PyObject *b, int grad_enabled, PyObject *ctx,
                        PyObject *backend, PyObject *xp, PyObject *ad, PyObject *bd) {
    PyObject *data = forward(op, xp, ad, bd);
    if (data == NULL) return NULL;
    PyObject *out = new_tensor(data, backend), *edges = NULL, *shapes = NULL, *inputs = NULL;
    if (out == NULL) goto fail;
    int ra = grad_enabled ? truth(tget(a, T_REQUIRES_GRAD, s_requires_grad)) : 0;
    int rb = grad_enabled ? truth(tget(b, T_REQUIRES_GRAD, s_requires_grad)) : 0;
    if (ra < 0 || rb < 0) goto fail;
    if (ra || rb) {
        PyObject *key = ra && rb ? key_tt : ra ? key_tf : key_ft;
        PyObject *ea = ra ? edge(a) : Py_NewRef(Py_None);
        PyObject *eb = rb ? edge(b) : Py_NewRef(Py_None);
        edges = ea && eb ? PyTuple_Pack(2, ea, eb) : NULL;
        Py_XDECREF(ea); Py_XDECREF(eb);
        if (edges == NULL) goto fail;
        PyObject *sa = PyObject_GetAttr(ad, s_shape), *sb = PyObject_GetAttr(bd, s_shape);
        PyObject *both = sa && sb ? PyTuple_Pack(2, sa, sb) : NULL;
        Py_XDECREF(sa); Py_XDECREF(sb);
        if (both == NULL || (shapes = shared(both)) == NULL) goto fail;
        if ((inputs = PyTuple_Pack(2, a, b)) == NULL ||
            attach(ctx, op, key, inputs, out, data, edges, shapes, backend) < 0) goto fail;
    }
    return finish(out, data, edges, shapes, inputs);
fail:
    Py_XDECREF(out);
    return finish(NULL, data, edges, shapes, inputs);
}

/* _apply_scalar(op, args, i, grad_enabled, ctx): args[i] a floating tensor t (x its array, dt
 * its array's dtype), the other a Python number; the caller has checked that op.plans[i] has a
 * formula when a node is made */
static PyObject *scalar(PyObject *op, PyObject *args, int i, int needs, PyObject *ctx,
                        PyObject *backend, PyObject *xp, PyObject *x, PyObject *dt) {
    PyObject *t = PyTuple_GET_ITEM(args, i), *other = PyTuple_GET_ITEM(args, 1 - i);
    PyObject *data = i == 0 ? forward(op, xp, x, other) : forward(op, xp, other, x);
    if (data == NULL) return NULL;
    PyObject *out = NULL, *edges = NULL, *shapes = NULL, *shape = NULL, *e = NULL;
    PyObject *ddt = PyObject_GetAttr(data, s_dtype);
    if (ddt == NULL) goto fail;
    Py_DECREF(ddt);  /* compared by identity only: the dtype stays alive through data */
    if (ddt != dt) {
        PyObject *dtype = PyObject_GetAttr(t, s_dtype);
        if (dtype == NULL) goto fail;
        Py_SETREF(data, PyObject_CallMethodObjArgs(backend, s_astype, data, dtype, NULL));
        Py_DECREF(dtype);
        if (data == NULL) goto fail;
    }
    if ((out = new_tensor(data, backend)) == NULL) goto fail;
    if (needs) {
        PyObject *key = i == 0 ? key_tf : key_ft;
        if ((e = edge(t)) == NULL || (shape = PyObject_GetAttr(x, s_shape)) == NULL) goto fail;
        edges = i == 0 ? PyTuple_Pack(2, e, Py_None) : PyTuple_Pack(2, Py_None, e);
        if (edges == NULL) goto fail;
        int nd = PyObject_IsTrue(shape);
        if (nd < 0) goto fail;
        if (!nd) {
            shapes = Py_NewRef(i == 0 ? scalar_first : scalar_second);
        } else {
            PyObject *pair = i == 0 ? PyTuple_Pack(2, shape, Py_None)
                                    : PyTuple_Pack(2, Py_None, shape);
            if (pair == NULL || (shapes = shared(pair)) == NULL) goto fail;
        }
        if (attach(ctx, op, key, args, out, data, edges, shapes, backend) < 0) goto fail;
    }
    Py_DECREF(data); Py_XDECREF(edges); Py_XDECREF(shapes); Py_XDECREF(shape); Py_XDECREF(e);
    return out;
fail:
    Py_XDECREF(data); Py_XDECREF(out); Py_XDECREF(edges); Py_XDECREF(shapes);
    Py_XDECREF(shape); Py_XDECREF(e);
    return NULL;
}

/* _apply_unary(op, a, grad_enabled, ctx) without params */
static PyObject *unary(PyObject *op, PyObject *a, int grad_enabled, PyObject *ctx,
                       PyObject *backend, PyObject *xp, PyObject *ad) {
    PyObject *data = forward(op, xp, ad, NULL);
    if (data == NULL) return NULL;
    PyObject *out = new_tensor(data, backend), *edges = NULL, *shapes = NULL, *inputs = NULL;
    if (out == NULL) goto fail;
    int r = grad_enabled ? truth(tget(a, T_REQUIRES_GRAD, s_requires_grad)) : 0;
    if (r < 0) goto fail;
    if (r) {
        PyObject *e = edge(a), *shape = PyObject_GetAttr(ad, s_shape);
        edges = e ? PyTuple_Pack(1, e) : NULL;
        PyObject *one = shape ? PyTuple_Pack(1, shape) : NULL;
        Py_XDECREF(e); Py_XDECREF(shape);
        if (edges == NULL || one == NULL || (shapes = shared(one)) == NULL) {
            if (edges == NULL) Py_XDECREF(one);
            goto fail;
        }
        if ((inputs = PyTuple_Pack(1, a)) == NULL ||
            attach(ctx, op, key_one, inputs, out, data, edges, shapes, backend) < 0) goto fail;
    }
    return finish(out, data, edges, shapes, inputs);
fail:
    Py_XDECREF(out);
    return finish(NULL, data, edges, shapes, inputs);
}

/* 1 for a Python float, or an int strictly inside +-2**53 (record._BIG), else 0 */
static int plain_number(PyObject *v) {
    if (PyFloat_CheckExact(v)) return 1;
    if (!PyLong_CheckExact(v)) return 0;
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow) return 0;
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return x > -(1LL << 53) && x < (1LL << 53);
}

/* op.name[i] (differentiable, plans: one entry per input), a new reference */
static PyObject *per_input(PyObject *op, PyObject *name, int i) {
    PyObject *seq = PyObject_GetAttr(op, name);
    if (seq == NULL) return NULL;
    PyObject *v = PySequence_GetItem(seq, i);
    Py_DECREF(seq);
    return v;
}

/* op.differentiable[i] is truthy: 1, 0, -1 */
static int differentiable(PyObject *op, int i) {
    return truth(per_input(op, s_differentiable, i));
}

/* op.plans[i] is not None: 1, 0, -1 */
static int has_formula(PyObject *op, int i) {
    PyObject *v = per_input(op, s_plans, i);
    if (v == NULL) return -1;
    int r = v != Py_None;
    Py_DECREF(v);
    return r;
}

/* the run's context: context.current() */
static PyObject *current(void) {
    PyObject *ctx;
    if (PyContextVar_Get(context_var, NULL, &ctx) < 0) return NULL;
    return ctx != NULL ? ctx : PyObject_CallNoArgs(py_current);
}

enum { SLOW, BINARY, SCALAR0, SCALAR1, UNARY };

static PyObject *apply(PyObject *self, PyObject *const *argv, Py_ssize_t nargsf,
                       PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs < 2 || nargs > 3 || py_apply == NULL)
        return py_apply ? PyObject_Vectorcall(py_apply, argv, nargsf, kwnames)
                        : (PyErr_SetString(PyExc_RuntimeError, "_record.setup() not run"), NULL);
    PyObject *op = argv[0], *args = argv[1];
    if (nargs == 3 && !(PyDict_CheckExact(argv[2]) && PyDict_GET_SIZE(argv[2]) == 0))
        return PyObject_Vectorcall(py_apply, argv, nargsf, NULL);
    if (!PyTuple_CheckExact(args) || PyTuple_GET_SIZE(args) < 1 || PyTuple_GET_SIZE(args) > 2)
        return PyObject_Vectorcall(py_apply, argv, nargsf, NULL);
    PyObject *ctx = current(), *result = NULL;
    PyObject *backend = NULL, *xp = NULL, *natives = NULL, *ad = NULL, *bd = NULL;
    PyObject *adt = NULL, *bdt = NULL;
    int path = SLOW, grad_enabled = 0, in;
    if (ctx == NULL) return NULL;
    PyObject *recorder = PyObject_GetAttr(ctx, s_recorder);
    if (recorder == NULL) goto done;
    Py_DECREF(recorder);  /* compared with None only */
    if (recorder != Py_None) goto slow;
    if ((in = attr_true(ctx, s_anomaly)) != 0) {  /* anomaly mode keeps each node's trace */
        if (in < 0) goto done;
        goto slow;
    }
    if ((grad_enabled = attr_true(ctx, s_grad_enabled)) < 0) goto done;
    PyObject *a = PyTuple_GET_ITEM(args, 0);
    PyObject *b = PyTuple_GET_SIZE(args) == 2 ? PyTuple_GET_ITEM(args, 1) : NULL;
    PyObject *t = Py_TYPE(a) == tensor_cls ? a : b != NULL && Py_TYPE(b) == tensor_cls ? b : NULL;
    if (t == NULL) goto slow;
    if (t == a) {  /* the arrays and their dtypes, which pick the path */
        if ((ad = tget(a, T_DATA, s_data)) == NULL ||
            (adt = PyObject_GetAttr(ad, s_dtype)) == NULL) goto done;
        if (b == NULL) {
            path = UNARY;
        } else if (Py_TYPE(b) == tensor_cls) {
            if ((bd = tget(b, T_DATA, s_data)) == NULL ||
                (bdt = PyObject_GetAttr(bd, s_dtype)) == NULL) goto done;
            if (adt == bdt) path = BINARY;
        } else if (plain_number(b)) {
            if ((in = differentiable(op, 0)) < 0) goto done;
            if (in) path = SCALAR0;
        }
    } else if (plain_number(a)) {  /* b is the tensor */
        if ((bd = tget(b, T_DATA, s_data)) == NULL ||
            (bdt = PyObject_GetAttr(bd, s_dtype)) == NULL) goto done;
        if ((in = differentiable(op, 1)) < 0) goto done;
        if (in) path = SCALAR1;
    }
    if (path == SLOW) goto slow;
    /* the tensor's dtype among its backend's floating dtypes */
    if ((backend = tget(t, T_BACKEND, s_backend)) == NULL ||
        (natives = PyObject_GetAttr(backend, s_float_natives)) == NULL ||
        (in = PySequence_Contains(natives, path == SCALAR1 ? bdt : adt)) < 0) goto done;
    if (!in) goto slow;
    if ((xp = PyObject_GetAttr(backend, s_xp)) == NULL) goto done;
    if (path == BINARY) {
        result = binary(op, a, b, grad_enabled, ctx, backend, xp, ad, bd);
    } else if (path == UNARY) {
        result = unary(op, a, grad_enabled, ctx, backend, xp, ad);
    } else {
        int i = path == SCALAR0 ? 0 : 1;
        int needs = grad_enabled ? truth(tget(t, T_REQUIRES_GRAD, s_requires_grad)) : 0;
        if (needs < 0 || (needs && (in = has_formula(op, i)) < 0)) goto done;
        if (needs && !in) goto slow;  /* record.py raises its error, after the forward */
        result = scalar(op, args, i, needs, ctx, backend, xp, i == 0 ? ad : bd,
                        i == 0 ? adt : bdt);
    }
    goto done;
slow:
    result = PyObject_Vectorcall(py_apply, argv, nargsf, NULL);
done:
    Py_DECREF(ctx); Py_XDECREF(backend); Py_XDECREF(xp); Py_XDECREF(natives);
    Py_XDECREF(ad); Py_XDECREF(bd); Py_XDECREF(adt); Py_XDECREF(bdt);
    return result;
}

/* o.name is None: 1, 0, -1 */
static int attr_none(PyObject *o, PyObject *name) {
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) return -1;
    Py_DECREF(v);
    return v == Py_None;
}

enum { PLAIN_FAILED = -1, PLAIN_NO = 0, PLAIN_DONE = 1 };

/* _plain_inplace and the write after it, for a Tensor target (its class exactly) whose array
 * data is a writeable ndarray: PLAIN_DONE (the values written), PLAIN_NO (the general path
 * decides: nothing was changed) or PLAIN_FAILED (an exception set) */
static int plain(PyObject *op, PyObject *target, PyObject *args, PyObject *data, int grad_enabled) {
    PyObject *dt = NULL, *backend = NULL, *natives = NULL, *xp = NULL, *out = NULL;
    PyObject *bd = NULL, *bdt = NULL, *write = NULL, *name = NULL;
    int status = PLAIN_FAILED, in;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > 1) return PLAIN_NO;
    if ((dt = PyObject_GetAttr(data, s_dtype)) == NULL ||
        (backend = tget(target, T_BACKEND, s_backend)) == NULL ||
        (natives = PyObject_GetAttr(backend, s_float_natives)) == NULL ||
        (in = PySequence_Contains(natives, dt)) < 0) goto done;
    if (!in) { status = PLAIN_NO; goto done; }
    if (grad_enabled) {
        if ((in = truth(tget(target, T_REQUIRES_GRAD, s_requires_grad))) < 0) goto done;
        if (in) { status = PLAIN_NO; goto done; }
    }
    if ((xp = PyObject_GetAttr(backend, s_xp)) == NULL) goto done;
    if (n == 0) {
        out = forward(op, xp, data, NULL);
    } else {
        PyObject *b = PyTuple_GET_ITEM(args, 0);
        if (Py_TYPE(b) == tensor_cls) {
            if ((bd = tget(b, T_DATA, s_data)) == NULL ||
                (bdt = PyObject_GetAttr(bd, s_dtype)) == NULL) goto done;
            if (bdt != dt) { status = PLAIN_NO; goto done; }
            PyObject *sa = PyObject_GetAttr(data, s_shape), *sb = PyObject_GetAttr(bd, s_shape);
            in = sa && sb ? PyObject_RichCompareBool(sa, sb, Py_EQ) : -1;
            Py_XDECREF(sa); Py_XDECREF(sb);
            if (in <= 0) { status = in < 0 ? PLAIN_FAILED : PLAIN_NO; goto done; }
            if (grad_enabled) {
                if ((in = truth(tget(b, T_REQUIRES_GRAD, s_requires_grad))) < 0) goto done;
                if (in) { status = PLAIN_NO; goto done; }
            }
            if ((name = PyObject_GetAttr(op, s_name)) == NULL) goto done;
            write = PyDict_GetItemWithError(writes_into, name);  /* borrowed */
            if (write == NULL && PyErr_Occurred()) goto done;
            if (write != NULL && Py_TYPE(bd) == (PyTypeObject *)ndarray_cls) {
                /* NumPy's op straight into the target: write(data, b.data, data) */
                PyObject *r = PyObject_CallFunctionObjArgs(write, data, bd, data, NULL);
                if (r == NULL) goto done;
                Py_DECREF(r);
                status = PLAIN_DONE;
                goto done;
            }
            out = forward(op, xp, data, bd);
        } else if (plain_number(b)) {
            if ((in = differentiable(op, 0)) < 0) goto done;
            if (!in) { status = PLAIN_NO; goto done; }
            if ((out = forward(op, xp, data, b)) == NULL) goto done;
            PyObject *odt = PyObject_GetAttr(out, s_dtype);
            if (odt == NULL) goto done;
            Py_DECREF(odt);  /* compared by identity only: out keeps it alive */
            if (odt != dt) {
                PyObject *dtype = PyObject_GetAttr(target, s_dtype);
                if (dtype == NULL) goto done;
                Py_SETREF(out, PyObject_CallMethodObjArgs(backend, s_astype, out, dtype, NULL));
                Py_DECREF(dtype);
            }
        } else {
            status = PLAIN_NO;
            goto done;
        }
    }
    if (out == NULL || PyObject_SetItem(data, Py_Ellipsis, out) < 0) goto done;
    status = PLAIN_DONE;
done:
    Py_XDECREF(dt); Py_XDECREF(backend); Py_XDECREF(natives); Py_XDECREF(xp); Py_XDECREF(out);
    Py_XDECREF(bd); Py_XDECREF(bdt); Py_XDECREF(name);
    return status;
}

/* target._vc[0] += 1, and _bumped: ctx.inplace_at[id(target._vc)] = (target._vc,
 * ctx.free_tag) (no tracer: the caller checked); 0, or -1 with an exception set */
static int bump(PyObject *ctx, PyObject *target) {
    PyObject *vc = tget(target, T_VC, s_vc), *v = NULL, *at = NULL, *key = NULL, *tag = NULL;
    PyObject *entry = NULL;
    int status = -1;
    if (vc == NULL) return -1;
    if ((v = PySequence_GetItem(vc, 0)) == NULL) goto done;
    Py_SETREF(v, PyNumber_Add(v, s_one));
    if (v == NULL || PySequence_SetItem(vc, 0, v) < 0) goto done;
    if ((at = PyObject_GetAttr(ctx, s_inplace_at)) == NULL ||
        (key = PyLong_FromVoidPtr(vc)) == NULL ||
        (tag = PyObject_GetAttr(ctx, s_free_tag)) == NULL ||
        (entry = PyTuple_Pack(2, vc, tag)) == NULL) goto done;
    status = PyObject_SetItem(at, key, entry);
done:
    Py_DECREF(vc); Py_XDECREF(v); Py_XDECREF(at); Py_XDECREF(key); Py_XDECREF(tag);
    Py_XDECREF(entry);
    return status;
}

static PyObject *apply_inplace(PyObject *self, PyObject *const *argv, Py_ssize_t nargsf,
                               PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (py_apply_inplace == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_record.setup() not run");
        return NULL;
    }
    if (kwnames != NULL || nargs < 3 || nargs > 4 ||
        (nargs == 4 && !(PyDict_CheckExact(argv[3]) && PyDict_GET_SIZE(argv[3]) == 0)))
        return PyObject_Vectorcall(py_apply_inplace, argv, nargsf, kwnames);
    PyObject *op = argv[0], *target = argv[1], *args = argv[2];
    if (Py_TYPE(target) != tensor_cls || !PyTuple_CheckExact(args))
        return PyObject_Vectorcall(py_apply_inplace, argv, nargsf, NULL);
    PyObject *ctx = current(), *data = NULL, *flags = NULL, *result = NULL;
    int grad_enabled, in;
    if (ctx == NULL) return NULL;
    if ((grad_enabled = attr_true(ctx, s_grad_enabled)) < 0) goto done;
    if (grad_enabled) {  /* a leaf that requires grad: record.py's error */
        if ((in = truth(tget(target, T_REQUIRES_GRAD, s_requires_grad))) < 0) goto done;
        if (in) goto slow;
    }
    if ((data = tget(target, T_DATA, s_data)) == NULL) goto done;
    if (Py_TYPE(data) != (PyTypeObject *)ndarray_cls) goto slow;
    if ((flags = PyObject_GetAttr(data, s_flags)) == NULL ||
        (in = attr_true(flags, s_writeable)) < 0) goto done;
    if (!in) goto slow;
    /* nothing to record, keep, trace, batch or clone, and no view of it or base */
    PyObject *names[] = {s_recorder, s_history, s_tracer, s_vmap, s_allow_mutation};
    for (int i = 0; i < 5; i++) {
        if ((in = attr_none(ctx, names[i])) < 0) goto done;
        if (!in) goto slow;
    }
    PyObject *base = tget(target, T_BASE, s_base);
    if (base == NULL) goto done;
    Py_DECREF(base);  /* compared with None only */
    if (base != Py_None) goto slow;
    if ((in = truth(tget(target, T_VIEWS, s_views))) < 0) goto done;
    if (in) goto slow;
    switch (plain(op, target, args, data, grad_enabled)) {
    case PLAIN_FAILED: goto done;
    case PLAIN_NO: goto slow;
    }
    if (bump(ctx, target) < 0) goto done;
    result = Py_NewRef(target);
    goto done;
slow:
    result = PyObject_Vectorcall(py_apply_inplace, argv, nargsf, NULL);
done:
    Py_DECREF(ctx); Py_XDECREF(data); Py_XDECREF(flags);
    return result;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_O, "setup(spec): record._compiled_spec()'s classes and helpers"},
    {"apply", (PyCFunction)(void (*)(void))apply, METH_FASTCALL | METH_KEYWORDS,
     "apply(op, args, params=_EMPTY, record=True): record.apply, its common calls compiled"},
    {"apply_inplace", (PyCFunction)(void (*)(void))apply_inplace, METH_FASTCALL | METH_KEYWORDS,
     "apply_inplace(op, target, args, params=_EMPTY): record.apply_inplace, its plain path "
     "compiled"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_record",
    "Recording's common calls in C (record.py's apply and apply_inplace).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__record(void) {
    PyObject **names[] = {&s_data, &s_backend, &s_requires_grad, &s_grad_fn, &s_accumulator,
                          &s_dtype, &s_float_natives, &s_xp, &s_forward, &s_differentiable,
                          &s_plans, &s_saves, &s_saved_names, &s_vc, &s_shape, &s_recorder,
                          &s_grad_enabled, &s_seq, &s_anomaly, &s_astype, &s_base, &s_views,
                          &s_flags, &s_writeable, &s_history, &s_tracer, &s_vmap,
                          &s_allow_mutation, &s_inplace_at, &s_free_tag, &s_name};
    const char *texts[] = {"data", "backend", "requires_grad", "grad_fn", "_accumulator",
                           "dtype", "float_natives", "xp", "forward", "differentiable", "plans",
                           "saves", "saved_names", "_vc", "shape", "recorder", "grad_enabled",
                           "seq", "anomaly", "astype", "_base", "_views", "flags", "writeable",
                           "history", "tracer", "vmap", "allow_mutation", "inplace_at",
                           "free_tag", "name"};
    if (intern_all(names, texts, 31) < 0) return NULL;
    if ((s_zero = PyLong_FromLong(0)) == NULL || (s_one = PyLong_FromLong(1)) == NULL)
        return NULL;
    return PyModule_Create(&module);
}
