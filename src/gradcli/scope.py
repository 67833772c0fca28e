"""Scoping big graphs (docs/commands.md): ``--of L`` keeps what L depends on, ``--lines A-B`` the nodes
created on those script lines.  One function serves ``graph``, ``dot`` and ``html``.

A scoped view keeps its nodes' ids (listings and drawings still name ``pred#3`` and node 17),
and lists in ``context`` the nodes it left out that a kept node reads, so a drawing can show
where its inputs come from without drawing the rest of the graph.
"""

from __future__ import annotations

import re

from .errors import UsageError
from .views import BackwardView, GraphView, changed

Lines = tuple[tuple[int, int], ...]

_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_lines(text: str) -> Lines:
    """``"11-12"``, ``"7"`` or ``"3-4,9"`` as inclusive (first, last) ranges of line numbers."""
    ranges = []
    for part in text.split(","):
        m = _RANGE.match(part)
        if m is None:
            raise UsageError(f"--lines {text}: expected line numbers such as 11-12, 7 or 3-4,9")
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        if first < 1 or last < first:
            raise UsageError(f"--lines {text}: {part.strip()} is not a range of lines "
                             "(lines count from 1, first-last)")
        ranges.append((first, last))
    return tuple(ranges)


def in_lines(line: int | None, lines: Lines) -> bool:
    """Whether a line falls in one of the ranges."""
    return line is not None and any(a <= line <= b for a, b in lines)


def scope(view: GraphView | BackwardView, *, of: bool = False,
          lines: Lines | None = None) -> GraphView | BackwardView:
    """The part of ``view`` that the output depends on (``of``) and/or was created on ``lines``.

    Raises ``UsageError`` when the lines hold no node, naming the lines that do.
    """
    if isinstance(view, BackwardView):
        return _scope_backward(view, lines) if lines else view
    if not of and not lines:
        return view
    by_id = {n.id: n for n in view.nodes}
    keep = set(by_id)
    if of and view.output is not None:
        keep = _ancestors(view.output, by_id)
    if lines:
        keep = {i for i in keep if in_lines(by_id[i].line, lines)}
        _check_found(keep, lines, [n.line for n in view.nodes])
    nodes = [n for n in view.nodes if n.id in keep]
    wanted = sorted({j for n in nodes for j in n.inputs if j not in keep})
    return changed(view, nodes=nodes, context=[by_id[j] for j in wanted],
                   output=view.output if view.output in keep else None)


def _ancestors(start: int, by_id: dict) -> set[int]:
    """``start`` and every node it reads, directly or not (without recursion)."""
    seen = {start}
    stack = [start]
    while stack:
        for j in by_id[stack.pop()].inputs:
            if j not in seen and j in by_id:
                seen.add(j)
                stack.append(j)
    return seen


def _scope_backward(view: BackwardView, lines: Lines) -> BackwardView:
    keep = {n.id for n in view.nodes if in_lines(n.line, lines)}
    _check_found(keep, lines, [n.line for n in view.nodes])
    by_id = {n.id: n for n in view.nodes}
    nodes = [n for n in view.nodes if n.id in keep]
    wanted = sorted({m for n in nodes for m in n.next if m is not None and m not in keep})
    root = view.root if view.root in keep else None
    return changed(view, nodes=nodes, context=[by_id[m] for m in wanted], root=root,
                   output_tensor=view.output_tensor if root is not None else None)


def _check_found(keep: set[int], lines: Lines, all_lines: list[int | None]) -> None:
    if keep:
        return
    asked = ",".join(f"{a}-{b}" if a != b else str(a) for a, b in lines)
    present = sorted({x for x in all_lines if x is not None})
    where = _compact(present) if present else "none"
    raise UsageError(f"--lines {asked}: no graph node was created on those lines",
                     hint=f"nodes were created on lines {where}")


def _compact(numbers: list[int]) -> str:
    """``[3, 4, 5, 9]`` as ``3-5, 9``."""
    parts, start = [], None
    for k, x in enumerate(numbers):
        if start is None:
            start = x
        if k + 1 == len(numbers) or numbers[k + 1] != x + 1:
            parts.append(f"{start}-{x}" if x != start else str(x))
            start = None
    return ", ".join(parts)
