"""The command line as Typer declares it: commands, options, help, completion, usage errors.

Exit codes (SPEC §3): 0 success, 1 the script failed, 2 usage, 3 syntax, 4 ``check`` mismatch,
70 internal error, 130 Ctrl-C.  Results go to stdout, diagnostics and warnings to stderr.

Startup matters (``gradcli grad`` is run in loops): ``launch.main`` reads a plain command line
itself (``options.read``) and comes here only for the rest, so Typer is not imported for a
common command.  Typer 0.29 coerces every option through a Pydantic ``TypeAdapter`` (about
200 ms to import and build), so ``run_typer`` gives each parameter of the built command a small
coercer for the few types used here (``_fast_coercion``); Rich help is off
(``rich_markup_mode=None``), which keeps Rich's Markdown renderer out of ``--help`` and of usage
errors.  Every option declared here is in ``options.COMMANDS`` too (tests/test_options.py).
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

import typer

from . import __version__
from .limits import MAX_ELEMENTS, MAX_EVALS, MAX_SCRIPT_BYTES, MAX_STEPS
from .options import BackendName, DType, Format, Mode, Options

EPILOG = """\b
Examples:
  gradcli grad samples/chain_rule.grad --wrt w1          # dL/dw1 = -8.0
  gradcli run samples/chain_rule.grad --wrt w1 --format plain
  gradcli graph samples/chain_rule.grad --wrt w1 --tree
  gradcli dot samples/chain_rule.grad --wrt w1 --backward --show-saved -o g.svg
  gradcli check samples/chain_rule.grad --wrt w1 --wrt w2
  echo 'w = 3; y = w * w' | gradcli grad - --wrt w      # dy/dw = 6.0
  gradcli grad -e 'w = 2; L = w ** 3' --wrt w --set w=1 --format json

