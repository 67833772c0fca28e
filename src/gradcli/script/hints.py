"""Hints for the errors learners meet most, and "did you mean" for misspelt names."""

from __future__ import annotations

import difflib
import re
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
    prefix = _MODULE.match(msg)
    if prefix:
        module = prefix.group(1)
        used = re.search(rf"\b{module}\.(?:functional\.|nn\.)*([A-Za-z_]\w*)",
                         _span_text(err, source))
        fn = used.group(1) if used else "exp"
        return (f"grad scripts call the built-ins without the '{module}.' prefix ({fn}(...), "
                f"not {module}.{fn}(...)); or start the script with 'import torch' to run it "
                "as a PyTorch program")
    if msg == "'NoneType' object has no attribute 'zero_'":
        text = _span_text(err, source)
        found = re.search(r"([A-Za-z_]\w*)\.grad\.zero_", text)
        name = found.group(1) if found else "w"
        return (f"{name}.grad is None until a backward() reaches {name} (and stays None for a "
                f"non-leaf); zero it only when it exists: if {name}.grad is not None: "
                f"{name}.grad.zero_()")
    mat = _MATMUL.match(msg)
    if mat:
        n, m, p, q = mat.groups()
        return (f"A @ B needs A's columns to match B's rows: A is {n}x{m} and B is {p}x{q}, so "
                f"{m} != {p}; transpose one (B.t() or B.T) or fix a shape")
    return None


def _statement(source: str, span: Any) -> str:
    """The text of a statement, on one line."""
    lines = source.splitlines()
    if not 0 < span.line <= len(lines):
        return "?"
    line = lines[span.line - 1]
    end = span.end_column - 1 if span.end_line == span.line else None
    return line[span.column - 1:end].strip()


_MODULE = re.compile(r"name '(torch|F|nn)' is not defined$")
_MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


def _span_text(err: GradcliError, source: str) -> str:
    """The source text of the error's statement (its first line)."""
    span = err.span
    lines = source.splitlines()
    if span is None or not 1 <= span.line <= len(lines):
        return ""
    return lines[span.line - 1]


def did_you_mean(name: str, candidates: Any) -> str | None:
    """``did you mean 'tanh'?`` for a name close to a known one (True/False/None included)."""
    keywords = ("True", "False", "None")
    known = [c for c in candidates if not c.startswith("__")] + list(keywords)
    close = difflib.get_close_matches(name, known, n=5)
    if not close:
        return None

    def score(c: str) -> tuple[float, bool]:  # a tie goes to a keyword (Treu: True, not relu)
        return difflib.SequenceMatcher(None, name, c).ratio(), c in keywords

    return f"did you mean '{max(close, key=score)}'?"
