"""Check, on every input they can get, that the float32 Box-Muller kernels need no FMA care.

Usage: ``PYTHONPATH=src python tools/check_fill32.py`` (about 20 s; no PyTorch needed).

``distributions.log256`` and ``sincos256`` port PyTorch's AVX2 kernels, whose ``a*b + c`` GCC
fused into FMAs.  They compute each fused step as ``float32(float64(a*b) + c)`` without the
checks of ``fma32`` (``kernel_fma32``).  That equals the FMA unless the float64 sum was
inexact *and* landed exactly halfway between two float32, or the result is a float32
subnormal.  The kernels only ever see 2**24 values each: log256 gets ``1 - k * 2**-24`` and
sincos256 gets ``float32(2 pi) * k * 2**-24`` for k < 2**24.  This runs both on all of them
with every fused step checked, and exits 1 if any step needed the care it does not take.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from gradcli.engine import distributions as dist

f32, f64, u64 = np.float32, np.float64, np.uint64


def main() -> int:
    found = {"steps": 0, "inexact": 0, "double_rounded": 0, "subnormal": 0}

    def checked(a, b, c):
        p = np.multiply(a, b, dtype=f64)  # exact: float32 * float32 fits in float64
        cc = np.broadcast_to(np.asarray(c, dtype=f64), p.shape)
        s = p + cc
        bb = s - p
        err = (p - (s - bb)) + (cc - bb)  # s + err == p + c exactly
        mid = (s.view(u64) & u64(0x1FFFFFFF)) == u64(0x10000000)
        out = s.astype(f32)
        found["steps"] += 1
        found["inexact"] += int(np.count_nonzero(err))
        found["double_rounded"] += int(np.count_nonzero((err != 0) & mid))
        found["subnormal"] += int(np.count_nonzero((np.abs(out) < f32(2.0 ** -126)) & (s != 0)))
        return out

    dist.kernel_fma32 = checked
    start = time.perf_counter()
    chunk = 1 << 20
    for first in range(0, 1 << 24, chunk):
        u = dist.unit_float32(np.arange(first, first + chunk, dtype=u64))
        dist.log256(f32(1) - u)
        dist.sincos256(dist.TWO_PI32 * u)
    took = time.perf_counter() - start
    print(f"2**24 inputs each through log256 and sincos256 in {took:.1f} s: "
          f"{found['steps']} fused steps on chunks, {found['inexact']:,} inexact float64 sums, "
          f"{found['double_rounded']} double roundings, {found['subnormal']} subnormals")
    return 1 if found["double_rounded"] or found["subnormal"] else 0


if __name__ == "__main__":
    sys.exit(main())
