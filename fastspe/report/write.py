"""The report directory: ``metrics.csv`` (long form), ``tables/``, ``figures/``, ``report.md`` and
``report.html`` (and ``examples/``, replay pages it links), from a bank and its verdicts.

One source of numbers: the per-board sums go through the stratified whole-board bootstrap once
(``intervals.bootstrap_intervals`` with ``REPORT_GROUPINGS``), giving the long metrics frame that
``metrics.csv`` holds; every table and figure is a view of that frame. Everything written is a
pure function of the inputs, ``draws`` and ``seed`` (no timestamps), so a report can be regenerated
byte for byte.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from ..errors import UserError, expect, expect_path
from ..boundary.banks import Bank
from ..boundary.verdicts import Verdicts, as_verdicts, verdicts_domain
from ..domains.contract import STRATUM
from ..executor import Executor
from ..extras import check_installed
from ..stats.intervals import (
    DEFAULT_DRAWS,
    DEFAULT_SEED,
    REPORT_GROUPINGS,
    bootstrap_draws,
    bootstrap_intervals,
    pack_sums,
    paired_differences,
)
from ..boundary.files import atomic_dir, write_table, write_text
from .labels import Labels
from ..stats.metrics import board_sums
from ..stats.protocol_names import condition_protocols, protocol_pairs
from ..stats.protocol_effect import tool_effect
from .figure_server import figure_server as start_figure_server
from .examples import write_examples
from .page import method_text, pages
from .render import write_table_files
from .tables import Table, check_table_inputs, condition_order, paper_tables, primary_cohort, trajectory_table
from .protocol_effect import tool_effect_table
from .trajectories import trajectory_frame

REPORT_ENTRIES = ("metrics.csv", "report.md", "report.html", "tables", "figures", "examples")
METRICS_CSV_COLUMNS = ["cohort", "condition", "depth", STRATUM, "metric", "estimate", "lo", "hi", "draws_used", "N"]
LEVEL = 0.95
PAIRS_PER_PASS = 32
Stage = Callable[[str, int, int], None]  # progress(stage, done, total)


@dataclass(frozen=True)
class ReportOptions:
    """How the report looks: ``labels`` (display names and order), ``titles`` in figures, ``interval_cells``
    (``est [lo, hi]`` in Table 1), ``figures`` drawn at all, ``runs``: run logs for the cost table, ``dpi``:
    the PNGs' resolution (None: ``figures.DPI``, 150; 300 for print; SVG and PDF do not depend on it)."""

    labels: Labels | None = None
    titles: bool = True
    interval_cells: bool = False
    figures: bool = True
    runs: Sequence = ()
    dpi: int | None = None


def report_folder(out_dir) -> Path:
    """The folder a report may replace whole, resolved; ``ValueError`` for one it must not.

    A report folder is replaced whole, so it must be a folder of its own: not a file, not ``/``, the
    home folder, the current folder or one above it, not a mount point; and an existing folder may hold
    the report's entries (``REPORT_ENTRIES``) and other plain files (kept across the swap), but no other
    sub-folder, and ``tables/`` or ``figures/`` only if it already holds a report (``report.md`` or
    ``metrics.csv``), so a user's own folder is never taken for one.
    """
    given = Path(out_dir).expanduser()
    if given.exists() and not given.is_dir():
        raise UserError(f"{out_dir}: exists and is not a folder; choose another report folder")
    real = given.resolve()
    cwd = Path.cwd().resolve()
    why = None
    if real == Path(real.anchor):
        why = "the root folder"
    elif real == Path.home().resolve():
        why = "the home folder"
    elif real == cwd or real in cwd.parents:
        why = "the current folder" if real == cwd else "a folder above the current one"
    elif real.is_dir() and os.path.ismount(real):
        why = "a mount point"
    elif real.is_dir():
        entries = list(os.scandir(real))
        is_report = any(e.name in ("report.md", "metrics.csv") for e in entries)
        for e in entries:
            if e.is_dir(follow_symlinks=False) and (e.name not in REPORT_ENTRIES or not is_report):
                why = f"a folder that holds {e.name}/, which is not part of a fastspe report"
                break
    if why:
        raise UserError(
            f"{out_dir}: will not write a report there ({why}): a report folder is replaced whole; "
            "name a new folder or one that holds a fastspe report"
        )
    return real


