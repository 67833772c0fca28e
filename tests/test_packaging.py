"""The built wheel works on its own: grammar inside, console script, outside the source tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                           str(out), str(ROOT)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{proc.stderr[-3000:]}")
    (path,) = out.glob("gradcli-*.whl")
    return path


def test_the_wheel_carries_the_grammar_and_the_console_script(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry = next(n for n in names if n.endswith("entry_points.txt"))
        assert "gradcli = gradcli.__main__:main" in z.read(entry).decode()
    assert "gradcli/grammars/grad.lark" in names
    assert {"gradcli/render/assets/viewer.css", "gradcli/render/assets/viewer.js"} <= set(names)
    assert not any(n.startswith(("tests/", "bench/", "tools/")) for n in names)


def test_the_installed_wheel_runs_outside_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    install = subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)],
                             capture_output=True, text=True, check=False, env=clean)
    if install.returncode != 0:
        pytest.fail(f"installing the wheel failed:\n{install.stderr[-3000:]}")
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(ROOT / "samples" / "chain_rule.grad", work / "chain_rule.grad")
    proc = subprocess.run([str(env_dir / "bin" / "gradcli"), "grad", "chain_rule.grad", "--wrt",
                           "w1"], cwd=work, capture_output=True, text=True, check=False,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "dL/dw1 = -8.0\n"
    if shutil.which("dot", path="/usr/bin:/bin"):  # the viewer's assets come from the wheel
        proc = subprocess.run([str(env_dir / "bin" / "gradcli"), "html", "chain_rule.grad",
                               "-o", "g.html"], cwd=work, capture_output=True, text=True,
                              check=False, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
        assert proc.returncode == 0, proc.stderr
        page = (work / "g.html").read_text()
        assert 'id="gradcli-data"' in page and "function showDetails" in page
