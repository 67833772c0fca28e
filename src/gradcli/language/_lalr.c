/* The parser's driver loop compiled: parser.py's _Parser.run, step for step, in C.
 *
 * The tables, the lexer (the grammar's master regex, searched from where each token ends;
 * names, plain numbers, operators and newlines scanned here where the regex is sure to agree),
 * the layout's rare cases (_newline, _long_string), the bracket errors and the compiler stay the
 * Python objects parser.py builds; this file only walks them without the interpreter's
 * per-token overhead: the match's group and end read, the token tuple made, the action looked
 * up in a dense table instead of a dict, the reductions and gotos done on a C stack of states.
 * The three hottest reductions (exprs.py's name, number and binary: most nodes of a script)
 * make their node here, slot by slot as exprs.py does, without a call into the interpreter (a
 * plain number's value too); so does compiler.py's assign for the common `name = value` (a
 * value that needs none of its checks).
 * parser.py says what each step means; tests/test_parser_driver.py holds the two drivers to
 * the same programs and the same syntax errors.
 *
 * Tables: built once per process from parser.py's description (_Parser.compiled).
 * Machine: one parse: the state stack, the values (a list, as the compiler's methods get their
 * children) and the open brackets; feed(tok) for the layout's tokens, run(...) for a text.
 */
#include "../_capi.h"  /* Python.h, and the slot and name helpers the extensions share */
#include <stdint.h>
#include <string.h>

#define NO_ACTION INT32_MIN
#define MAX_OPS 64

/* what a group of the master regex is (parser.py's branches, in its order) */
enum { G_NONE, G_NAME, G_OP, G_NEWLINE, G_TOKEN, G_LONGSTRING, G_BAD, G_CONTINUATION };
/* what a reduction does with its children: nothing (a unit rule's), a helper list, a call of
 * the compiler's method, or (the hottest four) its node made here, as exprs.py's name, number
 * and binary and compiler.py's assign make it: a frozen node's slots written, its span a named
 * tuple; and compiler.py's simple_stmts for a line of one statement (its list) */
enum { R_UNIT, R_HELPER, R_CALL, R_NAME, R_NUMBER, R_BINARY, R_ASSIGN, R_SIMPLE };

typedef struct {
    int size, nt, kind, append;  /* append: a helper list grows by one item, in place */
    PyObject *fn;                /* the compiler's method (R_CALL) */
    PyObject *splice;            /* the children to splice (a tuple), or NULL */
} Rule;

typedef struct {
    PyObject_HEAD
    int nkinds, nstates, nrules, nnts, ngroups;
    int32_t *actions;   /* actions[state * nkinds + kind]: shift (>= 0), ~rule, or NO_ACTION */
    int32_t **after;    /* after[nt * nkinds + kind][below]: the memoised gotos, -1 unknown */
    Rule *rules;
    int *group_role, *group_kind;
    char *opener;       /* opener[kind]: 1 for ( [ { */
    char *bracket;      /* bracket[kind]: 1 for the six brackets */
    PyObject *kind_names;  /* tuple: kind -> its terminal's name */
    PyObject *kind_index;  /* dict: terminal name -> kind */
    PyObject *words;       /* dict: a NAME's text -> kind (keywords, reserved and refused) */
    PyObject *operators;   /* dict: operator text -> kind */
    int nops;              /* the operators again, for scan(): their text (ASCII, 1-3 chars) */
    struct { char text[4]; int len; PyObject *str; } ops[MAX_OPS];  /* and the dict's key */
    signed char by_first[128][4];  /* the operators starting with a character, longest first:
                                    * indexes into ops, -1 after the last */
    PyObject *master, *goto_fn, *splice_fn, *stuck, *newline_fn, *long_string_fn;
    PyObject *bracket_fn, *bad_character_fn, *never_closed_fn;
    int start, end, max_depth, name_kind, newline_kind, dedent_kind, end_kind;
    /* the node classes the R_NAME, R_NUMBER, R_BINARY and R_ASSIGN reductions make, their
     * slots' offsets in field order, Span, and checks.number_value */
    PyTypeObject *name_cls, *number_cls, *binary_cls, *assign_cls, *span_cls;
    Py_ssize_t name_slots[2], number_slots[2], binary_slots[4], assign_slots[4];
    PyObject *number_value;
    PyObject *plain_values;  /* a tuple of the value classes R_ASSIGN makes a node for */
    int name_group, op_group, number_group, newline_group;  /* the master regex's groups the
                                                            * scan() makes */
} Tables;

typedef struct {
    PyObject_HEAD
    Tables *t;
    int32_t *states;
    Py_ssize_t n, cap;
    PyObject *values, *brackets;
    Py_ssize_t pos;
} Machine;

static PyTypeObject TablesType, MachineType;
static PyObject *s_end, *s_lastindex, *s_search, *s_feed, *s_empty, *s_newline;

/* ---- Tables --------------------------------------------------------------------------------- */

static int int_list(PyObject *seq, int **out, int n) {
    if (!PyList_Check(seq) || PyList_GET_SIZE(seq) != n) {
        PyErr_SetString(PyExc_ValueError, "a list of the expected length");
        return -1;
    }
    *out = PyMem_Calloc(n ? n : 1, sizeof(int));
    if (*out == NULL) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < n; i++) {
        long v = PyLong_AsLong(PyList_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        (*out)[i] = (int)v;
    }
    return 0;
}

static int flag_list(PyObject *seq, char **out, int n) {
    int *tmp = NULL;
    if (int_list(seq, &tmp, n) < 0) { PyMem_Free(tmp); return -1; }
    *out = PyMem_Calloc(n ? n : 1, 1);
    if (*out == NULL) { PyMem_Free(tmp); PyErr_NoMemory(); return -1; }
    for (int i = 0; i < n; i++) (*out)[i] = (char)(tmp[i] != 0);
    PyMem_Free(tmp);
    return 0;
}

#define OBJ(field, key) do { \
        PyObject *o_ = PyDict_GetItemString(spec, key); \
        if (o_ == NULL) { PyErr_Format(PyExc_KeyError, "%s", key); return -1; } \
        Py_INCREF(o_); t->field = o_; } while (0)
