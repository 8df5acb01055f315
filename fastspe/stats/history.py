"""A run history: scored runs kept under a label, for trends and comparisons across checkpoints.

The store is a plain folder (default ``./fastspe-history``, or ``$FASTSPE_HISTORY``), chosen over an
embedded database because it needs nothing beyond Parquet, diffs and copies like any folder, and a CI
cache can carry it between jobs (its files are read and written by ``fastspe.boundary.history_store``):

- ``index.jsonl``: one line per run, appended and fsynced, never rewritten: number, label, bank hash,
  conditions, metadata, the bootstrap settings and the content digests of the two files below;
- ``runs/NNNN.parquet``: the run's verdicts (checksummed, as ``fastspe score`` writes them), so
  ``history compare`` can pair boards later;
- ``metrics/NNNN.parquet``: its pooled estimates and intervals per cohort and condition (checksummed);
- ``index.lock``: the inter-process lock (``filelock``) that lets one writer at a time in.

What the store guarantees (a history that cannot lie):

- one writer at a time: ``add`` checks the label and the bank, numbers the run and appends its index
  line while holding the lock, so concurrent adds get distinct consecutive numbers;
- every read checks every file it uses: the Parquet page CRCs and content digest (``boundary.parquet``),
  and that digest against the one the index line recorded, so a file edited with pandas, a flipped bit
  or a run file copied over another is refused naming the file, never shown;
- the index is checked whole on every read: each line a JSON object of exactly the known keys with
  values of the right type, runs numbered 1, 2, 3... in order, one run per label, one bank per store;
  a damaged line is refused naming the file and the line.

Every run of a store must come from the same bank (the hash of its boards): trends across banks
would compare different puzzles.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Mapping

import pandas as pd
import pyarrow as pa

from .. import errors
from ..boundary.errors import InputError
from ..boundary.history_store import PARTS, Run, StoreFiles, footer_digest, is_text_map, is_whole, label_problem
from ..boundary.parquet import read_parquet, table_digest, write_parquet
from ..boundary.verdicts import Verdicts, as_verdicts
from ..boundary.verdict_files import read_verdicts, write_verdicts
from ..domains.registry import domain_of
from ..kernels import MAX_SEED
from .intervals import DEFAULT_SEED, bootstrap_intervals
from .metrics import board_sums

DEFAULT_STORE = "fastspe-history"
DEFAULT_DRAWS = 2000
METRICS_KIND = "history metrics"
METRIC_COLUMNS = ["cohort", "condition", "metric", "estimate", "lo", "hi", "draws_used", "N"]


class ParameterError(InputError, errors.ParameterError):
    """A bad value of one parameter of the API; ``for_option`` says the same of a command-line option."""

    def __init__(self, parameter: str, value, what: str):
        self.parameter, self.value, self.what = parameter, value, what
        super().__init__(f"{{{parameter}}} {{value!r}}: {{what}}", parameter, value=value, what=what)

    def for_option(self, name: str) -> str:
        return f"{name} {self.value!r}: {self.what}"


def store_path(store=None) -> Path:
    """The store folder: ``store``, else ``$FASTSPE_HISTORY``, else ``./fastspe-history``."""
    return Path(store or os.environ.get("FASTSPE_HISTORY") or DEFAULT_STORE)


def bank_hash(bank_table) -> str:
    """A digest of the bank's rows (ids, start states as the domain's ``state_columns`` hold them, depths), whatever
    its file format. BLAKE2b, as since the store began: a run stored before format 2 must still match its bank."""
    wanted = ["board_id", *domain_of(bank_table).state_columns, "depth"]
    cols = [c for c in wanted if c in bank_table.column_names]
    return table_digest(bank_table.select(cols).sort_by("board_id"), "blake2b")[:32]


# ---- the store ----------------------------------------------------------------------------------------


class History:
    """A history store (see the module docstring)."""

    def __init__(self, store=None):
        self.files = StoreFiles(store_path(store))
        self.root, self.index = self.files.root, self.files.index

    def runs(self) -> list[Run]:
        """The index, checked whole (a damaged line is an ``InputError`` naming the file and line)."""
        with self.files.locked(writing=False):
            return self.files.read_index()

    def run(self, label: str) -> Run:
        runs = self.runs()
        for run in runs:
            if run.label == label:
                return run
        known = ", ".join(repr(r.label) for r in runs) or "none"
        raise InputError(f"{self.root}: no run labelled {label!r} (runs: {known})")

    def add(
        self,
        bank_table,
        verdicts: Verdicts | pd.DataFrame,
        label: str,
        meta: Mapping[str, str] | None = None,
        draws: int = DEFAULT_DRAWS,
        seed: int = DEFAULT_SEED,
    ) -> Run:
        """Keep ``verdicts`` under ``label``; refuses a label in use and a bank other than the store's.

        The bootstrap runs before the lock is taken; the checks, the number, the two files and the index
        line are done holding it, so concurrent adds never share a number or a label.
        """
        problem = label_problem(label)
        if problem:
            raise ParameterError("label", label, problem)
        meta = dict(meta or {})
        if not is_text_map(meta):
            raise ParameterError("meta", meta, "keys and values must be text (UTF-8)")
        if not is_whole(draws, 1, 10**9):
            raise ParameterError("draws", draws, "must be a whole number >= 1")
        if not is_whole(seed, 0, MAX_SEED):
            raise ParameterError("seed", seed, f"must be a whole number in 0..{MAX_SEED}")
        digest = bank_hash(bank_table)
        self._refuse(self.runs(), label, digest)  # before the bootstrap: fail fast
        verdicts = as_verdicts(verdicts)  # checked once, before anything is written
        sums = board_sums(verdicts)
        metrics = bootstrap_intervals(sums, draws=draws, seed=seed, groupings={"pooled": ("cohort",)})
        metrics = pa.Table.from_pandas(metrics[METRIC_COLUMNS], preserve_index=False)
        conditions = sorted(map(str, verdicts.frame["condition"].unique()))
        with self.files.locked(writing=True):
            runs = self.files.read_index()
            self._refuse(runs, label, digest)  # again: another writer may have been first
            number = len(runs) + 1
            stem = f"{number:04d}"
            write_verdicts(verdicts, self.files.file("verdicts", stem))
            write_parquet(metrics, self.files.file("metrics", stem), METRICS_KIND)
            digests = {part: footer_digest(self.files.file(part, stem)) for part in PARTS}
            run = Run(number, label, digest, conditions, meta, draws, seed, digests)
            self.files.append(run)
        return run

    def _refuse(self, runs: list[Run], label: str, digest: str) -> None:
        if any(r.label == label for r in runs):
            number = next(r.number for r in runs if r.label == label)
            raise ParameterError(
                "label", label, f"is already in the history (run {number} of {self.index}); labels name one run each"
            )
        if runs and runs[0].bank_hash != digest:
            raise ParameterError(
                "store",
                str(self.root),
                f"this bank (hash {digest[:12]}) is not the bank of the "
                f"stored runs (hash {runs[0].bank_hash[:12]}); keep "
                "another bank's runs in another store",
            )

    def verdicts(self, label: str) -> Verdicts:
        run = self.run(label)
        return read_verdicts(self.files.checked(run, "verdicts"))

    def metrics(self, run: Run) -> pd.DataFrame:
        return read_parquet(self.files.checked(run, "metrics"), METRICS_KIND).to_pandas()

    def trend(self, metric: str = "SPE") -> pd.DataFrame:
        """Per run (in the order added), cohort and condition: the pooled estimate of ``metric`` and its interval."""
        runs = self.runs()
        if not runs:
            raise InputError(f"{self.root}: the history is empty; add runs with `fastspe history add`")
        parts = []
        for run in runs:
            m = self.metrics(run)
            if metric not in set(m["metric"]):
                raise ParameterError(
                    "metric", metric, f"is not in the history; choose among {', '.join(sorted(m['metric'].unique()))}"
                )
            parts.append(m[m["metric"] == metric].assign(run=run.number, label=run.label))
        out = pd.concat(parts, ignore_index=True)
        return out[["run", "label", "cohort", "condition", "metric", "estimate", "lo", "hi", "N"]]


def paired_runs(history: History, label_a: str, label_b: str) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The verdicts of two runs with conditions named ``LABEL/condition``, and the (baseline, candidate)
    pairs to compare: each condition present in both runs, or the two runs' only conditions.

    A run compared with itself is refused (it shows "no clear change" by construction); two runs that
    hold the very same verdicts are compared with a warning saying so.
    """
    if label_a == label_b:
        raise ParameterError(
            "label_b",
            label_b,
            "is the baseline run too: a run compared with itself shows no "
            "change by construction; name two different runs",
        )
    run_a, run_b = history.run(label_a), history.run(label_b)
    if run_a.digests["verdicts"] == run_b.digests["verdicts"]:
        warnings.warn(
            f"runs {run_a.number} ({label_a!r}) and {run_b.number} ({label_b!r}) hold identical "
            "verdicts (the same content digest): they were added from the same file",
            stacklevel=2,
        )
    a, b = history.verdicts(label_a).frame, history.verdicts(label_b).frame
    shared = sorted(set(a["condition"]) & set(b["condition"]))
    if shared:
        pairs = [(c, c) for c in shared]
    elif a["condition"].nunique() == 1 and b["condition"].nunique() == 1:
        pairs = [(a["condition"].iat[0], b["condition"].iat[0])]
    else:
        raise InputError(f"runs {label_a!r} and {label_b!r} share no condition; nothing to pair")
    named = pd.concat(
        [
            a.assign(condition=f"{label_a}/" + a["condition"].astype(str)),
            b.assign(condition=f"{label_b}/" + b["condition"].astype(str)),
        ],
        ignore_index=True,
    )
    return named, [(f"{label_a}/{x}", f"{label_b}/{y}") for x, y in pairs]
