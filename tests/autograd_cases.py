"""PyTorch programs of the autograd surface, written once, run against PyTorch and gradcli.

Each ``case_*`` function takes ``(torch, A, log)``: ``torch`` is PyTorch itself (when
``tools/record_autograd.py`` records the answers) or gradcli's surface dressed as it
(``tests/test_autograd_surface.py``); ``A.get``/``A.set`` read and assign tensor attributes
(``x.data``, ``x.grad``, ``x.requires_grad``), which gradcli's engine keeps as getter/setter
pairs; ``log(value)`` records a value as the program runs (hooks, steps).  A case returns
what it wants compared.  This module imports neither torch nor gradcli.
"""

from __future__ import annotations

FLOAT32 = {"sgd_plain", "sgd_momentum", "sgd_nesterov_decay", "sgd_dampening_maximize",
           "sgd_groups_zero_grad", "adam_close"}  # cases run with float32 as the default dtype


def encode(value, host):
    """A case's value as JSON: ``host(t)`` gives a tensor's (nested list, dtype name)."""
    kind = type(value).__name__
    if kind in ("Tensor", "Parameter"):
        data, dtype = host(value)
        fn = value.grad_fn
        return {"tensor": data, "dtype": dtype, "shape": list(value.shape),
                "requires_grad": value.requires_grad, "is_leaf": value.is_leaf,
                "grad_fn": fn.name() if fn is not None else None, "repr": _addr(repr(value))}
    if hasattr(value, "next_functions") and hasattr(value, "name"):
        return {"node": value.name()}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [encode(v, host) for v in value]}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v, host) for k, v in value.items()}}
    if isinstance(value, str):
        return {"str": _addr(value)}
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return {"object": kind}


def _addr(text):
    """Object addresses differ from run to run."""
    import re

    return re.sub(r" at 0x[0-9a-f]+", " at ADDR", text)


def _safe(log, fn):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the error itself is the answer
        # gradcli's errors carry the PyTorch exception's name as ``kind``
        log({"error": getattr(exc, "kind", type(exc).__name__),
             "message": getattr(exc, "message", str(exc))})
        return None


# -- grad_fn ------------------------------------------------------------------------------------
def case_next_functions(torch, A, log):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = torch.tensor([1.0, 2.0, 3.0])
    y = x * c
    z = (y * y).sum()
    acc = y.grad_fn.next_functions[0][0]
    return [z.grad_fn.next_functions, y.grad_fn.next_functions, z.grad_fn.name(),
            acc.name(), acc.variable is x, len(y.grad_fn.next_functions), repr(y.grad_fn)]


def case_saved_tensors(torch, A, log):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * 2.0
    m = x * w
    p = x ** 3
    e = x.exp()
    s = x.sum()
    sel = x[1]
    out = [y.grad_fn._saved_self, y.grad_fn._saved_other, m.grad_fn._saved_self is x,
           m.grad_fn._saved_other, p.grad_fn._saved_self, p.grad_fn._saved_exponent,
           e.grad_fn._saved_result, s.grad_fn._saved_self_sym_sizes, sel.grad_fn._saved_dim,
           sel.grad_fn._saved_index, sel.grad_fn._saved_self_sym_sizes]
    (m.sum() + p.sum()).backward()
    log(p.grad_fn._saved_exponent)
    _safe(log, lambda: p.grad_fn._saved_self)
    _safe(log, lambda: m.grad_fn._saved_other)
    log(e.grad_fn._saved_result)  # not in that backward: still held
    return out