\b
Exit codes: 0 ok, 1 the script failed, 2 usage error, 3 syntax error, 4 check mismatch,
70 internal error, 130 interrupted.
"""

app = typer.Typer(
    name="gradcli", help="Run tiny Python-flavoured scripts and see PyTorch's autograd graph.",
    epilog=EPILOG, rich_markup_mode=None, pretty_exceptions_enable=False, add_completion=True,
    no_args_is_help=True, context_settings={"help_option_names": ["-h", "--help"]})

# -- shared options, declared once ----------------------------------------------------------------
Script = Annotated[str | None, typer.Argument(
    metavar="SCRIPT", show_default=False, help="The .grad script, or - to read standard input.")]
Eval = Annotated[str | None, typer.Option(
    "-e", "--eval", metavar="TEXT", help="Give the script inline instead of SCRIPT.")]
Wrt = Annotated[list[str] | None, typer.Option(
    "--wrt", metavar="NAME", show_default=False,
    help="A tensor to differentiate with respect to (repeatable): w (made to require grad "
    "where the script binds it), model.0.weight, net.layers[2].weight, "
    "opt.param_groups[0], or a module (all its parameters).")]
Of = Annotated[str | None, typer.Option(
    "--of", metavar="NAME", help="The output tensor [default: the tensor the script last "
    "called backward() on, else the last scalar that requires grad].")]
BackendOpt = Annotated[BackendName, typer.Option(
    "--backend", envvar="GRADCLI_BACKEND", case_sensitive=False, help="Array backend.")]
DTypeOpt = Annotated[DType | None, typer.Option(
    "--dtype", case_sensitive=False, show_default=False,
    help="Default floating dtype [default: float64 for a grad script, float32 for a PyTorch "
         "program].")]
Seed = Annotated[int, typer.Option("--seed", metavar="N", help="Seed for rand()/randn().")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", metavar="NAME=VALUE", show_default=False,
    help="Replace the literal assigned to NAME (a number or a JSON list); repeatable.")]
FormatOpt = Annotated[Format | None, typer.Option(
    "--format", case_sensitive=False, show_default=False,
    help="Output format [default: rich on a terminal, plain otherwise].")]
ModeOpt = Annotated[Mode, typer.Option(
    "--mode", case_sensitive=False,
    help="reverse: backpropagation; forward: a tangent carried forward from each element of "
         "each --wrt (one re-run each), the same derivative.")]
JacobianOpt = Annotated[bool, typer.Option(
    "--jacobian", help="d(output)/dW for an output of any shape, shaped (*output.shape, "
    "*W.shape) as torch.autograd.functional.jacobian gives it.")]
HessianOpt = Annotated[bool, typer.Option(
    "--hessian", help="d²(output)/dW² for a scalar output, shaped (*W.shape, *W.shape) as "
    "torch.autograd.functional.hessian gives it.")]
ViewModeOpt = Annotated[Mode, typer.Option(
    "--mode", case_sensitive=False,
    help="forward: run with the --wrt's tangent seeded with ones (forward-mode AD) and show "
         "each node's tangent beside its value.")]
ExplainModeOpt = Annotated[Mode, typer.Option(
    "--mode", case_sensitive=False,
    help="forward: the derivative as the tangent carried forward node by node from --wrt "
         "(one re-run per element), and the paths seen from the input side.")]
Quiet = Annotated[bool, typer.Option("-q", "--quiet", help="No warnings or notes on stderr; "
                                     "`run` prints only the script's print() output.")]
MaxSteps = Annotated[int, typer.Option("--max-steps", metavar="N",
                                       help="Stop after N executed statements.")]
MaxElements = Annotated[int, typer.Option("--max-elements", metavar="N",
                                          help="Largest number of elements of one tensor.")]
MaxScriptBytes = Annotated[int, typer.Option("--max-script-bytes", metavar="N",
                                             help="Refuse a script larger than N bytes.")]
MaxEvals = Annotated[int, typer.Option(
    "--max-evals", metavar="N", help="Evaluate the function at most N times for finite "
    "differences (two per checked element; larger tensors are checked at evenly spread "
    "elements).")]
Debug = Annotated[bool, typer.Option("--debug", help="Show the traceback of internal errors.")]
Tree = Annotated[bool, typer.Option("--tree", help="Show the backward (grad_fn) graph as a tree.")]
Backward = Annotated[bool, typer.Option("--backward", help="Draw the grad_fn graph (torchviz).")]
ShowValues = Annotated[bool, typer.Option("--show-values", help="Put tensor values in the boxes.")]
ShowGrads = Annotated[bool, typer.Option("--show-grads", help="Put .grad values in the boxes.")]
ShowSaved = Annotated[bool, typer.Option("--show-saved", help="Draw saved tensors (orange).")]
Rerun = Annotated[bool, typer.Option(
    "--rerun", help="Check the whole script instead of the output's recorded graph: re-run it "
    "in float64 with each checked element of a top-level --wrt binding moved.")]
Top = Annotated[int, typer.Option("--top", metavar="K",
                                  help="List the K paths with the largest contributions.")]
Output = Annotated[str | None, typer.Option(
    "-o", "--output", metavar="FILE",
    help="Write FILE: .dot/.gv as DOT, .svg/.png/.pdf rendered by Graphviz's dot.")]
Lines = Annotated[str | None, typer.Option(
    "--lines", metavar="A-B", help="Keep only the nodes created on these script lines "
    "(11-12, 7 or 3-4,9).")]
Rolled = Annotated[bool, typer.Option(
    "--rolled", help="Fold the nodes a line creates in successive loop iterations into one "
    "node with the count.")]
HtmlOutput = Annotated[str | None, typer.Option(
    "-o", "--output", metavar="FILE.html", help="The page to write (or a redirected stdout).")]



def _version(value: bool) -> None:
    if value:
        typer.echo(f"gradcli {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Show the version and exit.")] = False,
          ) -> None:
    """Run tiny Python-flavoured scripts (.grad) and see PyTorch's autograd graph."""


@app.command(short_help="Execute a script; print() output, then the final bindings.",
             epilog="\b\nExample:\n  gradcli run samples/chain_rule.grad --wrt w1")
def run(script: Script = None, eval_text: Eval = None, wrt: Wrt = None,
        backend: BackendOpt = BackendName.numpy, dtype: DTypeOpt = None, seed: Seed = 0,
        set_: SetOpt = None, fmt: FormatOpt = None, quiet: Quiet = False,
        max_steps: MaxSteps = MAX_STEPS, max_elements: MaxElements = MAX_ELEMENTS,
        max_script_bytes: MaxScriptBytes = MAX_SCRIPT_BYTES,
        debug: Debug = False) -> None:
    """Execute a script: its print() output as it happens, then a table of final bindings."""
    _execute("run", Options(**locals()))


