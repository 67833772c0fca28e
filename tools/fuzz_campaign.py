"""A long fuzzing campaign against the gradcli command line (SPEC §3 exit codes, §3.2 JSON, §6).

Three generators feed it, shared with ``tests/test_fuzz.py`` (which drives them from Hypothesis):

* ``ProgramGenerator`` writes random grad scripts from the language of SPEC §2: assignments,
  bare literals, in-place updates, ``for``/``if``/``with``/``def`` blocks, and expressions with
  every operator, attributes, indexing, list literals and calls to random built-ins and tensor
  methods with random (often wrong) arguments, plus the awkward numbers (``1e999``, ``-0.0``,
  ``10**30``, ...).
* ``mutate`` flips, inserts and deletes bytes of a seed script (``samples/``,
  ``tests/scenarios/``, ``tests/corpus/``).
* ``fuzz_torch.TorchProgramGenerator`` writes PyTorch programs (SPEC §7): every name of the
  api gradcli supports called with random arguments, tensors of every dtype, odd Python.

Both draw every decision from a ``Source``: ``RandomSource`` here (seeded: script *i* of a
campaign with seed *s* is always the same text), a Hypothesis-backed one in the test.

Each script runs one command (``run``, ``graph``, ``graph --tree``, ``dot``, ``grad``,
``check``, ``explain``, ``trace``, ``profile`` or ``html``, with random options) through
``gradcli.launch.main`` in-process (fast: no interpreter start-up), in a pool of worker
processes, with ``--format json``, small ``--max-steps``/``--max-elements`` and a per-script
wall-clock timeout.  A finding is any of: an exit code outside {0, 1, 2, 3, 4}, a
Python traceback or an "internal error" on stderr, stdout that is not one JSON document, or a
run longer than the timeout.  Findings are written to ``--out`` (script, command, output) and
summarised at the end; the exit status is 1 when there is any.

Usage::

    PYTHONPATH=src python tools/fuzz_campaign.py -n 20000 --seed 1 --jobs 2
    PYTHONPATH=src python tools/fuzz_campaign.py --replay /tmp/gradcli-fuzz/finding-000.grad
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

ROOT = Path(__file__).resolve().parents[1]
# fuzz_torch imports this module by name, from this folder, whether it runs as a script or not
sys.modules.setdefault("fuzz_campaign", sys.modules[__name__])
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
CONTRACT_EXITS = frozenset({0, 1, 2, 3, 4})
T = TypeVar("T")


# ---- where decisions come from -----------------------------------------------------------------
class Source(Protocol):
    """Every random decision a generator makes; small answers should mean simple programs."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        ...


class RandomSource:
    """Decisions from a seeded ``random.Random``."""

    def __init__(self, seed: int | str) -> None:
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        return self.rng.randint(lo, hi)


def pick(src: Source, items: Sequence[T]) -> T:
    """One of ``items`` (the first ones are what a shrinking source falls back to)."""
    return items[src.integer(0, len(items) - 1)]


def chance(src: Source, percent: int) -> bool:
    """True with the given probability; a source that answers 0 always gets False."""
    return src.integer(0, 99) >= 100 - percent


def weighted(src: Source, table: Sequence[tuple[int, T]]) -> T:
    """One item of ``(weight, item)`` pairs."""
    total = sum(w for w, _ in table)
    n = src.integer(0, total - 1)
    for w, item in table:
        if n < w:
            return item
        n -= w
    return table[-1][1]  # pragma: no cover - unreachable


# ---- the language, as the generator sees it ----------------------------------------------------
TENSOR_NAMES = ("a", "b", "c", "w", "x", "y", "z", "L", "h", "W")
LOOP_NAMES = ("i", "j", "k")
FUNC_NAMES = ("f", "g")
NUMBERS = ("0", "1", "2", "3", "-1", "0.5", "2.5", "1e-3", ".5", "3.", "0.0", "-0.0", "1e999",
           "-1e999", "1e308", "5e-324", "10**30", "2**63", "1_000", "True", "False", "None",
           "1e-320", "100", "7", "10**400", "1e300*1e300")
SMALL_INTS = ("0", "1", "2", "3", "-1", "-2", "4", "10**30", "-10**30", "True")
STRINGS = ("'a'", '"x"', "''", "'data.npy'", "'f.npz'", "'t.csv'", "'nope.txt'", "'../x.npy'",
           "'/etc/passwd'", "'W'", "'loss:'")
UNARY_FUNCS = ("exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "neg",
               "detach", "clone", "t", "flatten", "zeros_like", "ones_like", "param", "tensor")
BINARY_FUNCS = ("add", "sub", "mul", "div", "pow", "matmul", "mm", "maximum", "minimum",
                "mse_loss")
REDUCTIONS = ("sum", "mean", "max", "min", "softmax", "log_softmax", "squeeze", "unsqueeze")
CONSTRUCTORS = ("zeros", "ones", "rand", "randn")
METHODS = ("exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "neg", "sum",
           "mean", "max", "min", "t", "clone", "detach", "item", "numel", "reshape", "view",
           "flatten", "transpose", "unsqueeze", "squeeze", "softmax", "log_softmax", "add",
           "sub", "mul", "div", "pow", "matmul", "mm", "maximum", "minimum", "clamp",
           "requires_grad_", "retain_grad", "backward", "zero_", "add_", "sub_", "mul_", "div_",
           "reciprocal", "tolist", "numpy", "data_ptr")
ATTRIBUTES = ("grad", "grad_fn", "is_leaf", "requires_grad", "shape", "T", "ndim", "data",
              "dtype", "grad_fn.edges", "grad.grad")