def case_saved_after_inplace(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1.0
    b = a.exp()
    a.add_(1.0)
    _safe(log, lambda: b.grad_fn._saved_self)
    return b.grad_fn._saved_result


# -- hooks --------------------------------------------------------------------------------------
def case_tensor_hooks(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: log(["y", g]) or g * 10)
    y.retain_grad()
    x.register_hook(lambda g: log(["x1", g]))
    h = x.register_hook(lambda g: g + 1)
    (y * y).sum().backward()
    log([x.grad, y.grad])
    h.remove()
    h.remove()
    A.set(x, "grad", None)
    (x * 2).sum().backward()
    return [x.grad, type(h).__name__]


def case_hooks_in_grad(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.register_hook(lambda g: log(["y", g]) or g * 2)
    x.register_hook(lambda g: log(["x", g]) or g + 100)
    return [torch.autograd.grad(y.sum(), x), x.grad]


def case_hook_after_inplace(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: log(["old", g]))
    y.mul_(2)
    y.register_hook(lambda g: log(["new", g]))
    y.sum().backward()
    return x.grad


def case_hook_errors(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    _safe(log, lambda: torch.tensor([1.0]).register_hook(lambda g: g))
    y = x * 1
    y.register_hook(lambda g: 3)
    _safe(log, lambda: y.sum().backward())

    def grow(g):
        return torch.ones(3)

    z = x * 1
    z.register_hook(grow)
    _safe(log, lambda: z.sum().backward())


def case_node_hooks(torch, A, log):
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    c = a * b
    c.grad_fn.register_prehook(lambda go: log(["pre", go]))
    c.grad_fn.register_hook(lambda gi, go: log(["post", gi, go]))
    d = a * b
    d.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, gi[1] * 10))
    (c + d).backward()
    return [a.grad, b.grad]


# -- retain_grad, backward ----------------------------------------------------------------------
def case_retain_grad_twice(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward(retain_graph=True)
    g1 = y.grad
    log([g1, A.get(g1, "_version")])
    (y * y).sum().backward()
    return [y.grad, g1, y.grad is g1, x.grad, A.get(x.grad, "_version"), y.retains_grad]


def case_backward_inputs(torch, A, log):
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    c = a * b
    d = c * c
    d.backward(inputs=[a, c], retain_graph=True)
    log([a.grad, b.grad, c.grad, c.retains_grad])
    d.backward(inputs=c, retain_graph=True)
    log([a.grad, b.grad, c.grad])
    _safe(log, lambda: d.backward(inputs=[]))
    _safe(log, lambda: d.backward(inputs=[torch.tensor(1.0)]))
    _safe(log, lambda: d.backward(inputs=[3]))
    torch.autograd.backward([d], inputs=(b,))
    return [a.grad, b.grad, c.grad]


def case_autograd_backward(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.backward(x * 2, grad_tensors=torch.tensor([1.0, 3.0]))
    torch.autograd.backward([(x * 2).sum(), (x * 3).sum()], [None, torch.tensor(2.0)])
    log(x.grad)
    _safe(log, lambda: torch.autograd.backward([(x * 2).sum(), (x * 3).sum()], [None]))
    _safe(log, lambda: (x * 2).backward(torch.ones(3)))
    _safe(log, lambda: (x * 2).backward())
    _safe(log, lambda: (x * 2).backward(3))
    _safe(log, lambda: torch.tensor([1.0]).sum().backward())
    (x * x).sum().backward(gradient=torch.tensor(0.5))
    return x.grad


def case_create_graph_backward(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    log([g, g.grad_fn.name(), g.grad_fn.next_functions[0]])
    (x ** 3).sum().backward(create_graph=True)
    log(x.grad)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward(create_graph=True)
    w = torch.tensor(3.0, requires_grad=True)
    (w * 1).backward(create_graph=True)
    return [y.grad, w.grad]


def case_grad_signature(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = torch.tensor(1.0, requires_grad=True)
    y = (x * x).sum()
    g = torch.autograd.grad
    log(g(y, x, retain_graph=True))
    log(g(y, (x,), retain_graph=True))
    log(g([y, y * 2], [x], retain_graph=True))
    log(g(y, [x, u], retain_graph=True, allow_unused=True))
    log(g(y, [x, u], retain_graph=True, materialize_grads=True))
    log(g(x * 2, x, grad_outputs=torch.tensor([1.0, -1.0]), retain_graph=True))
    log(g(x * 2, x, grad_outputs=[torch.ones(2)]))
    log(g(y, x, grad_outputs=[None], retain_graph=True))
    first = g((x ** 3).sum(), x, create_graph=True)[0]
    log([first, g(first.sum(), x)])


def case_grad_errors(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0])
    u = torch.tensor(1.0, requires_grad=True)
    y = (x * x).sum()
    g = torch.autograd.grad
    calls = [
        lambda: g(w.sum(), x),
        lambda: g(y, w, retain_graph=True),
        lambda: g(y, [x, u], retain_graph=True),
        lambda: g(y, [x, u], retain_graph=True, allow_unused=False, materialize_grads=True),
        lambda: g(x * 2, x),
        lambda: g([y, y], x, grad_outputs=[torch.tensor(1.0)], retain_graph=True),
        lambda: g(x * 2, x, grad_outputs=torch.ones(3)),
        lambda: g(x * 2, x, grad_outputs=[3]),
        lambda: g(y, 3, retain_graph=True),
        lambda: g(y, [x, 3], retain_graph=True),
        lambda: g(3, x),
        lambda: g([y, 3], x),
        lambda: g(y, [], retain_graph=True),
        lambda: g([], x, retain_graph=True),
        lambda: g(y, x, foo=1),
        lambda: g(y),
    ]
    for call in calls:
        _safe(log, call)
    return g(y, x, only_inputs=False)


# -- functional ---------------------------------------------------------------------------------
def case_jacobian(torch, A, log):
    F = torch.autograd.functional

    def f(a):
        return a * a * torch.tensor([1.0, 2.0, 3.0])

    def g(a, b):
        return (a * b, (a + b).sum())

    x = torch.tensor([1.0, 2.0, 3.0])
    y = torch.tensor([0.5, -1.0, 4.0])
    return [F.jacobian(f, x), F.jacobian(g, (x, y)), F.jacobian(f, (x,)),
            F.jacobian(lambda a: a.exp().sum(), x), F.jacobian(f, x, vectorize=True)]


def case_jacobian_create_graph(torch, A, log):
    F = torch.autograd.functional
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    j = F.jacobian(lambda a: a ** 3, x, create_graph=True)
    log([j, j.requires_grad])
    j.sum().backward()
    return x.grad


def case_functional_products(torch, A, log):
    F = torch.autograd.functional

    def f(a):
        return (a ** 3).sum()

    def h(a, b):
        return (a * a * b).sum()

    x = torch.tensor([1.0, 2.0])
    v = torch.tensor([1.0, -1.0])
    y = torch.tensor([3.0, 4.0])
    return [F.vjp(lambda a: a ** 2, x, v), F.vjp(f, x), F.jvp(lambda a: a ** 2, x, v),
            F.hessian(f, x), F.hessian(h, (x, y)), F.vhp(f, x, v), F.hvp(f, x, v),
            F.vhp(h, (x, y), (v, v)), F.hvp(h, (x, y), (v, v))]


def case_functional_errors(torch, A, log):
    F = torch.autograd.functional
    x = torch.tensor([1.0, 2.0])
    calls = [
        lambda: F.jacobian(lambda a: a * 2, [x]),
        lambda: F.jacobian(lambda a: 3, x),
        lambda: F.vjp(lambda a: a * 2, x),
        lambda: F.vjp(lambda a: a * 2, x, torch.ones(3)),
        lambda: F.jacobian(lambda a: torch.tensor([1.0, 2.0]), x, strict=True),
        lambda: F.jacobian(lambda a, b: a * 2, (x, x), strict=True),
        lambda: F.hessian(lambda a: a * 2, x),
        lambda: F.jvp(lambda a: a * 2, x),
    ]
    for call in calls:
        _safe(log, call)
    return F.jacobian(lambda a, b: a * 2, (x, x))


# -- attributes ---------------------------------------------------------------------------------
def case_requires_grad_attribute(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    _safe(log, lambda: A.set(y, "requires_grad", False))
    _safe(log, lambda: A.set(y, "requires_grad", True))
    _safe(log, lambda: A.set(torch.tensor([1.0]), "requires_grad", 1))
    _safe(log, lambda: torch.tensor([1.0]).requires_grad_(1))
    _safe(log, lambda: y.requires_grad_(False))
    z = torch.tensor([3.0])
    A.set(z, "requires_grad", True)
    log([z, z.is_leaf, y.requires_grad_() is y])
    A.set(z, "requires_grad", False)
    return [z, A.get(z, "requires_grad")]


def case_grad_attribute(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    for value in (torch.zeros(3), 3, [1.0, 2.0], x):
        _safe(log, lambda value=value: A.set(x, "grad", value))
    g = torch.ones(2)
    A.set(x, "grad", g)
    (x * 3).sum().backward()
    log([g, A.get(x, "grad") is g, A.get(g, "_version")])
    A.set(x, "grad", None)
    log(A.get(x, "grad"))
    A.set(y, "grad", torch.ones(2))
    log(A.get(y, "grad"))
    (x * x).sum().backward()
    A.get(A.get(x, "grad"), "data").zero_()
    return A.get(x, "grad")


def case_data_attribute(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = A.get(x, "data")
    log([d, d.requires_grad, d.is_leaf, A.get(d, "_version"), A.get(x, "_version")])
    d.add_(1)
    log([x, A.get(x, "_version"), A.get(d, "_version")])
    A.set(x, "data", torch.tensor([5.0, 6.0, 7.0]))
    log([x, A.get(x, "_version"), list(x.shape)])
    _safe(log, lambda: A.set(x, "data", 3))
    (x * x).sum().backward()
    return x.grad


def case_detach_inplace(torch, A, log):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    log([y.detach_() is y, y.requires_grad, y.grad_fn, y.is_leaf])
    log(x.detach_())
    v = (torch.tensor([1.0, 2.0], requires_grad=True) * 1)[1:]
    _safe(log, lambda: v.detach_())
    return [x, x.requires_grad]


def case_variable_parameter(torch, A, log):
    V = torch.autograd.Variable
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = V(torch.tensor([1.0, 2.0]), requires_grad=True)
    log([a, a.is_leaf, V(torch.tensor([1.0, 2.0])), V(x * 2), V(x * 2, requires_grad=True)])
    _safe(log, lambda: V(3))
    P = torch.nn.Parameter
    p = P(torch.tensor([1.0, 2.0]))
    log([repr(p), str(p), p.is_leaf, p.grad_fn, p.requires_grad])
    log([repr(P(torch.tensor([1.0, 2.0]), requires_grad=False)), repr(P(x * 2)), repr(P())])
    q = p * 2
    log([repr(q), repr(p.detach()), repr(p.clone()), repr(A.get(p, "data"))])
    (p * p).sum().backward()
    t = torch.tensor([1.0, 2.0])
    v = V(t)
    v.add_(1)
    q = P(t)
    with torch.no_grad():
        q.add_(1)
    log([t, A.get(t, "_version"), A.get(v, "_version"), A.get(q, "_version")])
    return p.grad


# -- optimizers (float32) -----------------------------------------------------------------------
def _train(torch, A, opt_name, kwargs, steps=30):
    w = torch.tensor([0.3, -1.2, 0.8, 2.0, -0.4, 1.1, -0.9, 0.05, 0.6], requires_grad=True)
    t = torch.tensor([1.0, 0.5, -0.5, 0.25, -1.0, 0.75, 0.0, 0.1, -0.2])
    opt = getattr(torch.optim, opt_name)([w], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        # NOTE: the loss itself is not compared: a float32 sum's rounding depends on its order
        loss = ((w * w * 0.5 - t) ** 2).sum()
        loss.backward()
        opt.step()
    return [w, A.get(w, "_version")]


def case_sgd_plain(torch, A, log):
    return _train(torch, A, "SGD", {"lr": 0.1})


def case_sgd_momentum(torch, A, log):
    return _train(torch, A, "SGD", {"lr": 0.05, "momentum": 0.9})


def case_sgd_nesterov_decay(torch, A, log):
    return _train(torch, A, "SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True,
                                 "weight_decay": 0.01})


def case_sgd_dampening_maximize(torch, A, log):
    return _train(torch, A, "SGD", {"lr": 0.01, "momentum": 0.5, "dampening": 0.3,
                                 "maximize": True, "foreach": True}, steps=6)


def case_sgd_groups_zero_grad(torch, A, log):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0], requires_grad=True)
    opt = torch.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    for _ in range(3):
        opt.zero_grad(set_to_none=False)
        ((a * a).sum() + (b * b * b).sum()).backward()
        opt.step()
        log([a, b, a.grad, b.grad])
    opt.zero_grad()
    log([a.grad, repr(opt), [g["lr"] for g in opt.param_groups]])
    for call in (lambda: torch.optim.SGD([], lr=0.1), lambda: torch.optim.SGD(a, lr=0.1),
                 lambda: torch.optim.SGD([a * 2], lr=0.1),
                 lambda: torch.optim.SGD([a], lr=-1.0),
                 lambda: torch.optim.SGD([a], lr=0.1, nesterov=True)):
        _safe(log, call)
    return opt.step(lambda: 7.0)


def case_adam_close(torch, A, log):
    return [_train(torch, A, "Adam", {"lr": 0.05}),
            _train(torch, A, "Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1}),
            _train(torch, A, "Adam", {"lr": 0.05, "betas": (0.5, 0.9), "weight_decay": 0.1,
                                   "decoupled_weight_decay": True})]


# -- grad modes ---------------------------------------------------------------------------------
def case_grad_modes(torch, A, log):
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def f(a):
        return a * 2

    @torch.no_grad
    def f2(a):
        return a * 2

    @torch.set_grad_enabled(False)
    def g(a):
        return a * 2

    @torch.enable_grad()
    def h(a):
        return a * 2

    log([torch.is_grad_enabled(), f(x).requires_grad, f2(x).requires_grad, g(x).requires_grad])
    with torch.no_grad():
        log([h(x).requires_grad, (x * 2).requires_grad, torch.is_grad_enabled()])
        with torch.enable_grad():
            log((x * 2).requires_grad)
        with torch.inference_mode(False):
            log((x * 2).requires_grad)
    torch.set_grad_enabled(False)
    log([torch.is_grad_enabled(), (x * 2).requires_grad])
    with torch.set_grad_enabled(True):
        log((x * 2).requires_grad)
    log(torch.is_grad_enabled())
    torch.set_grad_enabled(True)
    with torch.inference_mode():
        y = x * 2
    _safe(log, lambda: torch.set_grad_enabled(1))
    return [y.requires_grad, torch.is_grad_enabled()]


# -- views and in-place -------------------------------------------------------------------------
def case_view_then_inplace_base(torch, A, log):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b[1:]
    log(v.grad_fn.name())
    b.mul_(2)
    log([b.grad_fn.name(), v.grad_fn.name(), v.grad_fn.next_functions[0][0] is b.grad_fn,
         A.get(v, "_version"), v])
    (v * v).sum().backward()
    return a.grad


def case_inplace_view_then_base(torch, A, log):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b[:2]
    v.mul_(3)
    log([b.grad_fn.name(), b.grad_fn.next_functions, v.grad_fn.name(),
         v.grad_fn.next_functions[0][0] is b.grad_fn])
    (b * b).sum().backward()
    return a.grad


def case_view_chains(torch, A, log):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b.view(3, 1)
    w = v[1:]
    u = w.squeeze(1)
    b.add_(1)
    log([u.grad_fn.name(), w.grad_fn.name(), v.grad_fn.name(),
         u.grad_fn.next_functions[0][0] is b.grad_fn])
    (u ** 2).sum().backward()
    log(a.grad)
    A.set(a, "grad", None)
    b = a * 1
    v = b.view(3, 1)
    w = v[1:]
    u = w.squeeze(1)
    u.mul_(2)
    log([b.grad_fn.name(), v.grad_fn.name(), w.grad_fn.name(), u.grad_fn.name(), v])
    (b ** 2).sum().backward()
    log(a.grad)
    A.set(a, "grad", None)
    (w.sum() + v.sum()).backward()
    return a.grad


def case_views_no_grad_and_detach(torch, A, log):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    v = b[1:]
    with torch.no_grad():
        b.mul_(2)
    log([v.grad_fn.name(), b.grad_fn.name()])
    v.sum().backward()
    log(a.grad)
    with torch.no_grad():
        c = a * 1
    cv = c[1:]
    c.mul_(2)
    log([cv.grad_fn, cv.requires_grad])
    e = a * 2
    d = e.detach()
    f = e * e
    d.add_(1)
    log([A.get(e, "_version"), A.get(d, "_version")])
    _safe(log, lambda: f.sum().backward())
    z = torch.zeros(3)
    zv = z[1:]
    z.add_(a)
    log([zv.grad_fn.name(), zv.requires_grad])
    zv.sum().backward()
    return a.grad


def case_transpose_warning(torch, A, log):
    x = torch.tensor([1.0, 2.0])
    y = x.T
    y2 = x.T
    s = torch.tensor(1.0, requires_grad=True).T
    return [y, y2, s.grad_fn.name()]


def case_saved_attributes(torch, A, log):
    x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    outs = [x * x, x + x, x - 2.0, 1.0 - x, x / 3.0, 2.0 / x, x ** 2, 2.0 ** x, x.exp(),
            x.log(), x.sqrt(), x.tanh(), x.sigmoid(), x.relu(), x.abs(), x.sin(), x.cos(),
            x.sum(), x.sum(0), x.mean(), x.mean(1, keepdim=True), x.max(), x @ m, x.t(), x.T,
            x.transpose(0, 1), x[0], x[:, 1:3], x.unsqueeze(0), x.reshape(3, 2), x.view(6),
            x.clamp(min=0.0, max=2.0), torch.softmax(x, 1), torch.log_softmax(x, 0),
            x.flatten(), x.clone(), x.neg(), torch.maximum(x, x * 0.5)]
    for y in outs:
        fn = y.grad_fn
        names = sorted(a for a in dir(fn) if a.startswith("_saved_"))
        log([fn.name(), names, [getattr(fn, a) for a in names]])


def case_backward_gradient_types(torch, A, log):
    x = torch.tensor(1.0, requires_grad=True)
    for gradient in ("a", "ab", [torch.tensor(1.0), torch.tensor(2.0)], (None,), 2.5):
        _safe(log, lambda gradient=gradient: (x * 2).backward(gradient))
    _safe(log, lambda: torch.autograd.grad(x * 2, x, grad_outputs="a"))
    return x.grad


def case_saved_numbers_and_squeeze(torch, A, log):
    x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    for y in (x * 2, x * 2.5, x * True, x.squeeze(), x.squeeze(0), x[0] @ torch.ones(3, 2)):
        fn = y.grad_fn
        names = sorted(a for a in dir(fn) if a.startswith("_saved_"))
        log([fn.name(), names, [getattr(fn, a) for a in names]])