#define INT(field, key) do { \
        PyObject *o_ = PyDict_GetItemString(spec, key); \
        if (o_ == NULL) { PyErr_Format(PyExc_KeyError, "%s", key); return -1; } \
        long v_ = PyLong_AsLong(o_); \
        if (v_ == -1 && PyErr_Occurred()) return -1; \
        t->field = (int)v_; } while (0)

static int Tables_init(Tables *t, PyObject *args, PyObject *kwds) {
    PyObject *spec, *actions, *rules;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &spec)) return -1;
    if (t->actions != NULL) {
        PyErr_SetString(PyExc_TypeError, "Tables are built once");
        return -1;
    }
    OBJ(kind_names, "kind_names"); OBJ(kind_index, "kind_index"); OBJ(words, "words");
    OBJ(operators, "operators"); OBJ(master, "master"); OBJ(goto_fn, "goto");
    OBJ(splice_fn, "splice"); OBJ(stuck, "stuck"); OBJ(newline_fn, "newline");
    OBJ(long_string_fn, "long_string"); OBJ(bracket_fn, "bracket_fn");
    OBJ(bad_character_fn, "bad_character"); OBJ(never_closed_fn, "never_closed");
    INT(nstates, "nstates"); INT(nnts, "nnts"); INT(start, "start"); INT(end, "end");
    INT(max_depth, "max_depth"); INT(name_kind, "name_kind"); INT(newline_kind, "newline_kind");
    INT(dedent_kind, "dedent_kind"); INT(end_kind, "end_kind");
    if (!PyTuple_Check(t->kind_names)) {
        PyErr_SetString(PyExc_TypeError, "kind_names: a tuple");
        return -1;
    }
    if (!PyDict_Check(t->operators)) {
        PyErr_SetString(PyExc_TypeError, "operators: a dict");
        return -1;
    }
    {
        PyObject *op, *kind;
        Py_ssize_t pos = 0;
        while (PyDict_Next(t->operators, &pos, &op, &kind)) {
            Py_ssize_t len = PyUnicode_Check(op) ? PyUnicode_GET_LENGTH(op) : 0;
            if (len < 1 || len > 3 || !PyUnicode_IS_ASCII(op)) continue;  /* scan() skips it */
            if (t->nops == MAX_OPS) {
                PyErr_SetString(PyExc_ValueError, "more operators than scan() holds");
                return -1;
            }
            memcpy(t->ops[t->nops].text, PyUnicode_DATA(op), (size_t)len);
            t->ops[t->nops].len = (int)len;
            t->ops[t->nops].str = Py_NewRef(op);
            t->nops++;
        }
        memset(t->by_first, -1, sizeof t->by_first);
        for (int w = 3; w >= 1; w--)
            for (int e = 0; e < t->nops; e++) {
                if (t->ops[e].len != w) continue;
                signed char *row = t->by_first[(unsigned char)t->ops[e].text[0] & 127];
                int k = 0;
                while (k < 4 && row[k] >= 0) k++;
                if (k == 4) {
                    PyErr_SetString(PyExc_ValueError, "more operators on one character than "
                                    "scan() holds");
                    return -1;
                }
                row[k] = (signed char)e;
            }
    }
    t->nkinds = (int)PyTuple_GET_SIZE(t->kind_names);

    /* actions: a dict {terminal name: action} per state, made dense here */
    actions = PyDict_GetItemString(spec, "actions");
    if (actions == NULL || !PyList_Check(actions) || PyList_GET_SIZE(actions) != t->nstates) {
        PyErr_SetString(PyExc_ValueError, "actions: a dict per state");
        return -1;
    }
    t->actions = PyMem_Malloc((size_t)t->nstates * t->nkinds * sizeof(int32_t));
    if (t->actions == NULL) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < (Py_ssize_t)t->nstates * t->nkinds; i++) t->actions[i] = NO_ACTION;
    for (int state = 0; state < t->nstates; state++) {
        PyObject *row = PyList_GET_ITEM(actions, state), *name, *act;
        Py_ssize_t pos = 0;
        if (!PyDict_Check(row)) {
            PyErr_SetString(PyExc_TypeError, "actions: a dict per state");
            return -1;
        }
        while (PyDict_Next(row, &pos, &name, &act)) {
            PyObject *k = PyDict_GetItemWithError(t->kind_index, name);
            if (k == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
                return -1;
            }
            long kind = PyLong_AsLong(k), a = PyLong_AsLong(act);
            if (PyErr_Occurred()) return -1;
            if (kind < 0 || kind >= t->nkinds || a == NO_ACTION) {
                PyErr_SetString(PyExc_ValueError, "actions: a terminal or action out of range");
                return -1;
            }
            t->actions[(Py_ssize_t)state * t->nkinds + kind] = (int32_t)a;
        }
    }
    t->after = PyMem_Calloc((size_t)t->nnts * t->nkinds, sizeof(int32_t *));
    if (t->after == NULL) { PyErr_NoMemory(); return -1; }

    PyObject *roles = PyDict_GetItemString(spec, "group_role");
    PyObject *kinds = PyDict_GetItemString(spec, "group_kind");
    if (roles == NULL || kinds == NULL || !PyList_Check(roles)) {
        PyErr_SetString(PyExc_KeyError, "group_role, group_kind");
        return -1;
    }
    t->ngroups = (int)PyList_GET_SIZE(roles);
    if (int_list(roles, &t->group_role, t->ngroups) < 0 ||
        int_list(kinds, &t->group_kind, t->ngroups) < 0) return -1;
    PyObject *openers = PyDict_GetItemString(spec, "opener");
    PyObject *brackets = PyDict_GetItemString(spec, "bracket");
    if (openers == NULL || brackets == NULL) {
        PyErr_SetString(PyExc_KeyError, "opener, bracket");
        return -1;
    }
    if (flag_list(openers, &t->opener, t->nkinds) < 0 ||
        flag_list(brackets, &t->bracket, t->nkinds) < 0) return -1;

    /* rules: (size, nt, kind, append, fn, splice) per code, or None (runs of unit rules) */
    rules = PyDict_GetItemString(spec, "rules");
    if (rules == NULL || !PyList_Check(rules)) {
        PyErr_SetString(PyExc_KeyError, "rules");
        return -1;
    }
    t->nrules = (int)PyList_GET_SIZE(rules);
    t->rules = PyMem_Calloc(t->nrules ? t->nrules : 1, sizeof(Rule));
    if (t->rules == NULL) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < t->nrules; i++) {
        PyObject *r = PyList_GET_ITEM(rules, i);
        Rule *rule = &t->rules[i];
        if (r == Py_None) {
            rule->kind = R_UNIT;
            continue;
        }
        PyObject *fn, *splice;
        if (!PyArg_ParseTuple(r, "iiiiOO", &rule->size, &rule->nt, &rule->kind, &rule->append,
                              &fn, &splice)) return -1;
        if (rule->nt < 0 || rule->nt >= t->nnts) {
            PyErr_SetString(PyExc_ValueError, "a rule's nonterminal out of range");
            return -1;
        }
        Py_INCREF(fn);
        rule->fn = fn;
        if (splice != Py_None) {
            Py_INCREF(splice);
            rule->splice = splice;
        }
    }
    if (class_slots(spec, "name_class", &t->name_cls, t->name_slots, 2) < 0 ||
        class_slots(spec, "number_class", &t->number_cls, t->number_slots, 2) < 0 ||
        class_slots(spec, "binary_class", &t->binary_cls, t->binary_slots, 4) < 0 ||
        class_slots(spec, "assign_class", &t->assign_cls, t->assign_slots, 4) < 0) return -1;
    OBJ(number_value, "number_value");
    OBJ(plain_values, "plain_values");
    INT(name_group, "name_group"); INT(op_group, "op_group"); INT(number_group, "number_group");
    INT(newline_group, "newline_group");
    if (!PyTuple_Check(t->plain_values)) {
        PyErr_SetString(PyExc_TypeError, "plain_values: a tuple of classes");
        return -1;
    }
    PyObject *span = PyDict_GetItemString(spec, "span_class");
    if (span == NULL || !PyType_Check(span) ||
        !PyType_IsSubtype((PyTypeObject *)span, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "span_class: a named tuple");
        return -1;
    }
    Py_INCREF(span);
    t->span_cls = (PyTypeObject *)span;
    return 0;
}

