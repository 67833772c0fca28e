"""Re-record every fixture of PyTorch's answers on this machine: one command for a contributor on
a new CPU (needs PyTorch 2.13: ``pip install torch==2.13.0``).

Usage: ``python tools/record_all.py [--check]``.  Each recorder runs in a process of its own
under the setting the tests run under (tools/machines.py ``PINNED``; the numerics and random
recorders add their capability and thread-count variants), and writes the machine it ran on
into its fixtures.  ``--check`` writes nothing and exits 1 if a fixture would change (the
recorders that can compare), so re-recording on the machine the fixtures came from is a test of
the fixtures themselves; on another machine the changes it reports are that machine's bits.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))
import machines

# (recorder, its arguments when writing, whether it has --check)
RECORDERS = (
    ("record_torch_names.py", [], True),
    ("record_ops.py", [], True),
    ("record_autograd.py", [], True),
    ("record_reprs.py", [], False),
    ("record_random.py", [], True),
    ("record_numerics.py", [], False),
    ("record_engine_cases.py", [], False),
    ("torch_oracle.py", ["--all"], True),
    ("record_corpus.py", [], True),
    ("record_exports.py", [], True),
    ("record_forward_views.py", [], False),
    ("record_jacobians.py", [], False),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the stored fixtures, write nothing")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401 - only to say early what is missing
    except ImportError:
        print("record_all: PyTorch 2.13 is not installed (pip install torch==2.13.0)",
              file=sys.stderr)
        return 2
    why = machines.torch_cannot_run()
    if why is not None:  # PyTorch would end each recorder with SIGILL at its first such kernel
        print(f"record_all: cannot record the tests' setting here: {why}; the fixtures need a "
              "CPU with AVX-512 (tools/machines.py PINNED)", file=sys.stderr)
        return 2
    failed = 0
    for script, extra, can_check in RECORDERS:
        if args.check and not can_check:
            continue
        cmd = [sys.executable, str(TOOLS / script), *extra, *(["--check"] if args.check else [])]
        start = time.monotonic()
        proc = subprocess.run(cmd, env=machines.environment(machines.PINNED), check=False)
        print(f"record_all: {script}: exit {proc.returncode} "
              f"({time.monotonic() - start:.0f} s)", flush=True)
        failed += proc.returncode != 0
    print(f"record_all: {len(RECORDERS)} recorders, {failed} failed or stale")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
