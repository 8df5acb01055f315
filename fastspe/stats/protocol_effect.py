"""What a protocol fixes: one condition against another on exactly the same boards and trials.

The pairing is exact: a trial counts when both conditions answered it (same ``board_id``, same ``trial``); trials
only one of them answered are left out of every number here and counted (``ToolEffect.unpaired``), never filled in.
On the paired trials:

- the paired differences candidate - baseline in R, Q, E and SPE, per cohort pooled and per depth, with percentile
  intervals from the stratified whole-board bootstrap (``intervals``: the same strata, draws and counter-based
  randomness, so a seed gives the same numbers at any thread count; both conditions get the same boards in a draw);
- how the candidate changed each plan: illegal -> legal (complete or not) and back, legal but incomplete ->
  complete and back, from the 3 x 3 table of (baseline status, candidate status);
- tool calls per completed plan: the candidate's ``tool_call_count`` summed over its completed paired plans, over
  their number (where the verdicts carry ``tool_call_count``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..boundary.prompt_hashes import SPEC_COLUMN
from ..boundary.verdicts import FRAME_DOMAIN, Verdicts, verdicts_domain
from ..domains.codes import STATUS_NAMES
from ..errors import UserError
from ..executor import Executor
from .intervals import ALL, DEFAULT_DRAWS, DEFAULT_LEVEL, DEFAULT_SEED, bootstrap_draws, pack_sums, paired_differences
from .metrics import board_sums
from .protocol_names import condition_protocols

__all__ = [
    "ToolEffect",
    "tool_effect",
    "protocol_effects",
    "tool_effect_json",
    "EFFECT_METRICS",
    "CHANGES",
    "TOOL_CALLS",
]

EFFECT_METRICS = ("R", "Q", "E", "SPE")
GROUPINGS = {"pooled": ("cohort",), "depth": ("cohort", "depth")}
TOOL_CALLS = "tool_call_count"
COMPLETE, INCOMPLETE, ILLEGAL = STATUS_NAMES
# (name, baseline statuses, candidate statuses): each plan changed this way, both directions
CHANGES = (
    ("illegal_to_legal", (ILLEGAL,), (COMPLETE, INCOMPLETE)),
    ("legal_to_illegal", (COMPLETE, INCOMPLETE), (ILLEGAL,)),
    ("incomplete_to_complete", (INCOMPLETE,), (COMPLETE,)),
    ("complete_to_incomplete", (COMPLETE,), (INCOMPLETE,)),
)
_KEY = ["board_id", "trial"]


@dataclass(frozen=True)
class ToolEffect:
    """Candidate - baseline on their exactly paired trials.

    ``differences``: one row per cohort, depth (``"all"``: pooled) and metric of ``EFFECT_METRICS``: ``estimate, lo,
    hi, draws_used``. ``outcomes``: one row per cohort and depth (pooled first): ``pairs`` (paired trials), the
    ``CHANGES`` counts, ``transitions`` (``{baseline status: {candidate status: count}}``) and
    ``tool_calls_per_complete`` (NaN without ``tool_call_count`` or a completion). ``unpaired``: trials only the
    baseline (``baseline_only``) or only the candidate (``candidate_only``) answered, left out. ``protocols``: the
    baseline's and the candidate's (``protocol_names.UNAIDED`` for one answer per trial)."""

    baseline: str
    candidate: str
    protocols: tuple[str, str]
    differences: pd.DataFrame
    outcomes: pd.DataFrame
    unpaired: dict
    paired_boards: int
    draws: int
    seed: int
    level: float
    has_tool_calls: bool

    @property
    def paired_trials(self) -> int:
        pooled = self.outcomes[self.outcomes["depth"] == ALL]
        return int(pooled["pairs"].sum())


def _paired_rows(frame: pd.DataFrame, baseline: str, candidate: str) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Both conditions' rows on the trials both answered, in the same (board_id, trial) order, and the counts of
    the trials one of them lacks."""
    base = frame[frame["condition"] == baseline]
    cand = frame[frame["condition"] == candidate]
    for name, rows in ((baseline, base), (candidate, cand)):
        if rows.empty:
            present = ", ".join(sorted(map(str, frame["condition"].unique())))
            raise UserError(f"condition {name!r} has no verdicts; conditions present: {present}")
    keys = base[_KEY].merge(cand[_KEY], on=_KEY, how="outer", indicator=True)
    both = keys[keys["_merge"] == "both"][_KEY].sort_values(_KEY, kind="stable")
    unpaired = {
        "baseline_only": int((keys["_merge"] == "left_only").sum()),
        "candidate_only": int((keys["_merge"] == "right_only").sum()),
    }
    if both.empty:
        raise UserError(f"{candidate!r} and {baseline!r} share no trial (the same board_id and trial): nothing to pair")
    return both.merge(base, on=_KEY, how="left"), both.merge(cand, on=_KEY, how="left"), unpaired