static void Tables_dealloc(Tables *t) {
    Py_XDECREF(t->kind_names); Py_XDECREF(t->kind_index); Py_XDECREF(t->words);
    Py_XDECREF(t->operators); Py_XDECREF(t->master); Py_XDECREF(t->goto_fn);
    for (int e = 0; e < t->nops; e++) Py_XDECREF(t->ops[e].str);
    Py_XDECREF(t->splice_fn); Py_XDECREF(t->stuck); Py_XDECREF(t->newline_fn);
    Py_XDECREF(t->long_string_fn); Py_XDECREF(t->bracket_fn);
    Py_XDECREF(t->bad_character_fn); Py_XDECREF(t->never_closed_fn);
    Py_XDECREF(t->name_cls); Py_XDECREF(t->number_cls); Py_XDECREF(t->binary_cls);
    Py_XDECREF(t->assign_cls); Py_XDECREF(t->span_cls); Py_XDECREF(t->number_value);
    Py_XDECREF(t->plain_values);
    if (t->rules != NULL) {
        for (int i = 0; i < t->nrules; i++) {
            Py_XDECREF(t->rules[i].fn);
            Py_XDECREF(t->rules[i].splice);
        }
    }
    if (t->after != NULL) {
        for (Py_ssize_t i = 0; i < (Py_ssize_t)t->nnts * t->nkinds; i++) PyMem_Free(t->after[i]);
    }
    PyMem_Free(t->after); PyMem_Free(t->actions); PyMem_Free(t->rules);
    PyMem_Free(t->group_role); PyMem_Free(t->group_kind);
    PyMem_Free(t->opener); PyMem_Free(t->bracket);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* The state after a reduction to nt over state below with lookahead kind (grammar.Tables.goto,
 * memoised here as well); -1 with an exception set. */
static int32_t goto_state(Tables *t, int nt, int kind, int32_t below) {
    int32_t **slot = &t->after[(Py_ssize_t)nt * t->nkinds + kind];
    if (*slot == NULL) {
        *slot = PyMem_Malloc((size_t)t->nstates * sizeof(int32_t));
        if (*slot == NULL) { PyErr_NoMemory(); return -1; }
        for (int i = 0; i < t->nstates; i++) (*slot)[i] = -1;
    }
    int32_t to = (*slot)[below];
    if (to >= 0) return to;
    PyObject *r = PyObject_CallFunction(t->goto_fn, "iOi", nt,
                                        PyTuple_GET_ITEM(t->kind_names, kind), (int)below);
    if (r == NULL) return -1;
    long v = PyLong_AsLong(r);
    Py_DECREF(r);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v >= t->nstates) {
        PyErr_SetString(PyExc_SystemError, "a goto out of the table");
        return -1;
    }
    (*slot)[below] = (int32_t)v;
    return (int32_t)v;
}

/* ---- Machine -------------------------------------------------------------------------------- */

static int push(Machine *m, int32_t state) {
    if (m->n == m->cap) {
        Py_ssize_t cap = m->cap * 2;
        int32_t *s = PyMem_Realloc(m->states, (size_t)cap * sizeof(int32_t));
        if (s == NULL) { PyErr_NoMemory(); return -1; }
        m->states = s;
        m->cap = cap;
    }
    m->states[m->n++] = state;
    return 0;
}

static int stuck(Tables *t, PyObject *tok) {
    PyObject *exc = PyObject_CallOneArg(t->stuck, tok);
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return -1;
}

/* A new node of cls with its fields' slots (at offsets) set to items, references taken:
 * object.__new__(cls) and each slot descriptor's __set__, as nodes.py's constructors. */
