"""PyTorch's tensor repr, ported from ``torch/_tensor_str.py`` (PyTorch 2.13).

Only what gradcli needs is kept: real floating, integer and bool dtypes on the CPU, a strided
layout and the
default print options (precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode None).
The names below follow PyTorch's (``_Formatter``, ``_vector_str``, ``_tensor_str``,
``_str_intern``, ``_add_suffixes``) so the two files can be read side by side.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["format_scalar", "format_tensor", "format_values"]

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80

_NUMPY_DTYPES: dict[str, type[np.generic]] = {
    "float16": np.float16,
    "bfloat16": np.float32,  # NOTE: stored as float32 holding bfloat16-rounded values
    "float32": np.float32,
    "float64": np.float64,
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
}
# torch prints these without a dtype= suffix (besides the default float dtype)
_IMPLIED_DTYPES = ("int64", "bool")


def _as_dtype(data: object, dtype: str) -> np.ndarray:
    """Return ``data`` as a host array holding exactly the values a ``dtype`` tensor holds."""
    if dtype not in _NUMPY_DTYPES:
        raise ValueError(f"unsupported dtype {dtype!r}; expected one of {sorted(_NUMPY_DTYPES)}")
    with np.errstate(over="ignore"):  # values too large for the dtype become inf, as in torch
        if dtype in ("float16", "bfloat16"):
            # NOTE: PyTorch narrows float64 to these through float32 (two roundings), so we do too.
            arr = np.asarray(data, dtype=np.float32)
            return _round_to_bfloat16(arr) if dtype == "bfloat16" else arr.astype(np.float16)
        return np.asarray(data, dtype=_NUMPY_DTYPES[dtype])


def _round_to_bfloat16(arr: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), as ``Tensor.bfloat16()``."""
    bits = np.ascontiguousarray(arr, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32).reshape(arr.shape)
    return np.where(np.isnan(arr), arr, out)


class _Formatter:
    """Choose int/fixed/scientific mode and a common width from the values to be shown."""

    def __init__(self, values: np.ndarray) -> None:
        """Inspect the nonzero finite values as ``torch._tensor_str._Formatter`` does."""
        self.floating_dtype = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        flat = values.reshape(-1)
        if not self.floating_dtype:
            if flat.size:
                self.max_width = max(len(str(v)) for v in flat.tolist())
            return
        nonzero_finite_vals = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite_vals.size == 0:
            # no valid number, do nothing
            return

        # NOTE: PyTorch converts |values| to double before comparing, so we do too.
        nonzero_finite_abs = np.abs(nonzero_finite_vals).astype(np.float64)
        nonzero_finite_min = float(nonzero_finite_abs.min())
        nonzero_finite_max = float(nonzero_finite_abs.max())

        self.int_mode = bool(np.all(nonzero_finite_vals == np.ceil(nonzero_finite_vals)))
        self.sci_mode = (
            nonzero_finite_max / nonzero_finite_min > 1000.0
            or nonzero_finite_max > 1.0e8
            or nonzero_finite_min < 1.0e-4
        )

        items: list[float] = nonzero_finite_vals.tolist()
        if self.sci_mode:
            widths = [len(f"{value:.{PRECISION}e}") for value in items]
        elif self.int_mode:
            # a decimal point is appended in int mode: add 1 to the length for it
            widths = [len(f"{value:.0f}") + 1 for value in items]
        else:
            widths = [len(f"{value:.{PRECISION}f}") for value in items]
        self.max_width = max(self.max_width, *widths)

    def width(self) -> int:
        """Return the width every element is padded to."""
        return self.max_width

    def format(self, value: float) -> str:
        """Format one element, right-aligned to the common width."""
        if not self.floating_dtype:
            ret = str(value)
        elif self.sci_mode:
            ret = f"{value:{self.max_width}.{PRECISION}e}"
        elif self.int_mode:
            ret = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                ret += "."
        else:
            ret = f"{value:.{PRECISION}f}"
        return (self.max_width - len(ret)) * " " + ret


