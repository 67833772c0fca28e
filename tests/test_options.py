"""The command line read without Typer (``options.read``) is the command line Typer reads.

``read`` either returns exactly the ``Options`` that ``cli.py``'s Typer command builds for the
same argv (and environment), or None, and Typer reads it: never a different answer, never an
accepted command line that Typer refuses. Compared on hand-picked cases and on random argvs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcli import cli, options

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")


@pytest.fixture(scope="module")
def typer_command():
    command = typer.main.get_command(cli.app)
    cli._fast_coercion(command)
    return command


def typer_read(command, argv: list[str], monkeypatch) -> tuple[str, options.Options] | None:
    """What the Typer command hands to a command for ``argv``, or None if it refuses it."""
    got: list = []
    monkeypatch.setattr(cli, "_execute", lambda name, opts: got.append((name, opts)))
    try:
        command.main(args=list(argv), prog_name="gradcli", standalone_mode=False)
    except (typer.Exit, SystemExit, Exception):  # noqa: BLE001 - any refusal or exit
        return None
    return got[0] if got else None


def test_every_typer_option_is_in_the_table(typer_command):
    """Same commands, same option strings, same fields and kinds as cli.py declares."""
    assert set(typer_command.commands) == set(options.COMMANDS)
    for name, sub in typer_command.commands.items():
        declared = {}
        for p in sub.params:
            if p.param_type_name != "option":
                assert p.name == "script"
                continue
            for opt in [*p.opts, *p.secondary_opts]:
                declared[opt] = p
        assert set(declared) == set(options.COMMANDS[name]), name
        for opt, p in declared.items():
            field, kind = options.OPTIONS[opt]
            assert p.name == field, opt
            ann = p.type_descriptor.annotation
            if kind == "flag":
                assert p.is_flag, opt
            elif kind == "many":
                assert p.multiple, opt
            else:
                assert not p.is_flag and not p.multiple, opt
                want = {"text": str, "int": int}.get(kind, kind)
                assert getattr(ann, "__args__", (ann,))[0] is want, opt
            assert p.envvar == (options.BACKEND_ENV if field == "backend" else None), opt


CASES = [
    ["run", "x.grad"],
    ["run", "-"],
    ["grad", "x.grad", "--wrt", "w1", "--wrt", "w2", "--of", "L"],
    ["grad", "--wrt=w", "-e", "w = 2", "--format", "JSON", "--seed", "+7"],
    ["graph", "x.grad", "--tree", "--lines", "3-4", "--backend", "NumPy", "--dtype", "float32"],
    ["dot", "x.grad", "--backward", "--show-saved", "-o", "g.svg", "--rolled", "-q"],
    ["dot", "x.grad", "--output=g.dot", "--show-values", "--show-grads"],
    ["html", "x.grad", "-o", "p.html", "--backward", "--lines", "1"],
    ["check", "x.grad", "--wrt", "w", "--max-evals", "10", "--max-steps", "5", "--debug"],
    ["explain", "x.grad", "--top", "3", "--max-elements", "9"],
    ["trace", "x.grad", "--set", "w=1", "--set", "v=[1, 2]", "--quiet"],
    ["profile", "x.grad", "--seed", "1", "--seed", "2"],
    ["run", "x.grad", "--max-script-bytes", "100", "--format", "plain"],
    ["grad", "--of", "-", "x.grad", "--wrt", ""],
    ["export", "x.grad", "-o", "x.py", "--wrt", "w", "--dtype", "float32", "--seed", "3", "-q"],
]

FALLBACK = [
    [], ["--help"], ["-h"], ["run", "--help"], ["run", "x.grad", "-h"], ["nosuch"],
    ["--version", "run"], ["--debug", "run", "x.grad"], ["run", "a", "b"], ["run", "--", "x"],
    ["run", "x", "--of", "L"], ["html", "x", "--max-script-bytes", "9"], ["run", "x", "--seed"],
    ["run", "x", "--seed", "x"], ["run", "x", "--seed", "-1"], ["run", "x", "--seed", "1_0"],
    ["run", "x", "--backend", "tpu"], ["run", "x", "--quiet=1"], ["run", "x", "-qe", "w"],
    ["run", "-ew = 1"], ["run", "x", "--bogus"], ["run", "x", "--wr", "w"],
    ["run", "x", "--format", "jsön"], ["run", "x", "--show-completion"],
    ["export", "x", "--format", "json"], ["export", "x", "--backend", "numpy"],
]


@pytest.mark.parametrize("argv", CASES)
def test_read_matches_typer(typer_command, argv, monkeypatch):
    monkeypatch.delenv(options.BACKEND_ENV, raising=False)
    got = options.read(argv, {})
    assert got is not None
    assert got == typer_read(typer_command, argv, monkeypatch)


@pytest.mark.parametrize("argv", FALLBACK)
def test_what_read_leaves_to_typer(argv):
    assert options.read(argv, {}) is None


def test_version_and_completion():
    assert options.read(["--version"], {}) is None  # launch.main answers it, else Typer
    assert options.read(["run", "x"], {"_GRADCLI_COMPLETE": "bash_complete"}) is None


@pytest.mark.parametrize("env, backend", [("cupy", "cupy"), ("NUMPY", "numpy"), ("", "numpy")])
def test_backend_from_the_environment(typer_command, env, backend, monkeypatch):
    monkeypatch.setenv(options.BACKEND_ENV, env)
    got = options.read(["run", "x"], {options.BACKEND_ENV: env})
    assert got is not None and got[1].backend.value == backend
    assert got == typer_read(typer_command, ["run", "x"], monkeypatch)
    # the command line wins over the environment
    got = options.read(["run", "x", "--backend", "numpy"], {options.BACKEND_ENV: "cupy"})
    assert got[1].backend.value == "numpy"


def test_a_bad_backend_in_the_environment_is_left_to_typer():
    assert options.read(["run", "x"], {options.BACKEND_ENV: "tpu"}) is None


TOKENS = sorted(options.OPTIONS) + [
    "--bogus", "-h", "--help", "--", "-qe", "-x", "-", "x.grad", "y.grad", "w", "L", "",
    "numpy", "CuPy", "float32", "FLOAT64", "json", "Plain", "rich", "tpu", "5", "+3", "-1",
    "0", "1_0", " 4", "٣", "a=1", "--wrt=w", "--seed=7", "--seed=x", "--format=JSON",
    "--quiet=1", "--tree=", "--of=", "-o=x", "--max-evals=3", "--backend=cupy",
]


@settings(max_examples=400, deadline=None)
@given(command=st.sampled_from(sorted(options.COMMANDS)),
       rest=st.lists(st.sampled_from(TOKENS), max_size=8))
def test_random_argv_never_read_differently(typer_command, command, rest):
    argv = [command, *rest]
    got = options.read(argv, {})
    if got is None:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(options.BACKEND_ENV, raising=False)
        assert got == typer_read(typer_command, argv, mp), argv


def test_the_common_commands_do_not_import_typer():
    """`--version` and plain command lines never load Typer, nor Rich when the output is not
    Rich's (stdout is not a terminal here)."""
    chain = str(ROOT / "samples" / "chain_rule.grad")
    for args in (["--version"], ["grad", chain, "--wrt", "w1"], ["run", chain],
                 ["run", chain, "--format", "plain"], ["graph", chain, "--tree"],
                 ["check", chain, "--wrt", "w1", "--format", "json"]):
        r = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", *args],
                           check=True, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
        loaded = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()}
        assert "gradcli.launch" in loaded  # the measurement sees gradcli's imports
        assert not {m for m in loaded if m.split(".")[0] in ("typer", "rich", "click")}, args
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradcli", "--help"],
                       check=True, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    assert " typer\n" in r.stderr  # help is Typer's