static PyObject *node(PyTypeObject *cls, const Py_ssize_t *offsets, PyObject **items, int n) {
    PyObject *o = cls->tp_alloc(cls, 0);
    if (o == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        Py_INCREF(items[i]);
        *(PyObject **)((char *)o + offsets[i]) = items[i];
    }
    return o;
}

/* A node of four fields, the last its span s (a new reference, released here; NULL passes
 * the span's failure on) */
static PyObject *node4(PyTypeObject *cls, const Py_ssize_t *offsets, PyObject *a, PyObject *b,
                       PyObject *c, PyObject *s) {
    if (s == NULL) return NULL;
    PyObject *items[4] = {a, b, c, s};
    PyObject *o = node(cls, offsets, items, 4);
    Py_DECREF(s);
    return o;
}

/* Span(line, column, end_line, end_column) of four ints, as tuple.__new__(Span, ...) */
static PyObject *span(Tables *t, PyObject *a, PyObject *b, PyObject *c, PyObject *d) {
    PyObject *s = t->span_cls->tp_alloc(t->span_cls, 4);
    if (s == NULL) return NULL;
    PyObject *items[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++) {
        Py_INCREF(items[i]);
        PyTuple_SET_ITEM(s, i, items[i]);
    }
    return s;
}

static int is_token(PyObject *tok) { return PyTuple_CheckExact(tok) && PyTuple_GET_SIZE(tok) == 5; }

/* A node's span, a named tuple of four; NULL with an exception set */
static PyObject *span_of(PyObject *node) {
    static PyObject *s_span = NULL;
    if (s_span == NULL && (s_span = PyUnicode_InternFromString("span")) == NULL) return NULL;
    PyObject *s = PyObject_GetAttr(node, s_span);
    if (s != NULL && !(PyTuple_Check(s) && PyTuple_GET_SIZE(s) == 4)) {
        Py_DECREF(s);
        PyErr_SetString(PyExc_TypeError, "a node's span: four ints");
        return NULL;
    }
    return s;
}

/* The reduction's result for its children c: the compiler's method called, or the node of
 * exprs.py's name (c: [token]), number ([token]) or binary ([left, operator token, right]), or
 * of compiler.py's assign ([Name, '=' token, a plain value]) */
/* checks.number_value of a NUMBER token's text without the call, for the plain ones: digits
 * with at most one point (float()'s value), or up to 18 digits without a leading zero
 * (int()'s); NULL without an exception for any other (the Python function then decides) */
static PyObject *plain_number(PyObject *v) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(v), points = 0;
    if (!PyUnicode_IS_ASCII(v) || n < 1 || n > 18) return NULL;
    const char *s = (const char *)PyUnicode_DATA(v);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] == '.') points++;
        else if (s[i] < '0' || s[i] > '9') return NULL;
    }
    if (points > 1) return NULL;
    if (points) return PyFloat_FromString(v);
    if (s[0] == '0' && n > 1) return NULL;  /* 0 itself, or an error the function words */
    return PyLong_FromString(s, NULL, 10);
}

static PyObject *reduce(Tables *t, Rule *r, PyObject *c) {
    PyObject *items[4], *s, *tok;
    switch (r->kind) {
    case R_NAME:
    case R_NUMBER:
        if (!PyList_CheckExact(c) || PyList_GET_SIZE(c) != 1) break;
        tok = PyList_GET_ITEM(c, 0);
        if (!is_token(tok)) break;
        s = span(t, PyTuple_GET_ITEM(tok, 2), PyTuple_GET_ITEM(tok, 3), PyTuple_GET_ITEM(tok, 2),
                 PyTuple_GET_ITEM(tok, 4));
        if (s == NULL) return NULL;
        if (r->kind == R_NAME) {
            items[0] = PyTuple_GET_ITEM(tok, 1);
            items[1] = s;
            PyObject *o = node(t->name_cls, t->name_slots, items, 2);
            Py_DECREF(s);
            return o;
        }
        items[0] = plain_number(PyTuple_GET_ITEM(tok, 1));
        if (items[0] == NULL && !PyErr_Occurred())
            items[0] = PyObject_CallOneArg(t->number_value, tok);
        if (items[0] == NULL) {
            Py_DECREF(s);
            return NULL;
        }
        items[1] = s;
        PyObject *o = node(t->number_cls, t->number_slots, items, 2);
        Py_DECREF(items[0]);
        Py_DECREF(s);
        return o;
    case R_BINARY: {
        if (!PyList_CheckExact(c) || PyList_GET_SIZE(c) != 3) break;
        PyObject *left = PyList_GET_ITEM(c, 0), *op = PyList_GET_ITEM(c, 1);
        PyObject *right = PyList_GET_ITEM(c, 2);
        if (!is_token(op)) break;
        PyObject *ls = span_of(left), *rs;
        if (ls == NULL) return NULL;
        if ((rs = span_of(right)) == NULL) {
            Py_DECREF(ls);
            return NULL;
        }
        s = span(t, PyTuple_GET_ITEM(ls, 0), PyTuple_GET_ITEM(ls, 1), PyTuple_GET_ITEM(rs, 2),
                 PyTuple_GET_ITEM(rs, 3));
        Py_DECREF(ls);
        Py_DECREF(rs);
        return node4(t->binary_cls, t->binary_slots, PyTuple_GET_ITEM(op, 1), left, right, s);
    }
    case R_ASSIGN: {  /* [Name, '=' token, value]: compiler.py's assign, its first branch */
        if (!PyList_CheckExact(c) || PyList_GET_SIZE(c) != 3) break;
        PyObject *target = PyList_GET_ITEM(c, 0), *value = PyList_GET_ITEM(c, 2);
        int plain = 0;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t->plain_values); i++)
            if ((PyObject *)Py_TYPE(value) == PyTuple_GET_ITEM(t->plain_values, i)) plain = 1;
        if (!plain || Py_TYPE(target) != t->name_cls) break;
        PyObject *vs = span_of(value);
        if (vs == NULL) return NULL;
        PyObject *ts = *(PyObject **)((char *)target + t->name_slots[1]);
        PyObject *id = *(PyObject **)((char *)target + t->name_slots[0]);
        long line = PyLong_AsLong(PyTuple_GET_ITEM(vs, 0));
        long col = PyLong_AsLong(PyTuple_GET_ITEM(vs, 1));
        long end_line = PyLong_AsLong(PyTuple_GET_ITEM(vs, 2));
        long end_col = PyLong_AsLong(PyTuple_GET_ITEM(vs, 3));
        if (PyErr_Occurred() || ts == NULL || id == NULL || !PyTuple_Check(ts) ||
            PyTuple_GET_SIZE(ts) != 4) {
            Py_DECREF(vs);
            if (PyErr_Occurred()) return NULL;
            break;
        }
        if (line != end_line || end_col - col > t->max_depth) {  /* check_depth's walk */
            Py_DECREF(vs);
            break;
        }
        s = span(t, PyTuple_GET_ITEM(ts, 0), PyTuple_GET_ITEM(ts, 1), PyTuple_GET_ITEM(vs, 2),
                 PyTuple_GET_ITEM(vs, 3));
        Py_DECREF(vs);
        return node4(t->assign_cls, t->assign_slots, id, value, Py_False, s);
    }
    case R_SIMPLE: {  /* [statement(s), NEWLINE]: simple_stmts's first branch */
        if (!PyList_CheckExact(c) || PyList_GET_SIZE(c) != 2) break;
        PyObject *first = PyList_GET_ITEM(c, 0);
        if (PyList_CheckExact(first)) return Py_NewRef(first);
        PyObject *one = PyList_New(1);
        if (one != NULL) PyList_SET_ITEM(one, 0, Py_NewRef(first));
        return one;
    }
    default:
        return PyObject_CallOneArg(r->fn, c);
    }
    return PyObject_CallOneArg(r->fn, c);  /* not the shape of children expected: the method's */
}