def _outcome_row(base: pd.DataFrame, cand: pd.DataFrame, has_tool_calls: bool) -> dict:
    b, c = base["status"].to_numpy(), cand["status"].to_numpy()
    row = {"pairs": len(b)}
    for name, before, after in CHANGES:
        row[name] = int((np.isin(b, before) & np.isin(c, after)).sum())
    row["transitions"] = {s: {t: int(((b == s) & (c == t)).sum()) for t in STATUS_NAMES} for s in STATUS_NAMES}
    calls = cand[TOOL_CALLS].to_numpy(np.float64)[c == COMPLETE] if has_tool_calls else np.zeros(0)
    # NaN without a completion, and where a completed plan's count is missing (unknown, not smaller)
    row["tool_calls_per_complete"] = float(calls.mean()) if calls.size else math.nan
    return row


def _outcomes(base: pd.DataFrame, cand: pd.DataFrame, has_tool_calls: bool) -> pd.DataFrame:
    rows = []
    for cohort in sorted(base["cohort"].astype(str).unique()):
        mine = (base["cohort"].astype(str) == cohort).to_numpy()
        rows.append({"cohort": cohort, "depth": ALL, **_outcome_row(base[mine], cand[mine], has_tool_calls)})
        depth = base["depth"].to_numpy()
        for d in sorted(np.unique(depth[mine])):
            at = mine & (depth == d)
            rows.append({"cohort": cohort, "depth": int(d), **_outcome_row(base[at], cand[at], has_tool_calls)})
    return pd.DataFrame(rows)


def tool_effect(
    verdicts: Verdicts | pd.DataFrame,
    baseline: str,
    candidate: str,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    executor: Executor | None = None,
    domain=None,
    progress=None,
) -> ToolEffect:
    """Candidate - baseline on the trials both answered (see the module docstring).

    Parameters
    ----------
    verdicts : scored outputs holding both conditions (``Verdicts``, or a frame ``board_sums`` checks)
    baseline, candidate : condition names (``NAME`` and ``NAME+tools``, say)
    draws, seed, level : the bootstrap's (5,000 draws by default, as the paper)
    executor : where the draw ranges run (``fastspe.distributed.executor`` for Dask); the numbers do not depend on it
    domain : the verdicts' domain, when they are a frame whose ``attrs`` do not name it
    progress : ``progress(draws_done, draws)``
    """
    if baseline == candidate:
        raise UserError(f"the candidate must differ from the baseline, both are {baseline!r}")
    found = verdicts.domain if isinstance(verdicts, Verdicts) else verdicts_domain(verdicts, domain=domain)
    frame = verdicts.frame if isinstance(verdicts, Verdicts) else verdicts
    base, cand, unpaired = _paired_rows(frame, baseline, candidate)
    protocols = condition_protocols(frame[frame["condition"].isin([baseline, candidate])])
    both = pd.concat([base, cand], ignore_index=True)
    both.attrs[FRAME_DOMAIN] = found.name
    sums = board_sums(both, found)  # refuses inconsistent verdicts, as compare does
    packed = pack_sums(sums, groupings=GROUPINGS, conditions=[baseline, candidate], domain=found)
    boot = bootstrap_draws(packed, draws, seed, progress=progress, executor=executor)
    diff = paired_differences(boot, [(candidate, baseline)], level)
    diff = diff[diff["metric"].isin(EFFECT_METRICS)]
    rank = {m: i for i, m in enumerate(EFFECT_METRICS)}
    diff = diff.assign(_g=(diff["grouping"] != "pooled").astype(int), _m=diff["metric"].map(rank))
    diff = diff.sort_values(["cohort", "_g", "depth", "_m"], kind="stable", key=_depth_key)
    differences = diff[["cohort", "depth", "metric", "estimate", "lo", "hi", "draws_used"]].reset_index(drop=True)
    has_tool_calls = TOOL_CALLS in cand.columns and cand[TOOL_CALLS].notna().any()
    return ToolEffect(
        baseline,
        candidate,
        (protocols[baseline], protocols[candidate]),
        differences,
        _outcomes(base, cand, has_tool_calls),
        unpaired,
        int(base["board_id"].nunique()),
        boot.draws,
        boot.seed,
        float(level),
        bool(has_tool_calls),
    )