def metrics_long(metrics: pd.DataFrame, domain=None) -> pd.DataFrame:
    """``metrics.csv``: one row per (cohort, condition, depth, second stratum, metric); ``all`` marks pooled rows.
    ``domain``: the metrics', when the frame's ``attrs`` do not name it."""
    found = verdicts_domain(metrics, domain=domain, source="metrics")
    return metrics[found.named(METRICS_CSV_COLUMNS)].reset_index(drop=True)


def display_names(order: Sequence[str], labels: Labels | None) -> dict:
    """Condition -> shown name; a ``ValueError`` when two conditions would be shown alike."""
    names = {c: (labels.get(c) if labels else c) for c in order}
    seen: dict = {}
    for cond, name in names.items():
        if name in seen:
            raise UserError(
                f"conditions {seen[name]!r} and {cond!r} would both be shown as {name!r}; give them distinct labels"
            )
        seen[name] = cond
    return names


def _paired(
    sums: pd.DataFrame, order: Sequence[str], draws: int, seed: int, stage: Stage, executor: Executor | None = None
) -> pd.DataFrame | None:
    """Paired differences of conditions adjacent in ``order``, pooled per cohort, from the same draws."""
    if len(order) < 2:
        return None
    pooled = pack_sums(sums, groupings={"pooled": ("cohort",)}, conditions=order)
    pairs = list(zip(order[:-1], order[1:]))
    starts = range(0, len(pairs), PAIRS_PER_PASS)  # bounded memory for many conditions
    parts = []
    for n, i in enumerate(starts):
        chunk = pairs[i : i + PAIRS_PER_PASS]
        conds = list(dict.fromkeys(c for pair in chunk for c in pair))
        tick = lambda done, _, n=n: stage("paired differences", n * draws + done, len(starts) * draws)  # noqa: E731
        parts.append(
            paired_differences(bootstrap_draws(pooled.select(conds), draws, seed, tick, executor), chunk, LEVEL)
        )
    return pd.concat(parts, ignore_index=True)


def write_report(
    bank: Bank | pd.DataFrame,
    verdicts: Verdicts | pd.DataFrame,
    out_dir,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    progress: Stage | None = None,
    figures: bool = True,
    options: ReportOptions | None = None,
    executor: Executor | None = None,
    figure_server=None,
) -> Path:
    """Write the report directory and return the path of ``report.md``.

    Parameters
    ----------
    bank : ``Bank`` (``boundary.banks.load_bank``), or a bank DataFrame (as ``read_bank`` gives it, or only the board
        facts: board_id, cohort, the stratum, depth; the example pages need the columns its domain's viewer reads)
    verdicts : ``Verdicts`` (``boundary.verdict_files.read_verdicts``), trusted and checked against ``bank``
        unless they were read with it; or a DataFrame (``score.score_responses``), checked once here
        (``boundary.verdicts.check_verdicts``)
    out_dir : the report folder (``report_folder`` says which folders it refuses)
    draws, seed : bootstrap draws and seed
    progress : called as ``progress(stage, done, total)`` with the stages ``bootstrap`` and ``paired
        differences`` (draws) and ``tables and figures`` (files)
    figures : draw the figures (needs matplotlib, ``fastspe[plots]``); False writes the tables only
    options : labels, titles, interval cells, run logs (``ReportOptions``)
    executor : where the bootstrap draw ranges run (``fastspe.distributed.executor`` for Dask); the
        report is byte-for-byte the same wherever they run
    figure_server : a ``figure_server.figure_server()`` started earlier (the CLI starts it before it reads the
        inputs, so matplotlib loads meanwhile), or None to start one here; ``write_report`` closes it,
        or cancels it when the report fails

    The report is built in a temporary folder beside ``out_dir`` and swapped in whole once every file
    is written (``io.atomic_dir``): a report that fails or is killed part-way leaves the old one as it
    was, never a mix of old and new files. Files in ``out_dir`` that are not the report's (the demo's
    bank and verdicts, say) are kept.
    """
    expect(
        verdicts,
        "verdicts",
        (Verdicts, pd.DataFrame),
        "a Verdicts (read_verdicts) or a DataFrame of verdicts (score_responses)",
    )
    expect_path(out_dir, "out_dir")
    options = options or ReportOptions(figures=figures)
    server = figure_server
    try:
        if options.figures:  # before the bootstrap, not after it
            check_installed("matplotlib", "the report's figures (--no-figures writes the tables only)")
        elif server is not None:
            server.close()  # nothing to draw
            server = None
        checked = as_verdicts(verdicts, bank)  # the one check; every stage below trusts it (and its domain)
        check_table_inputs(checked)  # nothing to report from no verdicts
        sums = board_sums(checked)
        final = report_folder(out_dir)
        runs = _run_stats(options.runs, checked.frame)  # a bad log fails before the bootstrap
        stage = progress or (lambda name, done, total: None)
        if options.figures and server is None:  # matplotlib loads there while the bootstrap runs
            server = start_figure_server()
        path = _write(bank, checked, sums, final, runs, draws, seed, stage, options, executor, server)
    except BaseException:
        if server is not None:
            server.cancel()
        raise
    if server is not None:
        server.close()
    return path