/* One parse step for tok, of kind (-1: a kind the tables do not know): the reductions its
 * lookahead makes, then its shift.  1 when a reduction reached the end state (the end of
 * input accepted), 0 after the shift, -1 with an exception set. */
static int step(Machine *m, PyObject *tok, int kind) {
    Tables *t = m->t;
    PyObject *values = m->values;
    for (;;) {
        int32_t act = kind < 0 ? NO_ACTION : t->actions[m->states[m->n - 1] * t->nkinds + kind];
        if (act == NO_ACTION) return stuck(t, tok);
        if (act >= 0) {
            if (push(m, act) < 0 || PyList_Append(values, tok) < 0) return -1;
            return 0;
        }
        Rule *r = &t->rules[~act];
        if (r->kind == R_UNIT) {  /* runs of unit rules are the gotos' (grammar.Tables.goto) */
            PyErr_SetString(PyExc_SystemError, "a unit rule's code in the action table");
            return -1;
        }
        Py_ssize_t nv = PyList_GET_SIZE(values);
        int32_t below, to;
        if (r->size > nv || r->size >= m->n) {
            PyErr_SetString(PyExc_SystemError, "a reduction deeper than the stack");
            return -1;
        }
        if (r->size == 1 && r->splice == NULL) {
            PyObject *c = PyList_New(1);
            if (c == NULL) return -1;
            PyObject *top = PyList_GET_ITEM(values, nv - 1);
            Py_INCREF(top);
            PyList_SET_ITEM(c, 0, top);
            PyObject *res = c;
            if (r->kind != R_HELPER) {
                res = reduce(t, r, c);
                Py_DECREF(c);
                if (res == NULL) return -1;
            }
            if (PyList_SetItem(values, nv - 1, res) < 0) return -1;
            below = m->states[m->n - 2];
            if ((to = goto_state(t, r->nt, kind, below)) < 0) return -1;
            m->states[m->n - 1] = to;
        } else if (r->append) {  /* xs: xs x, the list grown in place */
            if (nv < 2) {
                PyErr_SetString(PyExc_SystemError, "an append below the stack");
                return -1;
            }
            if (PyList_Append(PyList_GET_ITEM(values, nv - 2), PyList_GET_ITEM(values, nv - 1)) < 0
                || PyList_SetSlice(values, nv - 1, nv, NULL) < 0) return -1;
            m->n -= 1;
            below = m->states[m->n - 2];
            if ((to = goto_state(t, r->nt, kind, below)) < 0) return -1;
            m->states[m->n - 1] = to;
        } else {
            PyObject *c;
            if (r->size) {
                c = PyList_GetSlice(values, nv - r->size, nv);
                if (c == NULL) return -1;
                if (PyList_SetSlice(values, nv - r->size, nv, NULL) < 0) {
                    Py_DECREF(c);
                    return -1;
                }
                m->n -= r->size;
            } else {
                c = PyList_New(0);
                if (c == NULL) return -1;
            }
            if (r->splice != NULL) {
                PyObject *s = PyObject_CallFunctionObjArgs(t->splice_fn, c, r->splice, NULL);
                Py_DECREF(c);
                if (s == NULL) return -1;
                c = s;
            }
            PyObject *res = c;
            if (r->kind != R_HELPER) {
                res = reduce(t, r, c);
                Py_DECREF(c);
                if (res == NULL) return -1;
            }
            int failed = PyList_Append(values, res);
            Py_DECREF(res);
            if (failed) return -1;
            below = m->states[m->n - 1];
            if ((to = goto_state(t, r->nt, kind, below)) < 0 || push(m, to) < 0) return -1;
        }
        if (m->states[m->n - 1] == t->end) return 1;
    }
}

static PyObject *Machine_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Tables *t;
    if (!PyArg_ParseTuple(args, "O!", &TablesType, &t)) return NULL;
    if (t->actions == NULL) {
        PyErr_SetString(PyExc_ValueError, "Tables not built");
        return NULL;
    }
    Machine *m = (Machine *)type->tp_alloc(type, 0);
    if (m == NULL) return NULL;
    Py_INCREF(t);
    m->t = t;
    m->cap = 64;
    m->states = PyMem_Malloc((size_t)m->cap * sizeof(int32_t));
    m->values = PyList_New(0);
    m->brackets = PyList_New(0);
    if (m->states == NULL || m->values == NULL || m->brackets == NULL) {
        Py_DECREF(m);
        return PyErr_NoMemory();
    }
    m->states[m->n++] = t->start;
    return (PyObject *)m;
}