def protocol_effects(
    verdicts: Verdicts | pd.DataFrame,
    baseline: str,
    candidates,
    draws: int = DEFAULT_DRAWS,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    executor: Executor | None = None,
    domain=None,
) -> list[ToolEffect]:
    """``tool_effect`` of each candidate whose answers came from another protocol than the baseline's (``compare``'s
    "What the tool fixes"); empty when they all share the baseline's protocol (verdicts without ``protocol``)."""
    frame = verdicts.frame if isinstance(verdicts, Verdicts) else verdicts
    protocols = condition_protocols(frame[frame["condition"].isin([baseline, *candidates])])
    others = [c for c in candidates if protocols.get(c) != protocols.get(baseline)]
    asked = _prompts(frame, [baseline, *others])
    same = []
    for c in others:
        if asked.get(c) == asked.get(baseline):
            same.append(c)
        else:  # its difference would be the prompt's as much as the protocol's
            warnings.warn(
                f"{c!r} was asked another prompt than {baseline!r} (prompt_spec_sha256); left out of "
                f'"What the tool fixes", which pairs a protocol against none on the same prompt',
                stacklevel=2,
            )
    return [tool_effect(verdicts, baseline, c, draws, seed, level, executor, domain) for c in same]


def _prompts(frame: pd.DataFrame, conditions: list) -> dict:
    """``{condition: the prompt specs its answers were asked with}`` ("": the paper prompt alone)."""
    if SPEC_COLUMN not in frame.columns:
        return {}
    mine = frame[frame["condition"].isin(conditions)]
    specs = mine[SPEC_COLUMN].astype(object).where(mine[SPEC_COLUMN].notna(), "").astype(str)
    return {c: frozenset(s) for c, s in specs.groupby(mine["condition"].astype(str))}


def _depth_key(column: pd.Series) -> pd.Series:
    """Depths sort as numbers (10 before 100), the pooled ``"all"`` apart (it sorts by the grouping first)."""
    if column.name != "depth":
        return column
    return column.map(lambda d: -1 if d == ALL else int(d))


def tool_effect_json(effect: ToolEffect) -> dict:
    """The effect as JSON-ready values (``null`` for an undefined number)."""

    def clean(v):
        v = v.item() if hasattr(v, "item") else v
        return None if isinstance(v, float) and not math.isfinite(v) else v

    diffs: dict = {}
    for r in effect.differences.to_dict("records"):
        diffs.setdefault((r["cohort"], r["depth"]), {})[r["metric"]] = {
            k: clean(r[k]) for k in ("estimate", "lo", "hi", "draws_used")
        }
    rows = []
    for r in effect.outcomes.to_dict("records"):
        row = {k: clean(v) for k, v in r.items() if k != "transitions"}
        if not effect.has_tool_calls:
            row.pop("tool_calls_per_complete")
        rows.append({**row, "differences": diffs.get((r["cohort"], r["depth"]), {}), "transitions": r["transitions"]})
    return {
        "baseline": effect.baseline,
        "candidate": effect.candidate,
        "baseline_protocol": effect.protocols[0],
        "candidate_protocol": effect.protocols[1],
        "paired_trials": effect.paired_trials,
        "paired_boards": effect.paired_boards,
        "unpaired_trials": dict(effect.unpaired),
        "draws": effect.draws,
        "seed": effect.seed,
        "level": effect.level,
        "rows": rows,
    }
