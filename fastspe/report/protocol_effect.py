"""The "What the tool fixes" table: a protocol's paired effects (``stats.protocol_effect``) per cohort and depth,
for the report's tables and pages and for ``fastspe compare``'s text."""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

from .._text import count
from ..stats.protocol_effect import CHANGES, EFFECT_METRICS, ToolEffect
from .render import body_text, markdown_rows, markdown_text
from .tables import Table, labelled

__all__ = ["HEADING", "tool_effect_table", "tool_effect_markdown"]

HEADING = "What the tool fixes"
NAME = "what_the_tool_fixes"
_DIFF = {m: f"d{m}" for m in EFFECT_METRICS}  # dR: R(candidate) - R(baseline)
_TEX = {f"d{m}": (f"$\\Delta {m}$" if m != "SPE" else "$\\Delta$SPE") for m in EFFECT_METRICS}


def _rows(effect: ToolEffect) -> pd.DataFrame:
    d = effect.differences
    wide = d.pivot_table(
        index=["cohort", "depth"],
        columns="metric",
        values=["estimate", "lo", "hi"],
        aggfunc="first",
        dropna=False,
        sort=False,
    )
    out = effect.outcomes.drop(columns="transitions").copy()
    index = pd.MultiIndex.from_frame(out[["cohort", "depth"]])
    diffs = {}
    for m in EFFECT_METRICS:
        for part, suffix in (("estimate", ""), ("lo", "_lo"), ("hi", "_hi")):
            diffs[f"{_DIFF[m]}{suffix}"] = wide[(part, m)].reindex(index).to_numpy()
    head = pd.DataFrame(
        {"baseline": effect.baseline, "candidate": effect.candidate, "protocol": effect.protocols[1]}, index=out.index
    )
    tail = out[["pairs", *(name for name, _, _ in CHANGES), "tool_calls_per_complete"]]
    return pd.concat(
        [
            head,
            out[["cohort", "depth"]],
            tail[["pairs"]],
            pd.DataFrame(diffs, index=out.index),
            tail.drop(columns="pairs"),
        ],
        axis=1,
    )


def _unpaired_text(effects: Sequence[ToolEffect], labels: Mapping[str, str]) -> str:
    name = lambda c: labels.get(c, c)
    parts = [
        f"{name(e.candidate)} against {name(e.baseline)}: "
        f"{count(e.unpaired['baseline_only'], 'trial')} only the baseline "
        f"answered, {e.unpaired['candidate_only']} only the candidate"
        for e in effects
        if e.unpaired["baseline_only"] or e.unpaired["candidate_only"]
    ]
    return "; ".join(parts) if parts else "none (every trial of one answered by the other)"


def tool_effect_table(effects: Sequence[ToolEffect], labels: Mapping[str, str] | None = None) -> Table:
    """One table of every pair's effects (at least one; ``protocol``: the candidate's), rows per pair, cohort and
    depth (``all``: the cohort pooled), intervals in the cells; ``labels``: conditions' display names."""
    frame = pd.concat([_rows(e) for e in effects], ignore_index=True)
    if not any(e.has_tool_calls for e in effects):
        frame = frame.drop(columns="tool_calls_per_complete")
    first = effects[0]
    shown = ", ".join(_TEX.values())
    calls = (
        " tool_calls_per_complete: the candidate's tool calls per completed plan (its conversations' tool_call_count)."
        if "tool_calls_per_complete" in frame.columns
        else ""
    )
    return labelled(
        Table(
            NAME,
            "Candidate $-$ baseline on the same boards and trials: a trial counts only when both "
            f"answered it. {shown}: paired differences with 95% percentile intervals from «draws» stratified "
            "whole-board bootstrap draws (seed «seed»), both conditions on the same boards in every draw; "
            "depth all pools the cohort. Plans the candidate changed: illegal_to_legal (an illegal plan made "
            "legal, complete or not) and legal_to_illegal, incomplete_to_complete (a legal plan that stopped "
            f"short, completed) and complete_to_incomplete.{calls} Unpaired trials, left out: «unpaired».",
            frame,
            {**{c: "+.3f" for c in _DIFF.values()}, "tool_calls_per_complete": ".2f"},
            values={
                "draws": f"{first.draws:,}",
                "seed": str(first.seed),
                "unpaired": _unpaired_text(effects, labels or {}),
            },
            intervals={_DIFF[m]: (f"{_DIFF[m]}_lo", f"{_DIFF[m]}_hi") for m in EFFECT_METRICS},
            interval_cells=True,
            heading=HEADING,
            tex_headers=dict(_TEX),
        ),
        labels,
    )


def tool_effect_markdown(effects: Sequence[ToolEffect], labels: Mapping[str, str] | None = None) -> str:
    """``compare``'s section: the heading, what the numbers are, the table."""
    table = tool_effect_table(effects, labels)
    name = lambda c: markdown_text((labels or {}).get(c, c))
    sizes = "; ".join(
        f"{name(e.candidate)} against {name(e.baseline)}: "
        f"{count(e.paired_trials, 'trial')} paired on {count(e.paired_boards, 'board')}"
        for e in effects
    )
    return f"## {HEADING}\n\n{sizes}.\n\n{body_text(table, markdown=True)}\n\n{markdown_rows(table)}"
