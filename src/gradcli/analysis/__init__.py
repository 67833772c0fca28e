"""Analyses of a recorded run: explain (chain-rule paths), trace (events), profile (cost)."""
