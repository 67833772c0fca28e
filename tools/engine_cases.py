"""PyTorch code run by both PyTorch and gradcli's engine (tests/test_engine_cases.py).

Each case is a small program over a ``torch`` namespace that sets ``result`` (a list of values
whose ``repr`` is compared) or raises.  ``tools/record_engine_cases.py`` records what PyTorch
2.13 does with each into ``tests/fixtures/torch/engine_cases.json``; the test runs the same code
against ``gradcli.api`` with PyTorch's defaults (float32, integer tensors).  Add a case here,
re-record, and the test checks it.
"""

CASES: dict[str, str] = {
    # --- dtypes and promotion ---
    "int_arith": "x = torch.arange(4); result = [x, x * 0.5, x / 2, x + 1, x * 2, x // 3, x % 3,"
                 " -x, x ** 2, x ** 0.5, 1 - x, 2 / (x + 1)]",
    "int_reductions": "x = torch.tensor([1, 2, 3]); result = [x, x.dtype, x.sum(), x.sum().item(),"
                      " x.float(), x.double(), x.tolist(), torch.exp(x), torch.sqrt(x), x.max()]",
    "bool_tensors": "b = torch.tensor([True, False, True]); result = [b, b.sum(), b.float(),"
                    " b.long(), b.dtype, b.tolist()]",
    "comparisons": "x = torch.tensor([1.5, -2.0]); result = [x > 0, (x > 0).sum(), (x > 0).float(),"
                   " x.long(), x.int(), x.to(torch.float64), x.dtype, x.double().dtype,"
                   " x == x, x != 1.5, x.type(), x.double().type()]",
    "promotion_zero_dim": "a = torch.tensor([1, 2]); b = torch.tensor(1.5, dtype=torch.float64);"
                          " result = [a + b, a * 2.5, torch.ones(2) * b,"
                          " torch.ones(2, dtype=torch.float64) * torch.tensor(2.0),"
                          " torch.tensor(2) * torch.tensor(1.5), torch.tensor([True]) + 1,"
                          " torch.tensor([1], dtype=torch.int32) + torch.tensor([1]),"
                          " torch.tensor([1], dtype=torch.uint8) + torch.tensor([1], dtype=torch.int8)]",
    "mixed_dtype_grad": "x = torch.tensor([1., 2.], requires_grad=True);"
                        " y = torch.tensor(3., dtype=torch.float64, requires_grad=True);"
                        " z = (x * y).sum(); z.backward(); result = [z, x.grad, y.grad]",
    "to_copy_grad": "x = torch.tensor([1., 2.], requires_grad=True); y = x.double() * 2;"
                    " y.sum().backward(); result = [y, x.grad, x.double(), x.long(), x.float() is x,"
                    " x.to(torch.float32) is x, x.to(copy=True)]",
    "int_times_param": "x = torch.arange(3); y = torch.tensor([0.5, 1.5, 2.5], requires_grad=True);"
                       " z = x * y; z.sum().backward(); result = [z, y.grad, (x > 0) * y]",
    "constructors": "result = [torch.zeros(2), torch.zeros(2, dtype=torch.int64),"
                    " torch.ones(2, 2, dtype=torch.bool), torch.full((2,), 3), torch.full((2,), 2.5),"
                    " torch.full((2,), True), torch.arange(5), torch.arange(0, 1, 0.25),"
                    " torch.arange(5.), torch.eye(2, dtype=torch.int32), torch.linspace(0, 1, 5),"
                    " torch.tensor([]), torch.tensor([], dtype=torch.int64), torch.zeros(0, 2),"
                    " torch.zeros(0, dtype=torch.int64), torch.tensor(3), torch.tensor(True),"
                    " torch.zeros_like(torch.arange(3)),"
                    " torch.ones_like(torch.arange(3), dtype=torch.float64),"
                    " torch.tensor([1, 2.5]), torch.tensor([True, 2]), torch.empty(2, 0),"
                    " torch.full_like(torch.arange(2), 7), torch.tensor([[1, 2], [3, 4]], dtype=torch.float64),"
                    " torch.zeros(2, 3, requires_grad=True), torch.ones((2, 1))]",
    "int_reprs": "result = [torch.tensor([[1, -20], [300, 4]]), torch.tensor([1, 2], dtype=torch.int32),"
                 " torch.tensor([1, 2], dtype=torch.int16), torch.tensor([1, 2], dtype=torch.uint8),"
                 " torch.tensor([1.5, 2], dtype=torch.float16), torch.arange(2000),"
                 " torch.arange(2000).reshape(40, 50), torch.tensor([[True], [False]]),"
                 " torch.tensor(-7), torch.tensor([10**12, -3])]",
    "item_and_numbers": "x = torch.tensor(2.5); result = [x.item(), torch.tensor(3).item(),"
                        " torch.tensor(True).item(), float(torch.tensor(2)), int(torch.tensor(2.7)),"
                        " torch.tensor(0.1).item(), torch.tensor(0.1, dtype=torch.float64).item(),"
                        " torch.tensor([0.1, 0.2]).tolist(), torch.tensor([[1], [2]]).tolist()]",
    "int_matrix_ops": "x = torch.tensor([[1, 2], [3, 4]]); result = [x.sum(0),"
                      " x.sum(dim=1, keepdim=True), x.max(), x.min(), x.t(), x.reshape(4), x @ x,"
                      " x.abs(), x.relu(), x.clamp(min=2), x.clamp(max=2.5), torch.maximum(x, x.t()),"
                      " x.view(-1), x[0], x[:, 1], x.unsqueeze(0), x.flatten()]",
    "inplace_promotion": "x = torch.zeros(3); x += torch.arange(3);"
                         " y = torch.ones(2, dtype=torch.float64); y *= torch.tensor(2.0);"
                         " z = torch.arange(3); z += 1; z *= 2; result = [x, y, z]",
    "float16_and_32": "x = torch.tensor([1.0, 2.0], dtype=torch.float16);"
                      " y = torch.tensor([1.0, 2.0]); result = [x + y, x * 2, x.dtype, (x + y).dtype]",
    # --- errors ---
    "err_int_requires_grad": "torch.tensor([1, 2], requires_grad=True)",
    "err_int_mean": "torch.tensor([1, 2]).mean()",
    "err_mm_dtypes": "torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))",
    "err_matmul_dtypes": "torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)",
    "err_dot_dtypes": "torch.dot(torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "err_inplace_int_float": "x = torch.ones(2, dtype=torch.int64); x += 0.5",
    "err_inplace_int_exp": "x = torch.arange(3); x.mul_(1.5)",
    "err_cuda": "torch.zeros(2, device='cuda')",
    "err_cuda_method": "torch.zeros(2).cuda()",
    "err_randn_int": "torch.randn(2, dtype=torch.int64)",
    "err_int_long_overflow": "torch.tensor([2**63])",
}

CASES.update({
    # --- indexing (engine/indexing.py) ---
    "index_list": "x = torch.arange(12.).reshape(3, 4).requires_grad_(); y = x * 1;"
                  " z = y[[0, 2]]; z.sum().backward(); result = [z, x.grad, y[[0, 2], [1, 3]],"
                  " y[[-1]], y[1:, [0, 2]], y[[0, 2], 1:3], y[torch.tensor([[0, 1], [2, 0]])]]",
    "index_grad_duplicates": "x = torch.tensor([1., 2., 3.], requires_grad=True);"
                             " y = x[[0, 0, 2, 0]] * torch.tensor([1., 2., 3., 4.]);"
                             " y.sum().backward(); result = [y, x.grad]",
    "index_mask": "x = torch.tensor([[1., -2.], [3., -4.]], requires_grad=True); y = x[x > 0];"
                  " (y * y).sum().backward(); result = [y, x.grad, x[torch.tensor([True, False])],"
                  " x[torch.tensor([[True, False], [False, True]])]]",
    "index_int_tensor": "x = torch.arange(6.).reshape(2, 3); result = [x[torch.tensor(1)],"
                        " x[torch.tensor([1])], x[None], x[..., 1], x[None, 0], x[..., None].shape,"
                        " x[1, ...], x[:, None, :].shape, x[-1, -1]]",
    "index_grad_fn": "x = torch.tensor([1., 2., 3.], requires_grad=True); y = x * 2;"
                     " result = [y[[0]], y[y > 2], y[torch.tensor(0)], y[1:], y[0]]",
    "index_twice_backward": "x = torch.tensor([1., 2., 3.], requires_grad=True);"
                            " s = x[[0, 1]].sum(); s.backward(); s.backward()",
    "setitem_basic": "a = torch.tensor([1., 2., 3.], requires_grad=True); y = a * 1; y[0] = 5.;"
                     " v = torch.tensor(9., requires_grad=True); w = a * 1; w[1] = v;"
                     " (y.sum() + (w * w).sum()).backward(); result = [y, w, a.grad, v.grad,"
                     " y._version, w._version]",
    "setitem_advanced": "a = torch.tensor([1., 2., 3.], requires_grad=True); y = a * 1;"
                        " y[[0, 2]] = torch.tensor([7., 8.]); z = a * 1; z[z > 1.5] = 0;"
                        " v = torch.tensor([5., 6.], requires_grad=True); u = a * 1; u[[2, 0]] = v;"
                        " (y.sum() + z.sum() + (u * u).sum()).backward();"
                        " result = [y, z, u, a.grad, v.grad]",
    "setitem_no_grad_data": "x = torch.zeros(2, 3); x[0] = 1; x[:, 1] = torch.tensor([5., 6.]);"
                            " x[x > 4] = -1; x[1, [0, 2]] = torch.tensor([7., 8.]); y = torch.arange(4);"
                            " y[1] = 10; y[y > 5] = 0; result = [x, y, x._version]",
    "setitem_into_constant": "v = torch.tensor(2., requires_grad=True); z = torch.zeros(3); z[1] = v;"
                             " q = torch.zeros(3); q[[0, 1]] = v; (z.sum() + q.sum()).backward();"
                             " result = [z, q, v.grad]",
    "setitem_augmented": "a = torch.tensor([1., 2., 3.], requires_grad=True); b = a * 1;"
                         " v = torch.tensor(4., requires_grad=True); b[0] += v; b.sum().backward();"
                         " result = [b, a.grad, v.grad, b._version]",
    "err_setitem_leaf": "a = torch.tensor([1., 2.], requires_grad=True); a[0] = 1.",
    "err_setitem_leaf_advanced": "a = torch.tensor([1., 2.], requires_grad=True); a[[0]] = 1.",
    "err_setitem_expand": "x = torch.zeros(3); x[0] = torch.ones(2)",
    "err_setitem_size": "x = torch.zeros(3); x[0:2] = torch.ones(3)",
    "err_setitem_shape_mismatch": "x = torch.zeros(3); x[[0, 1]] = torch.ones(3)",
    "err_index_bounds": "torch.zeros(3)[[5]]",
    "err_index_mask_shape": "torch.zeros(3)[torch.tensor([True, False])]",
    "err_index_float_tensor": "torch.zeros(3)[torch.tensor([1.0])]",
    "err_index_too_many": "torch.zeros(3)[0, 1]",
})

CASES.update({
    "unbind_iter": "x = torch.arange(6.).reshape(2, 3).requires_grad_(); y = x * 1; a, b = y;"
                   " (a * 2 + b).sum().backward(); result = [a, b, x.grad, list(torch.tensor([1, 2, 3])),"
                   " torch.unbind(y, 1), len(y), [r.sum() for r in y]]",
    "err_iter_0d": "iter(torch.tensor(1.))",
    "default_dtype": "torch.set_default_dtype(torch.float64); a = torch.tensor([1.5]);"
                     " b = torch.tensor([1.5], dtype=torch.float32); c = torch.arange(3) * 0.5;"
                     " result = [a, b, c, torch.get_default_dtype(), torch.ones(2) + b, torch.randn(2).dtype]",
    "err_default_dtype_int": "torch.set_default_dtype(torch.int64)",
})

CASES.update({
    # --- random numbers (api/random.py over engine/generator.py) ---
    "random_surface": "torch.manual_seed(0); result = [torch.rand(3), torch.randn(2, 2),"
                      " torch.randint(0, 10, (5,)), torch.randint(5, (3,)), torch.randperm(6),"
                      " torch.normal(0., 2., (3,)), torch.normal(torch.zeros(3), torch.ones(3) * 0.5),"
                      " torch.rand_like(torch.zeros(2, dtype=torch.float64)), torch.randn_like(torch.zeros(2)),"
                      " torch.bernoulli(torch.full((4,), 0.5)), torch.initial_seed(),"
                      " torch.randn(3, dtype=torch.float64), torch.randint(0, 4, (2,), dtype=torch.float32)]",
    "generator_objects": "g = torch.Generator().manual_seed(1); h = torch.Generator();"
                         " result = [torch.randn(2, generator=g), torch.rand(2, generator=h),"
                         " g.initial_seed(), h.initial_seed(), torch.randint(3, (4,), generator=g),"
                         " torch.randn(20, generator=g)[-3:]]",
    "inplace_draws": "torch.manual_seed(2); x = torch.zeros(3); x.uniform_(-1, 1);"
                     " y = torch.empty(2, 2).normal_(1., 0.5); z = torch.empty(4).random_(10);"
                     " w = torch.empty(3).random_(5, 9); b = torch.empty(5).bernoulli_(0.3);"
                     " t = torch.empty(3, 2).t().uniform_(); u = torch.empty(3, 2).t().normal_();"
                     " p = torch.empty(4).bernoulli_(torch.tensor([0.1, 0.9, 0.5, 0.5]));"
                     " result = [x, y, z, w, b, t, u, p, x._version]",
    "inplace_draw_grad_fns": "torch.manual_seed(3); x = torch.ones(3, requires_grad=True);"
                             " ys = [(x * 2).uniform_(), (x * 2).normal_(), (x * 2).random_(2),"
                             " (x * 2).random_(1, 4), (x * 2).bernoulli_(0.5), (x * 2).fill_(2.0),"
                             " (x * 2).fill_(torch.tensor(1.)), (x * 2).zero_()];"
                             " s = sum(y.sum() for y in ys); s.backward(); result = ys + [x.grad]",
    "fill": "x = torch.zeros(2, 2); x.fill_(3); y = torch.arange(3).fill_(2.7);"
            " result = [x, y, x.fill_(torch.tensor(1.5)), x._version]",
    "err_leaf_uniform": "x = torch.ones(3, requires_grad=True); x.uniform_()",
    "err_randint_bounds": "torch.randint(5, 2, (3,))",
})

# The ops of SPEC §7 beyond arithmetic: joins, reductions along dims, batched matmul, the
# losses of torch.nn.functional, activations and small tensor methods.  ``graph(t)`` is the
# backward graph (grad_fn names and saved tensors) as PyTorch records it.
# exact values (multiples of 1/8), so sums come out the same in any order
_P = "((torch.arange({n}.) - {h}) / 8).reshape({shape}).requires_grad_()"
_C = "((torch.arange({n}.) - {h}) / 8).reshape({shape})"


def _matmul(a: str, b: str) -> str:
    """A case: ``a @ b`` for two tensors given as _P/_C templates, its graph, value and grads."""
    return (f"a = {a}; b = {b}; c = a @ b; g = graph(c); c.sum().backward(); "
            "result = [g, c, a.grad, b.grad]")


