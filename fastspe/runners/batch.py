"""``fastspe run --batch``: the same trials through OpenAI's or Anthropic's batch API, at half price, resumable.

Each round creates a batch of requests (``custom_id`` = the trial id, the body the online mode sends; the
adapters of ``batch_api.py``), polls it and writes one run-log line per attempt, in the online format plus
``batch_id``, ``custom_id`` and ``batch_provider``; failed requests go into a new batch, within the online
mode's retry bounds. ``fastspe score`` and ``report`` read the log as they read an online one.

A batch is paid for once it exists, so it must never be created twice and a killed run must find it. The log
holds the batch's life as marker records, which readers skip like ``torn_line`` markers:

- ``batch_pending`` (fsynced *before* the batch is created): a random token, the custom ids;
- ``batch_submitted``: the token and the batch id, right after creation;
- ``batch_done``: the token, once every result of the batch is in the log (or the batch was never created:
  then with the ``error`` that says why).

Requests are uploaded (OpenAI) before the pending marker is written, so a server without batch endpoints
leaves no marker at all; one that refuses the create itself gets its marker closed at once. Each line of a
batch's results is read on its own (``batch_api.py``): a damaged line is a failed attempt of its request, or a
warning naming the file and line when its request cannot be told, and an answer always wins over an error
line for the same request, so no paid answer is lost or paid for again.

Running the same command again polls and collects batches that are submitted but not done. A pending marker
without its submitted one means "maybe created": the batch is looked up (OpenAI: by the token in its
``metadata``; Anthropic: by creation time and size) instead of being created again. Collection skips trials
the log already has from that batch, so a run killed mid-download writes each answer once.
"""

from __future__ import annotations

import json
import threading
import time
import dataclasses
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ParameterError
from ..boundary.responses import BATCH_EVENTS
from ..boundary.run_logs import log_lines
from .generation import GenerationSettings
from .batch_api import ADAPTERS, CreateFailed
from .cost import Budget, Pricing, conversation_tokens_upper
from .engine import PROVIDERS, RunRequest, plan_run, scan_pending
from .log import OK, RunLog
from ..protocols.spec import ONESHOT_SPEC, ProtocolSpec
from .records import Progress, RunSummary, Trial, answer_fields, error_fields, timestamp_now, trial_fields
from .retry import FATAL, RATE_LIMIT, AttemptError, RetryPolicy

# OpenAI and Anthropic both bill batch requests at half the list price (--price-in/--price-out).
BATCH_DISCOUNT = 0.5
PENDING, SUBMITTED, DONE = BATCH_EVENTS
MAX_REQUESTS = 50_000  # requests per batch: OpenAI's limit (Anthropic's is 100,000)
WRITE_CHUNK = 200  # attempt lines per fsync while collecting; a crash loses at most these, collected again


def batch_pricing(pricing: Pricing) -> Pricing:
    """The prices a batch request is billed at: ``BATCH_DISCOUNT`` times the list prices."""
    return Pricing(pricing.price_in * BATCH_DISCOUNT, pricing.price_out * BATCH_DISCOUNT)


def check_batch_provider(model: str) -> None:
    """A ValueError for providers whose batch API fastspe does not speak yet."""
    provider_name = model.replace("/", ":", 1).split(":", 1)[0]
    if provider_name not in ADAPTERS:
        raise ParameterError(
            "{batch} with {provider}: is not supported (only openai: and anthropic: models have a "
            "batch API); run without {batch}",
            "batch",
            provider=provider_name,
        )


def check_batch_protocol(protocol: ProtocolSpec) -> None:
    """A UserError for a multi-turn protocol: a batch holds one request per trial, a conversation many, each
    waiting on the answer before it."""
    if protocol.multi_turn:
        raise ParameterError(
            "{batch} sends one request per trial; {protocol} {name} holds a conversation of several "
            "turns, each sent after the answer before it: run it without {batch}",
            ("batch", "protocol"),
            name=protocol.name,
        )


@dataclass
class BatchSummary(RunSummary):
    """A ``RunSummary`` plus the batches: how many were submitted and collected in this run."""

    batches: dict = field(default_factory=dict)


@dataclass
class _Open:
    """A batch the log has a pending marker for and no done marker."""

    token: str
    custom_ids: list
    created_after: float
    batch_id: str | None = None
    status: str = "submitted"


