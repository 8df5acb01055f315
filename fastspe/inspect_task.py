"""inspect_ai integration (optional extra ``fastspe[inspect]``): a task over a bank, and a log importer.

``sliding_puzzles`` asks each board of a bank with the paper's prompt (Appendix B) in a fresh
context, no tools, ``trials`` epochs per board, and scores every answer with fastspe's own parser
and replay verifier. Run it with inspect's CLI once fastspe is installed (the task is registered
through the ``inspect_ai`` entry point)::

    inspect eval fastspe/sliding_puzzles --model openai/gpt-4o-mini -T bank=bank.parquet -T trials=3

The per-sample score holds C (complete), R (legal), O (optimal) and SPE (d*/L if complete, else 0),
whose means over samples are the paper's rates; each is reported with its standard error (over boards:
inspect averages a board's epochs first) and its mean per depth (``d*=N``) and per block count (``k=N``). For Q, E, G, intervals and the full report,
import the log and go through fastspe as with any other answers::

    fastspe import-inspect logs/....eval --out answers.jsonl
    fastspe score --bank bank.parquet --responses answers.jsonl --out verdicts.parquet

(in Python: ``import_log("logs/....eval", "answers.jsonl")``; ``fastspe score --responses
logs/....eval`` does both in one step). The importer loses nothing silently: samples that errored
are left out with a warning that counts them, or kept as failed attempts (``status="error"``, no
response) with ``keep_errors`` / ``--keep-errors``, as ``fastspe run`` logs them; a log whose run
failed, was cancelled or never finished is refused unless ``allow_incomplete`` /
``--allow-incomplete`` is given, and a log without samples is refused.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd

try:
    from inspect_ai import Task, task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.log import EvalLog, read_eval_log
    from inspect_ai.scorer import Metric, Score, Target, grouped, mean, metric, scorer, stderr
    from inspect_ai.solver import TaskState, generate
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("fastspe.inspect_task needs inspect_ai: pip install 'fastspe[inspect]'") from exc

from .bank.build import build_bank, read_bank
from .boundary.banks import BANK_COLUMNS
from .errors import UserError
from .bank.design import paper_design
from .boundary.files import table_format, write_table
from .domains.sliding.prompt import PROMPT_SHA256, PROMPT_VERSION, prompt_sha256, render_prompt
from .scoring.score import score_responses

SCORE_KEYS = ("C", "R", "O", "SPE")
# the generation settings a run log records, and where inspect's GenerateConfig keeps each
SETTINGS = {"temperature": "temperature", "max_tokens": "max_tokens", "top_p": "top_p", "seed": "seed",
            "stop": "stop_seqs", "reasoning_effort": "reasoning_effort", "thinking_budget": "reasoning_tokens",
            "extra_body": "extra_body"}
PROVENANCE = ["requested_model", *SETTINGS, "prompt_version", "prompt_sha256", "prompt_text_sha256"]
LOG_COLUMNS = ["board_id", "condition", "trial", "response", "finish_reason", "status", "attempt", "input_tokens",
               "output_tokens", "reasoning_tokens", "latency_s", "returned_model", "error", *PROVENANCE]
# the task's own metadata keys for the prompt (``sliding_puzzles``)
PROMPT_KEYS = {"prompt_version": "fastspe_prompt_version", "prompt_sha256": "fastspe_prompt_sha256"}
COMPLETE_STATUS = "success"  # inspect's other eval statuses: "started" (unfinished), "error", "cancelled"
_INCOMPLETE = {"started": "it never finished: still running, or killed", "error": "the run failed",
               "cancelled": "the run was cancelled"}


def load_bank(bank: str | Path | pd.DataFrame = "paper") -> pd.DataFrame:
    """``"paper"`` builds the paper's bank; a path reads a bank file; a DataFrame is used as is."""
    if isinstance(bank, pd.DataFrame):
        return bank
    if str(bank) == "paper":
        return build_bank(paper_design())
    return read_bank(bank)


def bank_samples(bank: pd.DataFrame) -> list[Sample]:
    """One inspect ``Sample`` per board: the Appendix B prompt, the certificate as target, the row as metadata."""
    samples = []
    for row in bank[BANK_COLUMNS].to_dict("records"):
        meta = {k: (list(map(int, v)) if k in ("blocks", "initial", "goal") else v) for k, v in row.items()}
        meta = {k: (v.item() if hasattr(v, "item") else v) for k, v in meta.items()}
        prompt = render_prompt(meta["initial"], meta["goal"], int(meta["rows"]), int(meta["cols"]))
        samples.append(Sample(id=str(meta["board_id"]), input=prompt, target=str(meta["certificate"]), metadata=meta))
    return samples