KWARG_NAMES = ("dim", "keepdim", "requires_grad", "min", "max", "retain_graph", "gradient",
               "create_graph", "allow_unused", "key", "reduction", "sep", "end", "bogus")
OTHER_CALLS = ("print", "seed", "len", "float", "int", "range", "grad", "no_grad",
               "enable_grad", "eye", "arange", "linspace", "full", "load", "clamp", "reshape",
               "view", "transpose", "undefined_fn")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
BINOPS = ("+", "-", "*", "/", "@", "**")


SHAPES = ((), (3,), (2, 3), (2, 2), (1,), (4,))


class Statements:
    """What the two generators share: odd decisions, blocks, and the compound statements whose
    shape is Python's whatever goes inside (``fuzz_torch.TorchProgramGenerator`` is the other)."""

    src: Source
    wild: int

    def odd(self) -> bool:
        """Whether this decision should be an odd one."""
        return chance(self.src, self.wild)

    def statement(self, level: int) -> list[str]:  # pragma: no cover - each generator's own
        raise NotImplementedError

    def condition(self) -> str:  # pragma: no cover - each generator's own
        raise NotImplementedError

    def block(self, level: int) -> list[str]:
        """The indented body of a compound statement at ``level``."""
        out: list[str] = []
        for _ in range(self.src.integer(1, 3)):
            out.extend(self.statement(level))
        return out

    def if_lines(self, ind: str, level: int) -> list[str]:
        """``if`` with sometimes an ``elif`` and an ``else``."""
        lines = [f"{ind}if {self.condition()}:", *self.block(level + 1)]
        if chance(self.src, 30):
            lines += [f"{ind}elif {self.condition()}:", *self.block(level + 1)]
        if chance(self.src, 40):
            lines += [f"{ind}else:", *self.block(level + 1)]
        return lines

    def try_lines(self, ind: str, level: int, handler: str, else_percent: int = 0) -> list[str]:
        """``try``/``except handler`` with sometimes an ``else`` and a ``finally``."""
        lines = [f"{ind}try:", *self.block(level + 1),
                 f"{ind}except {handler}:".replace("except :", "except:"),
                 *self.block(level + 1)]
        if else_percent and chance(self.src, else_percent):
            lines += [f"{ind}else:", *self.block(level + 1)]
        if chance(self.src, 30):
            lines += [f"{ind}finally:", *self.block(level + 1)]
        return lines

    def while_lines(self, ind: str, level: int, var: str, cond: str) -> list[str]:
        """A counting ``while`` loop."""
        return [f"{ind}{var} = 0", f"{ind}while {cond}:", f"{ind}    {var} += 1",
                *self.block(level + 1)]


