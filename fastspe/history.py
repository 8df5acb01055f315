"""A run history: scored runs kept under a label, for trends and comparisons across checkpoints.

The store is a plain folder (default ``./fastspe-history``, or ``$FASTSPE_HISTORY``), chosen over an
embedded database because it needs nothing beyond Parquet, diffs and copies like any folder, and a CI
cache can carry it between jobs:

- ``index.jsonl``: one line per run, appended and fsynced, never rewritten: label, bank hash,
  conditions, metadata, the files below, the bootstrap settings;
- ``runs/NNNN.parquet``: the run's verdicts (checksummed, as ``fastspe score`` writes them), so
  ``history compare`` can pair boards later;
- ``metrics/NNNN.parquet``: its pooled estimates and intervals per cohort and condition.

Every run of a store must come from the same bank (the hash of its boards): trends across banks
would compare different puzzles.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import pandas as pd

from .boundary.errors import UserError
from .boundary.parquet import table_digest
from .boundary.verdicts import read_verdicts, write_verdicts
from .intervals import DEFAULT_SEED, bootstrap_intervals
from .io import read_table, write_table
from .metrics import board_sums

DEFAULT_STORE = "fastspe-history"
DEFAULT_DRAWS = 2000
INDEX = "index.jsonl"
_LABEL = re.compile(r"^[^\x00-\x1f\x7f]{1,100}$")
_BANK_COLUMNS = ["board_id", "rows", "cols", "blocks", "initial", "depth"]


def store_path(store=None) -> Path:
    """The store folder: ``store``, else ``$FASTSPE_HISTORY``, else ``./fastspe-history``."""
    return Path(store or os.environ.get("FASTSPE_HISTORY") or DEFAULT_STORE)


def bank_hash(bank_table) -> str:
    """A digest of the bank's boards (ids, layouts, initial boards, depths), whatever its file format."""
    cols = [c for c in _BANK_COLUMNS if c in bank_table.column_names]
    return table_digest(bank_table.select(cols).sort_by("board_id"))[:32]


@dataclass(frozen=True)
class Run:
    """One line of the index."""

    number: int
    label: str
    bank_hash: str
    conditions: list
    meta: dict
    draws: int
    seed: int

    @property
    def stem(self) -> str:
        return f"{self.number:04d}"


class History:
    """A history store (see the module docstring)."""

    def __init__(self, store=None):
        self.root = store_path(store)

    def runs(self) -> list[Run]:
        path = self.root / INDEX
        if not path.exists():
            return []
        runs = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                runs.append(Run(**json.loads(line)))
            except (json.JSONDecodeError, TypeError) as exc:
                raise UserError(f"{path}: line {n} is not a history entry ({exc}); the store is damaged") from None
        return runs

    def run(self, label: str) -> Run:
        for run in self.runs():
            if run.label == label:
                return run
        known = ", ".join(repr(r.label) for r in self.runs()) or "none"
        raise UserError(f"{self.root}: no run labelled {label!r} (runs: {known})")

    def add(self, bank_table, verdicts: pd.DataFrame, label: str, meta: Mapping[str, str] | None = None,
            draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED) -> Run:
        """Keep ``verdicts`` under ``label``; refuses a label in use and a bank other than the store's."""
        if not isinstance(label, str) or not _LABEL.match(label) or label != label.strip():
            raise UserError(f"--label {label!r}: give 1-100 printable characters without surrounding spaces")
        runs = self.runs()
        if any(r.label == label for r in runs):
            raise UserError(f"{self.root}: label {label!r} is already in the history; labels name one run each")
        digest = bank_hash(bank_table)
        if runs and runs[0].bank_hash != digest:
            raise UserError(f"{self.root}: this bank (hash {digest[:12]}) is not the bank of the stored runs "
                            f"(hash {runs[0].bank_hash[:12]}); keep another bank's runs in another --store")
        sums = board_sums(verdicts)  # refuses repeated or inconsistent verdicts before anything is written
        metrics = bootstrap_intervals(sums, draws=draws, seed=seed, groupings={"pooled": ("cohort",)})
        run = Run(len(runs) + 1, label, digest, sorted(map(str, verdicts["condition"].unique())), dict(meta or {}),
                  int(draws), int(seed))
        write_verdicts(verdicts, self.root / "runs" / f"{run.stem}.parquet")
        write_table(metrics[["cohort", "condition", "metric", "estimate", "lo", "hi", "draws_used", "N"]],
                    self.root / "metrics" / f"{run.stem}.parquet")
        self._append(run)
        return run

    def _append(self, run: Run) -> None:
        """One index line, fsynced: the index only grows, and a run counts once its line is on disk."""
        self.root.mkdir(parents=True, exist_ok=True)
        line = json.dumps(run.__dict__, ensure_ascii=False, sort_keys=True) + "\n"
        with open(self.root / INDEX, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def verdicts(self, label: str) -> pd.DataFrame:
        return read_verdicts(self.root / "runs" / f"{self.run(label).stem}.parquet")

    def trend(self, metric: str = "SPE") -> pd.DataFrame:
        """Per run (in the order added), cohort and condition: the pooled estimate of ``metric`` and its interval."""
        runs = self.runs()
        if not runs:
            raise UserError(f"{self.root}: the history is empty; add runs with `fastspe history add`")
        parts = []
        for run in runs:
            m = read_table(self.root / "metrics" / f"{run.stem}.parquet")
            m = m[m["metric"] == metric]
            if m.empty:
                raise UserError(f"metric {metric!r} is not in the history; choose among "
                                f"{', '.join(sorted(read_table(self.root / 'metrics' / f'{run.stem}.parquet')['metric'].unique()))}")
            parts.append(m.assign(run=run.number, label=run.label))
        out = pd.concat(parts, ignore_index=True)
        return out[["run", "label", "cohort", "condition", "metric", "estimate", "lo", "hi", "N"]]


def paired_runs(history: History, label_a: str, label_b: str) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The verdicts of two runs with conditions named ``LABEL/condition``, and the (baseline, candidate)
    pairs to compare: each condition present in both runs, or the two runs' only conditions."""
    a, b = history.verdicts(label_a), history.verdicts(label_b)
    shared = sorted(set(a["condition"]) & set(b["condition"]))
    if shared:
        pairs = [(c, c) for c in shared]
    elif a["condition"].nunique() == 1 and b["condition"].nunique() == 1:
        pairs = [(a["condition"].iat[0], b["condition"].iat[0])]
    else:
        raise UserError(f"runs {label_a!r} and {label_b!r} share no condition; nothing to pair")
    named = pd.concat([a.assign(condition=f"{label_a}/" + a["condition"].astype(str)),
                       b.assign(condition=f"{label_b}/" + b["condition"].astype(str))], ignore_index=True)
    return named, [(f"{label_a}/{x}", f"{label_b}/{y}") for x, y in pairs]
