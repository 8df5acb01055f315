"""inspect_ai integration (optional extra ``fastspe[inspect]``): a task over a bank of any domain, and a log importer.

``planning`` asks each row of a bank with its domain's prompt (the paper's Appendix B for the sliding puzzle) in a
fresh context, no tools, ``trials`` epochs per row, and scores every answer with fastspe's own parser and replay
verifier. With ``protocol=tools`` the model may first call ``apply_moves`` (the moves played from the start, the
state after them as the prompt writes it) through inspect's own tool machinery, up to ``max_turns`` requests
(``fastspe.inspect_tools``); its answer without a tool call is scored. Each installed domain also has a task of its
own name (``Domain.inspect_task``: ``sliding_puzzles``, ``sokoban_levels``, ...), ``planning`` with that domain.
``prompt``, ``system``, ``shots``, ``shots_bank`` and ``shots_seed`` ask what ``fastspe run``'s prompt options ask,
the same messages (``fastspe.inspect_tools``). Run them with inspect's CLI once fastspe is installed (the tasks
are registered through the ``inspect_ai`` entry point)::

    inspect eval fastspe/sliding_puzzles --model openai/gpt-4o-mini -T bank=bank.parquet -T trials=3
    inspect eval fastspe/planning -T domain=sokoban --model openai/gpt-4o-mini
    inspect eval fastspe/sliding_puzzles --model openai/gpt-4o-mini -T protocol=tools -T max_turns=20

The per-sample score holds C (complete), R (legal), O (optimal) and SPE (d*/L if complete, else 0),
whose means over samples are the paper's rates; each is reported with its standard error (over boards:
inspect averages a board's epochs first) and its mean per depth (``d*=N``) and per value of the domain's second
stratum (``k=N``, ``boxes=N``). For Q, E, G, intervals and the full report, import the log and go through fastspe as
with any other answers::

    fastspe import-inspect logs/....eval --out answers.jsonl
    fastspe score --bank bank.parquet --responses answers.jsonl --out verdicts.parquet

(in Python: ``import_log("logs/....eval", "answers.jsonl")``; ``fastspe score --responses
logs/....eval`` does both in one step). The importer loses nothing silently: samples that errored
are left out with a warning that counts them, or kept as failed attempts (``status="error"``, no
response) with ``keep_errors`` / ``--keep-errors``, as ``fastspe run`` logs them; a log whose run
failed, was cancelled or never finished is refused unless ``allow_incomplete`` /
``--allow-incomplete`` is given, and a log without samples is refused. A log of ``protocol=tools`` keeps its protocol:
the condition is named ``MODEL+tools`` and every answer carries ``protocol``, ``max_turns`` and, from the sample's
messages, ``turns``, ``tool_call_count`` and ``end_reason``, as ``fastspe run --protocol tools`` logs them. A log of
a prompt variant keeps it: the condition gains run's suffix (``MODEL+cot``), every answer the variant's log fields,
and ``import_log`` writes the prompts sidecar beside the answers, which ``fastspe score`` checks them against.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path

import pandas as pd

try:
    from inspect_ai import Task, task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.log import EvalLog, read_eval_log
    from inspect_ai.model import ModelUsage
    from inspect_ai.scorer import Metric, Score, Target, grouped, mean, metric, scorer, stderr
    from inspect_ai.solver import TaskState, generate
    from zstandard import ZstdError  # inspect_ai's .eval members are zstd-compressed; a damaged one raises this
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("fastspe.inspect_task needs inspect_ai: pip install 'fastspe[inspect]'") from exc

from .boundary.banks import Bank, as_bank, load_bank as read_bank_file
from .boundary.files import table_format, write_table
from .boundary.prompt_hashes import UnhashedAnswers
from .domains.contract import prompt_hash
from .domains.registry import DEFAULT_DOMAIN, domain_named, domain_names
from .errors import UserError
from .inspect_tools import (
    DEFAULT_MAX_TURNS,
    ONESHOT,
    TOOLS,
    chat_input,
    check_plays_out,
    check_protocol,
    check_sample_spec,
    conversation_fields,
    final_answer,
    sample_metadata,
    spec_metadata,
    spec_of_log,
    tool_conversation,
)
from .prompting import PAPER_SPEC, PromptSpec, given_prompt_spec, keep_prompts, refuse_evaluated_shots, user_texts
from .protocols.spec import protocol_spec
from .runners.generation import default_condition
from .scoring.score import score_responses

SCORE_KEYS = ("C", "R", "O", "SPE")
# the generation settings a run log records, and where inspect's GenerateConfig keeps each
SETTINGS = {
    "temperature": "temperature",
    "max_tokens": "max_tokens",
    "top_p": "top_p",
    "seed": "seed",
    "stop": "stop_seqs",
    "reasoning_effort": "reasoning_effort",
    "thinking_budget": "reasoning_tokens",
    "extra_body": "extra_body",
}
PROVENANCE = ["requested_model", *SETTINGS, "prompt_version", "prompt_sha256", "prompt_text_sha256"]
LOG_COLUMNS = [
    "board_id",
    "condition",
    "trial",
    "response",
    "finish_reason",
    "status",
    "attempt",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "latency_s",
    "returned_model",
    "error",
    *PROVENANCE,
]
# the task's own metadata keys for the prompt
PROMPT_KEYS = {"prompt_version": "fastspe_prompt_version", "prompt_sha256": "fastspe_prompt_sha256"}
DOMAIN_KEY = "fastspe_domain"  # a sample's metadata: its bank row's domain
# the task's metadata of a protocol that is not the paper's, and the columns its answers gain (run logs' names)
PROTOCOL_KEYS = {"protocol": "fastspe_protocol", "max_turns": "fastspe_max_turns"}
CONVERSATION_COLUMNS = ["protocol", "max_turns", "turns", "tool_call_count", "end_reason"]
STRATUM_KEY = "fastspe_stratum"  # a sample's metadata: its second stratum as "k=2", for the grouped means
DEFAULT_BANK = "default"  # the domain's demo bank (the paper's, for the sliding puzzle; "paper" too)
COMPLETE_STATUS = "success"  # inspect's other eval statuses: "started" (unfinished), "error", "cancelled"
_INCOMPLETE = {
    "started": "it never finished: still running, or killed",
    "error": "the run failed",
    "cancelled": "the run was cancelled",
}


def load_bank(bank: str | Path | pd.DataFrame | Bank = DEFAULT_BANK, domain: str | None = None) -> Bank:
    """``"default"`` (or ``"paper"``) builds the domain's demo bank (the paper's, for the sliding puzzle); a path reads
    a bank file; a ``Bank`` or DataFrame is checked as it is. ``domain``: a built bank's (default: the default
    domain), and what a bank file or frame must be."""
    if isinstance(bank, (pd.DataFrame, Bank)):
        return as_bank(bank, domain)
    if str(bank) in (DEFAULT_BANK, "paper"):
        chosen = domain_named(domain or DEFAULT_DOMAIN)
        return as_bank(chosen.demo_bank(), chosen, "the demo bank")
    return read_bank_file(bank, domain)  # a file of another domain is refused there


def _plain(value):
    """A bank cell as JSON-able metadata: arrays and lists as lists of ints, NumPy scalars as Python ones."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return value.item() if hasattr(value, "item") else value


