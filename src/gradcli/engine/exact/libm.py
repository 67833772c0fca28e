"""glibc's ``expf`` (sysdeps/ieee754/flt-32/e_expf.c), which PyTorch's scalar loops call.

PyTorch's vectorised loops leave the last ``n % (2 * lanes)`` elements to the scalar lambda, whose
``std::exp(float)`` is the C library's ``expf``: since glibc 2.28 a table of 32 powers of two and a
cubic in double precision, rounded once to float.  Its double arithmetic is ported here
operation for operation (the FMA build contracts two of them; the difference moves a double by
an ulp and the float result not at all on the inputs the tests sweep).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

_N = 32
_SHIFT = float.fromhex("0x1.8p+52")
_INVLN2N = float.fromhex("0x1.71547652b82fep+0") * _N
_C0 = float.fromhex("0x1.c6af84b912394p-5") / _N / _N / _N
_C1 = float.fromhex("0x1.ebfce50fac4f3p-3") / _N / _N
_C2 = float.fromhex("0x1.62e42ff0c52d6p-1") / _N


@functools.cache
def _table() -> Any:
    """__exp2f_data.tab: the bits of 2**(i/32), less i << 47 (the exponent is added later);
    made on first use, not at every start-up."""
    from decimal import Context

    context = Context(prec=60)
    ln2 = context.ln(2)
    bits = [np.float64(float(context.exp(context.divide(context.multiply(ln2, i), _N))))
            .view(np.uint64) for i in range(_N)]
    return np.array([int(b) - (i << 47) for i, b in enumerate(bits)], np.uint64)


def expf(x: Any) -> Any:
    """``expf`` of a float32 array."""
    x = np.asarray(x, np.float32)
    xd = x.astype(np.float64)
    with np.errstate(all="ignore"):
        z = _INVLN2N * xd
        kd = z + _SHIFT
        ki = np.where(np.isfinite(kd), kd, _SHIFT).view(np.uint64)
        kd = kd - _SHIFT
        r = z - kd
        t = _table()[(ki % np.uint64(_N)).astype(np.intp)] + (ki << np.uint64(47))
        s = t.view(np.float64)
        zz = _C0 * r + _C1
        r2 = r * r
        y = _C2 * r + 1.0
        y = zz * r2 + y
        y = (y * s).astype(np.float32)
        y = np.where(x > np.float32(float.fromhex("0x1.62e42ep6")), np.float32(np.inf), y)
        y = np.where(x < np.float32(float.fromhex("-0x1.9fe368p6")), np.float32(0), y)
        return np.where(np.isnan(x), x, y).astype(np.float32)
