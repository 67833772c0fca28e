"""``torch.nn``'s recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (stacked layers, batch_first,
dropout between layers, bidirectional, LSTM's proj_size) and the cells ``RNNCell``, ``LSTMCell``, ``GRUCell``,
with PyTorch's parameters (``weight_ih_l0`` ...), initialisation, checks and reprs; the
computation is engine/recurrent.py's.
"""

from __future__ import annotations

import math
from typing import Any

from ..engine import recurrent
from ..engine.args import check_device
from ..engine.context import current
from ..engine.dtypes import to_dtype
from ..engine.shape import transpose, transpose_result
from ..engine.tensor import Tensor
from ..errors import ScriptError
from . import nn_init
from .creation import get_default_dtype, zeros
from .nn_module import _COMMON, Module
from .nn_parameter import Parameter

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _dim_check(module: str, x: Any, dims: tuple[int, int]) -> Tensor:
    if not isinstance(x, Tensor):
        raise ScriptError(f"'{type(x).__name__}' object has no attribute 'dim'",
                          kind="AttributeError")
    if x.ndim not in dims:
        raise ScriptError(f"{module}: Expected input to be {dims[0]}D or {dims[1]}D, got "
                          f"{x.ndim}D instead", kind="ValueError")
    return x


class _RNNBase(Module):
    """``nn.RNN`` / ``nn.LSTM`` / ``nn.GRU``."""

    script_attributes = _COMMON | {"input_size", "hidden_size", "num_layers", "bias",
                                   "batch_first", "dropout", "bidirectional", "mode",
                                   "proj_size", "reset_parameters", "all_weights"}
    script_settable = frozenset({"training", "dropout"})
    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None, nonlinearity: str = "tanh") -> None:
        super().__init__()
        check_device(device)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
                not 0 <= dropout <= 1:
            raise ScriptError("dropout should be a number in range [0, 1] representing the "
                              "probability of an element being zeroed", kind="ValueError")
        if dropout > 0 and num_layers == 1:
            current().warn("dropout option adds dropout after all but last recurrent layer, "
                           "so non-zero dropout expects num_layers greater than 1, but got "
                           f"dropout={dropout} and num_layers={num_layers}")
        if isinstance(hidden_size, bool) or not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ScriptError("hidden_size must be an integer greater than zero",
                              kind="ValueError")
        if isinstance(num_layers, bool) or not isinstance(num_layers, int) or num_layers <= 0:
            raise ScriptError("num_layers must be an integer greater than zero",
                              kind="ValueError")
        if isinstance(proj_size, bool) or not isinstance(proj_size, int):
            raise ScriptError("empty(): argument 'size' failed to unpack the object at pos 2 "
                              "with error \"type must be tuple of ints,but got "
                              f"{type(proj_size).__name__}\"", kind="TypeError")
        if proj_size < 0:
            raise ScriptError("proj_size should be a positive integer or zero to disable "
                              "projections", kind="ValueError")
        if proj_size >= hidden_size:
            raise ScriptError("proj_size has to be smaller than hidden_size", kind="ValueError")
        self.mode = self._mode if self._mode != "RNN" else \
            {"tanh": "RNN_TANH", "relu": "RNN_RELU"}.get(nonlinearity, "")
        if not self.mode:
            raise ScriptError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                              "'relu'.", kind="ValueError")
        self.nonlinearity = nonlinearity
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bool(bidirectional), proj_size
        dt = get_default_dtype() if dtype is None else to_dtype(dtype)
        gate = _GATES[self.mode] * hidden_size
        real = proj_size or hidden_size  # the size of h (the output's, per direction)
        self._all_weights = []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:self._directions]:
                size_in = input_size if layer == 0 else real * self._directions
                params = self._parameters
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                params[names[0]] = Parameter(zeros(gate, size_in, dtype=dt))
                params[names[1]] = Parameter(zeros(gate, real, dtype=dt))
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    params[names[2]] = Parameter(zeros(gate, dtype=dt))
                    params[names[3]] = Parameter(zeros(gate, dtype=dt))
                if proj_size:
                    names.append(f"weight_hr_l{layer}{suffix}")
                    params[names[-1]] = Parameter(zeros(proj_size, hidden_size, dtype=dt))
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    def reset_parameters(self) -> None:
        """Every parameter uniform in +-1/sqrt(hidden_size), in registration order."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self._parameters.values():
            nn_init.uniform_(weight, -stdv, stdv)

    def _weights(self) -> list:
        """Per layer, one (w_ih, w_hh, b_ih, b_hh, w_hr) per direction."""
        p, d = self._parameters, self._directions
        return [[tuple(p.get(f"{name}_l{k}{suffix}") for name in
                       ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))
                 for suffix in ("", "_reverse")[:d]] for k in range(self.num_layers)]

    @property
    def all_weights(self) -> list:
        """The parameters per layer and direction, as lists."""
        return [[self._parameters[n] for n in names] for names in self._all_weights]

    def forward(self, input: Any, hx: Any = None) -> tuple:
        """``_VF.<mode>(input, hx, ...)``: the output and the final state(s)."""
        x = _dim_check(self._mode, input, (2, 3))
        batched = x.ndim == 3
        if not batched:
            x = x.unsqueeze(1)
        elif self.batch_first:
            x = x.transpose(0, 1)
        if x.shape[-1] != self.input_size:
            raise ScriptError(f"input.size(-1) must be equal to input_size. Expected "
                              f"{self.input_size}, got {x.shape[-1]}")
        layers = self.num_layers * self._directions
        expected = (layers, x.shape[1], self.proj_size or self.hidden_size)
        cell = (layers, x.shape[1], self.hidden_size)
        lstm = self.mode == "LSTM"
        if hx is None:
            h0 = zeros(*expected, dtype=x.dtype)
            hx = (h0, zeros(*cell, dtype=x.dtype)) if lstm else h0
        else:
            states = hx if lstm else (hx,)
            if not batched:
                states = tuple(s.unsqueeze(1) for s in states)
            for i, (s, size) in enumerate(zip(states, (expected, cell))):
                if tuple(s.shape) != size:
                    what = f"hidden[{i}]" if lstm else "hidden"
                    raise ScriptError(f"Expected {what} size {size}, got {list(s.shape)}")
            hx = states if lstm else states[0]
        if lstm and self.proj_size and x.dtype.name == "float32" and x.numel():
            # PyTorch's C++ warning, raised at one line of rnn.py: Python shows it once
            current().warn_once("LSTM with projections is not supported with oneDNN. Using "
                                "default implementation.")
        out, state = recurrent.layers(self.mode, x, hx, self._weights(), self.num_layers,
                                      self.dropout, self.training)
        if not batched:
            out = out.squeeze(1)
            state = tuple(s.squeeze(1) for s in state) if self.mode == "LSTM" else \
                state.squeeze(1)
        elif self.batch_first:  # RNN.cpp: lstm's result.transpose(0, 1), the others' transpose_
            out = transpose(out, 0, 1) if lstm else transpose_result(out, 0, 1)
        return out, state

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(_RNNBase):
    """``nn.RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', ...)``."""

    script_attributes = _RNNBase.script_attributes | {"nonlinearity"}
    _mode = "RNN"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        _no_projection(kwargs)
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype, nonlinearity)


