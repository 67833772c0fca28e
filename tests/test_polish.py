"""What users see and bounded work (issue 13): tables at 80 columns, grad/check on the samples,
labels and messages, hints, check's report, colours, memory, script size, pipes, hostile input.

Every test here was written against a reproduced fault and fails without its fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli import cli, pipeline, views
from gradcli.render import plain

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
SAMPLES = ROOT / "samples"
runner = CliRunner()


def invoke(*args: str, input: str | None = None, env: dict | None = None):
    """The app in-process; stdout and stderr are kept apart."""
    return runner.invoke(cli.app, list(args), input=input, env=env)


def sh(*args: str, input: bytes | None = None, env: dict | None = None, **kw):
    """``python -m gradcli`` in a subprocess (bytes in and out)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update(PYTHONPATH=SRC, **(env or {}))
    return subprocess.run([sys.executable, "-m", "gradcli", *args], input=input, check=False,
                          capture_output=True, env=full_env, timeout=120, **kw)


# -- graph --tree stays linear --------------------------------------------------------------------
CHAIN = "x = param(1.0)\ny = x\nfor i in range({n}):\n    y = y * 1.0001\n"


def test_a_deep_tree_is_drawn_in_blocks_with_bounded_indentation():
    r = pipeline.run(CHAIN.format(n=2000), record=True)
    text = plain.tree(views.backward_view(r, "y"))
    lines = text.splitlines()
    assert max(len(line) for line in lines) < 4 * plain.TREE_DEPTH + 60
    assert len(text) < 2000 * 120  # one drawn tree would be ~8 MB (indentation ~ depth)
    # every node is drawn once, and each continuation is drawn as the root of a block
    drawn = [line for line in lines if "MulBackward0 [" in line]
    assert len(drawn) == 2000
    first = next(line for line in lines if "(continued below)" in line)
    number = first.split("#")[1].split()[0]
    assert f"\n#{number} MulBackward0 [" in text
    assert lines[-1].endswith("AccumulateGrad -> x ()")


def test_a_shallow_tree_is_one_block():
    r = pipeline.run((SAMPLES / "chain_rule.grad").read_text(), wrt=["w1"], record=True)
    text = plain.tree(views.backward_view(r, "L"))
    assert "continued" not in text and "\n\n" not in text
    assert "#4 AccumulateGrad (see above)" in text