def bank_samples(bank, spec: PromptSpec = PAPER_SPEC) -> list[Sample]:
    """One inspect ``Sample`` per bank row: the opening ``fastspe run`` sends under ``spec`` (the domain's prompt, by
    default), the certificate as target, the row as metadata (with the domain and the second stratum, for scoring
    and the grouped means, and the variant's fields)."""
    bank = as_bank(bank)
    domain, frame = bank.domain, bank.frame
    refuse_evaluated_shots(spec, bank)
    prompts = user_texts(spec, domain, frame)
    samples = []
    for row, prompt in zip(frame[list(domain.bank_columns)].to_dict("records"), prompts):
        meta = {k: _plain(v) for k, v in row.items()}
        meta[DOMAIN_KEY] = domain.name
        meta[STRATUM_KEY] = f"{domain.stratum}={meta[domain.stratum]}"
        meta.update(sample_metadata(spec, prompt))
        samples.append(
            Sample(
                id=str(meta["board_id"]),
                input=chat_input(spec, prompt),
                target=str(meta[domain.certificate_column]),
                metadata=meta,
            )
        )
    return samples


def verdict_of(metadata: dict, response: str, finish_reason: str = "stop", parse: str = "lenient") -> dict:
    """fastspe's verdict (one row of ``score_responses``) for one answer to the bank row in ``metadata``."""
    domain = domain_named(metadata.get(DOMAIN_KEY, DEFAULT_DOMAIN))
    columns = list(domain.bank_columns)
    board = pd.DataFrame([{k: metadata[k] for k in columns}], columns=columns)
    answer = pd.DataFrame(
        [
            {
                "board_id": metadata["board_id"],
                "condition": "inspect",
                "trial": 0,
                "response": response,
                "finish_reason": finish_reason,
            }
        ]
    )
    with warnings.catch_warnings():  # the answer is to the sample's own input, rendered from this very bank row
        warnings.simplefilter("ignore", UnhashedAnswers)
        return score_responses(as_bank(board, domain), answer, parse=parse).iloc[0].to_dict()


