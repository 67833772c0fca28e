"""The machine whose PyTorch these kernels reproduce, and where its kernels' shapes come from.

PyTorch's CPU results depend on the kernels its dispatcher picks for the CPU (vector width,
SLEEF variant) and on its thread count (how a long sum is split).  gradcli emulates the machine
its fixtures were recorded on (tests/fixtures/torch/numerics.json records the same facts):
torch 2.13.0, ``torch.backends.cpu.get_cpu_capability() == "AVX512"``, MKL, 2 threads.
"""

from __future__ import annotations

CPU_CAPABILITY = "AVX512"
# Kernels registered with ALSO_REGISTER_AVX512_DISPATCH (exp, log1p, expm1, sigmoid, softmax)
# run 512-bit vectors; plain REGISTER_DISPATCH ones (sum, sqrt, sin, cos) run their AVX2 code.
VECTOR_BYTES = 64
SUM_VECTOR_BYTES = 32
THREADS = 2  # torch.get_num_threads(): a long full reduction's chunks, MKL's threads
GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE
