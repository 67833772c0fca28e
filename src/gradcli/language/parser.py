"""Text to program: the LALR parser for ``grammars/grad.lark`` and its friendly syntax errors.

Lark compiles the grammar into LALR(1) tables once (cached per user: gradcli.language.grammar). Parsing
then runs a small driver over those tables: one regex lexer built from the grammar's own
terminals, the indentation layout (Python's rules), and the shift/reduce loop that calls
``compiler.Compiler`` at each reduction. Lark's own parse loop and Token objects cost
about three times as much per line (measured in ``bench/bench_parse.py``), and a script is
parsed before every run, so the hot path is ours while the grammar stays the single source of
truth. Every failure is a ``ScriptSyntaxError`` with a 1-based span, worded for people.

The loop is also compiled (``_lalr.c``, built at install where a C compiler is): the same steps
over the same tables, regex, compiler and error helpers, without the interpreter's cost per
token (a 20,000-line script parses in about half the time; the commonest tokens are scanned
and the commonest nodes made in C too).  ``run`` takes it when it is there
and ``GRADCLI_PURE`` is not set; tests/test_parser_driver.py holds the two to the same results.
"""

from __future__ import annotations

import gc
import importlib
import os
import re
import threading
from typing import Any

from ..errors import ScriptSyntaxError, Span
from . import grammar as tables
from .checks import number_value
from .compiler import Compiler
from .exprs import ExpressionReductions
from .grammar import HELPER
from .nodes import respan
from .program import (
    MAX_BLOCK_DEPTH,
    MAX_EXPR_DEPTH,
    Assign,
    Attribute,
    Binary,
    Call,
    Name,
    Number,
    Program,
    Subscript,
)
from .syntax_errors import (
    REFUSED_NAMES,
    RESERVED_WORDS,
    bad_character,
    never_closed,
    unexpected_token,
)

__all__ = ["parse", "parse_bytes"]

_OPEN = {"LPAR": ")", "LSQB": "]", "LBRACE": "}"}
_BRACKETS = {"LPAR", "LSQB", "LBRACE", "RPAR", "RSQB", "RBRACE"}
_TOKENS = {"NUMBER", "STRING", "NAME"}  # lexer groups that are tokens as they are
_LEADING_SPACE = re.compile(r"[ \t\f]*")
# The splice of a helper rule `xs: xs x` (Lark's `x*`): the parse loop appends x to the list
# in place (tables.splice does the same for feed())
_APPEND = (0,)

_lock = threading.Lock()
_parser: _Parser | None = None

try:  # the driver loop compiled (_lalr.c), where the install could build it
    if os.environ.get("GRADCLI_PURE"):
        raise ImportError("GRADCLI_PURE is set")
    _lalr: Any = importlib.import_module(f"{__package__}._lalr")  # optional: looked up by name
except ImportError:
    _lalr = None


class _Stuck(Exception):
    """The parse table has no action for ``token`` in the current state."""

    def __init__(self, token: tuple) -> None:
        self.token = token


