"""The op table: every differentiable op declared once.

Format, after PyTorch's ``tools/autograd/derivatives.yaml``::

    defop(NAME, GRAD_FN, INPUTS, FORWARD, FORMULA_FOR_INPUT_0, FORMULA_FOR_INPUT_1, ...)

* ``INPUTS`` are PyTorch's names of the tensor arguments (``self``, ``other``, ``mat2`` …).  A
  Python number passed in a tensor position is PyTorch's *wrapped number*: it is saved like a
  tensor (so ``x * 2`` saves ``other`` and a second backward fails).  Scalar arguments
  (``x ** 2``'s exponent, ``clamp``'s bounds, ``dim``) are keyword *params*, never saved tensors.
  An optional tensor input may be None (``nll_loss``'s ``weight``): it is saved as None, which
  listings skip and ``_saved_weight`` shows.  ``variadic=True`` makes the one input a list
  (``cat``'s ``tensors``): every tensor of the call is an input, with the same formula.
* A formula of None marks an input PyTorch calls *non_differentiable* (``where``'s condition,
  ``nll_loss``'s target): it takes no part in the dtype rule, keeps its dtype and must not
  require grad (PyTorch's "is not differentiable with respect to argument" error names
  ``aten``).  Its edge in a node is always None; PyTorch's ``next_functions`` leaves such
  inputs out (``Op.differentiable`` says which to show).
* ``FORWARD(xp, *inputs, **params)`` computes the result with Array API calls only.
* Each formula is a function whose parameter names say what it reads: ``grad`` (the incoming
  gradient), ``xp`` (the formula namespace, below), an input name or ``result`` (a saved tensor;
  ``result="inverse"`` names it as PyTorch's node does),
  ``self_shape`` (the first input's shape), ``position`` (which input the gradient is for,
  in a variadic op) or a param name (the forward's default where a call left it out).  What a node saves is derived from these names
  with PyTorch's rule: ``result`` always; an input read by one formula only is saved only when
  that formula's input needs grad; an input read by several formulas always.
* A formula's ``xp`` offers ``FORMULA_NAMES`` (below), every op of the table by its name (its
  forward), select_backward and slice_backward, ``zeros_of`` (constant zeros of a shape),
  ``expand_as``, ``const`` (an array as a constant operand) and ``raw``, the backend's own
  namespace for constants computed from non-differentiable saved tensors (masks, positions).
  Under ``create_graph=True`` these names are recorded ops (``functions.TENSOR_FORMULAS``; a
  table op without a surface is applied as it is), so every formula is itself differentiable
  and second derivatives work; a formula written with the ops PyTorch's formula uses records
  PyTorch's nodes (gather's gradient is a scatter_add).
* Broadcasting is undone by the engine (``graph.sum_to``), so formulas are plain math.
* ``kind``: "elementwise" ops keep their inputs' memory layout as PyTorch's TensorIterator
  does; "view" ops share data and version counter with their input.
* ``surface``: where a user calls the op by its name, among "torch" (``torch.atan(x)``),
  "Tensor" (``x.atan()``) and "F" (``torch.nn.functional.softplus(x)``).  A grad script has
  every surfaced op as a bare built-in.  Its scalar arguments are the forward's keyword
  parameters, with their defaults.  Ops with no surface are called through the hand-written
  dispatch in ``functions.py`` (``x * 2`` is ``mul``; ``a @ b`` is ``dot``, ``mv`` or ``mm``).
* ``domain``: the interval the op's tests draw inputs from (finite differences, PyTorch
  fixtures); None when the op has no surface of its own.
* ``dtype``: how the result's dtype follows PyTorch (``record.apply`` casts the inputs to it):
  "keep" the first input's dtype (views, ``neg``, ``abs``, ``relu``); "promote" PyTorch's
  type promotion over the inputs and the ``wrapped`` params (Python numbers that take part in
  it, as ``x ** 2.5``'s exponent); "float" the same, made the default float dtype when it comes
  out integral (``exp``, ``/``); "sum" integral and bool inputs summed as int64; "float_only"
  integral inputs are an error (``mean``); "float_kernel" the same, with PyTorch's
  NotImplementedError naming the CPU kernel ``aten`` (``gelu``); "no_bool" as "keep", with
  that error for a bool input (``trunc``'s ``trunc_vml_cpu``); "same" every input must have
  the same dtype (``mm``); "to" the ``dtype`` param.  A result of an integral dtype never
  requires grad; a gradient is cast back to each input's dtype.
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from . import kernels as K
from . import windows as W
from .backend import exact_kernels, index_put, strided_diagonal, take_flat
from .tensor import Tensor

OPS: dict[str, Op] = {}


class Op:
    """One entry of the table (see the module docstring)."""

    __slots__ = ("_reads", "aten", "defaults", "differentiable", "domain", "dtype_rule",
                 "formulas", "forward", "grad_fn", "inputs", "kind", "name", "params",
                 "params_saved", "plans", "readable", "reads_special", "result", "saves",
                 "surface", "variadic", "wrapped")

    def __init__(self, name: str, grad_fn: str, inputs: tuple[str, ...], forward: Callable | None,
                 formulas: tuple[Callable | None, ...], kind: str | None,
                 surface: tuple[str, ...] = (), domain: tuple[float, float] | None = None,
                 dtype: str = "keep", wrapped: tuple[str, ...] = (), variadic: bool = False,
                 aten: str | None = None, result: str = "result") -> None:
        if dtype not in DTYPE_RULES:
            raise ValueError(f"{name}: unknown dtype rule {dtype!r}")
        self.name = name
        self.result = result
        self.aten = aten or name
        self.dtype_rule = dtype
        self.wrapped = wrapped
        self.surface = surface
        self.domain = domain
        self.variadic = variadic
        self.params = _keyword_params(forward, 0 if variadic else len(inputs))
        self.defaults = dict(self.params)  # what a formula reads of a param a call left out
        self.grad_fn = grad_fn
        self.inputs = inputs
        self.forward = forward
        seq = _Repeating if variadic else tuple
        self.formulas = seq(
            None if f is None else (f, f.__code__.co_varnames[: f.__code__.co_argcount])
            for f in formulas
        )
        # per input: has a formula (takes part in the dtype rule, shows in next_functions)
        self.differentiable = seq(f is not None for f in formulas) if forward is not None \
            else seq(True for _ in formulas)
        self.kind = kind
        self.plans = seq(plans(self.formulas, inputs, result))
        self.saves: dict[tuple[bool, ...], tuple[tuple[str, int], ...]] = {}
        # for each saved-able name, the inputs whose formulas read it
        reads: dict[str, list[int]] = {}
        for i, f in enumerate(self.formulas):
            if f is not None:
                for nm in f[1]:
                    if nm in inputs or nm == result:
                        reads.setdefault(nm, []).append(i)
        self._reads = reads
        # What ``grad_fn._saved_<name>`` can show: saved tensors, scalar params, shapes read.
        self.readable = frozenset(reads)
        self.params_saved = frozenset(nm for nm, _ in self.params)
        self.reads_special = frozenset(nm for f in self.formulas if f is not None
                                       for nm in f[1] if nm == "self_shape")

    def saved_names(self, needs: tuple[bool, ...]) -> tuple[tuple[str, int], ...]:
        """(name, input index or -1 for result) of what a node saves, given which inputs need grad.

        PyTorch's codegen guards a saved input only when a single formula reads it and the op
        has more than one differentiable input; the output is saved unconditionally.
        """
        differentiable = sum(f is not None for f in self.formulas)
        out = []
        for nm, readers in self._reads.items():
            guarded = nm != self.result and differentiable > 1 and len(readers) == 1
            if guarded and not needs[readers[0]]:
                continue
            out.append((nm, -1 if nm == self.result else self.inputs.index(nm)))
        result = tuple(out)
        self.saves[needs] = result
        return result

    def __repr__(self) -> str:
        return f"Op({self.name}: {self.grad_fn})"


def _keyword_params(forward: Callable | None, n_inputs: int) -> tuple[tuple[str, Any], ...]:
    """The scalar parameters of a forward, after ``xp`` and the inputs: (name, default).

    A variadic forward (``xp, *tensors, dim``) has keyword-only params.
    """
    if forward is None:
        return ()
    code = forward.__code__
    names = code.co_varnames[1 + n_inputs: code.co_argcount]
    defaults = forward.__defaults__ or ()
    missing = len(names) - len(defaults)
    out = [(nm, defaults[i - missing] if i >= missing else REQUIRED) for i, nm in enumerate(names)]
    kwonly = code.co_varnames[code.co_argcount: code.co_argcount + code.co_kwonlyargcount]
    kwdefaults = forward.__kwdefaults__ or {}
    out += [(nm, kwdefaults.get(nm, REQUIRED)) for nm in kwonly]
    return tuple(out)


REQUIRED = object()  # a scalar parameter without a default


class _Repeating(tuple):
    """A variadic op's per-input entries: every input past the last uses the last one."""

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, int) and i >= len(self):
            i = len(self) - 1
        return tuple.__getitem__(self, i)


def plans(formulas: tuple, inputs: tuple[str, ...], result: str = "result") -> tuple:
    """Per formula, (function, ((kind, name), ...)): how the engine fills each parameter.

    Kinds: 0 the incoming gradient, 1 the formula namespace, 2 a saved tensor, 3 the first
    input's shape, 4 a param, 5 the input's position.  Computed once per op so a backward makes
    no string compares.
    """
    special = {"grad": 0, "xp": 1, "self_shape": 3, "position": 5}
    out = []
    for f in formulas:
        plan = None if f is None else tuple(
            (2, nm) if nm in inputs or nm == result else (special.get(nm, 4), nm) for nm in f[1])
        out.append(None if f is None else (f[0], GRAD_ONLY if plan == GRAD_ONLY else plan))
    return tuple(out)


GRAD_ONLY = ((0, "grad"),)  # the plan of a formula of the gradient alone, one shared object


DTYPE_RULES = ("keep", "no_bool", "promote", "float", "sum", "float_only", "float_kernel", "same",
               "to")


def defop(name: str, grad_fn: str, inputs: tuple[str, ...], forward: Callable | None,
          *formulas: Callable | None, kind: str | None = None, surface: tuple[str, ...] = (),
          domain: tuple[float, float] | None = None, dtype: str = "keep",
          wrapped: tuple[str, ...] = (), variadic: bool = False, aten: str | None = None,
          result: str = "result") -> Op:
    """Declare an op in the table."""
    if len(formulas) != len(inputs):
        raise ValueError(f"{name}: one formula per input")
    op = OPS[name] = Op(name, grad_fn, inputs, forward, formulas, kind, surface, domain, dtype,
                        wrapped, variadic, aten, result)
    return op


UNARY = ("torch", "Tensor")  # the surface of most elementwise functions
NN = ("F",)  # torch.nn.functional only


def _raw(x: Any) -> Any:
    """The array behind a tensor (masks in formulas are never differentiated)."""
    return x.data if x.__class__ is Tensor else x


def _where_eq(xp: Any, a: Any, b: Any) -> Any:
    a, b = _raw(a), _raw(b)
    return (a == b) | (xp_isnan(a) & xp_isnan(b))


def xp_isnan(a: Any) -> Any:
    """NaN mask that also works on Python numbers."""
    return a != a  # noqa: PLR0124 - NaN is the one value unequal to itself


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _scalar_log(b: float) -> float:
    if b > 0:
        return math.log(b)
    return -math.inf if b == 0 else math.nan


def _keep_dims(xp: Any, grad: Any, self_shape: tuple, dim: tuple | None, keepdim: bool) -> Any:
    """Broadcast a reduced gradient back over the reduced dimensions."""
    if dim is not None and not keepdim:
        kept = [1 if i in dim else d for i, d in enumerate(self_shape)]
        grad = xp.reshape(grad, tuple(kept))
    return xp.broadcast_to(grad, self_shape)


def _count(shape: tuple, dim: tuple | None) -> int:
    n = 1
    for i, d in enumerate(shape):
        if dim is None or i in dim:
            n *= d
    return n


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def _reverse_dims(xp: Any, g: Any) -> Any:
    nd = len(g.shape)
    return g if nd < 2 else xp.permute_dims(g, tuple(range(nd - 1, -1, -1)))


def _swap(n: int, d0: int, d1: int) -> tuple[int, ...]:
    perm = list(range(n))
    if n:  # 0-d: nothing to swap
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return tuple(perm)


def _index(dim: int, key: Any) -> tuple:
    return (slice(None),) * dim + (key, Ellipsis)


# --- arithmetic ---------------------------------------------------------------------------------
ADD = defop("add", "AddBackward0", ("self", "other"), lambda xp, self, other: self + other,
            lambda grad: grad,
            lambda grad: grad, kind="elementwise", dtype="promote")
SUB = defop("sub", "SubBackward0", ("self", "other"), lambda xp, self, other: self - other,
            lambda grad: grad,
            lambda grad: -grad, kind="elementwise", dtype="promote")
# add and sub with an alpha other than 1: ATen's add kernel, ``self + alpha * other`` with one
# fused multiply-add (K.add_alpha); other's gradient is maybe_multiply(grad, alpha)
ADD_ALPHA = defop("add_alpha", "AddBackward0", ("self", "other"),
                  lambda xp, self, other, alpha: K.add_alpha(xp, self, other, alpha),
                  lambda grad: grad,
                  lambda grad, alpha: grad if alpha == 1 else grad * alpha,
                  kind="elementwise", dtype="promote", aten="add")
SUB_ALPHA = defop("sub_alpha", "SubBackward0", ("self", "other"),
                  lambda xp, self, other, alpha: K.add_alpha(xp, self, other, -alpha),
                  lambda grad: grad,
                  lambda grad, alpha: -grad if alpha == 1 else -grad * alpha,
                  kind="elementwise", dtype="promote", aten="sub")
# C++ `tensor * Scalar` overloads: no wrapped tensor, nothing saved.  They appear in graphs that
# formulas build under create_graph=True (PyTorch's formulas are C++), see engine.formula_mode.
MUL_SCALAR = defop("mul_scalar", "MulBackward1", ("self",), lambda xp, self, other: self * other,
                   lambda grad, other: grad * other, kind="elementwise",
                   dtype="promote", wrapped=("other",))
DIV_SCALAR = defop("div_scalar", "DivBackward1", ("self",), lambda xp, self, other: self / other,
                   lambda grad, other: grad / other, kind="elementwise",
                   dtype="float", wrapped=("other",))
ADD_SCALAR = defop("add_scalar", "AddBackward1", ("self",), lambda xp, self, other: self + other,
                   lambda grad: grad, kind="elementwise", dtype="promote", wrapped=("other",))
SUB_SCALAR = defop("sub_scalar", "SubBackward1", ("self",), lambda xp, self, other: self - other,
                   lambda grad: grad, kind="elementwise", dtype="promote", wrapped=("other",))
RSUB = defop("rsub", "RsubBackward1", ("self",), lambda xp, self, other: other - self,
             lambda grad: -grad, kind="elementwise", dtype="promote", wrapped=("other",))
MUL = defop("mul", "MulBackward0", ("self", "other"), lambda xp, self, other: self * other,
            lambda grad, other: grad * other,
            lambda grad, self: grad * self, kind="elementwise", dtype="promote")
DIV = defop("div", "DivBackward0", ("self", "other"), lambda xp, self, other: self / other,
            lambda grad, other: grad / other,
            lambda grad, self, other: -grad * ((self / other) / other), kind="elementwise",
            dtype="float")
RECIPROCAL = defop("reciprocal", "ReciprocalBackward0", ("self",), lambda xp, self: 1.0 / self,
                   lambda grad, result: -grad * (result * result), kind="elementwise",
                   surface=UNARY, domain=(0.3, 3), dtype="float")
def _neg(xp: Any, self: Any) -> Any:
    if self.dtype == xp.bool:
        raise ScriptError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                          "are trying to invert a mask, use the `~` or `logical_not()` operator "
                          "instead.")
    return -self


NEG = defop("neg", "NegBackward0", ("self",), _neg,
            lambda grad: -grad, kind="elementwise")
# NOTE: pow's derivative is 0 where the exponent is 0, even at self = 0 (as PyTorch).
POW = defop("pow", "PowBackward0", ("self",),
            lambda xp, self, exponent: K.power(xp, self, exponent),
            lambda xp, grad, self, exponent: xp.zeros_like(grad) if exponent == 0
            else grad * (exponent * xp.power(self, exponent - 1)), kind="elementwise",
            dtype="promote", wrapped=("exponent",))
POW_TENSOR = defop(
    "pow_tensor", "PowBackward1", ("self", "exponent"),
    lambda xp, self, exponent: self ** exponent,
    lambda xp, grad, self, exponent: xp.where(_raw(exponent) == 0.0, 0.0,
                                              grad * (exponent * self ** (exponent - 1))),
    lambda xp, grad, self, exponent, result: xp.where(
        (_raw(self) == 0.0) & (_raw(exponent) >= 0.0), 0.0, grad * (result * xp.log(self))),
    kind="elementwise", dtype="promote")


def _pow_base_grad(xp: Any, grad: Any, exponent: Any, result: Any, base: float) -> Any:
    if base == 0:
        return grad * xp.where(_raw(exponent) >= 0.0, 0.0, result * _scalar_log(base))
    return grad * (result * _scalar_log(base))


POW_SCALAR_BASE = defop("pow_scalar_base", "PowBackward2", ("exponent",),
                        lambda xp, exponent, base: base ** exponent, _pow_base_grad,
                        kind="elementwise", dtype="promote", wrapped=("base",))
# `tensor % number` is RemainderBackward0 (the gradient passes as is); `tensor % tensor` is
# RemainderBackward1, whose `other` gradient is -grad * floor(self / other).
REMAINDER_SCALAR = defop("remainder_scalar", "RemainderBackward0", ("self",),
                         lambda xp, self, other: xp.remainder(self, other),
                         lambda grad: grad, kind="elementwise", dtype="promote", wrapped=("other",))
REMAINDER = defop("remainder", "RemainderBackward1", ("self", "other"),
                  lambda xp, self, other: xp.remainder(self, other),
                  lambda grad: grad,
                  lambda xp, grad, self, other: -grad * xp.floor(self / other),
                  kind="elementwise", dtype="promote")


def _no_derivative(name: str) -> Any:
    raise ScriptError(f"derivative for aten::{name} is not implemented")


# NOTE: PyTorch records floor division with a NotImplemented node: the graph has it, and a
# backward through it fails.
FLOOR_DIVIDE = defop("floor_divide", "NotImplemented", ("self", "other"),
                     lambda xp, self, other: xp.floor_divide(self, other),
                     lambda grad: _no_derivative("floor_divide"),
                     lambda grad: _no_derivative("floor_divide"), kind="elementwise",
                     dtype="promote")
FLOOR_DIVIDE_SCALAR = defop("floor_divide_scalar", "NotImplemented", ("self",),
                            lambda xp, self, other: xp.floor_divide(self, other),
                            lambda grad: _no_derivative("floor_divide"), kind="elementwise",
                            dtype="promote", wrapped=("other",))
