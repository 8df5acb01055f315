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

import concurrent.futures as cf
import hashlib
import json
import math
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

import numpy as np
import pandas as pd

from .. import __version__
from ..errors import UserError
from .generation import canonical_model
from ..domains.sliding.prompt import PROMPT_SHA256, PROMPT_VERSION, prompt_sha256, render_prompt
from .anthropic_runner import AnthropicMessages
from .base import GenerationSettings, public_url, resolve_base_url, split_model
from .cost import Budget, Pricing, input_tokens_estimate, input_tokens_upper
from .log import ERROR, OK, LogScan, RunLog, check_log_path, scan_run_log
from .openai_runner import OpenAIChat
from .pacing import Pacer
from .retry import FATAL, RATE_LIMIT, AdaptiveLimiter, AttemptError, RetryCounters, RetryPolicy

PROVIDERS = {"openai": OpenAIChat, "anthropic": AnthropicMessages}
BASELINE = "baseline"
RETRIED = "retried"  # a tally beside the failure kinds: attempts that were retries
BASELINE_BATCH = 2000  # baseline answers planned and written per fsync: free to recompute, a crash may lose one
Progress = Callable[..., None]  # progress(done, total, **live_counts)


@dataclass(frozen=True)
class Trial:
    """One request to make: a board, a trial index and the prompt."""

    trial_id: str
    board_id: str
    trial: int
    prompt: str
    row: int = 0  # the board's row in the bank


@dataclass
class RunSummary:
    """What a run did. ``requested`` counts trials sent in this run, ``attempts`` their requests."""

    condition: str
    out: str
    planned: int = 0
    already_complete: int = 0
    requested: int = 0
    completed: int = 0
    failed: int = 0
    attempts: int = 0
    failures: dict = field(default_factory=dict)
    spent_usd: float = 0.0
    budget_exhausted: bool = False
    interrupted: bool = False
    skipped_log_lines: int = 0
    fatal_error: str | None = None
    paced: int = 0  # sends that waited for a rate limit to reset (headers, --rpm, --tpm)
    settings: GenerationSettings | None = None  # as sent (with provider defaults such as Anthropic's max_tokens)

    @property
    def remaining(self) -> int:
        return self.planned - self.already_complete - self.completed


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


