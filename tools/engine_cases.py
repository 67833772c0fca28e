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
