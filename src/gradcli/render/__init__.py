"""Renderers: plain text, Rich tables, JSON documents and Graphviz DOT."""
