"""``trace`` (events in order, root causes), ``profile`` (cost per line) and the root causes
in ordinary diagnostics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli import cli, pipeline
from gradcli.analysis.profile import Profiler
from gradcli.analysis.trace import Tracer

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
RETAIN = str(ROOT / "samples" / "retain_graph.grad")
VERSION = """w = param([1.0, 2.0])
y = w * 3
z = y * y
y -= 10
z.sum().backward()
"""


def _trace(src: str, wrt: tuple = ()) -> tuple:
    tracer = Tracer()
    result = pipeline.run(src, wrt=wrt, record=True, tracer=tracer)
    return tracer.finish(result), result


def test_trace_lists_ops_saves_backward_edges_frees_and_accumulation_in_order():
    tr, _ = _trace((ROOT / "samples" / "exercise.grad").read_text())
    kinds = [e.kind for e in tr.events]
    assert kinds[:2] == ["op", "save"]
    assert kinds.index("backward") < kinds.index("edge") < kinds.index("accumulate")
    acc = {e.node: e for e in tr.events if e.kind == "accumulate"}
    assert float(acc["x"].fields["after"]) == -12.0 and acc["x"].fields["before"] is None
    assert acc["p"].fields["retained"] and float(acc["p"].fields["after"]) == 3.0
    frees = [e for e in tr.events if e.kind == "free"]
    assert {e.grad_fn for e in frees} == {"MulBackward0", "PowBackward0"}
    assert all(e.phase == "backward" for e in tr.events if e.kind in ("edge", "free"))
    assert [e.seq for e in tr.events] == list(range(len(tr.events)))


def test_accumulate_shows_grad_before_and_after():
    src = "w = param(2.0)\nfor i in range(2):\n    L = w * 3\n    L.backward()\n"
    tr, _ = _trace(src)
    acc = [e for e in tr.events if e.kind == "accumulate"]
    assert [(None if a.fields["before"] is None else float(a.fields["before"]),
             float(a.fields["after"])) for a in acc] == [(None, 3.0), (3.0, 6.0)]


def test_an_edge_into_a_leaf_names_its_state_as_the_accumulation_does():
    src = ("w = param(1.0)\nfor i in range(2):\n    L = w * 3\n    L.backward()\n"
           "    with no_grad():\n        w -= 0.1 * w.grad\n")
    events = _trace(src)[0].events
    into = [e.fields["to"] for e in events
            if e.kind == "edge" and e.fields["to_grad_fn"] == "AccumulateGrad"]
    assert into == [e.node for e in events if e.kind == "accumulate"] == ["w#1", "w#2"]


def test_labels_stay_short_for_a_tensor_updated_in_place_again_and_again():
    """Each state's label nests its input's: past a few levels it says the record id instead
    (300 zero_() calls on w.grad made a 1,800-character label, 300 of them)."""
    from gradcli.render.analysis_plain import event_text

    src = "w = param(1.0)\nL = w * 2\nL.backward()\nfor i in range(300):\n    w.grad.zero_()\n"
    tr, _ = _trace(src)
    texts = [event_text(tr, e) for e in tr.events]
    assert len(texts) > 600 and max(map(len, texts)) < 100
    assert texts[-1].endswith("version 299 -> 300 (in-place update)")
    assert "(#" in texts[-1] and texts[-1].count("zero_(") < 8


def test_retain_error_names_the_backward_that_freed():
    tr, result = _trace((ROOT / "samples" / "retain_graph.grad").read_text())
    err = tr.events[-1]
    assert err.kind == "error" and err.line == 11
    assert tr.root_cause.startswith("the backward on line 9 (d.backward()) freed")
    assert "line 9" in result.error.hint


def test_version_error_names_the_inplace_line_and_the_saving_op():
    tr, result = _trace(VERSION)
    bumps = [e for e in tr.events if e.kind == "version"]
    assert len(bumps) == 1 and bumps[0].line == 4 and bumps[0].fields["version"] == 1
    assert "line 4 (y -= 10)" in tr.root_cause and "MulBackward0" in tr.root_cause
    assert result.error.hint.startswith("MulBackward0 saved this tensor for backward, and "
                                        "line 4 (y -= 10) changed it in place")


def test_trace_json_document():
    r = runner.invoke(cli.app, ["trace", RETAIN, "--format", "json"])
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert list(doc) == ["gradcli", "events", "root_cause", "error"]
    first = doc["events"][0]
    assert first == {"seq": 0, "phase": "forward", "kind": "op", "line": 5, "node": "b",
                     "grad_fn": "PowBackward0", "op": "pow", "id": 1, "inputs": [0],
                     "inplace": False}
    # one event per line, each a JSON object of its own (grep, jq -c)
    lines = [ln.strip().rstrip(",") for ln in r.stdout.splitlines() if '"seq": ' in ln]
    assert [json.loads(ln) for ln in lines] == doc["events"]
    kinds = {e["kind"] for e in doc["events"]}
    assert kinds == {"op", "save", "backward", "edge", "free", "accumulate", "error"}
    edge = next(e for e in doc["events"] if e["kind"] == "edge")
    assert edge["grad"] == [[0.25, 0.25, 0.25, 0.25]] and edge["to"] == "c"
    assert doc["error"]["hint"].startswith("call d.backward(retain_graph=True) on line 9")


def test_events_name_their_graph_records_and_words_come_on_request():
    """node_id/to_id tie events to graph records (the html stepper); text only when asked."""
    from gradcli.render import analysis_json

    tracer = Tracer()
    result = pipeline.run((ROOT / "samples" / "retain_graph.grad").read_text(), record=True,
                          tracer=tracer)
    rid = {name: next(i for i, r in enumerate(result.records) if r.tensor is t)
           for name, t in result.bindings.items()}
    tr = tracer.finish(result)
    events = analysis_json.trace_doc(tr, "float64", None, text=True)["events"]
    edge = next(e for e in events if e["kind"] == "edge")
    assert (edge["node_id"], edge["to_id"]) == (rid["d"], rid["c"])
    assert edge["text"] == ("MeanBackward0 -> MulBackward0 (d -> c): grad [[0.2500, 0.2500, "
                            "0.2500, 0.2500]]")
    save = next(e for e in events if e["kind"] == "save")
    assert save["node_id"] == rid["b"] and save["text"] == "PowBackward0 saves self = a [1, 4]"
    assert all("text" not in e for e in analysis_json.trace_doc(tr, "float64", None)["events"])


def test_trace_plain_and_rich():
    r = runner.invoke(cli.app, ["trace", RETAIN, "--format", "plain"])
    assert "   6  backward  backward    line 9    backward() from d (retain_graph=False)" \
        in r.stdout
    assert "root cause: the backward on line 9" in r.stdout
    r = runner.invoke(cli.app, ["trace", RETAIN, "--format", "rich"])
    assert "line 9  d.backward()" in r.stdout


def test_trace_off_records_nothing():
    """Without a tracer the engine keeps no event list (RunContext.tracer stays None)."""
    result = pipeline.run("w = param(2.0)\nL = w * w\nL.backward()\n")
    assert result.error is None


def test_recorded_runs_take_the_fast_path_unless_a_profiler_times_nodes(monkeypatch):
    """graph, explain and trace record through apply's fast paths; profile times each node."""
    from gradcli.engine import record

    general = []
    real = record._result_dtype

    def spy(*args):
        general.append(args[0].name)
        return real(*args)

    monkeypatch.setattr(record, "_result_dtype", spy)
    src = "w = param(0.5)\ny = tanh(w * w)\n"
    result = pipeline.run(src, record=True, tracer=Tracer())
    assert general == [] and [r.op for r in result.records if r.op] == ["mul", "tanh"]
    assert result.records[-1].node is result.bindings["y"].grad_fn
    pipeline.run(src, tracer=Profiler())
    assert general == ["mul", "tanh"]