@dataclass
class ProgramGenerator(Statements):
    """Random grad scripts drawn from ``src``.

    Each script draws a *wildness* (the chance, per decision, of an odd choice: a wrong type, an
    unknown name, an awkward number, a random built-in) and a tensor shape most of its literals
    share, so that most scripts run many statements deep before failing, and some fail early in
    every way there is.
    """

    src: Source
    max_statements: int = 12
    max_expr_depth: int = 3
    max_block_depth: int = 3

    def __post_init__(self) -> None:
        self.wild = pick(self.src, (0, 2, 5, 12, 30))
        self.shape: tuple[int, ...] = pick(self.src, SHAPES)
        self.names: list[str] = []  # names bound so far, read back most of the time
        self.functions: list[tuple[str, int]] = []

    # -- programs ---------------------------------------------------------------------------------
    def program(self) -> str:
        """A whole script: a few leaves, then random statements."""
        lines: list[str] = []
        if chance(self.src, 10):
            lines.append("# a generated script")
        for _ in range(self.src.integer(1, 3)):
            lines.append(self.leaf())
        for _ in range(self.src.integer(1, self.max_statements)):
            lines.extend(self.statement(0))
        text = "\n".join(lines) + ("\n" if not chance(self.src, 5) else "")
        if chance(self.src, 3):
            text = text.replace("\n", "\r\n")
        return text

    def leaf(self) -> str:
        """A leaf binding: a bare literal, ``param(...)`` or a constructor."""
        kind = pick(self.src, ("literal", "param", "ctor", "requires"))
        if kind == "literal":
            value = ("-" if chance(self.src, 10) else "") + self.literal()
        elif kind == "param":
            value = f"param({self.literal()})"
        elif kind == "ctor":
            value = self.constructor()
        else:
            value = f"tensor({self.literal()}, requires_grad=True)"
        return f"{self.target()} = {value}"

    def statement(self, level: int) -> list[str]:
        """One statement (a compound one spans several lines)."""
        ind = "    " * level
        compound = level < self.max_block_depth
        kind = weighted(self.src, [
            (30, "assign"), (8, "leaf"), (6, "aug"), (8, "print"), (8, "backward"),
            (4 if compound else 0, "for"), (4 if compound else 0, "if"),
            (3 if compound else 0, "with"), (3 if compound else 0, "def"), (1, "pass"),
            (2, "multi"), (3 if self.wild else 0, "odd"), (6, "python"),
            (2 if compound else 0, "try"), (1 if compound else 0, "while")])
        if kind == "assign":
            value = self.expr(self.max_expr_depth)
            return [f"{ind}{self.target()} = {value}"]
        if kind == "leaf":
            return [ind + self.leaf()]
        if kind == "aug":
            op = pick(self.src, ("+=", "-=", "*=", "/="))
            return [f"{ind}{self.name()} {op} {self.expr(1)}"]
        if kind == "print":
            return [ind + self.print_call()]
        if kind == "backward":
            return [ind + self.backward(ind)]
        if kind == "for":
            var = pick(self.src, LOOP_NAMES)
            self.names.append(var)
            body = self.block(level + 1)
            self.names.remove(var)
            return [f"{ind}for {var} in range({self.range_args()}):", *body]
        if kind == "if":
            return self.if_lines(ind, level)
        if kind == "with":
            ctx = pick(self.src, ("no_grad()", "enable_grad()")) if not self.odd() else \
                pick(self.src, ("x", "no_grad", "1", "print()", "grad"))
            return [f"{ind}with {ctx}:", *self.block(level + 1)]
        if kind == "def":
            return self.function(level)
        if kind == "pass":
            return [f"{ind}pass"]
        if kind == "python":
            return [ind + line for line in self.python_statement()]
        if kind == "try":
            handler = pick(self.src, ("RuntimeError", "(TypeError, ValueError)", "Exception",
                                      "IndexError as e", "", "LookupError as err"))
            return self.try_lines(ind, level, handler)
        if kind == "while":
            var = pick(self.src, LOOP_NAMES)
            return self.while_lines(ind, level, var, f"{var} < {self.src.integer(0, 3)}")
        if kind == "multi":
            value = self.expr(1)
            return [f"{ind}{self.target()} = {value}; {self.print_call()}"]
        return [ind + pick(self.src, (
            f"return {self.expr(1)}", f"{self.target()}, {self.target()} = 1, 2",
            f"{self.expr(2)}", f"{self.name()}.{pick(self.src, METHODS)}({self.args(2)})",
            f"seed({pick(self.src, SMALL_INTS)})", f"{self.target()} = {self.wild_expr(3)}",
            f"{self.target()} = load({pick(self.src, STRINGS)})"))]

    def python_statement(self) -> list[str]:
        """Python beyond the arithmetic: unpacking, displays, comprehensions, f-strings,
        lambdas, attribute and item assignment, raise and assert (SPEC §7's subset)."""
        n, m = self.name(), self.name()
        kind = pick(self.src, ("unpack", "comp", "gen", "dict", "fstring", "lambda", "attr",
                               "item", "format", "raise", "assert", "star", "math", "del"))
        if kind == "unpack":
            return [f"{self.target()}, *{self.target()} = {n}, {m}, {self.expr(1)}"]
        if kind == "comp":
            return [(f"{self.target()} = [{n} * {pick(self.src, LOOP_NAMES)} for "
                    f"{pick(self.src, LOOP_NAMES)} in range({self.src.integer(0, 3)})]")]
        if kind == "gen":
            return [f"{self.target()} = sum({n} ** 2 for _ in range({self.src.integer(0, 3)}))"]
        if kind == "dict":
            return [f"d = {{'a': {n}, 'b': [{m}, None]}}", "print(d, list(d), len(d))"]
        if kind == "fstring":
            spec = pick(self.src, ("", ":.3f", "!r", ":>8", ":e", ":{3}", "=", ":zz"))
            return [f"print(f'{{{n}{spec}}} and {{{m}.shape}}')"]
        if kind == "lambda":
            return ["sq = lambda v, k=2: v ** k", f"{self.target()} = sq({n})"]
        if kind == "attr":
            attr = pick(self.src, ("grad", "requires_grad", "data", "grad_fn", "shape"))
            value = pick(self.src, ("None", "True", "False", n, self.number()))
            return [f"{n}.{attr} = {value}"]
        if kind == "item":
            return [f"{n}[{self.index()}] = {self.number()}"]
        if kind == "format":
            return [f"print('%s %.2f' % ({n}, {self.scalar_expr()}), '{{}}'.format({m}))"]
        if kind == "raise":
            return [(f"raise {pick(self.src, ('ValueError', 'RuntimeError', 'KeyError'))}"
                    f"({pick(self.src, STRINGS)})")]
        if kind == "assert":
            return [f"assert {self.condition()}, {pick(self.src, STRINGS)}"]
        if kind == "star":
            return [f"print(*[{n}, {m}], sep={pick(self.src, STRINGS)}, end='\\n')"]
        if kind == "math":
            return ["import math", f"print(math.sqrt(abs(float({self.scalar_expr()}))))"]
        return [f"del {n}"]

    def function(self, level: int) -> list[str]:
        """``def f(p, ...):`` with a body and a return; later calls may recurse."""
        ind = "    " * level
        name = pick(self.src, FUNC_NAMES)
        params = ["p", "q", "r"][:self.src.integer(0, 2)]
        self.functions.append((name, len(params)))
        saved = self.names
        self.names = [*saved, *params]
        body = self.block(level + 1)
        body.append(f"{ind}    return {self.expr(2)}")
        self.names = saved
        return [f"{ind}def {name}({', '.join(params)}):", *body]

    def range_args(self) -> str:
        """Arguments of ``range``: mostly small, sometimes huge, zero-step, float or a tensor."""
        if not self.odd():
            return str(self.src.integer(0, 4)) if chance(self.src, 80) else \
                f"{self.src.integer(-2, 2)}, {self.src.integer(0, 5)}"
        kind = pick(self.src, ("two", "three", "huge", "odd"))
        if kind == "two":
            return f"{pick(self.src, SMALL_INTS)}, {pick(self.src, SMALL_INTS)}"
        if kind == "three":
            return (f"{pick(self.src, SMALL_INTS)}, {pick(self.src, SMALL_INTS)}, "
                    f"{pick(self.src, SMALL_INTS)}")
        if kind == "huge":
            return pick(self.src, ("10**9", "10**30", "0, 10**30, 1", "10**9, 0, -1"))
        return pick(self.src, ("2.5", self.name(), f"len({self.name()})", "'a'", "None", "-3",
                               f"{self.name()}.shape[0]", f"int({self.name()}.sum())"))

    def condition(self) -> str:
        """An ``if`` condition: a comparison, a name, a tensor expression, a bool op."""
        kind = weighted(self.src, [(5, "cmp"), (2, "reduced"), (2, "bool"), (1, "any")])
        if kind == "cmp":
            return f"{self.scalar_expr()} {pick(self.src, COMPARISONS)} {self.scalar_expr()}"
        if kind == "reduced":
            return f"{self.name()}.sum() > {self.number()}"
        if kind == "bool":
            op = pick(self.src, ("and", "or"))
            return f"{self.scalar_expr()} {op} not {self.scalar_expr()}"
        return self.expr(2)

    def scalar_expr(self) -> str:
        """Something that is usually a plain number or a one-element tensor."""
        return weighted(self.src, [(3, self.number()), (2, f"{self.name()}.sum()"),
                                   (1, f"{self.name()}.mean().item()"),
                                   (1, pick(self.src, LOOP_NAMES)), (1, self.expr(1))])

    def print_call(self) -> str:
        """``print(...)`` of values, attributes and labels."""
        args = [weighted(self.src, [(4, self.expr(1)),
                                    (2, f"{self.name()}.{pick(self.src, ATTRIBUTES[:7])}"),
                                    (1, pick(self.src, STRINGS))])
                for _ in range(self.src.integer(0, 3))]
        return f"print({', '.join(args)})"

    def backward(self, ind: str) -> str:
        """The autograd calls scripts make: backward, grad, retain_grad, grad.zero_()."""
        n = self.name()
        return weighted(self.src, [
            (4, f"{n}.backward()"), (4, f"{n}.sum().backward()"),
            (2, f"{n}.sum().backward(retain_graph=True)"),
            (1, f"{n}.backward(gradient={self.expr(1)})"),
            (1, f"{n}.backward({self.expr(1)}, {pick(self.src, ('True', 'False', 'None'))})"),
            (2, f"{n}.grad.zero_()"), (2, f"{n}.retain_grad()"),
            (2, f"{self.target()} = grad({n}.sum(), {self.name()})"),
            (1, (f"{self.target()} = grad([{n}.sum()], [{self.name()}, {self.name()}], "
                 f"retain_graph=True, create_graph={pick(self.src, ('True', 'False'))})")),
            (1, f"{self.target()} = grad({n}.sum(), {self.name()}, create_graph=True)[0]"),
            (1, f"{n}.requires_grad_({pick(self.src, ('True', 'False', ''))})"),
            (1, f"{self.target()} = {n}.detach()"),
            (1, f"print({n}.grad, {n}.grad_fn, {n}.is_leaf)"),
            (1 if self.wild else 0, f"{n}[0] = {self.number()}"),
            (1, f"with no_grad():\n{ind}    {n} -= 0.1 * {n}.grad"),
        ])

    # -- expressions -----------------------------------------------------------------------------
    def target(self) -> str:
        """A name to assign (often a new one, sometimes one already bound)."""
        if self.names and chance(self.src, 40):
            name = pick(self.src, self.names)
            if name not in LOOP_NAMES:
                return name
        name = pick(self.src, TENSOR_NAMES)
        if name not in self.names:
            self.names.append(name)
        return name

    def name(self) -> str:
        """A name to read: one bound before, or (oddly) any name at all."""
        if self.names and not self.odd():
            return pick(self.src, self.names)
        return pick(self.src, (*TENSOR_NAMES, *LOOP_NAMES, *FUNC_NAMES, "print", "zeros",
                               "grad", "nothing"))

    def number(self) -> str:
        """A small number, or (oddly) one of the awkward ones."""
        if self.odd():
            return pick(self.src, NUMBERS)
        return str(self.src.integer(0, 5)) if chance(self.src, 50) else \
            f"{self.src.integer(-30, 30) / 4}"

    def literal(self, shape: tuple[int, ...] | None = None) -> str:
        """A bare literal of the script's shape; oddly ragged, empty or not numbers."""
        if self.odd():
            return pick(self.src, ("[]", "[[]]", "[[], []]", "[[[1.0]]]", "[1, [2]]", "['a']",
                                   "[None]", "[True, False]", "[1e999, -1e999, 1e999 - 1e999]",
                                   "[[1, 2], [3]]", "-[1, -2]", "1e999", "10**30", "-0.0"))
        return self._nested(self.shape if shape is None else shape)

    def _nested(self, shape: tuple[int, ...]) -> str:
        if not shape:
            return self.number()
        return "[" + ", ".join(self._nested(shape[1:]) for _ in range(shape[0])) + "]"

    def shape_args(self) -> str:
        """A shape as constructor arguments: the script's shape, oddly an absurd one."""
        dims = [str(d) for d in self.shape]
        if self.odd():
            dims.append(pick(self.src, ("-1", "0", "10**30", "100000, 100000", "2.5", "x", "[2]",
                                        "10**6, 10**6")))
        return ", ".join(dims)

    def constructor(self) -> str:
        """A constructor call of the script's shape (or an odd one)."""
        fn = pick(self.src, ("zeros", "ones", "rand", "randn", "full", "like", "eye", "arange",
                             "linspace"))
        kw = "requires_grad=True" if chance(self.src, 30) else ""
        n = self.shape[0] if self.shape else 1
        if fn in ("zeros", "ones", "rand", "randn"):
            return f"{fn}({', '.join(a for a in (self.shape_args(), kw) if a)})"
        kw = ", " + kw if kw else ""
        if fn == "full":
            return f"full([{self.shape_args()}], {self.number()}{kw})"
        if fn == "like":
            return f"{pick(self.src, ('zeros_like', 'ones_like'))}({self.name()}{kw})"
        if fn == "eye":
            return f"eye({n if not self.odd() else pick(self.src, SMALL_INTS)}{kw})"
        if fn == "arange":
            return f"arange({n if not self.odd() else self.number()}{kw})"
        return f"linspace({self.number()}, {self.number()}, {n}{kw})"

    def args(self, depth: int) -> str:
        """Random positional and keyword arguments."""
        parts = [self.expr(depth - 1) for _ in range(self.src.integer(0, 2))]
        if chance(self.src, 30):
            parts.append(f"{pick(self.src, KWARG_NAMES)}={self.expr(depth - 1)}")
        return ", ".join(parts)

    def dim(self) -> str:
        """A dimension argument: mostly valid for the script's shape."""
        if self.odd():
            return pick(self.src, SMALL_INTS)
        nd = max(len(self.shape), 1)
        return str(self.src.integer(-nd, nd - 1))

    def call(self, depth: int) -> str:
        """A call of a built-in, a method or a user function."""
        x = self.expr(depth - 1)
        kind = weighted(self.src, [(8, "unary"), (4, "binary"), (4, "reduce"), (2, "shape"),
                                   (2, "neural"), (2, "clamp"), (2, "user"), (1, "ctor")])
        method = chance(self.src, 50)
        if kind == "unary":
            fn = pick(self.src, UNARY_FUNCS[:11])
            return f"({x}).{fn}()" if method else f"{fn}({x})"
        if kind == "binary":
            fn = pick(self.src, BINARY_FUNCS)
            y = self.expr(depth - 1)
            return f"({x}).{fn}({y})" if method and fn != "mse_loss" else f"{fn}({x}, {y})"
        if kind == "reduce":
            fn = pick(self.src, ("sum", "mean", "max", "min"))
            extra = pick(self.src, ("", "", f"dim={self.dim()}", f"{self.dim()}, keepdim=True"))
            return f"({x}).{fn}({extra})" if method else \
                f"{fn}({x}{', ' if extra else ''}{extra})"
        if kind == "shape":
            return pick(self.src, (
                f"({x}).reshape(-1)", f"({x}).view({self.shape_args() or 1})", f"({x}).t()",
                f"({x}).T", f"transpose({x}, 0, {self.dim()})", f"({x}).unsqueeze({self.dim()})",
                f"({x}).squeeze()", f"flatten({x})", f"({x})[{self.index()}]",
                f"reshape({x}, {self.shape_args() or 1})"))
        if kind == "neural":
            return pick(self.src, (f"softmax({x}, {self.dim()})", f"log_softmax({x}, dim=-1)",
                                   f"mse_loss({x}, {self.expr(depth - 1)})"))
        if kind == "clamp":
            return pick(self.src, (f"clamp({x}, min={self.number()})",
                                   f"({x}).clamp(max={self.number()})",
                                   f"clamp({x}, {self.number()}, {self.number()})"))
        if kind == "user" and self.functions:
            name, arity = pick(self.src, self.functions)
            if self.odd():
                arity = self.src.integer(0, 3)
            return f"{name}({', '.join(self.expr(depth - 1) for _ in range(arity))})"
        return self.constructor()

    def expr(self, depth: int) -> str:
        """A (usually tensor) expression at most ``depth`` levels deep."""
        if self.odd():
            return self.wild_expr(depth)
        if depth <= 0:
            return self.name() if chance(self.src, 75) or not self.names else self.number()
        kind = weighted(self.src, [(6, "name"), (2, "number"), (10, "arith"), (1, "pow"),
                                   (1, "matmul"), (8, "call"), (1, "neg"), (1, "paren"),
                                   (1, "ctor"), (1, "literal")])
        if kind == "name" and self.names:
            return self.name()
        if kind in ("name", "number"):
            return self.number()
        if kind == "arith":
            op = pick(self.src, ("+", "-", "*", "/"))
            return f"{self.expr(depth - 1)} {op} {self.expr(depth - 1)}"
        if kind == "pow":
            return f"{self.expr(depth - 1)} ** {pick(self.src, ('2', '0.5', '-1', '3', '0'))}"
        if kind == "matmul":
            return f"{self.expr(depth - 1)} @ {self.expr(depth - 1)}"
        if kind == "call":
            return self.call(depth)
        if kind == "neg":
            return f"-{self.expr(depth - 1)}"
        if kind == "paren":
            return f"({self.expr(depth - 1)})"
        if kind == "ctor":
            return self.constructor()
        return f"tensor({self.literal()})"

    def wild_expr(self, depth: int) -> str:
        """Any expression of the grammar: wrong types, strings, attributes, random calls."""
        if depth <= 0:
            return pick(self.src, (self.name(), pick(self.src, NUMBERS), pick(self.src, STRINGS)))
        kind = weighted(self.src, [(3, "atom"), (4, "binop"), (4, "call"), (2, "unary"),
                                   (3, "attr"), (2, "index"), (2, "compare"), (1, "boolop"),
                                   (2, "list"), (1, "method")])
        if kind == "atom":
            return self.wild_expr(0)
        if kind == "binop":
            op = pick(self.src, BINOPS)
            return f"{self.wild_expr(depth - 1)} {op} {self.wild_expr(depth - 1)}"
        if kind == "call":
            fn = pick(self.src, (*OTHER_CALLS, *UNARY_FUNCS, *BINARY_FUNCS, *REDUCTIONS))
            return f"{fn}({self.args(depth)})"
        if kind == "unary":
            return f"{pick(self.src, ('-', '+', 'not '))}{self.wild_expr(depth - 1)}"
        if kind == "attr":
            return f"({self.wild_expr(depth - 1)}).{pick(self.src, ATTRIBUTES)}"
        if kind == "index":
            return f"({self.wild_expr(depth - 1)})[{self.index()}]"
        if kind == "compare":
            return (f"{self.wild_expr(depth - 1)} {pick(self.src, COMPARISONS)} "
                    f"{self.wild_expr(depth - 1)}")
        if kind == "boolop":
            op = pick(self.src, ("and", "or"))
            return f"{self.wild_expr(depth - 1)} {op} {self.wild_expr(depth - 1)}"
        if kind == "list":
            items = ", ".join(self.wild_expr(depth - 1) for _ in range(self.src.integer(0, 3)))
            return f"[{items}]"
        return f"({self.wild_expr(depth - 1)}).{pick(self.src, METHODS)}({self.args(depth)})"

    def index(self) -> str:
        """A subscript: an int, a slice, two of them, or (oddly) something wrong."""
        parts = []
        for _ in range(self.src.integer(1, 2)):
            if self.odd():
                parts.append(pick(self.src, ("::0", "0.5", "x", "None", "10**30:", "-10**30",
                                             "i", "'a'", "True", "x.sum()")))
            else:
                parts.append(pick(self.src, ("0", "1", "-1", ":", "1:", ":2", "::-1", "0:3:2")))
        return ", ".join(parts)


