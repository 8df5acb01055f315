"""fastspe.config lists every FASTSPE_* variable the package reads, and nothing it does not read."""

from __future__ import annotations

import re
from pathlib import Path

from fastspe import config

PKG = Path(__file__).resolve().parents[1] / "fastspe"
NAME = re.compile(r"\bFASTSPE_[A-Z0-9_]*[A-Z0-9]\b")


def _names_in_code() -> dict[str, Path]:
    """Every FASTSPE_* name in fastspe's source (code, strings and docstrings alike), with one file naming it."""
    found = {}
    for path in sorted(PKG.rglob("*.py")):
        if path.parent.name == "config":
            continue
        for name in NAME.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, path)
    return found


def test_every_fastspe_variable_in_the_code_is_listed():
    listed = {v.name for v in config.VARIABLES}
    missing = {name: str(path.relative_to(PKG.parent)) for name, path in _names_in_code().items() if name not in listed}
    assert not missing, f"FASTSPE_* names read in fastspe/ but not listed in fastspe/config: {missing}"


def test_every_listed_variable_is_read_somewhere():
    sources = [p.read_text(encoding="utf-8") for p in PKG.rglob("*.py") if p.parent.name != "config"]
    for entry in config.VARIABLES + config.OTHER_VARIABLES:
        assert entry.meaning and entry.default is not None
        assert any(entry.name in text for text in sources), f"{entry.name}: listed, but no code names it any more"


def test_names_are_unique_and_looked_up():
    names = [v.name for v in config.VARIABLES + config.OTHER_VARIABLES]
    assert len(names) == len(set(names))
    assert config.variable("FASTSPE_PROGRESS").default == "auto"
    try:
        config.variable("FASTSPE_NOT_A_VARIABLE")
    except KeyError as exc:
        assert "FASTSPE_NOT_A_VARIABLE" in str(exc)
    else:
        raise AssertionError("an unknown name was found")