def verdict_of(metadata: dict, response: str, finish_reason: str = "stop", parse: str = "lenient") -> dict:
    """fastspe's verdict (one row of ``score_responses``) for one answer to the board in ``metadata``."""
    board = pd.DataFrame([{k: metadata[k] for k in BANK_COLUMNS}], columns=BANK_COLUMNS)
    answer = pd.DataFrame([{"board_id": metadata["board_id"], "condition": "inspect", "trial": 0,
                            "response": response, "finish_reason": finish_reason}])
    return score_responses(board, answer, parse=parse).iloc[0].to_dict()


@metric
def mean_by_depth() -> Metric:
    """The mean per certified depth d* (``d*=N``). (A metric of its own: two ``grouped`` metrics of one score
    would share inspect's name for them, and the second would replace the first.)"""
    return grouped(mean(), "depth", all=False, name_template="d*={group_name}")


@metric
def mean_by_k() -> Metric:
    """The mean per number of blocked cells k (``k=N``)."""
    return grouped(mean(), "k", all=False, name_template="k={group_name}")


@scorer(metrics={key: [mean(), stderr(), mean_by_depth(), mean_by_k()] for key in SCORE_KEYS})
def plan_verifier(parse: str = "lenient"):
    """Score an answer by replaying it: C, R, O and SPE per sample, the full verdict as metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        output = state.output
        finish = output.stop_reason if output.choices else "unknown"
        v = verdict_of(state.metadata, output.completion, finish, parse)
        complete = v["status"] == "complete"
        value = {"C": float(complete), "R": float(v["status"] != "illegal"), "O": float(bool(v["optimal"])),
                 "SPE": float(v["economy"]) if complete else 0.0}
        meta = {k: (val.item() if hasattr(val, "item") else val) for k, val in v.items()}
        meta = {k: (None if isinstance(val, float) and val != val else val) for k, val in meta.items()}
        return Score(value=value, answer=v["moves"], explanation=f"{v['status']} (L={v['L']}, d*={v['depth']})",
                     metadata=meta)

    return score


@task
def sliding_puzzles(bank: str = "paper", trials: int = 3, parse: str = "lenient") -> Task:
    """The paper's protocol over ``bank`` ("paper" or a bank file): one fresh context per trial, no tools."""
    rows = load_bank(bank)
    return Task(dataset=MemoryDataset(bank_samples(rows), name=f"fastspe:{Path(str(bank)).stem}"),
                solver=generate(), scorer=plan_verifier(parse=parse), epochs=int(trials),
                metadata={PROMPT_KEYS["prompt_version"]: PROMPT_VERSION, PROMPT_KEYS["prompt_sha256"]: PROMPT_SHA256})


def responses_from_log(log: str | Path | EvalLog, condition: str | None = None, keep_errors: bool = False,
                       allow_incomplete: bool = False) -> pd.DataFrame:
    """fastspe responses (``LOG_COLUMNS``) from an inspect eval log of ``sliding_puzzles``.

    Parameters
    ----------
    log : path of an ``.eval``/``.json`` log, or an ``EvalLog``
    condition : the responses' condition; default the log's model with its provider separated by
        ``:`` as ``fastspe run`` names it (``openai/gpt-4o`` -> ``openai:gpt-4o``)
    keep_errors : keep samples that errored as failed attempts (``status="error"``, ``response``
        null, the message in ``error``), which fastspe's readers skip and count as lost outputs;
        by default they are left out, with a warning that counts them
    allow_incomplete : import a log whose eval did not succeed (status "error", "cancelled" or
        "started"), with a warning; by default such a log is a ValueError

    Returns
    -------
    DataFrame, one row per (sample, epoch); ``trial`` is the epoch less one (0-based, as fastspe's).
    A log without samples, or with errored samples only (unless ``keep_errors``), is a ValueError.
    """
    return _responses(log, condition, keep_errors, allow_incomplete)


