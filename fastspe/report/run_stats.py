"""Run statistics from run logs: attempts, retries, 429s, tokens, latency and cost per condition.

``fastspe run`` logs tokens, latency and cost for every attempt; ``run_stats`` sums them up per
condition and ``run_stats_table`` makes the report table.

Reading (``fastspe.boundary.run_log_attempts``): only the columns the statistics need, in chunks with
Arrow's JSON reader, skipping what ``runners.log.read_run_log`` skips; a file that holds no attempt
records is refused as not a run log.

Several logs (e.g. one per model) are concatenated: a trial is (condition, board_id, trial) over all
of them, so its attempts in two logs count as one trial's attempts, and it counts once as answered
however many completed attempts it has (all of them enter the token, latency and cost statistics).
"""

from __future__ import annotations

import os
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import UserError
from ..boundary.responses import OK
from ..boundary.run_log_attempts import ATTEMPT_SCHEMA, NUMBER_FIELDS, read_attempts
from ..protocols.spec import TURN  # an answered turn that does not end its conversation

COLUMNS = [
    "condition",
    "answers",
    "attempts",
    "retries_per_answer",
    "failed_attempts",
    "rate_limited",
    "trials_without_answer",
    "input_tokens_mean",
    "output_tokens_mean",
    "output_tokens_p95",
    "reasoning_tokens_mean",
    "latency_p50_s",
    "latency_p95_s",
    "cost_usd",
    "cost_per_answer_usd",
    "cost_per_completed_plan_usd",
]
COUNT_COLUMNS = ["answers", "attempts", "failed_attempts", "rate_limited", "trials_without_answer"]
# Of multi-turn protocols (``fastspe.protocols``), present only when a condition's answers end conversations.
CONVERSATION_COLUMNS = ["turns_mean", "turns_max", "tool_calls_mean", "tool_calls_max"]
RATE_LIMIT, HTTP_TOO_MANY = "rate_limit", 429
PERCENTILE_METHOD = "linear"  # numpy's default: interpolate between the two nearest ranks

# -- statistics ------------------------------------------------------------------------------------