MAXIMUM = defop(
    "maximum", "MaximumBackward0", ("self", "other"), lambda xp, self, other: xp.maximum(self, other),
    lambda xp, grad, self, other: xp.where(_raw(self) == _raw(other), grad / 2,
                                           xp.where(_raw(self) < _raw(other), 0.0, grad)),
    lambda xp, grad, self, other: xp.where(_raw(self) == _raw(other), grad / 2,
                                           xp.where(_raw(self) > _raw(other), 0.0, grad)),
    kind="elementwise", dtype="promote")
MINIMUM = defop(
    "minimum", "MinimumBackward0", ("self", "other"), lambda xp, self, other: xp.minimum(self, other),
    lambda xp, grad, self, other: xp.where(_raw(self) == _raw(other), grad / 2,
                                           xp.where(_raw(self) > _raw(other), 0.0, grad)),
    lambda xp, grad, self, other: xp.where(_raw(self) == _raw(other), grad / 2,
                                           xp.where(_raw(self) < _raw(other), 0.0, grad)),
    kind="elementwise", dtype="promote")


def _clamp(xp: Any, self: Any, min: float | None, max: float | None) -> Any:
    return xp.clip(self, min=min, max=max)


def _in_bounds(self: Any, min: float | None, max: float | None) -> Any:
    s = _raw(self)
    if min is None:
        return s <= max
    return s >= min if max is None else (s >= min) & (s <= max)


# NOTE: clamp passes the gradient at the bounds themselves (min <= x <= max), as PyTorch.
CLAMP = defop("clamp", "ClampBackward1", ("self",), _clamp,
              lambda xp, grad, self, min, max: xp.where(_in_bounds(self, min, max), grad, 0.0),
              kind="elementwise", dtype="promote", wrapped=("min", "max"))

# --- elementwise functions ----------------------------------------------------------------------
EXP = defop("exp", "ExpBackward0", ("self",), lambda xp, self: K.unary(xp, "exp", self),
            lambda grad, result: grad * result, kind="elementwise", surface=UNARY,
            domain=(-2, 2), dtype="float")
LOG = defop("log", "LogBackward0", ("self",), lambda xp, self: K.unary(xp, "log", self),
            lambda grad, self: grad / self, kind="elementwise", surface=UNARY, domain=(0.2, 3),
            dtype="float")
SQRT = defop("sqrt", "SqrtBackward0", ("self",), lambda xp, self: K.unary(xp, "sqrt", self),
             lambda grad, result: grad / (2 * result), kind="elementwise", surface=UNARY,
             domain=(0.2, 3), dtype="float")
# NOTE: abs'(0) = sign(0) = 0, as PyTorch.
ABS = defop("abs", "AbsBackward0", ("self",), lambda xp, self: xp.abs(self),
            lambda xp, grad, self: grad * xp.sign(self), kind="elementwise", surface=UNARY,
            domain=(-2, 2), dtype="no_bool", aten="abs_cpu")
SIN = defop("sin", "SinBackward0", ("self",), lambda xp, self: K.unary(xp, "sin", self),
            lambda xp, grad, self: grad * xp.cos(self), kind="elementwise", surface=UNARY,
            domain=(-3, 3), dtype="float")
COS = defop("cos", "CosBackward0", ("self",), lambda xp, self: K.unary(xp, "cos", self),
            lambda xp, grad, self: grad * -xp.sin(self), kind="elementwise", surface=UNARY,
            domain=(-3, 3), dtype="float")
TANH = defop("tanh", "TanhBackward0", ("self",), lambda xp, self: K.unary(xp, "tanh", self),
             lambda xp, grad, result: xp.tanh_backward(grad, result), kind="elementwise",
             surface=(*UNARY, "F"), domain=(-2, 2), dtype="float")
SIGMOID = defop("sigmoid", "SigmoidBackward0", ("self",), K.sigmoid,
                lambda xp, grad, result: xp.sigmoid_backward(grad, result), kind="elementwise",
                surface=(*UNARY, "F"), domain=(-3, 3), dtype="float")
# NOTE: relu'(0) = 0, as PyTorch (threshold_backward on the result).
def _relu(xp: Any, self: Any) -> Any:
    if self.dtype == xp.bool:
        raise ScriptError("Boolean inputs not supported for relu")
    return xp.clip(self, min=0.0)


RELU = defop("relu", "ReluBackward0", ("self",), _relu,
             lambda xp, grad, result: xp.threshold_backward(grad, result, threshold=0.0),
             kind="elementwise",
             surface=(*UNARY, "F"), domain=(-2, 2))
def _sgn(xp: Any, self: Any) -> Any:
    # PyTorch's sign kernel, (0 < a) - (a < 0): NaN and -0.0 give 0
    if self.dtype == xp.bool:
        return self
    return xp.astype(self > 0, self.dtype) - xp.astype(self < 0, self.dtype)


SIGN = defop("sign", "SignBackward0", ("self",), _sgn,
             lambda xp, grad: xp.zeros_like(grad), kind="elementwise", surface=UNARY,
             domain=(-2, 2))
WHERE = defop("where", "WhereBackward0", ("condition", "self", "other"),
              lambda xp, condition, self, other: xp.where(condition, self, other),
              None,
              lambda xp, grad, condition: xp.where(condition, grad, 0.0),
              lambda xp, grad, condition: xp.where(condition, 0.0, grad), kind="elementwise",
              dtype="promote")
MASKED_FILL = defop("masked_fill", "MaskedFillBackward0", ("self", "mask"),
                    lambda xp, self, mask, value: xp.where(mask, value, self),
                    lambda xp, grad, mask: xp.where(mask, 0.0, grad), None, kind="elementwise")
RSQRT = defop("rsqrt", "RsqrtBackward0", ("self",), lambda xp, self: 1.0 / xp.sqrt(self),
              lambda grad, result: -0.5 * grad * (result * result * result), kind="elementwise",
              surface=UNARY, domain=(0.2, 3), dtype="float")
LOG2 = defop("log2", "Log2Backward0", ("self",), lambda xp, self: xp.log2(self),
             lambda grad, self: grad / (self * _LN2), kind="elementwise", surface=UNARY,
             domain=(0.2, 3), dtype="float")
LOG10 = defop("log10", "Log10Backward0", ("self",), lambda xp, self: xp.log10(self),
              lambda grad, self: grad / (self * _LN10), kind="elementwise", surface=UNARY,
              domain=(0.2, 3), dtype="float")
# Step functions: the gradient is zero everywhere (PyTorch's zeros_like(grad)); nothing saved.
FLOOR = defop("floor", "FloorBackward0", ("self",), lambda xp, self: xp.floor(self),
              lambda xp, grad: xp.zeros_like(grad), kind="elementwise", surface=UNARY,
              domain=(-2, 2), dtype="no_bool", aten="floor_vml_cpu")
CEIL = defop("ceil", "CeilBackward0", ("self",), lambda xp, self: xp.ceil(self),
             lambda xp, grad: xp.zeros_like(grad), kind="elementwise", surface=UNARY,
             domain=(-2, 2), dtype="no_bool", aten="ceil_vml_cpu")
TRUNC = defop("trunc", "TruncBackward0", ("self",), lambda xp, self: xp.trunc(self),
              lambda xp, grad: xp.zeros_like(grad), kind="elementwise", surface=UNARY,
              domain=(-2, 2), dtype="no_bool", aten="trunc_vml_cpu")
# NOTE: halves round to even (nearbyint), as PyTorch and the Array API.
ROUND = defop("round", "RoundBackward0", ("self",), lambda xp, self: xp.round(self),
              lambda xp, grad: xp.zeros_like(grad), kind="elementwise", surface=UNARY,
              domain=(-2, 2), dtype="no_bool", aten="round_vml_cpu")


def _round_decimals(xp: Any, self: Any, decimals: int) -> Any:
    # PyTorch's kernel: nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d
    scale = 10.0 ** abs(decimals)
    return xp.round(self / scale) * scale if decimals < 0 else xp.round(self * scale) / scale


ROUND_DECIMALS = defop("round_decimals", "RoundBackward1", ("self",), _round_decimals,
                       lambda xp, grad: xp.zeros_like(grad), kind="elementwise")
# NOTE: like clamp, the gradient passes at the bound itself.
CLAMP_MIN = defop("clamp_min", "ClampMinBackward0", ("self",),
                  lambda xp, self, min: xp.clip(self, min=min),
                  lambda xp, grad, self, min: xp.where(_raw(self) >= min, grad, 0.0),
                  kind="elementwise", surface=UNARY, dtype="promote", wrapped=("min",))
CLAMP_MAX = defop("clamp_max", "ClampMaxBackward0", ("self",),
                  lambda xp, self, max: xp.clip(self, max=max),
                  lambda xp, grad, self, max: xp.where(_raw(self) <= max, grad, 0.0),
                  kind="elementwise", surface=UNARY, dtype="promote", wrapped=("max",))
# ``x.double()``, ``x.to(torch.int64)``: ``dtype`` is a dtypes.DType.
TO_COPY = defop("to_copy", "ToCopyBackward0", ("self",),
                lambda xp, self, dtype: xp.astype(self, getattr(xp, dtype.name)),
                lambda grad: grad, kind="elementwise", dtype="to")
CLONE = defop("clone", "CloneBackward0", ("self",), lambda xp, self: xp.asarray(self, copy=True),
              lambda grad: grad, kind="elementwise", surface=UNARY, domain=(-2, 2))
ZERO = defop("zero_", "ZeroBackward0", ("self",),
             lambda xp, self: xp.zeros(self.shape, dtype=self.dtype),  # written into self
             lambda xp, grad: xp.zeros_like(grad))


# In-place fills whose values come from elsewhere (random draws, fill_): the forward writes
# ``values``, and no gradient reaches what they overwrote.
def _filled(xp: Any, self: Any, values: Any) -> Any:
    if hasattr(values, "shape"):
        return xp.broadcast_to(values, tuple(self.shape))
    return xp.full(tuple(self.shape), values, dtype=self.dtype)


def _no_grad_fill(name: str, grad_fn: str) -> Op:
    return defop(name, grad_fn, ("self",), _filled, lambda xp, grad: xp.zeros_like(grad))


FILL = _no_grad_fill("fill_", "FillBackward2")
FILL_TENSOR = _no_grad_fill("fill_tensor_", "FillBackward3")
UNIFORM_ = _no_grad_fill("uniform_", "UniformBackward0")
NORMAL_ = _no_grad_fill("normal_", "NormalBackward0")
RANDOM_TO = _no_grad_fill("random_to_", "RandomBackward1")
RANDOM_FROM_TO = _no_grad_fill("random_from_to_", "RandomBackward0")
BERNOULLI_SCALAR = _no_grad_fill("bernoulli_scalar_", "BernoulliBackward2")
BERNOULLI_TENSOR = _no_grad_fill("bernoulli_tensor_", "BernoulliBackward1")
EXPONENTIAL_ = _no_grad_fill("exponential_", "ExponentialBackward0")

ATAN = defop("atan", "AtanBackward0", ("self",), lambda xp, self: K.unary(xp, "atan", self),
             lambda grad, self: grad / (self * self + 1), kind="elementwise", surface=UNARY,
             domain=(-3, 3), dtype="float")
ASIN = defop("asin", "AsinBackward0", ("self",), lambda xp, self: K.unary(xp, "asin", self),
             lambda xp, grad, self: grad * xp.rsqrt(-self * self + 1), kind="elementwise",
             surface=UNARY, domain=(-0.9, 0.9), dtype="float")
ACOS = defop("acos", "AcosBackward0", ("self",), lambda xp, self: K.unary(xp, "acos", self),
             lambda xp, grad, self: grad * -xp.rsqrt(-self * self + 1), kind="elementwise",
             surface=UNARY, domain=(-0.9, 0.9), dtype="float")
SINH = defop("sinh", "SinhBackward0", ("self",), lambda xp, self: K.unary(xp, "sinh", self),
             lambda xp, grad, self: grad * xp.cosh(self), kind="elementwise", surface=UNARY,
             domain=(-2, 2), dtype="float")
COSH = defop("cosh", "CoshBackward0", ("self",), lambda xp, self: K.unary(xp, "cosh", self),
             lambda xp, grad, self: grad * xp.sinh(self), kind="elementwise", surface=UNARY,
             domain=(-2, 2), dtype="float")
LOG1P = defop("log1p", "Log1PBackward0", ("self",), K.log1p,
              lambda grad, self: grad / (self + 1), kind="elementwise", surface=UNARY,
              domain=(-0.5, 3), dtype="float")
EXPM1 = defop("expm1", "Expm1Backward0", ("self",), K.expm1,
              lambda grad, result: grad * (result + 1), kind="elementwise", surface=UNARY,
              domain=(-2, 2), dtype="float")


ERF = defop("erf", "ErfBackward0", ("self",), K.erf,
            lambda xp, grad, self: grad * ((2.0 / math.sqrt(math.pi)) * xp.exp(-(self * self))),
            kind="elementwise", surface=UNARY, domain=(-2, 2), dtype="float")


