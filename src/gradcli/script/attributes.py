"""Attributes for the interpreter: what a script may read, assign and delete with
``obj.name`` on tensors, modules, the api's objects, Python's values, graph nodes (a custom
Function's ``ctx`` among them), and its own classes and objects (``classes``' routine).

``Attributes`` is the attribute half of ``expressions.Evaluator`` (a mixin: both share the
run's state). A name a script spells as a string (``getattr``, ``str.format``'s fields) is
checked against the sandbox's list first.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from ..api.namespace import (
    Module,
    object_attribute,
    set_tensor_attribute,
    tensor_attribute,
)
from ..api.nn_module import Module as NNModule
from ..api.types import TypeObject
from ..engine import Node, Tensor
from ..engine.backend import NUMPY_CLASSES
from ..engine.custom import FunctionNode
from ..errors import GradcliError, ScriptError, Span
from .classes import (
    NOT_FOUND,
    BoundMethod,
    PlainObject,
    ScriptClass,
    Super,
    api_class_attribute,
    class_attribute,
    delete_class_attribute,
    delete_instance_attribute,
    instance_attribute,
    refuse,
    set_class_attribute,
    set_instance_attribute,
)
from .exceptions import ExcValue
from .functions import Function
from .hints import none_grad
from .instances import ScriptObject
from .printing import node_name, type_name
from .pymethods import method as python_method
from .values import numpy_protocols

_NODE_ATTRIBUTES = frozenset({"name", "next_functions", "register_hook", "register_prehook",
                              "metadata", "requires_grad", "variable"})
_NOT_ALLOWED = object_attribute(None, "")  # what object_attribute says for a name it refuses
PYTHON_VALUES = frozenset({str, list, tuple, dict, set, int, float, bool,  # see pymethods
                           OrderedDict})


class Attributes:
    """Attribute access for the interpreter (see the module docstring)."""

    def attribute(self, obj: Any, attr: str, span: Span | None) -> Any:
        """``obj.attr`` for a script: only what the PyTorch surface and Python's documented
        methods offer."""
        try:
            if obj.__class__ is not Tensor:
                return self._attribute(obj, attr)
            value = tensor_attribute(obj, attr)
        except GradcliError as err:
            raise err.at(span) from None
        if span is not None:
            if attr == "grad" and value is None:  # why: a hint, trace, explain
                self._none_read = none_grad(self, obj, span)
            elif attr == "backward":
                self.last_backward = (span, obj)
        return value

    def attribute_of(self, obj: Any, attr: str) -> Any:
        """``obj.attr`` without a span (``"{0.grad}".format(x)``): a name the script spelt
        as a string, checked against the sandbox's list."""
        refuse(attr)
        return self._attribute(obj, attr)

    def _attribute(self, obj: Any, attr: str) -> Any:
        cls = obj.__class__
        if cls in PYTHON_VALUES:  # a list's append, a dict's get, ...: first, the common reads
            found = python_method(self, obj, attr)
            if found is not None:
                return found
            raise ScriptError(f"'{type_name(obj)}' object has no attribute '{attr}'",
                              kind="AttributeError")
        if isinstance(obj, Tensor):
            return tensor_attribute(obj, attr)
        if cls is Module:
            return obj.get(attr)
        if isinstance(obj, ScriptObject):
            return instance_attribute(obj, attr)
        if cls is ScriptClass and attr != "__name__":
            return class_attribute(obj, attr)
        if cls is Super:
            return obj.attribute(attr)
        if attr == "__name__":
            name = obj.name if isinstance(obj, (TypeObject, Function, Module, BoundMethod)) \
                else getattr(obj, "__name__", None) if callable(obj) else None
            if isinstance(name, str):
                return name
        elif attr == "__doc__" and isinstance(obj, (Function, BoundMethod)):
            return getattr(obj, "doc", None) if cls is Function else obj.function.doc
        elif isinstance(obj, Node):
            return self._node_attribute(obj, attr)
        elif isinstance(obj, ExcValue):
            if attr == "args":
                return obj.args
        elif cls in NUMPY_CLASSES or isinstance(obj, np.dtype):
            return numpy_protocols().attribute(obj, attr)
        elif attr in getattr(cls, "script_attributes", ()):
            return getattr(obj, attr)
        else:
            value = object_attribute(obj, attr)
            if value is not _NOT_ALLOWED:
                return value
        if isinstance(obj, TypeObject):
            if obj.classes and getattr(obj.classes[0], "script_subclassable", False):
                found = api_class_attribute(obj, attr)  # nn.Module.__init__, Function.apply
                if found is not NOT_FOUND:
                    return found
            raise ScriptError(f"type object '{obj.name}' has no attribute '{attr}'",
                              kind="AttributeError")
        member = getattr(cls, "script_member", None)  # nn modules: submodules by name, ...
        if member is not None:
            return member(obj, attr)
        raise ScriptError(f"'{type_name(obj)}' object has no attribute '{attr}'",
                          kind="AttributeError")

    def _node_attribute(self, node: Any, attr: str) -> Any:
        if node.__class__ is FunctionNode and attr not in _NODE_ATTRIBUTES:
            return _ctx_attribute(node, attr)
        if attr in _NODE_ATTRIBUTES or attr.startswith("_saved_"):
            try:
                value = getattr(node, attr)
            except AttributeError:
                value = None
                if attr.startswith("_saved_") and not hasattr(type(node), "saved_value"):
                    raise ScriptError(f"gradcli does not support grad_fn.{attr} yet",
                                      kind="NotImplementedError") from None
                raise ScriptError(f"'{node_name(node)}' object has no attribute '{attr}'",
                                  kind="AttributeError") from None
            if attr == "name" and isinstance(value, str):  # PyTorch's is a method: name()
                return lambda: value
            return value
        raise ScriptError(f"'{node_name(node)}' object has no attribute '{attr}'",
                          kind="AttributeError")

    def set_attribute(self, obj: Any, attr: str, value: Any) -> None:
        """``obj.attr = value``: the tensor attributes PyTorch lets a program assign, a script
        object's and class's attributes."""
        if isinstance(obj, Tensor):
            set_tensor_attribute(obj, attr, value)
            return
        if isinstance(obj, ScriptObject):
            set_instance_attribute(obj, attr, value)
            return
        if obj.__class__ is ScriptClass:
            set_class_attribute(obj, attr, value)
            return
        if obj.__class__ is PlainObject:  # object(): no attributes of its own
            raise ScriptError(f"'object' object has no attribute '{attr}'", kind="AttributeError")
        if obj.__class__ is FunctionNode:  # ctx.constant = c
            if attr in _CTX_ATTRIBUTES or attr in _NODE_ATTRIBUTES:
                raise ScriptError(f"attribute '{attr}' of '{node_name(obj)}' objects is not "
                                  "writable", kind="AttributeError")
            obj.attrs[attr] = value
            return
        if attr in getattr(obj.__class__, "script_settable", ()):
            setattr(obj, attr, value)
            return
        if obj.__class__ is Module:
            raise ScriptError(f"gradcli does not let a script change module '{obj.name}'",
                              kind="NotImplementedError")
        if obj.__class__ in PYTHON_VALUES:
            if python_method(self, obj, attr) is not None:
                raise ScriptError(f"'{type_name(obj)}' object attribute '{attr}' is read-only",
                                  kind="AttributeError")
            raise ScriptError(f"'{type_name(obj)}' object has no attribute '{attr}'",
                              kind="AttributeError")
        raise ScriptError(f"gradcli does not support assigning attributes of "
                          f"'{type_name(obj)}' objects", kind="NotImplementedError")

    def del_attribute(self, obj: Any, attr: str) -> None:
        """``del obj.attr``: a script object's or class's attribute."""
        if isinstance(obj, ScriptObject):
            delete_instance_attribute(obj, attr)
        elif obj.__class__ is ScriptClass:
            delete_class_attribute(obj, attr)
        elif isinstance(obj, Tensor) and attr == "grad":  # del x.grad: x.grad = None
            set_tensor_attribute(obj, attr, None)
        elif isinstance(obj, NNModule):  # a parameter, buffer or submodule: Module.__delattr__
            delattr(obj, attr)
        else:
            raise ScriptError(f"gradcli does not support deleting attributes of "
                              f"'{type_name(obj)}' objects ('{attr}')",
                              kind="NotImplementedError")



_CTX_ATTRIBUTES = frozenset({"save_for_backward", "save_for_forward", "saved_tensors",
                             "needs_input_grad", "mark_dirty", "mark_non_differentiable", "set_materialize_grads"})


def _ctx_attribute(node: FunctionNode, attr: str) -> Any:
    """What a custom Function's ``ctx`` (its node) offers, then what the program set on it."""
    if attr in _CTX_ATTRIBUTES:
        return getattr(node, "saved_values" if attr == "saved_tensors" else attr)
    try:
        return node.attrs[attr]
    except KeyError:
        raise ScriptError(f"'{node_name(node)}' object has no attribute '{attr}'",
                          kind="AttributeError") from None


__all__ = ["PYTHON_VALUES", "Attributes"]