def _t(kind: str, *shape: int) -> str:
    n = 1
    for d in shape:
        n *= d
    return (_P if kind == "P" else _C).format(n=n, h=n // 2, shape=", ".join(map(str, shape)))


OPS_CASES: dict[str, str] = {
    # --- joins and spreads ---
    "cat_stack": "x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True);"
                 " y = torch.tensor([[5., 6.]], requires_grad=True); c = torch.cat([x, y]);"
                 " s = torch.stack([x, x * 2], dim=1); g = [graph(c), graph(s)];"
                 " (c.sum() + (s * torch.arange(8.).reshape(2, 2, 2)).sum()).backward();"
                 " result = g + [c, s, x.grad, y.grad, torch.cat((x, x), dim=-1),"
                 " torch.cat([x, torch.ones(0)]), torch.stack([torch.tensor(1.), torch.tensor(2.)]),"
                 " torch.stack((x, x), -1)]",
    "cat_promotes": "result = [torch.cat([torch.ones(2), torch.ones(2, dtype=torch.float64)]),"
                    " torch.cat([torch.tensor([True]), torch.tensor([2])]),"
                    " torch.cat([torch.arange(2), torch.ones(2)]),"
                    " torch.stack([torch.arange(2), torch.arange(2)])]",
    "where_forms": "x = torch.tensor([[1., -5., 3.], [-4., 2., 6.]], requires_grad=True);"
                   " w = torch.where(x > 0, x, 0.); w2 = torch.where(x > 2, x * 2, x ** 2);"
                   " g = [graph(w), graph(w2)]; (w.sum() + w2.sum()).backward();"
                   " result = g + [w, w2, x.grad, torch.where(x > 0),"
                   " torch.where(torch.tensor([True, False]), 1, 2),"
                   " torch.where(torch.tensor([True, False]), 1., 2),"
                   " torch.where(x > 0, x, torch.ones(3, dtype=torch.float64)),"
                   " torch.where(x > 0, torch.ones(3, dtype=torch.float64), 1.),"
                   " torch.nonzero(x > 0), torch.nonzero(torch.tensor([0., 1.5]), as_tuple=True),"
                   " torch.where(torch.tensor(True)), x.where(x > 0, torch.zeros(3))]",
    "expand_repeat": "x = torch.tensor([[1.], [2.]], requires_grad=True); e = x.expand(2, 3);"
                     " e2 = x.expand(4, -1, 2); r = x.repeat(2, 3);"
                     " v = torch.tensor([1., 2.], requires_grad=True); r2 = v.repeat(2, 2);"
                     " g = [graph(e), graph(e2), graph(r)];"
                     " (e.sum() + (e2 * 2).sum() + (r * r).sum() + (r2 * r2).sum()).backward();"
                     " result = g + [e, list(e2.shape), r, r2, x.grad, v.grad,"
                     " list(x.expand_as(torch.ones(3, 2, 4)).shape), x.expand((2, 5)),"
                     " x.expand([2, 1]), x.repeat((1, 2)), torch.tensor(2.).repeat(3)]",
    "masked_fill": "x = torch.tensor([1., 2., 3.], requires_grad=True);"
                   " y = x.masked_fill(x > 1.5, 0.); y2 = (x * 1).masked_fill_(x < 2, -1.);"
                   " g = [graph(y), graph(y2)]; (y.sum() + (y2 * x).sum()).backward();"
                   " result = g + [y, y2, x.grad,"
                   " torch.tensor([1, 2]).masked_fill(torch.tensor([True, False]), 0.5)]",
    "reshape_alias": "x = torch.arange(24.).reshape(4, 3, 2).requires_grad_();"
                     " t = x.transpose(0, 2); a = t.reshape(2, 3, 4); b = t.reshape(6, 4);"
                     " c = x.reshape(24); result = [graph(a), graph(b),"
                     " graph(c), graph(x.transpose(0, 1).reshape(3, 4, 2, 1))]",
    # --- reductions along dims ---
    "max_min_dim": "x = torch.tensor([[1., 3., 3.], [2., 2., 0.]], requires_grad=True);"
                   " r = x.max(1); v, i = x.min(0); m = torch.max(x, 1, keepdim=True);"
                   " g = [graph(r.values), graph(v)];"
                   " (r.values.sum() + v.sum() * 2 + m[0].sum() * 3).backward();"
                   " result = g + [r, r.values, r.indices, v, i, m, x.grad, x.argmax(), x.argmax(1),"
                   " x.argmin(dim=0, keepdim=True), torch.argmax(x, dim=1), x.argmax(keepdim=True),"
                   " torch.tensor([1, 5, 2]).max(0), torch.tensor(3.).max(0),"
                   " torch.max(x, other=x * 2), torch.min(x, x * 2), torch.zeros(2, 0).max(0),"
                   " torch.tensor([1., float('nan'), 3.]).max(0), [x.max(1)], (x.min(1),),"
                   " type(x.max(1)).__name__, len(x.max(1)), x.max(1)[1]]",
    "std_var": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True); s = x.std();"
               " v = x.var(1); s2 = x.std(dim=0, unbiased=False, keepdim=True);"
               " v2 = torch.var(x, correction=0); g = [graph(s), graph(v)];"
               " (s + v.sum() + s2.sum() + v2).backward(); result = g + [s, v, s2, v2, x.grad,"
               " x.std(1, True), x.std(1, False, True), torch.std(x, 1), x.var(dim=[0, 1]),"
               " x.std(unbiased=False)]",
    "std_var_no_dof": "x = torch.tensor([1.], requires_grad=True); s = x.std(); v = x.var();"
                      " result = [s, v, torch.tensor([2.]).var(correction=0)]",
    "norms": "x = torch.tensor([[3., -4., 0.], [1., 2., -2.]], requires_grad=True);"
             " ns = [x.norm(), x.norm(1), torch.norm(x, p=3, dim=1), x.norm(dim=0, keepdim=True),"
             " torch.norm(x, float('inf')), x.norm(0), x.norm('fro'),"
             " torch.linalg.vector_norm(x, ord=1, dim=1), x.norm(p=1.5), x.norm(p=0.5, dim=1),"
             " torch.norm(x, dim=(0, 1)), torch.linalg.vector_norm(x, float('-inf'))];"
             " g = graph(ns[0]); sum(n.sum() for n in ns).backward(); result = ns + [g, x.grad]",
    "norm_at_zero": "x = torch.zeros(3, requires_grad=True); n = x.norm(); n.backward();"
                    " y = torch.zeros(2, requires_grad=True); m = y.norm(3); m.backward();"
                    " result = [n, x.grad, m, y.grad]",
    "prod": "x = torch.tensor([[1., 2., 3.], [4., 0., 6.]], requires_grad=True); p = x.prod();"
            " p1 = x.prod(1); p0 = torch.prod(x, 0, keepdim=True); g = [graph(p), graph(p1)];"
            " (p + p1.sum() + p0.sum()).backward(); result = g + [p, p1, p0, x.grad,"
            " torch.tensor([1, 2, 3]).prod(), torch.tensor([True, False]).prod()]",
    "prod_two_zeros": "x = torch.tensor([0., 2., 0.], requires_grad=True); p = x.prod();"
                      " p.backward(); result = [p, x.grad]",
    # --- batched matmul, and matmul of 3-D and more as ATen dispatches it ---
    "bmm": "a = torch.arange(12.).reshape(2, 2, 3).requires_grad_();"
           " b = torch.arange(12.).reshape(2, 3, 2).requires_grad_(); c = torch.bmm(a, b);"
           " g = graph(c); c.sum().backward(); result = [g, c, a.grad, b.grad, a.bmm(b)]",
    "matmul_3d_2d": _matmul(_t("P", 2, 3, 4), _t("P", 4, 5)),
    "matmul_3d_2d_lhs": _matmul(_t("P", 2, 3, 4), _t("C", 4, 5)),
    "matmul_3d_2d_rhs": _matmul(_t("C", 2, 3, 4), _t("P", 4, 5)),
    "matmul_3d_1d": _matmul(_t("P", 2, 3, 4), _t("P", 4)),
    "matmul_1d_3d": _matmul(_t("P", 3), _t("P", 2, 3, 4)),
    "matmul_2d_3d": _matmul(_t("P", 5, 3), _t("P", 2, 3, 4)),
    "matmul_2d_3d_rhs": _matmul(_t("C", 5, 3), _t("P", 2, 3, 4)),
    "matmul_3d_3d": _matmul(_t("P", 2, 3, 4), _t("P", 2, 4, 5)),
    "matmul_3d_3d_broadcast": _matmul(_t("P", 1, 3, 4), _t("P", 2, 4, 5)),
    "matmul_3d_3d_broadcast_const": _matmul(_t("C", 1, 3, 4), _t("P", 2, 4, 5)),
    "matmul_4d_3d": _matmul(_t("P", 2, 2, 3, 4), _t("P", 2, 4, 5)),
    "matmul_4d_2d": _matmul(_t("P", 2, 2, 3, 4), _t("P", 4, 5)),
    "matmul_3d_4d": _matmul(_t("P", 2, 3, 4), _t("P", 3, 2, 4, 5)),
    "matmul_transposed_lhs": _matmul(_t("P", 4, 3, 2) + ".transpose(0, 2)", _t("C", 4, 5)),
    "matmul_3d_2d_no_grad_fold": "a = torch.ones(2, 3, 4); b = torch.ones(4, 2);"
                                 " result = [a @ b, torch.matmul(a, b[:, 0])]",
    # --- losses ---
    "cross_entropy_index": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.], [0., 1., -1.]],"
                           " requires_grad=True); t = torch.tensor([0, 2, 1]);"
                           " l = F.cross_entropy(x, t); ln = F.cross_entropy(x, t, reduction='none');"
                           " ls = F.cross_entropy(x, t, reduction='sum'); g = [graph(l), graph(ln)];"
                           " (l + ln.sum() + ls).backward(); result = g + [l, ln, ls, x.grad,"
                           " F.cross_entropy(x.double(), t), F.cross_entropy(x, t.to(torch.uint8))]",
    "cross_entropy_weight_ignore": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.], [0., 1., -1.]],"
                                   " requires_grad=True); t = torch.tensor([0, 2, -100]);"
                                   " w = torch.tensor([1., 2., 3.]);"
                                   " l = F.cross_entropy(x, t, weight=w); g = graph(l);"
                                   " l2 = F.cross_entropy(x, torch.tensor([0, 2, 1]), ignore_index=2,"
                                   " reduction='none'); (l + l2.sum()).backward();"
                                   " result = [g, l, l2, x.grad,"
                                   " F.cross_entropy(x, torch.tensor([-100, -100, -100])),"
                                   " F.cross_entropy(x, torch.tensor([-100, -100, -100]), reduction='sum'),"
                                   " F.cross_entropy(x, t, label_smoothing=-0.5)]",
    "cross_entropy_probs": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True);"
                           " p = torch.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], requires_grad=True);"
                           " w = torch.tensor([1., 2., 3.]); ls = [F.cross_entropy(x, p),"
                           " F.cross_entropy(x, p, reduction='sum'), F.cross_entropy(x, p, reduction='none'),"
                           " F.cross_entropy(x, p, weight=w), F.cross_entropy(x, p, label_smoothing=0.2),"
                           " F.cross_entropy(x[0], p[1])]; g = [graph(v) for v in ls];"
                           " sum(v.sum() for v in ls).backward(); result = g + ls + [x.grad, p.grad,"
                           " F.cross_entropy(x, p.detach().double())]",
    "cross_entropy_smoothing": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.], [0., 1., -1.]],"
                               " requires_grad=True); t = torch.tensor([0, 2, 1]);"
                               " w = torch.tensor([1., 2., 3.]); ls = [F.cross_entropy(x, t, label_smoothing=0.1),"
                               " F.cross_entropy(x, t, label_smoothing=0.1, reduction='sum'),"
                               " F.cross_entropy(x, t, label_smoothing=0.1, reduction='none'),"
                               " F.cross_entropy(x, t, weight=w, label_smoothing=0.2),"
                               " F.cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction='none'),"
                               " F.cross_entropy(x, t, ignore_index=1, label_smoothing=0.2),"
                               " F.cross_entropy(x[0], torch.tensor(1), label_smoothing=0.2)];"
                               " g = [graph(v) for v in ls]; sum(v.sum() for v in ls).backward();"
                               " result = g + ls + [x.grad,"
                               " F.cross_entropy(x, torch.tensor([-100, -100, -100]), label_smoothing=0.2)]",
    "cross_entropy_1d": "x = torch.tensor([1., 5., 3.], requires_grad=True);"
                        " l = F.cross_entropy(x, torch.tensor(1)); l2 = F.cross_entropy(x,"
                        " torch.tensor([2]), reduction='none'); l.backward();"
                        " result = [l, l2, x.grad, graph(l)]",
    "err_cross_entropy_1d_target_backward": "x = torch.tensor([1., 5., 3.], requires_grad=True);"
                                            " F.cross_entropy(x, torch.tensor([2])).backward()",
    "nll_loss": "x = torch.tensor([[-1., -5., -3.], [-4., -2., -6.]], requires_grad=True);"
                " t = torch.tensor([0, 2]); ls = [F.nll_loss(x, t), F.nll_loss(x, t, reduction='none'),"
                " F.nll_loss(x, t, weight=torch.tensor([1., 2., 3.]), reduction='sum'),"
                " F.nll_loss(x, t, ignore_index=0), F.nll_loss(x[0], torch.tensor(2)),"
                " F.nll_loss(x, t.to(torch.uint8))]; g = graph(ls[0]);"
                " sum(v.sum() for v in ls).backward(); result = ls + [g, x.grad,"
                " F.nll_loss(x, torch.tensor([-100, -100])),"
                " F.nll_loss(x, torch.tensor([-100, -100]), reduction='sum')]",
    "binary_cross_entropy": "x = torch.tensor([[0.1, 0.9, 0.5], [0.3, 0.6, 0.99]], requires_grad=True);"
                            " t = torch.tensor([[0., 1., 1.], [0.5, 0., 1.]], requires_grad=True);"
                            " w = torch.tensor([1., 2., 3.]); ls = [F.binary_cross_entropy(x, t),"
                            " F.binary_cross_entropy(x, t, weight=w),"
                            " F.binary_cross_entropy(x, t, reduction='none'),"
                            " F.binary_cross_entropy(x, t, weight=w, reduction='sum')];"
                            " g = [graph(v) for v in ls]; sum(v.sum() for v in ls).backward();"
                            " result = g + ls + [x.grad, t.grad,"
                            " F.binary_cross_entropy(torch.zeros(2), torch.ones(2)),"
                            " F.binary_cross_entropy(torch.tensor([0., 1.]), torch.tensor([0., 1.]))]",
    "binary_cross_entropy_with_logits": "x = torch.tensor([[1., -5., 3.], [4., 0., -6.]], requires_grad=True);"
                                        " t = torch.tensor([[0., 1., 1.], [0.5, 0., 1.]], requires_grad=True);"
                                        " w = torch.tensor([1., 2., 3.]); pw = torch.tensor([2., 1., 0.5]);"
                                        " ls = [F.binary_cross_entropy_with_logits(x, t),"
                                        " F.binary_cross_entropy_with_logits(x, t, pos_weight=pw),"
                                        " F.binary_cross_entropy_with_logits(x, t, weight=w, reduction='sum'),"
                                        " F.binary_cross_entropy_with_logits(x, t, w, pos_weight=pw, reduction='none')];"
                                        " g = [graph(v) for v in ls]; sum(v.sum() for v in ls).backward();"
                                        " result = g + ls + [x.grad, t.grad,"
                                        " F.binary_cross_entropy_with_logits(x, t.detach().double()),"
                                        " F.binary_cross_entropy_with_logits(torch.tensor([100., -100.]),"
                                        " torch.tensor([0., 1.]))]",
    "regression_losses": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True);"
                         " y = torch.tensor([[1.5, 2., 3.], [0., 2.2, 9.]], requires_grad=True);"
                         " ls = [F.l1_loss(x, y), F.l1_loss(x, y, reduction='sum'),"
                         " F.l1_loss(x, y, reduction='none'), F.smooth_l1_loss(x, y),"
                         " F.smooth_l1_loss(x, y, beta=0.5, reduction='none'), F.smooth_l1_loss(x, y, beta=0.),"
                         " F.huber_loss(x, y), F.huber_loss(x, y, delta=2., reduction='sum'),"
                         " F.mse_loss(x, y, reduction='none'), F.mse_loss(x, y, reduction='sum')];"
                         " g = [graph(v) for v in ls]; sum(v.sum() for v in ls).backward();"
                         " result = g + ls + [x.grad, y.grad, F.l1_loss(x, y.detach().double()),"
                         " F.mse_loss(x, torch.ones(2, 3, dtype=torch.long))]",
    "weighted_regression_losses": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True);"
                                  " y = torch.tensor([[1.5, 2., 3.], [0., 2.2, 9.]]);"
                                  " w = torch.tensor([[1., 2., 0.5], [0., 1., 3.]]);"
                                  " ls = [F.mse_loss(x, y, weight=w), F.mse_loss(x, y, reduction='sum', weight=w),"
                                  " F.l1_loss(x, y, weight=w), F.l1_loss(x, y, reduction='none', weight=w),"
                                  " F.huber_loss(x, y, weight=w), F.huber_loss(x, y, reduction='sum', weight=w)];"
                                  " g = [graph(v) for v in ls]; sum(v.sum() for v in ls).backward();"
                                  " result = g + ls + [x.grad]",
    "legacy_reduction_flags": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True);"
                              " y = torch.tensor([[1.5, 2., 3.], [0., 2.2, 9.]]);"
                              " result = [F.mse_loss(x, y, size_average=False), F.l1_loss(x, y, reduce=False),"
                              " F.cross_entropy(x, torch.tensor([0, 2]), size_average=False),"
                              " F.nll_loss(x, torch.tensor([0, 2]), reduce=False),"
                              " F.binary_cross_entropy_with_logits(x, y / 9, size_average=True)]",
    "err_weighted_loss_shape": "F.mse_loss(torch.ones(2, 3), torch.ones(2, 3), weight=torch.ones(3))",
    "err_weighted_loss_reduction": "F.l1_loss(torch.ones(2), torch.ones(2), reduction='bad',"
                                   " weight=torch.ones(2))",
    "loss_broadcast_warnings": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True);"
                               " y = torch.tensor([1., 2., 3.]); ls = [F.l1_loss(x, y), F.mse_loss(x, y),"
                               " F.smooth_l1_loss(x, y), F.huber_loss(x, y)];"
                               " result = [graph(v) for v in ls] + ls",
    "one_hot": "t = torch.tensor([0, 2]); result = [F.one_hot(t), F.one_hot(t, 5),"
               " F.one_hot(torch.tensor(2)), F.one_hot(torch.tensor([[0, 1], [2, 0]])),"
               " F.one_hot(torch.tensor([], dtype=torch.long), 3), F.one_hot(t, num_classes=3).float()]",
    "softmax_forms": "x = torch.tensor([[1., 5., 3.], [4., 2., 6.]], requires_grad=True);"
                     " result = [F.softmax(x), F.log_softmax(x), F.softmax(x[0]),"
                     " F.softmax(x.unsqueeze(0)), F.softmax(x, 1, dtype=torch.float64),"
                     " torch.softmax(x, 0), x.log_softmax(dim=1), F.softmax(x, dim=-1),"
                     " graph(F.softmax(x, 1, dtype=torch.float64))]",
    "activations_inplace": "x = torch.tensor([[-2., -0.5, 0.], [0.5, 1., 3.]], requires_grad=True);"
                           " a = x * 1; b = F.relu(a, inplace=True); c = x * 2; F.leaky_relu(c, 0.1, True);"
                           " d = x + 0; F.elu(d, inplace=True); e = x - 1; F.silu(e, inplace=True);"
                           " f = x * 3; F.hardtanh(f, -1., 1., True); g = [graph(v) for v in (a, c, d, e, f)];"
                           " (a.sum() + c.sum() + d.sum() + e.sum() + f.sum()).backward();"
                           " result = g + [b is a, a, c, d, e, f, x.grad,"
                           " F.relu(x, inplace=False)]",
    # --- activations and small tensor methods ---
    "activations": "x = torch.tensor([[-2., -0.5, 0.], [0.5, 1., 3.]], requires_grad=True);"
                   " ys = [F.leaky_relu(x), F.leaky_relu(x, 0.2), F.leaky_relu(x, negative_slope=0.3),"
                   " F.gelu(x), F.gelu(x, approximate='tanh'), F.silu(x), F.elu(x), F.elu(x, alpha=0.5),"
                   " F.sigmoid(x), F.tanh(x), F.relu(x)]; g = [graph(y) for y in ys];"
                   " sum(y.sum() for y in ys).backward(); result = g + ys + [x.grad]",
    "tensor_methods": "x = torch.tensor([[-1.5, 0.25, 2.5], [0.5, 1.7, -2.3]], requires_grad=True);"
                      " ys = [x.square(), torch.square(x), (x * x + 1).rsqrt(), torch.log2(x * x + 1),"
                      " torch.log10(x * x + 1), torch.clip(x, -1, 1), x.clip(max=0.5), x.clamp_min(0.25),"
                      " torch.clamp_max(x, 0.5), x.floor(), torch.ceil(x), x.round(), torch.trunc(x),"
                      " torch.round(x, decimals=1), x.neg(), x.sub(1), x.mul(2), x.div(2),"
                      " torch.abs(x), torch.sign(x), x.sum(dim=(0, 1)), x.mean((0, 1))];"
                      " g = [graph(y) for y in ys]; sum(y.sum() for y in ys).backward();"
                      " result = g + ys + [x.grad, torch.numel(x), torch.square(torch.tensor([1, 2])),"
                      " torch.floor(torch.tensor([1, 2])), torch.rsqrt(torch.tensor([4, 16])),"
                      " torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])),"
                      " torch.round(torch.tensor([1234.5]), decimals=-2), x.contiguous() is x,"
                      " graph(x.t().contiguous())]",
    # --- errors ---
    "err_cat_empty": "torch.cat([])",
    "err_cat_dims": "torch.cat([torch.ones(2, 3), torch.ones(2)])",
    "err_cat_sizes": "torch.cat([torch.ones(2, 3), torch.ones(3, 2)])",
    "err_cat_zero_dim": "torch.cat([torch.tensor(1.), torch.tensor(2.)])",
    "err_cat_dim_range": "torch.cat([torch.ones(2, 3)], 2)",
    "err_cat_not_list": "torch.cat(torch.ones(2))",
    "err_cat_element": "torch.cat([torch.ones(2), 1])",
    "err_stack_sizes": "torch.stack([torch.ones(2, 3), torch.ones(2)])",
    "err_stack_empty": "torch.stack([])",
    "err_where_condition": "x = torch.ones(2); torch.where(x, x, x)",
    "err_where_shapes": "x = torch.ones(2, 3); torch.where(x > 0, x, torch.ones(4))",
    "err_expand_size": "torch.ones(2, 3).expand(2, 4)",
    "err_expand_fewer": "torch.ones(2, 3).expand(3)",
    "err_expand_leading": "torch.ones(2, 3).expand(-1, -1, 3)",
    "err_repeat_fewer": "torch.ones(2, 3).repeat(2)",
    "err_repeat_negative": "torch.ones(2, 3).repeat(-1, 1)",
    "err_max_dim_range": "torch.ones(2, 3).max(5)",
    "err_max_empty_dim": "torch.zeros(2, 0).max(1)",
    "err_argmax_empty": "torch.zeros(0).argmax()",
    "err_std_int": "torch.tensor([1, 2]).std()",
    "err_norm_int": "torch.tensor([1, 2]).norm()",
    "err_norm_dims": "torch.norm(torch.ones(2, 3), p=2, dim=(0, 1, 0))",
    "err_bmm_3d": "torch.bmm(torch.ones(2, 3), torch.ones(2, 3))",
    "err_bmm_sizes": "torch.bmm(torch.ones(2, 2, 3), torch.ones(3, 3, 2))",
    "err_bmm_dtypes": "torch.bmm(torch.ones(2, 2, 3), torch.ones(2, 3, 2, dtype=torch.float64))",
    "err_matmul_batch": "torch.ones(3, 3, 4) @ torch.ones(2, 4, 3)",
    "err_matmul_3d_1d": "torch.ones(2, 3, 4) @ torch.ones(5)",
    "err_matmul_3d_2d": "torch.ones(2, 3, 4) @ torch.ones(5, 3)",
    "err_matmul_3d_3d": "torch.ones(2, 3, 4) @ torch.ones(2, 5, 6)",
    "err_ce_target_bounds": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 3]))",
    "err_ce_target_negative": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, -1]))",
    "err_ce_batch": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 1, 2]))",
    "err_nll_batch_scalar_target": "F.nll_loss(torch.zeros(3, 4), torch.tensor(1))",
    "err_ce_target_float": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0., 2.]))",
    "err_ce_target_int32": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 2], dtype=torch.int32))",
    "err_ce_weight_size": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 2]),"
                          " weight=torch.tensor([1., 2.]))",
    "err_ce_weight_dtype": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 2]),"
                           " weight=torch.ones(3, dtype=torch.float64))",
    "err_ce_smoothing": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 2]), label_smoothing=1.5)",
    "err_ce_prob_ignore": "F.cross_entropy(torch.ones(2, 3), torch.ones(2, 3), ignore_index=1)",
    "err_ce_prob_int": "F.cross_entropy(torch.tensor(1.), torch.tensor(1))",
    "err_ce_reduction": "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 2]), reduction='bad')",
    "err_ce_int_input": "F.cross_entropy(torch.ones(2, 3).long(), torch.tensor([0, 2]))",
    "err_ce_target_number": "F.cross_entropy(torch.ones(2, 3), 1)",
    "err_nll_weight_grad": "F.nll_loss(torch.ones(2, 3), torch.tensor([0, 2]),"
                           " weight=torch.ones(3, requires_grad=True))",
    "err_nll_1d_target": "F.nll_loss(torch.ones(3), torch.tensor([1, 2]))",
    "err_nll_int_input": "F.nll_loss(torch.ones(2, 3).long(), torch.tensor([0, 1]))",
    "err_bce_range": "F.binary_cross_entropy(torch.ones(2) * 2, torch.ones(2))",
    "err_bce_target_range": "F.binary_cross_entropy(torch.ones(2) * 0.5, torch.ones(2) * 2)",
    "err_bce_size": "F.binary_cross_entropy(torch.ones(2, 3) * 0.5, torch.ones(3))",
    "err_bce_dtype": "F.binary_cross_entropy(torch.ones(2) * 0.5, torch.ones(2, dtype=torch.float64))",
    "err_bce_weight_shape": "F.binary_cross_entropy(torch.ones(2, 3) * 0.5, torch.ones(2, 3),"
                            " weight=torch.ones(4))",
    "err_bce_weight_grad": "F.binary_cross_entropy(torch.ones(2) * 0.5, torch.ones(2),"
                           " weight=torch.ones(2, requires_grad=True))",
    "err_bcel_size": "F.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(3))",
    "err_bcel_long_target": "F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2).long())",
    "err_bcel_pos_weight": "F.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(2, 3),"
                           " pos_weight=torch.ones(2))",
    "err_bcel_pos_weight_grad": "F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2),"
                                " pos_weight=torch.ones(2, requires_grad=True))",
    "err_smooth_l1_beta": "F.smooth_l1_loss(torch.ones(2), torch.ones(2), beta=-1.)",
    "err_huber_delta": "F.huber_loss(torch.ones(2), torch.ones(2), delta=0.)",
    "err_mse_reduction": "F.mse_loss(torch.ones(2), torch.ones(2), reduction='bad')",
    "err_mse_shapes": "F.mse_loss(torch.ones(2, 3), torch.ones(2, 4))",
    "err_one_hot_dtype": "F.one_hot(torch.tensor([0., 1.]))",
    "err_one_hot_negative": "F.one_hot(torch.tensor([0, -1]))",
    "err_one_hot_classes": "F.one_hot(torch.tensor([0, 2]), num_classes=2)",
    "err_one_hot_empty": "F.one_hot(torch.tensor([], dtype=torch.long))",
    "err_gelu_approximate": "F.gelu(torch.ones(2), approximate='bad')",
    "err_softmax_no_dim": "torch.softmax(torch.ones(2))",
    "err_masked_fill_mask": "torch.ones(2).masked_fill(torch.ones(2), 0.)",
    # integer inputs: PyTorch's kernels refuse them, naming the kernel
    "err_int_gelu": "F.gelu(torch.tensor([-1, 2]))",
    "err_int_leaky_relu": "F.leaky_relu(torch.tensor([-1, 2]))",
    "err_int_silu": "F.silu(torch.tensor([-1, 2]))",
    "err_int_elu": "F.elu(torch.tensor([-1, 2]))",
    "err_int_softplus": "F.softplus(torch.tensor([-1, 2]))",
    "err_int_logsigmoid": "F.logsigmoid(torch.tensor([-1, 2]))",
    "err_int_softmax_lastdim": "F.softmax(torch.tensor([[-1, 2]]), 1)",
    "err_int_log_softmax": "F.log_softmax(torch.tensor([[-1, 2]]), 0)",
    "err_int_mse": "F.mse_loss(torch.tensor([-1, 2]), torch.tensor([1, 2]))",
    "err_int_huber": "F.huber_loss(torch.tensor([-1, 2]), torch.tensor([1, 2]))",
    "err_int_smooth_l1": "F.smooth_l1_loss(torch.tensor([-1, 2]), torch.tensor([1, 2]))",
    "err_int_l1": "F.l1_loss(torch.tensor([-1, 2]), torch.tensor([1, 2]))",
    "err_int_bce": "F.binary_cross_entropy(torch.tensor([0, 1]), torch.tensor([1, 0]))",
    "err_int_bce_logits": "F.binary_cross_entropy_with_logits(torch.tensor([0, 1]),"
                          " torch.tensor([1, 0]))",
    "int_ok": "x = torch.tensor([-1, 2]); result = [F.hardtanh(x), F.relu(x), torch.sigmoid(x),"
              " x.rsqrt(), x.round(), x.clamp_min(0), x.clamp_min(0.5), x.prod(0),"
              " F.mse_loss(x.float(), x), torch.cat([x, x])]",
}
CASES.update(OPS_CASES)