def trial_id(condition: str, board_id: str, prompt_hash: str, trial: int) -> str:
    """Deterministic id of one trial (32 hex digits), recorded as provenance; not used to resume."""
    key = {"model": condition, "board_id": str(board_id), "prompt_sha256": prompt_hash, "trial": int(trial)}
    return hashlib.sha256(json.dumps(key, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class _BoardPrompts:
    """The bank's boards in order: ids, rendered prompts and their hashes."""

    board_ids: list
    prompts: list
    hashes: list

    @property
    def rows(self) -> dict:
        return {b: i for i, b in enumerate(self.board_ids)}

    def trial(self, condition: str, row: int, t: int) -> Trial:
        return Trial(trial_id(condition, self.board_ids[row], self.hashes[row], t), self.board_ids[row], int(t),
                     self.prompts[row], int(row))


def _board_prompts(bank: pd.DataFrame) -> _BoardPrompts:
    ids, prompts, hashes = [], [], []
    for row in bank[["board_id", "initial", "goal", "rows", "cols"]].itertuples(index=False):
        prompt = render_prompt(row.initial, row.goal, int(row.rows), int(row.cols))
        ids.append(str(row.board_id))
        prompts.append(prompt)
        hashes.append(prompt_sha256(prompt))
    return _BoardPrompts(ids, prompts, hashes)


def plan_trials(bank: pd.DataFrame, condition: str, trials: int) -> list[Trial]:
    """Trials 0..trials-1 of every board of ``bank``, in bank order."""
    if trials < 1:
        raise UserError(f"--trials must be >= 1, got {trials}")
    boards = _board_prompts(bank)
    return [boards.trial(condition, row, t) for row in range(len(boards.board_ids)) for t in range(trials)]


def _scan(out, condition: str, boards: _BoardPrompts, trials: int, settings: dict) -> tuple[LogScan, list[Trial]]:
    """The log's state for ``condition`` and the planned trials it has no completed answer for."""
    if trials < 1:
        raise UserError(f"--trials must be >= 1, got {trials}")
    scan = scan_run_log(out, condition, boards.rows, trials, settings, boards.hashes)
    pending = [boards.trial(condition, int(row), int(t)) for row, t in np.argwhere(~scan.done)]
    return scan, pending


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _record_base(trial: Trial, condition: str, provider: str, model: str, base_url: str | None,
                 settings: dict) -> dict:
    return {"board_id": trial.board_id, "condition": condition, "trial": trial.trial, "trial_id": trial.trial_id,
            "provider": provider, "requested_model": model, "base_url": public_url(base_url), **settings,
            "fastspe_version": __version__, "prompt_version": PROMPT_VERSION, "prompt_sha256": PROMPT_SHA256,
            "prompt_text_sha256": prompt_sha256(trial.prompt)}


def answer_fields(answer, cost: float | None) -> dict:
    """The fields of a completed attempt's record (online or batch)."""
    return dict(status=OK, response=answer.text, error_type=None, error=None, http_status=answer.http_status,
                returned_model=answer.returned_model, request_id=answer.request_id, finish_reason=answer.finish_reason,
                raw_finish_reason=answer.raw_finish_reason, input_tokens=answer.input_tokens,
                output_tokens=answer.output_tokens, reasoning_tokens=answer.reasoning_tokens, cost_usd=cost)


def error_fields(error: AttemptError) -> dict:
    """The fields of a failed attempt's record (online or batch)."""
    return dict(status=ERROR, response=None, error_type=error.kind, error=error.message,
                http_status=error.http_status, returned_model=None, request_id=error.request_id, finish_reason=None,
                raw_finish_reason=None, input_tokens=None, output_tokens=None, reasoning_tokens=None, cost_usd=None)


def _settings_for(provider_name: str, settings: GenerationSettings) -> GenerationSettings:
    return PROVIDERS[provider_name].effective_settings(settings)


def settings_for(model: str, settings: GenerationSettings) -> GenerationSettings:
    """``settings`` as ``model``'s provider sends them; a ValueError for those it refuses (checked before any
    request or log is touched)."""
    return _settings_for(_provider_parts(model, None)[0], settings)


def _provider_parts(model: str, base_url: str | None):
    provider_name, name = split_model(model)
    if provider_name not in PROVIDERS:
        raise UserError(f"--model {model!r}: unknown provider {provider_name!r}; use one of "
                        f"{', '.join([*PROVIDERS, BASELINE])}")
    return provider_name, name, resolve_base_url(provider_name, base_url)


def _identity_settings(provider_name: str, name: str, settings: dict) -> dict:
    """The record fields that one condition keeps equal across its attempts."""
    return {"provider": provider_name, "requested_model": name, **settings}


def estimate_run(bank: pd.DataFrame, model: str, out, *, base_url: str | None = None, trials: int = 3,
                 settings: GenerationSettings = GenerationSettings(), pricing: Pricing = Pricing(),
                 condition: str | None = None) -> RunEstimate:
    """What ``run_model`` would send now (after resume) and what it may cost; needs no key."""
    job = plan_run(bank, model, out, base_url, trials, settings, pricing, None, condition)
    condition, settings, pending, n_planned = job.condition, job.settings, job.pending, job.planned
    tok_est = sum(input_tokens_estimate(t.prompt) for t in pending)
    tok_up = sum(input_tokens_upper(t.prompt) for t in pending)
    out_up = settings.max_tokens * len(pending) if settings.max_tokens is not None else None
    cost_est = cost_up = None
    if pricing.priced:
        cost_est = pricing.cost(tok_est, 0)  # output length is unknown before the run
        cost_up = pricing.cost(tok_up, out_up) if out_up is not None else None
    return RunEstimate(condition, n_planned, n_planned - len(pending), len(pending), tok_est, tok_up, out_up,
                       cost_est, cost_up, settings)


@dataclass(frozen=True)
class RunPlan:
    """What a model run (online or batch) settles before it reads a key: the provider, the condition and its
    settings (refused when the log holds others), the bank's prompts and the trials still to answer."""

    provider_name: str
    name: str
    condition: str
    settings: GenerationSettings
    boards: _BoardPrompts
    identity: dict
    scan: LogScan
    pending: list

    @property
    def planned(self) -> int:
        return len(self.boards.board_ids) * self.scan.done.shape[1]


def plan_run(bank: pd.DataFrame, model: str, out, base_url: str | None, trials: int, settings: GenerationSettings,
             pricing: Pricing, budget: float | None, condition: str | None) -> RunPlan:
    """Check a run's request and scan its log (see ``RunPlan``)."""
    provider_name, name, _ = _provider_parts(model, base_url)
    condition = canonical_model(model) if condition is None else condition
    check_log_path(out)
    settings = _settings_for(provider_name, settings)
    if budget is not None and pricing.price_out > 0 and settings.max_tokens is None:
        raise UserError("--budget needs --max-tokens, so that the cost of a request has an upper bound")
    boards = _board_prompts(bank)
    identity = _identity_settings(provider_name, name, settings.as_dict())
    scan, pending = _scan(out, condition, boards, trials, identity)  # refuses other settings before any key is read
    return RunPlan(provider_name, name, condition, settings, boards, identity, scan, pending)


def run_model(bank: pd.DataFrame, model: str, out, *, base_url: str | None = None, trials: int = 3,
              max_connections: int = 4, timeout: float = 120.0, policy: RetryPolicy = RetryPolicy(),
              settings: GenerationSettings = GenerationSettings(), pricing: Pricing = Pricing(),
              budget: float | None = None, seed: int = 0, progress: Progress | None = None,
              stop: threading.Event | None = None, notify: Callable[[str], None] | None = None,
              condition: str | None = None, rpm: float | None = None, tpm: float | None = None) -> RunSummary:
    """Answer every trial of ``bank`` with ``model`` (``openai:NAME`` or ``anthropic:NAME``), appending to ``out``.

    Parameters
    ----------
    bank : DataFrame
        Bank rows (``board_id, rows, cols, initial, goal``), e.g. from ``fastspe.bank.build.read_bank``.
    model : str
        ``PROVIDER:MODEL`` (or ``PROVIDER/MODEL``).
    out : path-like
        The JSONL run log; appended to, never rewritten; completed trials in it are skipped.
    base_url : str or None
        An OpenAI-compatible or Anthropic-compatible server.
    trials, max_connections, timeout : int, int, float
        Trials per board; requests in flight at most; seconds per request.
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
    """
    if not 0 < timeout < math.inf:
        raise UserError(f"--timeout must be a finite number of seconds > 0, got {timeout}")
    job = plan_run(bank, model, out, base_url, trials, settings, pricing, budget, condition)
    provider_name, name, boards, identity, settings, scan, pending = (
        job.provider_name, job.name, job.boards, job.identity, job.settings, job.scan, job.pending)
    condition, planned = job.condition, job.planned
    summary = RunSummary(condition, str(out), planned=planned, already_complete=planned - len(pending),
                         skipped_log_lines=scan.torn_lines, settings=settings)
    if not pending:
        return summary
    provider = PROVIDERS[provider_name](name, base_url=base_url, timeout=timeout)
    with RunLog(out, secrets=provider.secrets) as log:
        # Scan again under the log's lock: another run may have finished trials meanwhile.
        scan, pending = _scan(out, condition, boards, trials, identity)
        summary.already_complete = planned - len(pending)
        summary.skipped_log_lines = scan.torn_lines
        try:
            _send_all(summary, pending, provider, log, scan.attempts, Budget(budget, scan.spent_usd),
                      AdaptiveLimiter(max_connections), Pacer(rpm, tpm), policy, pricing, settings, seed, progress,
                      stop or threading.Event(), notify or (lambda message: None))
        finally:
            provider.close()
    return summary


def _send_all(summary: RunSummary, pending: list[Trial], provider, log: RunLog, made: np.ndarray, wallet: Budget,
              limiter: AdaptiveLimiter, pacer: Pacer, policy: RetryPolicy, pricing: Pricing, settings: GenerationSettings,
              seed: int, progress: Progress | None, stop: threading.Event,
              notify: Callable[[str], None]) -> None:
    """Send ``pending`` trials on a thread pool bounded by ``limiter``; fill in ``summary``."""
    condition, provider_name = summary.condition, provider.provider
    counters = RetryCounters()
    settings_dict = settings.as_dict()
    fatal: list[AttemptError] = []

    def attempt_record(trial: Trial, attempt: int, ts: str, latency: float) -> dict:
        rec = _record_base(trial, condition, provider_name, provider.model, provider.base_url, settings_dict)
        rec.update(attempt=attempt, timestamp=ts, latency_s=round(latency, 4))
        return rec

    def run_trial(trial: Trial) -> tuple[str, int]:
        first = int(made[trial.row, trial.trial])
        outcome, last = send_trial(trial, first)
        return outcome, last - first

    def send_trial(trial: Trial, attempt: int) -> tuple[str, int]:
        rng = random.Random(f"{seed}:{trial.trial_id}")
        retries = {RATE_LIMIT: 0, "other": 0}
        worst = pricing.cost(input_tokens_upper(trial.prompt), settings.max_tokens) if pricing.priced else 0.0
        tokens = input_tokens_upper(trial.prompt) + (settings.max_tokens or 0)  # what --tpm counts
        while not stop.is_set():
            if not wallet.reserve(worst):
                return "budget", attempt
            slot = limiter.acquire(stop)
            if slot is None:
                wallet.settle(worst, 0.0)
                return "stopped", attempt
            if not pacer.wait(tokens, stop):  # with the slot held: the headers of the last answer count
                limiter.release(slot, "stopped")
                wallet.settle(worst, 0.0)
                return "stopped", attempt
            attempt += 1
            ts, t0 = _now(), time.perf_counter()
            try:
                answer = provider.complete(trial.prompt, settings, trial.trial_id)
                error = None
            except AttemptError as exc:
                answer, error = None, exc
            latency = time.perf_counter() - t0
            pacer.observe(answer.rate_limits if error is None else error.rate_limits)
            if error is not None and error.kind == FATAL:
                stop.set()  # before the slot is freed: no waiting trial may send after a fatal answer
            limiter.release(slot, None if error is None else error.kind)
            rec = attempt_record(trial, attempt, ts, latency)
            if error is None:
                cost = pricing.cost(answer.input_tokens, answer.output_tokens) if pricing.priced else None
                wallet.settle(worst, cost or 0.0)
                rec.update(answer_fields(answer, cost))
                log.append(rec)
                return "ok", attempt
            wallet.settle(worst, 0.0)
            counters.add(error.kind)
            rec.update(error_fields(error))
            log.append(rec)
            if error.kind == FATAL:
                fatal.append(error)
                stop.set()
                return "fatal", attempt
            sort = RATE_LIMIT if error.kind == RATE_LIMIT else "other"
            if not policy.allows(error, retries[RATE_LIMIT], retries["other"]):
                return "failed", attempt
            delay = policy.delay(error, retries[sort], rng)
            retries[sort] += 1
            counters.add(RETRIED)
            if stop.wait(delay):
                return "stopped", attempt
        return "stopped", attempt

    outcomes: dict[str, int] = {}
    sent = [0, 0]  # trials with an attempt in this run, attempts in this run

    def tally(outcome: str, attempts: int) -> None:
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        sent[0] += attempts > 0
        sent[1] += attempts

    def report() -> None:
        if progress is not None:
            failed = outcomes.get("failed", 0) + outcomes.get("fatal", 0)
            progress(sum(outcomes.values()), len(pending), answered=outcomes.get("ok", 0), failed=failed,
                     retried=counters.get(RETRIED), rate_limited=counters.get(RATE_LIMIT), spent_usd=wallet.spent)

    report()  # the total at once, before the first answer
    # More threads than slots: a trial sleeping in its retry backoff holds a thread but no slot, so the
    # backoffs of failed requests do not starve the requests that could be in flight.
    pool = cf.ThreadPoolExecutor(max_workers=2 * limiter.max_limit + 8, thread_name_prefix="fastspe-run")
    futures = {pool.submit(run_trial, t) for t in pending}
    try:
        while futures:
            ready, futures = cf.wait(futures, timeout=0.2, return_when=cf.FIRST_COMPLETED)
            for fut in ready:
                tally(*fut.result())
            report()
    except KeyboardInterrupt:
        summary.interrupted = True
        notify("stopping: waiting for the requests in flight so their answers are logged; Ctrl-C again to abandon them")
    finally:
        if futures:  # interrupted or a worker failed: send nothing more
            stop.set()
        # Requests in flight are already paid for: wait for them, so their answers are logged.
        pool.shutdown(wait=True, cancel_futures=True)
    for fut in futures:
        if fut.done() and not fut.cancelled():
            tally(*fut.result())
    summary.completed = outcomes.get("ok", 0)
    summary.failed = outcomes.get("failed", 0) + outcomes.get("fatal", 0)
    summary.requested, summary.attempts = sent
    report()
    summary.failures = {kind: n for kind, n in counters.counts.items() if kind != RETRIED}
    summary.paced = pacer.waits
    summary.spent_usd = wallet.spent
    summary.budget_exhausted = wallet.exhausted
    if fatal:
        summary.fatal_error = fatal[0].message


def run_baseline(bank: pd.DataFrame, planner: str, out, *, trials: int = 3, seed: int = 0,
                 progress: Progress | None = None, condition: str | None = None) -> RunSummary:
    """Answer ``bank`` with an offline baseline planner, appending its rows to the run log ``out``.

    Rows come from ``fastspe.planners.baselines.baseline_responses(bank, planner, trials, seed)``; each is
    logged as one completed attempt in the same format as model answers, under ``condition``
    (default ``baseline:PLANNER``), and trials already in the log are skipped.
    """
    from ..planners.baselines import baseline_responses  # lazily: baselines may pull in numba kernels

    condition = f"{BASELINE}:{planner}" if condition is None else condition
    check_log_path(out)
    settings = {"seed": int(seed)}
    identity = _identity_settings(BASELINE, planner, settings)
    boards = _board_prompts(bank)
    if trials < 1:
        raise UserError(f"--trials must be >= 1, got {trials}")
    # refuse other settings before the log is opened (no trial list yet: that is built once, under the lock)
    scan_run_log(out, condition, boards.rows, trials, identity, boards.hashes)
    summary = RunSummary(condition, str(out), planned=len(boards.board_ids) * trials)
    with RunLog(out) as log:
        # Scan under the log's lock, as run_model does: another run may have written these trials.
        scan, pending = _scan(out, condition, boards, trials, identity)
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
            answers = baseline_responses(bank.iloc[rows[start:start + per_slice]], planner, trials, seed)
            batch = []
            for row in answers.to_dict("records"):
                trial = todo.get((str(row["board_id"]), int(row["trial"])))
                if trial is None:
                    continue
                rec = _record_base(trial, condition, BASELINE, planner, None, settings)
                rec.update({k: v for k, v in row.items() if k not in rec})
                rec.update(status=OK, attempt=1, response=row["response"], returned_model=planner, timestamp=_now(),
                           latency_s=0.0, cost_usd=0.0)
                batch.append(rec)
            _write_baseline_batch(log, batch, summary, len(pending), progress)
    return summary


def _write_baseline_batch(log: RunLog, batch: list[dict], summary: RunSummary, pending: int,
                          progress: Progress | None) -> None:
    """Append ``batch`` with one fsync, then count it (never before it is on disk)."""
    log.append_many(batch)
    summary.completed += len(batch)
    if progress is not None:
        progress(summary.completed, pending)
