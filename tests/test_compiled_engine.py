"""The engine's compiled paths against the Python they stand in for: record.apply's common calls
(engine/_record.c) against record.py's apply, and the backward's per-node work for a plain Node
(its formulas and freeing in engine/_backward.c) against autograd.py's _plain loop with
Node.apply and Node.free.

The rest of the suite runs the compiled paths where the install built them (and the
``GRADCLI_PURE=1`` pass of .ci/run the Python alone); these tests hold the two to each other
state for state: every slot of the output tensor and of its node, the saved tensors, the
edges, the gradients bit for bit, the freed nodes, the errors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine import CASES

from gradcli import api as F
from gradcli.api.anomaly import detect_anomaly
from gradcli.engine import autograd, record
from gradcli.engine import ops as O
from gradcli.engine.backend import get_backend
from gradcli.engine.context import RunContext, no_grad, use
from gradcli.engine.graph import Node
from gradcli.engine.tensor import Tensor
from gradcli.errors import GradcliError

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # log of negatives and kin
needs_record = pytest.mark.skipif(record._compiled is None, reason="engine/_record.c is not built "
                                  "here (no C compiler at install time, or GRADCLI_PURE is set)")
needs_loop = pytest.mark.skipif(autograd._loop is None, reason="engine/_backward.c is not built "
                                "here (no C compiler at install time, or GRADCLI_PURE is set)")

# every elementwise op of the table taking one tensor, or a tensor and another operand: what
# record.apply's fast paths see most
ELEMENTWISE = sorted((op for op in O.OPS.values()
                      if op.kind == "elementwise" and op.forward is not None
                      and not op.variadic and len(op.inputs) in (1, 2)), key=lambda op: op.name)
DTYPES = (np.float32, np.float64)


@pytest.fixture(autouse=True)
def numpy_backend() -> Iterator[None]:
    with use(RunContext(get_backend("numpy", "float32"))):
        yield


def _array_state(a: Any) -> Any:
    if isinstance(a, (np.ndarray, np.generic)):
        a = np.asarray(a)
        return ("array", a.dtype.str, a.shape, a.tobytes())
    return a


def _tensor_state(t: Tensor, inputs: tuple) -> dict:
    """Every slot of t (set or not) and of its node, with arrays by their bits, the node's
    sequence number relative to the last one made, other nodes and tensors by identity."""
    def ref(x: Any) -> Any:
        for i, a in enumerate(inputs):
            if x is a:
                return ("input", i)
            if x is not None and isinstance(a, Tensor) and x is a.data:
                return ("input data", i)
        if x is t:
            return "output"
        if isinstance(x, (Node, Tensor)):
            return ("object", id(x))
        if isinstance(x, list):  # a version counter
            return ("counter", list(x), x is t._vc)
        if isinstance(x, tuple):
            return tuple(ref(v) for v in x)
        if isinstance(x, dict):
            return {k: ref(v) for k, v in x.items()}
        return _array_state(x)

    state = {name: ref(getattr(t, name, "<unset>")) for name in Tensor.__slots__
             if name not in ("__weakref__", "grad_fn")}
    fn = t.grad_fn
    if fn is not None:
        assert fn.__class__ is Node and fn.prio == -fn.seq
        state["grad_fn"] = {name: ref(getattr(fn, name, "<unset>")) for name in Node.__slots__
                            if name not in ("__weakref__", "seq", "prio")}
    return state


def _both(op: Any, args: tuple, params: dict | None = None) -> tuple[Any, Any]:
    """(the compiled apply's result or error, the Python apply's), on the same inputs."""
    results = []
    for fn in (record.apply, record._python_apply):
        try:
            out = fn(op, args) if params is None else fn(op, args, params)
        except Exception as err:  # noqa: BLE001 (a form the op does not take fails alike)
            results.append(("error", type(err).__name__, str(err)))
        else:
            results.append(_tensor_state(out, args) if isinstance(out, Tensor) else out)
    return results[0], results[1]


def _tensor(values: Any, dtype: Any, requires_grad: bool) -> Tensor:
    t = Tensor(np.asarray(values, dtype=dtype), get_backend("numpy", "float32"))
    if requires_grad:
        t.requires_grad = True
    return t


@needs_record
@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda op: op.name)
def test_elementwise_ops_record_the_same_state(op: Any) -> None:
    """Each elementwise op on two tensors, a tensor and a number either side, or one tensor, in
    both float dtypes and every requires_grad: the same output and node."""
    for dtype in DTYPES:
        for ra in (False, True):
            for rb in (False, True):
                a = _tensor([[0.5, 1.25, 2.0], [0.75, 1.5, 3.0]], dtype, ra)
                b = _tensor([0.25, 2.0, 1.5], dtype, rb)  # broadcast along the rows
                calls = [(a,)] if len(op.inputs) == 1 else [(a, b), (b, a)]
                calls += [(a, 0.5), (a, 3), (2.0, a)] if op.wrapped or len(op.inputs) == 2 \
                    else []
                for args in calls:
                    got, want = _both(op, args)
                    assert got == want, (op.name, dtype, ra, rb, args)


@needs_record
def test_the_compiled_path_hands_every_other_call_on() -> None:
    """Calls outside the fast paths (mixed dtypes, an integer tensor, an int past 2**53, a bool,
    params, no grad mode, a number where the op has no formula, a leaf whose AccumulateGrad
    died, anomaly mode's traces) give what the Python apply gives."""
    f32 = _tensor([1.5, -2.0, 0.25], np.float32, True)
    f64 = _tensor([0.5, 4.0, -1.0], np.float64, True)
    i64 = _tensor([1, 2, 3], np.int64, False)
    cases = [
        (O.MUL, (f32, f64)), (O.ADD, (i64, i64)), (O.ADD, (f32, i64)), (O.MUL, (f32, 2 ** 53)),
        (O.MUL, (f32, -(2 ** 53) + 1)), (O.MUL, (f32, True)), (O.MUL, (np.float64(2.0), f32)),
        (O.TANH, (i64,)), (O.SUM, (f32,)), (O.MUL, (f32,) * 2), (O.EXP, (f64,)),
    ]
    for op, args in cases:
        got, want = _both(op, args)
        assert got == want, (op.name, args)
    got, want = _both(O.POW, (f32,), {"exponent": 2.0})
    assert got == want
    got, want = _both(O.MUL, (f32, f32), {})  # an empty params dict: the fast path
    assert got == want
    with no_grad():
        got, want = _both(O.MUL, (f32, f64 * 1))
        assert got == want and "grad_fn" not in got
    leaf = _tensor([1.0, 2.0], np.float32, True)  # no AccumulateGrad yet: each call makes one
    assert _both(O.SIN, (leaf,))[0]["grad_fn"].keys() == _both(O.SIN, (leaf,))[1]["grad_fn"].keys()
    with detect_anomaly():
        got, want = _both(O.MUL, (f32, f32))
    assert got == want


@needs_record
def test_numbers_at_the_edge_of_exact_ints() -> None:
    """Python ints just inside and outside +-2**53 (the fast path takes only the inside)."""
    t = _tensor([1.0, 3.0], np.float64, True)
    for n in (2 ** 53 - 1, 2 ** 53, -(2 ** 53) + 1, -(2 ** 53), 2 ** 64, -(2 ** 70), 0):
        for args in ((t, n), (n, t)):
            got, want = _both(O.MUL, args)
            assert got == want, n


@needs_record
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([O.ADD, O.SUB, O.MUL, O.DIV, O.TANH, O.EXP, O.SIN,
                                           O.SIGMOID, O.NEG]),
                          st.sampled_from(["t", "x", "n"]), st.booleans()),
                min_size=1, max_size=12),
       st.sampled_from(DTYPES))