class _Parser:
    """The loaded tables bound to a compiler: what one process needs to parse scripts."""

    def __init__(self, t: tables.Tables) -> None:
        self.t = t
        compiler = Compiler(self.parse_expression)
        self.keywords = {**dict.fromkeys(RESERVED_WORDS, "RESERVED"),
                         **dict.fromkeys(REFUSED_NAMES, "REFUSED"), **t.keywords}
        # the terminal of each of the lexer's groups, by group number (Match.lastindex)
        self.kinds: list[str | None] = [None] * (t.master.groups + 1)
        for kind, group in t.master.groupindex.items():
            # NAME_: a string's prefix letters, lexed after the strings (never a keyword)
            self.kinds[group] = "NAME" if kind == "NAME_" else kind
        # rules[~act] for a reduce action: the rule's size, the gotos of its nonterminal by
        # lookahead (Tables.after), the compiler's method (HELPER for a helper rule), the
        # children to splice (last first: grammar.splice), the nonterminal. The codes of runs
        # of unit rules come first and are never looked up: those runs are part of the gotos
        # (Tables.goto).
        self.rules: list[tuple | None] = [None] * len(t.chains)
        self.rules += [
            (
                size,
                t.after[nt],
                None if kind == "unit" else HELPER if kind == "helper" else getattr(compiler, kind),
                _APPEND if kind == "helper" and size == 2 and splice == [0]
                else tuple(sorted(splice, reverse=True)),
                nt,
            )
            for size, nt, kind, splice in t.rules
        ]
        self.compiled = None if _lalr is None else _lalr.Tables(self._describe())

    def _describe(self) -> dict[str, Any]:
        """The tables as _lalr.c's driver reads them: terminals numbered (the driver makes the
        actions a dense table of states x terminals), the reductions as
        (size, nonterminal, kind, append, method, splice), the lexer's groups by role, and the
        Python helpers it calls for the layout's rare cases and for errors."""
        t = self.t
        names = sorted({kind for row in t.actions for kind in row}
                       | set(self.keywords.values()) | set(t.operators.values())
                       | {k for k in self.kinds if k is not None} | {"NAME", "_DEDENT"})
        index = {name: i for i, name in enumerate(names)}
        group_role, group_kind = [], []  # _lalr.c's G_* roles, in run()'s order of tests
        for group, kind in enumerate(self.kinds):
            if group == t.master.groupindex["NAME"]:
                role = 1
            elif group == t.master.groupindex["OP"]:
                role = 2
            elif kind == "_NEWLINE":
                role = 3
            elif kind in _TOKENS:
                role = 4
            elif kind is None:  # group 0: the whole match, never a lastindex
                role = 0
            else:  # a triple-quoted string, a bad character, else a line continuation
                role = {"LONGSTRING": 5, "bad": 6}.get(kind, 7)
            group_role.append(role)
            group_kind.append(index.get(kind, -1) if kind is not None else -1)
        # R_UNIT (None), R_HELPER 1, R_CALL 2, or the node made in C: R_NAME 3, R_NUMBER 4,
        # R_BINARY 5, R_ASSIGN 6, R_SIMPLE 7 (exprs.py's name, number and binary, compiler.py's
        # assign for `name = value` of a plain value and simple_stmts for a line of one
        # statement, written again in _lalr.c)
        made = {ExpressionReductions.name: 3, ExpressionReductions.number: 4,
                ExpressionReductions.binary: 5, Compiler.assign: 6, Compiler.simple_stmts: 7}
        rules: list[tuple | None] = []
        for rule in self.rules:
            if rule is None or rule[2] is None:
                rules.append(None)
                continue
            size, _, fn, splice, nt = rule
            kind = 1 if fn is HELPER else made.get(getattr(fn, "__func__", None), 2)
            rules.append((size, nt, kind, int(splice is _APPEND), fn,
                          splice if splice and splice is not _APPEND else None))
        return {
            "kind_names": tuple(names), "kind_index": index,
            "words": {w: index[k] for w, k in self.keywords.items()},
            "operators": {o: index[k] for o, k in t.operators.items()},
            "actions": t.actions, "nstates": len(t.actions), "nnts": len(t.after),
            "group_role": group_role, "group_kind": group_kind,
            "opener": [int(name in _OPEN) for name in names],
            "bracket": [int(name in _BRACKETS) for name in names],
            "rules": rules, "master": t.master, "goto": t.goto, "splice": tables.splice,
            "stuck": _Stuck, "newline": _newline, "long_string": _long_string,
            "bracket_fn": _bracket, "bad_character": bad_character,
            "never_closed": never_closed, "start": t.start, "end": t.end,
            "max_depth": MAX_EXPR_DEPTH, "name_kind": index["NAME"],
            "newline_kind": index["_NEWLINE"], "dedent_kind": index["_DEDENT"],
            "end_kind": index["$END"],
            "name_class": _slots(Name), "number_class": _slots(Number),
            "binary_class": _slots(Binary), "assign_class": _slots(Assign), "span_class": Span,
            "number_value": number_value,
            # values whose `name = value` needs none of assign's checks (a starred value's
            # error) and is never a literal (numbers, signs and lists may be)
            "plain_values": (Name, Binary, Call, Attribute, Subscript),
            # the groups _lalr.c's scan() makes tokens of without the regex
            "name_group": t.master.groupindex["NAME"], "op_group": t.master.groupindex["OP"],
            "number_group": t.master.groupindex["NUMBER"],
            "newline_group": t.master.groupindex["_NEWLINE"],
        }

    def parse_expression(self, text: str, line: int, column: int) -> Any:
        """One expression written at (line, column): an f-string's field."""
        # In parentheses, as CPython reads it: blanks around it, even newlines, are fine.
        e = self.run(f"({text})\n", line, column - 1)[0].value
        # ...but the node's span is its own text's, not the parentheses added around it.
        lead = len(text) - len(text.lstrip())
        end = len(text.rstrip())
        before, inside = text[:lead], text[:end]
        start = (line + before.count("\n"),
                 column + lead if "\n" not in before else lead - before.rfind("\n"))
        stop = (line + inside.count("\n"),
                column + end if "\n" not in inside else end - inside.rfind("\n"))
        return respan(e, Span(*start, *stop))

    def run(self, text: str, first_line: int = 1, first_column: int = 1,
            eof: tuple[int, int] | None = None) -> list:
        """Lex, lay out and parse ``text`` (LF line ends, ends with a newline), whose first
        character stands at (first_line, first_column) of the script; the end of input stands
        at ``eof`` (line, column), else just after the last token."""
        if self.compiled is not None:
            machine = _lalr.Machine(self.compiled)
            try:
                return machine.run(text, first_line, first_column, eof)
            except _Stuck as stuck:
                raise unexpected_token(stuck.token, set(self.t.actions[machine.state]),
                                       machine.values, machine.brackets, text, machine.pos
                                       ) from None
        t = self.t
        kinds = self.kinds
        name_group = t.master.groupindex["NAME"]
        op_group = t.master.groupindex["OP"]
        keywords = self.keywords
        operators = t.operators
        actions = t.actions
        goto = t.goto
        rules = self.rules
        end_state = t.end
        state = t.start  # the top of ``states``, kept in a local as well
        states = [state]
        values: list[Any] = []
        brackets: list[tuple] = []
        # The open blocks' indentations as CPython's tokenizer measures them, (tabs to
        # multiples of 8, tabs as 1), and the same as the hot path below compares: the width
        # in characters of an indentation of spaces alone, where both measures are that width,
        # else -1, which no width equals (a line of such a block takes the layout's path).
        levels = [(0, 0)]
        indents = [0]

        def feed(tok: tuple) -> bool:
            """One parse step for ``tok``; True when the end of input was accepted."""
            kind = tok[0]
            while True:
                act = actions[states[-1]].get(kind)
                if act is None:
                    raise _Stuck(tok)
                if act >= 0:
                    states.append(act)
                    values.append(tok)
                    return False
                size, after, fn, splice, nt = rules[~act]
                if size == 1 and not splice:
                    values[-1] = [values[-1]] if fn is HELPER else fn([values[-1]])
                    states.pop()
                else:
                    c = values[-size:] if size else []
                    if size:
                        del values[-size:]
                        del states[-size:]
                    if splice:
                        c = tables.splice(c, splice)
                    values.append(c if fn is HELPER else fn(c))
                below = states[-1]
                try:
                    states.append(after[kind][below])
                except KeyError:
                    states.append(goto(nt, kind, below))
                if states[-1] == end_state:  # only reached by reducing `start` at the end
                    return True

        pos = 0  # where the next token starts
        line = first_line
        line_start = 1 - first_column
        last = ("$END", "", 1, 1, 1)
        try:
            # One scan of the whole text, each match a token (after blanks) or a bad character.
            for m in t.master.finditer(text):
                end = m.end()
                pos = end  # before the parse step: an error scan for brackets goes on from here
                group = m.lastindex
                value = m[group]
                if group == name_group:
                    kind = keywords.get(value, "NAME")
                    width = len(value)
                    col = end - width - line_start + 1
                    last = tok = (kind, value, line, col, col + width)
                elif group == op_group:
                    kind = operators[value]
                    width = len(value)
                    col = end - width - line_start + 1
                    last = tok = (kind, value, line, col, col + width)
                    if kind in _BRACKETS:  # _bracket's common cases, inline
                        if kind in _OPEN:
                            if len(brackets) < MAX_EXPR_DEPTH:
                                brackets.append(tok)
                            else:
                                _bracket(tok, brackets)
                        elif brackets and _OPEN[brackets[-1][0]] == value:
                            brackets.pop()
                        else:
                            _bracket(tok, brackets)
                elif (kind := kinds[group]) == "_NEWLINE":
                    start = end - len(value)  # the value's first character
                    after = start + value.rfind("\n") + 1  # the start of the next line
                    if (brackets or end - after != indents[-1] or "\t" in value
                            or "\f" in value):
                        # inside brackets, a change of indentation, a tab or a form feed: the
                        # layout's rules
                        line, line_start = _newline(
                            text, end, value, line, line_start, brackets, levels, indents, feed
                        )
                        state = states[-1]
                        continue
                    # the next line is as indented as this one: a newline and nothing more
                    col = start - line_start + 1
                    tok = ("_NEWLINE", value, line, col, col)
                    line += value.count("\n")
                    line_start = after
                elif kind in _TOKENS:
                    width = len(value)
                    col = end - width - line_start + 1
                    last = tok = (kind, value, line, col, col + width)
                elif kind == "LONGSTRING":  # a triple-quoted string: it may span lines
                    line, line_start, last = _long_string(value, line, line_start, end, feed)
                    state = states[-1]
                    continue
                elif kind == "bad":  # a character that no terminal matches (after blanks)
                    raise bad_character(text, end - 1, line, line_start)
                else:  # a line continuation
                    line += 1
                    line_start = end
                    continue
                # The parse step, as in feed() but inline: it runs for every token.
                while True:
                    try:
                        act = actions[state][kind]
                    except KeyError:
                        raise _Stuck(tok) from None
                    if act >= 0:
                        states.append(act)
                        values.append(tok)
                        state = act
                        break
                    # NOTE: the same reduce step as in feed() above, written out again on
                    # purpose: a helper call per reduction would cost about 10% of parse time.
                    # The goto takes the unit rules (`?term: factor`) that follow in the same step.
                    size, after, fn, splice, nt = rules[~act]
                    if size == 1 and not splice:
                        values[-1] = [values[-1]] if fn is HELPER else fn([values[-1]])
                        below = states[-2]
                        try:
                            state = states[-1] = after[kind][below]
                        except KeyError:  # the first time this parser meets this step
                            state = states[-1] = goto(nt, kind, below)
                        continue
                    if splice is _APPEND:  # a list grows by one item: the same, in place
                        x = values.pop()
                        values[-1].append(x)
                        del states[-1]
                        below = states[-2]
                        try:
                            state = states[-1] = after[kind][below]
                        except KeyError:
                            state = states[-1] = goto(nt, kind, below)
                        continue
                    c = values[-size:] if size else []
                    if size:
                        del values[-size:]
                        del states[-size:]
                    if splice:
                        c = tables.splice(c, splice)
                    values.append(c if fn is HELPER else fn(c))
                    below = states[-1]
                    try:
                        state = after[kind][below]
                    except KeyError:
                        state = goto(nt, kind, below)
                    states.append(state)
            if brackets:
                raise never_closed(brackets[-1])
            eof_line, eof_col = eof or (last[2], last[4])
            while len(indents) > 1:
                indents.pop()
                feed(("_DEDENT", "", eof_line, eof_col, eof_col))
            if not feed(("$END", "", eof_line, eof_col, eof_col)):
                raise AssertionError("the parser shifted the end of input")
            return values[-1]
        except _Stuck as stuck:
            raise unexpected_token(
                stuck.token, set(actions[states[-1]]), values, brackets, text, pos
            ) from None