# ---- byte-level mutation -----------------------------------------------------------------------
INTERESTING_BYTES = b"\x00\t\n\r #:()[],;.=+-*/@'\"\\\xef\xbb\xbf\xff\xc3\x80_1e9"


def mutate(seed: bytes, src: Source, max_edits: int = 8) -> bytes:
    """``seed`` with a few random byte insertions, deletions, flips and chunk copies."""
    data = bytearray(seed)
    for _ in range(src.integer(1, max_edits)):
        kind = pick(src, ("insert", "delete", "flip", "replace", "dup", "truncate"))
        pos = src.integer(0, len(data)) if data else 0
        if kind == "insert" or not data:
            byte = INTERESTING_BYTES[src.integer(0, len(INTERESTING_BYTES) - 1)] \
                if chance(src, 70) else src.integer(0, 255)
            data[pos:pos] = bytes([byte])
        elif kind == "delete":
            del data[pos:pos + src.integer(1, 4)]
        elif kind == "flip":
            pos = min(pos, len(data) - 1)
            data[pos] ^= 1 << src.integer(0, 7)
        elif kind == "replace":
            pos = min(pos, len(data) - 1)
            data[pos] = INTERESTING_BYTES[src.integer(0, len(INTERESTING_BYTES) - 1)]
        elif kind == "dup":
            start = src.integer(0, len(data) - 1)
            chunk = data[start:start + src.integer(1, 40)]
            data[pos:pos] = chunk
        else:
            del data[pos:]
    return bytes(data)