# -- profile -------------------------------------------------------------------------------------
def test_profile_counts_nodes_and_saved_bytes_per_line():
    prof_ = Profiler()
    src = (ROOT / "samples" / "growing_graph.grad").read_text()
    result = pipeline.run(src, tracer=prof_)
    prof = prof_.finish(result)
    by_line = {c.line: c for c in prof.lines}
    assert by_line[9].nodes == 10 and by_line[9].hits == 5  # r = A @ u - b: mv and sub, 5 times
    assert by_line[10].nodes == 10
    # only the last iteration's graph is still alive: mv saved A (32 B) and u (16 B), pow r
    assert by_line[9].saved_bytes == 48 and by_line[10].saved_bytes == 16
    assert by_line[14].backward_seconds > 0 and by_line[9].backward_seconds == 0
    assert prof.nodes == 20 and 0 < prof.record_share < 1
    assert prof.total_seconds >= sum(c.seconds for c in prof.lines) * 0.99


def test_profile_after_backward_without_retain_holds_nothing():
    prof_ = Profiler()
    result = pipeline.run("w = param([1.0, 2.0])\ny = w * w\nL = y.sum()\nL.backward()\n",
                          tracer=prof_)
    prof = prof_.finish(result)
    assert prof.saved_bytes == 0 and {c.line: c.nodes for c in prof.lines}[2] == 1


@pytest.mark.parametrize("fmt", ["plain", "json", "rich"])
def test_profile_command(fmt):
    r = runner.invoke(cli.app, ["profile", str(ROOT / "samples" / "growing_graph.grad"),
                                "--format", fmt])
    assert r.exit_code == 0, r.output
    if fmt == "json":
        doc = json.loads(r.stdout)
        assert [c["line"] for c in doc["lines"]][:3] == [4, 5, 6]
        assert doc["nodes"] == 20 and 0 < doc["record_share"] < 1
    elif fmt == "plain":
        assert "20 graph nodes created" in r.stdout
    else:  # rich, at 80 columns: every line fits, the share as a number
        assert max(map(len, r.stdout.splitlines())) <= 80
        assert "share" in r.stdout and "warm" in r.stdout
        wide = runner.invoke(cli.app, ["profile", str(ROOT / "samples" / "growing_graph.grad"),
                                       "--format", fmt], env={"COLUMNS": "140"})
        assert "█" in wide.stdout or "▏" in wide.stdout  # with room, a bar too


