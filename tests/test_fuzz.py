"""Fuzzing in CI (issue 5): Hypothesis drives the generators of ``tools/fuzz_campaign.py``.

* Grammar-aware programs (statements and expressions of SPEC §2, calls of random built-ins and
  methods with random arguments, awkward numbers) run through ``gradcli.pipeline.run``
  in-process with small limits: the only exception is none (errors are ``GradcliError`` values
  in ``result.error``), every run ends within a timeout, and its bindings render as JSON.
* The same programs, and byte-level mutations (insertions, deletions, bit flips, copies,
  truncation) of ``samples/`` and ``tests/scenarios/``, through ``gradcli.launch.main`` with
  ``--format json``: an exit code of the contract, stdout one JSON document, no traceback.

Hypothesis shrinks a failure to a small program (every decision is one draw). The number of
examples is bounded for CI (the file runs in well under a minute on two cores) and the
examples are derandomized, so that CI is reproducible: set ``GRADCLI_FUZZ_RANDOM=1`` to draw
new ones, ``GRADCLI_FUZZ_EXAMPLES=10`` to run ten times as many, and run
``tools/fuzz_campaign.py`` for long campaigns.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli import pipeline, targets, views
from gradcli.errors import GradcliError, ScriptSyntaxError
from gradcli.render import json as jsonr

ROOT = Path(__file__).resolve().parents[1]
SCALE = float(os.environ.get("GRADCLI_FUZZ_EXAMPLES", "1"))
EXPLORE = bool(os.environ.get("GRADCLI_FUZZ_RANDOM"))
MAX_STEPS = 2_000
MAX_ELEMENTS = 100_000
TIMEOUT = 30.0  # seconds per example: generous on a loaded CI machine, finite


def _load_campaign() -> Any:
    spec = importlib.util.spec_from_file_location("fuzz_campaign",
                                                  ROOT / "tools" / "fuzz_campaign.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_campaign"] = module
    spec.loader.exec_module(module)
    return module


fc = _load_campaign()
SEEDS = fc.seed_scripts()


class HypothesisSource:
    """Generator decisions as Hypothesis draws, so that failures shrink."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]; shrinks towards lo."""
        return self.data.draw(st.integers(lo, hi))


def fuzz_settings(examples: int) -> Any:
    """Bounded, deadline-free, reproducible settings; no example database in the repository."""
    return settings(max_examples=max(1, int(examples * SCALE)), deadline=None, database=None,
                    derandomize=not EXPLORE,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                    print_blob=True)


class Hang(BaseException):
    """The run outlived TIMEOUT (a BaseException: gradcli's handlers cannot swallow it)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Hang in the test if the body takes longer than ``seconds`` (where SIGALRM exists)."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no answer within {seconds:g} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def check_result(text: str, result: Any) -> None:
    """A run's result keeps the contract: a GradcliError with a sane span, JSON that parses."""
    err = result.error
    if err is not None:
        check_error(text, err)
    doc = jsonr.run_doc(views.bindings_view(result), result.prints, result.warnings, err)
    json.loads(jsonr.dumps(doc), parse_constant=_no_bare_constants)
    if result.records is not None:
        out = targets.output(result, None, need=False)  # as the commands choose it
        view = views.graph_view(result, out)
        json.loads(jsonr.dumps(jsonr.graph_doc(view, err)), parse_constant=_no_bare_constants)


def check_error(text: str, err: Any) -> None:
    """A GradcliError of the script, with a sane span."""
    assert isinstance(err, GradcliError)
    assert err.exit_code in (1, 3), err
    assert err.message and err.kind
    if err.span is not None:
        assert 1 <= err.span.line <= text.count("\n") + 2, err.span
        assert err.span.column >= 1, err.span


def _no_bare_constants(token: str) -> None:
    raise AssertionError(f"bare {token} in JSON (SPEC §3.2 wants strings)")


# ---- (a) generated programs, in-process ----------------------------------------------------------
@fuzz_settings(250)
@given(st.data())
def test_generated_programs_run_or_fail_cleanly(data):
    """Random programs of the language: no exception escapes ``pipeline.run``, every run
    terminates, errors are GradcliErrors with a position, the bindings render as JSON."""
    text = fc.ProgramGenerator(HypothesisSource(data)).program()
    wrt = data.draw(st.lists(st.sampled_from(fc.top_level_names(text) or ["w"]), max_size=2))
    with time_limit(TIMEOUT):
        try:
            result = pipeline.run(text, wrt=wrt, max_steps=MAX_STEPS, max_elements=MAX_ELEMENTS,
                                  record=data.draw(st.booleans()))
        except ScriptSyntaxError as err:  # nothing ran: a positioned syntax error
            check_error(text, err)
            assert err.exit_code == 3
            return
        check_result(text, result)


