"""Compile fastspe's kernels into the cache ahead of use (``fastspe cache warm``), for CI images and fresh machines.

A kernel compiles for the types it is called with, so the sure way to compile what a command will use, and only
that, is to run the command's own pipeline on a small input: each domain's demo (its bank, baseline answers, the
score of the answers' JSONL file, a report with few bootstrap draws) in a temporary folder, on a small bank of the
same shapes (``Domain.warm_bank``), and the JSONL scanner
that ``score`` uses on large files. What is already cached is loaded, not compiled again.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

from .domains.registry import domain_names, domain_named
from .errors import UserError

WARM_DRAWS = 20  # the bootstrap kernels compile the same for 20 draws as for 5,000


def _scanner(responses: Path) -> None:
    import numpy as np

    from .boundary.jsonl_records import KnownKeys, scanned_table
    from .boundary.response_stream import _FIELDS

    data = np.frombuffer(responses.read_bytes(), dtype=np.uint8)
    scanned_table(data, _FIELDS, KnownKeys(_FIELDS.names))


def _parser() -> None:
    """The compiled answer parser: a demo's answers are few enough for the reference parser alone, a model's may not
    be (a column over ``REFERENCE_BYTES``)."""
    import pyarrow as pa

    from .scoring.parse_column import REFERENCE_BYTES, parse_column

    answers = ["Think.\nMOVES: U, D, L", "moves: up, left", "MOVES: U\nMOVES: X (a remark)", "no plan"]
    parse_column(pa.array(answers * (REFERENCE_BYTES // 16)))


def warm_kernels(domains: list[str] | None = None, step: Callable[[str], None] | None = None) -> list[str]:
    """Compile (or load) the kernels of the demo pipeline of each of ``domains`` (default: every installed
    domain with baseline planners) and of the JSONL scanner; ``step(what)`` is told as each part starts.
    Returns the domains warmed."""
    from .demo import run_demo

    say = step or (lambda _: None)
    names = list(domains) if domains else [n for n in domain_names() if domain_named(n).planners]
    for name in names:
        if not domain_named(name).planners:
            raise UserError(f"the {name} domain has no baseline planners, so there is no pipeline to warm it with")
    with tempfile.TemporaryDirectory(prefix="fastspe-warm-") as tmp:
        for name in names:
            say(f"{name}: bank, baseline answers, score and report")
            result = run_demo(Path(tmp) / name, draws=WARM_DRAWS, trials=1, domain=name,
                              build_bank=domain_named(name).warm_bank)
            say(f"{name}: the JSONL scanner of large responses files")
            _scanner(result.responses_path)
        say("the answer parser of large responses files")
        _parser()
    return names


__all__ = ["warm_kernels"]
