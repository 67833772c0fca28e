"""The grammar file and its LALR(1) tables: compiled by Lark once, then cached per user.

The tables are plain data (JSON): the parse actions and gotos of Lark's LALR(1) analysis, the
grammar's rules with the compiler method each one calls, and the terminals' regular
expressions. A cache hit costs a file read and no Lark import; JSON rather than Lark's pickled
cache, because unpickling a file is running code. The cache key is the grammar's hash, so an
edited grammar is recompiled on its next use.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import itertools
import json
import os
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = "gradcli-lalr-5"
HELPER = object()  # marks a helper rule Lark made for `x*` / `x+`: its children are spliced
_WS = "WS"  # the ignored terminal of blanks inside a line; it becomes the lexer's prefix


@dataclass(frozen=True, slots=True)
class Tables:
    """LALR tables and lexer, ready for the parser's driver."""

    master: re.Pattern[str]
    keywords: dict[str, str]  # word -> terminal, for words that NAME matches
    operators: dict[str, str]  # operator text -> terminal
    ignored: frozenset[str]
    # actions[state][terminal]: a shift target (>= 0), or ~code where code < len(chains) is a
    # run of unit rules and code - len(chains) indexes rules.
    actions: list[dict[str, int]]
    gotos: list[list[int]]  # gotos[nonterminal index][state] -> state
    chains: list[dict[int, int]]  # runs of unit rules: state below -> state after the run
    rules: list[tuple[int, int, str, list[int]]]  # size, nonterminal, kind, spliced children
    start: int
    end: int


def grammar_text() -> str:
    """The text of grad.lark: packaged copy first, else the repository's grammars/ folder."""
    try:
        res = importlib.resources.files("gradcli").joinpath("grammars/grad.lark")
        if res.is_file():
            return res.read_text("utf-8")
    except (ModuleNotFoundError, OSError):
        pass
    return (Path(__file__).resolve().parents[3] / "grammars" / "grad.lark").read_text("utf-8")


