"""``torch.nn``'s layers beyond ``Linear``: ``Embedding``, ``Dropout``, ``BatchNorm1d/2d``,
``LayerNorm`` and the small modules over one ``torch.nn.functional`` call (``ReLU6``,
``Hardtanh``, ``Softmax2d``, ``CosineSimilarity``, ``PairwiseDistance``, ``Unflatten``), each
with PyTorch's ``__init__`` checks, initialisation and ``extra_repr``.
"""

from __future__ import annotations

from typing import Any

from ..engine import NN_FUNCTIONS
from ..engine.args import check_device
from ..engine.context import GradMode
from ..engine.dtypes import DTYPES, to_dtype
from ..engine.tensor import Tensor
from ..errors import ScriptError
from . import nn_init
from .creation import get_default_dtype, ones, tensor, zeros
from .nn_module import _COMMON, Module
from .nn_parameter import Parameter, typename


def _dtype(dtype: Any) -> Any:
    return get_default_dtype() if dtype is None else to_dtype(dtype)


def _check_input(module: Module, input: Any, attr: str) -> Tensor:
    """A module's ``input.dim()`` read, with Python's AttributeError for a non-tensor."""
    if not isinstance(input, Tensor):
        raise ScriptError(f"'{typename(input)}' object has no attribute '{attr}'",
                          kind="AttributeError")
    return input