def _slots(cls: type) -> tuple[type, tuple]:
    """A node class and its fields' slot descriptors, in order, for _lalr.c to write."""
    return cls, tuple(getattr(cls, f) for f in cls.__match_args__)


def _long_string(value: str, line: int, line_start: int, end: int,
                 feed: Any) -> tuple[int, int, tuple]:
    """Feed a triple-quoted string token; returns the line position after it and the token."""
    width = len(value)
    col = end - width - line_start + 1
    newlines = value.count("\n")
    tok = ("LONGSTRING", value, line, col, col + (value.find("\n") if newlines else width))
    feed(tok)
    if newlines:
        line += newlines
        line_start = end - width + value.rfind("\n") + 1
    return line, line_start, tok


def _newline(
    text: str,
    end: int,
    value: str,
    line: int,
    line_start: int,
    brackets: list,
    levels: list[tuple[int, int]],
    indents: list[int],
    feed: Any,
) -> tuple[int, int]:
    """Feed a newline and the indents/dedents it implies; returns the new line position.
    An indent or dedent stands where CPython reports one, at the column of the indentation's
    last character (0 for none).

    CPython's tokenizer rules: the indentation is measured twice, tabs to the next multiple of 8
    and tabs as one column (a form feed starts both again at 0); a line whose two measures
    order it differently against its block is a TabError, and the errors come before any
    indent or dedent reaches the parser, as the tokenizer finds them first."""
    col = end - len(value) - line_start + 1
    tok = ("_NEWLINE", value, line, col, col)
    line += value.count("\n")
    line_start = end - len(value) + value.rfind("\n") + 1
    if brackets:  # brackets continue the line
        return line, line_start
    feed(tok)
    if end == len(text):  # the end of the text closes the blocks where the last token stands
        return line, line_start
    width = end - line_start  # in characters
    indentation = text[line_start:end]
    if "\t" in indentation or "\f" in indentation:
        column, alt = _measures(indentation)
    else:
        column = alt = width
    top, top_alt = levels[-1]
    if column == top:
        if alt != top_alt:
            raise _tab_error(line, width)
    elif column > top:
        if alt <= top_alt:
            raise _tab_error(line, width)
        if len(levels) >= MAX_BLOCK_DEPTH:
            raise ScriptSyntaxError("too many levels of indentation", kind="IndentationError",
                                    span=Span(line, 1, line, width + 1))
        levels.append((column, alt))
        indents.append(width if column == alt == width else -1)
        feed(("_INDENT", "", line, width, width + 1))
    else:
        depth = len(levels) - 1
        while column < levels[depth][0]:
            depth -= 1
        if column != levels[depth][0]:
            stop = text.find("\n", line_start)
            raise ScriptSyntaxError(
                "unindent does not match any outer indentation level", kind="IndentationError",
                span=Span(line, stop - line_start + 1, line, stop - line_start + 1),
            )
        if alt != levels[depth][1]:
            raise _tab_error(line, width)
        while len(levels) > depth + 1:
            levels.pop()
            indents.pop()
            feed(("_DEDENT", "", line, width, width + 1))
    return line, line_start


