"""The independent verifiers share no code with what they check: their imports, read from the source."""

from __future__ import annotations

import ast
from pathlib import Path

import fastspe_hanoi

VERIFY = Path(fastspe_hanoi.__file__).parent / "verify"
ALLOWED = {
    "fastspe.domains.contract",
    "fastspe.errors",
    "collections",
    "dataclasses",
    "functools",
    "typing",
    "__future__",
}


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


def test_the_verifiers_import_only_the_contract_and_each_other():
    for path in VERIFY.glob("*.py"):
        outside = {name for name in imports_of(path) if name not in ALLOWED and name not in (".replay", ".bank")}
        assert not outside, f"{path.name} imports {sorted(outside)}"
