"""Blocks that run more than once, compiled once into closures.

A loop's body, and a function's from its second call, run as one closure per statement and per
expression, made here from the program's nodes, instead of the tree walk of
``Interpreter.exec_stmt`` and ``Evaluator.eval``: each node's kind is decided once, its fields
read once, its operator's tables looked up once.  A compiled block runs through
``Interpreter.exec_block`` with its statements' closures: steps counted, each statement's span
marked and errors placed as for the walker's.  What a closure does is the interpreter's own: names bound by
``bind``, attributes read by ``attribute``, calls made by ``call_site``, operators by
``binary``; a node of any kind not compiled here runs through the tree walker from its
closure.  Loops (``for``, ``while``), ``with`` and ``x.attr op= value`` exist only here: the tree
walker compiles such a statement where it meets it.

While a profiler times statements (an ``exec_stmt`` of the instance's own), each statement of a
compiled block runs through it.
"""

from __future__ import annotations

from typing import Any

from ..engine import Tensor
from ..errors import GradcliError, ScriptError
from ..language import program as P
from .expressions import compared
from .printing import type_name
from .pyprotocols import items_of, truth


class Break(Exception):
    """``break``: leaves the innermost loop."""


class Continue(Exception):
    """``continue``: goes on with the innermost loop's next iteration."""


class Return(Exception):
    """``return value``: leaves the function."""

    def __init__(self, value: Any) -> None:
        self.value = value


def block(it: Any, body: tuple, top: bool) -> Any:
    """``body`` compiled: a function of the scope that runs it (``Interpreter.exec_block``
    with a closure per statement).

    Closures all the way down (never ``functools.partial``): a call from one Python function
    to another takes no C stack, so a deep recursion of the script's functions meets
    Python's recursion limit as the walker's does, not the C stack's end."""
    if not body:
        return _nothing
    # while a profiler times statements (an exec_stmt of the instance's own), the walker's
    runs = None if "exec_stmt" in it.__dict__ else tuple(statement(it, s, top) for s in body)
    exec_block = it.exec_block

    def run(scope: dict) -> None:
        exec_block(body, scope, top, runs)
    return run


def _nothing(scope: dict) -> None:
    return None


def _walked(exec_stmt: Any, s: Any, top: bool) -> Any:
    def walked(scope: dict) -> None:
        exec_stmt(s, scope, top)
    return walked


def statement(it: Any, s: Any, top: bool) -> Any:
    """One statement compiled: a function of the scope."""
    cls = s.__class__
    if cls is P.Assign and s.target not in it.overrides and not (s.literal and it.leaves):
        return _assign(it.bind, s.target, expression(it, s.value), top)
    if cls is P.ExprStmt:
        return expression(it, s.value)
    if cls is P.AugAssign:
        return _aug_assign(it, s.target, s.op, expression(it, s.value), s.span, top)
    if cls is P.If:
        return _if(tuple((expression(it, c), block(it, b, top)) for c, b in s.branches),
                   block(it, s.orelse, top))
    if cls is P.For:
        return _for(it, s.target, expression(it, s.iter), block(it, s.body, top),
                    block(it, s.orelse, top), top)
    if cls is P.While:
        return _while(it, expression(it, s.test), block(it, s.body, top),
                      block(it, s.orelse, top), s.span)
    if cls is P.With:
        return _with(it, expression(it, s.context), s.target, block(it, s.body, top), top)
    if cls is P.AugAssignTo:
        t = s.target
        if t.__class__ is P.Attribute:
            return _aug_attribute(it, expression(it, t.value), t.attr, t.span, s.op,
                                  expression(it, s.value))
        return _aug_item(it, expression(it, t.value), _index(it, t.index), s.op,
                         expression(it, s.value))
    if cls is P.Return and s.value is not None:
        return _return(expression(it, s.value))
    return _walked(it.exec_stmt, s, top)