def _vector_str(self: np.ndarray, indent: int, summarize: bool, formatter: _Formatter,
                linewidth: int = LINEWIDTH) -> str:
    """Format a 1-d array, wrapping lines at the line width."""
    # length includes spaces and comma between elements
    element_length = formatter.width() + 2
    elements_per_line = max(1, math.floor((linewidth - indent) / element_length))

    if summarize and self.shape[0] > 2 * EDGEITEMS:
        data = (
            [formatter.format(val) for val in self[:EDGEITEMS].tolist()]
            + [" ..."]
            + [formatter.format(val) for val in self[-EDGEITEMS:].tolist()]
        )
    else:
        data = [formatter.format(val) for val in self.tolist()]

    data_lines = [data[i : i + elements_per_line] for i in range(0, len(data), elements_per_line)]
    lines = [", ".join(line) for line in data_lines]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(
    self: np.ndarray, indent: int, summarize: bool, formatter: _Formatter,
    linewidth: int = LINEWIDTH,
) -> str:
    """Format an array of any rank, recursing over the first dimension."""
    dim = self.ndim
    if dim == 0:
        return formatter.format(self.item())
    if dim == 1:
        return _vector_str(self, indent, summarize, formatter, linewidth)

    size = self.shape[0]
    if summarize and size > 2 * EDGEITEMS:
        slices = (
            [
                _tensor_str_with_formatter(self[i], indent + 1, summarize, formatter, linewidth)
                for i in range(EDGEITEMS)
            ]
            + ["..."]
            + [
                _tensor_str_with_formatter(self[i], indent + 1, summarize, formatter, linewidth)
                for i in range(size - EDGEITEMS, size)
            ]
        )
    else:
        slices = [
            _tensor_str_with_formatter(self[i], indent + 1, summarize, formatter, linewidth)
            for i in range(size)
        ]

    tensor_str = ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices)
    return "[" + tensor_str + "]"


def get_summarized_data(self: np.ndarray) -> np.ndarray:
    """Keep the first and last ``EDGEITEMS`` entries of every long dimension."""
    if self.ndim == 0:
        return self
    index = [
        np.r_[0:EDGEITEMS, n - EDGEITEMS : n] if n > 2 * EDGEITEMS else np.arange(n)
        for n in self.shape
    ]
    return self[np.ix_(*index)]


def _tensor_str(self: np.ndarray, indent: int, threshold: int = THRESHOLD,
                linewidth: int = LINEWIDTH) -> str:
    """Format the contents of a tensor (everything between ``tensor(`` and the suffixes)."""
    if self.size == 0:
        return "[]"
    summarize = self.size > threshold
    formatter = _Formatter(get_summarized_data(self) if summarize else self)
    return _tensor_str_with_formatter(self, indent, summarize, formatter, linewidth)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` items, moving one to a new line when it would pass the line width."""
    tensor_strs = [tensor_str]
    # NOTE: PyTorch's "+ 1" (not "- 1") is kept: it decides where suffixes wrap.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if last_line_len + suffix_len + 2 > LINEWIDTH:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def _str_intern(
    self: np.ndarray, grad_fn: str | None, requires_grad: bool, dtype: str, default_dtype: str
) -> str:
    """Assemble ``tensor(<contents>, <suffixes>)`` as ``torch._tensor_str._str_intern``."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []
    has_default_dtype = dtype == default_dtype or dtype in _IMPLIED_DTYPES

    if self.size == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior
        if self.ndim != 1:
            suffixes.append("size=" + str(tuple(int(n) for n in self.shape)))
        # In an empty tensor there are no elements to infer int64 from: always shown
        if dtype != default_dtype:
            suffixes.append("dtype=torch." + dtype)
        tensor_str = "[]"
    else:
        if not has_default_dtype:
            suffixes.append("dtype=torch." + dtype)
        tensor_str = _tensor_str(self, indent)

    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _add_suffixes(prefix + tensor_str, suffixes, indent)


def format_tensor(
    data: np.ndarray,
    *,
    grad_fn: str | None = None,
    requires_grad: bool = False,
    dtype: str = "float64",
    default_dtype: str = "float64",
) -> str:
    """Return ``repr(t)`` of a PyTorch tensor ``t`` holding ``data`` (same as ``str(t)``)."""
    if default_dtype not in _NUMPY_DTYPES:
        raise ValueError(f"unsupported default dtype {default_dtype!r}")
    return _str_intern(_as_dtype(data, dtype), grad_fn, requires_grad, dtype, default_dtype)


def format_values(data: np.ndarray, dtype: str = "float64", *, linewidth: int = LINEWIDTH,
                  threshold: int = THRESHOLD) -> str:
    """A tensor's contents as ``repr`` shows them between ``tensor(`` and the suffixes, for
    listings: PyTorch's precision, scientific switch and summarisation, rows wrapped at
    ``linewidth`` and summarised past ``threshold`` elements (``[[1.], [2.]]``, ``1.3713e-07``)."""
    return _tensor_str(_as_dtype(data, dtype), 0, threshold, linewidth)


def format_scalar(value: object) -> str:
    """Return how ``print`` shows a plain Python number or bool (Python's own ``str``)."""
    if isinstance(value, np.generic):
        value = value.item()
    return str(value)