def test_random_chains_record_the_same_graph(steps: list, dtype: Any) -> None:
    """A random chain of ops, each applied by both paths to the same inputs (the chain goes on
    from the Python one's output): the same state at each step."""
    y = _tensor([0.3, -0.7, 1.1], dtype, True)
    x = _tensor([0.9, 0.4, -0.2], dtype, False)
    for op, other, swap in steps:
        if len(op.inputs) == 1:
            args: tuple = (y,)
        else:
            b = y if other == "t" else x if other == "x" else 0.75
            args = (b, y) if swap else (y, b)
        got, want = _both(op, args)
        assert got == want, (op.name, other, swap)
        y = record._python_apply(op, args)


def _inplace_both(op: Any, make: Any, args: Any, params: dict | None = None) -> tuple:
    """(the compiled apply_inplace's outcome, the Python one's), each on fresh tensors from
    ``make()`` (the target) and ``args(target)``: the result (the target itself or an error),
    every slot of the target, and what the run's context remembers of its version."""
    results = []
    for fn in (record.apply_inplace, record._python_apply_inplace):
        with use(RunContext(get_backend("numpy", "float32"))) as ctx:
            ctx.free_tag = ("the statement", 3)
            target = make()
            given = args(target)
            try:
                out = fn(op, target, given) if params is None else \
                    fn(op, target, given, params)
            except Exception as err:  # noqa: BLE001 (an update PyTorch refuses fails alike)
                outcome: Any = ("error", type(err).__name__, str(err))
            else:
                outcome = "target" if out is target else _tensor_state(out, given)
            remembered = {k - id(target._vc): (v[0] is target._vc, v[1])
                          for k, v in ctx.inplace_at.items()}
            results.append((outcome, _fresh(_tensor_state(target, given)), remembered))
    return results[0], results[1]