CASES.update({
    "next_functions_skip_indices": "x = torch.tensor([1., 2., 3.], requires_grad=True);"
                                   " result = [(x * 2)[[0, 1]].grad_fn.next_functions,"
                                   " torch.where(x > 1, x, x * 3).grad_fn.next_functions,"
                                   " y.grad_fn.next_functions] if not (y := x * 1).__setitem__([0], 5.) else 0",
})

# --- float32 training loops: the printed losses must be PyTorch's to the last bit (engine/exact)
_LINREG = """X = (torch.arange(100 * NFEAT).reshape(100, NFEAT) % 37) / 18.5 - 1.0
true_w = torch.arange(NFEAT).reshape(NFEAT, 1) * 0.75 - 1.0
y = X @ true_w + 0.5 + 0.1 * X[:, :1] * X[:, :1]
w = torch.zeros(NFEAT, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
result = []
for step in range(200):
    loss = ((X @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.05 * w.grad
        b -= 0.05 * b.grad
    w.grad = None
    b.grad = None
    if step % 20 == 0:
        result.append(loss.item())
result.append(w.reshape(-1).tolist())
result.append(b.item())"""
CASES.update({f"train_linreg_{f}_features": _LINREG.replace("NFEAT", str(f))
              for f in (1, 3, 7)})
CASES.update({
    "train_mlp_tanh": """X = (torch.arange(256).reshape(64, 4) % 13) / 6.5 - 1.0
y = torch.sin(X.sum(1, keepdim=True))
W1 = ((torch.arange(64).reshape(4, 16) % 7) - 3.0) / 10
b1 = torch.zeros(16)
W2 = ((torch.arange(16).reshape(16, 1) % 5) - 2.0) / 10
b2 = torch.zeros(1)
for p in (W1, b1, W2, b2):
    p.requires_grad_()
result = []
for step in range(100):
    h = torch.tanh(X @ W1 + b1)
    loss = ((h @ W2 + b2 - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in (W1, b1, W2, b2):
            p -= 0.1 * p.grad
            p.grad = None
    if step % 10 == 0:
        result.append(loss.item())
result.append(W2.reshape(-1).tolist())""",
    "train_softmax_classifier": """X = (torch.arange(240).reshape(60, 4) % 11) / 5.5 - 1.0
labels = (torch.arange(60) * 7) % 3
onehot = (labels.reshape(60, 1) == torch.arange(3)).float()
W = torch.zeros(4, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
result = []
for step in range(100):
    logp = torch.log_softmax(X @ W + b, 1)
    loss = -(logp * onehot).sum(1).mean()
    loss.backward()
    with torch.no_grad():
        W -= 0.5 * W.grad
        b -= 0.5 * b.grad
    W.grad = None
    b.grad = None
    if step % 10 == 0:
        result.append(loss.item())
result.append(torch.softmax(X[:3] @ W + b, 1).reshape(-1).tolist())""",
    "train_sigmoid_mse": """X = (torch.arange(150).reshape(50, 3) % 17) / 8.5 - 1.0
y = (X.sum(1, keepdim=True) > 0).float()
w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
result = []
for step in range(150):
    loss = ((torch.sigmoid(X @ w + b) - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 1.0 * w.grad
        b -= 1.0 * b.grad
    w.grad = None
    b.grad = None
    if step % 15 == 0:
        result.append(loss.item())
result.append(w.reshape(-1).tolist())""",
})

# --- torch.nn: F.linear's dispatch, modules with PyTorch's initialisation, optimizers over them
CASES.update({
    "copy_inplace": "x = torch.ones(3, requires_grad=True); y = torch.zeros(2, 3); y.copy_(x * 2);"
                    " z = torch.zeros(2, 3, dtype=torch.float64).copy_(torch.arange(3)); w = torch.zeros(2).copy_(4);"
                    " (y * y).sum().backward(); result = [y, graph(y), y._version, z, w, x.grad]",
    "err_copy_broadcast": "torch.zeros(3).copy_(torch.ones(2, 3))",
    "err_copy_size": "torch.zeros(2, 3).copy_(torch.ones(3, 3))",
    "err_copy_leaf": "torch.ones(3, requires_grad=True).copy_(torch.zeros(3))",
    "loss_reduction_bits": "torch.manual_seed(5); x = torch.randn(300) * 3; t = (torch.rand(300) > 0.5).float();"
                           " p = torch.rand(300) * 0.98 + 0.01; pw = torch.rand(300) + 0.5; w = torch.rand(300);"
                           " result = [F.binary_cross_entropy_with_logits(x, t, reduction='none').tolist(),"
                           " F.binary_cross_entropy_with_logits(x, t).item(),"
                           " F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, weight=w, reduction='sum').item(),"
                           " F.binary_cross_entropy(p, t).item(), F.smooth_l1_loss(x, t).item(),"
                           " F.huber_loss(x, t, reduction='sum').item()]",
    "nll_cascade_sums": "torch.manual_seed(2); x = torch.randn(300, 5).log_softmax(1); t = torch.randint(0, 5, (300,));"
                        " t[7] = -100; t[40] = -100; w = torch.rand(5) + 0.5;"
                        " result = [F.nll_loss(x[:n], t[:n], reduction=r).item() for n in (1, 8, 17, 33, 300)"
                        " for r in ('sum', 'mean')] + [F.nll_loss(x, t, weight=w).item(),"
                        " F.nll_loss(x, t, weight=w, reduction='sum').item(), F.cross_entropy(x * 3, t).item(),"
                        " F.nll_loss(x.double(), t).item()]",
    "linear_dispatch": "torch.manual_seed(0); W = torch.randn(3, 2, requires_grad=True);"
                       " b = torch.randn(3, requires_grad=True); xs = [torch.randn(2, requires_grad=True),"
                       " torch.randn(4, 2), torch.randn(5, 4, 2, requires_grad=True), torch.randn(4, 2, 2).transpose(0, 1)];"
                       " ys = [F.linear(x, W, b) for x in xs] + [F.linear(x, W) for x in xs];"
                       " sum(y.sum() for y in ys).backward();"
                       " result = [graph(y) for y in ys] + [y._version for y in ys] + [y.tolist() for y in ys]"
                       " + [W.grad.tolist(), b.grad.tolist(), xs[0].grad.tolist(), xs[2].grad.tolist()]",
    "linear_bias_shapes": "torch.manual_seed(0); W = torch.randn(3, 2); x = torch.randn(4, 2);"
                          " result = [F.linear(x, W, torch.randn(4, 3)), F.linear(x, W, torch.randn(1)),"
                          " F.linear(x, W, torch.tensor(2.)), F.linear(x.double(), W.double(), torch.ones(3, dtype=torch.float64))]",
    "err_linear_shapes": "F.linear(torch.randn(4, 3), torch.randn(3, 2), torch.randn(3))",
    "err_linear_vector_shapes": "F.linear(torch.randn(3), torch.randn(3, 2), torch.randn(3))",
    "err_linear_bias": "F.linear(torch.randn(4, 2), torch.randn(3, 2), torch.randn(4))",
    "err_linear_0d": "F.linear(torch.tensor(2.), torch.randn(3, 2), torch.randn(3))",
    "err_linear_bias_dtype": "F.linear(torch.randn(4, 2), torch.randn(3, 2), torch.randn(3).double())",
    "err_linear_input_dtype": "F.linear(torch.randn(4, 2).double(), torch.randn(3, 2), torch.randn(3))",
    "err_linear_weight_type": "F.linear(torch.randn(4, 2), [[1., 2.]])",
    "nn_linear_init": "torch.manual_seed(0); a = torch.nn.Linear(3, 2); b = torch.nn.Linear(20, 7);"
                      " c = torch.nn.Linear(5, 4, bias=False); d = torch.nn.Linear(4, 3, dtype=torch.float64);"
                      " result = [a, b, c, a.weight, a.bias, c.bias, b.weight.tolist(), b.bias.tolist(),"
                      " c.weight.tolist(), d.weight.tolist(), d.bias.dtype, a.in_features, a.out_features,"
                      " torch.rand(2).tolist()]",
    "nn_linear_forward_backward": "torch.manual_seed(0); lin = torch.nn.Linear(4, 3); x = torch.randn(6, 4);"
                                  " y = lin(x); loss = torch.nn.MSELoss()(y, torch.randn(6, 3)); loss.backward();"
                                  " result = [y, graph(loss), y.tolist(), loss.item(), lin.weight.grad.tolist(),"
                                  " lin.bias.grad.tolist(), lin(torch.ones(4)).tolist()]",
    "nn_sequential_mlp": "torch.manual_seed(0); model = torch.nn.Sequential(torch.nn.Linear(2, 8),"
                         " torch.nn.Tanh(), torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1),"
                         " torch.nn.Sigmoid()); x = torch.randn(10, 2); out = model(x); out.sum().backward();"
                         " result = [model, len(model), model[0], model[-1], model[1:3], graph(out), out.tolist(),"
                         " [n for n, p in model.named_parameters()], [p.grad.tolist() for p in model.parameters()]]",
    "nn_sgd_steps": """torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=0.01)
X = torch.randn(16, 3)
y = X.sum(1, keepdim=True)
loss_fn = torch.nn.MSELoss()
result = []
for step in range(5):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    result.append(loss.item())
result += [p.tolist() for p in model.parameters()]""",
    "nn_adam_steps": """torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
X = torch.randn(8, 4)
t = torch.tensor([0, 1, 2, 3, 1, 2, 0, 1])
loss_fn = torch.nn.CrossEntropyLoss()
result = []
for step in range(3):
    opt.zero_grad()
    loss = loss_fn(model(X), t)
    loss.backward()
    opt.step()
    result.append(loss.item())
result += [p.tolist() for p in model.parameters()]""",
    "nn_init_functions": "torch.manual_seed(3); w = torch.empty(4, 5); init = torch.nn.init;"
                         " result = [init.calculate_gain('relu'), init.calculate_gain('leaky_relu', 0.2),"
                         " init.calculate_gain('tanh'), init.xavier_uniform_(w).tolist(),"
                         " init.xavier_normal_(w, gain=2.0).tolist(), init.kaiming_uniform_(w).tolist(),"
                         " init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu').tolist(),"
                         " init.uniform_(w, -0.1, 0.1).tolist(), init.normal_(w, 1.0, 0.5).tolist(),"
                         " init.constant_(w, 0.3), init.ones_(w), init.zeros_(w), w._version]",
    "err_init_fan_1d": "torch.nn.init.xavier_uniform_(torch.empty(3))",
    "err_init_gain": "torch.nn.init.calculate_gain('cube')",
    "nn_init_parameter_no_grad": "torch.manual_seed(0); lin = torch.nn.Linear(3, 2);"
                                 " torch.nn.init.normal_(lin.weight, 0.0, 0.02); torch.nn.init.zeros_(lin.bias);"
                                 " y = lin(torch.ones(3)); result = [lin.weight, lin.bias, y, lin.weight.is_leaf,"
                                 " lin.weight._version]",
    "nn_activation_modules": "x = torch.linspace(-2, 2, 6).reshape(2, 3).requires_grad_(); nn = torch.nn;"
                             " mods = [nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.LeakyReLU(0.2), nn.Softmax(dim=1),"
                             " nn.LogSoftmax(dim=0), nn.GELU(), nn.ELU(alpha=0.5), nn.Identity(), nn.Flatten(0),"
                             " nn.SiLU(), nn.Softplus(beta=2.0), nn.LogSigmoid()];"
                             " ys = [m(x) for m in mods]; result = mods + ys",
    "nn_loss_modules": "torch.manual_seed(0); nn = torch.nn; x = torch.randn(4, 3, requires_grad=True);"
                       " p = torch.rand(4, 3); t = torch.tensor([0, 2, 1, 2]);"
                       " mods = [nn.MSELoss(), nn.MSELoss(reduction='sum'), nn.L1Loss(reduction='none'),"
                       " nn.CrossEntropyLoss(), nn.CrossEntropyLoss(label_smoothing=0.1), nn.NLLLoss(reduction='sum'),"
                       " nn.BCELoss(), nn.BCEWithLogitsLoss(pos_weight=torch.ones(3) * 2), nn.SmoothL1Loss(beta=0.5)];"
                       " result = mods + [mods[0](x, p), mods[1](x, p), mods[2](x, p), mods[3](x, t), mods[4](x, t),"
                       " mods[5](x.log_softmax(1), t), mods[6](x.sigmoid(), p), mods[7](x, p), mods[8](x, p),"
                       " mods[3].reduction, mods[4].label_smoothing]",
    "nn_loss_legacy_reduction": "x = torch.ones(2, 2); y = torch.zeros(2, 2);"
                                " result = [torch.nn.MSELoss(size_average=False)(x, y), torch.nn.L1Loss(reduce=False)(x, y)]",
    "nn_module_state": "torch.manual_seed(0); nn = torch.nn; m = nn.Sequential(nn.Linear(2, 2), nn.ReLU());"
                       " m.eval(); a = [m.training, m[0].training]; m.train(); b = [m.training, m[1].training];"
                       " m.requires_grad_(False); c = [p.requires_grad for p in m.parameters()];"
                       " m[0].weight.requires_grad_(); y = m(torch.ones(2)).sum(); y.backward(); g = m[0].weight.grad.clone();"
                       " m.zero_grad(); result = [a, b, c, g, m[0].weight.grad, m[0].bias.grad,"
                       " list(m.children()), len(list(m.modules())), m.double()[0].weight.dtype, m.to(torch.float32)[0].bias,"
                       " m.get_parameter('0.bias'), m.get_submodule('1'), m.cpu() is m, m.float() is m,"
                       " [n for n, _ in m.named_modules()], [n for n, _ in m.named_children()], m[0].extra_repr(),"
                       " m.apply(lambda mod: mod.train(False)) is m, m[1].training]",
    "err_nn_assign_tensor": "lin = torch.nn.Linear(2, 2); lin.weight = torch.ones(2, 2)",
    "err_nn_sequential_index": "torch.nn.Sequential(torch.nn.ReLU())[3]",
    "err_nn_sequential_item": "torch.nn.Sequential(torch.nn.ReLU(), torch.ones(2))",
    "err_nn_module_init_args": "torch.nn.Tanh(3)",
    "err_nn_module_init_kwargs": "torch.nn.Sigmoid(dim=1)",
    "err_nn_loss_weight_buffer": "torch.nn.NLLLoss(2.5)",
    "err_nn_loss_positional": "torch.nn.MSELoss(None, None, 'mean', 1)",
    "err_nn_forward_args": "torch.nn.Softmax(1)()",
    "err_nn_init_not_tensor": "torch.nn.init.ones_(3)",
    "err_nn_init_kaiming_not_tensor": "torch.nn.init.kaiming_uniform_([1, 2])",
    "err_uniform_bound_type": "torch.zeros(3).uniform_('a')",
    "err_normal_std_type": "torch.zeros(3, dtype=torch.long).normal_(0, 'b')",
    "nn_sequential_bool_index": "s = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh()); result = [s[True], s[False], s[-1]]",
    "nn_shared_parameters": "torch.manual_seed(0); lin = torch.nn.Linear(2, 2);"
                            " m = torch.nn.Sequential(lin, torch.nn.Tanh(), lin); (m(torch.ones(1, 2))).sum().backward();"
                            " result = [m, len(list(m.parameters())), [n for n, _ in m.named_parameters()], lin.weight.grad]",
})