@app.command(short_help="dL/dW for each --wrt W; --jacobian, --hessian.",
             epilog="\b\nExamples:\n  gradcli grad samples/chain_rule.grad --wrt w1   # dL/dw1 = -8.0"
             "\n  gradcli grad -e 'w = [1.0, 2.0]; y = w * w' --wrt w --of y --jacobian"
             "\n  gradcli grad samples/chain_rule.grad --wrt w1 --hessian")
def grad(script: Script = None, eval_text: Eval = None, wrt: Wrt = None, of: Of = None,
         mode: ModeOpt = Mode.reverse, jacobian: JacobianOpt = False,
         hessian: HessianOpt = False,
         backend: BackendOpt = BackendName.numpy, dtype: DTypeOpt = None,
         seed: Seed = 0, set_: SetOpt = None, fmt: FormatOpt = None, quiet: Quiet = False,
         max_steps: MaxSteps = MAX_STEPS, max_elements: MaxElements = MAX_ELEMENTS,
        max_script_bytes: MaxScriptBytes = MAX_SCRIPT_BYTES,
         debug: Debug = False) -> None:
    """Print d(output)/dW for each --wrt W (torch.autograd.grad; nothing accumulates);
    --jacobian: for an output of any shape; --hessian: the second derivative d²(output)/dW²."""
    _execute("grad", Options(**locals()))


@app.command(short_help="Every recorded node; --tree: the grad_fn graph.",
             epilog="\b\nExamples:\n  gradcli graph samples/chain_rule.grad --wrt w1\n"
             "  gradcli graph samples/chain_rule.grad --wrt w1 --tree")
def graph(script: Script = None, eval_text: Eval = None, wrt: Wrt = None, of: Of = None,
          tree: Tree = False, lines: Lines = None, rolled: Rolled = False,
          mode: ViewModeOpt = Mode.reverse,
          backend: BackendOpt = BackendName.numpy,
          dtype: DTypeOpt = None, seed: Seed = 0, set_: SetOpt = None,
          fmt: FormatOpt = None, quiet: Quiet = False, max_steps: MaxSteps = MAX_STEPS,
          max_elements: MaxElements = MAX_ELEMENTS,
        max_script_bytes: MaxScriptBytes = MAX_SCRIPT_BYTES, debug: Debug = False) -> None:
    """List every recorded node: name, op, grad_fn, inputs, shape, flags, value, grad, saved."""
    _execute("graph", Options(**locals()))


@app.command(short_help="Graphviz DOT of the forward or the backward graph.",
             epilog="\b\nExamples:\n  gradcli dot samples/chain_rule.grad --wrt w1 | dot -Tsvg > g.svg"
             "\n  gradcli dot samples/chain_rule.grad --wrt w1 --backward --show-saved -o g.png")
def dot(script: Script = None, eval_text: Eval = None, wrt: Wrt = None, of: Of = None,
        backward: Backward = False, show_values: ShowValues = False,
        show_grads: ShowGrads = False, show_saved: ShowSaved = False, output: Output = None,
        lines: Lines = None, rolled: Rolled = False, mode: ViewModeOpt = Mode.reverse,
        backend: BackendOpt = BackendName.numpy, dtype: DTypeOpt = None, seed: Seed = 0,
        set_: SetOpt = None, fmt: FormatOpt = None, quiet: Quiet = False,
        max_steps: MaxSteps = MAX_STEPS, max_elements: MaxElements = MAX_ELEMENTS,
        max_script_bytes: MaxScriptBytes = MAX_SCRIPT_BYTES,
        debug: Debug = False) -> None:
    """Write the graph as Graphviz DOT (forward by default; --backward: the grad_fn graph)."""
    _execute("dot", Options(**locals()))


@app.command(short_help="An interactive graph viewer in one HTML file.",
             epilog="\b\nExamples:\n  gradcli html samples/chain_rule.grad --wrt w1 -o chain.html"
             "\n  gradcli html samples/gradient_descent.grad --rolled -o gd.html")