def _responses(log, condition, keep_errors: bool, allow_incomplete: bool, stacklevel: int = 3) -> pd.DataFrame:
    """``responses_from_log``; ``stacklevel`` points warnings at the public function's caller."""
    ev, name = _read_log(log)
    _check_status(ev, name, allow_incomplete, stacklevel + 1)
    if not ev.samples:
        raise UserError(f"{name}: the log holds no samples, nothing to import (a log read with header_only, or "
                        "from a run with log_samples=False, has none)")
    cond = condition or ev.eval.model.replace("/", ":", 1)
    provenance = _provenance(ev)
    records = []
    for s in ev.samples:
        out = s.output
        usage = out.usage
        records.append({
            "board_id": str(s.metadata.get("board_id", s.id)), "condition": cond, "trial": int(s.epoch) - 1,
            # an errored sample is a failed attempt as `fastspe run` logs one: no answer, the message in `error`
            "response": None if s.error else (out.completion if out.choices else ""),
            "finish_reason": out.stop_reason if out.choices else "unknown",
            "status": "error" if s.error else "ok", "attempt": 1,
            "input_tokens": usage.input_tokens if usage else None,
            "output_tokens": usage.output_tokens if usage else None,
            "reasoning_tokens": usage.reasoning_tokens if usage else None,
            "latency_s": s.total_time, "returned_model": out.model,
            "error": s.error.message if s.error else None,
            **provenance, "prompt_text_sha256": prompt_sha256(_prompt_text(s.input)),
        })
    df = pd.DataFrame.from_records(records, columns=LOG_COLUMNS)
    # token counts stay whole numbers where an errored sample has none (not 12.0 beside a NaN)
    tokens = ["input_tokens", "output_tokens", "reasoning_tokens"]
    df[tokens] = df[tokens].astype("Int64")
    errored = df["status"] != "ok"
    if errored.any() and not keep_errors:
        first = _one_line(df.loc[errored, "error"].iloc[0])
        keep = "keep_errors=True (fastspe import-inspect --keep-errors) keeps them as failed attempts"
        if errored.all():
            raise UserError(f"{name}: all {len(df)} samples errored (first error: {first}); nothing to import; "
                            f"{keep}")
        warnings.warn(f"{name}: {int(errored.sum())} of {len(df)} samples errored and were left out (first error: "
                      f"{first}); {keep}", stacklevel=stacklevel)
        df = df[~errored].reset_index(drop=True)
    return df


def _provenance(ev: EvalLog) -> dict:
    """The fields every answer of ``ev`` shares: the model asked for, the eval's generation settings (the model's
    config under the eval's own, as inspect applies them; null where unset, lists and objects as JSON text as in
    a verdicts file) and the prompt's version and template hash from the task's metadata."""
    config = ev.eval.model_generate_config.merge(ev.plan.config)
    settings = {name: getattr(config, field, None) for name, field in SETTINGS.items()}
    for name in ("stop", "extra_body"):
        settings[name] = json.dumps(settings[name], separators=(",", ":"), ensure_ascii=False) \
            if settings[name] else None
    meta = ev.eval.metadata or {}
    return {"requested_model": ev.eval.model, **settings, **{k: meta.get(v) for k, v in PROMPT_KEYS.items()}}


def _prompt_text(prompt) -> str:
    """The text of a sample's input: the prompt itself, or its last message's text (a chat given as input)."""
    return prompt if isinstance(prompt, str) else prompt[-1].text


def import_log(log: str | Path | EvalLog, out: str | Path, condition: str | None = None, keep_errors: bool = False,
               allow_incomplete: bool = False) -> pd.DataFrame:
    """``responses_from_log(log, ...)`` written atomically to ``out`` (.jsonl, .csv or .parquet).

    A refused log (see ``responses_from_log``) raises before anything is written."""
    table_format(out)  # a bad output name fails before a large log is read
    responses = _responses(log, condition, keep_errors, allow_incomplete)
    write_table(responses, out)
    return responses


def _read_log(log: str | Path | EvalLog) -> tuple[EvalLog, str]:
    """The log and the name its messages give it; an unreadable file is a one-line ValueError."""
    if isinstance(log, EvalLog):
        return log, str(log.location or "the eval log")
    try:
        return read_eval_log(str(log)), str(log)
    except FileNotFoundError:
        raise UserError(f"{log}: no such file") from None
    except ValueError as exc:  # not a zip, not JSON, not an EvalLog (pydantic's errors run to many lines)
        raise UserError(f"{log}: not an inspect eval log ({_one_line(exc)})") from None


def _check_status(ev: EvalLog, name: str, allow_incomplete: bool, stacklevel: int) -> None:
    """Refuse (or, with ``allow_incomplete``, warn about) a log whose eval did not succeed: its samples are
    whatever the run reached, and scoring them as the whole run would mislead."""
    if ev.status == COMPLETE_STATUS:
        return
    why = _INCOMPLETE.get(ev.status, "not a finished run")
    if ev.error is not None:
        why += f": {_one_line(ev.error.message)}"
    if not allow_incomplete:
        raise UserError(f"{name}: the eval's status is {ev.status!r} ({why}), so its samples are an incomplete "
                        "run; allow_incomplete=True (fastspe import-inspect --allow-incomplete) imports them anyway")
    warnings.warn(f"{name}: importing an incomplete eval (status {ev.status!r}: {why}); boards and epochs the run "
                  "did not reach are missing", stacklevel=stacklevel)


def _one_line(message, limit: int = 160) -> str:
    """The first line of an error message, cut short: tracebacks and pydantic reports run long."""
    text = str(message).strip().splitlines()[0] if str(message).strip() else "no message"
    return text if len(text) <= limit else text[:limit - 3] + "..."