def _write(
    bank,
    checked: Verdicts,
    sums,
    final: Path,
    runs,
    draws: int,
    seed: int,
    stage: Stage,
    options: ReportOptions,
    executor,
    server,
) -> Path:
    verdicts, domain = checked.frame, checked.domain
    bank = bank.frame if isinstance(bank, Bank) else bank
    protocols = condition_protocols(checked)  # (a condition of two protocols fails before the bootstrap)
    metrics = bootstrap_intervals(
        sums,
        draws=draws,
        seed=seed,
        level=LEVEL,
        groupings=REPORT_GROUPINGS,
        progress=lambda done, total: stage("bootstrap", done, total),
        executor=executor,
    )
    primary = primary_cohort(metrics)
    ranking = condition_order(metrics, primary)
    order = options.labels.ordered(ranking) if options.labels else ranking
    names = display_names(order, options.labels)
    trajectories = trajectory_frame(verdicts, domain.failure_positions)  # Figure 3 draws the table's numbers
    with atomic_dir(final) as out:
        try:
            figures = server and _Figures(
                server, out, trajectories, metrics, order, names, primary, options, domain.failure_positions
            )
            paired = _paired(sums, order, draws, seed, stage, executor)
            extra = _extra_tables(checked, trajectories, bank, order, runs)
            tables = paper_tables(
                checked, metrics, order, paired, names, options.interval_cells, extra, domain, protocols
            )
            fixes = _tool_effects(checked, order, names, draws, seed, stage, executor)
            tables[len(tables) - len(extra) : len(tables) - len(extra)] = fixes  # beside the paired differences
            total = len(tables) + 3 * bool(figures)
            write_table(metrics_long(metrics, domain), out / "metrics.csv", formulas_escaped=True)
            for n, table in enumerate(tables, start=1):
                write_table_files(table, out / "tables")
                stage("tables and figures", n, total)
            examples = write_examples(out, bank, domain, verdicts, order, primary)
            drawn = figures.finish(lambda n: stage("tables and figures", len(tables) + n, total)) if figures else []
            md, page = pages(
                out, method_text(bank, domain, verdicts, draws, seed), tables, drawn, examples, names, domain.stratum
            )
            write_text(md, out / "report.md")
            write_text(page, out / "report.html")
        except BaseException:
            if server:
                server.cancel()  # before the folder is removed: nothing may write into it once it is given up
            raise
    return final / "report.md"


def _tool_effects(
    verdicts: Verdicts,
    order: Sequence[str],
    names: dict,
    draws: int,
    seed: int,
    stage: Stage,
    executor: Executor | None,
) -> list[Table]:
    """ "What the tool fixes" when the report's conditions hold a condition and its protocol variant (``NAME``,
    ``NAME+tools``): one table of every such pair, or none."""
    shown = set(order)
    pairs = [p for p in protocol_pairs(verdicts) if p[0] in shown and p[1] in shown]
    effects = []
    for n, (baseline, candidate, _) in enumerate(pairs):
        tick = lambda done, _, n=n: stage("what the tool fixes", n * draws + done, len(pairs) * draws)  # noqa: E731
        effects.append(tool_effect(verdicts, baseline, candidate, draws, seed, LEVEL, executor, progress=tick))
    return [tool_effect_table(effects, names)] if effects else []


