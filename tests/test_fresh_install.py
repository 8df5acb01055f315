"""README's two commands, in the order given, in a fresh virtual environment (slow: it installs).

The tests import fastspe from the checkout, so they cannot see an install that is broken: a
namespace-package shadow left in site-packages, files missing from the wheel, an extra that does
not hold what the demo needs. This test installs the way a newcomer does and then calls the
``fastspe`` command from another folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def readme_commands() -> list[str]:
    """The commands of README's first code block (comments stripped), in order."""
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.split("#")[0].strip()]


def checkout_copy(dest: Path) -> Path:
    """The checkout's files as git sees them (tracked and untracked, not ignored): a fresh clone's content."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, files):
        src = ROOT / os.fsdecode(name)
        if src.is_file():
            (dest / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / os.fsdecode(name))
    return dest


def test_readme_commands_in_order_then_fastspe_from_elsewhere(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    first, second = readme_commands()[:2]
    assert first.endswith("&& fastspe demo")
    assert second == 'pip install -e ".[test]" -e tests/plugins/fastspe-hanoi && python -m pytest'
    src = checkout_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "NUMBA_CACHE_DIR"))}
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        FASTSPE_PROGRESS="off",
    )

    def sh(command: str, cwd: Path) -> subprocess.CompletedProcess:
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
        assert done.returncode == 0, f"{command!r} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done

    demo = sh(first, src)
    assert "Primary cohort" in demo.stdout and (src / "fastspe-demo" / "report.md").is_file()
    site = Path(sh("python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'", src).stdout.strip())
    assert (site / "fastspe" / "py.typed").is_file()
    assert not list(site.rglob("*.nbi")), "Numba cache files were written into site-packages"
    assert list((tmp_path / "cache" / "fastspe" / "numba").rglob("*.nbi")), "no Numba cache in the user cache folder"
    # the lean install has no API SDKs, and a run against one says which extra to install
    missing = subprocess.run(
        [
            "fastspe",
            "run",
            "--bank",
            str(src / "fastspe-demo" / "bank.parquet"),
            "--model",
            "openai:gpt-x",
            "--base-url",
            "http://127.0.0.1:9",
            "--out",
            str(tmp_path / "r.jsonl"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "pip install 'fastspe[api]'" in missing.stderr, missing.stderr
    assert "Traceback" not in missing.stderr

    install, _ = second.split(" && ")  # the second half is this very test suite
    sh(install, src)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version = sh("fastspe --version", elsewhere).stdout.strip()
    assert re.fullmatch(r"fastspe \d+\.\d+\.\d+\S*", version), version
    where = sh("python -c 'import fastspe; print(fastspe.__file__)'", elsewhere).stdout.strip()
    assert Path(where).resolve() == (src / "fastspe" / "__init__.py").resolve()  # the editable install, not a shadow
    sh("python -c 'import openai, anthropic, matplotlib, pytest, hypothesis'", elsewhere)
    domains = sh("fastspe domains", elsewhere).stdout  # the test domain plugin, installed beside fastspe
    assert "hanoi" in domains and "fastspe-hanoi" in domains, domains
