"""Markers the test files share."""

import shutil

import pytest

# `dot` from Graphviz: the tests that render a graph through it skip where it is not installed
# (CI installs it; a developer's machine may not have it).
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz dot is not installed")