def html(script: Script = None, eval_text: Eval = None, wrt: Wrt = None, of: Of = None,
         lines: Lines = None, backward: Backward = False, rolled: Rolled = False,
         mode: ViewModeOpt = Mode.reverse,
         output: HtmlOutput = None, backend: BackendOpt = BackendName.numpy,
         dtype: DTypeOpt = None, seed: Seed = 0, set_: SetOpt = None,
         fmt: FormatOpt = None, quiet: Quiet = False, max_steps: MaxSteps = MAX_STEPS,
         max_elements: MaxElements = MAX_ELEMENTS, debug: Debug = False) -> None:
    """Write the graph as a self-contained HTML page: click, hover, search, zoom, step."""
    _execute("html", Options(**locals()))


@app.command(short_help="Autograd against central finite differences.",
             epilog="\b\nExample:\n  gradcli check samples/chain_rule.grad --wrt w1 --wrt w2")
def check(script: Script = None, eval_text: Eval = None, wrt: Wrt = None, of: Of = None,
          backend: BackendOpt = BackendName.numpy, dtype: DTypeOpt = None,
          seed: Seed = 0, set_: SetOpt = None, fmt: FormatOpt = None, quiet: Quiet = False,
          max_steps: MaxSteps = MAX_STEPS, max_elements: MaxElements = MAX_ELEMENTS,
          max_evals: MaxEvals = MAX_EVALS, rerun: Rerun = False,
          max_script_bytes: MaxScriptBytes = MAX_SCRIPT_BYTES,
          debug: Debug = False) -> None:
    """Compare autograd with central finite differences in float64 (exit 4 on a mismatch):
    the output's recorded graph, replayed from the values its tensors had when they were used
    (as torch.autograd.gradcheck checks a function); --rerun: the whole script."""
    _execute("check", Options(**locals()))


@app.command(short_help="dL/dW as a sum over the graph's chain-rule paths.",
             epilog="\b\nExample:\n  gradcli explain samples/chain_rule.grad --wrt w1"
             "   # -2 + -6 = -8")
def explain(script: Script = None, eval_text: Eval = None, wrt: Wrt = None, of: Of = None,
            top: Top = 10, mode: ExplainModeOpt = Mode.reverse,
            backend: BackendOpt = BackendName.numpy,
            dtype: DTypeOpt = None, seed: Seed = 0, set_: SetOpt = None,
            fmt: FormatOpt = None, quiet: Quiet = False, max_steps: MaxSteps = MAX_STEPS,
            max_elements: MaxElements = MAX_ELEMENTS, debug: Debug = False) -> None:
    """Decompose d(output)/dW by the chain rule: every path back to W, its factors and
    contribution; the K largest are listed, and a zero gradient comes with its reason."""
    _execute("explain", Options(**locals()))


@app.command(short_help="What the run did, event by event, with root causes.",
             epilog="\b\nExample:\n  gradcli trace samples/retain_graph.grad")
def trace(script: Script = None, eval_text: Eval = None, wrt: Wrt = None,
          backend: BackendOpt = BackendName.numpy, dtype: DTypeOpt = None,
          seed: Seed = 0, set_: SetOpt = None, fmt: FormatOpt = None, quiet: Quiet = False,
          max_steps: MaxSteps = MAX_STEPS, max_elements: MaxElements = MAX_ELEMENTS,
          debug: Debug = False) -> None:
    """List, in order, each op recorded, saved tensor stored and freed, backward call, gradient
    on every edge, .grad accumulation, hook and version bump; an error with its root cause."""
    _execute("trace", Options(**locals()))


@app.command(short_help="Time, graph nodes and saved bytes per script line.",
             epilog="\b\nExample:\n  gradcli profile samples/growing_graph.grad")
def profile(script: Script = None, eval_text: Eval = None, wrt: Wrt = None,
            backend: BackendOpt = BackendName.numpy, dtype: DTypeOpt = None,
            seed: Seed = 0, set_: SetOpt = None, fmt: FormatOpt = None, quiet: Quiet = False,
            max_steps: MaxSteps = MAX_STEPS, max_elements: MaxElements = MAX_ELEMENTS,
            debug: Debug = False) -> None:
    """Per script line: wall time, graph nodes created, saved bytes still held at the end,
    backward time; and the share of the run spent recording the graph."""
    _execute("profile", Options(**locals()))


