"""``gradcli export``: a grad script as the standalone PyTorch program it means (docs/language.md).

The program is written from the compiled ``language/program.py`` nodes and the script's
own text: every expression that needs no translation is copied from the source as written
(names, spacing, comments inside brackets), and only what differs is rewritten in place, each
rewrite a call or an attribute, so no operator precedence changes:

- a bare-literal assignment ``x = 1`` makes a leaf, ``torch.tensor(1, dtype=torch.float64)``
  (``requires_grad=True`` when ``--wrt`` names it);
- a built-in is PyTorch's function, ``tanh(x)`` → ``torch.tanh(x)``, ``softmax`` →
  ``F.softmax``; ``param``, ``tensor``, ``arange``, ``full``, ``grad``, ``seed`` as docs/language.md
  says; ``sum``/``max``/``min``/``round`` are PyTorch's for a tensor and Python's otherwise,
  so they become ``torch.sum`` or stay Python's where the argument's kind is known from the
  script, and a small helper decides at run time where it is not;
- a ``--wrt`` name is made to require grad after each top-level binding, as gradcli does;
- grad scripts compute in float64, so the program sets PyTorch's default dtype (which also
  makes its tensor reprs print as gradcli prints them), and seeds PyTorch's generator with
  ``--seed`` when the script draws random numbers.

Comments are kept at their lines.  ``kinds.py`` knows the script's scopes and what kind of
value an expression has; ``writer.py`` writes the program.  A construct with no faithful PyTorch equivalent is a
``UsageError`` at its position (exit 2), never a program that computes something else.
"""

from __future__ import annotations

from ..language import program as P


def export_source(source: str, filename: str, *, wrt: tuple[str, ...] | list[str] = (),
                  dtype: str = "float64", seed: int = 0) -> str:
    """The PyTorch program equivalent to the grad script ``source`` (raises UsageError for a
    construct it cannot translate, ScriptSyntaxError for a script that does not parse)."""
    from ..language.parser import parse

    return export_program(parse(source, filename), filename, wrt=wrt, dtype=dtype, seed=seed)


def export_program(program: P.Program, filename: str, *, wrt: tuple[str, ...] | list[str] = (),
                   dtype: str = "float64", seed: int = 0) -> str:
    """The PyTorch program equivalent to a parsed grad script."""
    from ..engine.context import process_guard
    from .writer import Writer

    with process_guard():  # an expression may nest 1,000 deep: the recursion limit is raised
        return Writer(program, filename, tuple(wrt), dtype, seed).program()



__all__ = ["export_program", "export_source"]
