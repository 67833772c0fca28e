"""Build hook: the wheel carries the grammar.

The grammar's home is the repository's top-level grammars/ (where readers look for it);
gradcli.grammar reads the packaged copy at gradcli/grammars/grad.lark first, so the build copies
it there. Everything else about the package is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
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


setup(cmdclass={"build_py": BuildPyWithGrammar})