def seed_scripts() -> list[bytes]:
    """The scripts mutation starts from: samples/, tests/scenarios/ and the PyTorch programs of
    tests/corpus/ (a fallback if none)."""
    paths = sorted([*ROOT.glob("samples/*.grad"), *ROOT.glob("tests/scenarios/*.grad"),
                    *ROOT.glob("tests/corpus/*.py")])
    seeds = [p.read_bytes() for p in paths]
    return seeds or [b"x1 = 1; w1 = 2\nL = 1 - w1 * x1\nL.backward()\nprint(w1.grad)\n"]


# ---- running one script through the command line -----------------------------------------------
COMMANDS = ("run", "graph", "grad", "dot", "tree", "check", "explain", "trace", "profile",
            "html")


@dataclass
class Outcome:
    """What one command did with one script."""

    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    problems: list[str]


class Timeout(BaseException):
    """Raised by the alarm when a script runs too long (a BaseException: nothing catches it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout()


def cli_args(command: str, script_path: str, wrt: Sequence[str], max_steps: int,
             max_elements: int, extra: Sequence[str] = ()) -> list[str]:
    """The argument vector of one fuzzing invocation."""
    args = ["graph", script_path, "--tree"] if command == "tree" else [command, script_path]
    if command == "html":  # beside the script, in the worker's own folder
        args += ["-o", os.path.splitext(script_path)[0] + ".html"]
    for w in wrt:
        args += ["--wrt", w]
    return [*args, *extra, "--format", "json", "--max-steps", str(max_steps),
            "--max-elements", str(max_elements)]


def reuse_command() -> None:
    """Build the Typer command once per process: ``cli.run_typer`` (every command line that
    ``options.read`` leaves to Typer) rebuilds it on every call.

    Building costs more than running a small script, and nothing in it depends on the
    arguments, so a campaign that calls ``main`` thousands of times memoises it (and applies
    ``cli._fast_coercion``, which wraps methods of the command, once).
    """
    import typer.main

    from gradcli import cli

    build = typer.main.get_command
    if getattr(build, "memoised", False):
        return
    commands: dict[int, Any] = {}
    coerced: set[int] = set()
    fast_coercion = cli._fast_coercion

    def get_command(app: Any) -> Any:
        if id(app) not in commands:
            commands[id(app)] = (app, build(app))
        return commands[id(app)][1]

    def fast_coercion_once(command: Any) -> None:
        if id(command) not in coerced:
            coerced.add(id(command))
            fast_coercion(command)

    get_command.memoised = True  # type: ignore[attr-defined]
    typer.main.get_command = get_command
    cli._fast_coercion = fast_coercion_once


def run_cli(args: list[str], stdin: bytes = b"", timeout: float = 10.0,
            reuse: bool = False) -> Outcome:
    """``gradcli.launch.main(args)`` in-process with captured streams, and the contract checks.

    ``reuse`` builds the Typer command once for the whole process (see ``reuse_command``): for
    campaigns, not for test sessions that also test the command line itself.
    """
    from typer.testing import CliRunner

    from gradcli import launch

    if reuse:
        reuse_command()
    runner = CliRunner()
    code: int | None = None
    problems: list[str] = []
    start = time.perf_counter()
    with runner.isolation(input=stdin) as streams:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            try:
                launch.main(args)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except Timeout:
            problems.append(f"did not finish within {timeout:g} s")
        except BaseException as exc:  # noqa: BLE001 - anything escaping main() is a finding
            problems.append(f"main() raised {type(exc).__name__}: {exc}")
        finally:
            signal.signal(signal.SIGALRM, old)
        sys.stdout.flush()
        sys.stderr.flush()
        out = streams[0].getvalue().decode("utf-8", "replace")
        err = streams[1].getvalue().decode("utf-8", "replace")
    seconds = time.perf_counter() - start
    problems += contract_problems(code, out, err, json_expected=True) if code is not None else []
    return Outcome(code, out, err, seconds, problems)


def contract_problems(code: int | None, stdout: str, stderr: str,
                      json_expected: bool = True) -> list[str]:
    """What in one invocation's result breaks SPEC §3/§3.2/§6 (empty when nothing)."""
    problems = []
    if code not in CONTRACT_EXITS:
        problems.append(f"exit code {code}")
    for text, where in ((stdout, "stdout"), (stderr, "stderr")):
        if "Traceback (most recent call last)" in text:
            problems.append(f"a traceback on {where}")
    if "internal error" in stderr:
        problems.append("an internal error on stderr")
    if json_expected and code in (0, 1, 3, 4):
        try:
            doc = json.loads(stdout)
        except ValueError as exc:
            problems.append(f"stdout is not JSON ({exc})")
        else:
            if not isinstance(doc, dict) or doc.get("gradcli") != "1":
                problems.append("the JSON document has no \"gradcli\": \"1\"")
            elif (code == 0) != (doc.get("error") is None) and "ok" not in doc:
                problems.append(f"exit {code} but error is {doc.get('error')!r}")
    elif json_expected and code == 2 and stdout.strip():
        try:
            json.loads(stdout)
        except ValueError as exc:
            problems.append(f"usage error with non-JSON stdout ({exc})")
    return problems


