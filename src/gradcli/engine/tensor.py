"""The Tensor: an array with PyTorch's autograd attributes.

Its operators and math methods come from ``functions.py`` and ``backward`` from
``autograd.py``; ``engine/__init__`` gives them to the class once, when the engine is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ScriptError
from .backend import to_host
from .context import current
from .printing import format_tensor

NONLEAF_GRAD_MSG = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
SCALAR_CONVERSION_MSG = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)

ITEM_ERROR = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
              "over calling .item() on a Tensor, please try to rewrite what you're doing with "
              "other operations. If error is occurring somewhere inside PyTorch internals, "
              "please file a bug report.")
BOOL_ERROR = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
              "control flow. We don't support that yet, please file an issue at "
              "https://github.com/pytorch/pytorch/issues .")
# .item() or bool() under a torch.func transform that runs inside the vmap
TRANSFORMED_ERROR = (
    "vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use "
    "a Tensor in some data-dependent control flow or (3) encountering this error in PyTorch "
    "internals. For (1): we don't support vmap over calling .item() on a Tensor, please try to "
    "rewrite what you're doing with other operations. For (2): we don't support data-dependent "
    "control flow in vmap yet, please file an issue at https://github.com/pytorch/pytorch/issues "
    ". For (3): please file an issue.")
DATA_ERROR = "Cannot access data pointer of Tensor that doesn't have storage"


def in_vmap(t: Any) -> bool:
    """Whether ``t`` is batched by a running vmap (engine/batching.VmapLevel)."""
    level = current().vmap
    while level is not None:
        if id(t) in level.batched:
            return True
        level = level.outer
    return False


def _scalar_error(message: str) -> ScriptError:
    """PyTorch's error for reading a batched tensor's value (``message`` unless a transform
    entered inside the vmap is running)."""
    ctx = current()
    return ScriptError(TRANSFORMED_ERROR if ctx.func_depth > ctx.vmap.func_depth else message)


def vmap_from(out: Any, *sources: Any) -> Any:
    """``out`` (made outside the op table from ``sources``), batched where any of them is."""
    level = current().vmap
    while level is not None:
        if any(id(s) in level.batched for s in sources):
            level.mark(out)
        level = level.outer
    return out


def vmap_from_node(out: Any, node: Any) -> Any:
    """``out`` (a saved output of ``node`` unpacked), batched where the node's outputs are."""
    level = current().vmap
    while level is not None:
        if id(node) in level.nodes:
            level.mark(out)
        level = level.outer
    return out


def batched_arrays(*arrays: Any) -> bool:
    """Whether every one of ``arrays`` belongs to a tensor batched by the innermost vmap."""
    level = current().vmap
    return level is not None and all(id(a) in level.arrays for a in arrays)


def vmap_follow(src: Any, dst: Any) -> None:
    """``dst`` (made from ``src`` outside the op table) is batched wherever ``src`` is."""
    level = current().vmap
    while level is not None:
        if id(src) in level.batched:
            level.mark(dst)
        level = level.outer


def _tangent_text(t: Tensor) -> str:
    """A tangent as PyTorch's repr writes it (``f"tangent={t}"``): a 0-d one by ``format``,
    which is its Python number's."""
    if t.data.ndim == 0:
        return str(to_host(t.data).item())
    return repr(t)


