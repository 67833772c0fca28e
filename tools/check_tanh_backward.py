"""Check, on every float32 y with |y| <= 1, that tanh_backward's ``1 - y * y`` needs no FMA care.

Usage: ``PYTHONPATH=src python tools/check_tanh_backward.py`` (about 30 s; no PyTorch needed).

``unary.tanh_backward`` rounds the float64 ``-y * y + 1`` (the product exact) straight to
float32 wherever every sum is at least 0 (|y| <= 1, NaN excluded): the FMA's result unless a
sum were inexact *and* exactly halfway between two float32 (1 - y * y is never a float32
subnormal).  For 1/8 <= |y| <= 1 the sum is exact (y * y a multiple of 2**-52 up to 1); below
1/8 this runs every float32 (subnormals and zero included; the sign does not matter) and exits
1 if any sum lands on a float32 midpoint at all, exact or not.
"""

from __future__ import annotations

import sys
import time

import numpy as np

F32, F64, U64 = np.float32, np.float64, np.uint64


def main() -> int:
    start = time.time()
    low, mid = U64((1 << 29) - 1), U64(1 << 28)
    below = int(np.array(0.125, F32).view(np.uint32))
    midpoints = inexact = 0
    chunk = 1 << 24
    for first in range(0, below, chunk):
        y = np.arange(first, min(first + chunk, below), dtype=np.uint32).view(F32)
        p = np.multiply(-y, y, dtype=F64)
        s = p + 1.0
        on = (s.view(U64) & low) == mid
        midpoints += int(np.count_nonzero(on))
        inexact += int(np.count_nonzero(s[on] - 1.0 != p[on]))  # Sterbenz: s - 1 exact
    # and 1/8 <= |y| <= 1: every sum exact
    y = np.arange(below, int(np.array(1.0, F32).view(np.uint32)) + 1, dtype=np.uint32).view(F32)
    p = np.multiply(-y, y, dtype=F64)
    inexact_above = int(np.count_nonzero((p + 1.0) - 1.0 != p))
    print(f"{below} float32 below 1/8: {midpoints} sums on a float32 midpoint ({inexact} "
          f"inexact); {y.size} from 1/8 to 1: {inexact_above} inexact sums "
          f"({time.time() - start:.0f} s)")
    return 1 if midpoints or inexact_above else 0


if __name__ == "__main__":
    sys.exit(main())
