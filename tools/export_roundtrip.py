"""Generated grad scripts through `gradcli export`, run with real PyTorch, against `gradcli run`.

Each script (random leaves, arithmetic and built-ins, a loop, a function, prints, a backward
and the leaves' grads, random --wrt names) is exported; gradcli runs the script, PyTorch runs
the program (all programs in one interpreter, each in a fresh namespace, so torch is imported
once), and the printed output is compared byte for byte. Prints the count that agree and the
first differences. Usage (gradcli from this checkout, torch in this interpreter):

    PYTHONPATH=src python tools/export_roundtrip.py [N] [--seed S]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import sys

ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
UNARY = ("tanh({})", "exp({} / 4)", "sigmoid({})", "relu({} - 0.5)", "sum({})", "max({})",
         "{}.mean()", "abs({})", "-{}", "{} ** 2", "softmax({}, 0)", "log_softmax({}, 0)",
         "sqrt(abs({}) + 1)", "clamp({}, min=-1, max=1)", "{}.clone()", "({}).detach()",
         "min({})", "f({})", "{}.t()", "{}.unsqueeze(0).squeeze(0)")
BINARY = ("{} * {}", "{} + {}", "{} - {}", "{} / (1 + {} ** 2)", "maximum({}, {})",
          "pow({} * {}, 2)", "minimum({}, {})", "2 * {} - {} / 3")


def script(rng: random.Random) -> tuple[str, list[str]]:
    """One grad script and its --wrt names."""
    def number() -> str:
        return repr(round(rng.uniform(-3, 3), 2))

    lines = ["def f(v):", "    return sum(v) * 0.5 + v"]
    names = []
    for i in range(rng.randint(1, 3)):
        data = number() if rng.random() < 0.5 else f"[{number()}, {number()}, {number()}]"
        form = rng.choice(("x{} = {}", "x{} = param({})", "x{} = -{}", "x{} = tensor({})"))
        lines.append(form.format(i, data))
        names.append(f"x{i}")
    for j in range(rng.randint(1, 7)):
        if rng.random() < 0.5:
            expr = rng.choice(UNARY).format(rng.choice(names))
        else:
            expr = rng.choice(BINARY).format(rng.choice(names), rng.choice(names))
        if rng.random() < 0.2:
            lines += [f"t{j} = {rng.choice(names)}", "for k in range(2):",
                      f"    t{j} = t{j} + {expr} * k"]
        else:
            lines.append(f"t{j} = {expr}")
        names.append(f"t{j}")
        if rng.random() < 0.5:
            lines.append(rng.choice((f"print(t{j})", f"print('t{j}:', t{j}.requires_grad)",
                                     f"print(f'{{sum(t{j}).item():.4f}}')")))
    lines += [f"L = sum({names[-1]})", "print(L)", "L.backward()"]
    lines += [f"print({n}.grad)" for n in names if n.startswith("x")]
    wrt = rng.sample(names, k=min(len(names), rng.randint(0, 2)))
    return "\n".join(lines) + "\n", wrt


def gradcli_prints(source: str, wrt: list[str]) -> str:
    from gradcli import pipeline

    out: list[str] = []
    pipeline.run(source, wrt=wrt, on_print=out.append)
    return ADDRESS.sub("at 0xADDR", "".join(out))


def torch_prints(program: str) -> str:
    """What the program prints under PyTorch (up to its error, if any)."""
    import torch

    torch.set_default_dtype(torch.float32)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.suppress(Exception):
        exec(compile(program, "exported.py", "exec"), {"__name__": "__main__"})  # noqa: S102
    return ADDRESS.sub("at 0xADDR", buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    """Run N generated scripts; exit 1 if any differs."""
    import warnings

    from gradcli.export import export_source

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rng = random.Random(args.seed)
    differ = 0
    for i in range(args.n):
        source, wrt = script(rng)
        program = export_source(source, f"gen{i}.grad", wrt=wrt)
        want, got = gradcli_prints(source, wrt), torch_prints(program)
        if want != got:
            differ += 1
            if differ <= 3:
                print(f"--- script {i} (--wrt {' '.join(wrt) or '-'}):\n{source}"
                      f"--- gradcli:\n{want}--- PyTorch:\n{got}")
    print(f"{args.n - differ} of {args.n} generated scripts print the same under PyTorch")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
