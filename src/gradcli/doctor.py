"""``gradcli doctor``: the machine whose PyTorch gradcli reproduces here, for a bug report.

PyTorch's last bits depend on the CPU capability, the thread count and MKL's code path
(engine/machine.py, engine/exact/fingerprint.py); this lists what gradcli decided for each and
why, so two people comparing numbers can tell whether their machines agree.
"""

from __future__ import annotations

from typing import Any

from . import __version__

TORCH_VERSION = "2.13.0+cpu"  # the PyTorch whose results gradcli reproduces


def facts() -> dict[str, Any]:
    """The report as data (``--format json``)."""
    import os

    from .engine.exact import fingerprint, native

    kernels = "compiled" if native.lib is not None else \
        "numpy (GRADCLI_PURE is set)" if os.environ.get("GRADCLI_PURE") else \
        "numpy (the C extension was not built: no C compiler at install time)"
    return {"gradcli": "1", "version": __version__, "torch": TORCH_VERSION,
            **fingerprint.describe(), "kernels": kernels}


def rows(f: dict[str, Any]) -> list[tuple[str, str]]:
    """The report as (label, text) lines."""
    cpu = f["cpu"]
    env = f["environment"]
    if f["capability_source"] == "cpu":
        setting = env.get("ATEN_CPU_CAPABILITY")
        why = "from the CPU's flags" + (f" ({f['capability_warning']})" if setting is not None
                                         else "; ATEN_CPU_CAPABILITY not set")
    else:
        why = f"ATEN_CPU_CAPABILITY={env['ATEN_CPU_CAPABILITY']}"
    counts = [f"{k}={env[k]}" for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC")
              if k in env]
    out = [
        ("reproduces", f"PyTorch {f['torch']} (CPU build)"),
        ("cpu", (f"{cpu['model']} ({cpu['vendor'] or 'unknown vendor'}), "
                 f"{cpu['processors']} processor{'s' if cpu['processors'] != 1 else ''}")),
        ("flags", " ".join(cpu["flags"]) or "none PyTorch's dispatch reads"),
        ("capability", f"{f['capability']}, {why}"),
        ("threads", f"{f['threads']}, " + (", ".join(counts) if counts else
                                             "one per physical core (no thread variable set)")),
    ]
    mkl = f["mkl"]
    if mkl is None:
        out.append(("mkl", ("not found: matrix products and vector math fall back to NumPy "
                            "and correctly rounded values (pip install mkl==2024.2.0)")))
    else:
        out += [("mkl", mkl["version"]),
                ("mkl path", (f"{mkl['processor']}; reproducibility branch {mkl['branch']}; "
                              f"probe {mkl['probe']}")),
                ("mkl library", mkl["path"])]
    out.append(("kernels", "compiled (C loops), the same bits as the NumPy ones"
                if f["kernels"] == "compiled" else f["kernels"] + ": the same bits, slower"))
    out.append(("python", (f"{f['python']}, NumPy {f['numpy']}, {f['platform']}, "
                           f"{f['libc'] or 'libc unknown'}")))
    return out


def plain(f: dict[str, Any]) -> str:
    """The report as aligned text."""
    lines = rows(f)
    width = max(len(label) for label, _ in lines)
    head = f"gradcli {f['version']}\n"
    return head + "".join(f"{label.ljust(width)}  {text}\n" for label, text in lines)