def _open_batches(path: Path, condition: str) -> tuple[dict, dict, set]:
    """The condition's open batches by token, the custom ids logged per batch id and every batch id the log
    knows (one pass over the log)."""
    opened: dict[str, _Open] = {}
    logged: dict[str, set] = {}
    known: set = set()
    for raw in log_lines(path):
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):  # torn or damaged lines: scan_run_log has vetted them
            continue
        if not isinstance(rec, dict):
            continue
        if rec.get("event") == SUBMITTED:
            known.add(rec.get("batch_id"))
        if rec.get("condition") != condition:
            continue
        event = rec.get("event")
        if event == PENDING:
            opened[rec["token"]] = _Open(rec["token"], rec["custom_ids"], float(rec["created_after"]))
        elif event == SUBMITTED and rec.get("token") in opened:
            opened[rec["token"]].batch_id = rec["batch_id"]
        elif event == DONE:
            opened.pop(rec.get("token"), None)
        elif rec.get("batch_id"):
            logged.setdefault(rec["batch_id"], set()).add(rec.get("custom_id"))
    return opened, logged, known


def run_batch(
    bank,
    model: str,
    out,
    *,
    base_url: str | None = None,
    trials: int = 3,
    timeout: float = 120.0,
    policy: RetryPolicy = RetryPolicy(),
    settings: GenerationSettings = GenerationSettings(),
    pricing: Pricing = Pricing(),
    budget: float | None = None,
    poll_interval: float = 30.0,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    condition: str | None = None,
    protocol: ProtocolSpec = ONESHOT_SPEC,
    prompt=None,
) -> BatchSummary:
    """Answer every trial of ``bank`` with ``model`` through the Batch API, appending to ``out``.

    The parameters are ``run_model``'s (``prompt``: a ``PromptSpec``, None the paper prompt); ``poll_interval`` is
    the seconds between polls of a batch. Costs are
    logged at batch prices (``BATCH_DISCOUNT`` of ``pricing``). Stopping (``stop``, Ctrl-C) leaves batches on the
    server; the same call again collects them.
    """
    check_batch_provider(model)
    check_batch_protocol(protocol)
    if not 0 <= poll_interval < float("inf"):
        raise ParameterError(
            "{poll_interval} must be a finite number of seconds >= 0, got {got}", "poll_interval", got=poll_interval
        )
    request = RunRequest(model, out, base_url, trials, settings, pricing, budget, condition)
    job = plan_run(bank, request if prompt is None else dataclasses.replace(request, prompt=prompt))
    summary = job.summary(BatchSummary)
    if not job.pending:
        return summary
    provider = PROVIDERS[job.provider_name](job.name, base_url=base_url, timeout=timeout)
    try:
        with RunLog(out, secrets=provider.secrets) as log:
            job.boards.keep_texts(out, job.pending)  # what is asked is on disk before it is sent
            run = _BatchRun(
                summary,
                provider,
                log,
                job.boards,
                trials,
                job.identity,
                job.settings,
                batch_pricing(pricing),
                policy,
                Budget(budget, job.scan.spent_usd),
                poll_interval,
                progress,
                stop or threading.Event(),
            )
            run.run()
    finally:
        provider.close()
    return summary


