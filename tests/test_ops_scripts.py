"""The ops of SPEC §7 inside grad scripts: built-ins, methods, listings and the run's output."""

from __future__ import annotations

import json

from gradcli import pipeline
from gradcli.render import json as json_render
from gradcli.views import bindings_view

SCRIPT = """\
x = [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]
r = max(x, 1)
k = where(x > 2)
c = cat([x, x * 2], 1)
l = cross_entropy(x, tensor([0, 2]).long()) + binary_cross_entropy_with_logits(x, x / 6)
y = r[0].sum() + c.std() + x.norm(p=3) + l + (x.reshape(2, 1, 3) @ x.t()).sum()
"""


def run(source: str, **kw):
    return pipeline.run(source, filename="t.grad", **kw)


def test_new_ops_run_in_a_grad_script_and_differentiate():
    r = run(SCRIPT, wrt=("x",))
    assert r.error is None
    assert r.bindings["r"][0].grad_fn.fn_name == "MaxBackward0"
    assert r.bindings["c"].grad_fn.fn_name == "CatBackward0"
    (g,) = r.grad("y", ["x"])
    assert g.shape == (2, 3)


def test_a_named_tuple_or_a_tuple_of_tensors_is_a_binding_like_a_list():
    """x.max(dim) and torch.where(condition) bind tuples of tensors, not a torch.Size."""
    r = run(SCRIPT, wrt=("x",))
    views = bindings_view(r)
    assert [v.shape for v in views["r"]] == [[2], [2]]
    assert [v.data.tolist() for v in views["k"]] == [[0, 0, 1, 1], [1, 2, 0, 2]]
    doc = json.loads(json.dumps(json_render.run_doc(views, r.prints, r.warnings, r.error)))
    assert [item["data"] for item in doc["bindings"]["r"]] == [[5.0, 6.0], [1, 2]]


def test_print_shows_pytorchs_named_tuple():
    r = run("x = tensor([[1.0, 5.0], [4.0, 2.0]])\nprint(min(x, 0))\n")
    assert r.prints == [("torch.return_types.min(\nvalues=tensor([1., 2.]),\n"
                         "indices=tensor([0, 1]))")]