class Embedding(Module):
    """``nn.Embedding(num_embeddings, embedding_dim, padding_idx=None, max_norm=None, ...)``:
    a lookup table of ``weight`` rows (drawn from N(0, 1), the padding row zeroed)."""

    script_attributes = _COMMON | {"weight", "num_embeddings", "embedding_dim", "padding_idx",
                                   "max_norm", "norm_type", "scale_grad_by_freq", "sparse",
                                   "reset_parameters", "from_pretrained"}
    script_settable = frozenset({"training", "weight", "padding_idx", "max_norm", "norm_type",
                                 "scale_grad_by_freq", "sparse"})
    script_class_attributes = frozenset({"from_pretrained"})

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Any = None,
                 max_norm: Any = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Any = None, _freeze: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        check_device(device)
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings or \
                    padding_idx < 0 and padding_idx < -num_embeddings:
                raise ScriptError("Padding_idx must be within num_embeddings",
                                  kind="AssertionError")
            if padding_idx < 0:
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self._parameters["weight"] = Parameter(
                zeros(num_embeddings, embedding_dim, dtype=_dtype(dtype)),
                requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ScriptError("Shape of weight does not match num_embeddings and "
                                  "embedding_dim", kind="AssertionError")
            self._parameters["weight"] = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """N(0, 1) draws, then the padding row zeroed."""
        nn_init.normal_(self.weight)
        if self.padding_idx is not None:
            with GradMode(False):
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Any) -> Tensor:
        """``F.embedding`` with the module's settings."""
        return NN_FUNCTIONS["embedding"](input, self.weight, self.padding_idx, self.max_norm,
                                         self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Any, freeze: bool = True, padding_idx: Any = None,
                        max_norm: Any = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, sparse: bool = False) -> Embedding:
        """An Embedding whose weight is ``embeddings`` (frozen unless ``freeze=False``)."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            raise ScriptError("Embeddings parameter is expected to be 2-dimensional",
                              kind="AssertionError")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)


class Dropout(Module):
    """``nn.Dropout(p=0.5, inplace=False)``: ``F.dropout`` while training."""

    script_attributes = _COMMON | {"p", "inplace"}
    script_settable = frozenset({"training", "p", "inplace"})

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if isinstance(p, (int, float)) and (p < 0 or p > 1):
            raise ScriptError(f"dropout probability has to be between 0 and 1, but got {p}",
                              kind="ValueError")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Any) -> Tensor:
        """``F.dropout(input, p, training, inplace)``."""
        return NN_FUNCTIONS["dropout"](input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _BatchNorm(Module):
    """``nn.BatchNorm1d``/``2d``: per-channel normalisation with running statistics."""

    script_attributes = _COMMON | {"weight", "bias", "running_mean", "running_var",
                                   "num_batches_tracked", "num_features", "eps", "momentum",
                                   "affine", "track_running_stats", "reset_parameters",
                                   "reset_running_stats"}
    script_settable = frozenset({"training", "weight", "bias", "running_mean", "running_var",
                                 "num_batches_tracked", "eps", "momentum",
                                 "track_running_stats"})
    _dims: tuple[int, ...] = ()
    _expected = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Any = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        check_device(device)
        dt = _dtype(dtype)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        params = self._parameters
        params["weight"] = Parameter(zeros(num_features, dtype=dt)) if affine else None
        params["bias"] = Parameter(zeros(num_features, dtype=dt)) if affine and bias else None
        buffers = self._buffers  # registered as PyTorch's register_buffer does
        buffers["running_mean"] = zeros(num_features, dtype=dt) if track_running_stats else None
        buffers["running_var"] = ones(num_features, dtype=dt) if track_running_stats else None
        buffers["num_batches_tracked"] = tensor(0, dtype=DTYPES["int64"]) \
            if track_running_stats else None
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, variance 1, no batch tracked."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset; weight 1, bias 0."""
        self.reset_running_stats()
        if self.affine:
            nn_init.ones_(self.weight)
            if self.bias is not None:
                nn_init.zeros_(self.bias)

    def forward(self, input: Any) -> Tensor:
        """PyTorch's _BatchNorm.forward: the batch's statistics while training (the running
        ones updated by ``momentum``, or by a cumulative average when it is None)."""
        x = _check_input(self, input, "dim")
        if x.ndim not in self._dims:
            raise ScriptError(f"expected {self._expected} input (got {x.ndim}D input)",
                              kind="ValueError")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return NN_FUNCTIONS["batch_norm"](
            x, self.running_mean if keep else None, self.running_var if keep else None,
            self.weight, self.bias, bn_training, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """``nn.BatchNorm1d``: (N, C) or (N, C, L) inputs."""

    _dims = (2, 3)
    _expected = "2D or 3D"


class BatchNorm2d(_BatchNorm):
    """``nn.BatchNorm2d``: (N, C, H, W) inputs."""

    _dims = (4,)
    _expected = "4D"


class LayerNorm(Module):
    """``nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)``."""

    script_attributes = _COMMON | {"weight", "bias", "normalized_shape", "eps",
                                   "elementwise_affine", "reset_parameters"}
    script_settable = frozenset({"training", "weight", "bias", "eps"})

    def __init__(self, normalized_shape: Any, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        check_device(device)
        dt = _dtype(dtype)
        if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        params = self._parameters
        params["weight"] = Parameter(zeros(*self.normalized_shape, dtype=dt)) \
            if elementwise_affine else None
        params["bias"] = Parameter(zeros(*self.normalized_shape, dtype=dt)) \
            if elementwise_affine and bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight 1, bias 0."""
        if self.elementwise_affine:
            nn_init.ones_(self.weight)
            if self.bias is not None:
                nn_init.zeros_(self.bias)

    def forward(self, input: Any) -> Tensor:
        """``F.layer_norm`` over the last ``normalized_shape`` dims."""
        return NN_FUNCTIONS["layer_norm"](input, self.normalized_shape, self.weight, self.bias,
                                          self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


# -- modules over one function --------------------------------------------------------------------
class ReLU6(Module):
    """``nn.ReLU6(inplace=False)``: ``F.relu6``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Any) -> Tensor:
        """``F.relu6``."""
        return NN_FUNCTIONS["relu6"](input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Hardtanh(Module):
    """``nn.Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if not max_val > min_val:
            raise ScriptError(f"max_val ({max_val}) must be greater than min_val ({min_val})",
                              kind="AssertionError")

    def forward(self, input: Any) -> Tensor:
        """``F.hardtanh``."""
        return NN_FUNCTIONS["hardtanh"](input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + \
            (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """``nn.Softmax2d()``: softmax over the channels (dim -3) of a 3D or 4D input."""

    def forward(self, input: Any) -> Tensor:
        """``F.softmax(input, -3)``."""
        x = _check_input(self, input, "dim")
        if x.ndim not in (3, 4):
            raise ScriptError(f"Softmax2d: expected input to be 3D or 4D, got {x.ndim}D instead",
                              kind="ValueError")
        return NN_FUNCTIONS["softmax"](x, -3, _stacklevel=5)


class CosineSimilarity(Module):
    """``nn.CosineSimilarity(dim=1, eps=1e-8)``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Any, x2: Any) -> Tensor:
        """``F.cosine_similarity``."""
        return NN_FUNCTIONS["cosine_similarity"](x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``nn.PairwiseDistance(p=2.0, eps=1e-6, keepdim=False)``."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Any, x2: Any) -> Tensor:
        """``F.pairwise_distance``."""
        return NN_FUNCTIONS["pairwise_distance"](x1, x2, self.norm, self.eps, self.keepdim)


class Unflatten(Module):
    """``nn.Unflatten(dim, unflattened_size)``: ``input.unflatten(dim, size)``."""

    def __init__(self, dim: Any, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (tuple, list)):
                raise ScriptError("unflattened_size must be tuple of ints, but found type "
                                  f"{typename(unflattened_size)}", kind="TypeError")
            for i, v in enumerate(unflattened_size):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise ScriptError("unflattened_size must be tuple of ints, but found "
                                      f"element of type {typename(v)} at pos {i}",
                                      kind="TypeError")
        else:
            raise ScriptError("invalid argument type for dim parameter", kind="TypeError")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Any) -> Tensor:
        """``input.unflatten(dim, unflattened_size)``."""
        x = _check_input(self, input, "unflatten")
        return x.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


PLACES = {"Embedding": "sparse", "Dropout": "dropout", "BatchNorm1d": "batchnorm",
          "BatchNorm2d": "batchnorm", "LayerNorm": "normalization", "ReLU6": "activation",
          "Hardtanh": "activation", "Softmax2d": "activation", "CosineSimilarity": "distance",
          "PairwiseDistance": "distance", "Unflatten": "flatten"}

__all__ = ["PLACES", "BatchNorm1d", "BatchNorm2d", "CosineSimilarity", "Dropout", "Embedding",
           "Hardtanh", "LayerNorm", "PairwiseDistance", "ReLU6", "Softmax2d", "Unflatten"]
