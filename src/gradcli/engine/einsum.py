"""``torch.einsum`` as ATen's einsum computes it: the equation parsed, each operand aligned
(a diagonal for a repeated label, unsqueezes, a permute), then the operands contracted pairwise
left to right (``sumproduct_pair``: a bmm between permuted, reshaped operands), so the graph has
PyTorch's nodes."""

from __future__ import annotations

from typing import Any

from ..errors import ScriptError
from . import ops as O
from .args import check_numel, tensor_arg, type_name
from .record import apply
from .reductions import _reduce
from .shape import _permuted, diagonal, movedim, reshape, unsqueeze, view
from .tensor import Tensor

_ELLIPSIS = 52


def _label(ch: str) -> int:
    return ord(ch) - ord("A") if ch.isupper() else ord(ch) - ord("a") + 26


def _letter(s: int) -> str:
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _parse_operands(lhs: str, n_ops: int) -> list[list[int]]:
    labels: list[list[int]] = [[] for _ in range(n_ops)]
    cur, ell, i = 0, False, 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == " ":
            pass
        elif ch == ".":
            if ell:
                raise ScriptError(f"einsum(): found '.' for operand {cur} for which an ellipsis "
                                  "was already found")
            if lhs[i + 1:i + 3] != "..":
                raise ScriptError(f"einsum(): found '.' for operand {cur} that is not part of "
                                  "any ellipsis")
            i += 2
            labels[cur].append(_ELLIPSIS)
            ell = True
        elif ch == ",":
            cur += 1
            if cur >= n_ops:
                raise ScriptError("einsum(): fewer operands were provided than specified in the "
                                  "equation")
            ell = False
        elif ch.isascii() and ch.isalpha():
            labels[cur].append(_label(ch))
        else:
            raise ScriptError(f"einsum(): invalid subscript given at index {i} in the equation "
                              "string, subscripts must be in [a-zA-Z]")
        i += 1
    if cur != n_ops - 1:
        raise ScriptError("einsum(): more operands were provided than specified in the equation")
    return labels


