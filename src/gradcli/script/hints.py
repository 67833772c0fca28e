"""Hints for the errors learners meet most, and "did you mean" for misspelt names."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ..engine.graph import accumulator
from ..errors import GradcliError, Span


def hint_for(err: GradcliError, source: str, none_read: NoneGrad | None = None) -> str | None:
    """A suggestion for the autograd errors learners meet most (``none_read``: the script's
    last ``.grad`` read that gave None)."""
    msg = err.message
    span = err.span
    if "'NoneType'" in msg and none_read is not None and span is not None \
            and span.line <= none_read.span.line <= span.end_line:
        name = none_read.text  # a None .grad used in the failing statement: say why it is None
        fix = (f"; zero it only when it exists: if {name}.grad is not None: {name}.grad.zero_()"
               if msg.endswith("attribute 'zero_'") and not none_read.warned else "")
        return f"{name}.grad is None here: {none_grad_reason(none_read)}{fix}"
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


# -- why a .grad is None -------------------------------------------------------------------------
class NoneGrad(NamedTuple):
    """A read of ``.grad`` that gave None: what was read, where, and what the run knew then."""

    tensor: Any
    text: str  # the expression read, as the script writes it: "w", "y", "(x * 2)"
    span: Span
    made_at: int | None  # a non-leaf: the line that computed it (None: not known)
    # the last backward() before the read: (its span, the expression it started from, the
    # grad_fn it started from); None if no backward() ran before
    backward: tuple[Span, str, Any] | None
    warned: bool  # PyTorch warned (a non-leaf that does not retain its grad)


def none_grad(interp: Any, tensor: Any, span: Span) -> NoneGrad:
    """The interpreter's read ``span`` (``w.grad``) of ``tensor`` gave None: what it knows then,
    kept for the warning's hint (this statement's non-leaf reads), trace (told at once) and
    explain (recording runs only: they keep their tensors anyway, a plain run keeps none).

    ``interp.last_backward`` is the span and tensor of the last ``x.backward`` the script
    called (None if none).
    """
    source = interp.program.source
    text = re.sub(r"\s*\.\s*grad$", "", _statement(source, span)) or "the tensor"
    last = None
    if interp.last_backward is not None:
        bspan, root = interp.last_backward
        last = (bspan, re.sub(r"\s*\.\s*backward$", "", _statement(source, bspan)),
                root.grad_fn)
    warned = tensor.grad_fn is not None and not tensor.retains_grad
    read = NoneGrad(tensor, text, span, _made_at(interp, tensor) if warned else None, last,
                    warned)
    if warned:
        interp.nonleaf_reads.append(read)
    if interp.recorder is not None:
        interp.result.none_grads.append(read)
    if interp.ctx.tracer is not None:
        interp.ctx.tracer.none_grad(read)
    return read


def _made_at(interp: Any, t: Any) -> int | None:
    """The line whose op made ``t``'s grad_fn: exact from graph records, else the line of its
    last in-place update, else of the top-level binding that bound it (None: not known)."""
    if interp.recorder is not None:
        rid = interp.recorder.ids.get(id(t))
        span = interp.recorder.records[rid].span if rid is not None else None
        return span.line if span is not None else None
    bump = interp.ctx.inplace_at.get(id(t._vc))
    if bump is not None and bump[1] is not None:
        return bump[1].line
    result = interp.result
    for name, value in result.bindings.items():
        if value is t and result.binding_spans.get(name) is not None:
            return result.binding_spans[name].line
    return None


def none_grad_reason(read: NoneGrad) -> str:
    """Why ``read.text``'s ``.grad`` was None, in one sentence with what to do."""
    t, name = read.tensor, read.text
    who = name if _NAME.match(name) else "this tensor"
    if read.warned:
        where = f" on line {read.made_at}" if read.made_at is not None else ""
        call = f"{name}.retain_grad()" if who == name else "retain_grad() on it"
        return (f"{who} is not a leaf (it was computed by {t.grad_fn.fn_name}{where}); call "
                f"{call} before backward() to keep its gradient")
    if not t.requires_grad:
        fix = f"; call {name}.requires_grad_() before using it" if who == name else ""
        return f"{who} does not require grad, so no backward() fills its .grad{fix}"
    if read.backward is None:
        return f"{who} requires grad but no backward() has run yet"
    span, root, node = read.backward
    if not _reaches(node, t):
        return (f"{who} requires grad but no backward() has reached it yet: line {span.line}'s "
                f"backward starts from {root}, which does not depend on {name}")
    return (f"{who} requires grad and line {span.line}'s backward from {root} reached it; its "
            ".grad was set to None since")


def _reaches(root: Any, t: Any) -> bool:
    """Whether the backward graph from node ``root`` reaches tensor ``t``'s gradient."""
    # a leaf's sink is its AccumulateGrad, made the first time an op used it (never: no path)
    target = t.grad_fn if t.grad_fn is not None else accumulator(t)
    if root is None or target is None:
        return False
    seen, stack = {id(root)}, [root]
    while stack:
        n = stack.pop()
        if n is target:
            return True
        for m in n.edges:
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                stack.append(m)
    return False


_NAME = re.compile(r"^[A-Za-z_]\w*$")


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
    import difflib  # error paths only

    keywords = ("True", "False", "None")
    known = [c for c in candidates if not c.startswith("__")] + list(keywords)
    close = difflib.get_close_matches(name, known, n=5)
    if not close:
        return None

    def score(c: str) -> tuple[float, bool]:  # a tie goes to a keyword (Treu: True, not relu)
        return difflib.SequenceMatcher(None, name, c).ratio(), c in keywords

    return f"did you mean '{max(close, key=score)}'?"