def top_level_names(text: str) -> list[str]:
    """Names assigned at column 0 (candidates for --wrt/--of)."""
    names = []
    for line in text.splitlines():
        head = line.split("=", 1)[0].strip() if "=" in line and not line[:1].isspace() else ""
        if head.isidentifier() and head not in names:
            names.append(head)
    return names


@dataclass
class Case:
    """One campaign item: a script, the command and its --wrt names."""

    index: int
    text: bytes
    command: str
    wrt: list[str]
    origin: str
    extra: list[str] = field(default_factory=list)  # the command's other options

    @property
    def suffix(self) -> str:
        """``.py`` for a PyTorch program (its mode), ``.grad`` for a grad script."""
        return ".py" if self.origin == "torch" or self.text.lstrip().startswith(b"import torch") \
            else ".grad"


def make_case(seed: int, index: int, torch_share: int = 50) -> Case:
    """Campaign item ``index`` of the campaign seeded with ``seed`` (deterministic);
    ``torch_share`` percent of the generated ones are PyTorch programs."""
    from fuzz_torch import options, torch_program

    src = RandomSource(f"{seed}:{index}")
    if chance(src, 20):
        seeds = _SEEDS or seed_scripts()
        text = mutate(pick(src, seeds), src)
        origin = "mutation"
    elif chance(src, torch_share):
        text = torch_program(src).encode()
        origin = "torch"
    else:
        text = ProgramGenerator(src).program().encode()
        origin = "generated"
    command = weighted(src, [(10, "run"), (4, "graph"), (3, "grad"), (3, "dot"), (1, "tree"),
                             (1, "check"), (3, "explain"), (3, "trace"), (2, "profile"),
                             (1, "html")])
    names = top_level_names(text.decode("utf-8", "replace"))
    wrt: list[str] = []
    if command in ("grad", "check", "explain") or chance(src, 30):
        pool = names or ["w"]
        wrt = [pick(src, pool) for _ in range(src.integer(1, 2 if command != "explain" else 1))]
    return Case(index, text, command, wrt, origin, options(src, command, names))