def _softplus(xp: Any, self: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    return K.softplus(xp, self, beta, threshold)


# NOTE: above the threshold softplus is the identity, and so is its gradient (as PyTorch).
SOFTPLUS = defop(
    "softplus", "SoftplusBackward0", ("self",), _softplus,
    lambda xp, grad, self, beta, threshold: xp.softplus_backward(grad, self, beta=beta,
                                                                      threshold=threshold),
    kind="elementwise", surface=NN, domain=(-3, 3), dtype="float_kernel", aten="softplus_cpu")
# NOTE: PyTorch's CPU kernel also saves a `buffer` it computes in the forward; gradcli's
# formula needs only `self`, so listings show one saved tensor where PyTorch has two.
LOGSIGMOID = defop(
    "logsigmoid", "LogSigmoidBackward0", ("self",), K.logsigmoid,
    lambda xp, grad, self: xp.logsigmoid_backward(grad, self), kind="elementwise", surface=NN,
    domain=(-3, 3), dtype="float_kernel", aten="log_sigmoid_cpu")
# --- ops group A: pointwise math, comparisons' and reductions' differentiable ops ---------------
# (their dispatch: engine.pointwise and engine.reductions; comparisons and logic: engine.logic)
TAN = defop("tan", "TanBackward0", ("self",), lambda xp, self: K.unary(xp, "tan", self),
            lambda grad, result: grad * (result * result + 1), kind="elementwise",
            surface=UNARY, domain=(-1.2, 1.2), dtype="float")
ASINH = defop("asinh", "AsinhBackward0", ("self",), lambda xp, self: K.libm(xp, "asinh", self),
              lambda xp, grad, self: grad * xp.rsqrt(self * self + 1), kind="elementwise",
              surface=UNARY, domain=(-2, 2), dtype="float")
ACOSH = defop("acosh", "AcoshBackward0", ("self",), lambda xp, self: K.libm(xp, "acosh", self),
              lambda xp, grad, self: grad * xp.rsqrt(self * self - 1), kind="elementwise",
              surface=UNARY, domain=(1.2, 3), dtype="float")
ATANH = defop("atanh", "AtanhBackward0", ("self",), lambda xp, self: K.libm(xp, "atanh", self),
              lambda grad, self: grad / (1 - self * self), kind="elementwise",
              surface=UNARY, domain=(-0.9, 0.9), dtype="float")


def _no_inplace_derivative(name: str) -> Any:
    raise ScriptError(f"the derivative for 'inplace version of {name}' is not implemented.",
                      kind="NotImplementedError")


# NOTE: PyTorch records asinh_, acosh_ and atanh_ with a node of their own that saves nothing,
# and a backward through it fails (derivatives.yaml's not_implemented).
ASINH_ = defop("asinh_", "AsinhBackward1", ("self",), ASINH.forward,
               lambda grad: _no_inplace_derivative("asinh"), kind="elementwise", dtype="float")
ACOSH_ = defop("acosh_", "AcoshBackward1", ("self",), ACOSH.forward,
               lambda grad: _no_inplace_derivative("acosh"), kind="elementwise", dtype="float")
ATANH_ = defop("atanh_", "AtanhBackward1", ("self",), ATANH.forward,
               lambda grad: _no_inplace_derivative("atanh"), kind="elementwise", dtype="float")
EXP2 = defop("exp2", "Exp2Backward0", ("self",), lambda xp, self: K.libm(xp, "exp2", self),
             lambda grad, result: grad * result * _LN2, kind="elementwise", surface=UNARY,
             domain=(-2, 2), dtype="float")
FRAC = defop("frac", "FracBackward0", ("self",), lambda xp, self: self - xp.trunc(self),
             lambda grad: grad, kind="elementwise", surface=UNARY, domain=(-3, 3),
             dtype="float_kernel", aten="frac_cpu")
# NOTE: for real numbers sgn's gradient is zero (PyTorch's sgn_backward: (g - sgn^2 g) / 2|x|,
# 0 where x = 0); it saves self and result all the same.
SGN = defop("sgn", "SgnBackward0", ("self",), _sgn,
            lambda xp, grad, self, result: xp.zeros_like(grad), kind="elementwise",
            surface=UNARY, domain=(-2, 2))


def _nan_to_num(xp: Any, self: Any, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Any:
    if not xp.isdtype(self.dtype, "real floating"):
        return self + 0
    nan = 0.0 if nan is None else nan
    info = xp.finfo(self.dtype)
    big = xp.asarray(info.max if posinf is None else posinf, dtype=self.dtype)
    small = xp.asarray(info.min if neginf is None else neginf, dtype=self.dtype)
    out = xp.where(xp.isnan(self), xp.asarray(nan, dtype=self.dtype), self)
    return xp.where(self == math.inf, big, xp.where(self == -math.inf, small, out))


NAN_TO_NUM = defop("nan_to_num", "NanToNumBackward0", ("self",), _nan_to_num,
                   lambda xp, grad, self: xp.where(xp.raw.isfinite(_raw(self)), grad, 0.0),
                   kind="elementwise", surface=UNARY, domain=(-2, 2))
ATAN2 = defop("atan2", "Atan2Backward0", ("self", "other"),
              lambda xp, self, other: K.libm(xp, "atan2", self, other),
              lambda xp, grad, self, other: grad * other * xp.reciprocal(self * self
                                                                         + other * other),
              lambda xp, grad, self, other: grad * -self * xp.reciprocal(self * self
                                                                         + other * other),
              kind="elementwise", dtype="float")
HYPOT = defop("hypot", "HypotBackward0", ("self", "other"),
              lambda xp, self, other: K.libm(xp, "hypot", self, other),
              lambda grad, self, result: grad * self / result,
              lambda grad, other, result: grad * other / result,
              kind="elementwise", dtype="float_kernel", aten="hypot_cpu")


LOGADDEXP = defop("logaddexp", "LogaddexpBackward0", ("self", "other"), K.logaddexp,
                  lambda xp, grad, self, other: grad / (xp.exp(other - self) + 1),
                  lambda xp, grad, self, other: grad / (xp.exp(self - other) + 1),
                  kind="elementwise", dtype="float_kernel", aten="logaddexp_cpu")


def _fmod(xp: Any, self: Any, other: Any) -> Any:
    # C's fmod (the sign of the dividend) from the Array API's remainder of magnitudes, which
    # is exact: fmod(a, b) = sign(a) * (|a| mod |b|); a number in the tensor's dtype
    if not hasattr(other, "dtype"):
        other = xp.asarray(other, dtype=self.dtype)
    if not xp.isdtype(xp.result_type(self, other), "real floating"):
        if bool(xp.any(other == 0)):  # PyTorch's integer kernel
            raise ScriptError("ZeroDivisionError")
        r = xp.remainder(xp.abs(self), xp.abs(other))
        return xp.where(self < 0, -r, r)
    return xp.copysign(xp.remainder(xp.abs(self), xp.abs(other)), self)


FMOD_SCALAR = defop("fmod_scalar", "FmodBackward0", ("self",), _fmod, lambda grad: grad,
                    kind="elementwise", dtype="promote", wrapped=("other",))
FMOD = defop("fmod", "FmodBackward1", ("self", "other"), _fmod, lambda grad: grad,
             lambda xp, grad, self, other: -grad * xp.trunc(self / other),
             kind="elementwise", dtype="promote")
# lerp with a number weight saves only the weight; with a tensor weight, end, self and weight
# (PyTorch's forward-mode formula reads self and end, so they are saved unconditionally: the
# formulas below read them to be saved as PyTorch's are)
LERP_SCALAR = defop("lerp_scalar", "LerpBackward0", ("self", "end"), K.lerp,
                    lambda grad, weight: grad * (1 - weight),
                    lambda grad, weight: grad * weight, kind="elementwise", dtype="promote")
LERP = defop("lerp", "LerpBackward1", ("self", "end", "weight"), K.lerp,
             lambda grad, self, end, weight: grad * (1 - weight),
             lambda grad, self, end, weight: grad * weight,
             lambda grad, self, end: grad * (end - self), kind="elementwise", dtype="promote")
ADDCMUL = defop("addcmul", "AddcmulBackward0", ("self", "tensor1", "tensor2"), K.addcmul,
                lambda grad: grad,
                lambda grad, tensor2, value: grad * tensor2 * value,
                lambda grad, tensor1, value: grad * tensor1 * value,
                kind="elementwise", dtype="promote")
ADDCDIV = defop("addcdiv", "AddcdivBackward0", ("self", "tensor1", "tensor2"),
                lambda xp, self, tensor1, tensor2, value: self + value * tensor1 / tensor2,
                lambda grad: grad,
                lambda grad, tensor2, value: grad * value / tensor2,
                lambda grad, tensor1, tensor2, value: -grad * value * tensor1
                / (tensor2 * tensor2), kind="elementwise", dtype="promote")


def _xlogy(xp: Any, self: Any, other: Any) -> Any:
    # PyTorch's kernel: nan where other is nan, 0 where self is 0, else self * log(other);
    # a number in the tensor's dtype
    if not hasattr(other, "dtype"):
        other = xp.asarray(other, dtype=self.dtype)
    if not hasattr(self, "dtype"):
        self = xp.asarray(self, dtype=other.dtype)
    out = self * K.c_library(xp, "log", other)  # cpu_kernel: std::log for every element
    return xp.where(xp.isnan(other), math.nan, xp.where(self == 0, 0.0, out))


def _xlogy_self_grad(xp: Any, grad: Any, self: Any, other: Any) -> Any:
    # xlogy(self != 0, other)
    if not hasattr(other, "shape"):  # a number
        raw, s = xp.raw, _raw(self)
        mask = raw.where(s != 0, raw.full_like(s, _scalar_log(other)), raw.zeros_like(s))
        return grad * xp.const(mask)
    return grad * xp.where(_raw(self) != 0, xp.log(other), 0.0)


XLOGY = defop("xlogy", "XlogyBackward0", ("self", "other"), _xlogy, _xlogy_self_grad,
              lambda grad, self, other: grad * self / other, kind="elementwise", dtype="float")
XLOGY_SELF_NUMBER = defop("xlogy_self_number", "XlogyBackward1", ("other",),
                          lambda xp, other, self: _xlogy(xp, self, other),
                          lambda grad, other, self: grad * self / other, kind="elementwise",
                          dtype="float", wrapped=("self",))
XLOGY_OTHER_NUMBER = defop("xlogy_other_number", "XlogyBackward2", ("self",), _xlogy,
                           _xlogy_self_grad, kind="elementwise", dtype="float",
                           wrapped=("other",))


def _copysign_grad(xp: Any, grad: Any, self: Any, result: Any) -> Any:
    # PyTorch's copysign_tensor_self_backward: grad * result / self, 0 where self is 0
    return grad * xp.where(_raw(self) == 0, 0.0, result / self)


COPYSIGN = defop("copysign", "CopysignBackward0", ("self", "other"),
                 lambda xp, self, other: xp.copysign(self, other), _copysign_grad,
                 lambda xp, grad: xp.zeros_like(grad), kind="elementwise", dtype="float")
COPYSIGN_SCALAR = defop("copysign_scalar", "CopysignBackward1", ("self",),
                        lambda xp, self, other: xp.copysign(self, other), _copysign_grad,
                        kind="elementwise", dtype="float", wrapped=("other",))


def _cumulative(xp: Any, self: Any, dim: int, reverse: bool, prod: bool) -> Any:
    # PyTorch's CPU kernels accumulate in double (acc_type) from the first element on
    if not self.shape:
        return self + 0
    x = xp.asarray(self)
    if reverse:
        x = xp.flip(x, axis=dim)
    wide = xp.isdtype(x.dtype, "real floating") and x.dtype != xp.float64
    acc = xp.astype(x, xp.float64) if wide else x
    out = (xp.cumulative_prod if prod else xp.cumulative_sum)(acc, axis=dim)
    out = xp.astype(out, x.dtype) if wide else out
    return xp.flip(out, axis=dim) if reverse else out


CUMSUM = defop("cumsum", "CumsumBackward0", ("self",),
               lambda xp, self, dim, reverse: _cumulative(xp, self, dim, reverse, False),
               lambda xp, grad, dim, reverse: xp.cumsum(grad, dim, not reverse), dtype="sum")
# ``dtype=``: the same node, computed in that dtype (PyTorch records no conversion node)
CUMSUM_TO = defop("cumsum_to", "CumsumBackward0", ("self",),
                  lambda xp, self, dim, reverse, dtype: CUMSUM.forward(xp, self, dim, reverse),
                  CUMSUM.formulas[0][0], dtype="to")


def _cumprod_grad(xp: Any, grad: Any, self: Any, result: Any, dim: int) -> Any:
    """PyTorch's cumprod_backward: the reversed cumulative sum of grad * result, over self;
    where self has zeros, element k's share is the sum over j >= k of grad_j times the product
    of self_i for i <= j, i != k (written with the table's ops: second derivatives work)."""
    if not self.shape or self.shape[dim] == 1:
        return grad
    raw = xp.raw
    s = _raw(self)
    if not bool(raw.any(s == 0)):
        return xp.cumsum(grad * result, dim, True) / self
    at = _positions(raw, tuple(s.shape), dim)
    out = None
    for k in range(s.shape[dim]):
        others = xp.cumprod(xp.where(at == k, 1.0, self), dim)
        share = xp.sum(xp.where(at >= k, grad * others, 0.0), axis=dim, keepdims=True)
        term = xp.where(at == k, share, 0.0)
        out = term if out is None else out + term
    return out


CUMPROD = defop("cumprod", "CumprodBackward0", ("self",),
                lambda xp, self, dim: _cumulative(xp, self, dim, False, True), _cumprod_grad,
                dtype="sum")
CUMPROD_TO = defop("cumprod_to", "CumprodBackward0", ("self",),
                   lambda xp, self, dim, dtype: CUMPROD.forward(xp, self, dim), _cumprod_grad,
                   dtype="to")


def _logsumexp(xp: Any, self: Any, dim: tuple, keepdim: bool) -> Any:
    # PyTorch's: m = amax (0 where infinite); log(sum(exp(self - m))) + m
    if 0 in self.shape:
        return xp.log(xp.sum(xp.exp(self), axis=dim, keepdims=keepdim))
    m = xp.max(self, axis=dim, keepdims=True)
    m = xp.where(xp.abs(m) == math.inf, 0.0, m)
    total = K.sum(xp, K.unary(xp, "exp", self - m), dim, keepdim)
    return K.unary(xp, "log", total) + (m if keepdim else xp.reshape(m, total.shape))


LOGSUMEXP = defop("logsumexp", "LogsumexpBackward0", ("self",), _logsumexp,
                  lambda xp, grad, self, result, dim, keepdim: _keep_dims(
                      xp, grad, tuple(self.shape), dim, keepdim) * xp.exp(
                      self - _keep_dims(xp, result, tuple(self.shape), dim, keepdim)),
                  dtype="float")


def _evenly(xp: Any, grad: Any, self: Any, result: Any, dim: tuple, keepdim: bool) -> Any:
    # PyTorch's scale_grad_by_count: the gradient shared by the elements equal to the result
    shape = tuple(self.shape)
    mask = _where_eq(xp.raw, self, _keep_dims(xp.raw, _raw(result), shape, dim, keepdim))
    count = xp.raw.sum(xp.raw.astype(mask, _raw(self).dtype), axis=dim, keepdims=True)
    g = _keep_dims(xp, grad, shape, dim, keepdim)
    return xp.where(mask, g / xp.const(count), 0.0)


AMAX = defop("amax", "AmaxBackward0", ("self",),
             lambda xp, self, dim, keepdim: xp.max(self, axis=dim, keepdims=keepdim), _evenly)
AMIN = defop("amin", "AminBackward0", ("self",),
             lambda xp, self, dim, keepdim: xp.min(self, axis=dim, keepdims=keepdim), _evenly)
# NOTE: aminmax's two outputs share one AminmaxBackward0 node in PyTorch, which saves self, min
# and max; here each output has its own AminmaxBackward0 node, saving self and itself (result).
AMINMAX_MIN = defop("aminmax_min", "AminmaxBackward0", ("self",), AMIN.forward, _evenly)
AMINMAX_MAX = defop("aminmax_max", "AminmaxBackward0", ("self",), AMAX.forward, _evenly)
NANSUM = defop("nansum", "NansumBackward0", ("self",),
               lambda xp, self, dim, keepdim: K.sum(xp, xp.where(xp.isnan(self), 0, self), dim,
                                                    keepdim),
               lambda xp, grad, self, dim, keepdim: xp.where(
                   xp.raw.isnan(_raw(self)), 0.0, _keep_dims(xp, grad, tuple(self.shape), dim,
                                                             keepdim)), dtype="sum")
NANSUM_TO = defop("nansum_to", "NansumBackward0", ("self",),
                  lambda xp, self, dim, keepdim, dtype: NANSUM.forward(xp, self, dim, keepdim),
                  NANSUM.formulas[0][0], dtype="to")


def _trace(xp: Any, self: Any) -> Any:
    # PyTorch's trace_cpu: the diagonal summed in order, in double for float32
    n = min(self.shape)
    diagonal = xp.reshape(self, (-1,))[:: self.shape[1] + 1][:n]
    wide = xp.isdtype(diagonal.dtype, "real floating")
    acc = xp.astype(diagonal, xp.float64) if wide else diagonal
    total = xp.cumulative_sum(acc)[-1] if n else xp.sum(acc)
    return xp.astype(total, self.dtype) if wide else total


TRACE = defop("trace", "TraceBackward0", ("self",), _trace,
              lambda xp, grad, self_shape: xp.where(
                  xp.raw.eye(*self_shape, dtype=xp.raw.bool), grad, 0.0), dtype="sum")
DIST = defop("dist", "DistBackward0", ("self", "other"),
             lambda xp, self, other, p: _vector_norm(xp, self - other, p, None, False),
             lambda xp, grad, self, other, result, p: _vector_norm_grad(
                 xp, grad, self - other, result, p, None),
             lambda xp, grad, self, other, result, p: -_vector_norm_grad(
                 xp, grad, self - other, result, p, None), dtype="float_only")

# NOTE: hardtanh's gradient is zero at the bounds themselves (strict), unlike clamp's.
HARDTANH = defop(
    "hardtanh", "HardtanhBackward0", ("self",),
    lambda xp, self, min_val=-1.0, max_val=1.0: xp.clip(self, min=min_val, max=max_val),
    lambda xp, grad, self, min_val, max_val: xp.hardtanh_backward(grad, self, min_val=min_val,
                                                                 max_val=max_val),
    kind="elementwise", surface=NN, domain=(-2, 2))

# --- nn.functional activations (the F ops group) ------------------------------------------------
# NOTE: hardswish's gradient is 0 at -3 itself and passes unchanged from 3 on, as PyTorch's
# hardswish_backward; hardsigmoid's is grad / 6 strictly inside (-3, 3).
HARDSWISH = defop(
    "hardswish", "HardswishBackward0", ("self",),
    lambda xp, self: self * xp.clip(self + 3.0, min=0.0, max=6.0) / 6.0,
    lambda xp, grad, self: xp.where(_raw(self) <= -3.0, 0.0, xp.where(
        _raw(self) < 3.0, grad * (self / 3.0 + 0.5), grad)),
    kind="elementwise", surface=NN, domain=(-4, 4), dtype="float_kernel", aten="hardswish_cpu")
# NOTE: PyTorch's hardsigmoid_backward multiplies by the float constant 1.0f / 6.0f, in float64
# too.
_ONE_SIXTH_F = struct.unpack("f", struct.pack("f", 1.0 / 6.0))[0]
HARDSIGMOID = defop(
    "hardsigmoid", "HardsigmoidBackward0", ("self",),
    lambda xp, self: xp.clip(self + 3.0, min=0.0, max=6.0) / 6.0,
    lambda xp, grad, self: xp.where((_raw(self) > -3.0) & (_raw(self) < 3.0),
                                    grad * _ONE_SIXTH_F, 0.0),
    kind="elementwise", surface=NN, domain=(-4, 4), dtype="float_kernel", aten="hardsigmoid_cpu")


def _mish_grad(xp: Any, grad: Any, self: Any) -> Any:
    t = xp.tanh(xp.log1p(xp.exp(self)))  # PyTorch's mish_backward
    return grad * (t + self * xp.sigmoid(self) * (1 - t * t))


MISH = defop("mish", "MishBackward0", ("self",),
             lambda xp, self: self * K.unary(xp, "tanh", K.log1p(xp, K.unary(xp, "exp", self))),
             _mish_grad, kind="elementwise", surface=NN, domain=(-3, 3), dtype="float_kernel",
             aten="mish_cpu")


def _logit(xp: Any, self: Any, eps: float | None = None) -> Any:
    if eps is not None:
        self = xp.clip(self, min=eps, max=1.0 - eps)
    return K.unary(xp, "log", self / (1.0 - self))


def _logit_grad(xp: Any, grad: Any, self: Any, eps: float | None) -> Any:
    s = _raw(self)
    g = grad / (self * (1.0 - self))
    if eps is None:  # NOTE: nan outside [0, 1], as PyTorch's logit_backward
        return xp.where((s < 0.0) | (s > 1.0), math.nan, g)
    return xp.where((s < eps) | (s > 1.0 - eps), 0.0, g)


LOGIT = defop("logit", "LogitBackward0", ("self",), _logit, _logit_grad, kind="elementwise",
              surface=UNARY, domain=(0.1, 0.9), dtype="float")


# selu and celu are elu with a scale on each side (PyTorch's elu kernel: negcoef = alpha * scale,
# input_scale inside the exponential); selu's node is EluBackward0, celu's CeluBackward0.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


SELU = defop("selu", "EluBackward0", ("self",),
             lambda xp, self: K.elu(xp, self, _SELU_ALPHA, _SELU_SCALE, 1.0),
             lambda xp, grad, self: _elu_backward(xp, grad, self, _SELU_ALPHA, _SELU_SCALE, 1.0, False),
             kind="elementwise", surface=("torch", "F"), domain=(-2, 2), dtype="float_kernel",
             aten="elu_cpu")
SELU_ = defop("selu_", "EluBackward1", ("self",), SELU.forward,
              lambda xp, grad, result: _elu_backward(xp, grad, result, _SELU_ALPHA, _SELU_SCALE, 1.0, True),
              kind="elementwise", dtype="float_kernel", aten="elu_cpu")
def _celu(xp: Any, self: Any, alpha: float = 1.0) -> Any:
    if alpha == 0:
        raise ScriptError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return K.elu(xp, self, alpha, 1.0, 1.0 / alpha)


CELU = defop("celu", "CeluBackward0", ("self",), _celu,
             lambda xp, grad, self, alpha: _elu_backward(xp, grad, self, alpha, 1.0, 1.0 / alpha, False),
             kind="elementwise", surface=("torch", "F"), domain=(-2, 2), dtype="float_kernel",
             aten="elu_cpu")
CELU_ = defop("celu_", "CeluBackward1", ("self",), CELU.forward,
              lambda xp, grad, result, alpha: _elu_backward(xp, grad, result, alpha, 1.0, 1.0 / alpha, True),
              kind="elementwise", dtype="float_kernel", aten="elu_cpu")
# NOTE: inside [-lambd, lambd] softshrink is 0, but -0.0 for a negative x in the elements
# PyTorch's kernel leaves to its scalar loop (engine/exact/unary.py).
SOFTSHRINK = defop(
    "softshrink", "SoftshrinkBackward0", ("self",),
    lambda xp, self, lambd=0.5: K.softshrink(xp, self, lambd),
    lambda xp, grad, self, lambd: xp.where((_raw(self) >= -lambd) & (_raw(self) <= lambd),
                                           0.0, grad),
    kind="elementwise", surface=NN, domain=(-2, 2), dtype="float_kernel",
    aten="softshrink_check")
HARDSHRINK = defop(
    "hardshrink", "HardshrinkBackward0", ("self",),
    lambda xp, self, lambd=0.5: xp.where((self >= -lambd) & (self <= lambd), 0.0, self),
    lambda xp, grad, self, lambd: xp.where((_raw(self) >= -lambd) & (_raw(self) <= lambd),
                                           0.0, grad),
    kind="elementwise", surface=(*UNARY, "F"), domain=(-2, 2), dtype="float_kernel",
    aten="hardshrink_cpu")
# threshold(x, threshold, value): value where x <= threshold; in place the node is
# ThresholdBackward1 (it still saves the input as ``self``).
THRESHOLD = defop(
    "threshold", "ThresholdBackward0", ("self",),
    lambda xp, self, threshold, value: xp.where(self <= threshold, value, self),
    lambda xp, grad, self, threshold: xp.threshold_backward(grad, self, threshold=threshold),
    kind="elementwise", dtype="promote", wrapped=("threshold", "value"))
THRESHOLD_ = defop("threshold_", "ThresholdBackward1", ("self",), THRESHOLD.forward,
                   THRESHOLD.formulas[0][0], kind="elementwise", dtype="promote",
                   wrapped=("threshold", "value"))


def _glu_halves(xp: Any, x: Any, dim: int) -> tuple[Any, Any]:
    d = dim % x.ndim
    n = x.shape[d] // 2
    return x[_index(d, slice(0, n))], x[_index(d, slice(n, None))]


def _glu_grad(xp: Any, grad: Any, self: Any, dim: int) -> Any:
    """PyTorch's glu_backward: grad * sigmoid(b) for the first half, grad * a * sigmoid'(b) for
    the second, each scattered into its half."""
    shape = tuple(self.shape)
    d = dim % len(shape)
    n = shape[d] // 2
    a, b = _glu_halves(xp, self, d)
    s = xp.sigmoid(b)
    return (xp.slice_backward(grad * s, shape, d, 0, n, 1)
            + xp.slice_backward(grad * a * (s * (1 - s)), shape, d, n, 2 * n, 1))


GLU = defop("glu", "GluBackward0", ("self",),
            lambda xp, self, dim=-1: _glu_halves(xp, self, dim)[0] * K.sigmoid(
                xp, _glu_halves(xp, self, dim)[1]),
            _glu_grad, dtype="float_kernel", aten="glu_cpu")


# --- nn.functional normalisation, distance, padding and losses (the F ops group) ----------------
def _norm_axes(input: Any, normalized_shape: tuple) -> tuple[int, ...]:
    nd = len(tuple(input.shape))
    return tuple(range(nd - len(normalized_shape), nd))


def _layer_norm(xp: Any, input: Any, weight: Any, bias: Any, result1: Any, result2: Any,
                normalized_shape: tuple, eps: float) -> Any:
    """PyTorch's LayerNormKernel: ((x - mean) * rstd) * weight + bias; the row's mean and rstd
    (``result1``, ``result2``) come from the dispatch."""
    return K.layer_norm(xp, input, len(normalized_shape), weight, bias, result1, result2)


def _layer_norm_xhat(xp: Any, input: Any, normalized_shape: tuple, eps: float) -> Any:
    """(x - mean) * rstd computed from ``input`` (differentiable under create_graph=True)."""
    axes = _norm_axes(input, normalized_shape)
    n = _count(tuple(input.shape), axes)
    centred = input - xp.sum(input, axis=axes, keepdims=True) / n
    var = xp.sum(centred * centred, axis=axes, keepdims=True) / n
    return centred * xp.rsqrt(var + eps), var


# NOTE: the formulas read every saved name so that the node saves what PyTorch's does (input,
# weight, bias, mean as result1, rstd as result2), and recompute the row statistics from input
# so that they stay differentiable under create_graph=True.
def _layer_norm_kernel(which: int, xp: Any, grad: Any, input: Any, weight: Any, result1: Any,
                       result2: Any, normalized_shape: tuple) -> Any:
    """PyTorch's LayerNormBackwardKernel's gradient of input (0), weight (1) or bias (2), from
    the saved mean and rstd; None under create_graph=True (tensors) or for other arrays."""
    if input.__class__ is Tensor or grad.__class__ is Tensor:
        return None
    return K.layer_norm_backward(xp.raw, which, grad, input, weight, result1, result2,
                                 len(normalized_shape))


def _layer_norm_input_grad(xp: Any, grad: Any, input: Any, weight: Any, bias: Any,
                           result1: Any, result2: Any, normalized_shape: tuple,
                           eps: float) -> Any:
    exact = _layer_norm_kernel(0, xp, grad, input, weight, result1, result2, normalized_shape)
    if exact is not None:
        return exact
    axes = _norm_axes(input, normalized_shape)
    n = _count(tuple(input.shape), axes)
    g = grad if weight is None else grad * weight
    if input.__class__ is not Tensor:  # other arrays: from mean and rstd
        ds = xp.sum(g * input, axis=axes, keepdims=True)
        db = xp.sum(g, axis=axes, keepdims=True)
        b = (db * result1 - ds) * result2 * result2 * result2 * (1.0 / n)
        c = -b * result1 - db * result2 * (1.0 / n)
        return result2 * g + b * input + c
    xhat, var = _layer_norm_xhat(xp, input, normalized_shape, eps)
    mean_g = xp.sum(g, axis=axes, keepdims=True) / n
    mean_gx = xp.sum(g * xhat, axis=axes, keepdims=True) / n
    return xp.rsqrt(var + eps) * (g - mean_g - xhat * mean_gx)


def _layer_norm_weight_grad(xp: Any, grad: Any, input: Any, weight: Any, bias: Any,
                            result1: Any, result2: Any, normalized_shape: tuple,
                            eps: float) -> Any:
    exact = _layer_norm_kernel(1, xp, grad, input, weight, result1, result2, normalized_shape)
    if exact is not None:
        return exact
    return grad * _layer_norm_xhat(xp, input, normalized_shape, eps)[0]  # summed to weight


def _layer_norm_bias_grad(xp: Any, grad: Any, input: Any, weight: Any, bias: Any,
                          result1: Any, result2: Any, normalized_shape: tuple,
                          eps: float) -> Any:
    exact = _layer_norm_kernel(2, xp, grad, input, weight, result1, result2, normalized_shape)
    return grad if exact is None else exact  # (summed to bias)


LAYER_NORM = defop("native_layer_norm", "NativeLayerNormBackward0",
                   ("input", "weight", "bias", "result1", "result2"), _layer_norm,
                   _layer_norm_input_grad, _layer_norm_weight_grad, _layer_norm_bias_grad,
                   None, None,
                   dtype="float_kernel", aten="LayerNormKernelImpl")


def _pad_slices(shape: tuple, pad: tuple) -> tuple[tuple, tuple, tuple]:
    """The padded shape and, per dim, the slice of the input kept and where it lands."""
    shape = list(shape)
    src = [slice(None)] * len(shape)
    dst = [slice(None)] * len(shape)
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        n = shape[d]
        start, stop = max(-left, 0), n - max(-right, 0)
        dst[d] = slice(max(left, 0), max(left, 0) + max(stop - start, 0))
        src[d] = slice(start, max(stop, start))
        shape[d] = n + left + right
    return tuple(shape), tuple(src), tuple(dst)


def _constant_pad(xp: Any, self: Any, pad: tuple, value: float = 0.0) -> Any:
    shape, src, dst = _pad_slices(tuple(self.shape), pad)
    out = xp.full(shape, value, dtype=self.dtype)
    out[dst] = self[src]
    return out


# Its gradient is the gradient padded by the opposite amounts (a crop, or zeros where the
# forward cropped), as PyTorch's constant_pad_nd_backward.
CONSTANT_PAD_ND = defop(
    "constant_pad_nd", "ConstantPadNdBackward0", ("self",), _constant_pad,
    lambda xp, grad, pad: xp.constant_pad_nd(grad, tuple(-p for p in pad), 0.0))
# at::norm(x, p, dim) (pairwise_distance), not torch.norm's linalg_vector_norm.
NORM_DIM = defop("norm_dim", "NormBackward1", ("self",),
                 lambda xp, self, p, dim, keepdim: _vector_norm(xp, self, p, dim, keepdim),
                 lambda xp, grad, self, result, p, dim, keepdim: _vector_norm_grad(
                     xp, grad, self, result, p, dim), dtype="float_only")


def _soft_margin(xp: Any, self: Any, target: Any, reduction: str) -> Any:
    loss = K.log1p(xp, K.unary(xp, "exp", -self * target))
    if reduction == "none":
        return loss
    return K.mean(xp, loss) if reduction == "mean" else K.sum(xp, loss)


def _soft_margin_grad(xp: Any, grad: Any, self: Any, target: Any, reduction: str) -> Any:
    # ATen's soft_margin_loss_backward, in place step by step: target * z, times -norm (in
    # the dtype), divided by z + 1, times the gradient; z its exp kernel's (differentiable ops
    # under create_graph=True)
    z = xp.exp(-target * self) if self.__class__ is Tensor else \
        K.unary(xp.raw, "exp", -target * self)
    g = (target * z) * -_norm(tuple(self.shape), reduction)  # (a Python float: the dtype's)
    return (g / (z + 1)) * grad


SOFT_MARGIN_LOSS = defop("soft_margin_loss", "SoftMarginLossBackward0", ("self", "target"),
                         _soft_margin, _soft_margin_grad, None, dtype="float")


def _channel_axes(input: Any) -> tuple[int, ...]:
    """Every dim but the channels (dim 1): what batch_norm reduces over."""
    return tuple(i for i in range(len(tuple(input.shape))) if i != 1)


def _per_channel(xp: Any, v: Any, ndim: int) -> Any:
    """A (C,) vector shaped to broadcast along dim 1."""
    return xp.reshape(v, (1, -1) + (1,) * (ndim - 2))


def _batch_norm(xp: Any, input: Any, weight: Any, bias: Any, running_mean: Any,
                running_var: Any, result1: Any, result2: Any, training: bool,
                eps: float) -> Any:
    """PyTorch's batch_norm_cpu_kernel: input * alpha + beta per channel, alpha = invstd *
    weight, beta = bias - mean * alpha; the batch's statistics (``result1``, ``result2``)
    when training, the running ones otherwise."""
    if training:
        return K.batch_norm(xp, input, result1, result2, weight, bias)
    return K.batch_norm(xp, input, running_mean,
                        K.batch_norm_eval_invstd(xp, running_var, eps), weight, bias)


def _batch_norm_xhat(xp: Any, input: Any, eps: float) -> tuple[Any, Any]:
    """(x - mean) * invstd over the batch, and invstd, computed from ``input``."""
    axes = _channel_axes(input)
    n = _count(tuple(input.shape), axes)
    centred = input - xp.sum(input, axis=axes, keepdims=True) / n
    invstd = xp.rsqrt(xp.sum(centred * centred, axis=axes, keepdims=True) / n + eps)
    return centred * invstd, invstd


# NOTE: as layer_norm's, the formulas read what PyTorch's node saves (never bias); on arrays
# they take PyTorch's backward kernel (K.batch_norm_backward), and under create_graph=True they
# recompute the batch statistics from input so that they stay differentiable.
def _batch_norm_grad(which: int, xp: Any, grad: Any, input: Any, weight: Any,
                     running_mean: Any, running_var: Any, result1: Any, result2: Any,
                     training: bool, eps: float) -> Any:
    """The gradient of input (0), weight (1) or bias (2)."""
    if input.__class__ is not Tensor:
        mean = result1 if training else running_mean
        exact = K.batch_norm_backward(xp.raw, grad, input, weight, mean, result2, training,
                                      running_var, eps)
        if exact is not None:
            return exact[which]
    if which == 2:
        return xp.sum(grad, axis=_channel_axes(grad))
    nd = len(tuple(input.shape))
    if which == 1:
        xhat = _batch_norm_xhat(xp, input, eps)[0] if training else \
            (input - _per_channel(xp, running_mean, nd)) * _per_channel(
                xp, xp.rsqrt(running_var + eps), nd)
        return xp.sum(grad * xhat, axis=_channel_axes(input))
    g = grad if weight is None else grad * _per_channel(xp, weight, nd)
    if not training:
        return g * _per_channel(xp, xp.rsqrt(running_var + eps), nd)
    axes = _channel_axes(input)
    n = _count(tuple(input.shape), axes)
    xhat, invstd = _batch_norm_xhat(xp, input, eps)
    mean_g = xp.sum(g, axis=axes, keepdims=True) / n
    mean_gx = xp.sum(g * xhat, axis=axes, keepdims=True) / n
    return invstd * (g - mean_g - xhat * mean_gx)


def _batch_norm_formula(which: int) -> Any:
    def formula(xp: Any, grad: Any, input: Any, weight: Any, running_mean: Any,
                running_var: Any, result1: Any, result2: Any, training: bool, eps: float) -> Any:
        return _batch_norm_grad(which, xp, grad, input, weight, running_mean, running_var,
                                result1, result2, training, eps)
    return formula


BATCH_NORM = defop(
    "native_batch_norm", "NativeBatchNormBackward0",
    ("input", "weight", "bias", "running_mean", "running_var", "result1", "result2"),
    _batch_norm,
    *(_batch_norm_formula(i) for i in range(3)), None, None, None, None,
    dtype="float_kernel", aten="batch_norm")


def _pad_source(raw: Any, shape: tuple, padding: tuple, mode: str) -> Any:
    """For each element of the padded result, the flat position in ``self`` it copies:
    reflected about the edges ("reflect") or clamped to them ("replicate")."""
    k = len(padding) // 2
    nd = len(shape)
    flat = None
    stride = 1
    for d in range(nd - 1, -1, -1):
        n = shape[d]
        i = nd - 1 - d
        if i < k:
            idx = raw.arange(-padding[2 * i], n + padding[2 * i + 1])
            if mode == "reflect":
                idx = raw.abs(idx)
                idx = raw.where(idx > n - 1, 2 * (n - 1) - idx, idx)
            else:
                idx = raw.clip(idx, 0, n - 1)
        else:
            idx = raw.arange(n)
        idx = raw.reshape(idx * stride, (1,) * d + (-1,) + (1,) * (nd - 1 - d))
        flat = idx if flat is None else flat + idx
        stride *= n
    return flat


def _index_pad(name: str, grad_fn: str, mode: str) -> Op:
    """reflect or replicate padding of the last 1, 2 or 3 dims: a gather of ``self`` whose
    gradient adds back into each copied position (``<name>_backward``, itself recorded under
    create_graph=True as PyTorch's <grad_fn>Backward0, whose gradient is the padding again)."""
    backward = defop(
        f"{name}_backward", grad_fn.replace("Backward0", "BackwardBackward0"), ("grad_output",),
        lambda xp, grad_output, input_shape, padding: K.scatter_add(
            xp, input_shape, _pad_source(xp, input_shape, padding, mode), grad_output),
        lambda xp, grad, padding: getattr(xp, name)(grad, padding=padding))
    return defop(
        name, grad_fn, ("self",),
        lambda xp, self, padding: take_flat(xp, self, _pad_source(xp, tuple(self.shape),
                                                                  padding, mode)),
        lambda xp, grad, self, padding: getattr(xp, backward.name)(
            grad, input_shape=tuple(self.shape), padding=padding))


REFLECTION_PAD = {k: _index_pad(f"reflection_pad{k}d", f"ReflectionPad{k}DBackward0", "reflect")
                  for k in (1, 2, 3)}
REPLICATION_PAD = {k: _index_pad(f"replication_pad{k}d", f"ReplicationPad{k}DBackward0",
                                 "replicate") for k in (1, 2, 3)}

# --- embedding (engine/nn_layers.embedding) ------------------------------------------------------
def _embedding(xp: Any, weight: Any, indices: Any, padding_idx: int = -1,
               scale_grad_by_freq: bool = False, sparse: bool = False) -> Any:
    """The rows of ``weight`` at ``indices``, in the indices' shape (ATen's index_select)."""
    rows = xp.take(weight, xp.reshape(indices, (-1,)), axis=0)
    return xp.reshape(rows, (*tuple(indices.shape), weight.shape[1]))


def _embedding_backward(xp: Any, grad_output: Any, indices: Any, num_weights: int,
                        padding_idx: int, scale_grad_by_freq: bool) -> Any:
    """ATen's embedding_dense_backward_cpu: each position's gradient row added into its
    weight row in the positions' order (``grad_weight[k].add_(grad[i], scale)``), the padding
    row left at zero; ``scale`` is 1 / (the row's count) under ``scale_grad_by_freq``."""
    d = grad_output.shape[-1]
    idx = xp.reshape(indices, (-1,))
    g = xp.reshape(grad_output, (-1, d))
    keep = idx != padding_idx
    idx, g = idx[keep], g[keep]
    if not scale_grad_by_freq:
        pos = xp.reshape(idx, (-1, 1)) * d + xp.reshape(xp.arange(d), (1, -1))
        return K.scatter_add(xp, (num_weights, d), pos, g)
    counts = xp.bincount(idx, minlength=num_weights)
    out = xp.zeros((num_weights, d), dtype=grad_output.dtype)
    for i, k in enumerate(idx.tolist()):  # a double Scalar, cast to the dtype by add_
        out[k] = K.add_scaled(xp, out[k], 1.0 / int(counts[k]), g[i])
    return out


def _embedding_double_backward(xp: Any, grad: Any, indices: Any, padding_idx: int) -> Any:
    """embedding_dense_double_backward: the gradient's rows at ``indices`` (an embedding
    lookup of them), the padding index's zeroed."""
    rows = xp.embedding(grad, indices)
    if padding_idx < 0:
        return rows
    mask = xp.raw.expand_dims(_raw(indices) == padding_idx, -1)
    return xp.where(mask, xp.zeros_like(rows), rows)


EMBEDDING_BACKWARD = defop(
    "embedding_dense_backward", "EmbeddingDenseBackwardBackward0", ("grad_output", "indices"),
    _embedding_backward,
    lambda xp, grad, indices, padding_idx: _embedding_double_backward(xp, grad, indices,
                                                                      padding_idx), None)
EMBEDDING = defop(
    "embedding", "EmbeddingBackward0", ("weight", "indices"), _embedding,
    lambda xp, grad, self_shape, indices, padding_idx, scale_grad_by_freq:
    xp.embedding_dense_backward(grad, indices, num_weights=self_shape[0],
                                padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq),
    None)

# --- convolution (engine/nn_layers.conv1d, conv2d) ----------------------------------------------
# One op for 1-d and 2-d convolutions, as ATen's ``convolution``: a 1-d one runs as the 2-d one
# over (N, C, 1, L).  Its gradients are two more ops, each bilinear, whose formulas are the
# three ops again, so that every order of derivative is a convolution.
def _as_2d(xp: Any, x: Any, stride: tuple, padding: tuple, dilation: tuple) -> tuple:
    if x.ndim == 3:
        return xp.expand_dims(x, axis=2), (1, *stride), (0, *padding), (1, *dilation)
    return x, tuple(stride), tuple(padding), tuple(dilation)


def _convolution(xp: Any, input: Any, weight: Any, bias: Any, stride: tuple = (1, 1),
                 padding: tuple = (0, 0), dilation: tuple = (1, 1), transposed: bool = False,
                 output_padding: tuple = (0, 0), groups: int = 1) -> Any:
    """Cross-correlation of ``input`` (N, C, [H,] W) with ``weight`` (O, C / groups, [kh,] kw)
    plus ``bias`` per output channel (K.conv2d)."""
    x, s, p, d = _as_2d(xp, input, stride, padding, dilation)
    w = xp.expand_dims(weight, axis=2) if weight.ndim == 3 else weight
    y = K.conv2d(xp, x, w, bias, s, p, d, groups)
    return y[:, :, 0, ...] if input.ndim == 3 else y


def _convolution_input_grad(xp: Any, grad_output: Any, weight: Any, input_shape: tuple = (),
                            stride: tuple = (1, 1), padding: tuple = (0, 0),
                            dilation: tuple = (1, 1), groups: int = 1) -> Any:
    """The input's gradient of a convolution, for a gradient ``grad_output`` of its output."""
    g, s, p, d = _as_2d(xp, grad_output, stride, padding, dilation)
    w = xp.expand_dims(weight, axis=2) if weight.ndim == 3 else weight
    shape = tuple(input_shape)
    shape2 = (*shape[:2], 1, shape[2]) if len(shape) == 3 else shape
    out = K.conv2d_input_grad(xp, g, w, shape2, s, p, d, groups)
    return out[:, :, 0, ...] if len(shape) == 3 else out


def _convolution_weight_grad(xp: Any, grad_output: Any, input: Any, weight_shape: tuple = (),
                             stride: tuple = (1, 1), padding: tuple = (0, 0),
                             dilation: tuple = (1, 1), groups: int = 1) -> Any:
    """The weight's gradient of a convolution of ``input``, for ``grad_output``."""
    g, s, p, d = _as_2d(xp, grad_output, stride, padding, dilation)
    x = xp.expand_dims(input, axis=2) if input.ndim == 3 else input
    shape = tuple(weight_shape)
    shape2 = (*shape[:2], 1, shape[2]) if len(shape) == 3 else shape
    out = K.conv2d_weight_grad(xp, g, x, shape2, s, p, d, groups)
    return out[:, :, 0, ...] if len(shape) == 3 else out


def _conv_axes(grad: Any) -> tuple:
    return (0, *range(2, len(tuple(grad.shape))))


CONVOLUTION_BACKWARD_INPUT = defop(
    "convolution_backward_input", "ConvolutionBackwardBackward0", ("grad_output", "weight"),
    _convolution_input_grad,
    lambda xp, grad, weight, stride, padding, dilation, groups: xp.convolution(
        grad, weight, None, stride=stride, padding=padding, dilation=dilation, groups=groups),
    lambda xp, grad, grad_output, weight, stride, padding, dilation, groups:
    xp.convolution_backward_weight(grad_output, grad, weight_shape=tuple(weight.shape),
                                   stride=stride, padding=padding, dilation=dilation,
                                   groups=groups),
    dtype="same")
CONVOLUTION_BACKWARD_WEIGHT = defop(
    "convolution_backward_weight", "ConvolutionBackwardBackward0", ("grad_output", "input"),
    _convolution_weight_grad,
    lambda xp, grad, input, stride, padding, dilation, groups: xp.convolution(
        input, grad, None, stride=stride, padding=padding, dilation=dilation, groups=groups),
    lambda xp, grad, grad_output, input, stride, padding, dilation, groups:
    xp.convolution_backward_input(grad_output, grad, input_shape=tuple(input.shape),
                                  stride=stride, padding=padding, dilation=dilation,
                                  groups=groups),
    dtype="same")
# NOTE: both formulas read input and weight, so the node saves both whatever needs grad, as
# PyTorch's ConvolutionBackward0 does (its one formula reads both).
CONVOLUTION = defop(
    "convolution", "ConvolutionBackward0", ("input", "weight", "bias"), _convolution,
    lambda xp, grad, input, weight, stride, padding, dilation, groups:
    xp.convolution_backward_input(grad, weight, input_shape=tuple(input.shape), stride=stride,
                                  padding=padding, dilation=dilation, groups=groups),
    lambda xp, grad, input, weight, stride, padding, dilation, groups:
    xp.convolution_backward_weight(grad, input, weight_shape=tuple(weight.shape), stride=stride,
                                   padding=padding, dilation=dilation, groups=groups),
    lambda xp, grad: xp.sum(grad, axis=_conv_axes(grad)),
    dtype="same")

# --- pooling (engine/convolution.py; the kernels' order in engine/windows.py) --------------------
MAX_POOL2D_BACKWARD = defop(
    "max_pool2d_with_indices_backward", "MaxPool2DWithIndicesBackwardBackward0",
    ("grad_output", "indices"),
    lambda xp, grad_output, indices, self_shape=(): W.scatter_planes(xp, grad_output, indices,
                                                                     tuple(self_shape)),
    lambda xp, grad, indices: xp.max_pool2d_with_indices(grad, indices), None)
# the windows' maxima are found by engine/convolution.py (W.max_pool_indices); the op gathers
# them, so that its values and PyTorch's result1 (the indices) are one computation
MAX_POOL2D = defop(
    "max_pool2d_with_indices", "MaxPool2DWithIndicesBackward0", ("self", "result1"),
    lambda xp, self, result1, kernel_size=(), stride=(), padding=(0, 0), dilation=(1, 1),
    ceil_mode=False: W.gather_planes(xp, self, result1),
    lambda xp, grad, self, result1: xp.max_pool2d_with_indices_backward(
        grad, result1, self_shape=tuple(self.shape)), None)
AVG_POOL2D_BACKWARD = defop(
    "avg_pool2d_backward", "AvgPool2DBackwardBackward0", ("grad_output",),
    lambda xp, grad_output, self_shape=(), kernel_size=(), stride=(), padding=(0, 0),
    ceil_mode=False, count_include_pad=True, divisor_override=None: W.avg_pool_backward(
        xp, grad_output, tuple(self_shape), kernel_size, stride, padding, count_include_pad,
        divisor_override),
    lambda xp, grad, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: xp.avg_pool2d(grad, kernel_size=kernel_size, stride=stride,
                                    padding=padding, ceil_mode=ceil_mode,
                                    count_include_pad=count_include_pad,
                                    divisor_override=divisor_override))


def _avg_pool2d(xp: Any, self: Any, kernel_size: tuple = (), stride: tuple = (),
                padding: tuple = (0, 0), ceil_mode: bool = False,
                count_include_pad: bool = True, divisor_override: Any = None) -> Any:
    out = tuple(W.out_size(self.shape[2 + d], kernel_size[d], stride[d], padding[d], 1, ceil_mode)
                for d in range(2))
    return W.avg_pool(xp, self, kernel_size, stride, padding, out, count_include_pad,
                      divisor_override)


AVG_POOL2D = defop(
    "avg_pool2d", "AvgPool2DBackward0", ("self",), _avg_pool2d,
    lambda xp, grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override: xp.avg_pool2d_backward(
        grad, self_shape=tuple(self.shape), kernel_size=kernel_size, stride=stride,
        padding=padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad,
        divisor_override=divisor_override),
    dtype="float_kernel", aten="avg_pool2d")
ADAPTIVE_AVG_POOL2D_BACKWARD = defop(
    "adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0", ("grad_output",),
    lambda xp, grad_output, self_shape=(): W.adaptive_avg_pool_backward(xp, grad_output,
                                                                        tuple(self_shape)),
    lambda xp, grad, grad_output: xp._adaptive_avg_pool2d(
        grad, output_size=tuple(grad_output.shape[2:])))
ADAPTIVE_AVG_POOL2D = defop(
    "_adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", ("self",),
    lambda xp, self, output_size=(): W.adaptive_avg_pool(xp, self, tuple(output_size)),
    lambda xp, grad, self: xp.adaptive_avg_pool2d_backward(grad, self_shape=tuple(self.shape)),
    dtype="float_kernel", aten="adaptive_avg_pool2d")

LEAKY_RELU = defop(
    "leaky_relu", "LeakyReluBackward0", ("self",),
    lambda xp, self, negative_slope=0.01: xp.where(self > 0, self, self * negative_slope),
    lambda xp, grad, self, negative_slope: xp.leaky_relu_backward(
        grad, self, negative_slope=negative_slope, self_is_result=False),
    kind="elementwise", surface=NN, domain=(-2, 2), dtype="float_kernel", aten="leaky_relu_cpu")
# In place (F.leaky_relu(x, inplace=True)) PyTorch saves the result instead of the input.
LEAKY_RELU_ = defop(
    "leaky_relu_", "LeakyReluBackward1", ("self",), LEAKY_RELU.forward,
    lambda xp, grad, result, negative_slope: xp.leaky_relu_backward(
        grad, result, negative_slope=negative_slope, self_is_result=True),
    kind="elementwise", dtype="float_kernel", aten="leaky_relu_cpu")
_GELU_PDF = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_BETA = math.sqrt(2.0 / math.pi)
_GELU_KAPPA = 0.044715


def _gelu(xp: Any, self: Any, approximate: str = "none") -> Any:
    if approximate == "tanh":
        return K.gelu_tanh(xp, self)
    if approximate != "none":
        raise ScriptError("approximate argument must be either none or tanh.")
    return K.gelu(xp, self)


def _gelu_backward(xp: Any, grad_output: Any, self: Any, approximate: str = "none") -> Any:
    """PyTorch's GeluBackward kernels, both forms (the exact one: oneDNN's or ATen's, as
    kernels.gelu_backward picks)."""
    if approximate == "tanh":
        return K.gelu_tanh_backward(xp, grad_output, self)
    return K.gelu_backward(xp, grad_output, self)


def _gelu_double_backward(xp: Any, grad: Any, grad_output: Any, self: Any,
                          approximate: str) -> Any:
    """FunctionsManual's gelu_double_backward: grad * grad_output * gelu''(self)."""
    if approximate == "tanh":
        inner = _GELU_BETA * (self + _GELU_KAPPA * (self * self * self))
        t = xp.tanh(inner)
        f = 0.5 * self
        g = 1 - t * t
        h = _GELU_BETA * (1 + 3 * _GELU_KAPPA * (self * self))
        g_prime = -2 * t * g * h  # d/dx (1 - tanh(u)^2) = -2 tanh(u) sech(u)^2 u'
        # d/dx of 0.5 (1 + tanh(u)) + f g h, f = x / 2: g h / 2 + (g h / 2 + f g' h + f g h')
        second = g * h + f * h * g_prime + f * g * (6 * _GELU_KAPPA * _GELU_BETA * self)
        return grad * grad_output * second
    sq = self * self
    pdf = _GELU_PDF * xp.exp(-0.5 * sq)
    return grad * grad_output * (2 * pdf - sq * pdf)


# F.gelu's gradient is PyTorch's gelu_backward kernel, an op of its own under create_graph=True
# (GeluBackwardBackward0), as tanh_backward below
GELU = defop("gelu", "GeluBackward0", ("self",), _gelu,
             lambda xp, grad, self, approximate: xp.gelu_backward(grad, self,
                                                                  approximate=approximate),
             kind="elementwise", surface=NN, domain=(-3, 3), dtype="float_kernel",
             aten="GeluKernelImpl")
GELU_BACKWARD = defop(
    "gelu_backward", "GeluBackwardBackward0", ("grad_output", "self"), _gelu_backward,
    lambda xp, grad, self, approximate: xp.gelu_backward(grad, self, approximate=approximate),
    lambda xp, grad, grad_output, self, approximate: _gelu_double_backward(
        xp, grad, grad_output, self, approximate), kind="elementwise")
SILU = defop("silu", "SiluBackward0", ("self",), K.silu,
             lambda xp, grad, self: xp.silu_backward(grad, self),
             kind="elementwise", surface=NN, domain=(-3, 3), dtype="float_kernel", aten="silu_cpu")
# NOTE: the negative branch is taken at 0 itself (x <= 0), as PyTorch's elu_backward.
ELU = defop("elu", "EluBackward0", ("self",),
            lambda xp, self, alpha=1.0: K.elu(xp, self, alpha, 1.0, 1.0),
            lambda xp, grad, self, alpha: _elu_backward(xp, grad, self, alpha, 1.0, 1.0, False),
            kind="elementwise", surface=NN, domain=(-2, 2), dtype="float_kernel", aten="elu_cpu")
ELU_ = defop("elu_", "EluBackward1", ("self",), ELU.forward,
             lambda xp, grad, result, alpha: _elu_backward(xp, grad, result, alpha, 1.0, 1.0, True),
             kind="elementwise", dtype="float_kernel", aten="elu_cpu")

# --- reductions ---------------------------------------------------------------------------------
SUM = defop("sum", "SumBackward0", ("self",), lambda xp, self: K.sum(xp, self),
            lambda xp, grad, self_shape: xp.broadcast_to(grad, self_shape), dtype="sum")
SUM_DIM = defop("sum_dim", "SumBackward1", ("self",),
                lambda xp, self, dim, keepdim: K.sum(xp, self, dim, keepdim),
                lambda xp, grad, self_shape, dim, keepdim: _keep_dims(xp, grad, self_shape, dim,
                                                                      keepdim), dtype="sum")
# NOTE: PyTorch's mean is its sum divided by the count (an empty tensor's is nan).
MEAN = defop("mean", "MeanBackward0", ("self",), lambda xp, self: K.mean(xp, self),
             lambda xp, grad, self_shape: xp.broadcast_to(grad / _count(self_shape, None),
                                                          self_shape), dtype="float_only")
MEAN_DIM = defop("mean_dim", "MeanBackward1", ("self",),
                 lambda xp, self, dim, keepdim: K.mean(xp, self, dim, keepdim),
                 lambda xp, grad, self_shape, dim, keepdim: _keep_dims(
                     xp, grad / _count(self_shape, dim), self_shape, dim, keepdim),
                     dtype="float_only")


def _distribute(xp: Any, grad: Any, self: Any, result: Any) -> Any:
    # NOTE: ties share the gradient evenly, as PyTorch's evenly_distribute_backward.
    mask = _where_eq(xp, self, result)
    return xp.where(mask, grad / float(xp.count_nonzero(mask)), 0.0)


MAX = defop("max", "MaxBackward1", ("self",), lambda xp, self: xp.max(self), _distribute)
MIN = defop("min", "MinBackward1", ("self",), lambda xp, self: xp.min(self), _distribute)


def _kept(xp: Any, g: Any, shape: tuple, dim: tuple | None) -> Any:
    """A reduced value reshaped so it broadcasts against the unreduced ``shape``."""
    return xp.reshape(g, tuple(1 if dim is None or i in dim else d for i, d in enumerate(shape)))


def _positions(xp: Any, shape: tuple, dim: int) -> Any:
    """Each element's index along ``dim``, shaped to broadcast against ``shape`` (a constant)."""
    n = shape[dim]
    return xp.reshape(xp.arange(n), tuple(n if i == dim else 1 for i in range(len(shape))))


def _gather(xp: Any, self: Any, indices: Any, dim: int, keepdim: bool) -> Any:
    if self.ndim == 0:
        return self + 0
    idx = indices if keepdim else xp.expand_dims(indices, axis=dim)
    out = xp.take_along_axis(self, idx, axis=dim)
    return out if keepdim else xp.squeeze(out, axis=dim)


def _select_indices(xp: Any, grad: Any, indices: Any, self_shape: tuple, dim: int) -> Any:
    """PyTorch's value_selecting_reduction_backward: ``grad`` where ``indices`` point, else 0."""
    if not self_shape:
        return grad
    kept = tuple(1 if i == dim else d for i, d in enumerate(self_shape))
    idx = xp.raw.reshape(_raw(indices), kept)
    return xp.where(_positions(xp.raw, self_shape, dim) == idx, xp.reshape(grad, kept), 0.0)


# ``x.max(dim)``: ``indices`` are computed first (engine.reductions) and gathered from.
MAX_DIM = defop("max_dim", "MaxBackward0", ("self", "indices"), _gather,
                lambda xp, grad, indices, self_shape, dim: _select_indices(
                    xp, grad, indices, self_shape, dim), None)
MIN_DIM = defop("min_dim", "MinBackward0", ("self", "indices"), _gather,
                lambda xp, grad, indices, self_shape, dim: _select_indices(
                    xp, grad, indices, self_shape, dim), None)


def _var(xp: Any, self: Any, dim: tuple | None, correction: float, keepdim: bool) -> Any:
    n = _count(self.shape, dim)
    centred = self - xp.sum(self, axis=dim, keepdims=True) / n
    # NOTE: with no degrees of freedom left (n <= correction) this divides by 0: inf or nan,
    # as PyTorch (which also warns, engine.reductions)
    return xp.sum(centred * centred, axis=dim, keepdims=keepdim) / max(n - correction, 0)


def _var_grad(xp: Any, grad: Any, self: Any, dim: tuple | None, correction: float) -> Any:
    # PyTorch's var_backward; with no degrees of freedom the gradient is inf (nan at the mean)
    shape = tuple(self.shape)
    n = _count(shape, dim)
    mean = xp.sum(self, axis=dim, keepdims=True) / n
    g = _kept(xp, grad, shape, dim)
    if n - correction <= 0:
        s = _raw(self)
        nan_inf = xp.raw.where(s == _raw(mean), math.nan, math.inf)
        return g * xp.const(xp.raw.astype(nan_inf, s.dtype))
    return (2.0 / (n - correction)) * g * (self - mean)


VAR = defop("var", "VarBackward0", ("self",),
            lambda xp, self, dim, correction, keepdim: K.var_std(
                xp, self, dim, correction, keepdim, False,
                lambda xp: _var(xp, self, dim, correction, keepdim)),
            lambda xp, grad, self, dim, correction: _var_grad(xp, grad, self, dim, correction))
STD = defop("std", "StdBackward0", ("self",),
            lambda xp, self, dim, correction, keepdim: K.var_std(
                xp, self, dim, correction, keepdim, True,
                lambda xp: xp.sqrt(_var(xp, self, dim, correction, keepdim))),
            lambda xp, grad, self, result, dim, correction: _var_grad(
                xp, xp.where(_raw(result) == 0, 0.0, grad / (2 * result)), self, dim, correction))


def _vector_norm(xp: Any, self: Any, ord: float, dim: tuple | None, keepdim: bool) -> Any:
    return K.vector_norm(xp, self, ord, dim, keepdim,
                         lambda xp: _plain_vector_norm(xp, self, ord, dim, keepdim))


def _plain_vector_norm(xp: Any, self: Any, ord: float, dim: tuple | None, keepdim: bool) -> Any:
    a = xp.abs(self)
    if ord == math.inf:
        return xp.max(a, axis=dim, keepdims=keepdim)
    if ord == -math.inf:
        return xp.min(a, axis=dim, keepdims=keepdim)
    if ord == 0:
        return xp.sum(xp.astype(a != 0, a.dtype), axis=dim, keepdims=keepdim)
    if ord == 1:
        return xp.sum(a, axis=dim, keepdims=keepdim)
    if ord == 2:
        return xp.sqrt(xp.sum(a * a, axis=dim, keepdims=keepdim))
    return xp.sum(a ** ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm_grad(xp: Any, grad: Any, self: Any, result: Any, ord: float,
                      dim: tuple | None, meet: Callable | None = None) -> Any:
    """PyTorch's norm_backward, one branch per order. ``meet`` converts a 0-d double operand
    where PyTorch's type promotion converts it, on meeting the float32 input
    (vector_norm(dtype=) of every dim: a 0-d tensor takes no part in the promotion)."""
    shape = tuple(self.shape)
    g, norm = (_kept(xp, t, shape, dim) for t in (grad, result))
    zero = _raw(norm) == 0
    m = meet or (lambda t: t)
    if ord == 0:
        return xp.zeros_like(self * m(g))
    if ord == 1:
        return xp.sign(self) * m(g)
    if ord == 2:
        return m(g) * xp.where(zero, 0.0, self / m(norm))
    if math.isinf(ord):  # the gradient is shared by the elements that reach the max (min)
        s = _raw(self)
        mask = (xp.raw.abs(s) == _raw(norm)) | xp.raw.isnan(s)
        count = xp.raw.sum(xp.raw.astype(mask, s.dtype), axis=dim, keepdims=True)
        # sgn(self) * ((grad / count) * mask): the zeros keep the signs PyTorch's have
        return xp.sign(self) * ((g / xp.const(count)) * xp.const(xp.raw.astype(mask, s.dtype)))
    if ord < 1:
        scaled = xp.where(_raw(self) == 0, 0.0,
                          xp.sign(self) * xp.power(xp.abs(self), ord - 1))
        return scaled * m(g) * m(xp.power(norm, 1 - ord))
    scaled = xp.sign(self) * xp.power(xp.abs(self), ord - 1) if ord < 2 else \
        self * xp.power(xp.abs(self), ord - 2)
    return scaled * m(xp.where(zero, 0.0, g / xp.power(norm, ord - 1)))


VECTOR_NORM = defop("linalg_vector_norm", "LinalgVectorNormBackward0", ("self",), _vector_norm,
                    lambda xp, grad, self, result, ord, dim: _vector_norm_grad(
                        xp, grad, self, result, ord, dim), dtype="float_only")
# vector_norm(dtype=): the input converted to ``dtype`` first (PyTorch's make_reduction), the
# same node; its formula reads the input as it was, the norm and grad in ``dtype``
VECTOR_NORM_TO = defop("linalg_vector_norm_to", "LinalgVectorNormBackward0", ("self",),
                       lambda xp, self, ord, dim, keepdim, dtype: _vector_norm(
                           xp, self, ord, dim, keepdim),
                       lambda xp, grad, self, result, ord, dim: _vector_norm_grad(
                           xp, grad, self, result, ord, dim,
                           (lambda t: xp.astype(t, _raw(self).dtype))
                           if result.ndim == 0 and self.ndim else None),
                       dtype="to")


def _prod_grad(xp: Any, grad: Any, self: Any, result: Any, dim: tuple | None) -> Any:
    """PyTorch's prod_backward: result / x; where the slice has zeros, the product of the others
    written so that it stays differentiable (second derivatives) through the zero."""
    shape = tuple(self.shape)
    if not shape:
        return grad
    g = _kept(xp, grad, shape, dim)
    zero = _raw(self) == 0
    raw = xp.raw
    if not bool(raw.any(zero)):
        return g * (_kept(xp, result, shape, dim) / self)
    safe = xp.where(zero, 1.0, self)
    zeros = raw.sum(raw.astype(zero, raw.int64), axis=dim, keepdims=True)
    others = xp.prod(safe, axis=dim, keepdims=True)  # the product of the nonzero elements
    the_zero = xp.sum(xp.where(zero, self, 0.0), axis=dim, keepdims=True)  # 0, but it varies
    nonzero = others / safe
    share = xp.where(zero, others, xp.where(zeros == 0, nonzero, the_zero * nonzero))
    return g * xp.where(zeros >= 2, 0.0, share)


PROD = defop("prod", "ProdBackward0", ("self",), lambda xp, self: xp.prod(self),
             lambda xp, grad, self, result: _prod_grad(xp, grad, self, result, None), dtype="sum")
PROD_DIM = defop("prod_dim", "ProdBackward1", ("self",),
                 lambda xp, self, dim, keepdim: xp.prod(self, axis=dim, keepdims=keepdim),
                 lambda xp, grad, self, result, dim: _prod_grad(xp, grad, self, result, (dim,)),
                 dtype="sum")

# --- linear algebra -----------------------------------------------------------------------------
def column_major(x: Any) -> bool:
    """Whether a matrix's strides are column-major as FunctionsManual's mm backward tests them
    (``strides[0] == 1 && strides[1] == sizes[0]``, in elements): mm and addmm record it of
    their operands (``layouts``), as PyTorch's nodes save their sizes and strides."""
    a = _raw(x)
    strides = getattr(a, "strides", None)
    return strides is not None and a.ndim == 2 and strides[0] == a.itemsize and \
        strides[1] == a.shape[0] * a.itemsize


def _mm_mat1_grad(xp: Any, grad: Any, mat2: Any, layouts: tuple[bool, bool]) -> Any:
    """mm_mat1_backward: for a column-major mat1 the product taken transposed,
    (mat2 @ grad.t()).t(), else grad @ mat2.t() (MKL's sums follow the operands' layout)."""
    t = (1, 0)
    if layouts[0]:
        return xp.permute_dims(xp.matmul(mat2, xp.permute_dims(grad, t)), t)
    return xp.matmul(grad, xp.permute_dims(mat2, t))


def _mm_mat2_grad(xp: Any, grad: Any, mat1: Any, layouts: tuple[bool, bool]) -> Any:
    """mm_mat2_backward: for a column-major mat2 (a weight's transpose, as F.linear passes it)
    (grad.t() @ mat1).t(), else mat1.t() @ grad."""
    t = (1, 0)
    if layouts[1]:
        return xp.permute_dims(xp.matmul(xp.permute_dims(grad, t), mat1), t)
    return xp.matmul(xp.permute_dims(mat1, t), grad)


# ``layouts``: whether (mat1, mat2) were column-major (column_major), as the forward saw them
MM = defop("mm", "MmBackward0", ("self", "mat2"),
           lambda xp, self, mat2, layouts=(False, False): K.matmul(xp, self, mat2),
           lambda xp, grad, mat2, layouts: _mm_mat1_grad(xp, grad, mat2, layouts),
           lambda xp, grad, self, layouts: _mm_mat2_grad(xp, grad, self, layouts),
           dtype="same")
MV = defop("mv", "MvBackward0", ("self", "vec"), lambda xp, self, vec: K.matmul(xp, self, vec),
           lambda xp, grad, vec: xp.reshape(grad, (-1, 1)) * xp.reshape(vec, (1, -1)),
           lambda xp, grad, self: xp.matmul(xp.permute_dims(self, (1, 0)), grad),
           dtype="same")
DOT = defop("dot", "DotBackward0", ("self", "tensor"),
            lambda xp, self, tensor: K.matmul(xp, self, tensor),
            lambda grad, tensor: grad * tensor,
            lambda grad, self: grad * self, dtype="same")

BMM = defop("bmm", "BmmBackward0", ("self", "mat2"), lambda xp, self, mat2: K.bmm(xp, self, mat2),
            lambda xp, grad, mat2: xp.bmm(grad, xp.permute_dims(mat2, (0, 2, 1))),
            lambda xp, grad, self: xp.bmm(xp.permute_dims(self, (0, 2, 1)), grad),
            dtype="same")
# addmm(self, mat1, mat2) = self + mat1 @ mat2, as F.linear calls it (bias, input, weight.t()):
# gemm adding the product into self (K.addmm); mat1's and mat2's gradients as mm's
ADDMM = defop("addmm", "AddmmBackward0", ("self", "mat1", "mat2"),
              lambda xp, self, mat1, mat2, layouts=(False, True): K.addmm(xp, self, mat1, mat2),
              lambda grad: grad,
              lambda xp, grad, mat2, layouts: _mm_mat1_grad(xp, grad, mat2, layouts),
              lambda xp, grad, mat1, layouts: _mm_mat2_grad(xp, grad, mat1, layouts),
              dtype="same")

# --- joins (several tensors into one) -----------------------------------------------------------
# Each input's gradient is its slice of the result's.
CAT = defop("cat", "CatBackward0", ("tensors",),
            lambda xp, *tensors, dim, sizes: xp.concat(tensors, axis=dim),
            lambda grad, position, dim, sizes: grad[_index(dim, slice(sum(sizes[:position]),
                                                                   sum(sizes[:position + 1])))],
            variadic=True, dtype="promote")
STACK = defop("stack", "StackBackward0", ("tensors",),
              lambda xp, *tensors, dim: xp.stack(tensors, axis=dim),
              lambda grad, position, dim: grad[_index(dim, position)], variadic=True,
              dtype="promote")


def _repeat_grad(xp: Any, grad: Any, self_shape: tuple, repeats: tuple) -> Any:
    # the result is (r0 * s0, r1 * s1, ...): view it as (r0, s0, r1, s1, ...), sum the r's
    padded = (1,) * (len(repeats) - len(self_shape)) + tuple(self_shape)
    split = tuple(n for pair in zip(repeats, padded) for n in pair)
    g = xp.sum(xp.reshape(grad, split), axis=tuple(range(0, len(split), 2)))
    return xp.reshape(g, self_shape)


REPEAT = defop("repeat", "RepeatBackward0", ("self",),
               lambda xp, self, repeats: xp.tile(
                   xp.reshape(self, (1,) * (len(repeats) - self.ndim) + self.shape), repeats),
               lambda xp, grad, self_shape, repeats: _repeat_grad(xp, grad, self_shape, repeats))

# --- shape (views) ------------------------------------------------------------------------------
VIEW = defop("view", "ViewBackward0", ("self",), lambda xp, self, shape: xp.reshape(self, shape),
             lambda xp, grad, self_shape: xp.reshape(grad, self_shape), kind="view")
UNSAFE_VIEW = defop("unsafe_view", "UnsafeViewBackward0", ("self",),
                    lambda xp, self, shape: xp.reshape(self, shape),
                    lambda xp, grad, self_shape: xp.reshape(grad, self_shape))
# reshape of a tensor that is not contiguous but can still be viewed with the new shape
RESHAPE_ALIAS = defop("reshape_alias", "ReshapeAliasBackward0", ("self",),
                      lambda xp, self, shape: xp.reshape(self, shape),
                      lambda xp, grad, self_shape: xp.reshape(grad, self_shape), kind="view")
T = defop("t", "TBackward0", ("self",), lambda xp, self: _reverse_dims(xp, self),
          lambda xp, grad: _reverse_dims(xp, grad), kind="view")
PERMUTE = defop("permute", "PermuteBackward0", ("self",),
                lambda xp, self, dims: xp.permute_dims(self, dims),
                lambda xp, grad, dims: xp.permute_dims(grad, _inverse(dims)), kind="view")
TRANSPOSE = defop("transpose", "TransposeBackward0", ("self",),
                  lambda xp, self, dim0, dim1: xp.permute_dims(self, _swap(self.ndim, dim0, dim1)),
                  lambda xp, grad, dim0, dim1: xp.permute_dims(grad, _swap(grad.ndim, dim0, dim1)),
                  kind="view")
# x.transpose_(d0, d1) on a fresh result (RNN.cpp's batch_first output): PyTorch's node is
# TransposeBackward1; gradcli records it as a view of that result
TRANSPOSE_INPLACE = defop("transpose_", "TransposeBackward1", ("self",), TRANSPOSE.forward,
                          *(f for f, _ in TRANSPOSE.formulas), kind="view")
UNSQUEEZE = defop("unsqueeze", "UnsqueezeBackward0", ("self",),
                  lambda xp, self, dim: xp.expand_dims(self, axis=dim),
                  lambda xp, grad, self_shape: xp.reshape(grad, self_shape), kind="view")
SQUEEZE = defop("squeeze", "SqueezeBackward0", ("self",),
                lambda xp, self, shape: xp.reshape(self, shape),
                lambda xp, grad, self_shape: xp.reshape(grad, self_shape), kind="view")
SQUEEZE_DIM = defop("squeeze_dim", "SqueezeBackward1", ("self",),
                    lambda xp, self, shape, dim: xp.reshape(self, shape),
                    lambda xp, grad, self_shape: xp.reshape(grad, self_shape), kind="view")
# 1-D @ 2-D is unsqueeze(0) -> mm -> squeeze(0) in PyTorch, whose last step is SqueezeBackward4.
SQUEEZE_SYM = defop("squeeze_sym", "SqueezeBackward4", ("self",),
                    lambda xp, self, shape, dim: xp.reshape(self, shape),
                    lambda xp, grad, self_shape: xp.reshape(grad, self_shape))
SELECT = defop("select", "SelectBackward0", ("self",),
               lambda xp, self, dim, index: self[_index(dim, index)],
               lambda xp, grad, self_shape, dim, index: xp.select_backward(grad, self_shape, dim,
                                                                          index), kind="view")
# NOTE: PyTorch's unbind is one node with an output per slice; gradcli gives each slice a node
# of the same name (same gradients, saves nothing either way).
UNBIND = defop("unbind", "UnbindBackward0", ("self",),
               lambda xp, self, dim, index: self[_index(dim, index)],
               lambda xp, grad, self_shape, dim, index: xp.select_backward(grad, self_shape, dim,
                                                                          index), kind="view")
# torch.split / chunk: each piece is a slice along dim (as unbind, a node per piece).
def _piece(xp: Any, self: Any, dim: int, start: int, stop: int) -> Any:
    return self[_index(dim, slice(start, stop))]


def _piece_backward(xp: Any, grad: Any, self_shape: tuple, dim: int, start: int,
                    stop: int) -> Any:
    return xp.slice_backward(grad, self_shape, dim, start, stop, 1)


SPLIT = defop("split", "SplitBackward0", ("self",), _piece, _piece_backward, kind="view")
SPLIT_WITH_SIZES = defop("split_with_sizes", "SplitWithSizesBackward0", ("self",), _piece,
                         _piece_backward, kind="view")
# unsafe_split (the recurrent cells' gates): the pieces share the input's memory, as
# PyTorch's do, but are not views to autograd (in-place updates of them rewrite no history);
# an elementwise kernel on a piece runs over its strided rows as PyTorch's loops do
UNSAFE_SPLIT = defop("unsafe_split", "UnsafeSplitBackward0", ("self",), _piece,
                     _piece_backward)
SLICE = defop("slice", "SliceBackward0", ("self",),
              lambda xp, self, dim, start, stop, step: self[_index(dim, slice(start, stop, step))],
              lambda xp, grad, self_shape, dim, start, stop, step: xp.slice_backward(
                  grad, self_shape, dim, start, stop, step), kind="view")
EXPAND = defop("expand", "ExpandBackward0", ("self",),
               lambda xp, self, shape: xp.broadcast_to(self, shape),
               lambda grad: grad, kind="view")  # the engine sums the gradient back down


def _select_backward(xp: Any, grad: Any, shape: tuple, dim: int, index: int) -> Any:
    out = xp.zeros(shape, dtype=grad.dtype)
    out[_index(dim, index)] = grad
    return out


def _slice_backward(xp: Any, grad: Any, shape: tuple, dim: int, start: int, stop: int,
                    step: int) -> Any:
    out = xp.zeros(shape, dtype=grad.dtype)
    out[_index(dim, slice(start, stop, step))] = grad
    return out


SELECT_BACKWARD = defop(
    "select_backward", "SelectBackwardBackward0", ("grad_output",),
    lambda xp, grad_output, shape, dim, index: _select_backward(xp, grad_output, shape, dim, index),
    lambda xp, grad, dim, index: grad[_index(dim, index)])
SLICE_BACKWARD = defop(
    "slice_backward", "SliceBackwardBackward0", ("grad_output",),
    lambda xp, grad_output, shape, dim, start, stop, step: _slice_backward(
        xp, grad_output, shape, dim, start, stop, step),
    lambda xp, grad, dim, start, stop, step: grad[_index(dim, slice(start, stop, step))])

# --- advanced indexing (indexing.py) ------------------------------------------------------------
# ``indices`` holds, in the shape of the result, each element's flat position in ``self``
# (worked out on the host from ints, lists, int tensors and bool masks); it is an input without
# a gradient, so nodes save it as PyTorch's do (``_saved_indices``), and a second backward
# through them needs retain_graph.
def _index_put(xp: Any, self: Any, indices: Any, values: Any) -> Any:
    shape = tuple(indices.shape)
    if hasattr(values, "shape"):
        values = xp.reshape(xp.broadcast_to(values, shape), (-1,))
    flat = index_put(xp, xp.reshape(self, (-1,)), xp.reshape(indices, (-1,)), values, False)
    return xp.reshape(flat, tuple(self.shape))


INDEX = defop("index", "IndexBackward0", ("self", "indices"), take_flat,
              lambda xp, grad, self_shape, indices: xp.index_backward(grad, self_shape, indices),
              None)
INDEX_PUT = defop("index_put_", "IndexPutBackward0", ("self", "indices", "values"), _index_put,
                  lambda xp, grad, indices: xp.index_fill(grad, indices),
                  None,
                  lambda xp, grad, indices: xp.take_at(grad, indices))
# ``x[1:3] = v``: copy_ into a view (graph.CopySlices records it on the base); also
# AccumulateGrad's first gradient under create_graph=True (PyTorch's empty_strided().copy_()).
COPY = defop("copy_", "CopyBackwards", ("self", "src"),
             lambda xp, self, src: xp.broadcast_to(src, tuple(self.shape)) if hasattr(src, "shape")
             else xp.full(tuple(self.shape), src, dtype=self.dtype),
             lambda xp, grad: xp.zeros_like(grad),
             lambda grad: grad)
# What IndexBackward0's formula records under create_graph=True: index_put(zeros, indices,
# grad, accumulate=True).
INDEX_BACKWARD = defop(
    "index_backward", "IndexPutBackward0", ("grad_output", "indices"),
    lambda xp, grad_output, indices, shape: K.scatter_add(xp, shape, indices, grad_output),
    lambda xp, grad, indices: xp.take_at(grad, indices), None)


# --- in-place updates through a view (record.apply_inplace) -----------------------------------
# The view's grad_fn after the update: its gradient lands in the base (``index`` holds each view
# element's flat position in the base; positions an expanded view shares add up).
AS_STRIDED = defop(
    "as_strided", "AsStridedBackward0", ("self",), None,
    lambda xp, grad, index, base_shape: xp.index_backward(grad, base_shape, index))
# The op name listings show for a base rewritten through its view (graph.CopySlices).
COPY_SLICES = defop("copy_slices", "CopySlices", ("self",), None, None)

# --- neural -------------------------------------------------------------------------------------


def _mse(xp: Any, self: Any, target: Any, reduction: str) -> Any:
    sq = (self - target) * (self - target)
    if reduction == "none":
        return sq
    return K.mean(xp, sq) if reduction == "mean" else K.sum(xp, sq)


def _mse_norm(shape: tuple, reduction: str) -> float:
    return 2.0 / _count(shape, None) if reduction == "mean" else 2.0


SOFTMAX = defop("softmax", "SoftmaxBackward0", ("self",), K.softmax,
                lambda xp, grad, result, dim: xp.softmax_backward(grad, result, dim=dim),
                dtype="float")
LOG_SOFTMAX = defop("log_softmax", "LogSoftmaxBackward0", ("self",), K.log_softmax,
                    lambda xp, grad, result, dim: xp.log_softmax_backward(grad, result,
                                                                                      dim=dim),
                    dtype="float")
MSE_LOSS = defop("mse_loss", "MseLossBackward0", ("self", "target"), _mse,
                 lambda grad, self, target, self_shape, reduction: _mse_norm(
                     self_shape, reduction) * (self - target) * grad,
                 lambda grad, self, target, self_shape, reduction: _mse_norm(
                     self_shape, reduction) * (target - self) * grad, dtype="float_kernel",
                 aten="mse_cpu")


# --- losses (torch.nn.functional; their dispatch is engine.nn_functional) -----------------------
def _reduce_loss(xp: Any, loss: Any, reduction: str) -> Any:
    """ATen's apply_loss_reduction: ``loss.mean()`` or ``loss.sum()`` (the cascade sum)."""
    if reduction == "none":
        return loss
    return K.mean(xp, loss) if reduction == "mean" else K.sum(xp, loss)


def _per_element(g: Any, self_shape: tuple, reduction: str) -> Any:
    """A loss gradient's share per element: divided by the count under 'mean'."""
    return g / _count(self_shape, None) if reduction == "mean" else g


def _nll(xp: Any, self: Any, target: Any, weight: Any, total_weight: Any, reduction: str,
         ignore_index: int) -> Any:
    if weight is None and reduction != "none" and self.ndim == 2:
        total = K.nll_forward(xp, self, target, ignore_index)  # one C loop, where it can
        if total is not None:
            return total / total_weight if reduction == "mean" else total
    c = self.shape[-1]
    t = xp.reshape(target, (-1,))
    valid = t != ignore_index
    safe = xp.where(valid, t, xp.zeros_like(t))
    rows = xp.arange(t.shape[0], dtype=xp.int64) * c  # each row's first element, flat
    picked = xp.take(xp.reshape(self, (-1,)), rows + xp.astype(safe, xp.int64))
    if weight is not None:
        picked = picked * xp.take(weight, safe)
    if reduction == "none":
        losses = xp.where(valid, -picked, 0.0)  # an ignored target gives +0, never -0
        return losses if self.ndim == 2 else xp.reshape(losses, ())
    total = K.nll_sum(xp, picked, valid)  # ATen's cascade over the rows
    return total / total_weight if reduction == "mean" else total


def _nll_grad(xp: Any, grad: Any, self: Any, target: Any, weight: Any, total_weight: Any,
              reduction: str, ignore_index: int) -> Any:
    """-weight[t] (/ total_weight) at each row's target class, 0 elsewhere."""
    raw = xp.raw
    shape = tuple(self.shape)
    c = shape[-1]
    tshape = tuple(target.shape)
    if len(shape) == 1 and len(tshape) == 1 and tshape[0] != c:
        # NOTE: PyTorch's nll_loss_backward refuses the 1-D target its forward accepted
        raise ScriptError(f"size mismatch (got input: {list(shape)}, target: {list(tshape)})")
    tw = _raw(total_weight)
    if weight is None and len(shape) == 2 and reduction != "none" and \
            xp.__class__ is ArrayFormulas:  # plain backward: one scatter (exact kernels)
        fast = K.nll_grad(raw, _raw(grad), _raw(target), tw, shape, ignore_index,
                          reduction == "mean")
        if fast is not None:
            return fast
    t = raw.reshape(_raw(target), (-1, 1))
    valid = t != ignore_index
    safe = raw.where(valid, t, raw.zeros_like(t))
    hit = (raw.reshape(raw.arange(c), (1, c)) == safe) & valid
    coef = raw.full((1, 1), -1.0, dtype=tw.dtype) if weight is None else -raw.reshape(
        raw.take(_raw(weight), raw.reshape(safe, (-1,))), (-1, 1))
    if reduction == "mean":
        coef = coef / tw
    g = xp.reshape(grad, (-1, 1)) if reduction == "none" else grad
    return xp.reshape(xp.where(hit, g * xp.const(coef), 0.0), shape)


# ``total_weight`` (the sum of the targets' weights, PyTorch's second output) is computed by
# the dispatch and passed in, so the node saves it as PyTorch's does.
NLL_LOSS = defop("nll_loss", "NllLossBackward0", ("self", "target", "weight", "total_weight"),
                 _nll, _nll_grad, None, None, None, aten="nll_loss_forward")


def _bce(xp: Any, self: Any, target: Any, weight: Any, reduction: str) -> Any:
    # PyTorch's kernel: log terms clamped at -100, so 0 and 1 give finite losses
    loss = (target - 1) * xp.maximum(xp.log1p(-self), -100.0) \
        - target * xp.maximum(xp.log(self), -100.0)
    return _reduce_loss(xp, loss if weight is None else loss * weight, reduction)


def _bce_grad(xp: Any, grad: Any, self: Any, target: Any, weight: Any, reduction: str) -> Any:
    g = grad * (self - target) / xp.clamp_min((1 - self) * self, 1e-12)  # PyTorch's EPSILON
    return _per_element(g if weight is None else g * weight, tuple(self.shape), reduction)


def _bce_target_grad(xp: Any, grad: Any, self: Any, target: Any, weight: Any,
                     reduction: str) -> Any:
    g = -xp.log(self / (1 - self)) * grad  # -logit(self)
    return _per_element(g if weight is None else g * weight, tuple(self.shape), reduction)


BINARY_CROSS_ENTROPY = defop("binary_cross_entropy", "BinaryCrossEntropyBackward0",
                             ("self", "target", "weight"), _bce, _bce_grad, _bce_target_grad,
                             None, dtype="float_kernel", aten="binary_cross_entropy")


def _bce_logits(xp: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                reduction: str) -> Any:
    log_sig = K.logsigmoid(xp, self)  # ATen: (1 - target) * input - log_sigmoid(input)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * self - log_sig
    return _reduce_loss(xp, loss if weight is None else loss * weight, reduction)


def _bce_logits_grad(xp: Any, grad: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                     reduction: str) -> Any:
    if pos_weight is not None:
        t = pos_weight * target
        g = (xp.sigmoid(self) * (t + 1 - target) - t) * grad
    else:
        g = (xp.sigmoid(self) - target) * grad
    return _per_element(g if weight is None else g * weight, tuple(self.shape), reduction)


def _bce_logits_target_grad(xp: Any, grad: Any, self: Any, target: Any, weight: Any,
                            pos_weight: Any, reduction: str) -> Any:
    if pos_weight is not None:
        g = (xp.logsigmoid(-self) - xp.logsigmoid(self) * pos_weight) * grad
    else:
        g = -self * grad
    return _per_element(g if weight is None else g * weight, tuple(self.shape), reduction)


BCE_WITH_LOGITS = defop("binary_cross_entropy_with_logits",
                        "BinaryCrossEntropyWithLogitsBackward0",
                        ("self", "target", "weight", "pos_weight"), _bce_logits, _bce_logits_grad,
                        _bce_logits_target_grad, None, None, dtype="promote")


def _smooth_l1(xp: Any, self: Any, target: Any, reduction: str, beta: float) -> Any:
    z = xp.abs(self - target)
    return _reduce_loss(xp, xp.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def _norm(shape: tuple, reduction: str) -> float:
    """ATen's loss backwards' ``norm``: 1 / numel under 'mean', multiplied in (not divided)."""
    return 1.0 / _count(shape, None) if reduction == "mean" else 1.0


def smooth_l1_grad(xp: Any, grad: Any, x: Any, y: Any, reduction: str, beta: float) -> Any:
    # (beta > 0: smooth_l1_loss takes l1_loss's ops for beta = 0)
    norm = _norm(tuple(x.shape), reduction)
    if x.__class__ is not Tensor:  # ATen's kernel
        return K.smooth_l1_backward(xp.raw, grad, x, y, norm, beta)
    d = _raw(x) - _raw(y)  # create_graph=True: differentiable in x, y and grad
    return (norm * xp.where(d <= -beta, -1.0, xp.where(d >= beta, 1.0, (x - y) / beta))) * grad


SMOOTH_L1_LOSS = defop(
    "smooth_l1_loss", "SmoothL1LossBackward0", ("self", "target"), _smooth_l1,
    lambda xp, grad, self, target, reduction, beta: smooth_l1_grad(xp, grad, self, target,
                                                                    reduction, beta),
    lambda xp, grad, self, target, reduction, beta: smooth_l1_grad(xp, grad, target, self,
                                                                    reduction, beta),
    dtype="float_kernel", aten="smooth_l1_cpu")


def _huber(xp: Any, self: Any, target: Any, reduction: str, delta: float) -> Any:
    z = xp.abs(self - target)
    return _reduce_loss(xp, xp.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)),
                        reduction)


def huber_grad(xp: Any, grad: Any, x: Any, y: Any, reduction: str, delta: float) -> Any:
    norm = _norm(tuple(x.shape), reduction)
    if x.__class__ is not Tensor:  # ATen's kernel
        return K.huber_backward(xp.raw, grad, x, y, norm, delta)
    d = _raw(x) - _raw(y)  # create_graph=True: differentiable in x, y and grad
    return (norm * xp.where(d <= -delta, -delta, xp.where(d >= delta, delta, x - y))) * grad


HUBER_LOSS = defop(
    "huber_loss", "HuberLossBackward0", ("self", "target"), _huber,
    lambda xp, grad, self, target, reduction, delta: huber_grad(xp, grad, self, target,
                                                                 reduction, delta),
    lambda xp, grad, self, target, reduction, delta: huber_grad(xp, grad, target, self,
                                                                 reduction, delta),
    dtype="float_kernel", aten="huber_cpu")


# --- ops group B: selection, reordering, shape (engine/selection.py, shape.py, linalg.py) -------
# Selections read their elements by flat position: ``_along`` turns an index tensor along a dim
# into positions in the indexed tensor, so a gradient scatters back with index_backward (which
# adds duplicates) and picks with take_at, as the advanced indexing above does.
def _row_major(shape: tuple) -> list[int]:
    out, n = [], 1
    for d in reversed(shape):
        out.append(n)
        n *= d
    return out[::-1]


def _along(xp: Any, shape: tuple, index: Any, dim: int) -> Any:
    """The flat positions, in a tensor of ``shape``, of ``gather(dim, index)``'s elements:
    ``index``'s own coordinates with the one along ``dim`` replaced by its value."""
    idx = _raw(index)
    strides = _row_major(tuple(shape))
    pos = idx * strides[dim] if strides else idx
    nd = len(idx.shape)
    for d, n in enumerate(idx.shape):
        if d != dim:
            step = xp.arange(n, dtype=idx.dtype) * strides[d]
            pos = pos + xp.reshape(step, tuple(n if i == d else 1 for i in range(nd)))
    return pos


def _index_along(xp: Any, shape: tuple, index: Any, dim: int) -> Any:
    """``index_select``'s positions: the 1-D ``index`` spread over the other dims of ``shape``."""
    idx = _raw(index)
    nd = len(shape)
    if not nd:
        return xp.reshape(idx, ())
    full = tuple(idx.shape[0] if i == dim else n for i, n in enumerate(shape))
    spread = xp.broadcast_to(xp.reshape(idx, tuple(-1 if i == dim else 1 for i in range(nd))),
                             full)
    return _along(xp, shape, spread, dim)


def _put(xp: Any, self: Any, pos: Any, values: Any, accumulate: bool) -> Any:
    """``self`` with ``values`` (a number, or an array of ``pos``'s shape) at ``pos``."""
    shape = tuple(self.shape)
    if hasattr(values, "shape"):
        values = xp.reshape(xp.broadcast_to(values, tuple(pos.shape)), (-1,))
    flat = index_put(xp, xp.reshape(self, (-1,)), xp.reshape(pos, (-1,)), values, accumulate)
    return xp.reshape(flat, shape)


def _src_part(xp: Any, src: Any, index: Any) -> Any:
    """The part of ``src`` that scatter reads: its leading ``index.shape`` block."""
    if tuple(src.shape) == tuple(index.shape):
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


# (the gradients are written with the ops PyTorch's formulas use, so that under
# create_graph=True they record PyTorch's nodes: ScatterAddBackward0, GatherBackward0 ...)
GATHER = defop("gather", "GatherBackward0", ("self", "index"),
               lambda xp, self, index, dim: take_flat(xp, self, _along(xp, self.shape, index, dim)),
               lambda xp, grad, self, index, dim: xp.scatter_add(xp.zeros_like(self), index, grad,
                                                                 dim=dim), None)
SCATTER = defop("scatter", "ScatterBackward0", ("self", "index", "src"),
                lambda xp, self, index, src, dim: _put(
                    xp, self, _along(xp, self.shape, index, dim), _src_part(xp, src, index), False),
                lambda xp, grad, index, dim: xp.scatter_value(grad, index, dim=dim, value=0.0),
                None,
                lambda xp, grad, index, dim: xp.gather(grad, index, dim=dim))
SCATTER_VALUE = defop("scatter_value", "ScatterBackward1", ("self", "index"),
                      lambda xp, self, index, dim, value: _put(
                          xp, self, _along(xp, self.shape, index, dim), value, False),
                      lambda xp, grad, index, dim: xp.scatter_value(grad, index, dim=dim,
                                                                    value=0.0), None)
SCATTER_ADD = defop("scatter_add", "ScatterAddBackward0", ("self", "index", "src"),
                    lambda xp, self, index, src, dim: _put(
                        xp, self, _along(xp, self.shape, index, dim), _src_part(xp, src, index),
                        True),
                    lambda grad: grad,
                    None,
                    lambda xp, grad, index, dim: xp.gather(grad, index, dim=dim))
INDEX_SELECT = defop("index_select", "IndexSelectBackward0", ("self", "index"),
                     lambda xp, self, index, dim: take_flat(
                         xp, self, _index_along(xp, self.shape, index, dim)),
                     lambda xp, grad, self_shape, index, dim: xp.index_add(
                         xp.zeros_of(self_shape, grad), index, grad, dim=dim, alpha=1), None)
INDEX_ADD = defop("index_add", "IndexAddBackward0", ("self", "index", "source"),
                  lambda xp, self, index, source, dim, alpha: _put(
                      xp, self, _index_along(xp, self.shape, index, dim),
                      source if alpha == 1 else source * alpha, True),
                  lambda grad: grad,
                  None,
                  lambda xp, grad, index, source, dim, alpha: _alpha(xp.expand_as(
                      xp.index_select(grad, index, dim=dim), tuple(source.shape)), alpha))


def _alpha(g: Any, alpha: Any) -> Any:
    return g if alpha == 1 else g * alpha


# take: positions into the flattened tensor (negative ones count from the end)
TAKE = defop("take", "TakeBackward0", ("self", "index"),
             lambda xp, self, index: take_flat(xp, self, _wrap_flat(self, index)),
             lambda xp, grad, self, index: xp.index_backward(grad, tuple(self.shape),
                                                              _wrap_flat(self, index)), None)


def _wrap_flat(self: Any, index: Any) -> Any:
    n = 1
    for d in self.shape:
        n *= d
    idx = _raw(index)
    return idx % n if n else idx


# masked_select: ``positions`` (computed from the mask by the dispatch) are the flat positions
# of the selected elements in the broadcast shape ``shape``.
MASKED_SELECT = defop(
    "masked_select", "MaskedSelectBackward0", ("self", "mask"),
    lambda xp, self, mask, positions, shape: take_flat(xp, xp.broadcast_to(self, shape), positions),
    lambda xp, grad, self, mask, positions, shape: xp.index_backward(grad, shape, positions),
    None)


# masked_fill with a 0-d tensor value: its gradient is the sum of the filled positions
MASKED_FILL_TENSOR = defop("masked_fill_tensor", "MaskedFillBackward1", ("self", "mask", "value"),
                           lambda xp, self, mask, value: xp.where(mask, value, self),
                           lambda xp, grad, mask: xp.where(mask, 0.0, grad), None,
                           lambda xp, grad, mask: xp.where(mask, grad, 0.0), kind="elementwise")


# Sorting and selecting along a dim: ``indices`` are computed first (engine.selection), the
# values gathered at them; the gradient goes back where they point (added where two point at
# one element, as cummax's).
def _pick(xp: Any, self: Any, indices: Any, dim: int) -> Any:
    return take_flat(xp, self, _along(xp, self.shape, indices, dim))


def _unpick(xp: Any, grad: Any, self_shape: tuple, indices: Any, dim: int) -> Any:
    """value_selecting_reduction_backward: ``grad`` scattered into zeros at ``indices``."""
    return xp.scatter(xp.zeros_of(self_shape, grad), indices, grad, dim=dim)


SORT = defop("sort", "SortBackward0", ("self", "indices"), _pick,
             lambda xp, grad, self_shape, indices, dim: _unpick(xp, grad, self_shape, indices,
                                                                dim), None)
SORT_STABLE = defop("sort_stable", "SortBackward1", ("self", "indices"), _pick,
                    lambda xp, grad, self_shape, indices, dim: _unpick(xp, grad, self_shape,
                                                                       indices, dim), None)
TOPK = defop("topk", "TopkBackward0", ("self", "indices"), _pick,
             lambda xp, grad, self_shape, indices, dim: _unpick(xp, grad, self_shape, indices,
                                                                dim), None)
# cummaxmin_backward: the running extreme's gradient added where it was reached
CUMMAX = defop("cummax", "CummaxBackward0", ("self", "indices"), _pick,
               lambda xp, grad, self, indices, dim: xp.scatter_add(xp.zeros_like(self), indices,
                                                                   grad, dim=dim), None)
CUMMIN = defop("cummin", "CumminBackward0", ("self", "indices"), _pick,
               lambda xp, grad, self, indices, dim: xp.scatter_add(xp.zeros_like(self), indices,
                                                                   grad, dim=dim), None)
# one value per slice, as max(dim): kthvalue, median(dim), mode
KTHVALUE = defop("kthvalue", "KthvalueBackward0", ("self", "indices"), _gather,
                 lambda xp, grad, indices, self_shape, dim: _select_indices(
                     xp, grad, indices, self_shape, dim), None)
MEDIAN_DIM = defop("median_dim", "MedianBackward1", ("self", "indices"), _gather,
                   lambda xp, grad, indices, self_shape, dim: _select_indices(
                       xp, grad, indices, self_shape, dim), None)
MODE = defop("mode", "ModeBackward0", ("self", "indices"), _gather,
             lambda xp, grad, indices, self_shape, dim: _select_indices(
                 xp, grad, indices, self_shape, dim), None)


def _median(xp: Any, self: Any) -> Any:
    """The lower of the two middle values (PyTorch's median), NaN if there is one."""
    flat = xp.reshape(self, (-1,))
    if not flat.shape[0] or xp.any(xp_isnan(flat)):
        return xp.reshape(xp.asarray(math.nan, dtype=self.dtype), ())
    return xp.sort(flat)[(flat.shape[0] - 1) // 2]


MEDIAN = defop("median", "MedianBackward0", ("self",), _median, _distribute)

# --- reordering ---------------------------------------------------------------------------------
# (NumPy's flip is a view: the result is copied, as PyTorch's flip copies)
FLIP = defop("flip", "FlipBackward0", ("self",),
             lambda xp, self, dims: xp.asarray(xp.flip(self, axis=dims), copy=True),
             lambda xp, grad, dims: xp.flip(grad, dims=dims))
# movedim of a 0-d tensor: the tensor itself as a new view
ALIAS = defop("alias", "AliasBackward0", ("self",), lambda xp, self: self, lambda grad: grad,
              kind="view")


def _roll(xp: Any, self: Any, shifts: tuple, dims: tuple) -> Any:
    if dims:
        return xp.roll(self, shifts, axis=dims)
    return xp.reshape(xp.roll(xp.reshape(self, (-1,)), shifts), tuple(self.shape))


ROLL = defop("roll", "RollBackward0", ("self",), _roll,
             lambda xp, grad, shifts, dims: xp.roll(grad, shifts=tuple(-s for s in shifts),
                                                    dims=dims))


def _band(xp: Any, self: Any, diagonal: int, lower: bool) -> Any:
    """tril / triu: the elements on and below (above) the ``diagonal``-th diagonal."""
    if len(self.shape) < 2:
        raise ScriptError(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 "
                          "dimensions")
    rows, cols = self.shape[-2], self.shape[-1]
    offset = xp.reshape(xp.arange(cols), (1, cols)) - xp.reshape(xp.arange(rows), (rows, 1))
    keep = offset <= diagonal if lower else offset >= diagonal
    return xp.where(keep, self, xp.zeros_like(self))


TRIL = defop("tril", "TrilBackward0", ("self",),
             lambda xp, self, diagonal=0: _band(xp, self, diagonal, True),
             lambda xp, grad, diagonal: xp.tril(grad, diagonal=diagonal), surface=UNARY,
             domain=(-2, 2))
TRIU = defop("triu", "TriuBackward0", ("self",),
             lambda xp, self, diagonal=0: _band(xp, self, diagonal, False),
             lambda xp, grad, diagonal: xp.triu(grad, diagonal=diagonal), surface=UNARY,
             domain=(-2, 2))


# Diagonals: ``positions`` (engine.shape) are the flat positions of the diagonal's elements in
# the matrix (or batch of matrices), in the diagonal's shape; the forward is a strided view
# (NumPy), or a strided slice of the matrices flattened (shared memory for a contiguous tensor's
# last two dims), so writes through a diagonal reach its base, as PyTorch's.
def _diagonal(xp: Any, self: Any, positions: Any, offset: int, dim1: int, dim2: int) -> Any:
    view = strided_diagonal(self, offset, dim1, dim2)  # NumPy: any dims, memory shared
    if view is not None:
        return view
    nd = len(self.shape)
    rest = tuple(i for i in range(nd) if i not in (dim1, dim2))
    a = self if rest + (dim1, dim2) == tuple(range(nd)) else \
        xp.permute_dims(self, rest + (dim1, dim2))
    n1, n2 = a.shape[-2], a.shape[-1]
    n = positions.shape[-1]
    flat = xp.reshape(a, tuple(a.shape[:-2]) + (n1 * n2,))
    start = offset if offset >= 0 else -offset * n2
    return flat[..., start:start + (n - 1) * (n2 + 1) + 1:n2 + 1] if n else flat[..., :0]


def _diagonal_grad(xp: Any, grad: Any, self_shape: tuple, positions: Any, offset: int,
                   dim1: int, dim2: int) -> Any:
    return xp.index_backward(grad, self_shape, positions)


DIAGONAL = defop("diagonal", "DiagonalBackward0", ("self",), _diagonal, _diagonal_grad,
                 kind="view")
# torch.diag of a matrix: the same elements, copied
DIAG = defop("diag", "DiagonalBackward0_copy", ("self",),
             lambda xp, self, positions, offset, dim1, dim2: xp.asarray(
                 _diagonal(xp, self, positions, offset, dim1, dim2), copy=True),
             _diagonal_grad)


def _diag_embed(xp: Any, self: Any, positions: Any, shape: tuple, offset: int, dim1: int,
                dim2: int) -> Any:
    return _put(xp, xp.zeros(shape, dtype=self.dtype), positions, self, False)


DIAG_EMBED = defop("diag_embed", "DiagEmbedBackward0", ("self",), _diag_embed,
                   lambda xp, grad, positions: xp.take_at(grad, positions))


# --- distances and determinants (engine/linalg.py) ----------------------------------------------
def _mT(xp: Any, a: Any) -> Any:
    nd = len(a.shape)
    return xp.permute_dims(a, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _cdist(xp: Any, x1: Any, x2: Any, p: float) -> Any:
    """cdist's direct kernel (p=2): each pair's squared differences summed, then sqrt."""
    d = xp.expand_dims(x1, axis=-2) - xp.expand_dims(x2, axis=-3)
    return xp.sqrt(xp.sum(d * d, axis=-1))


def _euclidean_dist(xp: Any, x1: Any, x2: Any) -> Any:
    """ATen's _euclidean_dist: |x1|^2 + |x2|^2 - 2 x1.x2 as one matmul of padded operands,
    clamped at 0 before the sqrt (cdist's path for more than 25 rows)."""
    n1 = xp.sum(x1 * x1, axis=-1, keepdims=True)
    n2 = xp.sum(x2 * x2, axis=-1, keepdims=True)
    a = xp.concat([x1 * -2.0, n1, xp.ones_like(n1)], axis=-1)
    b = xp.concat([x2, xp.ones_like(n2), n2], axis=-1)
    return xp.sqrt(xp.clip(K.matmul(xp, a, _mT(xp, b)), min=0.0))


def _dist_grads(xp: Any, grad: Any, x1: Any, x2: Any, result: Any, first: bool) -> Any:
    """The Euclidean distance's gradient (_cdist_backward / _euclidean_dist_backward)."""
    ratio = xp.where(_raw(result) == 0, 0.0, grad / result)
    if first:
        return x1 * xp.sum(ratio, axis=-1, keepdims=True) - xp.matmul(ratio, x2)
    col = xp.sum(ratio, axis=-2)
    return x2 * xp.reshape(col, tuple(col.shape) + (1,)) - xp.matmul(_mT(xp, ratio), x1)


CDIST = defop("cdist", "CdistBackward0", ("x1", "x2"), _cdist,
              lambda xp, grad, x1, x2, result, p: _dist_grads(xp, grad, x1, x2, result, True),
              lambda xp, grad, x1, x2, result, p: _dist_grads(xp, grad, x1, x2, result, False),
              dtype="same")
EUCLIDEAN_DIST = defop("euclidean_dist", "EuclideanDistBackward0", ("x1", "x2"), _euclidean_dist,
                       lambda xp, grad, x1, x2, result: _dist_grads(xp, grad, x1, x2, result,
                                                                    True),
                       lambda xp, grad, x1, x2, result: _dist_grads(xp, grad, x1, x2, result,
                                                                    False), dtype="same")
# det: ``LU`` and ``pivots`` (getrf's, computed by the dispatch) are saved as PyTorch's are; the
# gradient is grad * det * A^-T.
def _det_grad(xp: Any, g: Any, A: Any) -> Any:
    return xp.reshape(g, tuple(g.shape) + (1, 1)) * _mT(xp, xp.linalg_inv(A))


LINALG_DET = defop("linalg_det", "LinalgDetBackward0", ("A", "LU", "pivots"),
                   lambda xp, A, LU, pivots: K.det_from_lu(xp, LU, pivots),
                   lambda xp, grad, A, LU, pivots, result: _det_grad(xp, grad * result, A),
                   None, None)
LINALG_INV = defop("linalg_inv", "LinalgInvExBackward0", ("A",),
                   lambda xp, A: xp.linalg.inv(A),
                   lambda xp, grad, inverse: -xp.matmul(_mT(xp, inverse),
                                                        xp.matmul(grad, _mT(xp, inverse))),
                   result="inverse")


def _solve(xp: Any, A: Any, B: Any, LU: Any, pivots: Any, left: bool) -> Any:
    """X with A X = B (left) or X A = B; a 1-D B is a column."""
    vector = len(B.shape) == 1
    b = xp.reshape(B, tuple(B.shape) + (1,)) if vector else B
    x = xp.linalg.solve(A, b) if left else _mT(xp, xp.linalg.solve(_mT(xp, A), _mT(xp, b)))
    return xp.reshape(x, tuple(B.shape)) if vector else x


def _solve_grads(xp: Any, grad: Any, A: Any, result: Any, left: bool, first: bool) -> Any:
    """linalg_solve_backward: gB = A^-T grad (grad A^-T), gA = -gB X^T (-X^T gB)."""
    vector = len(grad.shape) == 1
    g = xp.reshape(grad, tuple(grad.shape) + (1,)) if vector else grad
    inv_t = _mT(xp, xp.linalg_inv(A))
    gb = xp.matmul(inv_t, g) if left else xp.matmul(g, inv_t)
    if not first:
        return xp.reshape(gb, tuple(grad.shape)) if vector else gb
    x = xp.reshape(result, tuple(result.shape) + (1,)) if vector else result
    return -xp.matmul(gb, _mT(xp, x)) if left else -xp.matmul(_mT(xp, x), gb)


# solve: LU and pivots (getrf's of A) computed by the dispatch, saved as PyTorch's
LINALG_SOLVE = defop("linalg_solve", "LinalgSolveExBackward0", ("A", "B", "LU", "pivots"),
                     _solve,
                     lambda xp, grad, A, LU, pivots, result, left: _solve_grads(
                         xp, grad, A, result, left, True),
                     lambda xp, grad, A, LU, pivots, result, left: _solve_grads(
                         xp, grad, A, result, left, False), None, None, dtype="same")


# --- the activations' backward kernels, as ops ---------------------------------------------------
# PyTorch's formulas call these kernels (tanh_backward, threshold_backward ...), and under
# create_graph=True each is recorded as an op of its own with its own derivatives
# (derivatives.yaml: TanhBackwardBackward0 ...), so a gradient penalty or a Hessian through an
# activation records PyTorch's nodes and rounds as its fused kernels do.  A mask PyTorch
# multiplies by, ``(x < 0).type_as(grad)``, is a constant here too (MulBackward0).  The
# log-softmax kernel is not its own adjoint: its grad_output's gradient is composite.
def _mask(xp: Any, condition: Any, like: Any) -> Any:
    """``condition.type_as(like)`` as a constant operand."""
    raw = _raw(like)
    return xp.const(xp.raw.astype(_raw(condition), raw.dtype))


def _elu_backward(xp: Any, grad: Any, b: Any, alpha: float, scale: float, input_scale: float,
                  is_result: bool) -> Any:
    return xp.elu_backward(grad, b, alpha=alpha, scale=scale, input_scale=input_scale,
                           is_result=is_result)


def _elu_double_backward(xp: Any, grad: Any, grad_output: Any, b: Any, alpha: float,
                         scale: float, input_scale: float, is_result: bool) -> Any:
    """FunctionsManual's elu_double_backward."""
    negative = _mask(xp, _raw(b) < 0, grad)
    if is_result:
        return grad * grad_output * input_scale * negative
    return _elu_backward(xp, grad * grad_output * input_scale, b, alpha, scale, input_scale,
                         False) * negative


def _softplus_double_backward(xp: Any, grad: Any, self: Any, beta: float,
                              threshold: float) -> Any:
    """FunctionsManual's softplus_double_backward: sigmoid_backward(grad, sigmoid(x * beta))
    where x * beta < threshold, times beta."""
    x = self * beta
    return xp.sigmoid_backward(grad, xp.sigmoid(x)) * _mask(xp, _raw(x) < threshold, grad) * beta


def _softmax_double_backward(xp: Any, grad: Any, grad_output: Any, dim: int,
                             output: Any) -> Any:
    """FunctionsManual's softmax_double_backward."""
    return (grad_output * grad - xp.sum(output * grad_output, axis=dim, keepdims=True) * grad
            - grad_output * xp.sum(output * grad, axis=dim, keepdims=True))


TANH_BACKWARD = defop(
    "tanh_backward", "TanhBackwardBackward0", ("grad_output", "output"), K.tanh_backward,
    lambda xp, grad, output: xp.tanh_backward(grad, output),
    lambda grad, grad_output, output: grad * (-2 * output * grad_output), kind="elementwise")
SIGMOID_BACKWARD = defop(
    "sigmoid_backward", "SigmoidBackwardBackward0", ("grad_output", "output"),
    K.sigmoid_backward, lambda xp, grad, output: xp.sigmoid_backward(grad, output),
    lambda grad, grad_output, output: grad * grad_output * (-2 * output + 1),
    kind="elementwise")
SOFTMAX_BACKWARD = defop(
    "softmax_backward", "SoftmaxBackwardDataBackward0", ("grad_output", "output"),
    lambda xp, grad_output, output, dim: K.softmax_backward(xp, grad_output, output, dim),
    lambda xp, grad, output, dim: xp.softmax_backward(grad, output, dim=dim),
    lambda xp, grad, grad_output, output, dim: _softmax_double_backward(
        xp, grad, grad_output, dim, output), aten="_softmax_backward_data")
LOG_SOFTMAX_BACKWARD = defop(
    "log_softmax_backward", "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
    lambda xp, grad_output, output, dim: K.log_softmax_backward(xp, grad_output, output, dim),
    lambda xp, grad, output, dim: grad - xp.sum(grad * xp.exp(output), axis=dim, keepdims=True),
    lambda xp, grad, grad_output, output, dim: -xp.sum(grad_output, axis=dim, keepdims=True)
    * xp.exp(output) * grad, aten="_log_softmax_backward_data")
THRESHOLD_BACKWARD = defop(
    "threshold_backward", "ThresholdBackwardBackward0", ("grad_output", "self"),
    lambda xp, grad_output, self, threshold: K.threshold_backward(xp, grad_output, self,
                                                                  threshold),
    lambda xp, grad, self, threshold: xp.threshold_backward(grad, self, threshold=threshold),
    lambda xp, grad: xp.zeros_like(grad), kind="elementwise")
LEAKY_RELU_BACKWARD = defop(
    "leaky_relu_backward", "LeakyReluBackwardBackward0", ("grad_output", "self"),
    lambda xp, grad_output, self, negative_slope, self_is_result: xp.where(
        self > 0, grad_output, grad_output * negative_slope),
    lambda xp, grad, self, negative_slope: xp.leaky_relu_backward(
        grad, self, negative_slope=negative_slope, self_is_result=False),
    lambda xp, grad: xp.zeros_like(grad), kind="elementwise")
HARDTANH_BACKWARD = defop(
    "hardtanh_backward", "HardtanhBackwardBackward0", ("grad_output", "self"),
    lambda xp, grad_output, self, min_val, max_val: xp.where(
        (self <= min_val) | (self >= max_val), 0.0, grad_output),
    lambda xp, grad, self, min_val, max_val: xp.hardtanh_backward(grad, self, min_val=min_val,
                                                                 max_val=max_val),
    lambda xp, grad: xp.zeros_like(grad), kind="elementwise")
ELU_BACKWARD = defop(
    "elu_backward", "EluBackwardBackward0", ("grad_output", "self_or_result"),
    lambda xp, grad_output, self_or_result, alpha, scale, input_scale, is_result:
    K.elu_backward(xp, grad_output, self_or_result, alpha, scale, input_scale, is_result),
    lambda xp, grad, self_or_result, alpha, scale, input_scale, is_result: _elu_backward(
        xp, grad, self_or_result, alpha, scale, input_scale, is_result),
    lambda xp, grad, grad_output, self_or_result, alpha, scale, input_scale, is_result:
    _elu_double_backward(xp, grad, grad_output, self_or_result, alpha, scale, input_scale,
                         is_result), kind="elementwise")
SOFTPLUS_BACKWARD = defop(
    "softplus_backward", "SoftplusBackwardBackward0", ("grad_output", "self"),
    lambda xp, grad_output, self, beta, threshold: K.softplus_backward(
        xp, grad_output, self, beta, threshold),
    lambda xp, grad, self, beta, threshold: xp.softplus_backward(grad, self, beta=beta,
                                                                 threshold=threshold),
    lambda xp, grad, grad_output, self, beta, threshold: _softplus_double_backward(
        xp, grad * grad_output, self, beta, threshold), kind="elementwise")
LOGSIGMOID_BACKWARD = defop(
    "logsigmoid_backward", "LogSigmoidBackwardBackward0", ("grad_output", "self"),
    K.logsigmoid_backward, lambda xp, grad, self: xp.logsigmoid_backward(grad, self),
    lambda xp, grad, grad_output, self: _logsigmoid_double_backward(xp, grad * grad_output,
                                                                    self),
    kind="elementwise", aten="log_sigmoid_backward")


def _logsigmoid_double_backward(xp: Any, grad: Any, self: Any) -> Any:
    """FunctionsManual's log_sigmoid_double_backward: grad * (z - 1) * z, z = sigmoid(x)."""
    z = xp.sigmoid(self)
    return grad * (z - 1) * z


# --- the formula namespaces ---------------------------------------------------------------------
# The backend's functions formulas may call; the math (exp, log, sqrt, the trigonometric and
# hyperbolic functions, tanh, log1p, expm1) resolves to the table's forwards, which round as
# PyTorch's kernels do (engine.kernels), and so do the methods below.
FORMULA_NAMES = ("where", "floor", "sign", "reshape", "broadcast_to", "permute_dims",
                 "zeros_like", "count_nonzero", "take", "clip", "abs", "prod")

class ArrayFormulas:
    """The formulas' ``xp`` for plain backward: the backend's functions, the table's ops by
    name (their forwards), PyTorch's kernels (engine.kernels), two scatters, ``const`` and
    ``raw`` (module docstring)."""

    def __init__(self, xp: Any) -> None:
        for name in FORMULA_NAMES:
            setattr(self, name, getattr(xp, name))
        ex = exact_kernels(xp)
        if ex is not None:  # NumPy's broadcast_to, the same view made faster
            self.broadcast_to = ex.broadcast_to
        self.zeros = xp.zeros
        self.astype = xp.astype
        self._xp = self.raw = xp

    def __getattr__(self, name: str) -> Any:
        op = OPS.get(name)
        if op is None or op.forward is None:
            raise AttributeError(name)
        fn = functools.partial(op.forward, self._xp)  # C-level: no Python frame per call
        setattr(self, name, fn)  # found once per backend
        return fn

    @staticmethod
    def const(array: Any) -> Any:
        """An array used as a constant operand (it is one already)."""
        return array

    def sum(self, x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        """``torch.sum`` in PyTorch's order."""
        return K.sum(self._xp, x, axis, keepdims)

    def matmul(self, a: Any, b: Any) -> Any:
        """``torch.matmul`` of vectors and matrices, as MKL computes it."""
        return K.matmul(self._xp, a, b)

    def bmm(self, a: Any, b: Any) -> Any:
        """``torch.bmm``, as ATen and MKL compute it."""
        return K.bmm(self._xp, a, b)

    def power(self, x: Any, exponent: float) -> Any:
        """``x ** exponent`` as PyTorch's pow kernel computes it; ``x`` itself for the exponent
        1 (the kernel's copy of it: every formula makes a new array of the power)."""
        if (exponent.__class__ is int or exponent.__class__ is float) and exponent == 1:
            return x
        return K.power(self._xp, x, exponent)

    def silu_backward(self, grad: Any, x: Any) -> Any:
        """PyTorch's silu_backward."""
        return K.silu_backward(self._xp, grad, x)

    def select_backward(self, grad: Any, shape: tuple, dim: int, index: int) -> Any:
        """Scatter ``grad`` into zeros at ``index`` of ``dim``."""
        return _select_backward(self._xp, grad, shape, dim, index)

    def index_backward(self, grad: Any, shape: tuple, indices: Any) -> Any:
        """``grad`` added into zeros of ``shape`` at the flat ``indices`` (duplicates add)."""
        return K.scatter_add(self._xp, tuple(shape), indices, grad)

    def index_fill(self, grad: Any, indices: Any) -> Any:
        """``grad`` with zeros at the flat ``indices`` (what an index_put overwrote)."""
        xp = self._xp
        flat = index_put(xp, xp.reshape(grad, (-1,)), xp.reshape(indices, (-1,)), 0.0, False)
        return xp.reshape(flat, tuple(grad.shape))

    def expand_as(self, x: Any, shape: tuple) -> Any:
        """``x`` broadcast to ``shape`` (ExpandBackward0 under create_graph=True, even to its own
        shape, as PyTorch's ``expand_as``)."""
        return x if tuple(x.shape) == tuple(shape) else self._xp.broadcast_to(x, tuple(shape))

    def zeros_of(self, shape: tuple, like: Any) -> Any:
        """Zeros of ``shape`` in ``like``'s dtype."""
        return self._xp.zeros(tuple(shape), dtype=like.dtype)

    def take_at(self, grad: Any, indices: Any) -> Any:
        """The elements of ``grad`` at the flat ``indices``, in their shape."""
        return take_flat(self._xp, grad, indices)

    def slice_backward(self, grad: Any, shape: tuple, dim: int, start: int, stop: int,
                       step: int) -> Any:
        """Scatter ``grad`` into zeros at a slice of ``dim``."""
        return _slice_backward(self._xp, grad, shape, dim, start, stop, step)