def _run_stats(runs: Sequence, verdicts: pd.DataFrame):
    if not runs:
        return None
    from .run_stats import run_stats

    return run_stats(list(runs), conditions=sorted(map(str, verdicts["condition"].unique())), verdicts=verdicts)


def _extra_tables(
    verdicts: Verdicts, trajectories: pd.DataFrame, bank: pd.DataFrame, order: Sequence[str], runs
) -> list[Table]:
    extra = [
        trajectory_table(trajectories, order, verdicts.domain.failure_positions),
        *verdicts.domain.report_tables(verdicts, bank, order),
    ]
    if runs is not None:
        from .run_stats import run_stats_table

        extra.append(
            run_stats_table(
                runs.set_index("condition").reindex([c for c in order if c in set(runs["condition"])]).reset_index()
            )
        )
    return extra


class _Figures:
    """The three figures, each drawn in a fork of the figure server (``forked.server``) as soon as its
    numbers are known, beside the tables; ``finish`` waits for them. The files are the same bytes whichever
    process draws them."""

    def __init__(
        self, server, out: Path, trajectories, metrics, order, names, primary, options: ReportOptions, positions=None
    ):
        folder, module = out / "figures", f"{__package__}.figures"
        self.positions = dict(positions or {})  # the domain's failure positions: a panel each in Figure 3
        look = {"titles": options.titles, **({"dpi": options.dpi} if options.dpi is not None else {})}
        self.primary, self.gutter = primary, metrics["cohort"].nunique() > 1
        self.pending = [
            server.submit(
                module,
                "figure1_heatmap",
                metrics,
                order,
                primary,
                folder / "figure1_horizon_metrics",
                labels=names,
                **look,
            ),
            server.submit(
                module, "figure2_bars", metrics, order, primary, folder / "figure2_economy_spe", labels=names, **look
            ),
            server.submit(
                module,
                "figure3_trajectories",
                trajectories,
                order,
                names,
                primary,
                folder / "figure3_trajectories",
                **look,
                **({"positions": self.positions} if self.positions else {}),
            ),
        ]

    def finish(self, tick) -> list[tuple[str, list[Path]]]:
        """The figures as (title, caption, paths); ``tick(n)`` after the n-th is written."""
        fig1, fig2, fig3 = [], [], []
        for n, (paths, pending) in enumerate(zip((fig1, fig2, fig3), self.pending), start=1):
            paths += pending.result()
            tick(n)
        primary = self.primary
        gutter = f"; the white gutter separates the {primary} depths from the other cohorts'" if self.gutter else ""
        return [
            (
                "Figure 1: Three factors of SPE = R × Q × E across certified depths, one row per condition",
                "R, Q and E in percent per condition and certified depth d*: blue better and orange poorer on each "
                f"panel's stated linear scale, grey n/a where a factor is undefined{gutter}. Q conditions on legal "
                "plans; E is the mean d*/L among completions.",
                fig1,
            ),
            (
                f"Figure 2: Conditional economy E and joint SPE on the {primary} cohort",
                "E among completed outputs (hatched) and SPE over all outputs (solid) per condition, with 95% "
                "bootstrap intervals (whole boards resampled within strata, trials kept together). A zero is a "
                "stub labelled 0; n/a: no completed plan, so E is undefined, while SPE counts every failure.",
                fig2,
            ),
            (
                f"Figure 3: Where plans fail on the {primary} cohort, by certified depth",
                "One line per condition: the earliest illegal move as a fraction of d* (illegal plans), "
                + "".join(
                    f"the {name} as a fraction of d* (plans that do not complete and have one), "
                    for name in self.positions.values()
                )
                + "the closest approach min h / d* (plans that do not complete), and the share of plans that "
                "revisit a state.",
                fig3,
            ),
        ]
