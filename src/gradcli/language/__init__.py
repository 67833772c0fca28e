"""The grad language: grammar tables, the parser, syntax errors, the program's dataclasses,
the compiler from parse tree to program, and the static checks."""
