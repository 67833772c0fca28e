"""The recurrent layers as ATen's CPU code composes them (aten/src/ATen/native/RNN.cpp): the
input projected for the whole sequence by one ``linear`` and unbound into steps, each step's
cell made of recorded ops (``linear`` of the hidden state, an in-place add of the step's
projection, the gates from ``unsafe_chunk`` updated in place), the outputs stacked; layers one
after the other with dropout between them while training, the final states stacked.

The bits are those of the ops composed.  ``unsafe_chunk``'s pieces share the gates' memory as
PyTorch's do, so an in-place ``sigmoid_``/``tanh_`` on a piece runs over its strided rows and
takes the vector or the scalar path PyTorch's loop takes for each element.  Measured in float32
(a (10, 4, 8) input, hidden size 16; values and every gradient): RNN, GRU (one direction or two,
two layers), GRUCell and LSTMCell are PyTorch's bit for bit (GRU was 30-60% while the pieces
were copies); an LSTM with projections is but for its projection weight's gradient (half its
elements within an ulp: the order its steps' gradients are summed in, not traced).  In
float64 (F.linear's addmm as dgemm adding into the bias, as ATen calls it) a 2-layer RNN, GRU
and LSTM of a (10, 4, 8) input are PyTorch's bit for bit, outputs and every gradient.  PyTorch
computes a float32 LSTM without
projections with oneDNN instead (one ``MkldnnRnnLayerBackward0`` node per layer and
direction): gradcli composes it as the float64 one, so its graph shows the cell's nodes and its
values are within the rounding of another order of the same sums (a 2-layer bidirectional
LSTM's values and gradients within 2e-7 of PyTorch's).  An LSTM with projections is composed by
PyTorch too (after its warning that oneDNN does not take them), so its graph is PyTorch's.
"""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import ops as O
from .context import current
from .joins import cat, stack
from .linalg import linear, matmul
from .nn_layers import dropout
from .record import apply, apply_inplace
from .shape import t, unbind
from .tensor import Tensor


def _unsafe_chunk(x: Tensor, chunks: int, dim: int = 1) -> list[Tensor]:
    size = x.shape[dim] // chunks
    return [apply(O.UNSAFE_SPLIT, (x,), {"dim": dim, "start": i * size,
                                         "stop": (i + 1) * size}) for i in range(chunks)]


def rnn_cell(igates: Tensor, hgates: Tensor, relu: bool = False) -> Tensor:
    """SimpleCell: ``tanh(linear(h, w_hh, b_hh).add_(igates))`` (or relu), ``hgates`` the
    linear of the hidden state."""
    g = apply_inplace(O.ADD, hgates, (igates,))
    return apply(O.RELU if relu else O.TANH, (g,))


def lstm_cell(igates: Tensor, hgates: Tensor, c: Tensor) -> tuple:
    """LSTMCell: the four gates of one linear, updated in place, then the new (h, c)."""
    gates = apply_inplace(O.ADD, hgates, (igates,))
    i, f, g, o = _unsafe_chunk(gates, 4)
    i, f = apply_inplace(O.SIGMOID, i, ()), apply_inplace(O.SIGMOID, f, ())
    g, o = apply_inplace(O.TANH, g, ()), apply_inplace(O.SIGMOID, o, ())
    cy = apply_inplace(O.ADD, apply(O.MUL, (f, c)), (apply(O.MUL, (i, g)),))
    return apply(O.MUL, (o, apply(O.TANH, (cy,)))), cy


def gru_cell(igates: Tensor, h: Tensor, w_hh: Tensor, b_hh: Any) -> Tensor:
    """GRUCell: reset and update gates added in place, the new gate, ``(h - n) * z + n``."""
    ir, iz, in_ = _unsafe_chunk(igates, 3)
    hr, hz, hn = _unsafe_chunk(linear(h, w_hh, b_hh), 3)
    r = apply_inplace(O.SIGMOID, apply_inplace(O.ADD, hr, (ir,)), ())
    z = apply_inplace(O.SIGMOID, apply_inplace(O.ADD, hz, (iz,)), ())
    n = apply_inplace(O.TANH, apply(O.ADD, (in_, apply_inplace(O.MUL, hn, (r,)))), ())
    out = apply_inplace(O.MUL, apply(O.SUB, (h, n)), (z,))
    return apply_inplace(O.ADD, out, (n,))