def compile_tables(grammar: str) -> dict[str, Any]:
    """Run Lark's LALR(1) analysis on ``grammar`` and return the tables as JSON-able data."""
    # Only here: a cache hit never imports Lark.  Lark's public serialisation (what Lark.save()
    # and its standalone generator write) gives the rules, the terminals and the LALR table.
    from lark import Lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    data, memo = Lark(grammar, parser="lalr", lexer="basic",
                      keep_all_tokens=True).memo_serialize([TerminalDef, Rule])
    lexer_conf, parser_conf = data["parser"]["lexer_conf"], data["parser"]["parser_conf"]
    table = data["parser"]["parser"]
    all_rules = [Rule.deserialize(memo[ref["@"]], memo) for ref in parser_conf["rules"]]
    rule_index = {ref["@"]: i for i, ref in enumerate(parser_conf["rules"])}
    ignore = set(lexer_conf["ignore"])
    used = {s.name for r in all_rules for s in r.expansion if s.is_term}
    term_defs = [t for t in (TerminalDef.deserialize(memo[ref["@"]], memo)
                             for ref in lexer_conf["terminals"])
                 if t.name in used or t.name in ignore]
    name_re = next(t for t in term_defs if t.name == "NAME").pattern.to_regexp()

    keywords: dict[str, str] = {}
    ws = ""
    operators: dict[str, str] = {}
    terminals = []
    # Lark's own lexer order (longer possible matches first), which keeps `.5` a number.
    term_defs.sort(key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
    for t in term_defs:
        regexp = t.pattern.to_regexp()
        if re.compile(regexp).groups:
            raise ValueError(f"terminal {t.name} has a capturing group")
        if t.pattern.type == "str" and re.fullmatch(name_re, t.pattern.value):
            keywords[t.pattern.value] = t.name
        elif t.name == _WS:
            ws = regexp
        elif t.pattern.max_width <= 3:
            texts = [t.pattern.value] if t.pattern.type == "str" else _punctuation(regexp, 3)
            for s in texts:
                if s in operators or not all(ch in string.punctuation for ch in s):
                    raise ValueError(f"cannot lex {s!r} as an operator of {t.name}")
                operators[s] = t.name
        else:
            terminals.append((t.name, regexp))
    # One alternative for all operators (longest first) is faster than one group each.
    ops = sorted(operators, key=lambda s: (-len(s), s))
    terminals.append(("OP", "|".join(re.escape(s) for s in ops)))

    nonterminals = sorted({str(r.origin.name) for r in all_rules})
    nt_index = {name: i for i, name in enumerate(nonterminals)}
    rules = []
    for r in all_rules:
        size = len(r.expansion)
        origin = str(r.origin.name)
        helpers = [i for i, s in enumerate(r.expansion) if not s.is_term and s.name[0] == "_"]
        if origin[0] == "_":
            kind = "helper"
        elif r.alias:
            kind = r.alias
        elif r.options.expand1 and size == 1 and not helpers:
            kind = "unit"
        else:
            kind = origin
        rules.append((size, nt_index[origin], kind, helpers))
    tokens = table["tokens"]
    n_states = len(table["states"])
    raw: list[dict[str, tuple[str, int]]] = [{} for _ in range(n_states)]
    gotos = [[-1] * n_states for _ in nonterminals]
    for state, row in table["states"].items():
        for token, (action, arg) in row.items():
            sym = str(tokens[token])
            if not (sym.isupper() or sym == "$END"):
                gotos[nt_index[sym]][state] = arg
            elif action == 0:  # shift
                raw[state][sym] = ("shift", arg)
            else:
                i = rule_index[arg["@"]]
                raw[state][sym] = ("unit", rules[i][1]) if rules[i][2] == "unit" else ("rule", i)

    # Unit rules (`?term: factor`) only replace the state on top of the stack, and a run of
    # them (factor -> term -> arith ...) depends only on the first rule, the lookahead and the
    # state below. So each (unit rule, lookahead) gets a "chain": state below -> the state the
    # whole run ends in, and the driver takes one step where the parse table has several.
    def run_of_units(nt: int, lookahead: str, below: int) -> int:
        top = gotos[nt][below]
        while True:
            kind, arg = raw[top].get(lookahead, ("error", 0))
            if kind != "unit":
                return top
            top = gotos[arg][below]

    chain_index: dict[tuple[int, str], int] = {}
    chains: list[dict[int, int]] = []
    for row in raw:
        for sym, (kind, arg) in row.items():
            if kind == "unit" and (arg, sym) not in chain_index:
                chain_index[arg, sym] = len(chains)
                chains.append(
                    {b: run_of_units(arg, sym, b) for b in range(n_states) if gotos[arg][b] >= 0}
                )
    # Encoded actions: a shift target (>= 0), else ~code where a code below len(chains) is a
    # chain of unit rules and len(chains) + i is a reduction by rule i.
    actions = [
        {
            sym: arg
            if kind == "shift"
            else ~chain_index[arg, sym]
            if kind == "unit"
            else ~(len(chains) + arg)
            for sym, (kind, arg) in row.items()
        }
        for row in raw
    ]
    return {
        "format": FORMAT,
        "ws": ws,
        "terminals": terminals,
        "keywords": keywords,
        "operators": operators,
        "ignored": sorted(ignore - {_WS}),
        "nonterminals": nonterminals,
        "actions": actions,
        "gotos": gotos,
        "chains": [sorted(c.items()) for c in chains],
        "rules": rules,
        "start": table["start_states"]["start"],
        "end": table["end_states"]["start"],
    }


def from_data(data: dict[str, Any]) -> Tables:
    """Tables from compile_tables() output (or its JSON round trip)."""
    if data.get("format") != FORMAT:
        raise ValueError("not a gradcli table file")
    alternatives = "|".join(f"(?P<{name}>{regexp})" for name, regexp in data["terminals"])
    return Tables(
        # ASCII: \d in NUMBER must not take Arabic-Indic or fullwidth digits, as Python's
        # own tokenizer does not (int() would read them)
        master=re.compile(f"(?:{data['ws']})?(?:{alternatives})", re.ASCII),
        keywords=dict(data["keywords"]),
        operators=dict(data["operators"]),
        ignored=frozenset(data["ignored"]),
        actions=data["actions"],
        gotos=data["gotos"],
        chains=[dict(c) for c in data["chains"]],
        rules=[tuple(r) for r in data["rules"]],
        start=data["start"],
        end=data["end"],
    )


def cache_dir() -> Path | None:
    """The per-user cache folder ($GRADCLI_CACHE_DIR, else XDG), or None if unusable."""
    base = os.environ.get("GRADCLI_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "gradcli")
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return Path(base)


def load() -> Tables:
    """The tables for the current grammar, from the cache when it has them."""
    text = grammar_text()
    key = hashlib.sha256((FORMAT + "\n" + text).encode("utf-8")).hexdigest()[:24]
    folder = cache_dir()
    path = folder / f"grad-{key}.json" if folder else None
    if path is not None:
        try:
            return from_data(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, KeyError, TypeError, re.error):
            pass  # missing or damaged: rebuild below
    data = compile_tables(text)
    if path is not None:
        import tempfile  # only when writing the cache: it is slow to import

        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".grad-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, separators=(",", ":"))
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new
        except OSError:
            pass
    return from_data(data)


def _punctuation(regexp: str, max_width: int) -> list[str]:
    """Every string of punctuation up to ``max_width`` long that ``regexp`` matches."""
    pattern = re.compile(regexp)
    found = [
        "".join(chars)
        for width in range(1, max_width + 1)
        for chars in itertools.product(string.punctuation, repeat=width)
        if pattern.fullmatch("".join(chars))
    ]
    if not found:
        raise ValueError(f"short terminal {regexp!r} matches no punctuation")
    return found


def splice(children: list[Any], indices: tuple[int, ...]) -> list[Any]:
    """Inline the lists that helper rules returned into their parent's children."""
    if indices == (0,):
        # Helper lists are left-recursive; growing the first in place keeps `x*` linear.
        out = children[0]
        out.extend(children[1:])
        return out
    out = []
    for i, x in enumerate(children):
        if i in indices:
            out.extend(x)
        else:
            out.append(x)
    return out
