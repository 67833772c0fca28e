"""Forward-mode cases: an expression over dual inputs, run by PyTorch and by gradcli
(tests/test_forward_ad.py).

``CASES[name] = (expression, shapes, domain)``: the inputs ``a``, ``b``, ``c`` ... have the
shapes given, values drawn (a fixed seed per case) from ``domain`` and tangents from [-1, 1];
``tools/record_forward_cases.py`` makes each input a dual tensor, evaluates the expression in
PyTorch 2.13 under a dual level (float64 and float32) and records the primal and tangent of
the result, or the error.  The expression sees ``torch``, ``F`` and ``I`` (index tensors:
``I([[0, 1]])`` is an int64 tensor).
"""

UNIT = (-1.0, 1.0)
POS = (0.5, 2.0)
M = (3, 4)

_UNARY = {
    # elementwise functions (auto_element_wise, or PyTorch's own result: formula)
    "exp": UNIT, "log": POS, "sqrt": POS, "abs": UNIT, "sin": UNIT, "cos": UNIT,
    "tanh": UNIT, "sigmoid": UNIT, "relu": UNIT, "sign": UNIT, "rsqrt": POS, "log2": POS,
    "log10": POS, "floor": (-3.0, 3.0), "ceil": (-3.0, 3.0), "trunc": (-3.0, 3.0),
    "round": (-3.0, 3.0), "atan": UNIT, "asin": (-0.9, 0.9), "acos": (-0.9, 0.9),
    "sinh": UNIT, "cosh": UNIT, "log1p": POS, "expm1": UNIT, "erf": UNIT, "tan": UNIT,
    "asinh": UNIT, "acosh": (1.5, 3.0), "atanh": (-0.9, 0.9), "exp2": UNIT, "frac": (0.1, 0.9),
    "sgn": UNIT, "reciprocal": POS, "neg": UNIT, "nan_to_num": UNIT, "logit": (0.1, 0.9),
    "clone": UNIT, "square": UNIT,
}
CASES: dict[str, tuple[str, list, tuple[float, float]]] = {
    f"unary_{n}": (f"torch.{n}(a)", [M], d) for n, d in _UNARY.items()
}
_ACTIVATIONS = {
    "softplus": "F.softplus(a, beta=2.0)", "logsigmoid": "F.logsigmoid(a)",
    "hardtanh": "F.hardtanh(a * 2)", "hardswish": "F.hardswish(a * 4)",
    "hardsigmoid": "F.hardsigmoid(a * 4)", "mish": "F.mish(a)", "selu": "F.selu(a)",
    "celu": "F.celu(a, alpha=0.5)", "softshrink": "F.softshrink(a)",
    "hardshrink": "F.hardshrink(a)", "threshold": "F.threshold(a, 0.1, 20.0)",
    "leaky_relu": "F.leaky_relu(a, 0.2)", "gelu": "F.gelu(a)",
    "gelu_tanh": "F.gelu(a, approximate='tanh')", "silu": "F.silu(a)", "elu": "F.elu(a)",
    "glu": "F.glu(a, dim=1)", "softmax": "torch.softmax(a, dim=1)",
    "log_softmax": "torch.log_softmax(a, dim=0)", "relu6": "F.relu6(a * 8)",
    "elu_inplace": "F.elu(a * 1, inplace=True)", "leaky_relu_inplace":
    "F.leaky_relu(a * 1, 0.2, inplace=True)", "threshold_inplace":
    "F.threshold(a * 1, 0.1, 20.0, inplace=True)", "relu_inplace": "torch.relu_(a * 1)",
    "dropout_eval": "F.dropout(a, 0.5, training=False)",
}
CASES.update({f"act_{n}": (e, [M], UNIT) for n, e in _ACTIVATIONS.items()})
CASES.update({
    # arithmetic: both inputs dual, broadcasting, Python numbers
    "add": ("a + b", [M, M], UNIT), "add_broadcast": ("a + b", [M, (4,)], UNIT),
    "sub": ("a - b", [M, (1, 4)], UNIT), "mul": ("a * b", [M, M], UNIT),
    "mul_broadcast": ("a * b", [(3, 1), (1, 4)], UNIT), "div": ("a / b", [M, M], POS),
    "mul_scalar": ("a * 2.5", [M], UNIT), "div_scalar": ("a / 3.0", [M], UNIT),
    "add_scalar": ("a + 1.5", [M], UNIT), "sub_scalar": ("a - 1.5", [M], UNIT),
    "rsub": ("1.5 - a", [M], UNIT), "rdiv": ("2.0 / a", [M], POS),
    "pow_scalar": ("a ** 3", [M], UNIT), "pow_half": ("a ** 0.5", [M], POS),
    "pow_tensor": ("a ** b", [M, M], POS), "pow_scalar_base": ("2.0 ** a", [M], UNIT),
    "remainder": ("torch.remainder(a, b)", [M, M], POS),
    "remainder_scalar": ("a % 0.7", [M], POS), "fmod": ("torch.fmod(a, b)", [M, M], POS),
    "fmod_scalar": ("torch.fmod(a, 0.7)", [M], POS),
    "maximum": ("torch.maximum(a, b)", [M, M], UNIT),
    "minimum": ("torch.minimum(a, b)", [M, M], UNIT),
    "max_binary": ("torch.max(a, b)", [M, M], UNIT),
    "clamp": ("torch.clamp(a, -0.5, 0.5)", [M], UNIT),
    "clamp_min": ("torch.clamp_min(a, 0.1)", [M], UNIT),
    "clamp_max": ("torch.clamp_max(a, 0.1)", [M], UNIT),
    "atan2": ("torch.atan2(a, b)", [M, M], UNIT), "hypot": ("torch.hypot(a, b)", [M, M], UNIT),
    "logaddexp": ("torch.logaddexp(a, b)", [M, M], UNIT),
    "lerp": ("torch.lerp(a, b, c)", [M, M, M], UNIT),
    "lerp_scalar": ("torch.lerp(a, b, 0.3)", [M, M], UNIT),
    "addcmul": ("torch.addcmul(a, b, c, value=0.5)", [M, M, M], UNIT),
    "addcdiv": ("torch.addcdiv(a, b, c, value=0.5)", [M, M, M], POS),
    "xlogy": ("torch.xlogy(a, b)", [M, M], POS),
    "xlogy_self_number": ("torch.xlogy(2.0, a)", [M], POS),
    "xlogy_other_number": ("torch.xlogy(a, 2.0)", [M], POS),
    "copysign": ("torch.copysign(a, b)", [M, M], UNIT),
    "copysign_scalar": ("torch.copysign(a, -1.0)", [M], UNIT),
    "where": ("torch.where(a > 0, a, b)", [M, M], UNIT),
    "masked_fill": ("a.masked_fill(a > 0, 2.0)", [M], UNIT),
    "masked_fill_tensor": ("a.masked_fill(a > 0, b)", [M, ()], UNIT),
    "round_decimals": ("torch.round(a, decimals=1)", [M], UNIT),
    "to_double": ("a.to(torch.float64) * 2", [M], UNIT),
    # reductions
    "sum": ("a.sum()", [M], UNIT), "sum_dim": ("a.sum(dim=1)", [M], UNIT),
    "sum_keepdim": ("a.sum(0, keepdim=True)", [M], UNIT), "mean": ("a.mean()", [M], UNIT),
    "mean_dim": ("a.mean(dim=(0, 1))", [M], UNIT), "prod": ("a.prod()", [M], POS),
    "prod_dim": ("a.prod(1)", [M], POS), "var": ("a.var()", [M], UNIT),
    "var_dim": ("a.var(dim=1, correction=0)", [M], UNIT), "std": ("a.std()", [M], UNIT),
    "std_dim": ("a.std(dim=0, keepdim=True)", [M], UNIT), "max": ("a.max()", [M], UNIT),
    "min": ("a.min()", [M], UNIT), "max_dim": ("a.max(dim=1).values", [M], UNIT),
    "min_dim": ("a.min(dim=0, keepdim=True)[0]", [M], UNIT),
    "amax": ("torch.amax(a, dim=1)", [M], UNIT), "amin": ("torch.amin(a, dim=0)", [M], UNIT),
    "aminmax": ("torch.cat([torch.aminmax(a).min.reshape(1), torch.aminmax(a).max.reshape(1)])",
                [M], UNIT),
    "logsumexp": ("torch.logsumexp(a, dim=1)", [M], UNIT),
    "norm": ("a.norm()", [M], UNIT), "norm_dim": ("a.norm(dim=1)", [M], UNIT),
    "norm_p1": ("torch.norm(a, p=1, dim=0)", [M], UNIT),
    "vector_norm": ("torch.linalg.vector_norm(a, ord=3)", [M], UNIT),
    "dist": ("torch.dist(a, b)", [M, M], UNIT), "nansum": ("torch.nansum(a)", [M], UNIT),
    "median": ("a.median()", [M], UNIT), "median_dim": ("a.median(dim=1).values", [M], UNIT),
    "cumsum": ("torch.cumsum(a, dim=1)", [M], UNIT),
    "cumprod": ("torch.cumprod(a, dim=1)", [M], UNIT),
    "trace": ("torch.trace(a)", [M], UNIT),
    "sort": ("torch.sort(a, dim=1).values", [M], UNIT),
    "sort_stable": ("torch.sort(a, dim=0, stable=True).values", [M], UNIT),
    "topk": ("torch.topk(a, 2).values", [M], UNIT),
    "kthvalue": ("torch.kthvalue(a, 2).values", [M], UNIT),
    "mode": ("torch.mode(torch.round(a * 2), 1).values", [M], UNIT),
    "cummax": ("torch.cummax(a, 1).values", [M], UNIT),
    "cummin": ("torch.cummin(a, 0).values", [M], UNIT),
    # matrix products
    "mm": ("a @ b", [(3, 4), (4, 2)], UNIT), "mv": ("a @ b", [(3, 4), (4,)], UNIT),
    "dot": ("a @ b", [(4,), (4,)], UNIT), "bmm": ("torch.bmm(a, b)", [(2, 3, 4), (2, 4, 2)], UNIT),
    "matmul_batched": ("a @ b", [(2, 3, 4), (4, 2)], UNIT),
    "addmm": ("F.linear(b, c.t(), a)", [(2,), (3, 4), (4, 2)], UNIT),
    "linear": ("F.linear(a, b, c)", [(3, 4), (2, 4), (2,)], UNIT),
    "outer": ("torch.outer(a, b)", [(3,), (4,)], UNIT),
    "einsum": ("torch.einsum('ij,jk->ik', a, b)", [(3, 4), (4, 2)], UNIT),
    # shapes and views
    "view": ("a.view(2, 6)", [M], UNIT), "reshape": ("a.t().reshape(12)", [M], UNIT),
    "t": ("a.t()", [M], UNIT), "permute": ("a.permute(1, 0)", [M], UNIT),
    "transpose": ("a.transpose(0, 1)", [M], UNIT), "unsqueeze": ("a.unsqueeze(1)", [M], UNIT),
    "squeeze": ("a.squeeze()", [(3, 1, 4)], UNIT), "squeeze_dim": ("a.squeeze(1)", [(3, 1, 4)], UNIT),
    "select": ("a[1]", [M], UNIT), "slice": ("a[:, 1:3]", [M], UNIT),
    "slice_step": ("a[::2, ::3]", [M], UNIT), "unbind": ("torch.unbind(a)[2]", [M], UNIT),
    "split": ("torch.split(a, 2, dim=1)[1]", [M], UNIT),
    "split_sizes": ("torch.split(a, [1, 3], dim=1)[1]", [M], UNIT),
    "chunk": ("a.chunk(2, dim=1)[0]", [M], UNIT), "expand": ("a.expand(3, 4)", [(1, 4)], UNIT),
    "flatten": ("a.flatten()", [(2, 3, 2)], UNIT), "cat": ("torch.cat([a, b], dim=0)", [M, (2, 4)], UNIT),
    "cat_mixed": ("torch.cat([a, a * 0 + 1, b])", [(2,), (3,)], UNIT),
    "stack": ("torch.stack([a, b], dim=1)", [M, M], UNIT), "repeat": ("a.repeat(2, 1)", [M], UNIT),
    "flip": ("torch.flip(a, [0])", [M], UNIT), "roll": ("torch.roll(a, 1, 1)", [M], UNIT),
    "tril": ("torch.tril(a)", [M], UNIT), "triu": ("torch.triu(a, 1)", [M], UNIT),
    "diagonal": ("torch.diagonal(a)", [M], UNIT), "diag": ("torch.diag(a)", [(3,)], UNIT),
    "diag_embed": ("torch.diag_embed(a)", [(2, 3)], UNIT), "movedim": ("torch.movedim(a, 0, 1)", [M], UNIT),
    "index": ("a[I([0, 2, 2])]", [M], UNIT), "index_bool": ("a[a > 0]", [M], UNIT),
    "index_put": ("S(a, I([0, 2]), b)", [M, (2, 4)], UNIT),
    "setitem_slice": ("S(a, (slice(None), 1), b)", [M, (3,)], UNIT),
    "gather": ("torch.gather(a, 1, I([[0, 1], [2, 0], [3, 3]]))", [M], UNIT),
    "scatter": ("torch.scatter(a, 1, I([[0], [2], [1]]), b)", [M, (3, 1)], UNIT),
    "scatter_value": ("torch.scatter(a, 1, I([[0], [2], [1]]), 5.0)", [M], UNIT),
    "scatter_add": ("torch.scatter_add(a, 1, I([[0, 0], [2, 1], [1, 1]]), b)", [M, (3, 2)], UNIT),
    "index_select": ("torch.index_select(a, 1, I([3, 0]))", [M], UNIT),
    "index_add": ("torch.index_add(a, 0, I([0, 2]), b, alpha=2.0)", [M, (2, 4)], UNIT),
    "take": ("torch.take(a, I([0, 5, 11]))", [M], UNIT),
    "masked_select": ("torch.masked_select(a, a > 0)", [M], UNIT),
    "pad": ("F.pad(a, (1, 2), value=3.0)", [M], UNIT),
    "pad_reflect": ("F.pad(a, (1, 1), mode='reflect')", [(2, 3, 4)], UNIT),
    "pad_replicate": ("F.pad(a, (1, 2), mode='replicate')", [(2, 3, 4)], UNIT),
    # nn.functional's losses and normalisation
    "mse_loss": ("F.mse_loss(a, b)", [M, M], UNIT),
    "mse_loss_none": ("F.mse_loss(a, b, reduction='none')", [M, M], UNIT),
    "l1_loss": ("F.l1_loss(a, b)", [M, M], UNIT),
    "nll_loss": ("F.nll_loss(torch.log_softmax(a, 1), I([0, 3, 1]))", [M], UNIT),
    "cross_entropy": ("F.cross_entropy(a, I([0, 3, 1]))", [M], UNIT),
    "bce": ("F.binary_cross_entropy(a, b)", [M, M], (0.1, 0.9)),
    "bce_logits": ("F.binary_cross_entropy_with_logits(a, b)", [M, M], UNIT),
    "smooth_l1": ("F.smooth_l1_loss(a, b)", [M, M], UNIT),
    "huber": ("F.huber_loss(a, b, delta=0.5)", [M, M], UNIT),
    "soft_margin": ("F.soft_margin_loss(a, torch.sign(b))", [M, M], UNIT),
    "layer_norm": ("F.layer_norm(a, (4,), b, c)", [M, (4,), (4,)], UNIT),
    "layer_norm_plain": ("F.layer_norm(a, (3, 4))", [(2, 3, 4)], UNIT),
    "batch_norm": ("F.batch_norm(a, None, None, b, c, training=True)", [M, (4,), (4,)], UNIT),
    "batch_norm_3d": ("F.batch_norm(a, None, None, training=True)", [(2, 3, 2)], UNIT),
    "normalize": ("F.normalize(a, dim=1)", [M], UNIT),
    # layers: a convolution is bilinear in input and weight; pools and lookups linear
    "conv2d": ("F.conv2d(a, b, c, stride=(2, 1), padding=1)", [(2, 3, 5, 4), (4, 3, 3, 2), (4,)],
               UNIT),
    "conv1d_groups": ("F.conv1d(a, b, groups=2, dilation=2)", [(1, 4, 7), (2, 2, 3)], UNIT),
    "max_pool2d": ("F.max_pool2d(a, 2)", [(1, 2, 4, 4)], UNIT),
    "avg_pool2d": ("F.avg_pool2d(a, 2, stride=1, padding=1)", [(1, 2, 3, 4)], UNIT),
    "adaptive_avg_pool2d": ("F.adaptive_avg_pool2d(a, (2, 3))", [(1, 2, 5, 5)], UNIT),
    "embedding": ("F.embedding(I([[1, 2, 2], [0, 4, 1]]), a)", [(5, 3)], UNIT),
    "cosine_similarity": ("F.cosine_similarity(a, b)", [M, M], UNIT),
    # linear algebra
    "det": ("torch.linalg.det(a + 3 * torch.eye(3, dtype=a.dtype))", [(3, 3)], UNIT),
    "inv": ("torch.linalg.inv(a + 3 * torch.eye(3, dtype=a.dtype))", [(3, 3)], UNIT),
    "solve": ("torch.linalg.solve(a + 3 * torch.eye(3, dtype=a.dtype), b)", [(3, 3), (3, 2)], UNIT),
    "solve_vector": ("torch.linalg.solve(a + 3 * torch.eye(3, dtype=a.dtype), b)", [(3, 3), (3,)], UNIT),
    # in place
    "add_": ("a.clone().add_(b)", [M, M], UNIT), "mul_": ("a.clone().mul_(b)", [M, M], UNIT),
    "sub_": ("a.clone().sub_(b)", [M, M], UNIT), "div_": ("a.clone().div_(b)", [M, M], POS), "zero_": ("a.clone().zero_()", [M], UNIT),
    "copy_": ("a.clone().copy_(b)", [M, M], UNIT),
    "chain": ("torch.tanh(a @ b).sum(dim=0) * torch.sigmoid(b).mean()", [(3, 4), (4, 2)], UNIT),
    # PyTorch has no forward formula
    "cdist": ("torch.cdist(a, b)", [M, M], UNIT),
})
