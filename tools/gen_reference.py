"""Write the list of built-ins from the op table and the PyTorch surface into README.md and
docs/language.md.

Usage: ``PYTHONPATH=src python tools/gen_reference.py [--check]``.  The list sits between
``<!-- builtins:start -->`` and ``<!-- builtins:end -->`` in each file; ``--check`` exits 1
when one is out of date (tests/test_ops_table.py runs the same check).
"""

from __future__ import annotations

import sys
from pathlib import Path

from gradcli.api import CREATION, LINALG, NN, NN_FUNCTIONS, NN_INIT, OPTIM
from gradcli.api.lr_scheduler import SCHEDULERS
from gradcli.api.namespace import tensor_surface
from gradcli.api.nn_utils import NN_UTILS
from gradcli.engine import FUNCTIONS, OPS
from gradcli.script.builtins import BUILTINS
from gradcli.script.exceptions import EXCEPTIONS
from gradcli.script.pybuiltins import PY_BUILTINS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FILES = (README, ROOT / "docs" / "language.md")  # each holds the list between the markers
START, END = "<!-- builtins:start -->", "<!-- builtins:end -->"


def _names(names: object) -> str:
    return " ".join(f"`{n}`" for n in names)


def reference() -> str:
    """The Markdown list of every built-in name, grouped by where it comes from."""
    table = [n for n, op in OPS.items() if op.surface]
    # (a name a grad script takes from Python, as any and all, is listed with Python's)
    dispatch = [n for n in FUNCTIONS if n not in table and BUILTINS.get(n) is not PY_BUILTINS.get(n)]
    nn_only = [n for n in NN_FUNCTIONS if n not in FUNCTIONS]
    python = [n for n in PY_BUILTINS if n not in EXCEPTIONS]
    grouped = set(CREATION) | set(table) | set(dispatch) | set(nn_only) | set(PY_BUILTINS)
    own = [n for n in BUILTINS if n not in grouped]
    attributes, tensor_methods = tensor_surface()
    listed = set(table) | set(dispatch)
    methods = sorted(n for n in tensor_methods if n not in listed or n.endswith("_"))
    lines = [
        f"- leaves: {_names(CREATION)}",
        f"- elementwise, from the op table: {_names(table)}",
        f"- arithmetic, reductions, linear algebra and shapes: {_names(dispatch)}",
        f"- `torch.nn.functional` only: {_names(nn_only)}",
        f"- `torch.linalg` (in PyTorch programs): {_names(LINALG)}",
        (f"- `torch.nn` (in PyTorch programs): {_names(NN)}; `torch.nn.init`: {_names(NN_INIT)}; "
         f"`torch.nn.utils`: {_names(NN_UTILS)}"),
        (f"- `torch.optim` (in PyTorch programs): {_names(OPTIM)}; `torch.optim.lr_scheduler`: "
         f"{_names(SCHEDULERS)}"),
        f"- autograd and the interpreter: {_names(own)}",
        (f"- Python's (`sum`, `max`, `min`, `abs`, `round` of a tensor are PyTorch's): "
        f"{_names(python)}"),
        f"- exceptions, for `try`/`except`/`raise`: {_names(EXCEPTIONS)}",
        (f"- on tensors also: {_names('.' + n for n in methods)}, attributes "
        f"{_names('.' + n for n in attributes)}, operators "
        "`+ - * / // % ** @ & | ^ ~ < <= > >= == !=` and `[index]`"),
    ]
    return "\n".join(lines)


def updated(text: str) -> str:
    """README text with the list between the markers replaced."""
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{reference()}\n{END}{tail}"


def main() -> int:
    stale = []
    for path in FILES:
        text = path.read_text()
        new = updated(text)
        if new == text:
            continue
        stale.append(path.relative_to(ROOT))
        if "--check" not in sys.argv[1:]:
            path.write_text(new)
    if "--check" in sys.argv[1:]:
        print("built-ins: " + ("up to date" if not stale else
                               "out of date in " + ", ".join(map(str, stale))))
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