def run_stats(paths, conditions: Sequence[str] | None = None, verdicts: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per condition of the run logs ``paths`` (one path or several, concatenated).

    Parameters
    ----------
    paths : path-like or iterable of path-likes
    conditions : the conditions to keep, in this order (those not in the logs are left out; a ValueError
        if none is); default: every condition, sorted
    verdicts : DataFrame with ``condition`` and ``status`` columns (``fastspe score``), optional; gives
        ``cost_per_completed_plan_usd``

    Returns
    -------
    DataFrame with the columns of ``COLUMNS``:

    - ``answers``: trials with a completed (``status == "ok"``) attempt; ``attempts``: log lines;
      ``retries_per_answer``: attempts beyond the first per trial, the mean over trials with an attempt;
      ``failed_attempts``; ``rate_limited``: failed attempts with HTTP 429; ``trials_without_answer``;
    - over completed attempts, leaving out missing values (a token count the server did not report is
      not a 0): mean input, output and reasoning tokens, the 95th percentile of output tokens, the 50th
      and 95th percentiles of latency (numpy's ``"linear"`` method); NaN where no value was recorded;
    - ``cost_usd``: the total over all attempts (NaN when no attempt recorded a cost), per answer and per
      complete verdict of the condition (NaN without verdicts or without a complete one);
    - only when a condition's answers end multi-turn conversations (``--protocol tools``/``feedback``), the
      ``CONVERSATION_COLUMNS``: turns and tool calls per answered trial (mean, max). A conversation's answered
      turns (``status`` "turn") are attempts that neither failed nor count as retries; their tokens and latency
      enter the statistics of completed attempts.

    ``attrs["skipped_lines"]`` maps each path to its lines skipped as torn.
    """
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    tables, skipped = [ATTEMPT_SCHEMA.empty_table()], {}
    for path in paths:
        table, skipped[str(path)] = read_attempts(path)
        tables.append(table)
    names, columns = _columns(pa.concat_tables(tables))
    del tables  # the NumPy columns hold all that is needed
    present = sorted(names)
    order = present if conditions is None else [c for c in conditions if c in set(present)]
    if conditions is not None and not order:
        raise UserError(f"none of the conditions {list(conditions)} is in the run logs; they hold {present}")
    completed = _completed_plans(verdicts)
    rows = []
    for name in order:
        mine = columns["condition"] == names.index(name)
        own = columns if mine.all() else {col: values[mine] for col, values in columns.items()}  # one log, one model
        rows.append(_condition_stats(own, completed, name))
    conversations = any(not np.isnan(row["turns_mean"]) for row in rows)
    columns = COLUMNS + CONVERSATION_COLUMNS if conversations else COLUMNS
    types = {c: "int64" if c in COUNT_COLUMNS else "float64" for c in columns[1:]}
    stats = pd.DataFrame(rows, columns=columns).astype({"condition": object, **types})
    stats.attrs["skipped_lines"] = skipped
    return stats


def _columns(attempts: pa.Table) -> tuple[list[str], dict[str, np.ndarray]]:
    """The condition names and the attempts as NumPy columns: conditions and board ids as integer codes
    (no Python string per line), ``ok`` and ``rate_limited`` as flags, numbers with NaN where missing."""

    def codes(name: str):
        return pc.dictionary_encode(attempts[name].combine_chunks())

    condition = codes("condition")
    columns = {
        "condition": condition.indices.to_numpy(),
        "board": codes("board_id").indices.to_numpy(),
        "trial": attempts["trial"].to_numpy(),
        "ok": pc.equal(attempts["status"], OK).to_numpy(),
        "turn_line": pc.equal(attempts["status"], TURN).to_numpy(),
        **{col: attempts[col].to_numpy() for col in NUMBER_FIELDS},
    }
    limited = pc.fill_null(pc.equal(attempts["error_type"], RATE_LIMIT), False).to_numpy()
    columns["rate_limited"] = (
        ~columns["ok"] & ~columns["turn_line"] & (limited | (columns["http_status"] == HTTP_TOO_MANY))
    )
    return condition.dictionary.to_pylist(), columns


def _completed_plans(verdicts: pd.DataFrame | None) -> Mapping[str, int] | None:
    if verdicts is None:
        return None
    from ..boundary.files import require_columns

    require_columns(verdicts, ["condition", "status"], "verdicts", "give verdicts from `fastspe score`")
    return verdicts.loc[verdicts["status"] == "complete", "condition"].astype(str).value_counts().to_dict()


def _condition_stats(rows: dict[str, np.ndarray], completed: Mapping[str, int] | None, name: str) -> dict:
    """The statistics of one condition from its attempts' columns ``rows``."""
    ok, attempts = rows["ok"], len(rows["ok"])
    answered = ok | rows["turn_line"]  # every answered request, a conversation's turns too
    trial_keys = pd.DataFrame({"board": rows["board"], "trial": rows["trial"]})  # a trial: (board_id, trial)
    trials = int((~trial_keys.duplicated()).sum())
    answers = int((~trial_keys[ok].duplicated()).sum())
    costs = rows["cost_usd"]
    cost = float(np.nansum(costs)) if (~np.isnan(costs)).any() else np.nan
    done = {col: rows[col][answered] for col in NUMBER_FIELDS}
    plans = None if completed is None else completed.get(name, 0)
    turns, calls = rows["turns"][ok], rows["tool_call_count"][ok]
    # a retry: an attempt beyond the first of its trial's turn (a one-shot attempt has no turn: its trial's only
    # one); counted by turns sent, not answered, as a conversation stopped after an answered turn sent no next one
    requests = int((~trial_keys.assign(turn=np.nan_to_num(rows["turn"], nan=1.0)).duplicated()).sum())
    retries = attempts - requests
    return {
        "condition": name,
        "answers": answers,
        "attempts": attempts,
        "retries_per_answer": retries / trials if trials else np.nan,
        "failed_attempts": int((~answered).sum()),
        "rate_limited": int(rows["rate_limited"].sum()),
        "trials_without_answer": trials - answers,
        "input_tokens_mean": _mean(done["input_tokens"]),
        "output_tokens_mean": _mean(done["output_tokens"]),
        "output_tokens_p95": _percentile(done["output_tokens"], 95),
        "reasoning_tokens_mean": _mean(done["reasoning_tokens"]),
        "latency_p50_s": _percentile(done["latency_s"], 50),
        "latency_p95_s": _percentile(done["latency_s"], 95),
        "cost_usd": cost,
        "cost_per_answer_usd": cost / answers if answers else np.nan,
        "cost_per_completed_plan_usd": cost / plans if plans else np.nan,
        "turns_mean": _mean(turns),
        "turns_max": _max(turns),
        "tool_calls_mean": _mean(calls),
        "tool_calls_max": _max(calls),
    }


def _max(values: np.ndarray) -> float:
    v = values[~np.isnan(values)]
    return float(v.max()) if len(v) else np.nan


def _mean(values: np.ndarray) -> float:
    v = values[~np.isnan(values)]
    return float(v.mean()) if len(v) else np.nan


def _percentile(values: np.ndarray, q: float) -> float:
    v = values[~np.isnan(values)]
    return float(np.percentile(v, q, method=PERCENTILE_METHOD)) if len(v) else np.nan


# -- the report table ------------------------------------------------------------------------------

_HEADERS = {
    "condition": "condition",
    "answers": "answers",
    "attempts": "attempts",
    "retries_per_answer": "retries/trial",
    "failed_attempts": "failed",
    "rate_limited": "429s",
    "trials_without_answer": "unanswered",
    "input_tokens_mean": "in tokens",
    "output_tokens_mean": "out tokens",
    "output_tokens_p95": "out tokens p95",
    "reasoning_tokens_mean": "reasoning tokens",
    "latency_p50_s": "latency p50 (s)",
    "latency_p95_s": "latency p95 (s)",
    "cost_usd": "cost (USD)",
    "cost_per_answer_usd": "USD/answer",
    "cost_per_completed_plan_usd": "USD/completed plan",
    "turns_mean": "turns/trial",
    "turns_max": "turns max",
    "tool_calls_mean": "tool calls/trial",
    "tool_calls_max": "tool calls max",
}
_FORMATS = {
    **dict.fromkeys(COUNT_COLUMNS, ",d"),
    "retries_per_answer": ".2f",
    **dict.fromkeys(["input_tokens_mean", "output_tokens_mean", "output_tokens_p95", "reasoning_tokens_mean"], ",.0f"),
    **dict.fromkeys(["latency_p50_s", "latency_p95_s"], ".2f"),
    **dict.fromkeys(["cost_usd", "cost_per_answer_usd", "cost_per_completed_plan_usd"], ",.4f"),
    **dict.fromkeys(["turns_mean", "tool_calls_mean"], ".2f"),
    **dict.fromkeys(["turns_max", "tool_calls_max"], ",.0f"),
}
HEADING = "Run cost, tokens and latency per condition"
CAPTION = (
    "Tokens (means, p95) and latency (p50, p95; percentiles interpolated linearly) over completed attempts; "
    "retries per trial with an attempt; cost over all attempts, n/a where the log holds none (a run given no "
    "--price-in/--price-out records no cost; a baseline costs 0); n/a elsewhere: not recorded."
)


def run_stats_table(stats: pd.DataFrame, labels: Mapping[str, str] | None = None):
    """``stats`` (from ``run_stats``) as a ``tables.Table`` with readable headers and number formats;
    ``labels`` maps a condition to the name shown for it."""
    from .tables import Table

    frame = stats[[c for c in COLUMNS + CONVERSATION_COLUMNS if c in stats.columns]].copy()
    if labels:
        frame["condition"] = [labels.get(c, c) for c in frame["condition"]]
    return Table(
        "run_stats",
        CAPTION,
        frame.rename(columns=_HEADERS),
        {_HEADERS[col]: spec for col, spec in _FORMATS.items()},
        heading=HEADING,
    )


__all__ = ["COLUMNS", "run_stats", "run_stats_table"]