def _measures(indentation: str) -> tuple[int, int]:
    """An indentation's two measures, CPython's ``col`` and ``altcol``: tabs to the next
    multiple of 8, and tabs as one column; a form feed starts both again at 0."""
    column = alt = 0
    for c in indentation:
        if c == " ":
            column += 1
            alt += 1
        elif c == "\t":
            column = (column // 8 + 1) * 8
            alt += 1
        else:  # a form feed
            column = alt = 0
    return column, alt


def _tab_error(line: int, width: int) -> ScriptSyntaxError:
    """An indentation that tabs and spaces make ambiguous: CPython's TabError, at column 1."""
    return ScriptSyntaxError("inconsistent use of tabs and spaces in indentation",
                             kind="TabError", span=Span(line, 1, line, width + 1))


def _bracket(tok: tuple, brackets: list[tuple]) -> None:
    """Track an opening or closing bracket; reject a mismatch or too deep a nesting."""
    kind, value, line, col = tok[0], tok[1], tok[2], tok[3]
    if kind in _OPEN:
        brackets.append(tok)
        if len(brackets) > MAX_EXPR_DEPTH:
            raise ScriptSyntaxError(
                f"expression nested too deeply (limit {MAX_EXPR_DEPTH})",
                span=Span(line, col, line, col + 1),
                hint="split it into several statements with intermediate names",
            )
        return
    if not brackets:
        raise ScriptSyntaxError(f"unmatched '{value}'", span=Span(line, col, line, col + 1))
    opener = brackets.pop()
    if _OPEN[opener[0]] != value:
        raise ScriptSyntaxError(
            f"closing parenthesis '{value}' does not match opening parenthesis '{opener[1]}'"
            + ("" if opener[2] == line else f" on line {opener[2]}"),
            span=Span(line, col, line, col + 1),
        )


def _get_parser() -> _Parser:
    """The process-wide parser, built on first use (thread-safe)."""
    global _parser
    if _parser is None:
        with _lock:
            if _parser is None:
                _parser = _Parser(tables.load())
    return _parser


def _normalise(source: str) -> str:
    """Strip a BOM, turn CRLF/CR into LF, and reject NUL bytes."""
    source = source.removeprefix("\ufeff")
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    nul = source.find("\0")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        col = nul - (source.rfind("\n", 0, nul) + 1) + 1
        raise ScriptSyntaxError(
            "source code cannot contain null bytes", span=Span(line, col, line, col + 1)
        )
    return source


def parse(source: str, filename: str = "<script>") -> Program:
    """Parse and compile a grad script into a Program; raises ScriptSyntaxError."""
    source = _normalise(source)
    text = source.rstrip() + "\n"  # trailing blanks and a missing final newline are harmless
    lead = _LEADING_SPACE.match(text).end()
    if lead and text[lead] not in "#\n" and _measures(text[:lead])[0]:
        # CPython's column: the indentation's last character
        raise ScriptSyntaxError("unexpected indent", kind="IndentationError",
                                span=Span(1, lead, 1, lead + 1))
    # The end of input where CPython puts it: after the last character of the last line.
    last_line = source.removesuffix("\n")
    eof = (last_line.count("\n") + 1, len(last_line) - last_line.rfind("\n"))
    parser = _get_parser()
    # The parse allocates many small acyclic objects; the cyclic collector would only rescan
    # them over and over, so it pauses and is restored after.
    enabled = gc.isenabled()
    gc.disable()
    try:
        body = parser.run(text, eof=eof)
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                # Hand the new objects straight to the oldest generation: otherwise the first
                # young collection after enable() walks all of them (about 1 s per 100,000
                # lines). Skipped when the application froze objects itself.
                gc.freeze()
                gc.unfreeze()
            gc.enable()
    return Program(tuple(body), source, filename)


def parse_bytes(data: bytes, filename: str = "<script>") -> Program:
    """Parse a script given as bytes, which must be UTF-8 (a BOM is allowed)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ScriptSyntaxError(
            f"invalid UTF-8 byte 0x{data[e.start]:02x}; a script must be UTF-8 text",
            span=Span(line, col, line, col + 1),
        ) from None
    return parse(text, filename)
