"""Shared test setup."""

import sys

from gradcli.engine.context import RECURSION_LIMIT

# A run raises the recursion limit once per process and never lowers it (another run may be
# relying on it); raise it before any test so Hypothesis does not see it change mid-test.
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