@metric
def mean_by_depth() -> Metric:
    """The mean per certified depth d* (``d*=N``). (A metric of its own: two ``grouped`` metrics of one score
    would share inspect's name for them, and the second would replace the first.)"""
    return grouped(mean(), "depth", all=False, name_template="d*={group_name}")


@metric
def mean_by_stratum() -> Metric:
    """The mean per value of the domain's second stratum (``k=N``: the number of blocked cells; ``boxes=N``)."""
    return grouped(mean(), STRATUM_KEY, all=False, name_template="{group_name}")


@scorer(metrics={key: [mean(), stderr(), mean_by_depth(), mean_by_stratum()] for key in SCORE_KEYS})
def plan_verifier(parse: str = "lenient"):
    """Score an answer by replaying it: C, R, O and SPE per sample, the full verdict as metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        output = state.output
        finish = output.stop_reason if output.choices else "unknown"
        v = verdict_of(state.metadata, final_answer(output), finish, parse)
        complete = v["status"] == "complete"
        value = {
            "C": float(complete),
            "R": float(v["status"] != "illegal"),
            "O": float(bool(v["optimal"])),
            "SPE": float(v["economy"]) if complete else 0.0,
        }
        meta = {k: (val.item() if hasattr(val, "item") else val) for k, val in v.items()}
        meta = {k: (None if isinstance(val, float) and val != val else val) for k, val in meta.items()}
        return Score(
            value=value, answer=v["moves"], explanation=f"{v['status']} (L={v['L']}, d*={v['depth']})", metadata=meta
        )

    return score


@task
def planning(
    domain: str | None = None,
    bank: str = DEFAULT_BANK,
    trials: int = 3,
    parse: str = "lenient",
    protocol: str = ONESHOT,
    max_turns: int = DEFAULT_MAX_TURNS,
    prompt: str = "paper",
    system: str | None = None,
    shots: int = 0,
    shots_bank: str | None = None,
    shots_seed: int = 0,
) -> Task:
    """The paper's protocol over ``bank`` (``"default"``: the domain's demo bank, or a bank file, which must then be
    of ``domain`` when it is given): one fresh context per trial, no tools; ``protocol="tools"``: the ``apply_moves``
    tool offered, up to ``max_turns`` requests per trial. ``prompt`` (``paper``, ``cot`` or a template file),
    ``system`` (a text or a file), ``shots``, ``shots_bank`` and ``shots_seed``: what ``fastspe run``'s options of
    those names ask, the same messages (``fastspe.inspect_tools``)."""
    protocol, max_turns = check_protocol(protocol, max_turns)
    spec = given_prompt_spec(prompt, system, shots, shots_bank, shots_seed)  # (as run: before the bank is read)
    rows = load_bank(bank, domain)
    chosen = rows.domain
    if protocol == TOOLS:
        check_plays_out(chosen)
    samples = bank_samples(rows, spec)
    metadata = {
        PROMPT_KEYS["prompt_version"]: chosen.prompt_version,
        PROMPT_KEYS["prompt_sha256"]: chosen.prompt_sha256,
        DOMAIN_KEY: chosen.name,
        **spec_metadata(spec),
    }
    if protocol == TOOLS:  # (the paper's protocol records none: its logs import as before)
        metadata.update({PROTOCOL_KEYS["protocol"]: protocol, PROTOCOL_KEYS["max_turns"]: max_turns})
    return Task(
        dataset=MemoryDataset(samples, name=f"fastspe:{Path(str(bank)).stem}"),
        solver=tool_conversation(max_turns, DOMAIN_KEY) if protocol == TOOLS else generate(),
        scorer=plan_verifier(parse=parse),
        epochs=int(trials),
        metadata=metadata,
    )


def _domain_task(domain_name: str, task_name: str):
    """``planning`` with ``domain_name``, registered under the domain's task name."""

    def domain_task(
        bank: str = DEFAULT_BANK,
        trials: int = 3,
        parse: str = "lenient",
        protocol: str = ONESHOT,
        max_turns: int = DEFAULT_MAX_TURNS,
        prompt: str = "paper",
        system: str | None = None,
        shots: int = 0,
        shots_bank: str | None = None,
        shots_seed: int = 0,
    ) -> Task:
        return planning(
            domain=domain_name,
            bank=bank,
            trials=trials,
            parse=parse,
            protocol=protocol,
            max_turns=max_turns,
            prompt=prompt,
            system=system,
            shots=shots,
            shots_bank=shots_bank,
            shots_seed=shots_seed,
        )

    domain_task.__name__ = domain_task.__qualname__ = task_name
    domain_task.__doc__ = f"``planning`` over a bank of the {domain_name} domain (default: its demo bank)."
    return task(name=task_name)(domain_task)


