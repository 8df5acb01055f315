"""The online sender: a run's pending trials sent on a thread pool, each attempt logged before it counts.

Under a multi-turn protocol (``fastspe.protocols``) a trial is a conversation: each turn is sent like a one-shot
trial (its own attempts, retried by the policy, paced, within the budget for the whole conversation it sends) and
its answer is logged before the next turn is sent, so a killed run resumes after the last answered turn.

A trial is sent until it is answered, fails past the retry policy, meets a fatal error (a wrong key: nothing
more is sent), the budget would be exceeded, or the run is stopped. Requests in flight are paid for, so
stopping waits for them and logs their answers. Trials reach the pool only as slots free up (bounded
submission), so the threads waiting for a slot are the few retrying, not every trial of the run.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import random
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .generation import GenerationSettings
from .cost import Budget, Pricing, conversation_tokens_upper
from .log import ERROR, RunLog
from .pacing import Pacer
from .records import Progress, RunSummary, Trial, answer_fields, error_fields, timestamp_now, trial_fields
from .base import redact_error
from .retry import FATAL, RATE_LIMIT, STOPPED, UNEXPECTED, AdaptiveLimiter, AttemptError, RetryCounters, RetryPolicy

RETRIED = "retried"  # a tally beside the failure kinds: attempts that were retries


@dataclass
class Tally:
    """How the trials of this run ended, by outcome, and what they sent."""

    outcomes: dict = field(default_factory=dict)
    trials_sent: int = 0  # trials with an attempt in this run
    attempts: int = 0  # attempts in this run

    def add(self, outcome: str, attempts: int) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1
        self.trials_sent += attempts > 0
        self.attempts += attempts

    @property
    def answered(self) -> int:
        return self.outcomes.get("ok", 0)

    @property
    def failed(self) -> int:
        return self.outcomes.get("failed", 0) + self.outcomes.get("fatal", 0)


@dataclass
class Sender:
    """Sends the trials of ``condition`` through ``provider`` into ``log``, within the ``wallet``, the ``limiter``'s connections and
    the ``pacer``'s rate limits; retries by ``policy``. ``made`` holds the highest attempt number the log has
    for each (bank row, trial), so attempts number on after a resume."""

    condition: str
    provider: object
    log: RunLog
    settings: GenerationSettings
    pricing: Pricing
    policy: RetryPolicy
    wallet: Budget
    limiter: AdaptiveLimiter
    pacer: Pacer
    made: np.ndarray
    seed: int = 0  # of the backoff jitter
    stop: threading.Event = field(default_factory=threading.Event)
    counters: RetryCounters = field(default_factory=RetryCounters)
    fatal: list = field(default_factory=list)  # the fatal errors met
    last_errors: dict = field(default_factory=dict)  # the last error text of each kind: why trials have no answer
    tracebacks: list = field(default_factory=list)  # of the unexpected exceptions (bugs) met, scrubbed of secrets
    protocol: object = None  # a multi-turn ``fastspe.protocols.Protocol``; None: one answer per trial
    resumed: dict = field(default_factory=dict)  # (bank row, trial) -> its Conversation rebuilt from the log

    def __post_init__(self):
        # recorded in every attempt's line: the settings, and a multi-turn protocol's identity
        self._settings_dict = {**self.settings.as_dict(), **(self.protocol.spec.identity() if self.protocol else {})}

    def send_all(
        self,
        summary: RunSummary,
        pending: list[Trial],
        progress: Progress | None = None,
        notify: Callable[[str], None] = lambda message: None,
    ) -> None:
        """Send ``pending`` on a thread pool bounded by the limiter; fill in ``summary``."""
        tally = Tally()

        def report() -> None:
            if progress is not None:
                progress(
                    sum(tally.outcomes.values()),
                    len(pending),
                    answered=tally.answered,
                    failed=tally.failed,
                    retried=self.counters.get(RETRIED),
                    rate_limited=self.counters.get(RATE_LIMIT),
                    spent_usd=self.wallet.spent,
                )

        report()  # the total at once, before the first answer
        # More threads than slots: a trial sleeping in its retry backoff holds a thread but no slot, so the
        # backoffs of failed requests do not starve the requests that could be in flight.
        threads = 2 * self.limiter.max_limit + 8
        pool = cf.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="fastspe-run")
        room = threading.Semaphore(threads)  # a trial is submitted only with a thread free to take it
        ended: collections.deque = collections.deque()  # futures done, in the order they ended
        futures: set = set()

        def collect() -> None:
            if ended:
                while ended:
                    fut = ended.popleft()
                    futures.discard(fut)
                    tally.add(*fut.result())
                report()

        unsent = iter(pending)
        try:
            # Bounded submission: a trial goes to the pool only once a slot is free, and takes that slot for its
            # first attempt; so only the trials that can send wait on the pool, not all of them at once.
            for trial in unsent:
                room.acquire()
                slot = self.limiter.acquire(self.stop)
                if slot is None:
                    room.release()
                    tally.add("stopped", 0)
                    break
                try:
                    fut = pool.submit(self._fed_trial, trial, slot, room)
                except BaseException:
                    self._give_back(slot)
                    room.release()
                    raise
                futures.add(fut)
                fut.add_done_callback(ended.append)
                collect()
            for _ in unsent:  # stopped: the trials never submitted end as they would have, unsent
                tally.add("stopped", 0)
            while futures:  # the last trials (``ended`` is left: its callbacks may lag behind ``cf.wait``)
                ready, futures = cf.wait(futures, timeout=0.2, return_when=cf.FIRST_COMPLETED)
                if self.stop.is_set():
                    self.limiter.close()  # a stop from the caller: the trials waiting for a slot end now
                for fut in ready:
                    tally.add(*fut.result())
                report()
        except KeyboardInterrupt:
            summary.interrupted = True
            notify(
                "stopping: waiting for the requests in flight so their answers are logged; Ctrl-C again to abandon them"
            )
        finally:
            if futures:  # interrupted or a worker failed: send nothing more
                self._stop()
            # Requests in flight are already paid for: wait for them, so their answers are logged.
            pool.shutdown(wait=True, cancel_futures=True)
        for fut in futures:
            if fut.done() and not fut.cancelled():
                tally.add(*fut.result())
        summary.completed, summary.failed = tally.answered, tally.failed
        summary.requested, summary.attempts = tally.trials_sent, tally.attempts
        report()
        summary.failures = {kind: n for kind, n in self.counters.counts.items() if kind != RETRIED}
        summary.paced = self.pacer.waits
        summary.spent_usd = self.wallet.spent
        summary.last_errors = dict(self.last_errors)
        summary.tracebacks = list(self.tracebacks)
        summary.budget_exhausted = self.wallet.exhausted
        if self.fatal:
            summary.fatal_error = self.fatal[0].message

    def _fed_trial(self, trial: Trial, slot: int, room: threading.Semaphore) -> tuple[str, int]:
        """``run_trial`` on the slot ``send_all`` acquired for it; frees its thread's place when it ends."""
        try:
            return self.run_trial(trial, slot)
        finally:
            room.release()

    def run_trial(self, trial: Trial, slot: int | None = None) -> tuple[str, int]:
        """Send ``trial`` until it ends (its first attempt on ``slot`` when given): its outcome and the attempts it
        made in this run."""
        first = int(self.made[trial.row, trial.trial])
        outcome, last = self.send_trial(trial, first, slot)
        return outcome, last - first

    def send_trial(self, trial: Trial, attempt: int, slot: int | None = None) -> tuple[str, int]:
        """Attempts of ``trial`` numbered on from ``attempt``, retried by the policy (the first on ``slot`` when
        given, already acquired): the outcome and the last attempt number."""
        held = [slot]  # a slot this trial holds but has not sent on: given back however the trial ends
        try:
            return self._send_trial(trial, attempt, held)
        finally:
            self._give_back(held[0])

    def _send_trial(self, trial: Trial, attempt: int, held: list) -> tuple[str, int]:
        if self.protocol is None:
            return self._send_turn(trial, attempt, held)
        # the conversation as the log left it (only unfinished trials were rebuilt), else a new one
        conv = self.resumed.pop((trial.row, trial.trial), None) or self.protocol.start(trial.opening, trial.row)
        while True:
            outcome, attempt = self._send_turn(trial, attempt, held, conv)
            if outcome != "ok" or conv.ended:
                return outcome, attempt

    def _send_turn(self, trial: Trial, attempt: int, held: list, conv=None) -> tuple[str, int]:
        """Attempts of one request (the trial's one-shot prompt, or ``conv``'s next turn) numbered on from
        ``attempt``, retried by the policy: the outcome and the last attempt number."""
        rng = random.Random(f"{self.seed}:{trial.trial_id}" + (f":{conv.turn + 1}" if conv is not None else ""))
        retries = {RATE_LIMIT: 0, "other": 0}
        priced = self.pricing.priced
        messages = trial.opening if conv is None else conv.messages
        upper = conversation_tokens_upper(messages, self.protocol.tools if conv is not None else None)
        worst = self.pricing.cost(upper, self.settings.max_tokens) if priced else 0.0
        tokens = upper + (self.settings.max_tokens or 0)  # what --tpm counts
        while not self.stop.is_set():
            if not self.wallet.reserve(worst):
                return "budget", attempt
            given, held[0] = held[0], None  # from here ``_slot`` and then ``attempt`` free it
            slot = self._slot(tokens, given)
            if slot is None:
                self.wallet.settle(worst, 0.0)
                return "stopped", attempt
            attempt += 1
            error = self.attempt(trial, attempt, slot, worst, conv)
            if error is None:
                return "ok", attempt
            if error.kind == FATAL:
                return "fatal", attempt
            if conv is not None and conv.ended:  # the protocol failed on a paid answer (a bug): not sent again
                return "failed", attempt
            sort = RATE_LIMIT if error.kind == RATE_LIMIT else "other"
            if not self.policy.allows(error, retries[RATE_LIMIT], retries["other"]):
                return "failed", attempt
            delay = self.policy.delay(error, retries[sort], rng)
            retries[sort] += 1
            self.counters.add(RETRIED)
            if self.stop.wait(delay):
                return "stopped", attempt
        return "stopped", attempt

    def _give_back(self, slot: int | None) -> None:
        """Free a slot acquired for an attempt that is not sent."""
        if slot is not None:
            self.limiter.release(slot, STOPPED)

    def _stop(self) -> None:
        """Send nothing more: set ``stop`` and wake the trials waiting for a slot."""
        self.stop.set()
        self.limiter.close()

    def _slot(self, tokens: int, slot: int | None = None):
        """A connection slot (``slot`` when one is held, else a free one), once the rate limits let ``tokens`` go;
        None when the run stops first."""
        if slot is None:
            slot = self.limiter.acquire(self.stop)
        if slot is None:
            return None
        try:
            paced = self.pacer.wait(tokens, self.stop)  # with the slot held: the headers of the last answer count
        except BaseException:
            self.limiter.release(slot, STOPPED)
            raise
        if not paced:
            self.limiter.release(slot, STOPPED)
            return None
        return slot

    def attempt(self, trial: Trial, attempt: int, slot, worst: float, conv=None) -> AttemptError | None:
        """Send attempt number ``attempt`` of ``trial`` (of ``conv``'s next turn, when given) on ``slot`` (``worst``
        reserved for it), log it, free the slot and settle the reservation; its error, or None when it was
        answered (``conv`` then holds the answer and what goes back, as the logged line says).

        Any exception the provider raises is a failed attempt: its own ``AttemptError``, or one of kind
        ``UNEXPECTED`` (a bug: its traceback is kept for the end of the run), so a request that a server may bill
        is always logged and its slot always freed."""
        ts, t0 = timestamp_now(), time.perf_counter()
        answer, error, released = None, None, False
        try:
            try:
                if conv is None:
                    answer = self.provider.complete(trial.opening, self.settings, trial.trial_id)
                else:
                    answer = self.provider.complete(conv.messages, self.settings, trial.trial_id, self.protocol.tools)
            except AttemptError as exc:
                error = exc
            except Exception as exc:  # noqa: BLE001 - a bug must not lose a paid attempt or its slot
                error = self._unexpected(exc)
            latency = time.perf_counter() - t0
            self.pacer.observe(answer.rate_limits if error is None else error.rate_limits)
            if error is not None and error.kind == FATAL:
                self._stop()  # before the slot is freed: no waiting trial may send after a fatal answer
            self.limiter.release(slot, None if error is None else error.kind)
            released = True
        finally:
            if not released:
                self.limiter.release(slot, STOPPED if error is None else error.kind)
        rec = trial_fields(
            trial,
            self.condition,
            self.provider.provider,
            self.provider.model,
            self.provider.base_url,
            self._settings_dict,
        )
        rec.update(attempt=attempt, timestamp=ts, latency_s=round(latency, 4))
        if conv is not None:
            rec["turn"] = conv.turn + 1
        if error is None:
            cost = self.pricing.cost(answer.input_tokens, answer.output_tokens) if self.pricing.priced else None
            self.wallet.settle(worst, cost or 0.0)
            rec.update(answer_fields(answer, cost))
            if conv is not None:
                error = self._turn_answered(conv, answer, rec)
            self.log.append(rec)  # before the next turn is sent: a resumed run never sends this one again
            if error is None:
                return None
            self.counters.add(error.kind)
            self.last_errors[error.kind] = error.message
            return error
        self.wallet.settle(worst, 0.0)
        self.counters.add(error.kind)
        self.last_errors[error.kind] = error.message
        rec.update(error_fields(error))
        self.log.append(rec)
        if error.kind == FATAL:
            self.fatal.append(error)
            self._stop()
        return error

    def _turn_answered(self, conv, answer, rec: dict) -> AttemptError | None:
        """Fold ``answer`` into ``conv`` and its record ``rec`` (status "turn", or "ok" when it ends the
        conversation, and the texts that go back); an error of kind ``UNEXPECTED`` when the protocol fails (a bug:
        the paid answer is still logged, as a failed attempt that keeps its response)."""
        try:
            outcome = self.protocol.answered(conv, answer.text, answer.tool_calls)
        except Exception as exc:  # noqa: BLE001 - a bug must not lose a paid answer
            error = self._unexpected(exc)
            conv.ended = True  # the same bug would meet the next try
            rec.update(status=ERROR, error_type=error.kind, error=error.message)
            return error
        rec.update(outcome.fields)
        return None

    def _unexpected(self, exc: Exception) -> AttemptError:
        """A failed attempt of kind ``UNEXPECTED`` for ``exc``; its traceback kept (scrubbed) for the run's end."""
        secrets = getattr(self.provider, "secrets", ())
        self.tracebacks.append(redact_error("".join(traceback.format_exception(exc)), secrets, limit=None))
        return AttemptError(UNEXPECTED, redact_error(f"{type(exc).__name__}: {exc}", secrets))