class Size(tuple):
    """``x.shape`` and ``x.size()`` as a script sees them: prints as ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__


class Tensor:
    """A float array with PyTorch's autograd attributes.

    ``_vc`` is the version counter, a one-element list shared by a tensor, its views and its
    ``detach()``-es, as PyTorch's is; ``_version`` reads it.  ``_strides`` are PyTorch's
    strides in elements, or None for a contiguous tensor; they decide whether ``reshape`` can
    be a view, as in PyTorch.
    """

    __slots__ = (
        "__weakref__",
        "_accumulator",
        "_base",
        "_creation",
        "_grad",
        "_is_param",
        "_retains_grad",
        "_strides",
        "_vc",
        "_view_fn",
        "_views",
        "backend",
        "data",
        "grad_fn",
        "requires_grad",
    )

    def __init__(self, data: Any, backend: Any, requires_grad: bool = False,
                 grad_fn: Any = None) -> None:  # a graph.Node (graph imports tensor)
        self.data = data
        self.backend = backend
        self.requires_grad = requires_grad
        self.grad_fn = grad_fn
        self._grad: Tensor | None = None
        self._vc = [0]
        self._retains_grad = False
        self._strides: tuple[int, ...] | None = None
        self._base: Tensor | None = None
        # how a view was made, when PyTorch later forbids in-place updates of it (its
        # CreationMeta): ("no_grad",) made in no_grad mode, ("multi", "Unbind", i) output i of a
        # function returning several views; None otherwise
        self._creation: tuple | None = None
        self._view_fn: Callable | None = None  # replays this view from its base's array
        self._accumulator: Any = None  # the leaf's AccumulateGrad: graph.accumulator reads it
        self._views: dict | None = None  # the views made of it (aliasing.py), once there is one

    # -- attributes -------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The shape, a ``torch.Size`` (a tuple of ints)."""
        return Size(self.data.shape)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.data.shape)

    def dim(self) -> int:
        """Number of dimensions (``ndim``)."""
        return len(self.data.shape)

    def size(self, dim: int | None = None) -> Size | int:
        """The shape as a ``torch.Size``, or the length of dimension ``dim``."""
        shape = self.data.shape
        if dim is None:
            return Size(shape)
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise ScriptError(f"size(): argument 'dim' must be int, not {type(dim).__name__}",
                              kind="TypeError")
        n = len(shape)
        lo, hi = (-n, n - 1) if n else (-1, 0)
        if not lo <= dim <= hi:
            raise ScriptError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                              f"but got {dim})", kind="IndexError")
        if not n:
            raise ScriptError(f"Dimension specified as {dim} but tensor has no dimensions",
                              kind="IndexError")
        return shape[dim]

    def numel(self) -> int:
        """Number of elements."""
        n = 1
        for d in self.data.shape:
            n *= d
        return n

    nelement = numel  # PyTorch's alias

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user or not requiring grad (no ``grad_fn``)."""
        return self.grad_fn is None

    @property
    def version(self) -> int:
        """The in-place version counter (PyTorch's ``_version``)."""
        return self._vc[0]

    _version = version

    @property
    def retains_grad(self) -> bool:
        """Whether ``retain_grad()`` was called on this non-leaf."""
        return self._retains_grad

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient; reading a non-leaf's missing one warns as PyTorch does."""
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            current().warn(NONLEAF_GRAD_MSG)
        return self._grad

    @property
    def stored_grad(self) -> Tensor | None:
        """``.grad`` as stored, without PyTorch's non-leaf warning (for viewers, not scripts)."""
        return self._grad

    def __len__(self) -> int:
        if not self.data.shape:
            raise ScriptError("len() of a 0-d tensor", kind="TypeError")
        return self.data.shape[0]

    @property
    def dtype(self) -> Any:
        """The element type, as PyTorch's ``torch.float32`` (a ``dtypes.DType``)."""
        return self.backend._from_xp[self.data.dtype]  # Backend.dtype_of, inline: read per op

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating one."""
        return self.backend.dtype_of(self.data).is_floating_point

    def __repr__(self) -> str:
        name = self.grad_fn.fn_name if self.grad_fn is not None else None
        ctx = current()
        if ctx.vmap is not None and in_vmap(self):
            # NOTE: gradcli runs a vmapped function once per sample (api/vmap.py); PyTorch
            # prints the whole batch there, as BatchedTensor(lvl=..., bdim=..., value=...)
            raise ScriptError("gradcli does not print a batched tensor inside vmap yet",
                              kind="NotImplementedError")
        tangent = None
        if ctx.forward is not None:  # a dual tensor prints its tangent
            tangent = ctx.forward.tangent_of(self)
        try:
            text = format_tensor(to_host(self.data), grad_fn=name,
                                 requires_grad=self.requires_grad and name is None,
                                 dtype=self.dtype.name, default_dtype=self.backend.dtype_name,
                                 options=ctx.print_options,
                                 tangent=None if tangent is None else _tangent_text(tangent))
        except (TypeError, ValueError) as exc:  # print options PyTorch stores but cannot use
            raise ScriptError(str(exc), kind=type(exc).__name__) from None
        if getattr(self, "_is_param", False):  # unset on all but nn.Parameter
            return "Parameter containing:\n" + text
        return text

    # -- autograd methods -------------------------------------------------------------------
    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf after backward (no-op on leaves)."""
        if not self.requires_grad:
            raise ScriptError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None:
            self._retains_grad = True
            self.grad_fn.retained = self

    def detach(self) -> Tensor:
        """A new leaf sharing data and version counter, cut from the graph."""
        self.data = self.backend.writable(self.data)
        out = Tensor(self.data, self.backend)
        out._vc = self._vc
        out._strides = self._strides
        vmap_follow(self, out)  # still batched, as in PyTorch
        return out

    def item(self) -> float | int | bool:
        """The single value as a Python number of the dtype's kind (float, int or bool)."""
        if in_vmap(self):
            raise _scalar_error(ITEM_ERROR)
        n = self.numel()
        if n != 1:
            raise ScriptError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return to_host(self.data).reshape(()).item()

    def tolist(self) -> Any:
        """The values as (nested lists of) Python numbers; a 0-d tensor gives one number."""
        if in_vmap(self):
            raise ScriptError(DATA_ERROR)
        return to_host(self.data).tolist()

    def __bool__(self) -> bool:
        if in_vmap(self):
            raise _scalar_error(BOOL_ERROR)
        n = self.numel()
        if n != 1:
            raise ScriptError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if n > 1 else "Boolean value of Tensor with no values is ambiguous"
            )
        return self.item() != 0

    def __float__(self) -> float:
        if self.requires_grad:
            current().warn_once(SCALAR_CONVERSION_MSG)
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())  # NOTE: PyTorch warns for float(), not for int()

    def __index__(self) -> int:
        if self.dtype.kind > 1 or self.numel() != 1:  # integer (or bool) one-element tensors
            raise ScriptError("only integer tensors of a single element can be converted to an "
                              "index", kind="TypeError")
        return int(self.item())