def _register_domain_tasks() -> None:
    for name in domain_names():
        try:
            chosen = domain_named(name)
        except UserError:
            continue  # a domain that cannot be loaded has no task; `fastspe domains` says why
        task_name = chosen.inspect_task or f"{name}_planning"
        if task_name.isidentifier() and task_name not in globals():
            globals()[task_name] = _domain_task(name, task_name)


_register_domain_tasks()


def responses_from_log(
    log: str | Path | EvalLog, condition: str | None = None, keep_errors: bool = False, allow_incomplete: bool = False
) -> pd.DataFrame:
    """fastspe responses (``LOG_COLUMNS``) from an inspect eval log of ``planning`` (or a domain's own task).

    Parameters
    ----------
    log : path of an ``.eval``/``.json`` log, or an ``EvalLog``
    condition : the responses' condition; default the log's model with its provider separated by
        ``:`` as ``fastspe run`` names it (``openai/gpt-4o`` -> ``openai:gpt-4o``), with the suffixes ``fastspe run``
        gives a prompt variant and a protocol (``openai:gpt-4o+cot+tools``)
    keep_errors : keep samples that errored as failed attempts (``status="error"``, ``response``
        null, the message in ``error``), which fastspe's readers skip and count as lost outputs;
        by default they are left out, with a warning that counts them
    allow_incomplete : import a log whose eval did not succeed (status "error", "cancelled" or
        "started"), with a warning; by default such a log is a ValueError

    Returns
    -------
    DataFrame, one row per (sample, epoch); ``trial`` is the epoch less one (0-based, as fastspe's). A log of a
    prompt variant adds its log fields (``PromptSpec.record_fields``: ``prompt_variant``, ``prompt_spec_sha256``,
    ...), a log of ``protocol=tools`` ``CONVERSATION_COLUMNS``; an answer whose turns ran out (its last output a
    tool call) is "" (a format failure).
    A log without samples, or with errored samples only (unless ``keep_errors``), is a ValueError.
    """
    return _responses(log, condition, keep_errors, allow_incomplete)[0]