class _BatchRun:
    """One ``run_batch`` call: rounds of (resume or submit, poll, collect) until nothing is left to send."""

    def __init__(
        self,
        summary: BatchSummary,
        provider,
        log: RunLog,
        boards,
        trials: int,
        identity: dict,
        settings: GenerationSettings,
        pricing: Pricing,
        policy: RetryPolicy,
        wallet: Budget,
        poll_interval: float,
        progress: Progress | None,
        stop: threading.Event,
    ):
        self.summary, self.provider, self.api, self.log = summary, provider, ADAPTERS[provider.provider](provider), log
        self.boards, self.trials, self.identity, self.settings = boards, trials, identity, settings
        self.pricing, self.policy, self.wallet = pricing, policy, wallet
        self.poll_interval, self.progress, self.stop = poll_interval, progress, stop
        self.path = log.path
        self.condition = summary.condition
        self.last_error: dict[str, AttemptError] = {}  # trial id -> its latest failure in this run
        self.retries: dict[str, list] = {}  # trial id -> [429 retries, other retries] in this run
        self.sent: set = set()
        self.reserved: dict[str, float] = {}  # token -> budget reserved for its batch in this run
        self.states = {"submitted": 0, "in_progress": 0, "completed": 0}
        self.answered = self.total = 0

    def run(self) -> None:
        summary = self.summary
        self.total = summary.planned - summary.already_complete
        self._report()
        try:
            while not self.stop.is_set():
                scan, pending = scan_pending(self.path, self.condition, self.boards, self.trials, self.identity)
                opened, logged, known = _open_batches(self.path, self.condition)
                if opened:
                    self._finish(opened, logged, known, scan, pending)
                    continue
                todo = [] if self.wallet.exhausted else [t for t in pending if self._may_send(t)]
                if not todo or summary.fatal_error:
                    break
                self._submit(todo)
        except KeyboardInterrupt:
            summary.interrupted = True  # the batches stay on the server: the same command collects them
        except AttemptError as exc:  # creating or polling a batch failed
            summary.fatal_error = exc.message
        scan, pending = scan_pending(self.path, self.condition, self.boards, self.trials, self.identity)
        summary.completed = summary.planned - len(pending) - summary.already_complete
        summary.failed = sum(1 for t in pending if t.trial_id in self.last_error)
        summary.requested = len(self.sent)
        summary.spent_usd = self.wallet.spent
        summary.budget_exhausted = self.wallet.exhausted
        summary.batches = dict(self.states)
        self._report()

    def _may_send(self, trial: Trial) -> bool:
        """The online retry rule: a trial that failed in this run goes again only within the policy's bounds."""
        error = self.last_error.get(trial.trial_id)
        if error is None:
            return True
        rate, other = self.retries.setdefault(trial.trial_id, [0, 0])
        return self.policy.allows(error, rate, other)

    # --- submitting ------------------------------------------------------------------------------------------

    def _submit(self, todo: list[Trial]) -> None:
        worst = [
            self.pricing.cost(conversation_tokens_upper(t.opening), self.settings.max_tokens)
            if self.pricing.priced
            else 0.0
            for t in todo
        ]
        fits = 0
        while fits < len(todo) and self.wallet.reserve(worst[fits]):  # the budget holds with every answer at worst
            fits += 1
        todo = todo[:fits]
        for start in range(0, fits, MAX_REQUESTS):
            chunk = todo[start : start + MAX_REQUESTS]
            self._create(chunk, sum(worst[start : start + MAX_REQUESTS]))
            for t in chunk:  # counted only once its batch exists: a refused batch sent nothing
                if t.trial_id in self.last_error:  # a retry: count it by the sort of its last failure
                    self.retries[t.trial_id][self.last_error[t.trial_id].kind != RATE_LIMIT] += 1
                self.sent.add(t.trial_id)

    def _create(self, chunk: list[Trial], reserved: float) -> None:
        # Uploaded first (OpenAI): a server without batch endpoints refuses before any marker is written.
        prepared = self.api.prepare(chunk, self.settings)
        entry = _Open(uuid.uuid4().hex, [t.trial_id for t in chunk], time.time())
        # Written and fsynced before the batch exists, so that a run killed during creation looks it up.
        self.log.append(
            {
                "event": PENDING,
                "condition": self.condition,
                "batch_provider": self.provider.provider,
                "token": entry.token,
                "created_after": entry.created_after,
                "custom_ids": entry.custom_ids,
                "timestamp": timestamp_now(),
            }
        )
        self.reserved[entry.token] = reserved
        try:
            batch_id = self.api.create(prepared, entry.token)
        except CreateFailed as exc:
            if exc.absent:  # refused: no batch to look up, nothing to pay
                self._mark_done(entry, error=exc.message)
                self.wallet.settle(self.reserved.pop(entry.token), 0.0)
            raise
        self._mark_submitted(entry.token, batch_id)
        self.states["submitted"] += 1

    def _mark_submitted(self, token: str, batch_id: str) -> None:
        self.log.append(
            {
                "event": SUBMITTED,
                "condition": self.condition,
                "batch_provider": self.provider.provider,
                "token": token,
                "batch_id": batch_id,
                "timestamp": timestamp_now(),
            }
        )

    # --- resuming, polling, collecting -----------------------------------------------------------------------

    def _finish(self, opened: dict, logged: dict, known: set, scan, pending: list[Trial]) -> None:
        """Find the batch of each pending marker, poll them all until they end, collect each as it ends."""
        for entry in opened.values():
            if entry.batch_id is None:
                entry.batch_id = self.api.look_up(entry.token, entry.created_after, len(entry.custom_ids), known)
                if entry.batch_id is None:  # never created: nothing to collect, its trials are free to send
                    self._mark_done(entry)
                    continue
                self._mark_submitted(entry.token, entry.batch_id)
                known.add(entry.batch_id)  # no other pending marker may take it
        live = [e for e in opened.values() if e.batch_id is not None]
        todo = {t.trial_id: t for t in pending}
        made = scan.attempts.copy()
        failures = 0  # polls in a row that failed
        while live:
            for entry in list(live):
                try:
                    state = self.api.retrieve(entry.batch_id)
                    entry.status = state.status
                    if state.ended:
                        self._collect(entry, state, logged.get(entry.batch_id, set()), todo, made)
                        live.remove(entry)
                    failures = 0
                except AttemptError as exc:
                    # A dropped poll or download is tried again at the next poll (collecting is idempotent).
                    failures += 1
                    if not exc.retryable or failures > self.policy.max_retries:
                        raise
            self._report(live)
            if live and self.stop.wait(self.poll_interval):
                return

    def _collect(self, entry: _Open, state, logged: set, todo: dict, made) -> None:
        """One attempt line per request of the batch not yet in the log, then its done marker."""
        results, missing = self.api.results(state)
        records, spent = [], 0.0
        for cid in entry.custom_ids:
            trial = todo.get(cid)
            if trial is None or cid in logged:  # answered meanwhile, or logged before a kill
                continue
            made[trial.row, trial.trial] += 1
            rec = trial_fields(
                trial,
                self.condition,
                self.provider.provider,
                self.provider.model,
                self.provider.base_url,
                self.settings.as_dict(),
            )
            rec.update(attempt=int(made[trial.row, trial.trial]), timestamp=timestamp_now(), latency_s=None)
            answer, error = results.get(cid, (None, missing))
            if error is None:
                cost = self.pricing.cost(answer.input_tokens, answer.output_tokens) if self.pricing.priced else None
                spent += cost or 0.0
                rec.update(answer_fields(answer, cost))
                self.last_error.pop(cid, None)
            else:
                rec.update(error_fields(error))
                self.last_error[cid] = error
                self.summary.failures[error.kind] = self.summary.failures.get(error.kind, 0) + 1
                self.summary.last_errors[error.kind] = error.message
                if error.kind == FATAL:
                    self.summary.fatal_error = error.message
            rec.update(batch_id=entry.batch_id, custom_id=cid, batch_provider=self.provider.provider)
            records.append(rec)
            if len(records) >= WRITE_CHUNK:
                self._write(records)
        self._write(records)
        self.wallet.settle(self.reserved.pop(entry.token, 0.0), spent)
        self._mark_done(entry, entry.batch_id)
        self.states["completed"] += 1

    def _write(self, records: list) -> None:
        self.log.append_many(records)
        self.summary.attempts += len(records)
        self.answered += sum(r["status"] == OK for r in records)
        records.clear()

    def _mark_done(self, entry: _Open, batch_id: str | None = None, error: str | None = None) -> None:
        """Close ``entry``'s pending marker: collected (``batch_id``) or never created (``error``: why not)."""
        record = {
            "event": DONE,
            "condition": self.condition,
            "batch_provider": self.provider.provider,
            "token": entry.token,
            "batch_id": batch_id,
            "timestamp": timestamp_now(),
        }
        if error is not None:
            record["error"] = error
        self.log.append(record)

    def _report(self, live: list | None = None) -> None:
        if live is not None:
            self.states["submitted"] = sum(e.status == "submitted" for e in live)
            self.states["in_progress"] = sum(e.status == "in_progress" for e in live)
        if self.progress is not None:
            self.progress(
                self.answered,
                self.total,
                answered=self.answered,
                failed=len(self.last_error),
                spent_usd=self.wallet.spent,
                **self.states,
            )