static void Machine_dealloc(Machine *m) {
    Py_XDECREF(m->t);
    Py_XDECREF(m->values);
    Py_XDECREF(m->brackets);
    PyMem_Free(m->states);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static int kind_of(Tables *t, PyObject *name) {
    PyObject *k = PyDict_GetItemWithError(t->kind_index, name);
    if (k == NULL) return PyErr_Occurred() ? -2 : -1;
    return (int)PyLong_AsLong(k);
}

/* feed(tok): one parse step for a token of the layout (parser.py's feed) */
static PyObject *Machine_feed(Machine *m, PyObject *tok) {
    if (!PyTuple_Check(tok) || PyTuple_GET_SIZE(tok) < 1) {
        PyErr_SetString(PyExc_TypeError, "a token tuple");
        return NULL;
    }
    int kind = kind_of(m->t, PyTuple_GET_ITEM(tok, 0));
    if (kind == -2) return NULL;
    int r = step(m, tok, kind);
    if (r < 0) return NULL;
    return PyBool_FromLong(r);
}

static PyObject *token(PyObject *kind_name, PyObject *value, long line, long col, long stop) {
    PyObject *a = PyLong_FromLong(line), *b = PyLong_FromLong(col), *c = PyLong_FromLong(stop);
    PyObject *tok = (a && b && c) ? PyTuple_Pack(5, kind_name, value, a, b, c) : NULL;
    Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(c);
    return tok;
}

static int ascii_name_start(Py_UCS4 c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int ascii_name_char(Py_UCS4 c) { return ascii_name_start(c) || (c >= '0' && c <= '9'); }
static int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static int prefix(Py_UCS4 c) { return c != 0 && c < 128 && strchr("rRuUfFbB", (int)c) != NULL; }
static int quote(Py_UCS4 c) { return c == '\'' || c == '"'; }

/* The master regex's match at pos for the commonest tokens, without the regex: spaces and tabs,
 * then an ASCII name, an operator, a plain decimal number or a newline (with the blank and
 * comment lines after it), where the regex's first matching branch is sure to be that group and
 * to end where this scan ends.  1 with *end, *group and
 * *value (a new reference) set; 0 for anything else (the regex then runs from pos, as
 * before); -1 with an exception set. */
static int scan(Tables *t, PyObject *text, Py_ssize_t pos, Py_ssize_t *end, int *group,
                PyObject **value) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = pos;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
#define AT(j) ((j) < n ? PyUnicode_READ(kind, data, (j)) : 0)
    while (i < n && (AT(i) == ' ' || AT(i) == '\t')) i++;
    Py_UCS4 c = AT(i);
    Py_ssize_t j = i;
    if (ascii_name_start(c)) {
        /* not a dunder or private name (the regex's other branch), not a string's prefix */
        if (c == '_' && AT(i + 1) == '_') return 0;
        if (prefix(c) && (quote(AT(i + 1)) || (prefix(AT(i + 1)) && quote(AT(i + 2)))))
            return 0;
        while (ascii_name_char(AT(j))) j++;
        *group = t->name_group;
    } else if (is_digit(c)) {  /* digits, or digits . digits, ended by no part of a number */
        while (is_digit(AT(j))) j++;
        if (AT(j) == '.' && is_digit(AT(j + 1))) {
            j++;
            while (is_digit(AT(j))) j++;
        }
        Py_UCS4 after = AT(j);
        if (ascii_name_char(after) || after == '.' || after >= 128) return 0;
        *group = t->number_group;
    } else if (c == '\n') {  /* _NEWLINE: newlines, each with the spaces, tabs and form
                                 * feeds after it, and comments, greedily, as the regex */
        for (;;) {
            Py_UCS4 d = AT(j);
            if (d == '\n') {
                j++;
                while (AT(j) == ' ' || AT(j) == '\t' || AT(j) == '\f') j++;
            } else if (d == '#') {
                while (j < n && AT(j) != '\n') j++;
            } else {
                break;
            }
        }
        *group = t->newline_group;
    } else if (c != 0 && c < 128 && strchr("()[]{},:;=+-*/%@<>!&|^~.", (int)c) != NULL) {
        if (c == '.' && is_digit(AT(i + 1))) return 0;  /* a number */
        /* the longest operator there (its text: the operators dict's own key) */
        Py_UCS4 next[2] = {AT(i + 1), AT(i + 2)};
        const signed char *row = t->by_first[c];
        for (int k = 0; k < 4 && row[k] >= 0; k++) {
            int e = row[k], w = t->ops[e].len;
            if ((w < 2 || next[0] == (unsigned char)t->ops[e].text[1]) &&
                (w < 3 || next[1] == (unsigned char)t->ops[e].text[2])) {
                *end = i + w;
                *group = t->op_group;
                *value = Py_NewRef(t->ops[e].str);
                return 1;
            }
        }
        return 0;
    } else {
        return 0;
    }
#undef AT
    if ((*value = PyUnicode_Substring(text, i, j)) == NULL) return -1;
    *end = j;
    return 1;
}

/* raise fn(*args)'s result (an exception made by parser.py's error helpers) */
static void raise_made(PyObject *exc) {
    if (exc != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
}

/* two ints from a (line, position, ...) tuple that a layout helper returned */
static int two_longs(PyObject *r, long *a, long *b) {
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) < 2) {
        PyErr_SetString(PyExc_TypeError, "a layout helper's (line, line_start)");
        return -1;
    }
    *a = PyLong_AsLong(PyTuple_GET_ITEM(r, 0));
    *b = PyLong_AsLong(PyTuple_GET_ITEM(r, 1));
    return PyErr_Occurred() ? -1 : 0;
}

