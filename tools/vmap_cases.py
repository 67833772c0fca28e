"""``torch.func.vmap`` programs run by PyTorch and by gradcli (tests/test_vmap.py).

Each case is a small program over ``torch`` (with ``torch.func``), ``F`` and ``nn`` that sets
``result`` (a list of values) or raises.  ``tools/record_vmap_cases.py`` records PyTorch 2.13's
answer into ``tests/fixtures/torch/vmap_cases.json``: each tensor's shape, dtype, strides and
bytes, each other value's repr, or the error's type and message.  Add a case, re-record, and
the test checks it.
"""

_SETUP = ("torch.manual_seed(0); vmap = torch.func.vmap; grad = torch.func.grad; "
          "x = torch.randn(3, 4); y = torch.randn(3, 4); w = torch.randn(4, 5); v = torch.randn(4); ")


def _case(body: str) -> str:
    return _SETUP + body


CASES: dict[str, str] = {
    # --- elementwise ops, in_dims and out_dims ---
    "unary": _case("result = [vmap(f)(x) for f in (torch.sin, torch.exp, torch.tanh, torch.relu,"
                   " torch.sigmoid, torch.abs, torch.sqrt, torch.log1p)]"),
    "unary_in_dim_1": _case("result = [vmap(torch.sin, in_dims=1)(x), vmap(torch.exp, in_dims=-1)(x),"
                            " vmap(torch.tanh, in_dims=1, out_dims=1)(x)]"),
    "out_dims": _case("result = [vmap(torch.cos, out_dims=1)(x), vmap(lambda a: a * 2, out_dims=-1)(x),"
                      " vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x)]"),
    "binary_in_dims": _case("result = [vmap(torch.add)(x, y), vmap(torch.mul, in_dims=(0, None))(x, v),"
                            " vmap(torch.sub, in_dims=(1, 1))(x, y), vmap(torch.div, in_dims=(0, 1))(x, y.t()),"
                            " vmap(torch.maximum)(x, y), vmap(torch.pow, in_dims=(0, None))(x.abs(), 1.5)]"),
    "broadcast_inside": _case("result = [vmap(lambda a, b: a[:, None] * b[None, :])(x, y),"
                              " vmap(lambda a: a + torch.ones(2, 1))(x)]"),
    "scalar_samples": _case("s = torch.randn(5); result = [vmap(lambda a: a * 3 + 1)(s),"
                            " vmap(torch.mul)(s, s), vmap(lambda a: a.exp().sum())(s)]"),
    # --- products ---
    "dot_docstring": _case("result = [vmap(torch.dot)(x, y), vmap(torch.dot, in_dims=(0, None))(x, v),"
                           " vmap(torch.mv, in_dims=(None, 0))(w.t(), x)]"),
    "matmul_family": _case("m = torch.randn(3, 4, 2); result = [vmap(torch.mm)(torch.randn(3, 2, 4), m),"
                           " vmap(torch.mm, in_dims=(0, None))(m.transpose(1, 2), w),"
                           " vmap(torch.matmul, in_dims=(0, None))(x, w), vmap(lambda a: a @ w)(x),"
                           " vmap(lambda a, b: torch.outer(a, b))(x, y)]"),
    "linear": _case("b = torch.randn(5); result = [vmap(F.linear, in_dims=(0, None, None))(x, w.t(), b),"
                    " vmap(lambda a: F.linear(a.unsqueeze(0), w.t(), b))(x)]"),
    # --- reductions and normalisations ---
    "reductions": _case("result = [vmap(torch.sum)(x), vmap(torch.mean)(x), vmap(lambda a: a.max())(x),"
                        " vmap(lambda a: a.var())(x), vmap(torch.norm)(x), vmap(lambda a: a.prod())(x),"
                        " vmap(lambda a: a.max(0).indices)(x), vmap(torch.argmin)(x)]"),
    "softmax": _case("z = torch.randn(3, 2, 4); result = [vmap(lambda a: a.softmax(-1))(z),"
                     " vmap(lambda a: F.log_softmax(a, dim=0))(z), vmap(lambda a: a.sum(1), in_dims=2)(z),"
                     " vmap(lambda a: a.logsumexp(0))(z), vmap(lambda a: a.cumsum(1))(z)]"),
    # --- shapes and indexing ---
    "shapes": _case("result = [vmap(lambda a: a.reshape(2, 2))(x), vmap(lambda a: a.view(2, 2).t())(x),"
                    " vmap(lambda a: a.unsqueeze(0))(x), vmap(lambda a: a[1:3])(x), vmap(lambda a: a[-1])(x),"
                    " vmap(lambda a, b: torch.cat([a, b]))(x, y), vmap(lambda a, b: torch.stack([a, b]))(x, y),"
                    " vmap(lambda a: a.flip(0))(x), vmap(lambda a: a.expand(2, 4))(x)]"),
    "shape_queries": _case("result = [vmap(lambda a: a * a.shape[0])(x), vmap(lambda a: a * a.dim())(x),"
                           " vmap(lambda a: torch.zeros(a.shape))(x), vmap(lambda a: torch.ones(2))(x)]"),
    "comparisons_where": _case("result = [vmap(lambda a: torch.where(a > 0, a, -a))(x),"
                               " vmap(lambda a: (a > 0).sum())(x), vmap(lambda a: a.clamp(-0.5, 0.5))(x),"
                               " vmap(lambda a: a.masked_fill(a < 0, 0.0))(x)]"),
    # --- pytrees ---
    "nested_in_dims": _case("result = [vmap(lambda p, a: p[0] * a + p[1], in_dims=((None, 0), 0))((v, y), x),"
                            " vmap(lambda d: d['a'] - d['b'], in_dims=({'a': 1, 'b': 0},))({'a': x.t(), 'b': y}),"
                            " vmap(lambda l: l[0] + l[1])([x, y])]"),
    "dict_output": _case("out = vmap(lambda a: {'s': a.sum(), 'd': a * 2})(x); result = [out['s'], out['d']]"),
    "kwargs_unbatched": _case("result = [vmap(lambda a, scale=1.0: a * scale)(x, scale=v)]"),
    "out_dims_none": _case("out = vmap(lambda a: (a * 2, v), out_dims=(0, None))(x); result = [out[0], out[1] is v]"),
    "nested_vmap": _case("result = [vmap(vmap(torch.dot))(x.reshape(3, 2, 2), y.reshape(3, 2, 2)),"
                         " vmap(vmap(torch.mul, in_dims=(0, None)), in_dims=(None, 0))(v, x),"
                         " vmap(vmap(lambda a: a.sum()), in_dims=1)(x.reshape(3, 2, 2))]"),
    "chunk_size": _case("result = [vmap(torch.sin, chunk_size=2)(x), vmap(torch.dot, chunk_size=1)(x, y),"
                        " vmap(lambda a: a.sum(), chunk_size=5)(x)]"),
    "torch_vmap": _case("result = [torch.vmap(torch.sin)(x)]"),
    # --- randomness ---
    "random_same": _case("result = [vmap(lambda a: a + torch.rand(4), randomness='same')(x), torch.rand(2),"
                         " vmap(lambda a: a * torch.randn(20), randomness='same', chunk_size=2)(torch.ones(3, 20)),"
                         " torch.rand(2)]"),
    "random_different": _case("result = [vmap(lambda a: a + torch.rand(4), randomness='different')(x),"
                              " torch.rand(2), vmap(lambda a: torch.randn(2, 10), randomness='different',"
                              " chunk_size=2)(x), torch.rand(2)]"),
    "random_dropout": _case("result = [vmap(lambda a: F.dropout(a, 0.5), randomness='different')(torch.ones(3, 6)),"
                            " vmap(lambda a: F.dropout(a, 0.3), randomness='same')(torch.ones(3, 6)),"
                            " vmap(lambda a: a + torch.randint(0, 5, (4,)), randomness='different')(x)]"),
    "random_inplace": _case("result = [vmap(lambda a: a.clone().uniform_(), randomness='same')(x),"
                            " vmap(lambda a: a.clone().normal_(), randomness='different')(x),"
                            " vmap(lambda a: a.clone().bernoulli_(0.5), randomness='different', chunk_size=2)(x),"
                            " vmap(lambda a: torch.rand_like(a), randomness='different')(x), torch.rand(3)]"),
    "random_tensor_parameters": _case("result = [vmap(lambda a: torch.bernoulli(a.sigmoid()), randomness='different')(x),"
                                      " vmap(lambda a: torch.normal(a, 0.5), randomness='different')(x),"
                                      " vmap(lambda a: a * torch.bernoulli(v.sigmoid()), randomness='same')(x),"
                                      " vmap(lambda a: a[torch.randperm(4)], randomness='different')(x),"
                                      " vmap(lambda a: a[torch.randperm(4)], randomness='same')(x), torch.rand(3)]"),
    "error_random_same_batched_bernoulli": _case("vmap(lambda a: torch.bernoulli(a.sigmoid()), randomness='same')(x)"),
    "error_random_same_batched_normal": _case("vmap(lambda a: torch.normal(a, 2.0), randomness='same')(x)"),
    "error_item_of_different_draw": _case("vmap(lambda a: a * torch.rand(1).item(), randomness='different')(x)"),
    "item_of_same_draw": _case("result = [vmap(lambda a: a * torch.rand(1).item(), randomness='same')(x)]"),
    "error_random_inplace_unbatched": _case("vmap(lambda a, b: a + b.uniform_(), in_dims=(0, None),"
                                            " randomness='different')(x, torch.zeros(4))"),
    # --- with autograd and the other transforms ---
    "vmap_grad": _case("f = lambda a: (a.sin() * a).sum(); result = [vmap(grad(f))(x),"
                       " vmap(grad(lambda a, b: (a * b).exp().sum(), argnums=1), in_dims=(None, 0))(v, x)]"),
    "vmap_jacrev": _case("f = lambda a: a.tanh() * a.sum(); result = [vmap(torch.func.jacrev(f))(x),"
                         " vmap(torch.func.jacfwd(f))(x), vmap(torch.func.hessian(lambda a: a.pow(3).sum()))(x)]"),
    "grad_through_vmap": _case("p = x.clone().requires_grad_(); out = vmap(lambda a: (a * a).sum())(p);"
                               " out.sum().backward(); q = x.clone().requires_grad_();"
                               " g = torch.autograd.grad(vmap(torch.sin, in_dims=1, out_dims=1)(q).pow(2).sum(), q)[0];"
                               " result = [out.detach(), p.grad, g, grad(lambda a: vmap(torch.dot)(a, y).sum())(x)]"),
    "functional_call_per_sample": _case(
        "model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2));"
        " params = {k: p.detach() for k, p in model.named_parameters()};"
        " t = torch.tensor([0, 1, 1]);"
        " loss = lambda p, a, c: F.cross_entropy(torch.func.functional_call(model, p, (a.unsqueeze(0),)), c.unsqueeze(0));"
        " g = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, t);"
        " result = [vmap(lambda a: torch.func.functional_call(model, params, (a,)))(x)] + [g[k] for k in g]"),
    "cnn_per_sample": _case(
        "conv = torch.nn.Conv2d(1, 2, 3); imgs = torch.randn(4, 1, 5, 5);"
        " params = {k: p.detach() for k, p in conv.named_parameters()};"
        " f = lambda p, im: F.max_pool2d(torch.func.functional_call(conv, p, (im.unsqueeze(0),)).relu(), 2).sum();"
        " g = vmap(grad(f), in_dims=(None, 0))(params, imgs); result = [g['weight'], g['bias']]"),
    "composites": _case("d = x.double(); f = lambda r: (r.sin() * r.sum()).exp();"
                        " result = [torch.func.jacrev(vmap(f))(d), torch.func.jacfwd(vmap(f))(d),"
                        " vmap(lambda r, t: torch.func.jvp(f, (r,), (t,))[1])(d, torch.ones_like(d)),"
                        " vmap(lambda r: torch.func.vjp(f, r)[1](torch.ones(4, dtype=torch.float64))[0])(d),"
                        " torch.func.hessian(lambda a: vmap(f)(a).sum())(d[:2]),"
                        " vmap(vmap(grad(lambda s: s.sin() * s.exp())))(d),"
                        " vmap(torch.func.jacfwd(f), in_dims=1)(d.t())]"),
    # --- a sweep over the table's ops ---
    "sweep_unary": _case("z = torch.randn(5, 7); result = [vmap(getattr(torch, n))(z) for n in ("
                         "'neg', 'exp', 'expm1', 'log', 'sin', 'cos', 'tan', 'asin',"
                         " 'atan', 'sinh', 'cosh', 'tanh', 'sigmoid', 'relu', 'square', 'rsqrt',"
                         " 'reciprocal', 'floor', 'ceil', 'round', 'trunc', 'frac', 'sign', 'erf',"
                         " 'exp2', 'log1p', 'abs')]"
                         " + [vmap(getattr(F, n))(z) for n in ('silu', 'softplus', 'elu', 'selu',"
                         " 'leaky_relu', 'hardtanh', 'logsigmoid', 'tanhshrink', 'softsign')]"),
    # ops whose kernels gradcli computes within an ulp of PyTorch's, with or without vmap
    "sweep_inexact_kernels": _case("z = torch.randn(5, 7); u = torch.rand(5, 7) + 0.5; result = ["
                                   "vmap(getattr(torch, n))(z) for n in ('log2', 'log10', 'asinh')]"
                                   " + [vmap(F.gelu)(z), vmap(F.mish)(z), vmap(torch.pow)(z, u),"
                                   " vmap(F.normalize)(torch.randn(5, 3, 6)),"
                                   " vmap(lambda a: F.layer_norm(a, (6,)))(torch.randn(5, 3, 6))]"),
    "sweep_binary": _case("z = torch.randn(5, 7); u = torch.rand(5, 7) + 0.5; result = ["
                          "vmap(getattr(torch, n))(z, u) for n in ('add', 'sub', 'mul', 'div',"
                          " 'atan2', 'maximum', 'minimum', 'fmod', 'remainder', 'hypot', 'copysign',"
                          " 'xlogy')] + [vmap(getattr(torch, n), in_dims=(0, None))(z, u[0]) for n in"
                          " ('add', 'mul', 'div')] + [vmap(F.mse_loss)(z, u), vmap(F.l1_loss)(z, u),"
                          " vmap(F.smooth_l1_loss)(z, u), vmap(F.binary_cross_entropy)(u.sigmoid(), u - 0.5),"
                          " vmap(F.cosine_similarity, in_dims=(0, 0))(z[:, None], u[:, None])]"),
    "sweep_reductions": _case("z = torch.randn(5, 3, 6); result = [vmap(lambda a, n=n: getattr(a, n)())(z) for n in"
                              " ('sum', 'mean', 'prod', 'std', 'var', 'amax', 'amin', 'norm')] + [vmap(lambda a, n=n: getattr(a, n)(1))(z) for n in"
                              " ('sum', 'mean', 'std', 'var', 'amax', 'amin', 'cumsum', 'cumprod', 'softmax',"
                              " 'log_softmax', 'logsumexp', 'argmax', 'argmin')] + [vmap(lambda a: a.max(0))(z)[0],"
                              " vmap(lambda a: a.sort(1).values)(z), vmap(lambda a: a.topk(2).indices)(z)]"),
    # --- errors ---
    "error_item": _case("vmap(lambda a: a.sum().item())(x)"),
    "error_float": _case("vmap(lambda a: a * float(a[0]))(x)"),
    "error_control_flow": _case("vmap(lambda a: a if a.sum() > 0 else -a)(x)"),
    "error_control_flow_derived": _case("vmap(lambda a: a if bool((a.exp() > 1).any()) else -a)(x)"),
    "error_tolist": _case("vmap(lambda a: torch.tensor(a.tolist()))(x)"),
    "error_item_in_grad": _case("vmap(grad(lambda a: a.sum() * a.sum().item()))(x)"),
    "error_bool_in_grad": _case("vmap(grad(lambda a: a.sum() * (1 if a.sum() > 0 else 2)))(x)"),
    "error_item_vmap_in_grad": _case("grad(lambda a: vmap(lambda b: b.sum().item())(a).sum())(x)"),
    "unbatched_item_ok": _case("c = torch.tensor(2.0); result = [vmap(lambda a: a * c.item())(x)]"),
    "error_sizes": _case("vmap(torch.add)(x, torch.randn(2, 4))"),
    "error_in_dim_range": _case("vmap(torch.sin, in_dims=2)(x)"),
    "error_in_dim_negative": _case("vmap(torch.sin, in_dims=-3)(x)"),
    "error_in_dims_structure": _case("vmap(torch.add, in_dims=(0,))(x, y)"),
    "error_in_dims_nested_structure": _case("vmap(lambda p: p[0], in_dims=((0, 0, 0),))((x, {'a': y}))"),
    "error_in_dims_type": _case("vmap(torch.add, in_dims=(0.5, 0))(x, y)"),
    "error_in_dims_list": _case("vmap(torch.add, in_dims=[0, 0])(x, y)"),
    "error_no_batched": _case("vmap(torch.add, in_dims=(None, None))(x, y)"),
    "error_no_inputs": _case("vmap(lambda: torch.ones(2))()"),
    "error_zero_dim": _case("vmap(torch.sin)(torch.tensor(1.0))"),
    "error_non_tensor_input": _case("vmap(lambda a: a)(3)"),
    "error_non_tensor_output": _case("vmap(lambda a: 3)(x)"),
    "error_out_dim_range": _case("vmap(torch.sin, out_dims=3)(x)"),
    "error_out_dims_none_batched": _case("vmap(torch.sin, out_dims=None)(x)"),
    "error_out_dims_structure": _case("vmap(lambda a: (a, a), out_dims=(0,))(x)"),
    "error_out_dims_type": _case("vmap(torch.sin, out_dims=0.5)(x)"),
    "error_random": _case("vmap(lambda a: a + torch.rand(4))(x)"),
    "error_randomness_value": _case("vmap(torch.sin, randomness='sometimes')"),
    "error_chunk_size": _case("vmap(torch.sin, chunk_size=0)"),
    "error_inplace_unbatched": _case("vmap(lambda a, b: b.add_(a), in_dims=(0, None))(x, torch.ones(2, 4))"),
    "inplace_batched_ok": _case("result = [vmap(lambda a, b: a.mul_(b), in_dims=(0, None))(x.clone(), v)]"),
}
