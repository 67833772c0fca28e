"""Build hooks: the wheel carries the grammar and the compiled exact kernels.

The grammar's home is the repository's top-level grammars/ (where readers look for it);
gradcli.grammar reads the packaged copy at gradcli/grammars/grad.lark first, so the build copies
it there.

``gradcli.engine.exact._native`` is the C loops of the exact float kernels (fused multiply-adds,
SLEEF's expf and logf); optional: where no C compiler is found the install goes on without it
and gradcli runs the same kernels in NumPy (engine/exact/native.py), with the same bits, slower.
``-ffp-contract=off``: the compiler must not fuse a multiply and an add on its own (GCC does by
default on targets with FMA, aarch64 among them); ``-fvect-cost-model=dynamic`` lets it vectorise
the plain elementwise loops at -O2 (the same IEEE operations per lane; no reassociation).

``gradcli.language._lalr`` is the parser's driver loop (language/_lalr.c), optional in the same
way: without it parser.py runs its own loop over the same tables, to the same programs.
``gradcli.engine._backward`` is the backward's loop (engine/_backward.c), optional too: without
it autograd.py runs its own loop (``_plain``), to the same gradients.
``gradcli.engine._record`` is recording's common calls (engine/_record.c: record.apply for a
binary or unary op without params), optional too: without it record.py's apply runs them.
Everything else is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py


class BuildPyWithGrammar(build_py):
    """build_py that also copies grammars/*.lark into the built gradcli package."""

    def run(self) -> None:
        """Build as usual, then add the grammar files."""
        super().run()
        target = Path(self.build_lib, "gradcli", "grammars")
        target.mkdir(parents=True, exist_ok=True)
        for lark_file in Path(__file__).resolve().parent.joinpath("grammars").glob("*.lark"):
            shutil.copy2(lark_file, target / lark_file.name)


NATIVE = Extension(
    "gradcli.engine.exact._native",
    sources=["src/gradcli/engine/exact/_native.c"],
    extra_compile_args=["-O2", "-fvect-cost-model=dynamic", "-ffp-contract=off", "-fno-fast-math"],
    optional=True,
)


def _c_copy(module: str) -> Extension:
    """The C copy of a module's hot Python (optional: without a compiler the Python runs)."""
    return Extension(module, sources=[f"src/{module.replace('.', '/')}.c"],
                     depends=["src/gradcli/_capi.h"], extra_compile_args=["-O2"], optional=True)


C_COPIES = [_c_copy(m) for m in ("gradcli.language._lalr", "gradcli.engine._backward",
                                 "gradcli.engine._record")]

setup(cmdclass={"build_py": BuildPyWithGrammar}, ext_modules=[NATIVE, *C_COPIES])