CASES.update({
    # --- which grad_fn a version error names ---
    "err_version_saved_input_now": "x = torch.ones(3, requires_grad=True); y = x * 2; z = y * y;"
                                   " y.mul_(3); y.add_(1); z.sum().backward()",
    "err_version_saved_output": "x = torch.ones(3, requires_grad=True); y = x * 2; z = y.sigmoid();"
                                " z.mul_(2); (z * 1).sum().backward()",
    "err_version_input_was_output": "W = torch.ones(3, requires_grad=True); a = torch.sigmoid(W * 1);"
                                    " out = a * W; a.mul_(2); out.sum().backward()",
    "err_version_leaf_input": "x = torch.ones(3, requires_grad=True); y = torch.ones(3) * 1;"
                              " z = (y * x).sum(); y.add_(1); z.backward()",
})

CASES.update({
    "linspace_bits": "import math; xs = [torch.linspace(-math.pi, math.pi, n) for n in (2, 5, 17, 200, 2000)];"
                     " ys = [torch.linspace(0.1, 7.3, n, dtype=torch.float64) for n in (3, 33, 1001)];"
                     " result = [x.tolist() for x in xs] + [y.tolist() for y in ys]"
                     " + [torch.linspace(0, 10, 5, dtype=torch.int64), torch.linspace(2, 2, 1), torch.linspace(0, 1, 0)]",
    "split_chunk": "x = torch.arange(10.).requires_grad_(); y = x * 1; a, b, c = y.split(4);"
                   " p = y.chunk(4); q = torch.split(y, [3, 7]); (a.sum() + 2 * c.sum() + p[3].sum() * 3"
                   " + q[1].sum()).backward(); result = [a, b, c, p, q, x.grad, torch.arange(4.).chunk(3),"
                   " torch.zeros(0).chunk(2), torch.zeros(0).split(2), torch.arange(6.).reshape(2, 3).chunk(2, dim=1)]",
    "err_split_sizes": "torch.arange(10.).split([3, 3])",
    "err_split_zero": "torch.arange(10.).split(0)",
    "err_chunk_zero": "torch.arange(10.).chunk(0)",
    "err_multi_view_inplace_unbind": "x = torch.ones(3, requires_grad=True) * 1; a, b, c = x.unbind(); b.add_(1)",
    "err_multi_view_inplace_split": "x = torch.ones(3, requires_grad=True) * 1; a, b = x.split(2); a.mul_(2)",
    "err_multi_view_inplace_iter": "x = torch.ones(3, requires_grad=True) * 1\nfor r in x: r.mul_(2)",
    "multi_view_inplace_ok": "x = torch.ones(3) * 1; a, b, c = x.unbind(); a.add_(1);"
                             " y = torch.ones(3, requires_grad=True) * 1\nwith torch.no_grad():\n"
                             "    p, q, r = y.unbind(); p.add_(1)\nresult = [x, y]",
    "err_no_grad_view_inplace": "w = torch.zeros(2, 4, requires_grad=True)\nwith torch.no_grad():\n"
                                "    r = w[0]\nr.add_(torch.ones(4))",
    "err_no_grad_view_inplace_operand": "w = torch.zeros(2, 4)\nwith torch.no_grad():\n"
                                        "    r = w[0]\nr.add_(torch.ones(4, requires_grad=True))",
    "no_grad_view_inplace_ok": "w = torch.zeros(2, 4)\nwith torch.no_grad():\n    r = w[0]\n"
                               "r.add_(torch.ones(4)); result = [w, r._version]",
    "closeness": "a = torch.tensor([1., 2., float('nan'), float('inf')]);"
                 " b = torch.tensor([1., 2.0000001, float('nan'), float('inf')]);"
                 " result = [torch.allclose(a, b), torch.allclose(a, b, equal_nan=True),"
                 " torch.isclose(a, b), a.isclose(b, equal_nan=True), torch.equal(a, b), torch.equal(a, a),"
                 " a.equal(a[:2]), torch.equal(torch.ones(2), torch.ones(2, dtype=torch.int64)),"
                 " torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])),"
                 " torch.isclose(torch.tensor([1.]), torch.tensor([1.1]), rtol=0.2),"
                 " torch.allclose(torch.ones(2, requires_grad=True), torch.ones(2))]",
    "err_isclose_dtypes": "torch.isclose(torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "err_allclose_shapes": "torch.allclose(torch.ones(2), torch.ones(3))",
})

CASES.update({
    "size_keyword": "torch.manual_seed(1); result = [torch.zeros(size=(2, 3)), torch.ones(size=[2]),"
                    " torch.empty(size=(1,)).shape, torch.rand(size=(2,)), torch.randn(size=(2, 2))]",
})

CASES.update({
    "contiguity": "x = torch.ones(3, 4); result = [x.is_contiguous(), x.t().is_contiguous(), x.stride(),"
                  " x.t().stride(), x.t().stride(0), x[:, 1].stride(), x[:, 1].is_contiguous(),"
                  " torch.ones(3, 1).t().is_contiguous(), x.t().contiguous().is_contiguous()]",
})

# --- ops group A: comparison, logical, pointwise, cumulative ---
CASES.update({
    "compare_functions": "x = torch.tensor([1.0, -2.0, 3.0, float('nan')]); y = torch.tensor([1.0, 2.0, -3.0, 4.0]);"
                         " i = torch.tensor([3, 5, -6, 0]); result = [torch.eq(x, y), x.ne(y), torch.lt(x, 1.0),"
                         " x.le(y), torch.gt(i, 0), i.ge(1.5), torch.ne(i, 1.5), x.lt(i), torch.greater(x, y),"
                         " x == y, x != y, x < 2, i >= i, 2 > x, torch.eq(x, x).dtype]",
    "logic_functions": "x = torch.tensor([[1.0, -2.0], [0.0, float('nan')]]); b = torch.tensor([[True, False], [True, False]]);"
                       " i = torch.tensor([[3, 0], [-6, 0]]); result = [torch.logical_and(b, x > 0),"
                       " torch.logical_or(b, x), torch.logical_xor(b, i), torch.logical_not(x), b.logical_not(),"
                       " torch.any(b), torch.all(b), b.any(), x.all(), i.any(dim=1), torch.all(x, 0, True),"
                       " torch.any(i, dim=(0, 1)), torch.any(torch.tensor(0.0), 0), torch.count_nonzero(x),"
                       " torch.count_nonzero(i, dim=0), x.count_nonzero(1), torch.isnan(x), x.isinf(),"
                       " torch.isfinite(x / 0), torch.isnan(i), i.isfinite(), torch.where(b)]",
    "bitwise_functions": "b = torch.tensor([True, False, True]); c = torch.tensor([True, True, False]);"
                         " i = torch.tensor([3, 5, -6]); result = [torch.bitwise_and(i, 6), torch.bitwise_or(i, i),"
                         " torch.bitwise_xor(b, c), torch.bitwise_not(i), torch.bitwise_not(b), b & c, b | c, b ^ c,"
                         " ~b, ~i, i & 1, 4 | i, True ^ b, b & True, i.bitwise_and(b)]",
    "bitwise_wrapping": "u = torch.tensor([1, 2], dtype=torch.uint8); result = [torch.bitwise_or(u, -1), u & 300, u | True,"
                        " torch.bitwise_xor(torch.tensor([1, 2], dtype=torch.int8), 200), torch.sgn(torch.tensor([True, False]))]",
    "err_logical_and_number": "torch.logical_and(torch.ones(2) > 0, 1)",
    "err_bitwise_float": "torch.bitwise_and(torch.ones(2), 1)",
    "err_bitwise_float_operator": "torch.tensor([True]) & torch.ones(1)",
    "err_invert_float": "~torch.ones(2)",
    "err_any_dim": "torch.ones(2).any(dim=3)",
    "err_eq_shapes": "torch.eq(torch.ones(3), torch.ones(2))",
    "err_eq_string": "torch.eq(torch.ones(3), 'a')",
})
CASES.update({
    "pointwise_two_args": "torch.manual_seed(0); x = torch.randn(2, 3, requires_grad=True); y = torch.randn(3, requires_grad=True);"
                          " outs = [torch.atan2(x, y), torch.arctan2(y, x), torch.hypot(x, y), torch.logaddexp(x, y), torch.fmod(x, 0.3),"
                          " torch.fmod(x, y), x.remainder(y), torch.xlogy(x, y.abs()), torch.xlogy(x, 2.0), torch.xlogy(2.0, x.abs()),"
                          " torch.copysign(x, y), torch.copysign(x, -1.0), x.hypot(y), x.atan2(y)];"
                          " gs = [torch.autograd.grad(o.sum(), (x, y), allow_unused=True) for o in outs];"
                          " result = outs + gs + [graph(o) for o in outs]",
    "lerp_addcmul": "torch.manual_seed(1); x = torch.randn(2, 3, requires_grad=True); y = torch.randn(2, 3, requires_grad=True);"
                    " w = torch.rand(3, requires_grad=True); outs = [torch.lerp(x, y, 0.3), x.lerp(y, 0.75), torch.lerp(x, y, w),"
                    " torch.addcmul(x, y, w, value=0.5), x.addcmul(y, y), torch.addcdiv(x, y, w + 1, value=-2), x.addcdiv(y, w + 1)];"
                    " gs = [torch.autograd.grad(o.sum(), (x, y, w), allow_unused=True) for o in outs];"
                    " z = x * 1; z.addcmul_(y, w, value=2); z.lerp_(y, 0.5); z.addcdiv_(y, w + 1);"
                    " result = outs + gs + [graph(o) for o in outs] + [z, graph(z)]",
    "pointwise_unary_group_a": "x = torch.tensor([-1.5, -0.25, 0.0, 0.5, 2.0], requires_grad=True);"
                               " outs = [torch.tan(x), x.tan(), torch.asinh(x), torch.arcsinh(x), torch.acosh(x.abs() + 1),"
                               " torch.atanh(x / 3), torch.arctanh(x / 3), torch.exp2(x), torch.frac(x * 3), torch.sgn(x),"
                               " torch.fix(x * 3), torch.arcsin(x / 3), torch.arccos(x / 3), torch.arctan(x),"
                               " torch.nan_to_num(x / x.detach()), torch.nan_to_num(x / 0, nan=1.0, posinf=2.0, neginf=None),"
                               " torch.float_power(x, 2), torch.float_power(x.abs() + 1, x), torch.clamp_min(x, 0.1), x.clamp_max(0.1)];"
                               " gs = [torch.autograd.grad(o.sum(), x) for o in outs]; result = outs + gs + [graph(o) for o in outs]",
    "pointwise_int_inputs": "i = torch.tensor([1, 2, -3]); result = [torch.atan2(i, i), torch.fmod(i, 2), torch.fmod(i, -2.5),"
                            " torch.xlogy(i, i), torch.copysign(i, -1), torch.tan(i), torch.asinh(i), torch.exp2(i), torch.sgn(i),"
                            " torch.nan_to_num(i), torch.float_power(i, 2), torch.addcmul(i, i, i, value=2), torch.addcmul(i, i, i, value=0.5),"
                            " torch.lerp(i.float(), i.float(), torch.tensor(0.5, dtype=torch.float64)), torch.fmod(torch.ones(3), torch.tensor([2, 2, 0]))]",
    "cumulative_reductions": "torch.manual_seed(2); x = torch.randn(3, 4, requires_grad=True); r = torch.round(x.detach() * 2).requires_grad_();"
                             " outs = [torch.cumsum(x, 1), x.cumsum(dim=0), torch.cumprod(x, 1), torch.logsumexp(x, 1), x.logsumexp((0, 1), keepdim=True),"
                             " torch.amax(x), torch.amax(x, 1), x.amin(0, True), torch.amax(r, 1), torch.amin(r, (0, 1)), torch.nansum(x), torch.nansum(x, 1, keepdim=True),"
                             " torch.nanmean(x), torch.nanmean(x, 0), torch.trace(x), torch.dist(x, x.detach() * 0.5), torch.dist(x, torch.ones(4), 3),"
                             " torch.diff(x), torch.diff(x, n=2, dim=0), torch.diff(x, prepend=torch.zeros(3, 1))];"
                             " gs = [torch.autograd.grad(o.sum(), x if o is not outs[8] and o is not outs[9] else r) for o in outs];"
                             " result = outs + gs + [graph(o) for o in outs]",
    "cumulative_int_and_special": "i = torch.tensor([[1, 2, 3], [4, 0, 6]]); b = torch.tensor([True, False, True, True]);"
                                  " result = [torch.cumsum(i, 0), torch.cumsum(b, 0), torch.cumsum(torch.ones(3), 0, dtype=torch.int64),"
                                  " torch.cumprod(i, 1), torch.logsumexp(i, 1), torch.amax(i), torch.amin(i, 1), torch.nansum(i), torch.trace(i),"
                                  " torch.diff(i), torch.diff(b), torch.diff(torch.arange(3.), n=5),"
                                  " torch.logsumexp(torch.tensor([float('inf'), 1.]), 0), torch.logsumexp(torch.ones(0), 0),"
                                  " torch.cumsum(torch.tensor(2.0), 0), torch.nanmean(torch.tensor([float('nan')])),"
                                  " torch.nansum(torch.tensor([1., float('nan'), 2.])), torch.trace(torch.ones(2, 3))]",
    "cumprod_zero_grad": "x = torch.tensor([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, 0.0, 2.0]], requires_grad=True);"
                         " y = torch.cumprod(x, 1); g, = torch.autograd.grad(y.sum(), x, create_graph=True);"
                         " h, = torch.autograd.grad((g * g).sum(), x); result = [y, g.detach(), h]",
    "cumsum_double_backward": "x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True); y = (x.cumsum(0) * x).sum();"
                              " g, = torch.autograd.grad(y, x, create_graph=True); h, = torch.autograd.grad(g.sum(), x); result = [g, h]",
    "aminmax": "x = torch.tensor([[1., 3., 3.], [0., -1., 2.]], requires_grad=True); r = torch.aminmax(x);"
               " r2 = torch.aminmax(x, dim=1, keepdim=True); (r.min + 2 * r.max).backward(); mn, mx = x.aminmax(dim=0);"
               " result = [r, r.min, r[1], r2, x.grad, mn, mx, torch.aminmax(torch.tensor([3, 1])), r.min.grad_fn.name()]",
    "err_aminmax_empty": "torch.aminmax(torch.ones(0))",
    "inplace_group_a": "x = torch.tensor([0.5, -1.5, 2.0, float('nan')], requires_grad=True); y = torch.tensor([1.0, 2.0, -0.5, 3.0], requires_grad=True);"
                       " zs = [x * 1 for _ in range(11)]; rs = [zs[0].clamp_min_(0.0), zs[1].clamp_max_(1.0), zs[2].nan_to_num_(),"
                       " zs[3].nan_to_num_(nan=1.0, posinf=2.0), zs[4].cumsum_(0), zs[5].fmod_(0.7), zs[6].fmod_(y), zs[7].copysign_(y),"
                       " zs[8].xlogy_(2.0), zs[9].atan2_(y), zs[10].hypot_(y)];"
                       " result = rs + [torch.autograd.grad(r.nansum(), (x, y), allow_unused=True) for r in rs] + [graph(r) for r in rs]",
    "err_inplace_int_fmod": "torch.tensor([1, 2]).fmod_(1.5)",
    "err_inplace_atan2_number": "(torch.ones(2) * 1).atan2_(1.0)",
    "err_inplace_leaf_clamp_min": "torch.ones(2, requires_grad=True).clamp_min_(0)",
    "reductions_dtype": "x = torch.tensor([1., 2., float('nan')], requires_grad=True); i = torch.tensor([[1, 2], [3, 4]]);"
                        " outs = [torch.nansum(x, dtype=torch.float64), torch.cumsum(x, 0, dtype=torch.float64),"
                        " torch.nanmean(x, dtype=torch.float64), x.cumprod(0, dtype=torch.float64)];"
                        " gs = [torch.autograd.grad(o.nansum(), x) for o in outs];"
                        " result = outs + gs + [graph(o) for o in outs] + [torch.cumsum(i, 1, dtype=torch.float32),"
                        " torch.nansum(i, 0, dtype=torch.float64), torch.cumprod(i, 0, dtype=torch.int32), torch.cumsum(torch.ones(3), 0, dtype=torch.int64)]",
    "err_fmod_int_zero": "torch.fmod(torch.tensor([1, 2]), torch.tensor([1, 0]))",
    "err_cumsum_no_dim": "torch.cumsum(torch.ones(2))",
    "err_logsumexp_no_dim": "torch.logsumexp(torch.ones(2))",
    "err_atan2_number": "torch.atan2(torch.ones(2), 1.0)",
    "err_lerp_number_end": "torch.lerp(torch.ones(2), 1.0, 0.5)",
    "err_lerp_dtype": "torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.int64), 0.5)",
    "err_lerp_weight_dtype": "torch.lerp(torch.ones(2), torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "err_addcdiv_int": "torch.addcdiv(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))",
    "err_hypot_int": "torch.hypot(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))",
    "err_logaddexp_int": "torch.logaddexp(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))",
    "err_frac_int": "torch.frac(torch.ones(2, dtype=torch.int64))",
    "err_amax_empty": "torch.amax(torch.ones(0))",
    "err_amax_dim": "torch.amax(torch.ones(3), 3)",
    "err_cumsum_dim": "torch.ones(3).cumsum(2)",
    "err_trace_vector": "torch.trace(torch.ones(3))",
    "err_dist_int": "torch.dist(torch.ones(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64))",
    "err_dist_shapes": "torch.dist(torch.ones(3), torch.ones(2))",
    "err_nanmean_int": "torch.nanmean(torch.ones(2, dtype=torch.int64))",
    "err_diff_zero_dim": "torch.diff(torch.tensor(1.0))",
    "err_fmod_string": "torch.fmod(torch.ones(2), 'a')",
    "err_diff_order": "torch.diff(torch.ones(3), n=-1)",
    "err_diff_prepend_number": "torch.diff(torch.ones(3), prepend=1)",
    "err_diff_prepend_dims": "torch.diff(torch.ones(2, 2), append=torch.ones(2))",
    "err_amin_empty_dim": "torch.amin(torch.zeros(2, 0), 1)",
    "err_cumsum_dtype_bool": "torch.cumsum(torch.ones(2), 0, dtype=torch.bool)",
    "err_cumsum_dim_type": "torch.cumsum(torch.ones(2), 'a')",
    "err_logsumexp_dim_type": "torch.logsumexp(torch.ones(2), dim='a')",
    "err_trace_bool": "torch.trace(torch.ones(2, 2, dtype=torch.bool))",
    "err_float_power_string": "torch.float_power('a', 2)",
})