/* run(text, first_line, first_column, eof): parser.py's _Parser.run for this machine */
static PyObject *Machine_run(Machine *m, PyObject *args) {
    Tables *t = m->t;
    PyObject *text, *eof, *levels = NULL, *indents = NULL, *feed = NULL, *it = NULL;
    PyObject *match = NULL, *value = NULL, *tok = NULL, *result = NULL;
    long line, first_column;
    if (!PyArg_ParseTuple(args, "UllO", &text, &line, &first_column, &eof)) return NULL;
    long line_start = 1 - first_column;
    long last_line = 1, last_stop = 1;  /* the last token's line and end column */
    PyObject *brackets = m->brackets;

    levels = Py_BuildValue("[(ii)]", 0, 0);
    indents = Py_BuildValue("[i]", 0);
    feed = PyObject_GetAttr((PyObject *)m, s_feed);
    it = PyObject_GetAttr(t->master, s_search);
    if (levels == NULL || indents == NULL || feed == NULL || it == NULL) goto done;

    /* each token where the last one ended: scan()'s, else the regex's next match (the
     * finditer of parser.py's loop: a search from there) */
    for (Py_ssize_t at = 0;;) {
        Py_ssize_t stop;
        int g, got = scan(t, text, at, &stop, &g, &value);
        if (got < 0) goto done;
        long end, group;
        if (got) {
            end = (long)stop;
            group = g;
        } else {
            match = PyObject_CallFunction(it, "On", text, at);
            if (match == NULL) goto done;
            if (match == Py_None) {
                Py_CLEAR(match);
                break;
            }
            PyObject *o = PyObject_CallMethodNoArgs(match, s_end);
            if (o == NULL) goto done;
            end = PyLong_AsLong(o);
            Py_DECREF(o);
            o = PyObject_GetAttr(match, s_lastindex);
            if (o == NULL) goto done;
            group = PyLong_AsLong(o);
            if (group < 0 || group >= t->ngroups) {
                Py_DECREF(o);
                PyErr_SetString(PyExc_SystemError, "a lexer group out of range");
                goto done;
            }
            value = PyObject_GetItem(match, o);
            Py_DECREF(o);
            Py_CLEAR(match);
            if (value == NULL) goto done;
            if (end == at) {  /* an empty match: finditer would step past it */
                PyErr_SetString(PyExc_SystemError, "an empty lexer match");
                goto done;
            }
        }
        at = end;
        m->pos = end;
        long width = (long)PyUnicode_GET_LENGTH(value), col;
        int kind;
        switch (t->group_role[group]) {
        case G_NAME: {
            PyObject *k = PyDict_GetItemWithError(t->words, value);
            if (k == NULL && PyErr_Occurred()) goto done;
            kind = k == NULL ? t->name_kind : (int)PyLong_AsLong(k);
            break;
        }
        case G_OP: {
            PyObject *k = PyDict_GetItemWithError(t->operators, value);
            if (k == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, value);
                goto done;
            }
            kind = (int)PyLong_AsLong(k);
            break;
        }
        case G_NEWLINE: {
            Py_ssize_t nl = PyUnicode_FindChar(value, '\n', 0, width, -1);
            long start = end - width, after = start + (long)nl + 1;
            Py_ssize_t ni = PyList_GET_SIZE(indents);
            long top = PyLong_AsLong(PyList_GET_ITEM(indents, ni - 1));
            if (nl < -1 || (top == -1 && PyErr_Occurred())) goto done;
            if (PyList_GET_SIZE(brackets) || end - after != top ||
                PyUnicode_FindChar(value, '\t', 0, width, 1) >= 0 ||
                PyUnicode_FindChar(value, '\f', 0, width, 1) >= 0) {
                /* inside brackets, a change of indentation, a tab or a form feed */
                PyObject *r = PyObject_CallFunction(
                    t->newline_fn, "OlOllOOOO", text, end, value, line, line_start, brackets,
                    levels, indents, feed);
                if (r == NULL) goto done;
                int bad = two_longs(r, &line, &line_start);
                Py_DECREF(r);
                if (bad) goto done;
                Py_CLEAR(value);
                continue;
            }
            col = start - line_start + 1;
            tok = token(PyTuple_GET_ITEM(t->kind_names, t->newline_kind), value, line, col, col);
            if (tok == NULL) goto done;
            Py_ssize_t lines = PyUnicode_Count(value, s_newline, 0, width);
            line += (long)lines;
            line_start = after;
            Py_CLEAR(value);
            if (step(m, tok, t->newline_kind) < 0) goto done;
            Py_CLEAR(tok);
            continue;
        }
        case G_TOKEN:
            kind = t->group_kind[group];
            break;
        case G_LONGSTRING: {  /* a triple-quoted string: it may span lines */
            PyObject *r = PyObject_CallFunction(t->long_string_fn, "OlllO", value, line,
                                                line_start, end, feed);
            if (r == NULL) goto done;
            int bad = two_longs(r, &line, &line_start);
            if (!bad && (PyTuple_GET_SIZE(r) < 3 || !PyTuple_Check(PyTuple_GET_ITEM(r, 2)) ||
                         PyTuple_GET_SIZE(PyTuple_GET_ITEM(r, 2)) < 5)) {
                PyErr_SetString(PyExc_TypeError, "_long_string's (line, line_start, token)");
                bad = 1;
            }
            if (!bad) {
                PyObject *last = PyTuple_GET_ITEM(r, 2);
                last_line = PyLong_AsLong(PyTuple_GET_ITEM(last, 2));
                last_stop = PyLong_AsLong(PyTuple_GET_ITEM(last, 4));
                bad = PyErr_Occurred() != NULL;
            }
            Py_DECREF(r);
            if (bad) goto done;
            Py_CLEAR(value);
            continue;
        }
        case G_BAD:
            raise_made(PyObject_CallFunction(t->bad_character_fn, "Olll", text, end - 1, line,
                                             line_start));
            goto done;
        case G_CONTINUATION:
            line += 1;
            line_start = end;
            Py_CLEAR(value);
            continue;
        default:
            PyErr_SetString(PyExc_SystemError, "a lexer group without a role");
            goto done;
        }
        if (kind < 0 || kind >= t->nkinds) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_SystemError, "a kind out of range");
            goto done;
        }
        col = end - width - line_start + 1;
        tok = token(PyTuple_GET_ITEM(t->kind_names, kind), value, line, col, col + width);
        if (tok == NULL) goto done;
        last_line = line;
        last_stop = col + width;
        if (t->bracket[kind]) {  /* _bracket's common cases, inline */
            Py_ssize_t nb = PyList_GET_SIZE(brackets);
            int fine = 0;
            if (t->opener[kind]) {
                if (nb < t->max_depth) {
                    if (PyList_Append(brackets, tok) < 0) goto done;
                    fine = 1;
                }
            } else if (nb) {
                PyObject *opener = PyTuple_GET_ITEM(PyList_GET_ITEM(brackets, nb - 1), 1);
                Py_UCS4 o = PyUnicode_READ_CHAR(opener, 0), c = PyUnicode_READ_CHAR(value, 0);
                if ((o == '(' && c == ')') || (o == '[' && c == ']') || (o == '{' && c == '}')) {
                    if (PyList_SetSlice(brackets, nb - 1, nb, NULL) < 0) goto done;
                    fine = 1;
                }
            }
            if (!fine) {  /* too deep, unmatched or mismatched: _bracket raises */
                PyObject *r = PyObject_CallFunctionObjArgs(t->bracket_fn, tok, brackets, NULL);
                if (r == NULL) goto done;
                Py_DECREF(r);
            }
        }
        Py_CLEAR(value);
        if (step(m, tok, kind) < 0) goto done;
        Py_CLEAR(tok);
    }
    if (PyList_GET_SIZE(brackets)) {
        raise_made(PyObject_CallOneArg(t->never_closed_fn,
                                       PyList_GET_ITEM(brackets, PyList_GET_SIZE(brackets) - 1)));
        goto done;
    }
    long eof_line = last_line, eof_col = last_stop;
    if (eof != Py_None && two_longs(eof, &eof_line, &eof_col) < 0) goto done;
    while (PyList_GET_SIZE(indents) > 1) {
        if (PyList_SetSlice(indents, PyList_GET_SIZE(indents) - 1, PyList_GET_SIZE(indents),
                            NULL) < 0) goto done;
        tok = token(PyTuple_GET_ITEM(t->kind_names, t->dedent_kind), s_empty, eof_line, eof_col,
                    eof_col);
        if (tok == NULL || step(m, tok, t->dedent_kind) < 0) goto done;
        Py_CLEAR(tok);
    }
    tok = token(PyTuple_GET_ITEM(t->kind_names, t->end_kind), s_empty, eof_line, eof_col,
                eof_col);
    if (tok == NULL) goto done;
    int r = step(m, tok, t->end_kind);
    if (r < 0) goto done;
    if (r == 0) {
        PyErr_SetString(PyExc_AssertionError, "the parser shifted the end of input");
        goto done;
    }
    result = PyList_GET_ITEM(m->values, PyList_GET_SIZE(m->values) - 1);
    Py_INCREF(result);