def test_profile_keeps_the_scripts_prints_and_puts_warm_up_apart():
    src = "w = param([1.0, 2.0])\nfor i in range(3):\n    y = (w * w).sum()\nprint('y is', y)\n"
    r = runner.invoke(cli.app, ["profile", "-e", src, "--format", "plain"])
    assert r.exit_code == 0 and r.stdout.startswith("y is tensor(5., grad_fn=<SumBackward0>)\n")
    head = r.stdout.splitlines()[1].split("  ")
    assert [h.strip() for h in head if h.strip()] == [
        "line", "hits", "time ms", "share", "warm ms", "bwd ms", "rec ms", "nodes", "saved",
        "source"]
    assert "y is tensor" not in runner.invoke(cli.app, ["profile", "-e", src, "-q"]).stdout
    prof = Profiler()
    result = pipeline.run(src, tracer=prof)
    prof.first[3] += 0.5  # a first run half a second slower than the others: warm-up
    prof.seconds[3] += 0.5
    # (the measured first run may itself be a little faster than the others' mean)
    excess = prof.first[3] - (prof.seconds[3] - prof.first[3]) / 2
    p = prof.finish(result)
    line = {c.line: c for c in p.lines}[3]
    assert line.warmup_seconds == pytest.approx(excess) and excess > 0.45
    assert p.warmup_seconds == line.warmup_seconds


def test_json_items_one_per_line_whatever_their_strings_hold():
    """The events are encoded in one call and split between items: a string that holds the
    split's text, nested dicts and lists stay inside their item."""
    import json

    from gradcli.render.json import dumps

    events = [{"seq": 0, "text": '}, {"seq": 1'}, {"seq": 1, "grad": {"shape": [2], "n": 1.5}},
              {"seq": 2, "items": [{"seq": 9}, {"seq": 10}]}]
    for items in (events, [{"a": 1}, {"b": 2}], [1, [2, 3]]):
        text = dumps({"gradcli": "1", "events": items}, "events")
        lines = text.splitlines()
        assert json.loads(text)["events"] == items
        assert [json.loads(line.strip().rstrip(",")) for line in lines[3:-2]] == items


# -- saved-tensor hooks in trace and profile -------------------------------------------------
HOOKS = """import torch

def pack_hook(t):
    return t * 4

def unpack_hook(t):
    return t / 4

x = torch.ones(3, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = (x * x.sin()).sum()
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    z = (x * x.sin()).sum()
with torch.autograd.graph.save_on_cpu(pin_memory=True):
    w = (x * x.sin()).sum()
y.backward()
"""


def test_trace_lists_each_pack_and_unpack_with_node_saved_tensor_and_hook_line():
    tr, _ = _trace(HOOKS)
    packs = [e for e in tr.events if e.kind == "pack"]
    # sin saves self; mul saves self and other (PyTorch's order of packing: other, self)
    first = [(e.grad_fn, e.fields["saved"], e.fields["tensor"], e.fields["hook"],
              e.fields["hook_line"], e.line) for e in packs[:3]]
    assert first == [("SinBackward0", "self", "x", "pack_hook", 3, 11),
                     ("MulBackward0", "other", "sin(x)", "pack_hook", 3, 11),
                     ("MulBackward0", "self", "x", "pack_hook", 3, 11)]
    assert [e.fields["copied"] for e in packs] == [12] * 3 + [0] * 3 + [12] * 3
    assert [e.fields["hook"] for e in packs[3:]] == ["save_on_cpu"] * 6
    unpacks = [(e.grad_fn, e.fields["saved"], e.fields["hook_line"], e.phase)
               for e in tr.events if e.kind == "unpack"]
    assert unpacks == [("MulBackward0", "other", 6, "backward"),
                       ("MulBackward0", "self", 6, "backward"),
                       ("SinBackward0", "self", 6, "backward")]
    # each pack comes right after the op that saved (and its save events)
    kinds = [e.kind for e in tr.events if e.line == 11 and e.kind in ("op", "save", "pack")]
    assert kinds[:3] == ["op", "save", "pack"]


def test_profile_counts_the_bytes_pack_hooks_keep_per_line():
    prof_ = Profiler()
    result = pipeline.run(HOOKS, tracer=prof_)
    by_line = {c.line: c for c in prof_.finish(result).lines}
    # x * 4 and save_on_cpu(pin_memory=True) copy each of the 3 saved tensors (3 x 12 B);
    # save_on_cpu(pin_memory=False) keeps the tensors themselves
    assert [by_line[n].packed_bytes for n in (11, 13, 15)] == [36, 0, 36]
    # y's graph was freed by its backward; z's and w's still hold what the hooks returned
    assert [by_line[n].saved_bytes for n in (11, 13, 15)] == [0, 36, 36]
    r = runner.invoke(cli.app, ["profile", "-", "--format", "plain"], input=HOOKS)
    assert r.exit_code == 0 and "packed" in r.output.splitlines()[0]
    assert "pack hooks kept 72 B of copies" in r.output