# --- torch.nn.functional: activations, normalisation, distances, padding, dropout, losses ---
# G(y, *ts): the gradients of y.sum() with respect to ts (None where unused), graph kept
_G = ("def G(y, *ts):\n    for t in ts:\n        t.grad = None\n    y.sum().backward(retain_graph=True)\n"
      "    return [t.grad for t in ts]\n")
_FX = _G + "x = torch.tensor([[-3.5, -3., -0.5, 0., 0.5, 3.], [4., 1.5, -1., -0.25, 0.2, 2.]], requires_grad=True);"
CASES.update({
    "nn_activations": _FX + " ys = [F.relu6(x * 2), F.hardswish(x), F.hardsigmoid(x), F.softsign(x), F.mish(x),"
                      " torch.logit(x.sigmoid()), torch.logit(x * 0.1 + 0.5, eps=0.2), (x * 0.1 + 0.5).logit(),"
                      " F.selu(x), torch.selu(x), F.celu(x, 0.5), torch.celu(x), F.softshrink(x, 0.5), F.hardshrink(x),"
                      " x.hardshrink(1.), torch.hardshrink(x, 0.3), F.tanhshrink(x), F.glu(x), F.glu(x, 0),"
                      " F.softmin(x, dim=1), F.softmin(x, 0, dtype=torch.float64), F.threshold(x, 0.1, 20.),"
                      " torch.threshold(x, 0., -1.)]; g = [graph(y) for y in ys];"
                      " gs = [G(y, x) for y in ys]; result = ys + g + gs",
    "nn_activations_inplace": _FX + " ys = []\n"
                              "for f in (lambda t: F.relu6(t, inplace=True), lambda t: F.hardswish(t, True),"
                              " lambda t: F.hardsigmoid(t, inplace=True), lambda t: F.mish(t, True), lambda t: F.selu(t, True),"
                              " lambda t: F.celu(t, 0.5, True), lambda t: F.threshold(t, 0.1, 2., True), torch.selu_,"
                              " lambda t: torch.celu_(t, 2.), lambda t: torch.threshold_(t, 0., -1.)):\n"
                              "    y = x * 1; r = f(y); ys += [r is y, y, graph(y), G(y, x)]\n"
                              "result = ys",
    "nn_softmin_implicit": "x = torch.tensor([[1., 2.], [3., 5.]]); result = [F.softmin(x), F.softmin(x[0])]",
    "nn_normalize_distance": _FX + " w = torch.tensor([[0.5, -1., 2., 0.25, 1.5, -0.75], [1., 0.5, -2., 1., 0.3, 0.2]],"
                             " requires_grad=True); ys = [F.normalize(x), F.normalize(x, p=1, dim=0),"
                             " F.normalize(x, dim=-1, eps=10.), F.normalize(torch.zeros(2, 2, requires_grad=True)),"
                             " F.cosine_similarity(x, w), F.cosine_similarity(x, w, dim=0), torch.cosine_similarity(x, w[0]),"
                             " F.cosine_similarity(x, torch.zeros(6)), F.pairwise_distance(x, w),"
                             " F.pairwise_distance(x, w, p=1, keepdim=True), torch.pairwise_distance(x, w[1], eps=0.)];"
                             " g = [graph(y) for y in ys]; gs = [G(y, x, w) for y in ys]; result = ys + g + gs + [F.cosine_similarity(torch.tensor([1, 2]),"
                             " torch.tensor([2., 1.]), dim=0)]",
    "nn_layer_norm": _FX + " lw = torch.linspace(0.5, 1.5, 6, requires_grad=True);"
                     " lb = torch.linspace(-0.2, 0.3, 6, requires_grad=True); ys = [F.layer_norm(x, (6,)),"
                     " F.layer_norm(x, [6], lw, lb), F.layer_norm(x, x.shape), F.layer_norm(x, (6,), weight=lw),"
                     " F.layer_norm(x, (6,), bias=lb, eps=0.5), torch.layer_norm(x, [6])];"
                     " g = [graph(y) for y in ys]; gs = [G(y * torch.arange(6.), x, lw, lb) for y in ys]; result = ys + g + gs",
    "nn_pad": _FX + " ys = [F.pad(x, (1, 2)), F.pad(x, (1, -2, 1, 0), value=3.5), F.pad(x, [0, 0, 2, 0]),"
              " F.pad(x, (-1, -1)), F.pad(x, (1, 1, 1, 1), 'constant', -1.), torch.constant_pad_nd(x, (1, 0), 2.),"
              " F.pad(torch.arange(3), (1, 1))]; g = [graph(y) for y in ys[:-1]];"
              " gs = [G(y * y, x) for y in ys[:-1]]; result = ys + g + gs",
    "nn_dropout": _FX + " torch.manual_seed(0); ys = [F.dropout(x, 0.3), F.dropout(x, training=False) is x,"
                  " F.dropout(x, 0.), F.dropout(x, 1.), F.dropout(torch.ones(20, dtype=torch.float64), 0.75)];"
                  " g = [graph(ys[0]), graph(ys[3])]; gs = G(ys[0], x);"
                  " y = x * 1; F.dropout(y, 0.5, inplace=True); result = ys + g + [gs, y, graph(y), torch.rand(3)]",
    "nn_kl_soft_margin": _FX + " t = torch.tensor([[0.1, 0.2, 0.3, 0.2, 0.1, 0.1], [0.5, 0., 0.1, 0.1, 0.2, 0.1]],"
                         " requires_grad=True); lp = F.log_softmax(x, 1); ys = [F.kl_div(lp, t, reduction='batchmean'),"
                         " F.kl_div(lp, t, reduction='sum'), F.kl_div(lp, t, reduction='none'), F.kl_div(lp, t),"
                         " F.kl_div(lp, t.log(), reduction='batchmean', log_target=True),"
                         " F.soft_margin_loss(x, torch.sign(t.detach() - 0.15)), F.soft_margin_loss(x, torch.sign(t.detach() - 0.15), reduction='sum'),"
                         " F.soft_margin_loss(x, torch.sign(t.detach() - 0.15), reduction='none')];"
                         " g = [graph(y) for y in ys]; gs = [G(y, x, t) for y in ys]; result = ys + g + gs",
    "err_glu_odd": "F.glu(torch.ones(2, 3))",
    "err_layer_norm_int_shape": "F.layer_norm(torch.ones(2, 6), 6)",
    "err_soft_margin_target_grad": "F.soft_margin_loss(torch.ones(2), torch.ones(2, requires_grad=True))",
    "err_glu_dim": "F.glu(torch.ones(2, 4), 2)",
    "err_layer_norm_shape": "F.layer_norm(torch.ones(2, 6), (5,))",
    "err_layer_norm_weight": "F.layer_norm(torch.ones(2, 6), (6,), torch.ones(4))",
    "err_layer_norm_int": "F.layer_norm(torch.ones(2, 6, dtype=torch.int64), (6,))",
    "err_pad_odd": "F.pad(torch.ones(2, 6), (1, 2, 3))",
    "err_pad_long": "F.pad(torch.ones(2), (1, 1, 1, 1))",
    "err_pad_negative": "F.pad(torch.ones(2, 3), (-2, -2))",
    "err_dropout_p": "F.dropout(torch.ones(2), 1.5)",
    "err_normalize_dim": "F.normalize(torch.ones(3))",
    "err_cosine_int": "F.cosine_similarity(torch.tensor([1, 2]), torch.tensor([2, 1]), dim=0)",
    "err_cosine_shapes": "F.cosine_similarity(torch.ones(2, 3), torch.ones(2, 4))",
    "err_int_hardswish": "F.hardswish(torch.tensor([-1, 2]))",
    "err_int_mish": "F.mish(torch.tensor([-1, 2]))",
    "err_int_selu": "F.selu(torch.tensor([-1, 2]))",
    "err_int_softshrink": "F.softshrink(torch.tensor([-1, 2]))",
    "err_int_glu": "F.glu(torch.tensor([-1, 2]))",
    "err_inplace_leaf_relu6": "F.relu6(torch.ones(2, requires_grad=True), inplace=True)",
    "nn_int_inputs": "x = torch.tensor([-1, 2, 5]); result = [F.relu6(x), F.threshold(x, 1, 0), torch.logit(x),"
                     " F.hardshrink(x.float()), F.softsign(x), F.tanhshrink(x)]",
})

CASES.update({
    "nn_batch_norm": _G + "x = (torch.arange(24.).reshape(4, 6) % 7 - 3).requires_grad_(); rm = torch.zeros(6);"
                     " rv = torch.ones(6); w = torch.linspace(0.5, 1.5, 6, requires_grad=True);"
                     " b = torch.linspace(-1, 1, 6, requires_grad=True); c = (torch.arange(24.) ** 2 / 50).reshape(4, 6).cos();"
                     " ys = [F.batch_norm(x, rm, rv, w, b, training=True), F.batch_norm(x, None, None, training=True),"
                     " F.batch_norm(x, rm, rv, w, b), F.batch_norm(x, rm, rv, training=True, momentum=0.5, eps=0.1),"
                     " torch.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False)];"
                     " g = [graph(y) for y in ys]; gs = [G(y * c, x, w, b) for y in ys];"
                     " z = torch.arange(24.).reshape(2, 3, 4).sin().requires_grad_(); o = F.batch_norm(z, None, None, training=True);"
                     " result = ys + g + gs + [rm, rv, rm._version, o, graph(o), G(o * o * z, z)]",
    "err_batch_norm_eval": "F.batch_norm(torch.ones(3, 2), None, None)",
    "err_batch_norm_one_value": "F.batch_norm(torch.ones(1, 2), None, None, training=True)",
    "err_batch_norm_size": "F.batch_norm(torch.ones(3, 2), torch.zeros(3), torch.ones(3))",
    "err_batch_norm_int": "F.batch_norm(torch.ones(3, 2, dtype=torch.int64), None, None, training=True)",
    "err_batch_norm_1d": "F.batch_norm(torch.ones(3), None, None, training=True)",
})

CASES.update({
    "nn_pad_reflect_replicate": _G + "x = torch.arange(1., 7.).reshape(2, 3).requires_grad_();"
                                " z = torch.arange(24.).reshape(1, 2, 3, 4).requires_grad_(); ys = []\n"
                                "for mode in ('reflect', 'replicate'):\n"
                                "    ys += [F.pad(x, (2, 1), mode=mode), F.pad(x.unsqueeze(0), (1, 2, 1, 0), mode=mode),"
                                " F.pad(z, (1, 1, 1, 1, 1, 0), mode=mode), F.pad(z, (2, 0, 1, 1), mode), F.pad(x, (-1, 1), mode=mode),"
                                " F.pad(x.long(), (1, 1), mode=mode)]\n"
                                "result = ys + [graph(y) for y in ys] + [G(y * y, x, z) for y in ys if y.requires_grad]",
    "nn_pad_circular": _G + "torch.manual_seed(0); x = torch.randn(1, 2, 4, requires_grad=True); z = torch.randn(1, 1, 3, 3, dtype=torch.float64, requires_grad=True);"
                       " w = torch.randn(2, 3, 2, 2, 2, requires_grad=True);"
                       " ys = [F.pad(x, (2, 1), mode='circular'), F.pad(x, (-1, 2), mode='circular'), F.pad(x, (1, 1, 1, 1), mode='circular'),"
                       " F.pad(x[0], (3, 4), mode='circular'), F.pad(z, (1, 1, 2, 0), mode='circular'), F.pad(z, (0, -1, 2, -1), mode='circular'),"
                       " F.pad(w, (1, 0, 0, 1, 1, 1), mode='circular'), F.pad(x, (0, 0), mode='circular'), F.pad(x, (-2, -2), mode='circular')];"
                       " result = ys + [graph(y) for y in ys[:5]] + [G(y * torch.arange(float(y.shape[-1])).to(y.dtype), x, z, w) for y in ys]",
    "nn_conv_circular": _G + "torch.manual_seed(0); nn = torch.nn; x = torch.randn(2, 2, 5, requires_grad=True); z = torch.randn(1, 1, 4, 3, dtype=torch.float64, requires_grad=True);"
                        " c1 = nn.Conv1d(2, 3, 3, padding=1, padding_mode='circular'); c2 = nn.Conv2d(1, 2, 3, padding=(2, 1), padding_mode='circular', dtype=torch.float64);"
                        " c3 = nn.Conv2d(1, 2, (3, 2), padding='same', padding_mode='circular', dtype=torch.float64); c4 = nn.Conv1d(2, 2, 2, padding=2, dilation=2, padding_mode='circular');"
                        " ys = [c1(x), c2(z), c3(z), c4(x)]; result = [c1, c2, c3, c4] + ys + [graph(ys[0]), graph(ys[2])] + [G(y * y, x, z) for y in ys]",
    "err_pad_circular_wrap": "F.pad(torch.ones(1, 2, 3), (4, 0), mode='circular')",
    "err_pad_circular_empty": "F.pad(torch.ones(1, 2, 3), (-2, -2), mode='circular')",
    "err_pad_circular_dims": "F.pad(torch.ones(3), (1, 1), mode='circular')",
    "err_pad_circular_overlap": "F.pad(torch.ones(1, 1, 3, 3), (0, -1, 3, -2), mode='circular')",
    "err_pad_circular_overlap_right": "F.pad(torch.ones(1, 1, 3), (-2, 3), mode='circular')",
    "err_pad_reflect_size": "F.pad(torch.ones(2, 3), (3, 0), mode='reflect')",
    "err_pad_reflect_size_h": "F.pad(torch.ones(1, 2, 3), (0, 0, 2, 0), mode='reflect')",
    "err_pad_reflect_dims": "F.pad(torch.ones(3), (1, 1), mode='reflect')",
    "err_pad_reflect_value": "F.pad(torch.ones(2, 3), (1, 1), mode='reflect', value=1.)",
    "err_pad_mode": "F.pad(torch.ones(2, 3), (1, 1), mode='bad')",
    "err_pad_replicate_small": "F.pad(torch.ones(2, 3), (-3, 0), mode='replicate')",
    "err_pad_replicate_negative_2d": "F.pad(torch.ones(1, 2, 3), (0, 0, -2, -1), mode='replicate')",
    "nn_pad_replicate_empty": "result = [F.pad(torch.ones(1, 2, 3), (0, 0, -1, -1), mode='replicate'),"
                              " F.pad(torch.ones(1, 1, 2, 3), (-3, 0, 0, 0), mode='replicate')]",
})

CASES.update({
    "nn_inplace_functions": _G + "x = torch.tensor([-1.5, 0.2, 0.7, 2.0], requires_grad=True); out = []\n"
                            "for f in (F.relu_, lambda t: F.elu_(t, 2.), lambda t: F.hardtanh_(t, 0., 0.5),"
                            " lambda t: F.leaky_relu_(t, 0.5), torch.relu_, F.selu_, lambda t: F.celu_(t, 0.5),"
                            " lambda t: F.threshold_(t, 0.5, -2.), lambda t: t.mul_(0.1).add_(0.5).logit_(),"
                            " lambda t: torch.logit_(t.mul_(0.1).add_(0.5), eps=0.3)):\n"
                            "    y = x * 1; r = f(y); out += [r is y, y, graph(y), G(y, x)]\n"
                            "result = out",
})

CASES.update({
    "nn_dropout_layouts": "torch.manual_seed(0); result = [F.dropout(torch.ones(3, 4).t(), 0.5),"
                          " F.dropout(torch.arange(12.).reshape(3, 4)[:, 1:], 0.5),"
                          " F.dropout(torch.ones(2, 3, 4).transpose(0, 2), 0.25), torch.rand(2)]",
})

CASES.update({
    "err_celu_alpha_zero": "F.celu(torch.ones(2), 0.)",
    "err_batch_norm_momentum": "F.batch_norm(torch.ones(3, 2), None, None, training=True, momentum=None)",
    "err_layer_norm_eps": "F.layer_norm(torch.ones(3, 2), (2,), eps='a')",
    "err_pad_int": "F.pad(torch.ones(3, 2), 1)",
    "err_pad_float": "F.pad(torch.ones(3, 2), (1.5, 1))",
    "err_glu_dim_type": "F.glu(torch.ones(3, 2), dim='a')",
    "err_dropout_p_type": "F.dropout(torch.ones(3, 2), 'a')",
})

