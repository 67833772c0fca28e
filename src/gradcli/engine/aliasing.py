"""Views that outlive an in-place update of their base: PyTorch regenerates their history.

A base remembers its live views (weakly).  After an in-place update of the base or of any of
its views, every other view that requires grad gets a new ``grad_fn``, ``AsStridedBackward0``
into the base's new history, as PyTorch gives a view whose version changed since its grad_fn
was made.  (PyTorch does it when the grad_fn is next read; doing it at the update gives the
same graph.)
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import Any

from . import ops as O
from .backend import view_geometry, view_maps
from .graph import _EMPTY, Node, edge
from .strides import strides_of
from .tensor import Tensor


def track_view(base: Tensor, view: Tensor) -> None:
    """Remember ``view`` (of the root ``base``) for later in-place updates of the base: in
    the base's table of live views (insertion-ordered, as the views were made), from which a
    view's weak reference removes itself when the view dies."""
    views = getattr(base, "_views", None)
    if views is None:
        views = base._views = {}
    views[weakref.ref(view, partial(_forget, views))] = None


def _forget(views: dict, ref: Any) -> None:
    views.pop(ref, None)


def refresh_views(target: Tensor, keep: Tensor | None = None) -> None:
    """After an in-place update of ``target``: regenerate the grad_fn of its base's views.

    ``keep`` is a view that already got its new grad_fn (the target of an update through a view).
    """
    root = target._base if target._base is not None else target
    views = getattr(root, "_views", None)
    if not views or not root.requires_grad:
        return
    for ref in list(views):  # a view dying meanwhile removes its entry
        w = ref()
        if w is None or w is keep:
            continue
        node = view_node(root, w)
        if w._retains_grad and w.grad_fn is not None:
            w.grad_fn.retained, node.retained = None, w
        w.grad_fn, w.requires_grad = node, True


def view_node(root: Tensor, view: Tensor, into: Any = None, index: Any = None) -> Node:
    """The ``AsStridedBackward0`` node of ``view`` into ``root``'s current history (``into``:
    the edge there, ``index``: view_maps' when known), with the as_strided arguments PyTorch's
    saves (``_saved_size``, ``_saved_stride``, ``_saved_storage_offset``)."""
    if index is None:
        index, _ = view_maps(root.backend, root.shape, view._view_fn)
    size, stride, offset = view_geometry(root.backend, tuple(root.shape), strides_of(root),
                                         view._view_fn, index)
    return Node(O.AS_STRIDED, (edge(root) if into is None else into,), _EMPTY,
                {"index": index, "base_shape": root.shape, "size": size, "stride": stride,
                 "storage_offset": offset}, (root.shape,), root.backend)