def _assign(bind: Any, name: str, value: Any, top: bool) -> Any:
    def assign(scope: dict) -> None:
        bind(name, value(scope), scope, top)
    return assign


def _aug_assign(it: Any, name: str, op: str, value: Any, span: Any, top: bool) -> Any:
    def aug_assign(scope: dict) -> None:
        current = scope[name] if name in scope else it.lookup(name, scope, span)
        new = it.inplace(op, current, value(scope))
        if new is not current:
            it.bind(name, new, scope, top)
    return aug_assign


def _if(branches: tuple, orelse: Any) -> Any:
    def if_(scope: dict) -> None:
        for cond, body in branches:
            if truth(cond(scope)):
                body(scope)
                return
        orelse(scope)
    return if_


def _for(it: Any, target: Any, iterable: Any, body: Any, orelse: Any, top: bool) -> Any:
    name = target.id if target.__class__ is P.Name else None

    def for_(scope: dict) -> None:
        bind = it.bind
        for item in items_of(iterable(scope)):
            if name is not None:
                bind(name, item, scope, top)
            else:
                it.assign(target, item, scope, top)
            if not _iteration(body, scope):
                return
        orelse(scope)
    return for_


def _while(it: Any, test: Any, body: Any, orelse: Any, span: Any) -> Any:
    def while_(scope: dict) -> None:
        # each test counts as a step, so `while True: pass` meets the step limit too
        while truth(test(scope)):
            it.steps += 1
            if it.steps > it.max_steps:
                raise it.step_limit(span)
            if not _iteration(body, scope):
                return
        orelse(scope)
    return while_


def _iteration(body: Any, scope: dict) -> bool:
    """One pass of a loop's body; False when it ends with ``break``."""
    try:
        body(scope)
    except Break:
        return False
    except Continue:
        pass
    return True


def _with(it: Any, context: Any, target: Any, body: Any, top: bool) -> Any:
    def with_(scope: dict) -> None:
        ctx = context(scope)
        enter = getattr(type(ctx), "__enter__", None)
        exit_ = getattr(type(ctx), "__exit__", None)
        if enter is None or exit_ is None or isinstance(ctx, (Tensor, type)):
            raise ScriptError(f"'{type_name(ctx)}' object does not support the context "
                              "manager protocol", kind="TypeError")
        value = ctx.__enter__()
        if it.ctx.warnings:  # the header's (detect_anomaly()), not its first statement's
            it.drain()
        try:
            if target is not None:
                it.assign(target, value, scope, top)
            body(scope)
        finally:
            ctx.__exit__(None, None, None)
    return with_


def _aug_attribute(it: Any, obj: Any, attr: str, span: Any, op: str, value: Any) -> Any:
    def aug_attribute(scope: dict) -> None:
        o = obj(scope)
        current = it.attribute(o, attr, span)
        it.set_attribute(o, attr, it.inplace(op, current, value(scope)))
    return aug_attribute


def _aug_item(it: Any, obj: Any, index: Any, op: str, value: Any) -> Any:
    def aug_item(scope: dict) -> None:
        o = obj(scope)
        key = index(scope)
        current = it.item_of(o, key)
        it.set_item(o, key, it.inplace(op, current, value(scope)))
    return aug_item


def _return(value: Any) -> Any:
    def return_(scope: dict) -> None:
        raise Return(value(scope))
    return return_


