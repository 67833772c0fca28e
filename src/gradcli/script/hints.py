"""Hints for the errors learners meet most, and "did you mean" for misspelt names."""

from __future__ import annotations

import difflib
from typing import Any

from ..errors import GradcliError


def hint_for(err: GradcliError, source: str) -> str | None:
    """A suggestion for the autograd errors learners meet most."""
    msg = err.message
    freed_by = getattr(err, "freed_by", None)
    if msg.startswith("Trying to backward through the graph a second time") and freed_by:
        line = source.splitlines()[freed_by.line - 1]
        text = line[freed_by.column - 1:freed_by.end_column - 1 if
                    freed_by.end_line == freed_by.line else None].strip()
        if text.endswith(".backward()"):
            fixed = text[:-1] + "retain_graph=True)"
            return f"call {fixed} on line {freed_by.line} to keep the saved tensors"
        return (f"pass retain_graph=True to the call on line {freed_by.line} to keep the "
                "saved tensors")
    if msg.startswith("one of the variables needed for gradient computation"):
        bumped = getattr(err, "bumped_by", None)
        saved_by = getattr(err, "saved_by", None)
        if bumped is not None and saved_by:
            text = _statement(source, bumped)
            return (f"{saved_by} saved this tensor for backward, and line {bumped.line} "
                    f"({text}) changed it in place afterwards; write that update out of place "
                    "or update a clone()")
        return ("a tensor saved for backward was changed in place afterwards; write the "
                "update out of place (y = y + 1) or update a clone()")
    if msg.startswith("a leaf Variable that requires grad"):
        return "update parameters inside `with no_grad():`, as optimizers do"
    if msg.startswith("grad can be implicitly created only for scalar"):
        return "reduce to a scalar first (y.sum().backward()) or pass gradient=ones_like(y)"
    if msg.startswith("element 0 of tensors does not require grad"):
        return ("nothing it depends on requires grad: use param(...), requires_grad=True, "
                "or --wrt NAME")
    return None


def _statement(source: str, span: Any) -> str:
    """The text of a statement, on one line."""
    lines = source.splitlines()
    if not 0 < span.line <= len(lines):
        return "?"
    line = lines[span.line - 1]
    end = span.end_column - 1 if span.end_line == span.line else None
    return line[span.column - 1:end].strip()


def did_you_mean(name: str, candidates: Any) -> str | None:
    """``did you mean 'tanh'?`` for a name close to a known one."""
    close = difflib.get_close_matches(name, [c for c in candidates if not c.startswith("__")],
                                      n=1)
    return f"did you mean '{close[0]}'?" if close else None
