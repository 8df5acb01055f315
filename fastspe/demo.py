"""``fastspe demo``: the whole pipeline on a domain's demo bank (the paper's, by default), answered by its baselines.

Builds the domain's demo bank (the paper's 400 boards for the default domain), answers it with every baseline
planner of the domain (3 trials each), writes the answers to JSONL and scores *that file* as it would a model's,
then writes the full report. No network, no keys: a newcomer sees every stage and file of fastspe work in one
command.

``warm_kernels`` (``fastspe cache warm``) compiles fastspe's kernels ahead of use, for CI images and fresh machines.
A kernel compiles for the types it is called with, so the sure way to compile what a command will use is to run the
pipeline itself on a small input: each domain's demo on a small bank of the same shapes (``Domain.warm_bank``) with
few bootstrap draws, in a scratch folder, and the JSONL scanner and answer parser that ``score`` uses on large files. What is already cached is loaded, not compiled again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import pandas as pd

if TYPE_CHECKING:
    import pyarrow as pa

from ._text import count
from .boundary.banks import as_bank, write_bank
from .domains.registry import DEFAULT_DOMAIN, domain_named, domain_names
from .errors import UserError
from .boundary.verdicts import check_verdicts
from .boundary.verdict_files import write_verdicts
from .boundary.files import scratch_folder, write_table
from .stats.metrics import compute_metrics
from .extras import check_installed
from .report.write import Stage as ReportProgress, write_report
from .scoring.score import read_responses, score_responses

DEFAULT_OUT = "fastspe-demo"
DEMO_DRAWS = 5000  # the paper's bootstrap draw count
DEMO_SEED = 0
REPORT_SEED = 20261012  # the paper's bootstrap seed
HEADLINE_COHORT = "primary"
HEADLINE_COLUMNS = ["condition", "R", "Q", "E", "G", "SPE"]
WARM_DRAWS = 20  # the bootstrap kernels compile the same for 20 draws as for 5,000

Stage = Callable[[str], None]


@dataclass
class DemoResult:
    """Where the demo wrote its files, its headline table and how long each stage took (s)."""

    out_dir: Path
    bank_path: Path
    responses_path: Path
    verdicts_path: Path
    report_path: Path
    headline: pd.DataFrame
    timings: dict[str, float] = field(default_factory=dict)


def headline_table(verdicts: pd.DataFrame, cohort: str = HEADLINE_COHORT) -> pd.DataFrame:
    """Table 1 of the paper: condition, R, Q, E, G, SPE over ``cohort``, best SPE first.

    Falls back to all outputs when no verdict belongs to ``cohort`` (a custom bank).
    """
    part = verdicts[verdicts["cohort"] == cohort]
    metrics = compute_metrics(part if len(part) else verdicts, by=("condition",))
    table = metrics[HEADLINE_COLUMNS].sort_values(["SPE", "condition"], ascending=[False, True], kind="stable")
    return table.reset_index(drop=True)


def run_demo(
    out_dir: str | Path = DEFAULT_OUT,
    draws: int = DEMO_DRAWS,
    trials: int = 3,
    seed: int = DEMO_SEED,
    stage: Stage | None = None,
    progress: ReportProgress | None = None,
    domain: str = DEFAULT_DOMAIN,
    build_bank: Callable[[], pa.Table] | None = None,
) -> DemoResult:
    """Build, answer, score and report a domain's demo bank with every baseline planner of the domain.

    Parameters
    ----------
    out_dir : folder for ``bank.parquet``, ``responses.jsonl``, ``verdicts.parquet`` and the report
        (``report.md``, ``report.html``, ``metrics.csv``, ``tables/``, ``figures/``); created if needed
    draws : bootstrap draws for the report's intervals (the paper's 5,000 by default)
    trials : answers per board and planner
    seed : the planners' seed
    stage : called with a short description as each stage starts (for progress display)
    progress : the report's ``progress(stage, done, total)`` (``report.write_report``)
    domain : an installed domain's name (``fastspe.domains``; the default: the sliding puzzle, the paper bank and its
        five planners): its ``Domain.demo_bank`` answered by its ``planners``
    build_bank : builds the bank instead of ``Domain.demo_bank`` (``fastspe cache warm`` gives ``Domain.warm_bank``)

    Returns
    -------
    DemoResult
    """
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise UserError(f"draws must be a positive integer, got {draws!r}")
    check_installed("matplotlib", "the demo's report figures")  # before any work, not after it
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} exists and is not a folder; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    say = stage or (lambda _: None)

    def timed(name: str, what: str, fn):
        say(what)
        t0 = time.perf_counter()
        value = fn()
        timings[name] = time.perf_counter() - t0
        return value

    bank_path, responses_path, verdicts_path = out / "bank.parquet", out / "responses.jsonl", out / "verdicts.parquet"
    chosen = domain_named(domain)
    if not chosen.planners:
        raise UserError(f"the {chosen.name} domain has no baseline planners, so it has no demo")
    bank = timed(
        "bank",
        f"building {chosen.demo_text or f'the {chosen.name} demo bank'}",
        lambda: as_bank((build_bank or chosen.demo_bank)(), chosen, "the demo bank"),
    )
    planners = chosen.planners
    write_bank(bank, bank_path)
    answers = timed(
        "answer",
        f"answering it with {count(len(planners), 'baseline planner')} x {count(trials, 'trial')}",
        lambda: pd.concat(
            [chosen.baseline_responses(bank.frame, p, trials=trials, seed=seed) for p in planners], ignore_index=True
        ),
    )
    write_table(answers, responses_path)
    # score the file, not the in-memory frame: the demo goes through the same path as a model's answers
    verdicts = timed(
        "score",
        "scoring the answers",
        lambda: check_verdicts(score_responses(bank, read_responses(responses_path, bank)), bank=bank),
    )
    write_verdicts(verdicts, verdicts_path)  # checked once, for the file and the report
    report_path = timed(
        "report",
        f"writing the report ({draws:,} bootstrap draws)",
        lambda: write_report(bank, verdicts, out, draws=draws, seed=REPORT_SEED, progress=progress),
    )
    return DemoResult(
        out, bank_path, responses_path, verdicts_path, Path(report_path), headline_table(verdicts.frame), timings
    )


def warm_kernels(domains: list[str] | None = None, step: Callable[[str], None] | None = None) -> list[str]:
    """Compile (or load) the kernels of the demo pipeline of each of ``domains`` (default: every installed
    domain with baseline planners) and of the JSONL scanner; ``step(what)`` is told as each part starts.
    Returns the domains warmed."""
    from .boundary.response_stream import warm_scanner
    from .scoring.parse_column import warm_parser

    say = step or (lambda _: None)
    names = list(domains) if domains else [n for n in domain_names() if domain_named(n).planners]
    for name in names:
        if not domain_named(name).planners:
            raise UserError(f"the {name} domain has no baseline planners, so there is no pipeline to warm it with")
    with scratch_folder(prefix="fastspe-warm-") as tmp:
        for name in names:
            say(f"{name}: bank, baseline answers, score and report")
            result = run_demo(
                tmp / name, draws=WARM_DRAWS, trials=1, domain=name, build_bank=domain_named(name).warm_bank
            )
            say(f"{name}: the JSONL scanner of large responses files")
            warm_scanner(result.responses_path)
        say("the answer parser of large responses files")
        warm_parser()
    return names
