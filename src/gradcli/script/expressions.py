"""Evaluating expressions: names and scopes, operators, calls, subscripts, displays,
comprehensions, f-strings and super(), with Python's semantics and messages (attributes are
``attributes.py``'s).

``Evaluator`` is the expression half of ``interpreter.Interpreter`` (a mixin: both halves
share the run's state). Scopes are dicts; a function's or a comprehension's scope holds its
``Function`` (or ``ComprehensionScope``) under ``FUNCTION_KEY``, which links to the scope
around it, so closures see the enclosing function's names as Python's do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..api.namespace import missing
from ..engine import METHODS, Tensor
from ..engine.backend import NUMPY_CLASSES
from ..errors import GradcliError, ScriptError, Span
from ..language import program as P
from ..language.checks import target_names
from .attributes import Attributes
from .classes import SUPER, super_of
from .functions import FUNCTION_KEY, ComprehensionScope, Function
from .hints import did_you_mean
from .instances import ScriptObject, inplace_method
from .printing import type_name
from .pyprotocols import items_of, materialise, truth
from .values import (
    COMPARE,
    MAX_INT_BITS,
    MAX_SEQUENCE,
    NUMBER_OPERATORS,
    NUMBERS,
    NUMPY_OPERANDS,
    PYTHON_COMPARE,
    TENSOR_OPERATORS,
    arith,
    check_list,
    numpy_protocols,
    operator_error,
    tname,
    too_long,
)

_INPLACE = {"+": "add_", "-": "sub_", "*": "mul_", "/": "div_", "//": "floor_divide_",
            "%": "remainder_", "**": "pow_"}
_UNARY = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}
_UNSET = object()


def compared(op: str, left: Any, right: Any) -> Any:
    """``left op right`` with Python's semantics (NumPy's where an operand is NumPy's) and
    script-level errors."""
    try:
        if type(left) in NUMPY_OPERANDS or type(right) in NUMPY_OPERANDS:
            return COMPARE[op](left, right)
        return PYTHON_COMPARE[op](left, right)
    except OverflowError as exc:  # a tensor against a Python int beyond float range
        raise ScriptError(str(exc), kind="OverflowError") from None
    except TypeError:
        raise ScriptError(f"'{op}' not supported between instances of '{tname(left)}' "
                          f"and '{tname(right)}'", kind="TypeError") from None


class Evaluator(Attributes):
    """Expression evaluation for the interpreter (see the module docstring); attributes are
    ``attributes.Attributes``'."""

    globals: dict[str, Any]
    builtins: dict[str, Any]
    call_at: Span | None  # the call expression being called (Interpreter.call_function)
    printer: Any

    # -- names ----------------------------------------------------------------------------------
    def lookup(self, name: str, scope: dict, span: Span | None) -> Any:
        """A name's value: the scope, the scopes around it, the globals, the built-ins."""
        if name in scope:
            return scope[name]
        fn = scope.get(FUNCTION_KEY)
        if fn is not None:
            if name in fn.locals:
                raise ScriptError(f"cannot access local variable '{name}' where it is not "
                                  "associated with a value", kind="UnboundLocalError", span=span)
            outer = fn.closure
            while outer is not None and outer is not self.globals:
                if name in outer:
                    return outer[name]
                fn = outer.get(FUNCTION_KEY)
                if fn is None:
                    break
                if name in fn.locals:
                    raise ScriptError(f"cannot access free variable '{name}' where it is not "
                                      "associated with a value in enclosing scope",
                                      kind="NameError", span=span)
                outer = fn.closure
        if name in self.globals:
            return self.globals[name]
        if name in self.builtins:
            return self.builtins[name]
        raise ScriptError(f"name '{name}' is not defined", kind="NameError", span=span,
                          hint=None if name in ("torch", "F", "nn") else  # hints.hint_for
                          did_you_mean(name, [*scope, *self.globals, *self.builtins]))

    # -- expressions ----------------------------------------------------------------------------
    def eval(self, e: Any, scope: dict) -> Any:
        """Evaluate an expression."""
        cls = e.__class__
        if cls is P.Name:
            name = e.id
            if name in scope:
                return scope[name]
            return self.lookup(name, scope, e.span)
        if cls is P.Number or cls is P.String:
            return e.value
        if cls is P.Binary:  # a name in scope or a number operand read here, without a call
            left = e.left
            if left.__class__ is P.Name and left.id in scope:
                left = scope[left.id]
            elif left.__class__ is P.Number:
                left = left.value
            else:
                left = self.eval(left, scope)
            right = e.right
            if right.__class__ is P.Name and right.id in scope:
                right = scope[right.id]
            elif right.__class__ is P.Number:
                right = right.value
            else:
                right = self.eval(right, scope)
            op, ca, cb = e.op, left.__class__, right.__class__
            try:
                # a tensor's operator method at once (binary's fast path, inline: a grad
                # script's lines are mostly these, each run once by this walker)
                if ca is Tensor and (cb is Tensor or cb in NUMBERS) or \
                        (cb is Tensor and ca in NUMBERS):
                    method = TENSOR_OPERATORS[op][ca is not Tensor]
                    if method is not None:
                        try:
                            result = method(left, right) if ca is Tensor else \
                                method(right, left)
                        except (ValueError, ZeroDivisionError, OverflowError, TypeError) as exc:
                            raise operator_error(exc, op, left, right, op) from None
                        if result is not NotImplemented:
                            return result
                    return arith(op, left, right)
                return self.binary(op, left, right)
            except GradcliError as err:  # the caret under the innermost call or operator
                if err.span is None:
                    err.span = e.span
                raise
        if cls is P.Call:
            func = e.func
            if func.__class__ is P.Attribute:  # a method: its object read here, as below
                obj = func.value
                if obj.__class__ is P.Name and obj.id in scope:
                    obj = scope[obj.id]
                else:
                    obj = self.eval(obj, scope)
                fn = self.attribute(obj, func.attr, func.span)
            elif func.__class__ is P.Name:  # (a built-in's: lookup without eval)
                fn = scope[func.id] if func.id in scope else self.lookup(func.id, scope, func.span)
            else:
                fn = self.eval(func, scope)
            args = e.args  # (a comprehension is a call of its own: none for 0 or 1 items)
            values = [self.eval(a, scope) for a in args] if len(args) > 1 else \
                [self.eval(args[0], scope)] if args else []
            kwargs = {k: self.eval(v, scope) for k, v in e.kwargs} if e.kwargs else {}
            return self.call_site(fn, values, kwargs, e)
        if cls is P.Attribute:  # a name in scope read here, without a call
            obj = e.value
            if obj.__class__ is P.Name and obj.id in scope:
                return self.attribute(scope[obj.id], e.attr, e.span)
            return self.attribute(self.eval(obj, scope), e.attr, e.span)
        return self._EVAL[cls](self, e, scope)

    def binary(self, op: str, left: Any, right: Any) -> Any:
        """``left op right`` of two values (a binary operator's, evaluated): two Python
        numbers at once, a tensor's operator method at once, else ``values.arith``."""
        ca, cb = left.__class__, right.__class__
        if (ca is int or ca is float) and (cb is int or cb is float) and \
                op in NUMBER_OPERATORS:  # two Python numbers: Python's result, checked
            try:
                result = NUMBER_OPERATORS[op](left, right)
            except ArithmeticError:  # arith() below raises it as the script's error
                pass
            else:
                if result.__class__ is not int or result.bit_length() <= MAX_INT_BITS:
                    return result
        if ca is Tensor and (cb is Tensor or cb in NUMBERS) or (cb is Tensor and ca in NUMBERS):
            method = TENSOR_OPERATORS[op][ca is not Tensor]  # the tensor's at once
            if method is not None:
                try:
                    result = method(left, right) if ca is Tensor else method(right, left)
                except (ValueError, ZeroDivisionError, OverflowError, TypeError) as exc:
                    raise operator_error(exc, op, left, right, op) from None
                if result is not NotImplemented:
                    return result
        elif op == "%" and ca is str:
            return self.printer.percent(left, right)
        return arith(op, left, right)

    def call_site(self, fn: Any, args: list, kwargs: dict, e: P.Call) -> Any:
        """Call ``fn`` (evaluated) from the call expression ``e``: a script function called
        here is called from ``e``, and an error without a place is placed at it."""
        self.call_at = e.span
        try:
            return self.call_value(fn, args, kwargs, e.func)
        except GradcliError as err:  # the caret under the innermost call or operator
            if err.span is None:
                err.span = e.span
            raise
        finally:
            self.call_at = None

    def _unary(self, e: P.Unary, scope: dict) -> Any:
        v = self.eval(e.operand, scope)
        if e.op == "not":
            return not truth(v)
        if v.__class__ in NUMPY_CLASSES:
            return numpy_protocols().unary(e.op, v)
        if isinstance(v, ScriptObject):
            return getattr(v, _UNARY[e.op])()
        if isinstance(v, (int, float)) or (isinstance(v, Tensor) and
                                           hasattr(Tensor, _UNARY[e.op])):
            try:
                return -v if e.op == "-" else +v if e.op == "+" else ~v
            except TypeError:  # ~ of a float
                pass
        raise ScriptError(f"bad operand type for unary {e.op}: '{tname(v)}'", kind="TypeError")

    def _list(self, e: P.ListExpr, scope: dict) -> list:
        return check_list(self._items(e.items, scope))

    def _tuple(self, e: P.Tuple, scope: dict) -> tuple:
        items = self._items(e.items, scope)
        if len(items) > MAX_SEQUENCE:
            raise too_long(len(items))
        return tuple(items)

    def _set(self, e: P.SetExpr, scope: dict) -> set:
        try:
            return set(self._items(e.items, scope))
        except TypeError as exc:
            raise ScriptError(str(exc), kind="TypeError") from None

    def _items(self, items: tuple, scope: dict) -> list:
        """A display's items, ``*iterable`` spliced in."""
        out: list = []
        for item in items:
            if item.__class__ is P.Starred:
                out.extend(materialise(self, self.eval(item.value, scope)))
                if len(out) > MAX_SEQUENCE:
                    raise too_long(len(out))
            else:
                out.append(self.eval(item, scope))
        return out

    def _dict(self, e: P.DictExpr, scope: dict) -> dict:
        out: dict = {}
        try:
            for k, v in zip(e.keys, e.values):
                if k is None:
                    mapping = self.eval(v, scope)
                    if not isinstance(mapping, dict):
                        raise ScriptError(f"'{type_name(mapping)}' object is not a mapping",
                                          kind="TypeError")
                    out.update(mapping)
                else:
                    key = self.eval(k, scope)
                    out[key] = self.eval(v, scope)
        except TypeError as exc:  # an unhashable key
            raise ScriptError(str(exc), kind="TypeError") from None
        return out

    def _subscript(self, e: P.Subscript, scope: dict) -> Any:
        return self.item_of(self.eval(e.value, scope), self.index(e.index, scope))

    def index(self, parts: tuple, scope: dict) -> Any:
        """The key of ``x[...]``: one value, or a tuple for ``x[a, b]``; slices as slice()."""
        keys = []
        for k in parts:
            if k.__class__ is P.Slice:
                keys.append(slice(*(None if p is None else self.eval(p, scope)
                                    for p in (k.start, k.stop, k.step))))
            else:
                keys.append(self.eval(k, scope))
        return keys[0] if len(keys) == 1 else tuple(keys)

    def _compare(self, e: P.Compare, scope: dict) -> Any:
        ops, operands = e.ops, e.operands
        left = self.eval(operands[0], scope)
        if len(ops) == 1:  # the common comparison, without the chain's loop
            return compared(ops[0], left, self.eval(operands[1], scope))
        result: Any = True
        last = len(ops) - 1
        for i, op in enumerate(ops):
            right = self.eval(operands[i + 1], scope)
            result = compared(op, left, right)
            if i < last and not truth(result):  # a < b < c is (a < b) and (b < c)
                return result
            left = right
        return result

    def _if_exp(self, e: P.IfExp, scope: dict) -> Any:
        return self.eval(e.body if truth(self.eval(e.test, scope)) else e.orelse, scope)

    def _bool_op(self, e: P.BoolOp, scope: dict) -> Any:
        # as Python: the last operand is the result without being tested (``None or t``)
        stop = e.op == "or"
        for item in e.values[:-1]:
            v = self.eval(item, scope)
            if truth(v) == stop:
                return v
        return self.eval(e.values[-1], scope)

    def _call_unpack(self, e: P.CallUnpack, scope: dict) -> Any:
        fn = self.eval(e.func, scope)
        args: list = []
        for a in e.args:
            if a.__class__ is P.Starred:
                args.extend(materialise(self, self.eval(a.value, scope)))
            else:
                args.append(self.eval(a, scope))
        kwargs: dict = {}
        for k, v in e.kwargs:
            if k is not None:
                kwargs[k] = self.eval(v, scope)
                continue
            mapping = self.eval(v, scope)
            if not isinstance(mapping, dict):
                raise ScriptError(f"argument after ** must be a mapping, not "
                                  f"{type_name(mapping)}", kind="TypeError")
            for key, value in mapping.items():
                if not isinstance(key, str):
                    raise ScriptError("keywords must be strings", kind="TypeError")
                if key in kwargs:
                    raise ScriptError(f"got multiple values for keyword argument '{key}'",
                                      kind="TypeError")
                kwargs[key] = value
        return self.call_value(fn, args, kwargs, e.func)

    def _lambda(self, e: P.Lambda, scope: dict) -> Function:
        return self.make_function(e, scope)

    def _fstring(self, e: P.FString, scope: dict) -> str:
        out = []
        total = 0
        for p in e.parts:
            if p.__class__ is str:
                text = p
            else:
                v = self.printer.convert(self.eval(p.value, scope), p.conversion)
                spec = "" if p.spec is None else self._fstring(p.spec, scope)
                text = self.printer.format(v, spec)
            total += len(text)
            if total > MAX_SEQUENCE:
                raise too_long(total)
            out.append(text)
        return "".join(out)

    def _super(self, e: P.SuperCall, scope: dict) -> Any:
        """``super()``: the class of the method it is written in (the innermost enclosing
        function a class body defined) and that function's first argument."""
        found = self.lookup("super", scope, e.span)
        if found is not SUPER:  # a name of the script's own
            return self.call_value(found, [], {}, e)
        s, fn = scope, scope.get(FUNCTION_KEY)
        while fn is not None and fn.__class__ is not Function:  # out of comprehensions
            s = fn.closure
            fn = None if s is None else s.get(FUNCTION_KEY)
        if fn is None:
            raise ScriptError("super(): no arguments", kind="RuntimeError")
        p = fn.params
        if p.names:
            obj = s.get(p.names[0], _UNSET)
        else:
            obj = s[p.vararg][0] if p.vararg is not None and s.get(p.vararg) else _UNSET
        if obj is _UNSET:
            raise ScriptError("super(): no arguments" if not p.names and not p.vararg else
                              "super(): arg[0] deleted", kind="RuntimeError")
        owner = fn
        while owner is not None and owner.owner is None:
            outer = owner.closure
            owner = None if outer is None else outer.get(FUNCTION_KEY)
            if owner is not None and owner.__class__ is not Function:
                owner = None
        if owner is None:
            raise ScriptError("super(): __class__ cell not found", kind="RuntimeError")
        return super_of(owner.owner, obj)

    def _starred(self, e: P.Starred, scope: dict) -> Any:
        raise ScriptError("can't use starred expression here", kind="SyntaxError")

    # -- comprehensions -------------------------------------------------------------------------
    def _comprehension(self, e: P.Comprehension, scope: dict) -> Any:
        names = set()
        for g in e.generators:
            names.update(target_names(g.target))
        inner = {FUNCTION_KEY: ComprehensionScope(frozenset(names), scope)}
        first = self.eval(e.generators[0].iter, scope)  # in the enclosing scope, at once
        states = self._comp_states(e.generators, 0, first, inner)
        kind = e.kind
        if kind == "gen":
            return (self.eval(e.element, inner) for _ in states)
        if kind == "dict":
            out: Any = {}
            try:
                for _ in states:
                    key = self.eval(e.element, inner)
                    out[key] = self.eval(e.value, inner)
            except TypeError as exc:
                raise ScriptError(str(exc), kind="TypeError") from None
            return out
        items = [self.eval(e.element, inner) for _ in states]
        if kind == "list":
            return check_list(items)
        try:
            return set(items)
        except TypeError as exc:
            raise ScriptError(str(exc), kind="TypeError") from None

    def _comp_states(self, gens: tuple, i: int, iterable: Any, inner: dict) -> Iterator[None]:
        """Bind the loop names for each element, in order; yields once per element."""
        g = gens[i]
        last = i + 1 == len(gens)
        for item in items_of(iterable):
            self.tick()
            self.assign(g.target, item, inner, False)
            if all(truth(self.eval(c, inner)) for c in g.ifs):
                if last:
                    yield None
                else:
                    yield from self._comp_states(gens, i + 1, self.eval(gens[i + 1].iter, inner),
                                                 inner)

    # -- items ----------------------------------------------------------------------------------
    def item_of(self, obj: Any, key: Any) -> Any:
        """``obj[key]``."""
        if isinstance(obj, Tensor):
            if _has_numpy(key):  # t[np.int64(1)], t[np.array([0, 2])]: as PyTorch takes them
                key = numpy_protocols().tensor_key(key)
            try:
                return obj[key]
            except (TypeError, IndexError, ValueError) as exc:  # what the engine lets through
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
        if obj.__class__ in NUMPY_CLASSES:
            return numpy_protocols().getitem(obj, key)
        if isinstance(obj, (list, tuple, str, range, dict)):
            try:
                return obj[key]
            except KeyError:
                raise _key_error(key) from None
            except (IndexError, TypeError, ValueError) as exc:
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
        cls = obj.__class__
        if getattr(cls, "script_sequence", False) or getattr(cls, "script_subscript", False):
            try:  # nn.Sequential: model[0]; a deque; typing's List[int]
                return obj[key]
            except (IndexError, TypeError, ValueError) as exc:  # Python's own (a deque's)
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
        raise ScriptError(f"'{type_name(obj)}' object is not subscriptable", kind="TypeError")

    def set_item(self, obj: Any, key: Any, value: Any) -> None:
        """``obj[key] = value``; a tensor's through the engine's ``Tensor.__setitem__``."""
        if isinstance(obj, Tensor):
            if getattr(Tensor, "__setitem__", None) is None:
                raise ScriptError("gradcli does not support assigning into a tensor "
                                  "(x[i] = v) yet", kind="NotImplementedError")
            if _has_numpy(key) or value.__class__ in NUMPY_CLASSES:
                numpy = numpy_protocols()
                key, value = numpy.tensor_key(key), numpy.tensor_value(obj, value)
            obj[key] = value
            return
        if obj.__class__ is np.ndarray:
            numpy_protocols().setitem(obj, key, value)
            return
        if isinstance(obj, (list, dict)):
            try:
                obj[key] = value
            except (IndexError, TypeError, ValueError) as exc:
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
            if obj.__class__ is list and value.__class__ is list:
                check_list(obj)
            return
        if getattr(obj.__class__, "script_sequence", False):
            try:
                obj[key] = value
            except (IndexError, TypeError, ValueError) as exc:
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
            return
        raise ScriptError(f"'{type_name(obj)}' object does not support item assignment",
                          kind="TypeError")

    def del_item(self, obj: Any, key: Any) -> None:
        """``del obj[key]``."""
        if isinstance(obj, (list, dict)):
            try:
                del obj[key]
            except KeyError:
                raise _key_error(key) from None
            except (IndexError, TypeError) as exc:
                raise ScriptError(str(exc), kind=type(exc).__name__) from None
            return
        if isinstance(obj, ScriptObject):
            del obj[key]
            return
        raise ScriptError(f"'{type_name(obj)}' object doesn't support item deletion",
                          kind="TypeError")

    def inplace(self, op: str, current: Any, value: Any) -> Any:
        """``current op= value``: in place where Python or PyTorch updates in place."""
        if isinstance(current, ScriptObject):
            method = inplace_method(current, op)
            if method is not None:
                return self.call_value(method, [value], {})
        if isinstance(current, Tensor) and op in _INPLACE:
            if type(value) in NUMPY_CLASSES:
                if type(value) is np.ndarray:  # PyTorch declines: t = t + array
                    return arith(op, current, value, op + "=")
                value = value.item()  # a NumPy scalar: its number
            try:
                METHODS[_INPLACE[op]](current, value)
            except OverflowError as exc:  # a Python int beyond float range
                raise ScriptError(str(exc), kind="OverflowError") from None
            except TypeError:  # e.g. NumPy refuses - on the bool tensors comparisons make
                raise ScriptError(f"unsupported operand type(s) for {op}=: 'Tensor' and "
                                  f"'{tname(value)}'", kind="TypeError") from None
            except ScriptError as exc:
                if exc.kind != "TypeError":
                    raise
                # PyTorch's __iadd__ ... give NotImplemented for an operand they refuse with a
                # TypeError: Python tries ``current op value`` (the error names ``op=``)
                return arith(op, current, value, op + "=")
            return current
        if current.__class__ is list and op == "+":
            items = materialise(self, value)
            if len(current) + len(items) > MAX_SEQUENCE:
                raise too_long(len(current) + len(items))
            current.extend(items)
            return current
        if current.__class__ is list and op == "*":
            current[:] = arith("*", current, value)
            return current
        if current.__class__ is str and op == "%":
            return self.printer.percent(current, value)
        if type(current) is np.ndarray:  # in place, as NumPy's += (a shared tensor sees it)
            return numpy_protocols().binary(op, current, value, augmented=True)
        return arith(op, current, value, op + "=")


