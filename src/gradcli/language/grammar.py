"""The grammar file and its LALR(1) tables: compiled by Lark once, then cached per user.

The tables are plain data (JSON): the parse actions and gotos of Lark's LALR(1) analysis, the
grammar's rules with the compiler method each one calls, and the terminals' regular
expressions. A cache hit costs a file read and no Lark import; JSON rather than Lark's pickled
cache, because unpickling a file is running code. The cache key is a checksum of the grammar,
so an edited grammar is recompiled on its next use. The file is read at every start-up, so it
holds only what the parser cannot derive quickly: gotos as (state, target) pairs, and no
chains of unit rules (``Tables.chain`` works each one out the first time a parse needs it,
and ``Tables.goto`` each goto followed by such a chain).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import string
import zlib
from typing import Any

FORMAT = "gradcli-lalr-6"
HELPER = object()  # marks a helper rule Lark made for `x*` / `x+`: its children are spliced
_WS = "WS"  # the ignored terminal of blanks inside a line; it becomes the lexer's prefix


class Tables:
    """LALR tables and lexer, ready for the parser's driver.

    A plain slots class rather than a dataclass, whose ``__init__`` would be compiled from
    source at every start of the process.

    - ``master``: the terminals, each a named group, then ``bad``
    - ``keywords``: word -> terminal, for words that NAME matches
    - ``operators``: operator text -> terminal; ``ignored``: the terminals the lexer skips
    - ``actions[state][terminal]``: a shift target (>= 0), or ~code where code < len(chains)
      is a run of unit rules and code - len(chains) indexes rules
    - ``gotos[nonterminal index][state]`` -> state
    - ``chains``: runs of unit rules, each the run that starts with unit rule (nonterminal,
      lookahead) of ``chain_keys``: state below -> state after the run, filled in by ``chain``
      as parses need it
    - ``after[nonterminal][lookahead][state below]`` -> the state after the goto and the run
      of unit rules that the lookahead makes there, filled in by ``goto`` as parses need it
    - ``rules``: (size, nonterminal, kind, spliced children); ``start``, ``end``: the states
    """

    __slots__ = ("actions", "after", "chain_keys", "chains", "end", "gotos", "ignored",
                 "keywords", "master", "operators", "rules", "start")

    def __init__(self, *, master: re.Pattern[str], keywords: dict[str, str],
                 operators: dict[str, str], ignored: frozenset[str],
                 actions: list[dict[str, int]], gotos: list[list[int]],
                 chains: list[dict[int, int]], chain_keys: list[tuple[int, str]],
                 after: list[dict[str, dict[int, int]]],
                 rules: list[tuple[int, int, str, list[int]]], start: int, end: int) -> None:
        self.master = master
        self.keywords = keywords
        self.operators = operators
        self.ignored = ignored
        self.actions = actions
        self.gotos = gotos
        self.chains = chains
        self.chain_keys = chain_keys
        self.after = after
        self.rules = rules
        self.start = start
        self.end = end

    def chain(self, code: int, below: int) -> int:
        """The state after the run of unit rules ``code`` over state ``below`` (memoised).

        Unit rules (``?term: factor``) only replace the state on top of the stack, and a run of
        them (factor -> term -> arith ...) depends only on the first rule, the lookahead and the
        state below, so the driver takes one step where the parse table has several.
        """
        nt, lookahead = self.chain_keys[code]
        units = len(self.chains)
        while True:
            top = self.gotos[nt][below]
            if top < 0:
                raise KeyError(below)  # no such parse: the tables are not this grammar's
            act = self.actions[top].get(lookahead, 0)
            if not -units <= act < 0:  # not another unit rule: the run ends here
                self.chains[code][below] = top
                return top
            nt = self.chain_keys[~act][0]

    def goto(self, nt: int, lookahead: str, below: int) -> int:
        """The state after a reduction to nonterminal ``nt`` over state ``below`` (memoised in
        ``after``): its goto and, when ``lookahead`` reduces a unit rule there, the whole run of
        them (``chain``), so that the parser takes one step where the table has several."""
        top = self.gotos[nt][below]
        act = self.actions[top].get(lookahead, 0)
        if -len(self.chains) <= act < 0:
            top = self.chain(~act, below)
        self.after[nt].setdefault(lookahead, {})[below] = top
        return top


def grammar_text() -> str:
    """The text of grad.lark: the packaged copy (gradcli/grammars/), else the repository's
    grammars/ folder, else the package's resources (an install in a zip file)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for path in (os.path.join(package, "grammars", "grad.lark"),
                 os.path.join(os.path.dirname(os.path.dirname(package)), "grammars",
                              "grad.lark")):
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError:
            pass
    import importlib.resources  # slow to import (tempfile, zipfile ...): only here

    return importlib.resources.files("gradcli").joinpath("grammars/grad.lark").read_text("utf-8")


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

    # The parser runs unit rules only right after a goto (Tables.after): that needs every
    # state where one reduces to be entered by a goto, never by a shift nor at the start.
    entered = {arg for row in raw for kind, arg in row.values() if kind == "shift"}
    entered.add(table["start_states"]["start"])
    for state in sorted(entered):
        for kind, arg in raw[state].values():
            if kind == "unit":
                raise ValueError(f"a unit rule of ?{nonterminals[arg]} reduces in state {state}, "
                                 "entered by a shift: give a rule of one terminal an alias")
    # Runs of unit rules get one code per (unit rule, lookahead); see Tables.chain.
    chain_index: dict[tuple[int, str], int] = {}
    for row in raw:
        for sym, (kind, arg) in row.items():
            if kind == "unit" and (arg, sym) not in chain_index:
                chain_index[arg, sym] = len(chain_index)
    # Encoded actions: a shift target (>= 0), else ~code where a code below len(chain_index)
    # is a chain of unit rules and len(chain_index) + i is a reduction by rule i.
    actions = [
        {
            sym: arg
            if kind == "shift"
            else ~chain_index[arg, sym]
            if kind == "unit"
            else ~(len(chain_index) + arg)
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
        "states": n_states,
        "actions": actions,
        # each nonterminal's gotos as flat (state, target) pairs: most states have none
        "gotos": [[x for b, target in enumerate(row) if target >= 0 for x in (b, target)]
                  for row in gotos],
        "chain_keys": sorted(chain_index, key=chain_index.__getitem__),
        "rules": rules,
        "start": table["start_states"]["start"],
        "end": table["end_states"]["start"],
    }


def from_data(data: dict[str, Any]) -> Tables:
    """Tables from compile_tables() output (or its JSON round trip)."""
    if data.get("format") != FORMAT:
        raise ValueError("not a gradcli table file")
    alternatives = "|".join(f"(?P<{name}>{regexp})" for name, regexp in _lexing_order(data))
    ws = data["ws"]
    # The blanks before a token: `[...]+` made optional is `[...]*`, which the regex engine
    # runs as one repeat, where an optional group costs it a repeat context at every token.
    blanks = ws[:-1] + "*" if re.fullmatch(r"\[(?:\\.|[^\]\\])*\]\+", ws) else f"(?:{ws})?"
    gotos = []
    for pairs in data["gotos"]:
        row = [-1] * data["states"]
        for i in range(0, len(pairs), 2):
            row[pairs[i]] = pairs[i + 1]
        gotos.append(row)
    chain_keys = [(nt, sym) for nt, sym in data["chain_keys"]]
    return Tables(
        # ASCII: \d in NUMBER must not take Arabic-Indic or fullwidth digits, as Python's
        # own tokenizer does not (int() would read them)
        # The last group, ``bad`` (a rule's name, never a terminal's), takes a character that
        # no terminal matches, so that a scan of the whole text leaves nothing out.
        master=re.compile(f"{blanks}(?:{alternatives}|(?P<bad>[\\s\\S]))", re.ASCII),
        keywords=dict(data["keywords"]),
        operators=dict(data["operators"]),
        ignored=frozenset(data["ignored"]),
        actions=data["actions"],
        gotos=gotos,
        chains=[{} for _ in chain_keys],
        chain_keys=chain_keys,
        after=[{} for _ in gotos],
        rules=[tuple(r) for r in data["rules"]],
        start=data["start"],
        end=data["end"],
    )


def _lexing_order(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The terminals as the lexer tries them: the order that lexes fastest and picks what
    Lark's order (``data["terminals"]``) picks, the first alternative that matches winning.

    Only names and strings (a string's prefix letters: ``rb'...'``), and numbers and operators
    (``.5``) can start alike, so the frequent ones go first: names (but for a string's prefix
    followed by a quote), numbers, operators, newlines; then the rest in Lark's order, with
    names again after the strings for a prefix whose string does not lex (``f'...`` left
    open): that copy, group ``NAME_``, only ever takes one or two prefix letters."""
    terminals = dict(data["terminals"])
    first = ["NAME", "NUMBER", "OP", "_NEWLINE"]
    prefix = re.match(r"\[\w+\]\{0,2\}", terminals.get("STRING", ""))
    if prefix is None or not set(first) <= set(terminals):
        return data["terminals"]  # another grammar: Lark's order
    order = [("NAME", f"(?!{prefix.group()}['\"])(?:{terminals['NAME']})")]
    order += [(name, terminals[name]) for name in first[1:]]
    order += [("NAME_" if name == "NAME" else name, regexp)
              for name, regexp in data["terminals"] if name not in first[1:]]
    return order


def cache_dir() -> str | None:
    """The per-user cache folder ($GRADCLI_CACHE_DIR, else XDG), or None if unusable."""
    base = os.environ.get("GRADCLI_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "gradcli")
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return base


def load() -> Tables:
    """The tables for the current grammar, from the cache when it has them."""
    text = grammar_text()
    raw = (FORMAT + "\n" + text).encode("utf-8")
    # two 32-bit checksums and the length: the key of one user's cache of one file, not a
    # defence against forgery (hashlib costs more to import than the whole lookup)
    key = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}{len(raw):x}"
    folder = cache_dir()
    path = os.path.join(folder, f"grad-{key}.json") if folder else None
    if path is not None:
        try:
            with open(path, encoding="utf-8") as f:
                return from_data(json.loads(f.read()))
        except (OSError, ValueError, KeyError, TypeError, IndexError, re.error):
            pass  # missing or damaged: rebuild below
    data = compile_tables(text)
    if path is not None:
        import tempfile  # only when writing the cache: it is slow to import

        try:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".grad-", suffix=".tmp")
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
    """Inline the lists that helper rules returned into their parent's children.

    ``children`` is the parser's own fresh list (changed in place), ``indices`` are in
    decreasing order.
    """
    if indices == (0,):
        # Helper lists are left-recursive; growing the first in place keeps `x*` linear.
        out = children[0]
        out += children[1:]
        return out
    for i in indices:  # from the right: the indices still to do stay valid
        children[i:i + 1] = children[i]
    return children