def _fresh(state: Any) -> Any:
    """A state of objects each call made afresh (backends, other tensors and nodes): equal,
    not identical, between the two calls."""
    if isinstance(state, dict):
        return {k: _fresh(v) for k, v in state.items()}
    if isinstance(state, tuple):
        return "object" if state[:1] == ("object",) else tuple(_fresh(v) for v in state)
    if state.__class__.__name__ == "Backend":
        return state.name
    return "function" if callable(state) else state


@needs_record
def test_inplace_updates_leave_the_same_state() -> None:
    """apply_inplace's plain path compiled (an update that records nothing) against the
    Python one, and every update it hands on: the same values, version, remembered statement
    and errors."""
    def leaf(dtype: Any = np.float32, requires_grad: bool = False, values: Any = None) -> Any:
        return lambda: _tensor([0.5, -1.25, 2.0] if values is None else values, dtype,
                               requires_grad)

    same = lambda t: (_tensor([0.25, 2.0, -3.0], t.data.dtype, False),)
    cases = [(op, make, args) for op in (O.ADD, O.SUB, O.MUL, O.DIV) for make in (
        leaf(), leaf(np.float64), leaf(np.int64, values=[1, 2, 3]),
        leaf(requires_grad=True)) for args in (
        same, lambda t: (0.5,), lambda t: (3,), lambda t: (2 ** 53,), lambda t: (True,),
        lambda t: (_tensor([1.0, 2.0, 3.0], np.float64, False),),  # another dtype
        lambda t: (_tensor([2.0], t.data.dtype, False),),  # a broadcast
        lambda t: (_tensor([1.0, 2.0, 3.0], t.data.dtype, True),),  # an input that needs grad
        lambda t: (np.float32(2.0),), lambda t: ("text",))]
    cases += [(O.ZERO, leaf(), lambda t: ()), (O.ZERO, leaf(np.int64, values=[1, 2]),
                                                lambda t: ()),
              (O.MUL, leaf(), lambda t: same(t) * 2)]
    for op, make, args in cases:
        got, want = _inplace_both(op, make, args)
        assert got == want, (op.name, make().data.dtype, args(make()))
        with no_grad():
            got, want = _inplace_both(op, make, args)
        assert got == want, ("no_grad", op.name, make().data.dtype, args(make()))
    # params (the general path), a read-only broadcast array, a view of another tensor
    assert _inplace_both(O.ADD_ALPHA, leaf(), same, {"alpha": 2.0})[0] == \
        _inplace_both(O.ADD_ALPHA, leaf(), same, {"alpha": 2.0})[1]
    read_only = lambda: Tensor(np.broadcast_to(np.float32(1.0), (3,)),
                               get_backend("numpy", "float32"))
    got, want = _inplace_both(O.ADD, read_only, same)
    assert got == want and got[0][0] == "error"
    with no_grad():
        got, want = _inplace_both(O.MUL, lambda: _tensor([1.0, 2.0, 3.0], np.float32, False)[1:],
                                  lambda t: (2.0,))
    assert got == want and got[1]["_base"] == "object"


@contextlib.contextmanager
def _python_loop() -> Iterator[None]:
    """autograd.py's own loop (with Node.apply and Node.free) for the duration."""
    saved, autograd._loop = autograd._loop, None
    try:
        yield
    finally:
        autograd._loop = saved


def _graph(out: Tensor) -> list:
    """Every node of out's graph, its own first."""
    nodes, stack = [], [out.grad_fn]
    while stack:
        n = stack.pop()
        if n is not None and n not in nodes:
            nodes.append(n)
            stack.extend(n.edges)
    return nodes


def _backward_state(fn: Any, values: list, retain: bool) -> tuple:
    """The leaves' gradients (bits) after a backward of sum(fn(*leaves)), and each node's state
    after it (saved values freed or not)."""
    with use(RunContext(get_backend("numpy", "float64"))) as ctx:
        ctx.free_tag = ("the statement that freed", 7)  # what freed nodes keep, for hints
        leaves = [F.param(np.asarray(v, dtype=np.float64).tolist()) for v in values]
        out = fn(*leaves)
        loss = out.sum() if out.data.ndim else out
        nodes = _graph(loss)
        loss.backward(retain_graph=retain)
        grads = [_array_state(leaf.grad.data) if leaf.grad is not None else None
                 for leaf in leaves]
        freed = [(type(n).__name__, n.freed, n.freed_by,
                  {k: v if not isinstance(v, tuple) or not v or not hasattr(v[0], "shape")
                   else "kept" for k, v in n.saved.items()})
                 for n in nodes]
        return grads, freed