def _responses(
    log, condition, keep_errors: bool, allow_incomplete: bool, stacklevel: int = 3
) -> tuple[pd.DataFrame, PromptSpec | None, list[str]]:
    """``responses_from_log``, the log's prompt spec (None: the paper prompt alone) and its samples' user messages;
    ``stacklevel`` points warnings at the public function's caller."""
    ev, name = _read_log(log)
    _check_status(ev, name, allow_incomplete, stacklevel + 1)
    if not ev.samples:
        raise UserError(
            f"{name}: the log holds no samples, nothing to import (a log read with header_only, or "
            "from a run with log_samples=False, has none)"
        )
    protocol = _protocol(ev)
    spec = spec_of_log(ev.eval.metadata, name)
    # named as `fastspe run` names it: the prompt's suffix, then the protocol's (its limit is no part of the name)
    cond = condition or default_condition(ev.eval.model, spec, protocol and protocol_spec(protocol["protocol"]))
    provenance = {**_provenance(ev), **(spec.record_fields() if spec is not None else {})}
    records, texts = [], []
    for s in ev.samples:
        check_sample_spec(spec, s.metadata, str(s.id), name)
        texts.append(_prompt_text(s.input))
        out = s.output
        usage = out.usage
        conversation = {}
        if protocol is not None:
            conversation = {**protocol, **({} if s.error else conversation_fields(s.messages))}
            # one line stands for every turn here (a run log has a line per turn): the conversation's tokens
            usage = _total_usage(s.model_usage.values()) or usage
        records.append(
            {
                "board_id": str(s.metadata.get("board_id", s.id)),
                "condition": cond,
                "trial": int(s.epoch) - 1,
                # an errored sample is a failed attempt as `fastspe run` logs one: no answer, the message in `error`
                "response": None if s.error else final_answer(out),
                "finish_reason": out.stop_reason if out.choices else "unknown",
                "status": "error" if s.error else "ok",
                "attempt": 1,
                "input_tokens": usage.input_tokens if usage else None,
                "output_tokens": usage.output_tokens if usage else None,
                "reasoning_tokens": usage.reasoning_tokens if usage else None,
                "latency_s": s.total_time,
                "returned_model": out.model,
                "error": s.error.message if s.error else None,
                **provenance,
                "prompt_text_sha256": prompt_hash(texts[-1]),
                **conversation,
            }
        )
    columns = (
        LOG_COLUMNS
        + ([] if spec is None else list(spec.record_fields()))
        + ([] if protocol is None else CONVERSATION_COLUMNS)
    )
    df = pd.DataFrame.from_records(records, columns=columns)
    # counts stay whole numbers where an errored sample has none (not 12.0 beside a NaN)
    tokens = [
        c
        for c in (
            "input_tokens",
            "output_tokens",
            "reasoning_tokens",
            "max_turns",
            "turns",
            "tool_call_count",
            "prompt_shots",
        )
        if c in columns
    ]
    df[tokens] = df[tokens].astype("Int64")
    errored = df["status"] != "ok"
    if errored.any() and not keep_errors:
        first = _one_line(df.loc[errored, "error"].iloc[0])
        keep = "keep_errors=True (fastspe import-inspect --keep-errors) keeps them as failed attempts"
        if errored.all():
            raise UserError(f"{name}: all {len(df)} samples errored (first error: {first}); nothing to import; {keep}")
        warnings.warn(
            f"{name}: {int(errored.sum())} of {len(df)} samples errored and were left out (first error: "
            f"{first}); {keep}",
            stacklevel=stacklevel,
        )
        df = df[~errored].reset_index(drop=True)
    return df, spec, texts


def _provenance(ev: EvalLog) -> dict:
    """The fields every answer of ``ev`` shares: the model asked for, the eval's generation settings (the model's
    config under the eval's own, as inspect applies them; null where unset, lists and objects as JSON text as in
    a verdicts file) and the prompt's version and template hash from the task's metadata."""
    config = ev.eval.model_generate_config.merge(ev.plan.config)
    settings = {name: getattr(config, field, None) for name, field in SETTINGS.items()}
    for name in ("stop", "extra_body"):
        settings[name] = (
            json.dumps(settings[name], separators=(",", ":"), ensure_ascii=False) if settings[name] else None
        )
    meta = ev.eval.metadata or {}
    return {"requested_model": ev.eval.model, **settings, **{k: meta.get(v) for k, v in PROMPT_KEYS.items()}}


def _total_usage(usages) -> ModelUsage | None:
    """The sum of a sample's usage per model (None when it has none)."""
    total = None
    for usage in usages:
        total = usage if total is None else total + usage
    return total


def _protocol(ev: EvalLog) -> dict | None:
    """The protocol of a log's task and its limit (``protocol``, ``max_turns``), None for the paper's protocol."""
    meta = ev.eval.metadata or {}
    if meta.get(PROTOCOL_KEYS["protocol"], ONESHOT) == ONESHOT:
        return None
    return {name: meta.get(key) for name, key in PROTOCOL_KEYS.items()}