# --- ops group B: selection, sorting, reordering, shape ---
_X = "torch.manual_seed(0); x = torch.randn(3, 4, requires_grad=True); "
CASES.update({
    "gather_scatter": _X + "i = torch.tensor([[0, 1, 2, 0], [1, 0, 0, 2]]);"
                      " g = torch.gather(x, 0, i); s = torch.scatter(x, 0, i, g * 2);"
                      " sv = x.scatter(1, torch.tensor([[3], [0], [1]]), -1.5);"
                      " sa = torch.scatter_add(x, 0, i, x[:2]);"
                      " (g.sum() + s.sum() + (sv * sv).sum() + (sa * sa).sum()).backward();"
                      " result = [g, s, sv, sa, x.grad, graph(g), graph(s), graph(sv), graph(sa),"
                      " x.gather(1, torch.tensor([[0, 0], [1, 3], [2, 2]], dtype=torch.int32))]",
    "scatter_inplace": "x = torch.zeros(3, 4); i = torch.tensor([[0, 1, 2, 0]]);"
                       " x.scatter_(0, i, 5.0); y = torch.zeros(3, 4);"
                       " y.scatter_add_(0, torch.tensor([[0, 0, 1, 1]]), torch.ones(1, 4));"
                       " w = torch.ones(3, 4, requires_grad=True) * 1; w.scatter_(0, i, torch.ones(1, 4) * 7);"
                       " result = [x, y, w, x._version, graph(w)]",
    "index_select_add_take": _X + "a = torch.index_select(x, 1, torch.tensor([0, 2, 2]));"
                             " b = torch.index_add(x, 0, torch.tensor([0, 2, 0]), x * 3, alpha=0.5);"
                             " c = torch.take(x, torch.tensor([[0, 5], [-1, 5]]));"
                             " (a.sum() + (b * b).sum() + c.sum()).backward();"
                             " result = [a, b, c, x.grad, graph(a), graph(b), graph(c),"
                             " x.index_select(0, torch.tensor(1)), torch.take(x, torch.tensor(3))]",
    "masked_select_fill": _X + "m = x > 0; s = torch.masked_select(x, m);"
                          " f = x.masked_fill(m, 0.5); v = torch.tensor(2., requires_grad=True);"
                          " ft = x.masked_fill(x <= 0, v); (s.sum() + (f * f).sum() + (ft * 3).sum()).backward();"
                          " result = [s, f, ft, x.grad, v.grad, graph(s), graph(f), graph(ft),"
                          " torch.masked_select(x, torch.tensor([True, False, True, False])),"
                          " torch.masked_fill(x, m, -1.)]",
    "sort_topk": _X + "s = torch.sort(x, 1); d = x.sort(dim=0, descending=True);"
                 " st = torch.sort(x, stable=True); t = torch.topk(x, 2); u = x.topk(2, 0, largest=False);"
                 " (s.values * 1).sum().backward(retain_graph=True); (t.values * 2).sum().backward();"
                 " result = [s, d, st.values, t, u, x.grad, graph(s.values), graph(st.values),"
                 " graph(t.values), torch.argsort(x, 1), x.argsort(0, True), torch.msort(x),"
                 " type(t).__name__, t.indices.dtype]",
    "sort_ties_nan": "a = torch.tensor([1., 2., 2., 1., 3.]); n = torch.tensor([1., float('nan'), 2., 1., 3.]);"
                     " result = [torch.sort(a), torch.sort(a, descending=True), torch.sort(n),"
                     " torch.sort(n, descending=True), torch.topk(a, 3), torch.topk(a, 3, largest=False),"
                     " torch.argsort(a), torch.argsort(a, descending=True), torch.median(a[:4]),"
                     " torch.median(torch.tensor([1., 2., 2., 2., 3.]), 0),"
                     " torch.mode(torch.tensor([[1., 2., 2., 1., 3.], [4., 4., 1., 1., 1.]]), 1),"
                     " torch.cummax(a, 0), torch.cummin(a, 0), torch.sort(torch.tensor([3, 1, 2])),"
                     " torch.sort(torch.tensor([True, False, True]))]",
    "kth_median_mode_cum": _X + "k = torch.kthvalue(x, 2, 1); m = torch.median(x); md = x.median(0, keepdim=True);"
                           " mo = torch.mode(x, 1); cx = torch.cummax(x, 1); cn = x.cummin(0);"
                           " (k.values.sum() + m + md.values.sum() + mo.values.sum() + cx.values.sum()"
                           " + (cn.values * cn.values).sum()).backward();"
                           " result = [k, m, md, mo, cx, cn, x.grad, graph(k.values), graph(m),"
                           " graph(md.values), graph(mo.values), graph(cx.values), graph(cn.values),"
                           " x.kthvalue(1), torch.kthvalue(x, 3, 0, True)]",
    "flip_roll_narrow": _X + "f = torch.flip(x, [0]); f2 = x.flip(0, 1); lr = torch.fliplr(x);"
                        " ud = x.flipud(); r = torch.roll(x, 1, 1); r2 = x.roll(shifts=(1, -1), dims=(0, 1));"
                        " r3 = torch.roll(x, 5); n = torch.narrow(x, 1, 1, 2); n2 = x.narrow(0, -2, 2);"
                        " w = torch.arange(12.).reshape(3, 4);"
                        " (f * w).sum().backward(retain_graph=True); (r3 * w).sum().backward();"
                        " (n * w[:, :2]).sum().backward();"
                        " result = [f, f2, lr, ud, r, r2, r3, n, n2, x.grad, graph(f), graph(r), graph(n),"
                        " n._version, n2.is_contiguous(), torch.flip(x, dims=(1,))]",
    "permute_movedim": _X + "y = x.reshape(3, 2, 2); p = torch.permute(y, (2, 0, 1)); p2 = y.permute(1, 0, 2);"
                       " m = torch.movedim(y, 0, 2); m2 = y.moveaxis((0, 1), (1, 0)); u = x.unflatten(1, (2, -1));"
                       " (p * torch.arange(12.).reshape(2, 3, 2)).sum().backward();"
                       " result = [p, p2, m, m2, u, x.grad, graph(p), graph(m), graph(u), p.is_contiguous(),"
                       " p.stride(), m.shape, torch.movedim(y, -1, 0).shape, y.permute(dims=[0, 2, 1]).shape]",
    "expand_view_type_as": _X + "v = torch.randn(4, requires_grad=True); e = v.expand_as(x);"
                           " b = torch.broadcast_to(v, (2, 3, 4)); va = x.view_as(torch.zeros(4, 3));"
                           " ra = x.t().reshape_as(torch.zeros(12)); ta = x.type_as(v); td = x.type_as(v.double());"
                           " ti = x.type_as(torch.tensor([1]));"
                           " (e.sum() + b.sum() + td.sum()).backward();"
                           " result = [e, b.shape, va, ra, ta is x, td, ti, v.grad, x.grad, graph(e), graph(b),"
                           " graph(va), graph(ra), graph(td), v.broadcast_to((2, 4)).stride()]",
    "tile_repeat_interleave": _X + "t = torch.tile(x, (2,)); t2 = x.tile(2, 1, 1); r = torch.repeat_interleave(x, 2);"
                              " r2 = x.repeat_interleave(2, dim=0); r3 = torch.repeat_interleave(x, torch.tensor([1, 2, 0]), dim=0);"
                              " (t.sum() + (r * r).sum() + r3.sum()).backward();"
                              " result = [t, t2.shape, r, r2, r3, x.grad, graph(t), graph(r), graph(r2), graph(r3),"
                              " torch.repeat_interleave(torch.tensor([2, 1, 3])), torch.repeat_interleave(torch.tensor(3.), 2)]",
    "tril_triu": _X + "a = torch.tril(x); b = torch.triu(x, 1); c = x.tril(-1); d = torch.triu(x, diagonal=-1);"
                 " (a.sum() + (b * 2).sum() + (c * 3).sum()).backward(); y = torch.ones(3, 3) * 2;"
                 " y.triu_(); z = torch.ones(2, 3, 3).tril_(1);"
                 " result = [a, b, c, d, x.grad, graph(a), graph(b), y, z, torch.tril(torch.ones(3, 3, dtype=torch.int64))]",
    "diagonals": _X + "v = torch.randn(4, requires_grad=True); d1 = torch.diag(v); d2 = torch.diag(x);"
                 " d3 = torch.diag(x, 1); d4 = torch.diagonal(x); d5 = x.diagonal(offset=-1);"
                 " d6 = torch.diag_embed(x); d7 = torch.diag(v, -1); d8 = torch.diagonal(x.reshape(3, 2, 2), 0, 1, 2);"
                 " (d1 * torch.arange(16.).reshape(4, 4)).sum().backward(); (d2 * 2).sum().backward(retain_graph=True);"
                 " (d4.sum() + d5.sum() + d6.sum()).backward();"
                 " result = [d1, d2, d3, d4, d5, d6.shape, d7, d8, v.grad, x.grad, graph(d1), graph(d2),"
                 " graph(d4), graph(d6), d4.stride(), d4.is_contiguous(), d4._version]",
    "outer_kron": _X + "v = torch.randn(4, requires_grad=True); w = torch.randn(3, requires_grad=True);"
                  " o = torch.outer(w, v); g = torch.ger(v, v); k = torch.kron(x, x[:2, :2]);"
                  " k2 = torch.kron(v, w); (o.sum() + (k * k).sum() + k2.sum()).backward();"
                  " result = [o, g, k, k2, v.grad, w.grad, x.grad, graph(o), graph(k), graph(k2),"
                  " torch.outer(torch.tensor([1, 2]), torch.tensor([1., 2.])), v.outer(w).shape]",
    "einsum_forms": _X + "v = torch.randn(4, requires_grad=True); y = torch.randn(4, 3, requires_grad=True);"
                    " e1 = torch.einsum('ij,jk->ik', x, y); e2 = torch.einsum('i,i->', v, v);"
                    " e3 = torch.einsum('ij->ji', x); e4 = torch.einsum('bij,bjk->bik', x.reshape(1, 3, 4), y.reshape(1, 4, 3));"
                    " e5 = torch.einsum('ii->i', x[:, :3]); e6 = torch.einsum('ij->', x);"
                    " e7 = torch.einsum('ij,j->i', x, v); e8 = torch.einsum('i,j->ij', v, v);"
                    " e9 = torch.einsum('ij,jk', [x, y]); e10 = torch.einsum('...j,kj->...k', x, x);"
                    " (e1.sum() + e2 + e4.sum() + e5.sum() + e6 + e7.sum() + e8.sum()).backward();"
                    " result = [e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, x.grad, v.grad, y.grad,"
                    " graph(e1), graph(e2), graph(e3), graph(e4), graph(e5), graph(e6), graph(e7), graph(e8),"
                    " graph(e10)]",
    "cdist_paths": _X + "b = torch.randn(2, 4, requires_grad=True); big = torch.randn(30, 4, requires_grad=True);"
                   " d = torch.cdist(x, b); e = torch.cdist(big, b); f = torch.cdist(x.unsqueeze(0), b.unsqueeze(0));"
                   " (d.sum() + e.sum() + f.sum()).backward();"
                   " result = [d, e[:3], f, x.grad, b.grad, big.grad[:2], graph(d), graph(e), graph(f),"
                   " torch.cdist(x, x, compute_mode='use_mm_for_euclid_dist')]",
    "det_inv": "torch.manual_seed(0); A = torch.randn(3, 3, requires_grad=True); B = torch.randn(2, 3, 3);"
               " d = torch.det(A); i = torch.linalg.inv(A);"
               " result = [d, torch.linalg.det(A), A.det(), i, torch.inverse(A), graph(d), graph(i),"
               " d.grad_fn._saved_LU, d.grad_fn._saved_pivots, i.grad_fn._saved_inverse, torch.det(B),"
               " torch.linalg.inv(B), torch.det(torch.tensor([[1., 2.], [2., 4.]]))];"
               " (d + i.sum()).backward(); result.append(A.grad)",
    "solve": "torch.manual_seed(0); A = torch.randn(3, 3, requires_grad=True); B = torch.randn(3, 2, requires_grad=True);"
             " v = torch.randn(3); X = torch.linalg.solve(A, B); y = torch.linalg.solve(A, v);"
             " z = torch.linalg.solve(A, B.t(), left=False); A64 = A.detach().double().requires_grad_();"
             " B64 = B.detach().double().requires_grad_(); X64 = torch.linalg.solve(A64, B64);"
             " (X64 * X64).sum().backward();"
             " result = [X, y, z, graph(X), graph(y), X.grad_fn._saved_LU, X.grad_fn._saved_pivots,"
             " A64.grad, B64.grad]",
    "create_graph_selection": "x = torch.tensor([[1., 4., 2.], [3., 0., 5.]], requires_grad=True);"
                              " i = torch.tensor([[1, 1, 0], [0, 1, 1]]);"
                              " ys = [torch.gather(x, 1, i), torch.sort(x, 1).values, torch.topk(x, 2).values,"
                              " torch.cummax(x, 1).values, torch.index_select(x, 1, torch.tensor([2, 0])),"
                              " torch.scatter(x, 1, torch.tensor([[0], [2]]), x[:, :1] + x[:, 1:2]),"
                              " torch.scatter_add(x, 0, i, x), torch.index_add(x, 1, torch.tensor([0, 0, 2]), x, alpha=2.),"
                              " torch.flip(x, [1]), torch.roll(x, 1, 1), torch.tril(x)];"
                              " result = []\nfor y in ys:\n    x.grad = None; (y ** 3).sum().backward(create_graph=True);"
                              " result += [x.grad, graph(x.grad)]",
    "selection_edges": "s = torch.tensor(3., requires_grad=True); e = torch.zeros(0, 3, requires_grad=True);"
                       " result = [torch.sort(s), torch.topk(s, 1), torch.flip(s, [0]), torch.roll(s, 1),"
                       " torch.cummax(s, 0), torch.kthvalue(s, 1), torch.median(s), torch.mode(s),"
                       " torch.gather(s, 0, torch.tensor(0)), torch.index_select(s, 0, torch.tensor([0])),"
                       " torch.take(s, torch.tensor([0, 0])), torch.masked_select(s, torch.tensor(True)),"
                       " torch.sort(e, 0), torch.topk(e, 0), torch.flip(e, [0]), torch.tril(e), torch.diagonal(e),"
                       " torch.cdist(e, e), torch.einsum('ij->j', e), torch.median(e), torch.cummax(e, 0),"
                       " torch.mode(e, 1), torch.diag(torch.zeros(0)), torch.repeat_interleave(e, 2, 0),"
                       " torch.narrow(e, 1, 3, 0), torch.movedim(s, 0, 0), torch.permute(s, ()), torch.tile(s, (2,)),"
                       " torch.det(torch.zeros(0, 0))]",
    "flip_copies": "x = torch.arange(4.); y = torch.flip(x, [0]); x.add_(1); result = [x, y]",
    "kth_median_ties": "torch.manual_seed(0); x = torch.randint(0, 4, (3, 23)).float(); x[1, 5] = float('nan');"
                       " result = [torch.kthvalue(x, k, 1) for k in (1, 5, 12, 23)] + [torch.median(x, 1),"
                       " torch.median(x.t(), 0), torch.kthvalue(torch.tensor([1., 2., 2., 1., 3.]), 2),"
                       " torch.median(torch.tensor([1., 2., 2., 4.]), 0), torch.kthvalue(torch.tensor([2, 1, 2, 2]), 3)]",
    "sort_topk_mode_ties": "torch.manual_seed(2); x = torch.randint(0, 4, (3, 40)).float(); x[2, 7] = float('nan');"
                           " x[2, 30] = float('nan'); i = torch.randint(0, 3, (50,)); r = torch.relu(torch.randn(2, 70));"
                           " result = [torch.sort(x, 1), torch.sort(x, 1, descending=True).indices, torch.argsort(x, 1),"
                           " torch.sort(x, dim=1, stable=True).indices, torch.topk(x, 5, 1), torch.topk(x, 30, 1, largest=False),"
                           " torch.topk(x, 30, 1, sorted=False).indices, torch.topk(r, 1, 1), torch.mode(x, 1), torch.mode(i),"
                           " torch.sort(i), torch.sort(i, descending=True).indices, torch.topk(i, 10).indices,"
                           " torch.sort(r, 1, descending=True).indices, torch.msort(x.t()).shape]",
    "diagonal_writes": "a = torch.zeros(3, 3); d = a.diagonal(); d.fill_(1); a.add_(1);"
                       " e = torch.zeros(2, 3, 4); e.diagonal(dim1=0, dim2=2).fill_(7); b = torch.arange(12.).reshape(3, 4);"
                       " x = torch.randn(3, 3, requires_grad=True); y = x * 1; dy = y.diagonal(-1); dy.mul_(2);"
                       " y.sum().backward(); result = [a, d, d._version, e, b.diagonal(1), b.t().diagonal(), x.grad,"
                       " graph(y), graph(dy), e.diagonal(1, 2, 0)]",
    "return_types": "x = torch.tensor([[3., 1.], [2., 4.]]); v, i = torch.sort(x); t = torch.topk(x, 1);"
                    " result = [v, i, t.values, t.indices, t[0], len(t), torch.max(x, 1), repr(torch.cummax(x, 0))]",
    # errors
    "err_gather_float_index": "torch.gather(torch.ones(3, 4), 0, torch.tensor([[0.]]))",
    "err_gather_out_of_bounds": "torch.gather(torch.ones(3, 4), 0, torch.tensor([[5]]))",
    "err_gather_negative": "torch.gather(torch.ones(3, 4), 0, torch.tensor([[-1]]))",
    "err_gather_dim": "torch.gather(torch.ones(3, 4), 2, torch.tensor([[0]]))",
    "err_gather_ndim": "torch.gather(torch.ones(3, 4), 0, torch.tensor([0, 1]))",
    "err_gather_size": "torch.gather(torch.ones(3, 4), 0, torch.tensor([[0] * 5]))",
    "err_index_select_float": "torch.index_select(torch.ones(3, 4), 0, torch.tensor([0.]))",
    "err_index_select_range": "torch.index_select(torch.ones(3, 4), 0, torch.tensor([3]))",
    "err_index_select_matrix": "torch.index_select(torch.ones(3, 4), 0, torch.tensor([[0]]))",
    "err_take_range": "torch.take(torch.ones(3, 4), torch.tensor([12]))",
    "err_take_float": "torch.take(torch.ones(3, 4), torch.tensor([0.]))",
    "err_masked_select_long": "torch.masked_select(torch.ones(3, 4), torch.tensor([1, 0, 1, 0]))",
    "err_masked_select_shape": "torch.masked_select(torch.ones(3, 4), torch.tensor([True, False]))",
    "err_masked_fill_value_dims": "torch.ones(3).masked_fill(torch.tensor([True, False, True]), torch.tensor([2.]))",
    "err_scatter_dtype": "torch.scatter(torch.ones(3, 4), 0, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.float64))",
    "err_scatter_range": "torch.ones(3, 4).scatter_(0, torch.tensor([[3]]), 1.0)",
    "err_index_add_count": "torch.index_add(torch.ones(3, 4), 0, torch.tensor([0, 1]), torch.ones(3, 4))",
    "err_index_add_dtype": "torch.index_add(torch.ones(3, 4), 0, torch.tensor([0]), torch.ones(1, 4, dtype=torch.float64))",
    "err_topk_k": "torch.topk(torch.ones(3, 4), 5)",
    "err_topk_bool": "torch.topk(torch.tensor([True, False, True]), 1)",
    "err_kthvalue_k": "torch.kthvalue(torch.ones(3, 4), 5)",
    "err_sort_dim": "torch.sort(torch.ones(3, 4), 2)",
    "err_flip_repeated": "torch.flip(torch.ones(3, 4), [0, 0])",
    "err_flip_int": "torch.flip(torch.ones(3, 4), 2)",
    "err_fliplr_1d": "torch.fliplr(torch.ones(4))",
    "err_roll_align": "torch.roll(torch.ones(3, 4), (1, 2), (0,))",
    "err_narrow_length": "torch.narrow(torch.ones(3, 4), 0, 2, 2)",
    "err_narrow_start": "torch.narrow(torch.ones(3, 4), 0, 4, 0)",
    "err_narrow_negative": "torch.narrow(torch.ones(3, 4), 0, 1, -1)",
    "err_movedim_count": "torch.movedim(torch.ones(3, 4), (0, 1), (0,))",
    "err_movedim_repeated": "torch.movedim(torch.ones(3, 4), (0, 0), (0, 1))",
    "err_permute_count": "torch.permute(torch.ones(3, 4), (0,))",
    "err_permute_duplicate": "torch.ones(3, 4).permute(0, 0)",
    "err_unflatten_sizes": "torch.ones(3, 4).unflatten(1, (3, 2))",
    "err_view_as": "torch.ones(3, 4).view_as(torch.ones(5))",
    "err_broadcast_to": "torch.broadcast_to(torch.ones(3, 4), (4,))",
    "err_repeat_interleave_size": "torch.repeat_interleave(torch.ones(3, 4), torch.tensor([1, 2]), dim=0)",
    "err_tril_1d": "torch.tril(torch.ones(4))",
    "err_diag_3d": "torch.diag(torch.ones(2, 2, 2))",
    "err_diagonal_same": "torch.diagonal(torch.ones(3, 4), 0, 0, 0)",
    "err_outer_2d": "torch.outer(torch.ones(3, 4), torch.ones(4))",
    "err_einsum_sizes": "torch.einsum('ij,jk->ik', torch.ones(3, 4), torch.ones(3, 4))",
    "err_einsum_output": "torch.einsum('ij->k', torch.ones(3, 4))",
    "err_einsum_fewer": "torch.einsum('i,i->', torch.ones(4))",
    "err_einsum_subscripts": "torch.einsum('iij->', torch.ones(3, 4))",
    "err_narrow_float_tensor": "torch.ones(3, 4).narrow(0, torch.tensor(1.), 1)",
    "err_diag_offset_type": "torch.diag(torch.ones(3, 3), 1.5)",
    "err_diagonal_offset_type": "torch.diagonal(torch.ones(3, 3), 'a')",
    "err_mode_empty": "torch.mode(torch.zeros(2, 0), 1)",
    "err_index_add_source_dim": "torch.index_add(torch.ones(3, 4), 1, torch.tensor([0, 2]), torch.ones(4))",
    "err_index_add_source_shape": "torch.index_add(torch.ones(3, 4), 0, torch.tensor([0]), torch.ones(1, 5))",
    "err_roll_0d_dims": "torch.roll(torch.tensor(2.), (1,), (0,))",
    "index_add_0d": "result = [torch.index_add(torch.tensor(2.), 0, torch.tensor([0]), torch.tensor(1.)),"
                    " torch.roll(torch.tensor(2.), 1), torch.narrow(torch.arange(5), 0, torch.tensor(1), 2)]",
    "err_cdist_1d": "torch.cdist(torch.ones(3), torch.ones(2, 3))",
    "err_cdist_columns": "torch.cdist(torch.ones(2, 3), torch.ones(2, 4))",
    "err_det_square": "torch.det(torch.ones(2, 3))",
    "err_det_long": "torch.det(torch.tensor([[1, 2], [3, 4]]))",
    "err_inv_singular": "torch.linalg.inv(torch.tensor([[1., 2.], [2., 4.]]))",
    "err_inv_1d": "torch.linalg.inv(torch.ones(3))",
    "err_solve_shapes": "torch.linalg.solve(torch.eye(3), torch.ones(2))",
    "err_solve_singular": "torch.linalg.solve(torch.tensor([[1., 2.], [2., 4.]]), torch.ones(2))",
    "err_solve_dtypes": "torch.linalg.solve(torch.eye(2), torch.ones(2, dtype=torch.float64))",
})