# -- expressions ------------------------------------------------------------------------------
def expression(it: Any, e: Any) -> Any:
    """One expression compiled: a function of the scope that gives its value."""
    cls = e.__class__
    if cls is P.Name:
        return _name(it.lookup, e.id, e.span)
    if cls is P.Number or cls is P.String:
        return _constant(e.value)
    if cls is P.Binary:
        if e.right.__class__ is P.Number:  # x ** 2, i % 500: the number read once
            return _binary_number(it.binary, e.op, expression(it, e.left), e.right.value,
                                  e.span)
        return _binary(it.binary, e.op, expression(it, e.left), expression(it, e.right),
                       e.span)
    if cls is P.Call:
        func = e.func
        args = tuple(expression(it, a) for a in e.args)
        kwargs = tuple((k, expression(it, v)) for k, v in e.kwargs)
        if func.__class__ is P.Attribute:  # a method: found on its object
            return _method_call(it, expression(it, func.value), func.attr, func.span, args,
                                kwargs, e)
        return _call(it.call_site, expression(it, func), args, kwargs, e)
    if cls is P.Attribute:
        return _attribute(it.attribute, expression(it, e.value), e.attr, e.span)
    if cls is P.Subscript:
        return _subscript(it.item_of, expression(it, e.value), _index(it, e.index))
    if cls is P.Compare and len(e.ops) == 1:
        return _compare(e.ops[0], expression(it, e.operands[0]), expression(it, e.operands[1]))
    if cls is P.IfExp:
        return _if_exp(expression(it, e.test), expression(it, e.body), expression(it, e.orelse))
    return _walked_expression(it._EVAL[cls], it, e)


def _walked_expression(evaluate: Any, it: Any, e: Any) -> Any:
    def walked(scope: dict) -> Any:
        return evaluate(it, e, scope)
    return walked


def _name(lookup: Any, name: str, span: Any) -> Any:
    def read(scope: dict) -> Any:
        if name in scope:
            return scope[name]
        return lookup(name, scope, span)
    return read


def _constant(value: Any) -> Any:
    def constant(scope: dict) -> Any:
        return value
    return constant


def _binary(binary: Any, op: str, left: Any, right: Any, span: Any) -> Any:
    def binary_(scope: dict) -> Any:
        a = left(scope)
        b = right(scope)
        try:
            return binary(op, a, b)
        except GradcliError as err:  # the caret under the innermost call or operator
            if err.span is None:
                err.span = span
            raise
    return binary_


def _binary_number(binary: Any, op: str, left: Any, b: Any, span: Any) -> Any:
    def binary_number(scope: dict) -> Any:
        a = left(scope)
        try:
            return binary(op, a, b)
        except GradcliError as err:
            if err.span is None:
                err.span = span
            raise
    return binary_number


def _method_call(it: Any, obj: Any, attr: str, span: Any, args: tuple, kwargs: tuple,
                 e: Any) -> Any:
    def method_call(scope: dict) -> Any:
        fn = it.attribute(obj(scope), attr, span)
        return it.call_site(fn, [a(scope) for a in args],
                            {k: v(scope) for k, v in kwargs} if kwargs else {}, e)
    return method_call


def _call(call_site: Any, func: Any, args: tuple, kwargs: tuple, e: Any) -> Any:
    def call(scope: dict) -> Any:
        fn = func(scope)
        return call_site(fn, [a(scope) for a in args],
                         {k: v(scope) for k, v in kwargs} if kwargs else {}, e)
    return call


def _attribute(attribute: Any, obj: Any, attr: str, span: Any) -> Any:
    def read(scope: dict) -> Any:
        return attribute(obj(scope), attr, span)
    return read


def _subscript(item_of: Any, value: Any, index: Any) -> Any:
    def subscript(scope: dict) -> Any:
        v = value(scope)
        return item_of(v, index(scope))
    return subscript


def _index(it: Any, parts: tuple) -> Any:
    """The key of ``x[...]`` compiled (``Evaluator.index``): one value's, else the walker's."""
    if len(parts) == 1 and parts[0].__class__ is not P.Slice:
        return expression(it, parts[0])
    index = it.index

    def walked(scope: dict) -> Any:
        return index(parts, scope)
    return walked


def _compare(op: str, left: Any, right: Any) -> Any:
    def compare(scope: dict) -> Any:
        a = left(scope)
        return compared(op, a, right(scope))
    return compare


def _if_exp(test: Any, body: Any, orelse: Any) -> Any:
    def if_exp(scope: dict) -> Any:
        return body(scope) if truth(test(scope)) else orelse(scope)
    return if_exp