def _prompt_text(prompt) -> str:
    """The text of a sample's input: the prompt itself, or its last message's text (a chat given as input)."""
    return prompt if isinstance(prompt, str) else prompt[-1].text


def import_log(
    log: str | Path | EvalLog,
    out: str | Path,
    condition: str | None = None,
    keep_errors: bool = False,
    allow_incomplete: bool = False,
) -> pd.DataFrame:
    """``responses_from_log(log, ...)`` written atomically to ``out`` (.jsonl, .csv or .parquet).

    The answers of a prompt variant get the prompts sidecar a run log gets (``OUT.prompts.jsonl``: the spec and
    every user message asked), written first: ``fastspe score`` checks them against it as it checks a run's, and
    ``show --prompt`` shows what was asked. A refused log (see ``responses_from_log``) raises before anything is
    written."""
    table_format(out)  # a bad output name fails before a large log is read
    responses, spec, texts = _responses(log, condition, keep_errors, allow_incomplete)
    if spec is not None:  # (before the answers: answers without their sidecar would be refused as mismatches)
        keep_prompts(out, spec, texts)
    write_table(responses, out)
    return responses


def log_prompt_specs(log: str | Path | EvalLog) -> list[PromptSpec]:
    """The prompt variants a log's answers were asked with (none for the paper prompt alone), read from its header:
    what ``fastspe score --responses LOG.eval`` checks them against."""
    if isinstance(log, EvalLog):
        ev, name = log, str(log.location or "the eval log")
    else:
        ev, name = _read_log(log, header_only=True)
    spec = spec_of_log(ev.eval.metadata, name)
    return [] if spec is None else [spec]


def _read_log(log: str | Path | EvalLog, header_only: bool = False) -> tuple[EvalLog, str]:
    """The log and the name its messages give it; an unreadable file is a one-line ValueError."""
    if isinstance(log, EvalLog):
        return log, str(log.location or "the eval log")
    try:
        return read_eval_log(str(log), header_only=header_only), str(log)
    except FileNotFoundError:
        raise UserError(f"{log}: no such file") from None
    except KeyError as exc:  # inspect looks members up by name: a zip without them (emptied, cut short)
        raise UserError(
            f"{log}: a damaged inspect eval log: it has no member {exc.args[0]} (a truncated or unfinished .eval?)"
        ) from None
    except (ZstdError, zipfile.BadZipFile, EOFError, NotImplementedError) as exc:
        raise UserError(
            f"{log}: a damaged inspect eval log: a member cannot be decompressed "
            f"({type(exc).__name__}: {_one_line(exc)})"
        ) from None
    except ValueError as exc:  # not a zip, not JSON, not an EvalLog (pydantic's errors run to many lines)
        raise UserError(f"{log}: not an inspect eval log ({_one_line(exc)})") from None
    except OSError as exc:  # a folder, unreadable: what the system says, without its traceback
        raise UserError(f"{log}: cannot read the log ({exc.strerror or _one_line(exc)})") from None


def _check_status(ev: EvalLog, name: str, allow_incomplete: bool, stacklevel: int) -> None:
    """Refuse (or, with ``allow_incomplete``, warn about) a log whose eval did not succeed: its samples are
    whatever the run reached, and scoring them as the whole run would mislead."""
    if ev.status == COMPLETE_STATUS:
        return
    why = _INCOMPLETE.get(ev.status, "not a finished run")
    if ev.error is not None:
        why += f": {_one_line(ev.error.message)}"
    if not allow_incomplete:
        raise UserError(
            f"{name}: the eval's status is {ev.status!r} ({why}), so its samples are an incomplete "
            "run; allow_incomplete=True (fastspe import-inspect --allow-incomplete) imports them anyway"
        )
    warnings.warn(
        f"{name}: importing an incomplete eval (status {ev.status!r}: {why}); boards and epochs the run "
        "did not reach are missing",
        stacklevel=stacklevel,
    )


def _one_line(message, limit: int = 160) -> str:
    """The first line of an error message, cut short: tracebacks and pydantic reports run long."""
    text = str(message).strip().splitlines()[0] if str(message).strip() else "no message"
    return text if len(text) <= limit else text[: limit - 3] + "..."