def _outcome(result: Any, line_shift: int) -> tuple:
    """What a run shows, lines counted from the program's own first line: its bindings but
    the loop's counter, prints, warnings and error (without columns, which indenting moves)."""
    err = result.error
    doc = json.loads(jsonr.dumps(jsonr.run_doc(views.bindings_view(result), result.prints,
                                               [], None)))
    doc["bindings"].pop("_once", None)
    warned = [(w.message, w.span.line - line_shift if w.span else None)
              for w in result.warnings]
    failed = None if err is None else (err.kind, err.message, err.hint,
                                       err.span.line - line_shift if err.span else None)
    return doc, warned, failed


@fuzz_settings(200)
@given(st.data())
def test_loop_bodies_run_compiled_as_the_walker_runs_them(data):
    """A generated program at the top level (walked, statement by statement) and as the body
    of a loop that runs once (compiled into closures, script/closures.py): the same bindings,
    prints, warnings and error, on the same line of the program."""
    generator = fc.ProgramGenerator(HypothesisSource(data))
    if data.draw(st.booleans()):
        generator.wild = 0  # no odd choices: programs that run further before any error
    text = generator.program()
    wrapped = "for _once in range(1):\n" + "\n".join(
        "    " + line if line.strip() else line for line in text.split("\n"))
    outcomes = []
    for source, shift in ((text, 0), (wrapped, 1)):
        with time_limit(TIMEOUT):
            try:
                result = pipeline.run(source, max_steps=MAX_STEPS, max_elements=MAX_ELEMENTS)
            except ScriptSyntaxError:  # e.g. a `break` outside a loop, legal once wrapped
                return
        if result.error is not None and getattr(result.error, "limit", False):
            return  # the loop's own statement is a step more
        outcomes.append(_outcome(result, shift))
    assert outcomes[0] == outcomes[1], text


# ---- (b) the command line, on mutated samples and generated programs -----------------------------
def _cli(data: Any, script: bytes) -> Any:
    command = data.draw(st.sampled_from(["run", "graph", "grad", "dot", "tree"]))
    names = fc.top_level_names(script.decode("utf-8", "replace")) or ["w"]
    wrt = data.draw(st.lists(st.sampled_from(names), min_size=command == "grad", max_size=2))
    args = fc.cli_args(command, "-", wrt, MAX_STEPS, MAX_ELEMENTS)
    outcome = fc.run_cli(args, stdin=script, timeout=TIMEOUT)
    assert outcome.exit_code in {0, 1, 2, 3, 4}, (outcome.exit_code, outcome.stderr[-2000:])
    assert not outcome.problems, (outcome.problems, outcome.stderr[-2000:])
    if outcome.exit_code != 2:
        doc = json.loads(outcome.stdout)
        assert doc["gradcli"] == "1"
    return outcome


@pytest.mark.skipif(not SEEDS, reason="no sample scripts to mutate")
@fuzz_settings(200)
@given(st.data())
def test_mutated_samples_through_the_command_line(data):
    """Byte-level mutations of the sample and scenario scripts, fed to ``gradcli.launch.main``
    on standard input: exit code of the contract, JSON on stdout, no traceback."""
    seed = data.draw(st.sampled_from(SEEDS))
    _cli(data, fc.mutate(seed, HypothesisSource(data)))


@fuzz_settings(80)
@given(st.data())
def test_generated_programs_through_the_command_line(data):
    """Generated programs through every command: the renderers see odd values too."""
    _cli(data, fc.ProgramGenerator(HypothesisSource(data)).program().encode())


# ---- the harness itself can fail -----------------------------------------------------------------
def test_the_checks_catch_a_crash(monkeypatch):
    """An internal error in gradcli is a problem the CLI check reports (exit 70)."""
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected")

    monkeypatch.setattr(pipeline, "run", boom)
    outcome = fc.run_cli(fc.cli_args("run", "-", [], 10, 10), stdin=b"x = 1\n")
    assert outcome.exit_code == 70 and "exit code 70" in outcome.problems


def test_the_checks_catch_a_hang(monkeypatch):
    """A run that does not end is a problem the timeout reports."""
    def forever(*args: Any, **kwargs: Any) -> Any:
        while True:
            pass

    monkeypatch.setattr(pipeline, "run", forever)
    outcome = fc.run_cli(fc.cli_args("run", "-", [], 10, 10), stdin=b"x = 1\n", timeout=0.5)
    assert any("did not finish" in p for p in outcome.problems)
    with pytest.raises(Hang), time_limit(0.2):
        forever()


def test_the_checks_catch_bad_json():
    """Output that is not the JSON document, or a traceback, is a problem."""
    assert fc.contract_problems(0, "not json", "") != []
    assert fc.contract_problems(1, '{"gradcli": "1", "error": null}', "") != []
    assert fc.contract_problems(1, '{"gradcli": "1", "error": {}}',
                                "Traceback (most recent call last):\n") != []
    assert fc.contract_problems(0, '{"gradcli": "1", "error": null}', "") == []


def test_generators_are_deterministic_and_varied():
    """A seeded campaign script is always the same text; different seeds differ."""
    texts = [fc.make_case(7, i).text for i in range(40)]
    assert texts == [fc.make_case(7, i).text for i in range(40)]
    assert len(set(texts)) == 40
    assert any(fc.make_case(7, i).origin == "mutation" for i in range(40))