@needs_loop
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_every_op_backward_matches_the_python_loop(case: tuple) -> None:
    """test_engine's case for every op of the table: the gradients bit for bit and the nodes
    freed the same, with and without retain_graph."""
    _, fn, values = case
    for retain in (False, True):
        compiled = _backward_state(fn, values, retain)
        with _python_loop():
            python = _backward_state(fn, values, retain)
        assert compiled == python


@needs_loop
def test_mixed_dtypes_and_broadcasts_match_the_python_loop() -> None:
    """Gradients cast back to each input's dtype (a float32 leaf times a float64 one), summed
    down a broadcast, of a variadic op (its formulas take the input's index) and of an op with
    params: bit for bit, and the nodes freed the same."""
    def state() -> tuple:
        with use(RunContext(get_backend("numpy", "float32"))) as ctx:
            ctx.free_tag = ("the statement that freed", 9)
            a = F.param([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]])
            b = Tensor(np.asarray([0.3, 1.7, -2.2]), get_backend("numpy", "float32"))
            b.requires_grad = True  # float64
            c = F.param([0.1, 0.2, 0.3])
            y = a * b + c  # float32 * float64: AddBackward0 of float64, MulBackward0's dtypes
            z = F.cat([y, F.tanh(a) ** 3], 0)
            loss = F.sum(z * z)
            nodes = _graph(loss)
            loss.backward()
            return ([_array_state(t.grad.data) for t in (a, b, c)],
                    [(type(n).__name__, n.freed, n.freed_by, sorted(n.saved.items()) if
                      n.freed else sorted(n.saved)) for n in nodes])

    compiled = state()
    with _python_loop():
        python = state()
    assert compiled == python
    assert compiled[0][1][1] == "<f8"  # b's gradient stayed float64


@needs_loop
def test_backward_errors_match_the_python_loop() -> None:
    """A second backward through freed values, and a saved tensor modified in place: the same
    errors from both loops."""
    def errors() -> list:
        found = []
        with use(RunContext(get_backend("numpy", "float32"))):
            w = F.param([0.5, 1.5])
            y = (w * w).sum()
            y.backward()
            try:
                y.backward()
            except GradcliError as err:
                found.append(str(err))
            a = F.param([1.0, 2.0]) * 1
            z = (a * a).sum()
            with no_grad():
                a.data[0] = 3.0
            a._vc[0] += 1
            try:
                z.backward()
            except GradcliError as err:
                found.append(str(err))
        return found

    compiled = errors()
    with _python_loop():
        python = errors()
    assert len(compiled) == 2 and compiled == python


def _planning(pool_ops: list, n_targets: int, n_roots: int) -> tuple:
    """A random graph over two leaves, a constant and a detached value (ops picking operands
    from the pool made so far), and autograd's planning of it: the walks without and with
    targets and the plan, as lists (the dicts' order kept)."""
    with use(RunContext(get_backend("numpy", "float64"))):
        pool = [F.param([0.5, -1.5]), F.param([2.0, 0.25]), F.tensor([1.0, 3.0])]
        pool.append((pool[0] * 2).detach())
        for op, i, j in pool_ops:
            a, b = pool[i % len(pool)], pool[j % len(pool)]
            pool.append(op(a, b) if op is not F.tanh else op(a))
        graded = [t for t in pool if t.requires_grad]
        roots = [t.grad_fn or autograd.edge(t) for t in graded[-n_roots:]] * 2  # repeated roots
        targets = {autograd.edge(t) if t.is_leaf else t.grad_fn for t in graded[:n_targets]}
        counts = list(autograd._counts(roots).items())
        reach = autograd._reach(roots)
        needed, deps, masks, run = autograd._plan(reach, targets, set(roots))
        names = {n: k for k, n in enumerate(reach)}  # the nodes by their place in the walk
        names.update({n: -1 - k for k, n in enumerate(sorted(targets - reach.keys(),
                                                             key=lambda n: n.seq))})
        return ([names[n] for n, _ in counts], [c for _, c in counts], len(names),
                sorted(names[n] for n in needed),
                [(names[n], c) for n, c in deps.items()],
                [(names[n], m) for n, m in masks.items()], [names[n] for n in run])


@needs_loop
@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([F.add, F.mul, F.sub, F.tanh]),
                          st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=25),
       st.integers(1, 4), st.integers(1, 3))
def test_backward_planning_matches_the_python_walks(pool_ops: list, n_targets: int,
                                                    n_roots: int) -> None:
    """_backward.c's counts, reach and plan against autograd.py's loops: the same nodes in the
    same order, the same dependency counts, masks (a constant operand's False, a branch that
    leads to no target) and nodes to run, on random graphs with shared values and targets
    among the leaves and the intermediate nodes."""
    compiled = _planning(pool_ops, n_targets, n_roots)
    with _python_loop():
        python = _planning(pool_ops, n_targets, n_roots)
    assert compiled == python
