"""What a script imports, checked before it runs, and which mode it runs in.

A PyTorch program (docs/language.md) may import the modules of ``api.namespace`` (torch's, math, and
the standard modules ``script.stdlib`` registers there) and nothing else;
anything else is refused before a single statement runs, positioned at the import, naming
what is supported. A script is a PyTorch program when its file name ends in ``.py`` or its
leading imports import torch.
"""

from __future__ import annotations

from ..api.namespace import MODULES
from ..errors import ScriptSyntaxError
from ..language import program as P
from ..language.checks import blocks


def is_torch_program(program: P.Program, filename: str) -> bool:
    """Whether the script runs as a PyTorch program (docs/language.md)."""
    if filename.endswith(".py"):
        return True
    for s in program.body:
        if s.__class__ is P.Import:
            if any(name == "torch" or name.startswith("torch.") for name, _ in s.names):
                return True
        elif s.__class__ is P.ImportFrom:
            if s.module == "torch" or s.module.startswith("torch."):
                return True
        elif not (s.__class__ is P.ExprStmt and s.value.__class__ is P.String):
            return False  # past the leading imports (a docstring may come first)
    return False


def check_imports(program: P.Program) -> None:
    """Refuse an import of a module or name gradcli does not have (ScriptSyntaxError)."""
    stack = list(program.body)
    while stack:
        s = stack.pop()
        cls = s.__class__
        if cls is P.Import:
            for name, _ in s.names:
                _check_module(name, s)
        elif cls is P.ImportFrom:
            module = _check_module(s.module, s)
            for name, _ in s.names:
                if name == "*" or f"{s.module}.{name}" in MODULES or name in module.members:
                    continue
                err = module.missing(name)
                if err.kind == "AttributeError":  # Python's words for a from-import
                    import difflib

                    close = difflib.get_close_matches(name, list(module.members), n=1)
                    raise ScriptSyntaxError(
                        f"cannot import name '{name}' from '{s.module}'", kind="ImportError",
                        span=s.span, hint=f"did you mean '{close[0]}'?" if close else None)
                raise ScriptSyntaxError(err.message, kind=err.kind, span=s.span, hint=err.hint)
        elif cls is P.FunctionDef:
            stack.extend(s.body)
        elif cls is not P.Assign and cls is not P.ExprStmt:  # (a scalar script's every line)
            for b in blocks(s):
                stack.extend(b)


def _check_module(name: str, where: P.Import | P.ImportFrom) -> object:
    module = MODULES.get(name)
    if module is not None:
        return module
    top = name.split(".")[0]
    if top == "torch":
        message = f"gradcli does not support {name} yet"
    else:
        message = f"gradcli does not support importing '{name}'"
    raise ScriptSyntaxError(message, kind="ImportError", span=where.span,
                            hint=f"a script may import {', '.join(sorted(MODULES))}")


__all__ = ["check_imports", "is_torch_program"]
