"""Random PyTorch programs (SPEC §7) for ``fuzz_campaign.py`` and ``tests/test_fuzz.py``.

``TorchProgramGenerator`` writes ``.py`` programs as users write them, then makes them odd: the
names of ``torch``, ``torch.nn.functional``, ``torch.autograd(.functional)``, ``torch.optim``
and the tensor methods gradcli supports (read from ``gradcli.api.namespace``, so a new name is
fuzzed as soon as it exists) called with random arguments; tensors of every dtype, empty,
0-d, NaN and infinite, and shapes past ``--max-elements``; every operator on them; indexing
with ints, slices, ``None``, ``...``, lists, masks and index tensors; and Python beyond the
arithmetic: deep nesting, recursion, closures, generators in odd places, exceptions raised
and caught, strange f-strings, unicode, ``del``/``global``, attribute access on everything.

Every decision is drawn from a ``Source`` (``fuzz_campaign``'s), so Hypothesis shrinks a
failing program and a campaign's program *i* is always the same text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fuzz_campaign import Source, Statements, chance, pick, weighted

DTYPES = ("torch.float32", "torch.float64", "torch.int64", "torch.bool", "torch.float16",
          "torch.int32", "torch.uint8", "torch.int8")
FLOAT_DTYPES = ("torch.float32", "torch.float64")
NAMES = ("a", "b", "c", "w", "x", "y", "z", "loss", "out", "h", "W", "v", "t", "m", "idx")
ODD_NAMES = ("torch", "F", "print", "len", "range", "math", "nn", "grad", "None_", "_",
             "undefined", "True_", "self", "lambda_", "x1", "Grad")
SYNTAX_ODD_NAMES = ("α", "__x", "ñ")  # not names of the language: syntax errors
SHAPES = ((), (3,), (2, 3), (2, 2), (1,), (0,), (4, 1), (2, 0, 3), (1, 1, 1))
NUMBERS = ("0", "1", "2", "-1", "0.5", "2.5", "1e-3", "-0.0", "1e308", "1e999", "-1e999",
           "float('nan')", "float('inf')", "10**30", "2**63", "True", "False", "3", "7", "-3",
           "math.pi", "1_000", "(-0.5)", "1.5e10", "5e-324")
STRINGS = ("'a'", '"x"', "''", "'héllo ✓'", "'\\n'", "'%s'", "'{}'", "'{0}'", "'cpu'",
           "'cuda'", "'sum'", "'mean'", "'none'", "'\\x00'", "'🙂'", "'ab' * 3")
KWARGS = ("dim", "keepdim", "dtype", "requires_grad", "out", "min", "max", "retain_graph",
          "create_graph", "inputs", "gradient", "allow_unused", "reduction", "weight", "p",
          "alpha", "value", "size", "device", "lr", "momentum", "generator", "bogus", "k",
          "largest", "descending", "correction", "unbiased", "num_classes", "ignore_index")
OPERATORS = ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", "<=",
             ">", ">=", "==", "!=", "and", "or", "is", "is not", "in", "not in")
AUG = ("+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>=")
ATTRS = ("grad", "grad_fn", "is_leaf", "requires_grad", "shape", "T", "mT", "ndim", "data",
         "dtype", "device", "_version", "output_nr", "retains_grad", "real", "is_cuda",
         "grad_fn.next_functions", "grad_fn.name()", "grad_fn._saved_self",
         "grad_fn._saved_other", "grad_fn._saved_result", "grad_fn.metadata",
         "grad_fn.variable", "numel()", "shape[0]", "shape[-1]", "size()",
         "dtype.is_floating_point", "nonexistent", "H", "imag", "names")
IMPORTS = ("import torch.nn.functional as F", "from torch import nn", "import math",
           "from torch.autograd import grad, Variable", "import torch.optim as optim",
           "from torch.autograd.functional import jacobian, vjp, hessian",
           "import torch.nn as nn", "from torch.nn import functional as F",
           "import numpy as np", "import os", "from torch import linalg",
           "import torch.linalg")


def _api_names() -> dict[str, list[str]]:
    """gradcli's supported names per module (and the tensor's methods), or a small default."""
    try:
        from gradcli.api import namespace as ns

        names = {k: sorted(n for n in m.members if not n.startswith("_"))
                 for k, m in ns.MODULES.items()}
        names["Tensor"] = sorted(ns.TENSOR_CALL)
        names["Tensor.read"] = sorted(ns.TENSOR_READ)
        return names
    except Exception:  # noqa: BLE001 - the generator works without gradcli importable
        return {"torch": ["add", "mul", "sum", "exp", "tanh", "cat", "where", "zeros"],
                "torch.nn.functional": ["relu", "mse_loss", "softmax"],
                "Tensor": ["sum", "mean", "exp", "backward", "view", "item"],
                "Tensor.read": ["grad", "shape"]}


_API: dict[str, list[str]] = {}


def api() -> dict[str, list[str]]:
    """The names, read once per process."""
    if not _API:
        _API.update(_api_names())
    return _API


@dataclass
class TorchProgramGenerator(Statements):
    """Random PyTorch programs drawn from ``src`` (see the module docstring)."""

    src: Source
    max_statements: int = 14
    max_expr_depth: int = 3
    max_block_depth: int = 4
    names: list[str] = field(default_factory=list)
    functions: list[tuple[str, int]] = field(default_factory=list)
    _dtype: str | None = None  # the dtype= the last leaf got

    def __post_init__(self) -> None:
        self.wild = pick(self.src, (0, 3, 8, 20, 40))
        self.shape = pick(self.src, SHAPES)

    # -- the program ------------------------------------------------------------------------------
    def program(self) -> str:
        """Imports, a few leaves, then random statements."""
        lines = ["import torch"]
        if chance(self.src, 5):
            lines = [pick(self.src, ("# -*- coding: utf-8 -*-", "#!/usr/bin/env python",
                                     '"""A docstring."""', "from __future__ import annotations",
                                     "", "x = 1"))] + lines
        for _ in range(self.src.integer(0, 3)):
            imp = pick(self.src, IMPORTS[:8] if not self.odd() else IMPORTS)
            lines.append(imp)
        lines += ["import torch.nn.functional as F", "import math"]
        if not self.odd():
            lines += ["from torch import nn", "from torch.autograd import Variable"]
        if chance(self.src, 60):
            lines.append(f"torch.manual_seed({self.src.integer(0, 3)})")
        for _ in range(self.src.integer(1, 4)):
            lines.append(self.leaf())
        for _ in range(self.src.integer(1, self.max_statements)):
            lines.extend(self.statement(0))
        text = "\n".join(lines) + "\n"
        if chance(self.src, 3):
            text = text.replace("\n", "\r\n")
        return text

    # -- leaves -----------------------------------------------------------------------------------
    def literal(self, shape: tuple[int, ...] | None = None) -> str:
        """A nested list literal of a shape; oddly ragged or strange."""
        if self.odd():
            return pick(self.src, ("[]", "[[]]", "[[1, 2], [3]]", "[1, [2]]", "['a']", "[None]",
                                   "[True, False]", "[float('nan'), float('inf'), -0.0]",
                                   "[1e999, -1e999]", "10**30", "[[[[[[1.0]]]]]]", "(1, 2)",
                                   "range(3)", "[x for x in range(3)]", "[1j]", "{1, 2}"))
        shape = self.shape if shape is None else shape
        return self._nested(shape)

    def _nested(self, shape: tuple[int, ...]) -> str:
        if not shape:
            return self.number(plain=True)
        return "[" + ", ".join(self._nested(shape[1:]) for _ in range(shape[0])) + "]"

    def number(self, plain: bool = False) -> str:
        """A small number, or (oddly) an awkward one."""
        if self.odd() and not plain:
            return pick(self.src, NUMBERS)
        return str(self.src.integer(-3, 5)) if chance(self.src, 40) else \
            f"{self.src.integer(-20, 20) / 4}"

    def dims(self) -> str:
        """The script's shape as arguments (``()`` for a 0-d one); oddly absurd."""
        dims = [str(d) for d in self.shape] or ["()"]
        if self.odd():
            dims.append(pick(self.src, ("-1", "0", "10**9", "100000, 100000", "2.5", "x",
                                        "(2, 3)", "[2]", "10**6, 10**6", "True", "None")))
        return ", ".join(dims)

    def dtype_kw(self) -> str:
        """``, dtype=...`` sometimes (then no requires_grad unless a float one, or oddly)."""
        self._dtype = None
        if not chance(self.src, 35):
            return ""
        self._dtype = pick(self.src, DTYPES if self.odd() else FLOAT_DTYPES + DTYPES[2:4])
        return f", dtype={self._dtype}"

    def rg(self) -> str:
        """``, requires_grad=True`` sometimes."""
        if self._dtype not in (None, *FLOAT_DTYPES) and not self.odd():
            return ""
        return ", requires_grad=True" if chance(self.src, 45) else ""

    def leaf(self) -> str:
        """A top-level leaf binding."""
        name = self.target()
        kind = weighted(self.src, [(6, "tensor"), (3, "randn"), (2, "zeros"), (1, "arange"),
                                   (1, "param"), (1, "full"), (1, "eye"), (1, "linspace"),
                                   (1, "int"), (1, "bool"), (1, "scalar"), (1, "empty"),
                                   (1 if self.odd() else 0, "big"), (1, "variable"),
                                   (1, "like")])
        if kind == "tensor":
            return f"{name} = torch.tensor({self.literal()}{self.dtype_kw()}{self.rg()})"
        if kind == "randn":
            return f"{name} = torch.{pick(self.src, ('randn', 'rand'))}({self.dims()}{self.rg()})"
        if kind == "zeros":
            return f"{name} = torch.{pick(self.src, ('zeros', 'ones', 'empty'))}" \
                   f"({self.dims()}{self.dtype_kw()}{self.rg()})"
        if kind == "arange":
            return f"{name} = torch.arange({self.src.integer(0, 6)}{self.dtype_kw()})"
        if kind == "param":
            return f"{name} = nn.Parameter(torch.randn({self.dims()}))" \
                if chance(self.src, 50) else f"{name} = torch.nn.Parameter(torch.ones(2))"
        if kind == "full":
            return f"{name} = torch.full(({self.dims()}{',' if len(self.shape) == 1 else ''}), " \
                   f"{self.number()}{self.dtype_kw()})"
        if kind == "eye":
            return f"{name} = torch.eye({self.src.integer(0, 3)}, {self.src.integer(1, 3)})"
        if kind == "linspace":
            return f"{name} = torch.linspace({self.number()}, {self.number()}, " \
                   f"{self.src.integer(0, 5)}{self.rg()})"
        if kind == "int":
            return f"{name} = torch.randint(0, {self.src.integer(1, 5)}, ({self.dims()},))"
        if kind == "bool":
            return f"{name} = torch.tensor({self.literal()}) > {self.number()}"
        if kind == "scalar":
            return f"{name} = torch.tensor({self.number()}{self.dtype_kw()}{self.rg()})"
        if kind == "empty":
            return f"{name} = torch.zeros({pick(self.src, ('0', '2, 0', '0, 3', '0, 0, 0'))}" \
                   f"{self.rg()})"
        if kind == "big":
            return f"{name} = torch.{pick(self.src, ('zeros', 'ones', 'randn', 'empty'))}" \
                   f"({pick(self.src, ('10**4, 10**4', '10**8', '2**31', '10**5, 10**3'))})"
        if kind == "variable":
            return f"{name} = Variable(torch.ones({self.dims()}), requires_grad=True)"
        return f"{name} = torch.{pick(self.src, ('zeros_like', 'ones_like', 'rand_like'))}" \
               f"({self.name()})"

    # -- names ------------------------------------------------------------------------------------
    def target(self) -> str:
        """A name to bind."""
        if self.names and chance(self.src, 35):
            return pick(self.src, self.names)
        name = pick(self.src, NAMES) if not self.odd() else pick(self.src, ODD_NAMES)
        if self.odd() and chance(self.src, 3):
            return pick(self.src, SYNTAX_ODD_NAMES)  # never read back: one syntax error
        if name not in self.names:
            self.names.append(name)
        return name

    def name(self) -> str:
        """A name to read."""
        if self.names and not self.odd():
            return pick(self.src, self.names)
        return pick(self.src, (*NAMES, *ODD_NAMES))

    # -- statements -------------------------------------------------------------------------------
    def statement(self, level: int) -> list[str]:
        """One statement (several lines for a compound one)."""
        ind = "    " * level
        deep = level < self.max_block_depth
        kind = weighted(self.src, [
            (25, "assign"), (6, "leaf"), (6, "aug"), (8, "print"), (10, "autograd"),
            (4 if deep else 0, "for"), (3 if deep else 0, "if"), (3 if deep else 0, "with"),
            (3 if deep else 0, "def"), (2 if deep else 0, "try"), (2 if deep else 0, "while"),
            (5, "python"), (3, "index"), (2, "attr"), (2, "optim"), (1, "nest"),
            (1, "pass")])
        if kind == "assign":
            return [f"{ind}{self.target()} = {self.expr(self.max_expr_depth)}"]
        if kind == "leaf":
            return [ind + self.leaf()]
        if kind == "aug":
            return [(f"{ind}{self.name()} {pick(self.src, AUG[:4] if not self.odd() else AUG)} "
                    f"{self.expr(1)}")]
        if kind == "print":
            return [ind + self.print_call()]
        if kind == "autograd":
            return [ind + line for line in self.autograd()]
        if kind == "for":
            var = pick(self.src, ("i", "j", "k", "row", "_"))
            it = pick(self.src, (f"range({self.src.integer(0, 4)})", self.name(),
                                 f"zip({self.name()}, {self.name()})",
                                 f"enumerate({self.name()})", "range(10**7)",
                                 f"reversed(range({self.src.integer(0, 3)}))",
                                 f"({self.name()} for _ in range(2))", "'ab'",
                                 f"{self.name()}.shape", f"{self.name()}.tolist()",
                                 "[1, 2, 3]", "{'a': 1}.items()"))
            if it.startswith(("zip", "enumerate", "{")):
                var = "p, q"
            self.names.append(var.split(",")[0])
            body = self.block(level + 1)
            if chance(self.src, 20):
                body.append(f"{ind}    {pick(self.src, ('break', 'continue'))}")
            lines = [f"{ind}for {var} in {it}:", *body]
            if chance(self.src, 10):
                lines += [f"{ind}else:", *self.block(level + 1)]
            return lines
        if kind == "if":
            return self.if_lines(ind, level)
        if kind == "with":
            ctx = pick(self.src, ("torch.no_grad()", "torch.enable_grad()",
                                  "torch.set_grad_enabled(False)", "torch.inference_mode()",
                                  "torch.autograd.set_grad_enabled(True)", "torch.no_grad",
                                  f"{self.name()}", "open('f')", "torch.no_grad() as g",
                                  "torch.no_grad(), torch.enable_grad()"))
            return [f"{ind}with {ctx}:", *self.block(level + 1)]
        if kind == "def":
            return self.function(level)
        if kind == "try":
            handler = pick(self.src, ("RuntimeError", "(TypeError, ValueError)", "Exception",
                                      "IndexError as e", "", "BaseException as err",
                                      "ZeroDivisionError", "StopIteration", "KeyError as k",
                                      "AttributeError", "NotImplementedError", "torch.Error"))
            return self.try_lines(ind, level, handler, else_percent=20)
        if kind == "while":
            var = pick(self.src, ("i", "n"))
            cond = f"{var} < {self.src.integer(0, 4)}" if not self.odd() else \
                pick(self.src, ("True", f"{var} >= 0", f"{self.name()}.sum() > -1"))
            return self.while_lines(ind, level, var, cond)
        if kind == "python":
            return [ind + line for line in self.python()]
        if kind == "index":
            return [f"{ind}{self.name()}[{self.index()}] = {self.expr(1)}"]
        if kind == "attr":
            attr = pick(self.src, ("requires_grad", "grad", "data", "grad_fn", "shape",
                                   "dtype", "is_leaf", "name", "T"))
            value = pick(self.src, ("None", "True", "False", self.name(), self.number(),
                                    f"torch.zeros({self.dims()})"))
            return [f"{ind}{self.name()}.{attr} = {value}"]
        if kind == "optim":
            return [ind + line for line in self.optimizer()]
        if kind == "nest":
            depth = pick(self.src, (5, 20, 60, 150))
            return [f"{ind}{self.target()} = " + "(" * depth + self.name() + " + 1" +
                    ")" * depth]
        return [f"{ind}pass"]

    def function(self, level: int) -> list[str]:
        """``def``: sometimes decorated, recursive, with defaults, ``*args``, closures."""
        ind = "    " * level
        name = pick(self.src, ("f", "g", "step", "loss_fn"))
        params = ["p", "q", "r"][:self.src.integer(0, 3)]
        if chance(self.src, 20):
            params.append(pick(self.src, ("s=2", "*args", "**kw", "s=None", "t=torch.ones(2)")))
        self.functions.append((name, len(params)))
        saved = self.names
        self.names = [*saved, *(p.split("=")[0].strip("*") for p in params)]
        lines = []
        if chance(self.src, 15):
            lines.append(f"{ind}@{pick(self.src, ('torch.no_grad()', 'torch.enable_grad()', 'torch.no_grad', 'print'))}")
        lines.append(f"{ind}def {name}({', '.join(params)}):")
        if chance(self.src, 15):  # before any use of the name in the body
            lines.append(f"{ind}    global {pick(self.src, ('gcount', 'W', 'loss'))}")
        body = self.block(level + 1)
        if chance(self.src, 25):  # recursion, bounded or not
            first = params[0].split("=")[0].strip("*") if params else "1"
            body.append(f"{ind}    if {first} is not None and {self.src.integer(0, 1)}:")
            body.append(f"{ind}        return {name}({', '.join(self.expr(1) for _ in params)})")
        if chance(self.src, 15):
            body.append(f"{ind}    def inner(u):")
            body.append(f"{ind}        return u * {self.expr(1)}")
            body.append(f"{ind}    return inner")
        body.append(f"{ind}    return {self.expr(2)}")
        self.names = saved
        return [*lines, *body]

    def condition(self) -> str:
        """An ``if``/``while`` condition."""
        return weighted(self.src, [
            (4, f"{self.scalar()} {pick(self.src, OPERATORS[8:14])} {self.scalar()}"),
            (2, f"{self.name()}.sum() > {self.number()}"), (1, f"{self.name()}"),
            (1, f"{self.name()}.requires_grad"), (1, f"{self.name()}.grad is None"),
            (1, f"{self.scalar()} < {self.scalar()} < {self.scalar()}"),
            (1, f"not {self.name()}"), (1, f"isinstance({self.name()}, torch.Tensor)"),
            (1, f"{self.expr(2)}")])

    def scalar(self) -> str:
        """Usually a number or a one-element tensor."""
        return weighted(self.src, [(3, self.number()), (2, f"{self.name()}.sum()"),
                                   (1, f"{self.name()}.mean().item()"), (1, "i"),
                                   (1, f"len({self.name()})"), (1, self.expr(1))])

    def print_call(self) -> str:
        """print() of values, attributes, f-strings and formats."""
        args = []
        for _ in range(self.src.integer(0, 3)):
            args.append(weighted(self.src, [
                (4, self.expr(1)), (3, f"{self.name()}.{pick(self.src, ATTRS)}"),
                (2, self.fstring()), (1, pick(self.src, STRINGS)),
                (1, (f"'%s %d %.3f %r' % ({self.name()}, {self.scalar()}, {self.scalar()}, "
                    f"{self.name()})")),
                (1, (f"'{{}} {{!r}} {{:.2e}}'.format({self.name()}, {self.name()}, "
                    f"{self.scalar()})")),
                (1, f"repr({self.name()})"), (1, f"str({self.name()})[:{self.number()}]"),
                (1, f"type({self.name()})"), (1, f"{self.name()}.dtype"),
                (1, f"list({self.name()})"), (1, f"tuple({self.name()}.shape)")]))
        if chance(self.src, 15):
            args.append(pick(self.src, ("sep=''", "end=''", "sep=None", "end='\\n\\n'",
                                        "sep=1", "file=None", "flush=True")))
        return f"print({', '.join(args)})"

    def fstring(self) -> str:
        """An f-string with a random field and spec."""
        spec = pick(self.src, ("", ":.3f", "!r", ":>8", ":e", ":.2%", "=", ":zz", ":{3}",
                               ":,", ":08.3f", "!s:^10", ":.0f", ":g", ":x", ":b", ":c",
                               "=!r:>5", ":%", ":_"))
        inner = pick(self.src, (self.name(), f"{self.name()}.item()", f"{self.name()}.shape",
                                f"{self.scalar()}", f"{self.name()}.sum()", "'x'",
                                f"{self.name()}.tolist()", "1/3", "({1: 2}[1])"))
        quote = pick(self.src, ("'", '"'))
        other = '"' if quote == "'" else "'"
        inner = inner.replace(quote, other)
        return f"f{quote}{{{inner}{spec}}} ✓ {{{{literal}}}}{quote}"

    def autograd(self) -> list[str]:
        """backward, grad, hooks, retain_grad, detach, jacobian ..."""
        n, m = self.name(), self.name()
        return [weighted(self.src, [
            (5, f"{n}.sum().backward()"), (3, f"{n}.backward()"),
            (2, f"{n}.sum().backward(retain_graph=True)"),
            (1, f"{n}.backward(gradient={self.expr(1)})"),
            (1, f"{n}.sum().backward(create_graph=True)"),
            (1, f"{n}.sum().backward(inputs=[{m}])"),
            (2, f"{self.target()} = torch.autograd.grad({n}.sum(), {m})"),
            (1, (f"{self.target()} = torch.autograd.grad([{n}.sum()], [{m}], "
                f"retain_graph=True, create_graph=True, allow_unused=True)")),
            (1, f"{self.target()}, = torch.autograd.grad({n}.sum(), [{m}], create_graph=True)"),
            (2, f"{n}.retain_grad()"), (2, f"{n}.grad.zero_()"),
            (1, f"{n}.grad = None"), (1, f"{n}.requires_grad_()"),
            (1, f"{self.target()} = {n}.detach()"), (1, f"{n}.detach_()"),
            (1, f"h_ = {n}.register_hook(lambda g: g * 2)"),
            (1, f"h_ = {n}.register_hook(print)"), (1, "h_.remove()"),
            (1, f"{self.target()} = torch.autograd.functional.jacobian(lambda u: u ** 2, {n})"),
            (1, (f"{self.target()} = torch.autograd.functional.hessian(lambda u: (u ** 3).sum(), "
                f"{n})")),
            (1, f"{self.target()} = torch.autograd.functional.vjp(lambda u: u.exp(), {n}, {m})"),
            (1, f"print({n}.grad, {n}.grad_fn, {n}.is_leaf, {n}.requires_grad)"),
            (1, f"print({n}.grad_fn.next_functions if {n}.grad_fn else None)"),
            (1, f"torch.autograd.backward([{n}.sum()], [torch.tensor(1.0)])"),
            (1, f"{self.target()} = {n}.data"), (1, f"{n}.data = {self.expr(1)}"),
        ])]

    def optimizer(self) -> list[str]:
        """A small training loop with SGD or Adam."""
        n = self.name()
        opt = pick(self.src, (f"torch.optim.SGD([{n}], lr=0.1)",
                              f"torch.optim.Adam([{n}], lr={self.number()})",
                              f"torch.optim.SGD([{n}], lr=0.1, momentum=0.9)",
                              f"torch.optim.SGD({n}, lr=0.1)", "torch.optim.SGD([], lr=1)"))
        return [f"opt = {opt}", f"for _ in range({self.src.integer(0, 3)}):",
                "    opt.zero_grad()", f"    ({n} ** 2).sum().backward()", "    opt.step()"]

    def python(self) -> list[str]:
        """Python beyond the arithmetic."""
        n, m = self.name(), self.name()
        kind = pick(self.src, ("unpack", "comp", "gen", "dict", "lambda", "raise", "assert",
                               "del", "global", "star", "walrus", "set", "slice", "str",
                               "chain", "ternary", "sorted", "bigint", "recursion", "unicode",
                               "exc_chain", "nested_comp", "generator_odd", "isinstance"))
        if kind == "unpack":
            return [f"{self.target()}, *{self.target()} = {n}, {m}, {self.expr(1)}"]
        if kind == "comp":
            return [(f"{self.target()} = [{n} * k for k in range({self.src.integer(0, 4)}) "
                    f"if k % 2 == 0]")]
        if kind == "gen":
            return [(f"{self.target()} = sum(({n} ** 2 for _ in range({self.src.integer(0, 3)})),"
                    f" {self.number()})")]
        if kind == "dict":
            return [f"d = {{'a': {n}, 'b': [{m}, None], 1: ({n},)}}",
                    "print(d['a'], list(d), len(d), d.get('z', 0), sorted(d, key=str))"]
        if kind == "lambda":
            return ["sq = lambda v, k=2: v ** k", f"{self.target()} = sq({n})",
                    f"{self.target()} = (lambda *a: a)({n}, {m})"]
        if kind == "raise":
            return [f"raise {pick(self.src, ('ValueError', 'RuntimeError', 'KeyError', 'Exception', 'StopIteration', 'SystemExit', 'KeyboardInterrupt', 'TypeError', 'torch.Tensor', '1', 'ValueError from None'))}"
                    f"({pick(self.src, STRINGS)})".replace("None(", "None  # (")]
        if kind == "assert":
            return [f"assert {self.condition()}, {pick(self.src, STRINGS)}"]
        if kind == "del":
            return [f"del {pick(self.src, (n, f'{n}[0]', f'{n}.grad', 'd', f'{n}, {m}'))}"]
        if kind == "global":
            return [f"global {n}", f"{n} = {self.expr(1)}"] if chance(self.src, 20) else \
                ["gcount = 0", "def bump():", "    global gcount", "    gcount += 1",
                 "    return gcount", "print(bump(), bump(), gcount)"]
        if kind == "star":
            return [f"print(*[{n}, {m}], sep={pick(self.src, STRINGS)})",
                    f"print(*{n}.shape, **{{'end': '!'}})"]
        if kind == "walrus":  # := is not in the language: rarely, a syntax error
            if chance(self.src, 20):
                return [f"if (q := {self.expr(1)}) is not None:", "    print(q)"]
            return [f"q = {self.expr(1)}", "if q is not None:", "    print(q)"]
        if kind == "set":
            return [f"s = {{1, 2, {self.number()}}}", "print(s, 1 in s, s | {9})"]
        if kind == "slice":
            return [f"print([1, 2, 3][{self.index()}], 'abc'[::-1], (1, 2)[-1:])"]
        if kind == "str":
            return [(f"print('x'.join(['a', 'b']), 'A'.lower(), 'a,b'.split(','), "
                    f"'%d%%' % 5, str({n}).upper()[:10], 'é'.encode())")]
        if kind == "chain":
            return [(f"print(1 < 2 < 3, {n} is {m}, {n} is not None, not {m}, "
                    f"{self.scalar()} == {self.scalar()} != {self.scalar()})")]
        if kind == "ternary":
            return [f"{self.target()} = {n} if {self.condition()} else {m}"]
        if kind == "sorted":
            return [(f"print(sorted([3, 1, 2], reverse=True), max([1, 2], default=0), "
                    f"min(1, 2, key=abs), round(2.675, 2), divmod(7, -2), abs(-3), "
                    f"sum([{n}, {m}]), any([]), all([{n}.sum() > 0]))")]
        if kind == "bigint":
            return [(f"print(2 ** {pick(self.src, ('100', '10000', '10**6', '-1', '0.5'))}, "
                    f"10 ** 400 / 3, 7 // 0 if False else 1, (-8) ** 0.5)")]
        if kind == "recursion":
            depth = pick(self.src, ("10", "150", "250", "1000", "10**6"))
            return ["def rec(k):", "    return 0 if k <= 0 else 1 + rec(k - 1)",
                    f"print(rec({depth}))"]
        if kind == "unicode":
            return ["s = 'ünïcödé ∂L/∂w 🙂 \\u2028 \\t'", "print(s, len(s), s[::-1], repr(s))",
                    "print('\\x1b[31mred\\x1b[0m')"]
        if kind == "exc_chain":
            return ["try:", "    try:", f"        {n}.foo", "    except AttributeError as e:",
                    "        raise ValueError('wrapped') from e",
                    "except ValueError as e2:", "    print(type(e2), e2, e2.args)"]
        if kind == "nested_comp":
            return [(f"print([[i * j for j in range(3)] for i in range(2)], "
                    f"{{k: v for k, v in zip('ab', [{n}, {m}])}}.keys())")]
        if kind == "generator_odd":
            return [(f"print(torch.tensor(list(i for i in range(3))), "
                    f"max((t for t in [{n}, {m}]), key=lambda t: 0), "
                    f"torch.stack([{n} for _ in range(2)]), next(iter([{n}])))")]
        return [(f"print(isinstance({n}, (torch.Tensor, int)), type({n}).__name__, "
                f"callable({n}), hasattr({n}, 'grad'), getattr({n}, 'grad', None), id({n}) > 0)")]

    # -- expressions ------------------------------------------------------------------------------
    def index(self) -> str:
        """A subscript: ints, slices, None, ..., lists, masks, tensors; oddly wrong ones."""
        parts = []
        for _ in range(self.src.integer(1, 3)):
            if self.odd():
                parts.append(pick(self.src, ("::0", "0.5", "'a'", "10**30", "-10**30:",
                                             f"{self.name()}", f"{self.name()} > 0",
                                             "[True]", "[[0, 1], [1, 0]]", "torch.tensor(1.5)",
                                             "(1, 2)", "{}", "..., ...", "None, None, None")))
            else:
                parts.append(pick(self.src, ("0", "1", "-1", ":", "1:", ":2", "::-1", "0:3:2",
                                             "None", "...", "[0, 1]", "[0, 0]",
                                             "torch.tensor([0, 1])", "torch.tensor(0)",
                                             f"{self.name()} > 0")))
        return ", ".join(parts)

    def kwargs(self) -> str:
        """A random keyword argument (mostly PyTorch's names)."""
        key = pick(self.src, KWARGS)
        value = pick(self.src, (self.number(), "True", "None", "-1", "0", "torch.float64",
                                "torch.int64", self.name(), "'mean'", "[0]", "(0, 1)"))
        return f"{key}={value}"

    def call(self, depth: int) -> str:
        """A call of a supported name with random arguments."""
        names = api()
        args = [self.expr(depth - 1) for _ in range(self.src.integer(0, 3))]
        if chance(self.src, 35):
            args.append(self.kwargs())
        if self.odd():
            args.append(pick(self.src, ("*[]", "**{}", f"*{self.name()}.shape", "dim=0",
                                        "keepdim=True")))
        where = weighted(self.src, [(6, "method"), (5, "torch"), (2, "F"), (1, "math"),
                                    (1, "user"), (1, "builtin")])
        if where == "method":
            meth = pick(self.src, names.get("Tensor", ["sum"]))
            return f"({self.expr(depth - 1)}).{meth}({', '.join(args)})"
        if where == "torch":
            fn = pick(self.src, names.get("torch", ["sum"]))
            return f"torch.{fn}({', '.join(args)})"
        if where == "F":
            fn = pick(self.src, names.get("torch.nn.functional", ["relu"]))
            return f"F.{fn}({', '.join(args)})"
        if where == "math":
            fn = pick(self.src, names.get("math", ["sqrt"]))
            return f"math.{fn}({', '.join(args)})"
        if where == "user" and self.functions:
            name, arity = pick(self.src, self.functions)
            if self.odd():
                arity = self.src.integer(0, 4)
            return f"{name}({', '.join(self.expr(depth - 1) for _ in range(arity))})"
        fn = pick(self.src, ("len", "abs", "float", "int", "bool", "sum", "max", "min",
                             "round", "list", "tuple", "sorted", "reversed", "zip", "enumerate",
                             "range", "str", "repr", "hash", "id", "iter", "next", "divmod",
                             "pow", "isinstance", "type", "dict", "set", "map", "filter",
                             "chr", "ord", "format", "any", "all", "print", "vars", "dir",
                             "getattr", "open", "eval", "exec", "input", "globals", "locals"))
        return f"{fn}({', '.join(args)})"

    def expr(self, depth: int) -> str:
        """A (usually tensor) expression at most ``depth`` levels deep."""
        if depth <= 0:
            return self.name() if chance(self.src, 70) or not self.names else self.number()
        kind = weighted(self.src, [(6, "name"), (2, "number"), (10, "binop"), (8, "call"),
                                   (2, "unary"), (2, "index"), (2, "attr"), (1, "ctor"),
                                   (1, "ternary"), (1, "list"), (1, "lambda"), (1, "cmp"),
                                   (1, "fstring"), (1, "string")])
        if kind == "name" and self.names:
            return self.name()
        if kind in ("name", "number"):
            return self.number()
        if kind == "binop":
            ops = OPERATORS[:4] + ("**", "@") if not self.odd() else OPERATORS
            return f"({self.expr(depth - 1)} {pick(self.src, ops)} {self.expr(depth - 1)})"
        if kind == "call":
            return self.call(depth)
        if kind == "unary":
            return f"({pick(self.src, ('-', '+', '~', 'not '))}{self.expr(depth - 1)})"
        if kind == "index":
            return f"{self.expr(depth - 1)}[{self.index()}]"
        if kind == "attr":
            return f"{self.name()}.{pick(self.src, ATTRS)}"
        if kind == "ctor":
            return self.leaf().split(" = ", 1)[1]
        if kind == "ternary":
            return f"({self.expr(depth - 1)} if {self.condition()} else {self.expr(depth - 1)})"
        if kind == "list":
            items = ", ".join(self.expr(depth - 1) for _ in range(self.src.integer(0, 3)))
            return pick(self.src, (f"[{items}]", f"({items},)" if items else "()",
                                   f"torch.tensor([{items}])",
                                   f"torch.stack([{items}])", f"torch.cat([{items}])"))
        if kind == "lambda":
            return f"(lambda u: u * 2)({self.expr(depth - 1)})"
        if kind == "cmp":
            return f"({self.expr(depth - 1)} {pick(self.src, OPERATORS[8:14])} " \
                   f"{self.expr(depth - 1)})"
        if kind == "fstring":
            return self.fstring()
        return pick(self.src, STRINGS)