def einsum(equation: Any, *operands: Any) -> Tensor:
    """``torch.einsum``: operands aligned (diagonals, unsqueezes, permutes), contracted pairwise
    left to right with bmm, as ATen does, so the graph has PyTorch's nodes."""
    if not isinstance(equation, str):
        raise ScriptError(f"einsum(): argument 'equation' (position 1) must be str, not "
                          f"{type_name(equation)}", kind="TypeError")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ScriptError("einsum(): must provide at least one operand")
    ops = [tensor_arg(t, "einsum", "operands", 2) for t in operands]
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    labels = _parse_operands(lhs, len(ops))
    count = [0] * 52
    ell_dims = 0
    for i, (operand, ls) in enumerate(zip(ops, labels)):
        n = len(ls)
        has_ell = _ELLIPSIS in ls
        if has_ell:
            n -= 1
            ell_dims = max(ell_dims, operand.ndim - n)
        for s in ls:
            if s != _ELLIPSIS:
                count[s] += 1
        if (n > operand.ndim) if has_ell else (n != operand.ndim):
            raise ScriptError(
                f"einsum(): the number of subscripts in the equation ({n}) "
                + ("is more than the number of dimensions (" if has_ell
                   else "does not match the number of dimensions (")
                + f"{operand.ndim}) for operand {i}"
                + ("" if has_ell else " and no ellipsis was given"))
    perm_index = [-1] * 52
    index = ell_index = 0
    ell_out = False
    if arrow < 0:
        index, ell_out = ell_dims, True
        for s in range(52):
            if count[s] == 1:
                perm_index[s] = index
                index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == ".":
                if ell_out:
                    raise ScriptError("einsum(): found '.' for output but an ellipsis (...) was "
                                      "already found")
                if rhs[i + 1:i + 3] != "..":
                    raise ScriptError("einsum(): found '.' for output that is not part of any "
                                      "ellipsis (...)")
                i += 2
                ell_index, ell_out = index, True
                index += ell_dims
            elif ch != " ":
                if not (ch.isascii() and ch.isalpha()):
                    raise ScriptError(f"einsum(): invalid subscript given at index "
                                      f"{len(lhs) + 2 + i} in the equation string, subscripts "
                                      "must be in [a-zA-Z]")
                s = _label(ch)
                if count[s] == 0 or perm_index[s] != -1:
                    raise ScriptError(f"einsum(): output subscript {ch}" + (
                        " appears more than once in the output" if perm_index[s] > -1
                        else " does not appear in the equation for any input operand"))
                perm_index[s] = index
                index += 1
            i += 1
    out_dims = index
    if not ell_out:
        ell_index = index
        index += ell_dims
    for s in range(52):
        if count[s] and perm_index[s] == -1:
            perm_index[s] = index
            index += 1
    label_size = [1] * 52
    ell_sizes = [1] * ell_dims
    dim_counts = [0] * index
    aligned = []
    for i, (op, ls) in enumerate(zip(ops, labels)):
        ndim = op.ndim
        perm = [-1] * index
        dim = 0
        for s in ls:
            if s == _ELLIPSIS:
                n = ndim - (len(ls) - 1)
                for j in range(ell_dims - n, ell_dims):
                    if op.shape[dim] != 1:
                        if ell_sizes[j] not in (1, op.shape[dim]):
                            raise ScriptError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}"
                                f"has size {op.shape[dim]} which does not broadcast with "
                                f"previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension")
                        ell_sizes[j] = op.shape[dim]
                        dim_counts[ell_index + j] += 1
                    perm[ell_index + j] = dim
                    dim += 1
            elif perm[perm_index[s]] == -1:
                if op.shape[dim] != 1:
                    if label_size[s] not in (1, op.shape[dim]):
                        raise ScriptError(
                            f"einsum(): subscript {_letter(s)} has size {op.shape[dim]} for "
                            f"operand {i} which does not broadcast with previously seen size "
                            f"{label_size[s]}")
                    label_size[s] = op.shape[dim]
                    dim_counts[perm_index[s]] += 1
                perm[perm_index[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal
                prev = perm[perm_index[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise ScriptError(
                        f"einsum(): subscript {_letter(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = movedim(diagonal(op, 0, prev, dim), -1, prev)
        for k, v in enumerate(perm):
            if v == -1:
                op = unsqueeze(op, dim)
                perm[k] = dim
                dim += 1
        aligned.append(_permuted(op, tuple(perm)))
    while len(aligned) > 1:
        a, b = aligned[0], aligned[1]
        del aligned[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(out_dims, index):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = _reduce(O.SUM, O.SUM_DIM, a, a_sum, True)
        if b_sum:
            b = _reduce(O.SUM, O.SUM_DIM, b, b_sum, True)
        aligned.insert(0, _sumproduct_pair(a, b, sum_dims))
    result = aligned[0]
    if index - out_dims > 0:
        if len(ops) > 1:
            return view(result, *result.shape[:out_dims])
        return _reduce(O.SUM, O.SUM_DIM, result, list(range(out_dims, index)), False)
    return result


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` as a bmm between permuted, reshaped
    operands (ATen's sumproduct_pair)."""
    if not sum_dims:
        return apply(O.MUL, (left, right))
    nd = left.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(nd):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise ScriptError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = _reduce(O.SUM, O.SUM_DIM, left, i, True)
            elif sr:
                right = _reduce(O.SUM, O.SUM_DIM, right, i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise ScriptError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right.shape[d] for d in ro])
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [0] * len(lperm)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = i
    left = reshape(_permuted(left, tuple(lperm)), lro_size, lo_size, sum_size)
    right = reshape(_permuted(right, tuple(rperm)), lro_size, sum_size, ro_size)
    check_numel((lro_size, lo_size, ro_size))
    return _permuted(view(apply(O.BMM, (left, right)), *out_size), tuple(operm))