done:
    Py_XDECREF(levels); Py_XDECREF(indents); Py_XDECREF(feed); Py_XDECREF(it);
    Py_XDECREF(match); Py_XDECREF(value); Py_XDECREF(tok);
    return result;
}

static PyObject *Machine_state(Machine *m, void *closure) {
    return PyLong_FromLong(m->states[m->n - 1]);
}
static PyObject *Machine_values(Machine *m, void *closure) {
    Py_INCREF(m->values);
    return m->values;
}
static PyObject *Machine_brackets(Machine *m, void *closure) {
    Py_INCREF(m->brackets);
    return m->brackets;
}
static PyObject *Machine_pos(Machine *m, void *closure) { return PyLong_FromSsize_t(m->pos); }

static PyGetSetDef Machine_getset[] = {
    {"state", (getter)Machine_state, NULL, "the state on top of the stack", NULL},
    {"values", (getter)Machine_values, NULL, "the values stack (tokens and nodes)", NULL},
    {"brackets", (getter)Machine_brackets, NULL, "the brackets still open", NULL},
    {"pos", (getter)Machine_pos, NULL, "where the text's last token read ends", NULL},
    {NULL},
};

static PyMethodDef Machine_methods[] = {
    {"feed", (PyCFunction)Machine_feed, METH_O, "one parse step for a token; True at the end"},
    {"run", (PyCFunction)Machine_run, METH_VARARGS,
     "run(text, first_line, first_column, eof): lex, lay out and parse text"},
    {NULL},
};

static PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradcli.language._lalr.Tables",
    .tp_basicsize = sizeof(Tables),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "the parse tables as the C driver reads them (parser.py's _Parser.compiled)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Tables_init,
    .tp_dealloc = (destructor)Tables_dealloc,
};

static PyTypeObject MachineType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gradcli.language._lalr.Machine",
    .tp_basicsize = sizeof(Machine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "one parse over Tables",
    .tp_new = Machine_new,
    .tp_dealloc = (destructor)Machine_dealloc,
    .tp_methods = Machine_methods,
    .tp_getset = Machine_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_lalr", "The parser's driver loop in C (parser.py's _Parser.run).",
    -1, NULL,
};

PyMODINIT_FUNC PyInit__lalr(void) {
    if (PyType_Ready(&TablesType) < 0 || PyType_Ready(&MachineType) < 0) return NULL;
    PyObject **names[] = {&s_end, &s_lastindex, &s_search, &s_feed, &s_empty, &s_newline};
    const char *texts[] = {"end", "lastindex", "search", "feed", "", "\n"};
    if (intern_all(names, texts, 6) < 0) return NULL;
    PyObject *mod = PyModule_Create(&module);
    if (mod == NULL) return NULL;
    Py_INCREF(&TablesType);
    Py_INCREF(&MachineType);
    if (PyModule_AddObject(mod, "Tables", (PyObject *)&TablesType) < 0 ||
        PyModule_AddObject(mod, "Machine", (PyObject *)&MachineType) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
