"""The docs site: README stays short, every page is in the nav, the generated reference covers every command, and
``mkdocs build --strict`` passes (slow)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_LIMIT = 10 * 1024  # bytes: the front door, with everything longer in docs/


def _hook():
    spec = importlib.util.spec_from_file_location("docs_reference_hook", ROOT / "docs" / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    pytest.importorskip("mkdocs")
    spec.loader.exec_module(module)
    return module


def test_readme_is_at_most_10_kb():
    size = len((ROOT / "README.md").read_bytes())
    assert size <= README_LIMIT, f"README.md is {size:,} bytes; move detail to docs/ (limit {README_LIMIT:,})"


def test_readme_links_to_docs_that_exist():
    text = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?:docs|notebooks)/[^)#]+)", text)
    assert len(links) >= 10
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_every_page_is_in_the_nav():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = sorted(
        p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts
    )
    assert [page for page in pages if f": {page}" not in nav] == [], "pages the site's nav does not reach"
    named = re.findall(r":\s+([\w./-]+\.(?:md|ipynb))\s*$", nav, flags=re.M)
    generated = {"reference/cli/index.md", "reference/python/index.md", "reference/environment.md"}
    assert [
        p for p in named if p not in generated and not (ROOT / "docs" / p).is_file() and not (ROOT / p).is_file()
    ] == []


def test_the_cli_reference_has_a_page_per_command_and_every_option():
    from fastspe.cli import build_parser

    pages = _hook().cli_pages()
    parser = build_parser()
    run = parser.parse_args(["run", "--bank", "b", "--model", "baseline:greedy", "--out", "o"])
    assert run.func
    assert {
        "reference/cli/run.md",
        "reference/cli/bank-build.md",
        "reference/cli/history-compare.md",
        "reference/cli/solve.md",
    } <= set(pages)
    commands = [line for line in pages["reference/cli/index.md"].splitlines() if line.startswith("| [`fastspe ")]
    assert len(commands) == len(pages) - 1
    for flag in ("--max-tokens", "--base-url", "--batch", "--protocol", "--sample", "--dry-run"):
        assert f"`{flag}" in pages["reference/cli/run.md"], flag


def test_the_environment_page_lists_fastspe_config():
    from fastspe import config

    page = _hook().environment_page()
    for entry in config.VARIABLES + config.OTHER_VARIABLES:
        assert f"| `{entry.name}` |" in page


def test_the_formats_page_gets_its_tables_from_the_schemas():
    from fastspe.boundary.verdict_schema import METADATA_TYPES, SCHEMA_VERSION, VERDICT_TYPES

    hook = _hook()
    page = (ROOT / "docs" / hook.FORMATS).read_text()
    assert all(marker in page for marker in hook.GENERATED_TABLES)
    columns = hook.verdict_columns_table()
    assert f"Schema version **{SCHEMA_VERSION}**" in columns
    assert all(f"| `{name}` |" in columns for name in [*VERDICT_TYPES, *METADATA_TYPES])
    assert "| `sliding` | `board_id`" in hook.bank_columns_table()


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    pytest.importorskip("mkdocs_jupyter")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    site = tmp_path / "site"
    assert (site / "reference" / "cli" / "bank-build" / "index.html").is_file()
    assert (site / "reference" / "python" / "stats" / "index.html").is_file()
    notebook = (site / "notebooks" / "pipeline" / "index.html").read_text()
    assert notebook.count("data:image/png") >= 2  # the figures' committed outputs render


def test_every_public_face_has_a_reference_page():
    from tests.test_house import FACES as HOUSE_FACES

    top = {face for face in HOUSE_FACES if face.count(".") <= 1}  # fastspe and its subpackages' faces
    assert top - set(_hook().FACES) == set(), "faces the Python reference does not render"
