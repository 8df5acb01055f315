"""Answer a bank with a model: one fresh request per trial, resumable, retried, budgeted.

Every attempt, failed or not, becomes one line of the append-only run log. A trial is
(condition, board_id, trial index), as the scorer counts outputs; running the same command again
skips every trial that already has a completed (``status == "ok"``) line, so nothing is lost and
nothing is paid for twice. The base URL is not part of it (``localhost`` and ``127.0.0.1`` are one
server). A condition keeps one set of generation settings and one prompt per board: a run whose
settings differ from those the log holds for its condition is refused before anything is sent,
and ``condition=`` (``--condition``) names a new one. ``trial_id`` stays in each record as
provenance only.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..boundary.banks import as_bank
from ..domains.contract import Domain, prompt_hash
from ..prompting import PAPER_SPEC, PromptSpec, keep_prompts, refuse_evaluated_shots, user_texts, warn_one_text
from .anthropic_runner import AnthropicMessages
from .base import resolve_base_url
from .generation import GenerationSettings, default_condition, split_model
from .cost import Budget, Pricing, input_tokens_estimate, input_tokens_upper
from .log import OK, LogScan, RunLog, check_log_path, scan_run_log
from ..protocols.conversation import Protocol
from ..protocols.spec import ONESHOT_SPEC, ProtocolSpec
from .openai_runner import OpenAIChat
from .pacing import Pacer
from .records import Progress, RunSummary, Trial, timestamp_now, trial_fields, trial_id
from .retry import AdaptiveLimiter, RetryPolicy
from .sender import Sender

PROVIDERS = {"openai": OpenAIChat, "anthropic": AnthropicMessages}
BASELINE = "baseline"
BASELINE_BATCH = 2000  # baseline answers planned and written per fsync: free to recompute, a crash may lose one


@dataclass(frozen=True)
class RunEstimate:
    """A dry run: requests still to send and their cost (None when no prices were given)."""

    condition: str
    planned: int
    already_complete: int
    requests: int
    input_tokens_estimate: int
    input_tokens_upper: int
    output_tokens_upper: int | None
    cost_estimate_usd: float | None
    cost_upper_usd: float | None
    settings: GenerationSettings | None = None  # as they would be sent


def check_trials(trials: int) -> None:
    """A ``ParameterError`` unless ``trials`` (trials per board) is at least 1."""
    if trials < 1:
        raise ParameterError("{trials} must be >= 1, got {got}", "trials", got=trials)


@dataclass(frozen=True)
class BoardPrompts:
    """The bank's boards in order: ids, the user messages ``spec`` renders for them and their hashes, and the domain
    that rendered them."""

    board_ids: list
    prompts: list
    hashes: list
    domain: Domain
    spec: PromptSpec = PAPER_SPEC

    @classmethod
    def of(cls, bank, spec: PromptSpec = PAPER_SPEC) -> "BoardPrompts":
        bank = as_bank(bank)
        refuse_evaluated_shots(spec, bank)
        prompts = user_texts(spec, bank.domain, bank.frame)
        warn_one_text(spec, bank.domain, prompts)
        ids = [str(b) for b in bank.frame["board_id"]]
        return cls(ids, prompts, [prompt_hash(p) for p in prompts], bank.domain, spec)

    @property
    def rows(self) -> dict:
        return {b: i for i, b in enumerate(self.board_ids)}

    def trial(self, condition: str, row: int, t: int) -> Trial:
        text = self.prompts[row]
        return Trial(
            trial_id(condition, self.board_ids[row], self.hashes[row], t),
            self.board_ids[row],
            int(t),
            text,
            int(row),
            self.domain.prompt_version,
            self.domain.prompt_sha256,
            self.spec.opening(text),
            self.spec.record_fields(),
        )

    def keep_texts(self, out, trials) -> None:
        """Keep the spec and the user messages of ``trials`` in the prompts sidecar of the log ``out`` (under the
        log's lock: two runs never append to it at once)."""
        rows = sorted({t.row for t in trials})
        keep_prompts(out, self.spec, (self.prompts[r] for r in rows))


def plan_trials(bank: pd.DataFrame, condition: str, trials: int, prompt: PromptSpec = PAPER_SPEC) -> list[Trial]:
    """Trials 0..trials-1 of every board of ``bank``, in bank order, asked as ``prompt`` says."""
    check_trials(trials)
    boards = BoardPrompts.of(bank, prompt)
    return [boards.trial(condition, row, t) for row in range(len(boards.board_ids)) for t in range(trials)]


def scan_pending(
    out, condition: str, boards: BoardPrompts, trials: int, settings: dict, keep_turns: bool = False
) -> tuple[LogScan, list[Trial]]:
    """The log's state for ``condition`` and the planned trials it has no completed answer for (``keep_turns``: and
    the answered turns of their conversations)."""
    check_trials(trials)
    scan = scan_run_log(out, condition, boards.rows, trials, settings, boards.hashes, keep_turns)
    pending = [boards.trial(condition, int(row), int(t)) for row, t in np.argwhere(~scan.done)]
    return scan, pending


def _settings_for(provider_name: str, settings: GenerationSettings) -> GenerationSettings:
    return PROVIDERS[provider_name].effective_settings(settings)


def settings_for(model: str, settings: GenerationSettings) -> GenerationSettings:
    """``settings`` as ``model``'s provider sends them; a ValueError for those it refuses (checked before any
    request or log is touched)."""
    return _settings_for(_provider_parts(model, None)[0], settings)


def _provider_parts(model: str, base_url: str | None):
    provider_name, name = split_model(model)
    if provider_name not in PROVIDERS:
        raise ParameterError(
            "{model} {given!r}: unknown provider {provider!r}; use one of {choices}",
            "model",
            given=model,
            provider=provider_name,
            choices=", ".join([*PROVIDERS, BASELINE]),
        )
    return provider_name, name, resolve_base_url(provider_name, base_url)


def _identity_settings(provider_name: str, name: str, settings: dict, prompt: PromptSpec | None = None) -> dict:
    """The record fields that one condition keeps equal across its attempts (the prompt's too, for a model)."""
    return {
        "provider": provider_name,
        "requested_model": name,
        **settings,
        **(prompt.identity_fields() if prompt is not None else {}),
    }


@dataclass(frozen=True)
class RunRequest:
    """What a model run asks for (online, batch or dry): ``run_model``'s parameters of the same names."""

    model: str
    out: object
    base_url: str | None = None
    trials: int = 3
    settings: GenerationSettings = GenerationSettings()
    pricing: Pricing = Pricing()
    budget: float | None = None
    condition: str | None = None
    protocol: ProtocolSpec = ONESHOT_SPEC
    prompt: PromptSpec = PAPER_SPEC  # what each trial asks (``fastspe.prompting.prompt_spec``)


def estimate_run(
    bank: pd.DataFrame,
    model: str,
    out,
    *,
    base_url: str | None = None,
    trials: int = 3,
    settings: GenerationSettings = GenerationSettings(),
    pricing: Pricing = Pricing(),
    condition: str | None = None,
    protocol: ProtocolSpec = ONESHOT_SPEC,
    prompt: PromptSpec = PAPER_SPEC,
) -> RunEstimate:
    """What ``run_model`` would send now (after resume) and what it may cost; needs no key. Under a multi-turn
    protocol the counts are of each conversation's first request (its length is the model's choice)."""
    job = plan_run(bank, RunRequest(model, out, base_url, trials, settings, pricing, None, condition, protocol, prompt))
    condition, settings, pending, n_planned = job.condition, job.settings, job.pending, job.planned
    tok_est = sum(input_tokens_estimate(t.opening_text) for t in pending)
    tok_up = sum(input_tokens_upper(t.opening_text) for t in pending)
    out_up = settings.max_tokens * len(pending) if settings.max_tokens is not None else None
    cost_est = cost_up = None
    if pricing.priced:
        cost_est = pricing.cost(tok_est, 0)  # output length is unknown before the run
        cost_up = pricing.cost(tok_up, out_up) if out_up is not None else None
    return RunEstimate(
        condition,
        n_planned,
        n_planned - len(pending),
        len(pending),
        tok_est,
        tok_up,
        out_up,
        cost_est,
        cost_up,
        settings,
    )


@dataclass(frozen=True)
class RunPlan:
    """What a model run (online or batch) settles before it reads a key: the provider, the condition and its
    settings (refused when the log holds others), the bank's prompts and the trials still to answer."""

    request: RunRequest
    provider_name: str
    name: str
    condition: str
    settings: GenerationSettings
    boards: BoardPrompts
    identity: dict
    scan: LogScan
    pending: list
    protocol: Protocol | None = None  # a multi-turn protocol bound to the bank

    @property
    def planned(self) -> int:
        return len(self.boards.board_ids) * self.scan.done.shape[1]

    def rescan(self) -> tuple[LogScan, list[Trial]]:
        """The log's state and pending trials now (under the log's lock: another run may have answered some)."""
        return scan_pending(
            self.request.out, self.condition, self.boards, self.request.trials, self.identity, self.protocol is not None
        )

    def resumed_conversations(self, scan: LogScan) -> dict:
        """(bank row, trial) -> the conversation of each unfinished trial with answered turns in the log, rebuilt
        from them (a UserError, before anything is sent, when the log does not continue it)."""
        out = {}
        for (row, t), turns in scan.turns.items():
            conv = self.protocol.start(self.boards.trial(self.condition, row, t).opening, row)
            for lineno, rec in turns:
                self.protocol.resumed(conv, rec, f"{self.request.out}: line {lineno}")
            out[row, t] = conv
        return out

    def summary(self, kind=RunSummary) -> RunSummary:
        """A summary of the run as planned, before anything is sent."""
        return kind(
            self.condition,
            str(self.request.out),
            planned=self.planned,
            already_complete=self.planned - len(self.pending),
            skipped_log_lines=self.scan.torn_lines,
            settings=self.settings,
        )


def plan_run(bank: pd.DataFrame, request: RunRequest) -> RunPlan:
    """Check a run's request and scan its log (see ``RunPlan``)."""
    r = request
    provider_name, name, _ = _provider_parts(r.model, r.base_url)
    condition = default_condition(r.model, r.prompt, r.protocol) if r.condition is None else r.condition
    check_log_path(r.out)
    settings = _settings_for(provider_name, r.settings)
    if r.protocol.multi_turn and provider_name == "anthropic" and settings.thinking_budget is not None:
        # a tool-use turn after extended thinking must send the thinking blocks back, which fastspe does not keep
        raise ParameterError(
            "{thinking_budget} with {protocol} {name} is not supported for anthropic: models; run "
            "the protocol without extended thinking",
            ("thinking_budget", "protocol"),
            name=r.protocol.name,
        )
    if r.budget is not None and r.pricing.price_out > 0 and settings.max_tokens is None:
        raise ParameterError(
            "{budget} needs {max_tokens}, so that the cost of a request has an upper bound", ("budget", "max_tokens")
        )
    bank = as_bank(bank)
    boards = BoardPrompts.of(bank, r.prompt)
    protocol = None
    if r.protocol.multi_turn:  # refused here for a domain that cannot play moves out
        frame = bank.frame
        protocol = Protocol(r.protocol, bank.domain, lambda row: frame.iloc[row].to_dict())
    identity = {
        **_identity_settings(provider_name, name, settings.as_dict(), r.prompt),
        **r.protocol.scanned_identity(),
    }
    # refuses other settings before any key is read
    scan, pending = scan_pending(r.out, condition, boards, r.trials, identity, protocol is not None)
    plan = RunPlan(r, provider_name, name, condition, settings, boards, identity, scan, pending, protocol)
    if protocol is not None:
        plan.resumed_conversations(scan)  # a log that cannot be continued is refused before any key is read
    return plan


def run_model(
    bank: pd.DataFrame,
    model: str,
    out,
    *,
    base_url: str | None = None,
    trials: int = 3,
    max_connections: int = 4,
    timeout: float = 120.0,
    policy: RetryPolicy = RetryPolicy(),
    settings: GenerationSettings = GenerationSettings(),
    pricing: Pricing = Pricing(),
    budget: float | None = None,
    seed: int = 0,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    notify: Callable[[str], None] | None = None,
    condition: str | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    protocol: ProtocolSpec = ONESHOT_SPEC,
    prompt: PromptSpec = PAPER_SPEC,
) -> RunSummary:
    """Answer every trial of ``bank`` with ``model`` (``openai:NAME`` or ``anthropic:NAME``), appending to ``out``.

    What is asked (``model``, ``out``, ``base_url``, ``trials``, ``settings``, ``pricing``, ``budget``,
    ``condition``, ``prompt``) makes a ``RunRequest``; how it is sent (``max_connections``, ``timeout``, ``policy``,
    ``seed``, ``rpm``, ``tpm``) makes the ``Sender``; ``progress``, ``stop`` and ``notify`` are the caller's hooks.

    Parameters
    ----------
    bank : Bank or DataFrame
        The bank (``fastspe.boundary.banks.read_bank``; a bank DataFrame is checked first): each board's prompt is
        its domain's (``Domain.render_prompt``).
    model : str
        ``PROVIDER:MODEL`` (or ``PROVIDER/MODEL``).
    out : path-like
        The JSONL run log; appended to, never rewritten; completed trials in it are skipped.
    base_url : str or None
        An OpenAI-compatible or Anthropic-compatible server.
    trials, max_connections, timeout : int, int, float
        Trials per board; requests in flight at most; seconds per attempt (connect, send and the whole answer).
    policy : RetryPolicy
        Retry bounds and backoff.
    settings : GenerationSettings
        Sampling and reasoning settings sent with each request (None fields are not sent); a
        ValueError before anything is sent for those the provider refuses.
    pricing, budget : Pricing, float or None
        Prices per million tokens; the most the log's attempts of this condition may cost in all.
    seed : int
        Seeds the backoff jitter (the sampling seed sent to the server is ``settings.seed``).
    progress : callable(done, total, **counts) or None
        Called at once with the total, then about every 0.2 s: trials finished of those to send, with
        live counts ``answered``, ``failed``, ``retried`` (retry attempts), ``rate_limited`` (429s)
        and ``spent_usd`` (the condition's spend in the log, this run included).
    stop : threading.Event or None
        Set it to stop sending (Ctrl-C sets it too); requests in flight finish and are logged.
    notify : callable(str) or None
        Told when Ctrl-C is waiting for requests in flight.
    condition : str or None
        The responses' condition (default: ``model`` as ``PROVIDER:MODEL``). The log's earlier attempts of it must have
        been made with the same model and settings, else a ValueError says which setting differs.
    rpm, tpm : float or None
        At most this many requests, tokens a minute (for servers that send no rate-limit headers).
    protocol : ProtocolSpec
        How a trial's conversation goes (``fastspe.protocols.protocol_spec``): one answer (the default), the
        ``apply_moves`` tool or the verifier's feedback; a multi-turn protocol logs each turn and suffixes the
        default condition name (``+tools``).
    prompt : PromptSpec
        What each trial asks (``fastspe.prompting.prompt_spec``: a variant, a system prompt, worked examples); part
        of the condition's identity, its texts kept in the log's prompts sidecar (``NAME.prompts.jsonl``).
    """
    if not 0 < timeout < math.inf:
        raise ParameterError("{timeout} must be a finite number of seconds > 0, got {got}", "timeout", got=timeout)
    job = plan_run(
        bank, RunRequest(model, out, base_url, trials, settings, pricing, budget, condition, protocol, prompt)
    )
    summary = job.summary()
    if not job.pending:
        return summary
    provider = PROVIDERS[job.provider_name](
        job.name, base_url=base_url, timeout=timeout, max_connections=max_connections
    )
    with RunLog(out, secrets=provider.secrets) as log:
        scan, pending = job.rescan()  # under the log's lock: another run may have finished trials meanwhile
        job.boards.keep_texts(out, pending)  # what is asked is on disk before it is sent
        summary.already_complete = job.planned - len(pending)
        summary.skipped_log_lines = scan.torn_lines
        sender = Sender(
            job.condition,
            provider,
            log,
            job.settings,
            pricing,
            policy,
            Budget(budget, scan.spent_usd),
            AdaptiveLimiter(max_connections),
            Pacer(rpm, tpm),
            scan.attempts,
            seed,
            stop or threading.Event(),
            protocol=job.protocol,
            resumed=job.resumed_conversations(scan) if job.protocol is not None else {},
        )
        try:
            sender.send_all(summary, pending, progress, notify or (lambda message: None))
        finally:
            provider.close()
    return summary


def run_baseline(
    bank: pd.DataFrame,
    planner: str,
    out,
    *,
    trials: int = 3,
    seed: int = 0,
    progress: Progress | None = None,
    condition: str | None = None,
) -> RunSummary:
    """Answer ``bank`` with an offline baseline planner, appending its rows to the run log ``out``.

    Rows come from the bank's domain (``Domain.baseline_responses(frame, planner, trials, seed)``); each is
    logged as one completed attempt in the same format as model answers, under ``condition``
    (default ``baseline:PLANNER``), and trials already in the log are skipped.
    """
    bank = as_bank(bank)

    condition = f"{BASELINE}:{planner}" if condition is None else condition
    check_log_path(out)
    settings = {"seed": int(seed)}
    identity = _identity_settings(BASELINE, planner, settings)
    boards = BoardPrompts.of(bank)
    check_trials(trials)
    # refuse other settings before the log is opened (no trial list yet: that is built once, under the lock)
    scan_run_log(out, condition, boards.rows, trials, identity, boards.hashes)
    summary = RunSummary(condition, str(out), planned=len(boards.board_ids) * trials)
    with RunLog(out) as log:
        # Scan under the log's lock, as run_model does: another run may have written these trials.
        scan, pending = scan_pending(out, condition, boards, trials, identity)
        summary.skipped_log_lines = scan.torn_lines
        summary.already_complete = summary.planned - len(pending)
        if not pending:
            return summary
        todo = {(t.board_id, t.trial): t for t in pending}
        rows = sorted({t.row for t in pending})  # boards with a trial to answer, in bank order
        per_slice = max(1, BASELINE_BATCH // trials)
        for start in range(0, len(rows), per_slice):
            # planned a slice at a time (each board's RNG stream is its own: same answers as one pass),
            # so the first batch is on disk at once and memory stays flat
            answers = bank.domain.baseline_responses(
                bank.frame.iloc[rows[start : start + per_slice]], planner, trials, seed
            )
            batch = []
            for row in answers.to_dict("records"):
                trial = todo.get((str(row["board_id"]), int(row["trial"])))
                if trial is None:
                    continue
                rec = trial_fields(trial, condition, BASELINE, planner, None, settings)
                rec.update({k: v for k, v in row.items() if k not in rec})
                rec.update(
                    status=OK,
                    attempt=1,
                    response=row["response"],
                    returned_model=planner,
                    timestamp=timestamp_now(),
                    latency_s=0.0,
                    cost_usd=0.0,
                )
                batch.append(rec)
            _write_baseline_batch(log, batch, summary, len(pending), progress)
    return summary


def _write_baseline_batch(
    log: RunLog, batch: list[dict], summary: RunSummary, pending: int, progress: Progress | None
) -> None:
    """Append ``batch`` with one fsync, then count it (never before it is on disk)."""
    log.append_many(batch)
    summary.completed += len(batch)
    if progress is not None:
        progress(summary.completed, pending)