def torch_program(src: Source) -> str:
    """One random PyTorch program."""
    return TorchProgramGenerator(src).program()


def options(src: Source, command: str, names: list[str]) -> list[str]:
    """Random options of a command (beyond --wrt, which the campaign adds)."""
    out: list[str] = []
    if chance(src, 10):
        out += ["--dtype", pick(src, ("float32", "float64"))]
    if chance(src, 8):
        out += ["--seed", str(src.integer(0, 5))]
    if chance(src, 5) and names:
        out += ["--set", f"{pick(src, names)}={pick(src, ('1', '[1, 2]', '2.5', '[[1]]', 'x'))}"]
    if command in ("graph", "tree", "dot", "html", "grad", "check", "explain") and names \
            and chance(src, 30):
        out += ["--of", pick(src, names)]
    if command in ("graph", "dot", "html") and chance(src, 20):
        a = src.integer(0, 12)
        out += ["--lines", pick(src, (f"{a}-{a + src.integer(0, 5)}", str(a), "x", "5-2"))]
    if command in ("dot", "html") and chance(src, 25):
        out.append("--rolled")
    if command in ("dot", "html") and chance(src, 40):
        out.append("--backward")
    if command == "dot":
        for flag in ("--show-values", "--show-grads", "--show-saved"):
            if chance(src, 30):
                out.append(flag)
    if command == "explain" and chance(src, 30):
        out += ["--top", str(pick(src, (0, 1, 3, 10**6)))]
    return out


__all__ = ["TorchProgramGenerator", "api", "options", "torch_program"]