class LSTM(_RNNBase):
    """``nn.LSTM``: the output and (h_n, c_n)."""

    _mode = "LSTM"


class GRU(_RNNBase):
    """``nn.GRU``."""

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        _no_projection(kwargs)
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)


def _no_projection(kwargs: dict) -> None:
    """RNN's and GRU's keywords beyond their own: PyTorch's error for ``proj_size``,
    Python's for the rest."""
    if "proj_size" in kwargs:
        raise ScriptError("proj_size argument is only supported for LSTM, not RNN or GRU",
                          kind="ValueError")
    for name in kwargs:
        raise ScriptError(f"__init__() got an unexpected keyword argument '{name}'",
                          kind="TypeError")


class _CellBase(Module):
    """``nn.RNNCell`` / ``nn.LSTMCell`` / ``nn.GRUCell``: one step."""

    script_attributes = _COMMON | {"input_size", "hidden_size", "bias", "weight_ih",
                                   "weight_hh", "bias_ih", "bias_hh", "reset_parameters"}
    _mode = "LSTM"
    _name = "LSTMCell"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None, nonlinearity: str = "tanh") -> None:
        super().__init__()
        check_device(device)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.nonlinearity = nonlinearity
        dt = get_default_dtype() if dtype is None else to_dtype(dtype)
        gate = _GATES[self._mode if self._mode != "RNN" else "RNN_TANH"] * hidden_size
        params = self._parameters
        params["weight_ih"] = Parameter(zeros(gate, input_size, dtype=dt))
        params["weight_hh"] = Parameter(zeros(gate, hidden_size, dtype=dt))
        params["bias_ih"] = Parameter(zeros(gate, dtype=dt)) if bias else None
        params["bias_hh"] = Parameter(zeros(gate, dtype=dt)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter uniform in +-1/sqrt(hidden_size)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self._parameters.values():
            if weight is not None:
                nn_init.uniform_(weight, -stdv, stdv)

    def forward(self, input: Any, hx: Any = None) -> Any:
        """``_VF.<mode>_cell(input, hx, w_ih, w_hh, b_ih, b_hh)``."""
        x = _dim_check(self._name, input, (1, 2))
        batched = x.ndim == 2
        if not batched:
            x = x.unsqueeze(0)
        if x.shape[1] != self.input_size:
            raise ScriptError(f"input has inconsistent input_size: got {x.shape[1]} expected "
                              f"{self.input_size}")
        shape = (x.shape[0], self.hidden_size)
        lstm = self._mode == "LSTM"
        if hx is None:
            hx = (zeros(*shape, dtype=x.dtype), zeros(*shape, dtype=x.dtype)) if lstm else \
                zeros(*shape, dtype=x.dtype)
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if lstm else hx.unsqueeze(0)
        mode = self._mode if self._mode != "RNN" else \
            ("RNN_RELU" if self.nonlinearity == "relu" else "RNN_TANH")
        p = self._parameters
        out = recurrent.cell(mode, x, hx, p["weight_ih"], p["weight_hh"], p["bias_ih"],
                             p["bias_hh"])
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if lstm else out.squeeze(0)
        return out

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self._mode == "RNN" and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(_CellBase):
    """``nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh')``."""

    script_attributes = _CellBase.script_attributes | {"nonlinearity"}
    _mode, _name = "RNN", "RNNCell"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ScriptError(f"Unknown nonlinearity: {nonlinearity}", kind="ValueError")
        super().__init__(input_size, hidden_size, bias, device, dtype, nonlinearity)


class LSTMCell(_CellBase):
    """``nn.LSTMCell``: (h, c) of one step."""

    _mode, _name = "LSTM", "LSTMCell"


class GRUCell(_CellBase):
    """``nn.GRUCell``."""

    _mode, _name = "GRU", "GRUCell"


PLACES = {n: "rnn" for n in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell")}

__all__ = ["GRU", "LSTM", "PLACES", "RNN", "GRUCell", "LSTMCell", "RNNCell"]