# --- torch.<op>_: the in-place functions (and methods) with PyTorch's nodes, saved tensors, errors
_INPLACE_UNARY = ("abs_", "acos_", "arccos_", "arcsin_", "arctan_", "asin_", "atan_", "ceil_",
                  "cos_", "cosh_", "erf_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_",
                  "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_",
                  "negative_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_",
                  "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_")
CASES.update({
    f"torch_{n}": "x = torch.tensor([0.25, 0.75, -0.5, 0.5], requires_grad=True); y = x * 1;"
                  f" r = torch.{n}(y); g = graph(y); s = y.sum() * 1; s.backward();"
                  " result = [r is y, y, y._version, g, x.grad]"
    for n in _INPLACE_UNARY
})
CASES.update({
    "inplace_methods_table": "x = torch.tensor([0.25, 0.75, -0.5], requires_grad=True);"
                             " ys = [x * 1 for _ in range(6)]; ys[0].sign_(); ys[1].sgn_();"
                             " ys[2].clamp_(-0.3, 0.3); ys[3].clip_(min=0.); ys[4].tril_();"
                             " ys[5].round_(decimals=1); sum(y.sum() for y in ys).backward();"
                             " result = ys + [graph(y) for y in ys] + [x.grad]",
    "inplace_arc_hyperbolic": "x = torch.tensor([1.25, 1.75]); y = x.clone().requires_grad_() * 1;"
                              " z = y * 1; w = torch.tensor([0.25, 0.5], requires_grad=True) * 1;"
                              " torch.acosh_(y); torch.asinh_(z); torch.atanh_(w);"
                              " result = [y, z, w, graph(y), graph(z), graph(w),"
                              " torch.arccosh_(x.clone()), torch.arcsinh_(x.clone()),"
                              " torch.arctanh_(x.clone() / 2)]",
    "inplace_saved_tensors": "x = torch.tensor([1.5, -2.0], requires_grad=True); a = x * 1;"
                             " torch.sin_(a); b = x * 1; torch.exp_(b); c = x * 1; c.mul_(x);"
                             " d = torch.ones(2); d.mul_(x); e = x * 1; e.pow_(3);"
                             " result = [a.grad_fn._saved_self, b.grad_fn._saved_result,"
                             " c.grad_fn._saved_self, c.grad_fn._saved_other, d.grad_fn._saved_self,"
                             " e.grad_fn._saved_self, a.grad_fn._saved_self.grad_fn.name(),"
                             " graph(a.grad_fn._saved_self)]",
    "inplace_double_backward": "x = torch.tensor([1.5, -2.0], requires_grad=True); a = x * 1;"
                               " torch.sin_(a); b = x * 1; b.mul_(x); c = x * 1; torch.exp_(c);"
                               " g, = torch.autograd.grad((a + b + c).sum(), x, create_graph=True);"
                               " g.sum().backward(); result = [g, x.grad]",
    "inplace_functions_args": "x = torch.tensor([-1.0, 0.5, 3.0, float('nan')]);"
                              " result = [torch.clamp_(x.clone(), 0, 1), torch.clamp_(x.clone(), min=0),"
                              " torch.clip_(x.clone(), max=0), torch.fill_(x.clone(), 3),"
                              " torch.zero_(x.clone()), torch.xlogy_(x.clone(), 2),"
                              " torch.clamp_min_(x.clone(), 0.5), torch.clamp_max_(x.clone(), 0.5),"
                              " torch.nan_to_num_(x.clone(), 0.5), torch.sin_(input=x.clone()),"
                              " torch.round_(torch.tensor([1.26, 2.5]), decimals=1),"
                              " torch.abs_(torch.tensor([1, -2])), torch.square_(torch.tensor([3, -2]))]",
    "inplace_view_of_nonleaf": "x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True); b = x * 2;"
                               " v = b[1:]; torch.relu_(v); s = b.sum(); s.backward();"
                               " result = [b, v, graph(b), graph(v), x.grad]",
    "err_torch_sin__leaf": "torch.sin_(torch.tensor([1.0, 2.0], requires_grad=True))",
    "err_torch_relu__view_of_leaf": "torch.relu_(torch.tensor([1.0, -2.0], requires_grad=True)[0])",
    "err_torch_sin__not_tensor": "torch.sin_(1)",
    "err_torch_sin__list": "torch.sin_([1.0])",
    "err_torch_sin__missing": "torch.sin_()",
    "err_torch_sin__extra": "torch.sin_(torch.ones(2), 1)",
    "err_torch_sin__keyword": "torch.sin_(torch.ones(2), x=1)",
    "err_torch_exp__long": "torch.exp_(torch.tensor([1, 2]))",
    "err_torch_neg__bool": "torch.neg_(torch.tensor([True]))",
    "err_torch_clamp__no_bounds": "torch.clamp_(torch.ones(2))",
    "err_acosh__backward": "y = torch.tensor([1.5], requires_grad=True) * 1; y.acosh_(); y.sum().backward()",
    "err_relu__result_modified": "y = torch.tensor([1.0, -2.0], requires_grad=True) * 1;"
                                 " torch.relu_(y); y.mul_(2); y.sum().backward()",
    "err_exp__result_modified": "y = torch.tensor([1.0, -2.0], requires_grad=True) * 1;"
                                " torch.exp_(y); y += 1; y.sum().backward()",
})

# --- a view after an in-place update of its base: PyTorch regenerates its grad_fn as
# AsStridedBackward0 with the view's as_strided arguments
_VIEWS = {"slice": "b[1:]", "slice_step": "b[::2]", "select": "b[1]", "column": "b[:, 1]",
          "view": "b.view(6)", "reshape": "b.reshape(3, 2)", "transpose": "b.transpose(0, 1)",
          "t": "b.t()", "T": "b.T", "diagonal": "b.diagonal()", "narrow": "b.narrow(1, 1, 2)",
          "unsqueeze": "b.unsqueeze(1)", "permute": "b.permute(1, 0)",
          "expand": "b[0:1].expand(3, 3)", "squeeze": "b[0:1].squeeze(0)",
          "flatten": "b.flatten()", "unflatten": "b.flatten().unflatten(0, (3, 2))",
          "movedim": "b.movedim(0, 1)", "alias": "b[...]", "chain": "b[1:].t()[0]"}
CASES.update({
    f"view_regenerated_{name}": "x = torch.arange(6.0).reshape(2, 3).requires_grad_(); b = x * 1;"
                                f" v = {view}; before = graph(v); b.mul_(2); g = v.grad_fn;"
                                " w = torch.arange(v.numel(), dtype=torch.float32).reshape(v.shape);"
                                " (v * w).sum().backward(); result = [before, graph(v), v,"
                                " v._version, g._saved_size, g._saved_stride,"
                                " g._saved_storage_offset, x.grad]"
    for name, view in _VIEWS.items()
})
CASES.update({
    "view_regenerated_double_backward": "x = torch.arange(6.0).reshape(2, 3).requires_grad_();"
                                        " b = x * 1; v = b[0:1].expand(3, 3); w = b.t(); b.mul_(x);"
                                        " g, = torch.autograd.grad((v * v).sum() + (w ** 3).sum(), x,"
                                        " create_graph=True); g.sum().backward(); result = [g, x.grad]",
    "view_regenerated_strided_base": "x = torch.arange(6.0).reshape(2, 3).requires_grad_();"
                                     " y = x.t() * 1; u = y[1:]; y.exp_(); g = u.grad_fn;"
                                     " result = [u, y.stride(), g._saved_size, g._saved_stride,"
                                     " g._saved_storage_offset, graph(u)]",
    "view_regenerated_by_view_update": "x = torch.arange(6.0).reshape(2, 3).requires_grad_();"
                                       " d = x * 2; e = d.view(3, 2)[1]; f = d[1]; d[0, 0] = 7;"
                                       " f.add_(1); result = [e, f, graph(e), graph(f), graph(d),"
                                       " e.grad_fn._saved_stride, e.grad_fn._saved_storage_offset,"
                                       " f.grad_fn._saved_storage_offset]",
})

# --- torch.nn layers: Embedding, Dropout, BatchNorm, LayerNorm and the small modules ---
_E = _G + "torch.manual_seed(0); nn = torch.nn;"
CASES.update({
    "nn_embedding": _E + " e = nn.Embedding(5, 3, padding_idx=1); i = torch.tensor([[0, 1, 2], [2, 2, 4]]);"
                    " y = e(i); g = y.grad_fn; r = [e, e.weight, e.weight._version, y, graph(y), g._saved_indices,"
                    " g._saved_padding_idx, g._saved_scale_grad_by_freq, g._saved_sparse, g._saved_weight_sym_argsize_0,"
                    " G(y * torch.arange(3.), e.weight)]; w = torch.randn(4, 3, dtype=torch.float64, requires_grad=True);"
                    " z = F.embedding(torch.tensor([1, 1, 3, 1]), w, scale_grad_by_freq=True, padding_idx=-1);"
                    " result = r + [z, z.grad_fn._saved_padding_idx, G(z * torch.arange(12.).reshape(4, 3), w),"
                    " torch.embedding(w, torch.tensor([[0], [3]])), F.embedding(torch.tensor(2), w),"
                    " nn.Embedding(4, 2, max_norm=2, norm_type=1.0, scale_grad_by_freq=True),"
                    " nn.Embedding(3, 2, padding_idx=-1).padding_idx, F.embedding(torch.tensor([1], dtype=torch.int32), w)]",
    "nn_embedding_max_norm": "torch.manual_seed(0); e = torch.nn.Embedding(6, 4, max_norm=1.0); v = e.weight._version;"
                             " y = e(torch.tensor([1, 1, 5, 2])); w2 = torch.randn(6, 4);"
                             " z = F.embedding(torch.tensor([0, 3]), w2, max_norm=0.5, norm_type=1.);"
                             " result = [v, y, e.weight, e.weight._version, z, w2, w2._version]",
    "err_embedding_index": "torch.nn.Embedding(5, 3)(torch.tensor([5]))",
    "err_embedding_negative_index": "F.embedding(torch.tensor([-1]), torch.ones(3, 2))",
    "err_embedding_float_index": "torch.nn.Embedding(5, 3)(torch.tensor([1.0]))",
    "err_embedding_padding": "torch.nn.Embedding(5, 3, padding_idx=7)",
    "err_embedding_padding_f": "F.embedding(torch.tensor([1]), torch.ones(3, 2), padding_idx=-4)",
    "err_embedding_weight_1d": "F.embedding(torch.tensor([1]), torch.ones(3))",
    "nn_dropout_module": "torch.manual_seed(0); d = torch.nn.Dropout(0.25); x = torch.ones(4, 5, requires_grad=True); y = d(x);"
                         " d.eval(); result = [d, torch.nn.Dropout(0.2, inplace=True), y, graph(y), d(x) is x, d.training]",
    "err_dropout_module_p": "torch.nn.Dropout(1.5)",
    "nn_batch_norm_module": _E + " bn = torch.nn.BatchNorm1d(5); x = torch.randn(4, 5, requires_grad=True);"
                            " o = bn(x); r = [bn, o, graph(o), bn.running_mean, bn.running_var, bn.num_batches_tracked,"
                            " G(o * torch.arange(5.), x, bn.weight, bn.bias), list(bn.state_dict())]; bn.eval();"
                            " r += [bn(x), graph(bn(x)), bn.running_mean]; b2 = nn.BatchNorm2d(2, momentum=None, affine=False);"
                            " z = torch.randn(3, 2, 2, 2); r += [b2, b2(z), b2(z * 2), b2.running_mean, b2.running_var,"
                            " b2.num_batches_tracked]; b3 = nn.BatchNorm1d(3, track_running_stats=False, bias=False);"
                            " s = torch.randn(2, 3, 4); result = r + [b3, b3(s), b3.running_mean, b3.eval()(s), list(b3.state_dict())]",
    "err_batch_norm_module_dim": "torch.nn.BatchNorm1d(3)(torch.ones(3))",
    "err_batch_norm2d_module_dim": "torch.nn.BatchNorm2d(3)(torch.ones(2, 3))",
    "nn_layer_norm_module": _E + " ln = nn.LayerNorm(5); x = torch.randn(2, 3, 5, requires_grad=True); y = ln(x);"
                            " l2 = nn.LayerNorm([3, 5], elementwise_affine=False); l3 = nn.LayerNorm(5, bias=False);"
                            " result = [ln, y, graph(y), G(y * torch.arange(5.), x, ln.weight, ln.bias), l2, l2(x), l3, l3(x),"
                            " [n for n, _ in ln.named_parameters()], [n for n, _ in l3.named_parameters()]]",
    "nn_small_modules": _E + " x = torch.randn(2, 3, 2, 2, requires_grad=True); m = [nn.ReLU6(), nn.ReLU6(True),"
                        " nn.Hardtanh(), nn.Hardtanh(-2, 2.5), nn.Softmax2d(), nn.CosineSimilarity(), nn.PairwiseDistance(),"
                        " nn.Unflatten(1, (1, 3)), nn.CosineSimilarity(dim=0, eps=0.1), nn.PairwiseDistance(p=1., keepdim=True)];"
                        " ys = [nn.ReLU6()(x * 4), nn.Hardtanh(-0.5, 0.5)(x), nn.Softmax2d()(x), nn.CosineSimilarity()(x, x.flip(0)),"
                        " nn.PairwiseDistance()(x, x * 2), nn.Unflatten(1, (3, 1))(x.flatten(1, 2))];"
                        " result = m + ys + [graph(y) for y in ys] + [G(y, x) for y in ys]",
    "err_softmax2d_dim": "torch.nn.Softmax2d()(torch.ones(2, 2))",
    "err_hardtanh_bounds": "torch.nn.Hardtanh(1., 0.)",
})