ExportOutput = Annotated[str | None, typer.Option(
    "-o", "--output", metavar="FILE.py", help="Write the program to FILE [default: stdout].")]


@app.command(short_help="The script as a standalone PyTorch program.",
             epilog="\b\nExamples:\n  gradcli export samples/chain_rule.grad -o chain_rule.py"
             "\n  gradcli export samples/rnn_cell.grad | python")
def export(script: Script = None, eval_text: Eval = None, wrt: Wrt = None,
           dtype: DTypeOpt = None, seed: Seed = 0, output: ExportOutput = None,
           quiet: Quiet = False, max_script_bytes: MaxScriptBytes = MAX_SCRIPT_BYTES,
           debug: Debug = False) -> None:
    """Write the equivalent PyTorch program (imports torch, not gradcli): run by Python, it
    prints what `gradcli run` prints for the script's print() calls. A PyTorch program (.py)
    is written unchanged."""
    _execute("export", Options(**locals()))


@app.command(short_help="The machine whose PyTorch gradcli reproduces here (for bug reports).")
def doctor(fmt: FormatOpt = None) -> None:
    """What gradcli emulates on this machine and why: the CPU capability PyTorch's dispatcher
    would pick (ATEN_CPU_CAPABILITY or the CPU's flags), the thread count
    (torch.get_num_threads()), MKL's version and code path, with a digest of MKL's results on a
    fixed probe: two machines that print the same facts get the same last bits."""
    _execute("doctor", Options(fmt=fmt))


def _execute(command: str, opts: Options) -> None:
    """Run one command through the session and leave with its exit code."""
    from .commands import Command

    code = Command(command, opts).guarded()
    if code:
        raise typer.Exit(code)


# -- startup: coercion without Pydantic -----------------------------------------------------------
class _Coercer:
    """Turns the raw strings Click collected into the annotation's type (str, int, bool, Enum)."""

    def __init__(self, annotation: Any, multiple: bool) -> None:
        self.annotation = annotation
        self.multiple = multiple

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """Typer's RuntimeParam.coerce contract."""
        if value is None:
            return () if self.multiple else None
        if self.multiple:
            return [self._one(v, param, ctx) for v in value]
        return self._one(value, param, ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        kind = self.annotation
        if kind is str or isinstance(value, kind):
            return value
        if kind is int:
            try:
                return int(value)
            except ValueError:
                raise typer.BadParameter(f"{value!r} is not a valid integer.", ctx=ctx,
                                         param=param) from None
        if kind is bool:
            return str(value).lower() in ("1", "true", "yes", "on", "y", "t")
        for member in kind:
            if member.value == str(value).lower():
                return member
        choices = ", ".join(repr(m.value) for m in kind)
        raise typer.BadParameter(f"{value!r} is not one of {choices}.", ctx=ctx, param=param)


def _fast_coercion(command: Any) -> None:
    """Pre-set each parameter's coercer so Typer never builds Pydantic adapters (startup time).

    Only annotations this module uses are handled; anything else keeps Typer's own path, and a
    Typer without ``_runtime_param`` simply runs slower.
    """
    for sub in [command, *getattr(command, "commands", {}).values()]:
        for p in sub.params:
            _preset(p)
        if hasattr(sub, "get_help_option"):  # -h/--help is made per command, on first use
            sub.get_help_option = _with_preset(sub.get_help_option)


def _preset(p: Any) -> Any:
    desc = getattr(p, "type_descriptor", None)
    if desc is None or getattr(p, "_runtime_param", False) is not None:
        return p
    ann = desc.annotation
    multiple = getattr(ann, "__origin__", None) is list
    if multiple:
        ann = ann.__args__[0]
    if ann in (str, int, bool) or (isinstance(ann, type) and issubclass(ann, Enum)):
        p._runtime_param = _Coercer(ann, multiple)
    return p


def _with_preset(get_help_option: Any) -> Any:
    def wrapped(ctx: Any) -> Any:
        option = get_help_option(ctx)
        return option if option is None else _preset(option)

    return wrapped


def run_typer(argv: list[str]) -> None:
    """Read ``argv`` with the Typer app and run the command (help, completion and usage
    errors included); leaves by SystemExit like any Click program."""
    command = typer.main.get_command(app)
    _fast_coercion(command)
    command.main(args=argv, prog_name="gradcli")