_SEEDS: list[bytes] = []


def run_case(case: Case, workdir: str, max_steps: int, max_elements: int,
             timeout: float) -> tuple[Case, Outcome]:
    """Write the script to ``workdir`` and run its command."""
    path = os.path.join(workdir, f"case-{os.getpid()}{case.suffix}")
    with open(path, "wb") as f:
        f.write(case.text)
    steps = max_steps if case.command != "check" else max(50, max_steps // 20)
    args = cli_args(case.command, path, case.wrt, steps, max_elements, case.extra)
    return case, run_cli(args, timeout=timeout, reuse=True)


# ---- the campaign ------------------------------------------------------------------------------
def _worker_init(workdir: str, memory_mb: int) -> None:
    global _SEEDS
    try:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    _SEEDS = seed_scripts()
    os.chdir(workdir)  # relative load() paths of -e/stdin scripts resolve here, nowhere else


def _work(job: tuple[int, int, str, int, int, float, int]) -> tuple[Case, Outcome]:
    seed, index, workdir, max_steps, max_elements, timeout, torch_share = job
    return run_case(make_case(seed, index, torch_share), workdir, max_steps, max_elements,
                    timeout)


def campaign(n: int, seed: int, jobs: int, out_dir: Path, max_steps: int, max_elements: int,
             timeout: float, memory_mb: int, quiet: bool = False, torch_share: int = 50) -> int:
    """Run ``n`` scripts; write findings to ``out_dir``; the number of findings."""
    import multiprocessing

    out_dir.mkdir(parents=True, exist_ok=True)
    workdir = out_dir / "work"
    workdir.mkdir(exist_ok=True)
    start = time.perf_counter()
    findings = 0
    exits: Counter[int | None] = Counter()
    kinds: Counter[str] = Counter()
    origins: Counter[str] = Counter()
    slowest = (0.0, -1)
    job_iter: Iterator[tuple[int, int, str, int, int, float, int]] = (
        (seed, i, str(workdir), max_steps, max_elements, timeout, torch_share)
        for i in range(n))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs, initializer=_worker_init, initargs=(str(workdir), memory_mb),
                  maxtasksperchild=2000) as pool:
        for done, (case, outcome) in enumerate(pool.imap_unordered(_work, job_iter, 16), 1):
            exits[outcome.exit_code] += 1
            origins[case.origin] += 1
            if outcome.seconds > slowest[0]:
                slowest = (outcome.seconds, case.index)
            if outcome.problems:
                kinds.update(outcome.problems)
                _save(out_dir, findings, case, outcome)
                findings += 1
            if not quiet and done % 1000 == 0:
                print(f"{done:>7} scripts  {time.perf_counter() - start:7.1f} s  "
                      f"{findings} findings", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - start
    print(f"scripts: {n} ({dict(origins)}), seed {seed}, {jobs} jobs, {elapsed:.1f} s "
          f"({n / elapsed:.0f}/s)")
    print(f"exit codes: {dict(sorted(exits.items(), key=lambda kv: str(kv[0])))}")
    print(f"slowest: {slowest[0]:.2f} s (script {slowest[1]})")
    print(f"findings: {findings}" + (f" in {out_dir}" if findings else ""))
    for kind, count in kinds.most_common():
        print(f"  {count:>6}  {kind}")
    return findings


def _save(out_dir: Path, k: int, case: Case, outcome: Outcome) -> None:
    stem = out_dir / f"finding-{k:03d}"
    stem.with_suffix(case.suffix).write_bytes(case.text)
    meta = {"index": case.index, "origin": case.origin, "command": case.command,
            "wrt": case.wrt, "extra": case.extra, "exit_code": outcome.exit_code,
            "problems": outcome.problems,
            "seconds": round(outcome.seconds, 3), "stdout": outcome.stdout[-2000:],
            "stderr": outcome.stderr[-4000:]}
    stem.with_suffix(".json").write_text(json.dumps(meta, indent=2))


def replay(path: Path, max_steps: int, max_elements: int, timeout: float) -> int:
    """Rerun a saved finding with its command; print what happens."""
    meta_path = path.with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    case = Case(meta.get("index", -1), path.read_bytes(), meta.get("command", "run"),
                meta.get("wrt", []), meta.get("origin", "file"), meta.get("extra", []))
    args = cli_args(case.command, str(path), case.wrt, max_steps, max_elements, case.extra)
    outcome = run_cli(args, timeout=timeout)
    print("gradcli " + " ".join(args))
    print(f"exit {outcome.exit_code} in {outcome.seconds:.2f} s")
    print(outcome.stderr[-4000:])
    for p in outcome.problems:
        print("PROBLEM:", p)
    return 1 if outcome.problems else 0


def main(argv: list[str] | None = None) -> int:
    """Command line of the campaign."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--scripts", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/gradcli-fuzz"))
    parser.add_argument("--max-steps", type=int, default=2_000)
    parser.add_argument("--max-elements", type=int, default=100_000)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per script")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address space per worker")
    parser.add_argument("--torch-share", type=int, default=50, metavar="PERCENT",
                        help="generated scripts that are PyTorch programs")
    parser.add_argument("--replay", type=Path, help="rerun one saved finding")
    parser.add_argument("--show", type=int, metavar="I", help="print generated script I")
    parser.add_argument("-q", "--quiet", action="store_true")
    a = parser.parse_args(argv)
    sys.path.append(str(ROOT / "src"))  # PYTHONPATH first: a campaign may test a snapshot
    if a.show is not None:
        case = make_case(a.seed, a.show, a.torch_share)
        print(f"# {case.origin}: gradcli {case.command} --wrt {case.wrt} {' '.join(case.extra)}")
        sys.stdout.write(case.text.decode("utf-8", "replace"))
        return 0
    if a.replay is not None:
        return replay(a.replay, a.max_steps, a.max_elements, a.timeout)
    found = campaign(a.scripts, a.seed, a.jobs, a.out, a.max_steps, a.max_elements, a.timeout,
                     a.memory_mb, a.quiet, a.torch_share)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
