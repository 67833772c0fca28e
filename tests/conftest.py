"""Shared test setup."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import machines

# The setting every fixture was recorded under (tools/machines.py): the capability and thread
# count PyTorch ran with, put in the environment before MKL loads, so gradcli emulates the same
# machine in this process and in every command the tests start, on any machine.
machines.pin()

from gradcli.engine.context import RECURSION_LIMIT

# A run raises the recursion limit once per process and never lowers it (another run may be
# relying on it); raise it before any test so Hypothesis does not see it change mid-test.
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