def cell(mode: str, input: Tensor, hidden: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Any,
         b_hh: Any) -> Any:
    """One step of a cell on ``input``, as the *Cell modules run it through ``_VF.*_cell``
    (the hidden state's linear before the input's, but in the GRU)."""
    if mode == "GRU":
        return gru_cell(linear(input, w_ih, b_ih), hidden, w_hh, b_hh)
    if mode == "LSTM":
        hgates = linear(hidden[0], w_hh, b_hh)
        return lstm_cell(linear(input, w_ih, b_ih), hgates, hidden[1])
    hgates = linear(hidden, w_hh, b_hh)
    return rnn_cell(linear(input, w_ih, b_ih), hgates, relu=mode == "RNN_RELU")


def _direction(mode: str, steps: list, h: Tensor, c: Any, w_hh: Tensor, b_hh: Any,
               w_hr: Any, tag: tuple) -> tuple:
    """FullLayer over the steps' input projections: the outputs and the final (h, c); each
    step's records tagged (mode, layer, direction, step, weights) for --rolled."""
    outputs = []
    ctx = current()
    for step, x in enumerate(steps):
        ctx.rnn_step = (*tag[:3], step, tag[3])
        if mode == "LSTM":
            h, c = lstm_cell(x, linear(h, w_hh, b_hh), c)
            if w_hr is not None:  # params.matmul_hr: the projection of the output
                h = matmul(h, t(w_hr))
        elif mode == "GRU":
            h = gru_cell(x, h, w_hh, b_hh)
        else:
            h = rnn_cell(x, linear(h, w_hh, b_hh), relu=mode == "RNN_RELU")
        outputs.append(h)
    return outputs, h, c


def layers(mode: str, input: Tensor, hx: Any, weights: list, num_layers: int, p: float,
           training: bool) -> tuple:
    """``_VF.lstm`` / ``gru`` / ``rnn_tanh`` / ``rnn_relu`` over a (T, B, I) input: the output
    (T, B, D*H) and the final states stacked per layer and direction (``hx`` a tensor, or
    (h, c)).  ``weights[layer]`` holds one (w_ih, w_hh, b_ih, b_hh, w_hr) per direction; a
    second direction is FullBidirectionalLayer's: its own input projection unbound and run
    from the last step, its outputs put back in time order, the two concatenated."""
    if input.shape[0] == 0:
        raise ScriptError("Expected sequence length to be larger than 0 in RNN")
    hs = unbind(hx[0] if mode == "LSTM" else hx, 0)
    cs = unbind(hx[1], 0) if mode == "LSTM" else None
    finals_h, finals_c = [], []
    layer_input = input
    ctx = current()
    outer = ctx.rnn_step
    try:
        for layer in range(num_layers):
            outs = []
            for d, (w_ih, w_hh, b_ih, b_hh, w_hr) in enumerate(weights[layer]):
                k = layer * len(weights[layer]) + d
                # the records of a layer's steps say so, and which weights (its module)
                tag = (mode, layer, d, id(w_ih))
                ctx.rnn_step = (mode, layer, d, -1, id(w_ih))
                steps = unbind(linear(layer_input, w_ih, b_ih), 0)
                if d == 1:
                    steps = steps[::-1]
                outputs, h, c = _direction(mode, steps, hs[k],
                                           cs[k] if cs is not None else None, w_hh, b_hh,
                                           w_hr, tag)
                finals_h.append(h)
                finals_c.append(c)
                outs.append(stack(outputs[::-1] if d == 1 else outputs, 0))
            ctx.rnn_step = outer
            layer_input = outs[0] if len(outs) == 1 else cat(outs, outs[0].ndim - 1)
            if p != 0 and training and layer < num_layers - 1:
                layer_input = dropout(layer_input, p, True)
    finally:
        ctx.rnn_step = outer
    h_n = stack(finals_h, 0)
    return layer_input, ((h_n, stack(finals_c, 0)) if mode == "LSTM" else h_n)