def _has_numpy(key: Any) -> bool:
    """Whether a tensor's index holds a NumPy value."""
    if key.__class__ is tuple or key.__class__ is list:
        return any(k.__class__ in NUMPY_CLASSES for k in key)
    return key.__class__ in NUMPY_CLASSES


def _key_error(key: Any) -> ScriptError:
    plain = isinstance(key, (str, int, float, bool, type(None), Tensor))
    err = ScriptError(repr(key) if plain else type_name(key), kind="KeyError")
    err.pyargs = (key,)  # type: ignore[attr-defined]
    return err


Evaluator._EVAL = {  # type: ignore[attr-defined]
    P.Unary: Evaluator._unary, P.ListExpr: Evaluator._list, P.Tuple: Evaluator._tuple,
    P.SetExpr: Evaluator._set, P.DictExpr: Evaluator._dict, P.Subscript: Evaluator._subscript,
    P.Compare: Evaluator._compare, P.IfExp: Evaluator._if_exp, P.BoolOp: Evaluator._bool_op,
    P.CallUnpack: Evaluator._call_unpack, P.Lambda: Evaluator._lambda,
    P.FString: Evaluator._fstring, P.Comprehension: Evaluator._comprehension,
    P.Starred: Evaluator._starred, P.SuperCall: Evaluator._super,
}

__all__ = ["Evaluator", "missing"]