# --- convolution and pooling: F.conv1d/conv2d (ConvolutionBackward0), the pools, their modules ---
_C = _G + "torch.manual_seed(0); nn = torch.nn;"
CASES.update({
    "nn_conv2d": _C + " x = torch.randn(2, 3, 7, 6, dtype=torch.float64, requires_grad=True);"
                 " w = torch.randn(4, 3, 3, 2, dtype=torch.float64, requires_grad=True);"
                 " b = torch.randn(4, dtype=torch.float64, requires_grad=True);"
                 " y = F.conv2d(x, w, b, stride=(2, 1), padding=1); g = y.grad_fn; q = F.conv2d(x, w).grad_fn;"
                 " r = [y, graph(y), g._saved_stride, g._saved_padding, g._saved_dilation, g._saved_groups,"
                 " g._saved_transposed, g._saved_output_padding, g._saved_bias_sym_sizes_opt,"
                 " q._saved_bias_sym_sizes_opt, G(y * y, x, w, b)]; z = F.conv2d(x, w[:2, :, :, :1].repeat(2, 1, 1, 1), None, dilation=2);"
                 " v = F.conv2d(x[:, :2], torch.randn(4, 1, 2, 2, dtype=torch.float64, requires_grad=True), groups=2);"
                 " s = F.conv2d(x[0], w, b, padding='same');"
                 " result = r + [z, G(z.exp(), x, w), v, graph(v), s, graph(s), G(s, x, w, b)]",
    "nn_conv2d_float32": _C + " x = torch.randn(1, 2, 6, 6, requires_grad=True); w = torch.randn(3, 2, 3, 3, requires_grad=True);"
                         " y = F.conv2d(x, w, torch.ones(3), padding=1); result = [y, G(y * y, x, w)]",
    "nn_conv1d": _C + " x = torch.randn(2, 4, 9, dtype=torch.float64, requires_grad=True);"
                 " w = torch.randn(6, 2, 3, dtype=torch.float64, requires_grad=True);"
                 " y = F.conv1d(x, w, groups=2, stride=2, padding=2, dilation=2);"
                 " result = [y, graph(y), y.grad_fn._saved_stride, G(y.tanh(), x, w), F.conv1d(x, w[:, :1].repeat(1, 4, 1), padding='same'),"
                 " torch.conv1d(x[0], w[:, :1].repeat(1, 4, 1)), graph(torch.conv1d(x[0], w[:, :1].repeat(1, 4, 1)))]",
    "nn_conv_modules": _C + " c = nn.Conv2d(2, 4, 3, stride=2, padding=1, dtype=torch.float64); c1 = nn.Conv1d(4, 6, 2, groups=2, bias=False, dtype=torch.float64);"
                       " cr = nn.Conv2d(2, 2, (2, 3), padding=(1, 2), padding_mode='reflect', dilation=(1, 2), dtype=torch.float64);"
                       " cs = nn.Conv1d(2, 3, 4, padding='same', padding_mode='replicate');"
                       " x = torch.randn(2, 2, 5, 5, dtype=torch.float64, requires_grad=True); y = c(x); z = cr(x);"
                       " result = [c, c1, cr, cs, c.weight, c.bias, y, graph(y), z, graph(z), c1(torch.randn(2, 4, 5, dtype=torch.float64)),"
                       " cs(x[0, :, 0].float()), graph(cs(x[0, :, 0].float())), [n for n, _ in c.named_parameters()], c.kernel_size, c.padding]",
    "nn_pools": _C + " x = torch.randn(2, 3, 7, 6, dtype=torch.float64, requires_grad=True);"
                " a, i = F.max_pool2d(x, 3, 2, 1, return_indices=True); b = F.avg_pool2d(x, (3, 2), stride=(2, 3), padding=1);"
                " c = F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False); d = F.adaptive_avg_pool2d(x, (4, 3));"
                " e = F.adaptive_avg_pool2d(x, 1); f = F.max_pool2d(x, 2, dilation=2, ceil_mode=True);"
                " h = F.max_pool1d(x[0], 3); k = F.avg_pool1d(x[0], 2, 1); m = F.avg_pool2d(x, 2, divisor_override=3);"
                " ys = [a, b, c, d, e, f, h, k, m];"
                " result = ys + [i, a.grad_fn._saved_result1.shape, a.grad_fn._saved_kernel_size, a.grad_fn._saved_ceil_mode]"
                " + [graph(y) for y in ys] + [G(y.exp(), x) for y in ys]",
    "nn_pool_ties": "x = torch.tensor([[[[1., 1., 2., 2.], [1., 1., float('nan'), 2.], [-float('inf')] * 4, [0., 3., 3., 0.]]]],"
                    " requires_grad=True); a, i = F.max_pool2d(x, 2, return_indices=True); b = F.max_pool2d(x, 2, 1);"
                    " a.sum().backward(); result = [a, i, b, x.grad, F.max_pool2d(-torch.full((1, 2, 2), float('inf')), 2, return_indices=True)]",
    "nn_pool_modules": _C + " x = torch.randn(1, 2, 6, 6, requires_grad=True); ms = [nn.MaxPool2d(2), nn.MaxPool2d((3, 2), stride=1, padding=1),"
                       " nn.AvgPool2d(3, 2, 1), nn.AvgPool2d(2, ceil_mode=True, count_include_pad=False), nn.AdaptiveAvgPool2d((3, 2)),"
                       " nn.AdaptiveAvgPool2d(1), nn.MaxPool2d(2, return_indices=True)]; ns = [nn.MaxPool1d(2), nn.AvgPool1d(3, 2)];"
                       " result = ms + ns + [m(x) for m in ms] + [m(x[0]) for m in ns]",
    "err_conv2d_dims": "F.conv2d(torch.ones(2, 3), torch.ones(1, 3, 1, 1))",
    "err_conv2d_channels": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 3, 5, 5))",
    "err_conv2d_kernel": "F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(6, 1, 5, 5))",
    "err_conv2d_dtype": "F.conv2d(torch.ones(1, 1, 8, 8, dtype=torch.float64), torch.ones(6, 1, 5, 5))",
    "err_conv2d_bias_dtype": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5, 5), torch.ones(6, dtype=torch.float64))",
    "err_conv2d_same_stride": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5, 5), stride=2, padding='same')",
    "err_conv2d_padding_string": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5, 5), padding='foo')",
    "err_conv2d_groups": "F.conv2d(torch.ones(1, 2, 8, 8), torch.ones(6, 1, 5, 5), groups=4)",
    "err_conv2d_stride": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5, 5), stride=0)",
    "err_conv2d_negative_padding": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5, 5), padding=-1)",
    "err_conv2d_bias_size": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5, 5), bias=torch.ones(5))",
    "err_conv1d_dims": "F.conv1d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5))",
    "err_conv2d_stride_len": "F.conv2d(torch.ones(1, 1, 8, 8), torch.ones(6, 1, 5, 5), stride=(1, 2, 3))",
    "err_conv_module_groups": "torch.nn.Conv2d(3, 6, 5, groups=2)",
    "err_conv_module_same": "torch.nn.Conv2d(4, 6, 5, stride=2, padding='same')",
    "err_max_pool2d_small": "F.max_pool2d(torch.ones(1, 1, 4, 4), 5)",
    "err_max_pool2d_pad": "F.max_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2)",
    "err_avg_pool2d_pad": "F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2)",
    "err_max_pool2d_dims": "F.max_pool2d(torch.ones(4, 4), 2)",
    "err_adaptive_avg_pool2d_dims": "F.adaptive_avg_pool2d(torch.ones(4), 2)",
})

# --- the remaining common loss modules -----------------------------------------------------------
CASES.update({
    "nn_more_loss_modules": _C + " x = torch.randn(3, 4, requires_grad=True); t = torch.randn(3, 4);"
                            " ms = [nn.HuberLoss(), nn.HuberLoss(reduction='sum', delta=0.5), nn.KLDivLoss(reduction='batchmean'),"
                            " nn.KLDivLoss(log_target=True, reduction='sum'), nn.SoftMarginLoss()];"
                            " ys = [ms[0](x, t), ms[1](x, t), ms[2](x.log_softmax(1), t.softmax(1)), ms[3](x.log_softmax(1), t.log_softmax(1)),"
                            " ms[4](x, t.sign())]; result = ms + ys + [graph(y) for y in ys] + [G(y, x) for y in ys] + [ms[1].delta, ms[3].log_target]",
})

# --- LazyLinear: UninitializedParameters materialised in place by the first forward --------------
CASES.update({
    "nn_lazy_linear": _C + " m = nn.LazyLinear(3); w = m.weight; ps = list(m.parameters()); opt = torch.optim.SGD(m.parameters(), lr=0.5);"
                      " r = [repr(v) for v in (m, w, m.bias, ps, m.state_dict(), m.in_features, w.requires_grad, w.dtype, w.size(), w.ndim,"
                      " w.is_leaf, w.grad)];"
                      " x = torch.randn(2, 4, requires_grad=True); y = m(x); r += [m, m.in_features, w, m.bias, y, graph(y),"
                      " w is m.weight, ps[0] is m.weight, m.weight.shape, len(m._forward_pre_hooks), G(y * y, x, m.weight, m.bias)]; opt.step();"
                      " r += [m.weight, m.bias, opt.param_groups[0]['params'][0] is m.weight, torch.randn(2)];"
                      " d = nn.LazyLinear(2, bias=False, dtype=torch.float64); z = d(torch.ones(3, 5, dtype=torch.float64));"
                      " e = nn.LazyLinear(-2); e2 = nn.LazyLinear(2); e2(torch.ones(4, 0));"
                      " result = r + [nn.LazyLinear(2, bias=False), d, d.weight, d.bias, z, e, e2, e2.weight]",
    "nn_lazy_linear_seq": _C + " net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1)); r = [repr(net), repr(net.state_dict())];"
                          " x = torch.randn(5, 3); y = net(x); result = r + [net, y, graph(y), list(net.state_dict()), net(x[:2]), net[2].weight]",
    "err_lazy_linear_int_input": "torch.nn.LazyLinear(2)(5)",
    "err_lazy_linear_0d_input": "torch.nn.LazyLinear(2)(torch.ones(()))",
    "err_lazy_linear_shape": "torch.nn.LazyLinear(2).weight.shape",
    "err_lazy_linear_method": "torch.nn.LazyLinear(2).weight.sum()",
    "err_lazy_linear_operator": "torch.nn.LazyLinear(2).bias * 2",
    "err_lazy_linear_init": "torch.nn.init.zeros_(torch.nn.LazyLinear(2).weight)",
    "err_lazy_linear_dtype": "m = torch.nn.LazyLinear(2); m(torch.ones(1, 3, dtype=torch.float64))",
})

# --- recurrent layers (RNN.cpp's composition; float32 LSTM is oneDNN's in PyTorch: float64 here) --
CASES.update({
    "nn_rnn_modules": _C + " ms = [nn.RNN(3, 4, num_layers=2, dtype=torch.float64), nn.GRU(3, 4, dtype=torch.float64),"
                      " nn.RNN(3, 4, nonlinearity='relu', batch_first=True, bias=False), nn.GRU(3, 4, batch_first=True)];"
                      " x = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True); o1, h1 = ms[0](x); o2, h2 = ms[1](x);"
                      " z = torch.randn(2, 3, 3); o3, h3 = ms[2](z); o4, h4 = ms[3](z, torch.randn(1, 2, 4));"
                      " result = ms + [o1, h1, graph(o1), graph(h1), G(o1, x), o2, h2, graph(o2), G(o2, x), o3, h3, o4, h4,"
                      " ms[3](z[0])[0], [n for n, _ in ms[0].named_parameters()]]",
    "nn_lstm_module": _C + " m = nn.LSTM(3, 4, num_layers=2, dtype=torch.float64); x = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True);"
                      " o, (h, c) = m(x); result = [m, o, h, c, graph(o), G(o, x), nn.LSTM(2, 3, dropout=0.5, num_layers=2), m.all_weights[1][0].shape]",
    "nn_rnn_cells": _C + " cs = [nn.RNNCell(3, 4), nn.RNNCell(3, 4, nonlinearity='relu', bias=False), nn.GRUCell(3, 4), nn.LSTMCell(3, 4)];"
                    " x = torch.randn(2, 3, requires_grad=True); h = torch.randn(2, 4); ys = [cs[0](x), cs[1](x, h), cs[2](x, h), cs[3](x, (h, h))[1], cs[3](x[0])[0]];"
                    " result = cs + ys + [graph(y) for y in ys] + [G(y, x) for y in ys]",
    "nn_rnn_bidirectional": _C + " ms = [nn.RNN(3, 4, 2, bidirectional=True, dtype=torch.float64), nn.GRU(3, 4, 2, bidirectional=True, batch_first=True,"
                            " dtype=torch.float64), nn.LSTM(3, 4, 2, bidirectional=True, dtype=torch.float64)];"
                            " x = torch.randn(4, 2, 3, dtype=torch.float64, requires_grad=True); ys = [m(x) for m in ms]; o1, h1 = ys[0]; o2, h2 = ys[1]; o3, (h3, c3) = ys[2];"
                            " s = x[:2, :1].detach().requires_grad_(); gs = [nn.RNN(3, 2, bidirectional=True, dtype=torch.float64)(s)[0], nn.GRU(3, 2, bidirectional=True, dtype=torch.float64)(s)[1],"
                            " nn.LSTM(3, 2, bidirectional=True, dtype=torch.float64)(s)[1][1]];"
                            " result = ms + [o1, h1, o2, h2, o3, h3, c3] + [graph(g) for g in gs] + [G(o1, x), G(h2 * h2, x), G(o3 + c3.sum(), x, ms[2].weight_hh_l1_reverse),"
                            " [n for n, _ in ms[2].named_parameters()], [[tuple(w.shape) for w in l] for l in ms[1].all_weights], ms[0](x[:, 0]), ms[1](x[0], h2[:, 0] * 0.5),"
                            " ms[2](x, (h3 * 0.5, c3 * 0.5))[1]]",
    "nn_rnn_bidirectional_float32": _C + " ms = [nn.RNN(3, 4, 2, bidirectional=True, nonlinearity='relu'), nn.GRU(3, 5, 3, bidirectional=True, bias=False)];"
                                    " x = torch.randn(5, 2, 3, requires_grad=True); o1, h1 = ms[0](x); o2, h2 = ms[1](x);"
                                    " result = ms + [o1, h1, o2, h2, graph(nn.RNN(3, 2, bidirectional=True)(x[:2])[1]), G(o1, x, ms[0].weight_ih_l1), G(o2[..., 5:] * h2[-1], x, ms[1].weight_hh_l2_reverse)]",
    # float32 at a size where the gates' rows are shorter than two vectors: PyTorch's unsafe_chunk
    # pieces are strided views, so their in-place sigmoid_/tanh_ run the kernels' scalar loop
    "nn_gru_float32_strided_gates": _C + " ms = [nn.GRU(8, 16), nn.GRU(8, 16, 2, bidirectional=True),"
                                    " nn.GRUCell(8, 16), nn.LSTMCell(8, 16)]; x = torch.randn(10, 4, 8, requires_grad=True);"
                                    " o1, h1 = ms[0](x); o2, h2 = ms[1](x); c = ms[2](x[1], ms[2](x[0])); l = ms[3](x[1], ms[3](x[0]));"
                                    " gs = G(o1 * o1 + h1.sum(), x, ms[0].weight_hh_l0, ms[0].bias_ih_l0) + G(o2 * o2, x, ms[1].weight_ih_l1_reverse)"
                                    " + G(c * c + l[1], x, ms[2].weight_hh, ms[3].weight_ih);"
                                    " result = [o1, c] + [t.tolist() for t in [o1, h1, o2, h2, c, l[0], l[1], *gs]]",
    "nn_lstm_projections": _C + " ms = [nn.LSTM(3, 4, 2, proj_size=2, dtype=torch.float64), nn.LSTM(3, 5, 2, proj_size=3, bidirectional=True, batch_first=True,"
                           " dtype=torch.float64), nn.LSTM(3, 4, proj_size=3, bias=False)]; x = torch.randn(4, 2, 3, dtype=torch.float64, requires_grad=True);"
                           " o1, (h1, c1) = ms[0](x); o2, (h2, c2) = ms[1](x); z = torch.randn(3, 2, 3, requires_grad=True); o3, (h3, c3) = ms[2](z);"
                           " s = x[:2, :1].detach().requires_grad_(); q = nn.LSTM(3, 3, proj_size=2, bidirectional=True, batch_first=True, dtype=torch.float64)(s);"
                           " result = ms + [o1, h1, c1, o2, h2, c2, o3, h3, c3, graph(q[0]), graph(q[1][0]), G(o1 + c1.sum(), x, ms[0].weight_hr_l0), G(o2, x, ms[1].weight_hr_l1_reverse),"
                           " G(o3 * o3, z, ms[2].weight_hr_l0), [n for n, _ in ms[1].named_parameters()], [[tuple(w.shape) for w in l] for l in ms[1].all_weights],"
                           " ms[2](z[:, 0])[1], ms[2](z, (h3 * 2, c3 * 2))[0]]",
    "err_rnn_bidirectional_hidden": "torch.nn.GRU(3, 4, bidirectional=True)(torch.ones(2, 1, 3), torch.ones(1, 1, 4))",
    "err_lstm_proj_hidden": "torch.nn.LSTM(3, 4, proj_size=2)(torch.ones(2, 1, 3), (torch.ones(1, 1, 4), torch.ones(1, 1, 4)))",
    "err_lstm_proj_cell": "torch.nn.LSTM(3, 4, proj_size=2)(torch.ones(2, 1, 3), (torch.ones(1, 1, 2), torch.ones(1, 1, 2)))",
    "err_lstm_proj_size": "torch.nn.LSTM(3, 4, proj_size=4)",
    "err_lstm_proj_negative": "torch.nn.LSTM(3, 4, proj_size=-1)",
    "err_lstm_proj_float": "torch.nn.LSTM(3, 4, proj_size=2.5)",
    "err_gru_proj": "torch.nn.GRU(3, 4, proj_size=2)",
    "err_rnn_proj": "torch.nn.RNN(3, 4, proj_size=2)",
    "err_rnn_input_dims": "torch.nn.LSTM(3, 4)(torch.ones(1, 2, 3, 3))",
    "err_rnn_input_size": "torch.nn.LSTM(3, 4)(torch.ones(2, 5))",
    "err_rnn_nonlinearity": "torch.nn.RNN(3, 4, nonlinearity='x')",
    "err_rnn_cell_size": "torch.nn.LSTMCell(3, 4)(torch.ones(2, 5))",
    "err_rnn_hidden_size": "torch.nn.GRU(3, 4)(torch.ones(2, 1, 3), torch.ones(2, 1, 4))",
    "err_rnn_cell_dims": "torch.nn.RNNCell(3, 4)(torch.ones(2, 2, 3))",
})

# --- ranking losses (ATen's compositions: ClampMin over Add/Mul/Sub, Norm for the distances) ---
CASES.update({
    "nn_margin_ranking_loss": _FX + " y = x.flip(1) * 0.5; t = torch.tensor([1., -1., 1., -1., 1., 1.]);"
                              " ys = [F.margin_ranking_loss(x[0], y[0], t), F.margin_ranking_loss(x, y, t.expand(2, 6), 0.5, reduction='sum'),"
                              " F.margin_ranking_loss(x[1], x[0], -t, margin=1., reduction='none'), torch.nn.MarginRankingLoss(0.25)(x[0], y[1], t)];"
                              " g = [graph(y) for y in ys]; gs = [G(y, x) for y in ys];"
                              " result = ys + g + gs + [torch.nn.MarginRankingLoss(0.5), torch.nn.MarginRankingLoss().margin]",
    "nn_triplet_margin_loss": _FX + " p = torch.linspace(-1., 2., 12).reshape(2, 6); n = x.detach() * 0.75 + 0.5;"
                              " ys = [F.triplet_margin_loss(x, p, n), F.triplet_margin_loss(x, p, n, margin=3., p=1, reduction='sum'),"
                              " F.triplet_margin_loss(x, p, n, swap=True, reduction='none'), F.triplet_margin_loss(p, x, n * 2, swap=True),"
                              " torch.nn.TripletMarginLoss(margin=2., eps=0.1)(x, n, p)];"
                              " g = [graph(y) for y in ys]; gs = [G(y, x) for y in ys];"
                              " result = ys + g + gs + [torch.nn.TripletMarginLoss(p=3, swap=True)]",
    "nn_cosine_embedding_loss": _FX + " y = x.flip(1) * 0.5 + 0.25; t = torch.tensor([1., -1.]);"
                                " ys = [F.cosine_embedding_loss(x, y, t), F.cosine_embedding_loss(x, y, t, 0.2, reduction='none'),"
                                " F.cosine_embedding_loss(x, -y, torch.tensor([-1, 1]), margin=-0.5, reduction='sum'), F.cosine_embedding_loss(x[0], y[1], torch.tensor(-1.)),"
                                " F.cosine_embedding_loss(x, y, torch.tensor([1., 0.])), torch.nn.CosineEmbeddingLoss(0.1, reduction='none')(x, y.double(), -t),"
                                " F.cosine_embedding_loss(x, y, t, size_average=False)];"
                                " g = [graph(y) for y in ys]; gs = [G(y, x) for y in ys];"
                                " result = ys + g + gs + [torch.nn.CosineEmbeddingLoss(), torch.nn.CosineEmbeddingLoss(margin=0.5).margin]",
    "err_cosine_embedding_target_dims": "F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 1))",
    "err_cosine_embedding_input_dims": "F.cosine_embedding_loss(torch.ones(3), torch.ones(3), torch.ones(2))",
    "err_cosine_embedding_input_dims0": "F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.tensor(1.))",
    "err_cosine_embedding_sizes": "F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(1, 3), torch.ones(3))",
    "err_cosine_embedding_target": "F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), 1)",
    "err_cosine_embedding_margin": "F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2), margin='a')",
    "err_cosine_embedding_reduction": "F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2), reduction='x')",
    "err_margin_ranking_dims": "F.margin_ranking_loss(torch.ones(2, 3), torch.ones(3), torch.ones(2, 3))",
    "err_triplet_dims": "F.triplet_margin_loss(torch.ones(2, 3), torch.ones(3), torch.ones(2, 3))",
    "err_triplet_margin": "F.triplet_margin_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3), margin=0.)",
    "err_triplet_module_margin": "torch.nn.TripletMarginLoss(margin=-1.)",
    "err_margin_ranking_reduction": "F.margin_ranking_loss(torch.ones(2), torch.ones(2), torch.ones(2), reduction='avg')",
})
