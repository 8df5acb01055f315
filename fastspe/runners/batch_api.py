from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass

from .anthropic_runner import completion_of as anthropic_completion
from .base import classify_sdk_error, redact_error
from .openai_runner import completion_of as openai_completion
from .retry import BAD_RESPONSE, CLIENT, FATAL, RATE_LIMIT, SERVER, TIMEOUT, AttemptError, kind_for_status
from ..errors import UserError

LOOKUP_SLACK_S = 3600  # batches are listed newest first: stop looking this long before the pending marker
NO_BATCH_API = (404, 405)  # what a server without batch endpoints answers to them
# A trial id in a line too damaged to parse (JSON cut short, a stray byte): its request can still be named.
SALVAGED_ID = re.compile(rb'"custom_id"\s*:\s*"([0-9A-Za-z_.:-]{1,200})"')


@dataclass
class BatchState:
    """A batch as polled: ``status`` in fastspe's words (submitted, in_progress, ended) and the SDK object."""

    status: str
    raw: object

    @property
    def ended(self) -> bool:
        return self.status == "ended"


class CreateFailed(AttemptError):
    """Creating a batch failed. ``absent``: the batch surely does not exist (its upload failed, or the server
    answered the create with a refusal), so no marker may say it might."""

    def __init__(self, error: AttemptError, message: str, absent: bool):
        super().__init__(error.kind, message, http_status=error.http_status, request_id=error.request_id)
        self.absent = absent


def keep(results: dict, custom_id: str, outcome: tuple) -> None:
    """Put one result line's ``(Completion, None)`` or ``(None, AttemptError)`` into ``results``: a delivered
    answer wins over an error for the same request, whatever the order of the lines (it was paid for; the
    error line must not make it be sent again), and the first of two answers stays."""
    old = results.get(custom_id)
    if old is None or (old[0] is None and outcome[0] is not None):
        results[custom_id] = outcome


def _salvaged_id(raw: bytes) -> str | None:
    """The one ``custom_id`` a damaged line still shows, else None."""
    found = {m.group(1).decode("ascii") for m in SALVAGED_ID.finditer(raw)}
    return found.pop() if len(found) == 1 else None


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


class _Adapter:
    def __init__(self, runner):
        self.runner, self.client, self.sdk = runner, runner.client, runner._sdk

    def call(self, request):
        """``request()`` with SDK failures as a secret-free ``AttemptError``."""
        try:
            return request()
        except self.sdk.APIError as exc:
            raise classify_sdk_error(exc, self.sdk, self.runner.secrets) from None

    def creating(self, endpoint: str, request, before_create: bool = False):
        """``request()``, a step of creating a batch; a ``CreateFailed`` naming the server and ``endpoint``.

        The batch surely does not exist when a step before the create failed (``before_create``), or when the
        server answered the create with a refusal (4xx); not after a timeout or a 5xx, which may follow a
        creation (then the pending marker stays and the next run looks the batch up)."""
        try:
            return self.call(request)
        except AttemptError as exc:
            server = self.runner.base_url
            if exc.http_status in NO_BATCH_API:
                message = (
                    f"{server} has no batch API ({endpoint} answered HTTP {exc.http_status}); nothing was "
                    f"sent: run without --batch, or give a --base-url that serves batches"
                )
            else:
                message = f"creating a batch at {server} failed ({endpoint}): {exc.message}"
            absent = before_create or (exc.http_status is not None and exc.http_status < 500)
            raise CreateFailed(exc, redact_error(message, self.runner.secrets), absent) from None

    def error(self, kind: str, message: str, status=None, request_id=None) -> AttemptError:
        return AttemptError(kind, redact_error(message, self.runner.secrets), http_status=status, request_id=request_id)

    def unreadable(self, where: str, why: str, request_id=None) -> AttemptError:
        """The failure of a request whose result line is damaged (worth another try: the line, not the request,
        is at fault)."""
        return self.error(
            BAD_RESPONSE, f"{where}: {why}", request_id=request_id if isinstance(request_id, str) else None
        )

    def body(self, trial, settings) -> dict:
        """The JSON body the online mode sends for ``trial`` (``extra_body`` merged in)."""
        kwargs = self.runner.request(trial.opening, settings)
        extra = kwargs.pop("extra_body", {})
        return {**kwargs, **extra}

    def read_lines(self, data: bytes, where: str, read_line) -> dict:
        """Each request's outcome from a JSONL results file, every line read on its own.

        ``read_line(obj, where)`` reads one parsed line into ``(custom_id, outcome)``. A line that cannot be
        read is a failed attempt of its request when its ``custom_id`` can still be found, else a warning
        naming the file and line (the request then has no result and counts as failed)."""
        results: dict = {}
        for lineno, raw in enumerate(data.splitlines(), start=1):
            if not raw.strip():
                continue
            at = f"{where}: line {lineno}"
            try:
                obj = json.loads(raw)
            except ValueError as exc:  # not JSON, or not UTF-8
                cid, outcome = _salvaged_id(raw), (None, self.unreadable(at, f"not JSON ({exc})"))
            else:
                cid = obj.get("custom_id") if isinstance(obj, dict) else None
                if not isinstance(obj, dict):
                    outcome = (None, self.unreadable(at, "not a JSON object"))
                elif not isinstance(cid, str) or not cid:
                    why = "no custom_id" if cid is None else f"custom_id {cid!r} is not a request id"
                    cid, outcome = None, (None, self.unreadable(at, why))
                else:
                    outcome = read_line(obj, at)
            if cid is None:
                warnings.warn(
                    f"{outcome[1].message}; its request cannot be told, so the line is skipped (a request "
                    f"without a readable result counts as a failed attempt and is sent again)",
                    stacklevel=2,
                )
                continue
            keep(results, cid, outcome)
        return results


class OpenAIBatches(_Adapter):
    """``/v1/batches`` over ``/v1/chat/completions``: an uploaded JSONL, found again by a metadata token."""

    ENDPOINT = "/v1/chat/completions"
    TOKEN_KEY = "fastspe_token"
    STATES = {
        "validating": "submitted",
        "in_progress": "in_progress",
        "finalizing": "in_progress",
        "cancelling": "in_progress",
        "completed": "ended",
        "failed": "ended",
        "expired": "ended",
        "cancelled": "ended",
    }

    def prepare(self, trials, settings):
        """Upload the requests (no batch exists yet: a failure here leaves nothing to find); the file id."""
        lines = (
            json.dumps(
                {"custom_id": t.trial_id, "method": "POST", "url": self.ENDPOINT, "body": self.body(t, settings)}
            )
            for t in trials
        )
        data = ("\n".join(lines) + "\n").encode("utf-8")
        return self.creating(
            "POST /v1/files",
            lambda: self.client.files.create(file=("fastspe-batch.jsonl", data), purpose="batch"),
            before_create=True,
        ).id

    def create(self, prepared, token: str) -> str:
        return self.creating(
            "POST /v1/batches",
            lambda: self.client.batches.create(
                input_file_id=prepared,
                endpoint=self.ENDPOINT,
                completion_window="24h",
                metadata={self.TOKEN_KEY: token},
            ),
        ).id

    def retrieve(self, batch_id: str) -> BatchState:
        batch = self.call(lambda: self.client.batches.retrieve(batch_id))
        return BatchState(self.STATES.get(batch.status, "in_progress"), batch)

    def look_up(self, token: str, created_after: float, n: int, known: set) -> str | None:
        try:
            for batch in self.call(lambda: self.client.batches.list(limit=100)):
                if (batch.metadata or {}).get(self.TOKEN_KEY) == token:
                    return batch.id
                if batch.created_at < created_after - LOOKUP_SLACK_S:
                    break
        except AttemptError as exc:
            if exc.http_status not in NO_BATCH_API:
                raise
            # no batch endpoints: the batch was never created
        return None

    def results(self, state: BatchState) -> tuple[dict, AttemptError]:
        """Each custom id's (Completion, None) or (None, AttemptError); the error of a request without a result."""
        batch, results = state.raw, {}
        for label, file_id in (("output", batch.output_file_id), ("error", batch.error_file_id)):
            if file_id:
                data = self.call(lambda: self.client.files.content(file_id)).content
                for cid, outcome in self.read_lines(
                    data, f"batch {batch.id}: {label} file {file_id}", self._result
                ).items():
                    keep(results, cid, outcome)
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        why = "; ".join(f"{e.code}: {e.message}" for e in errors) or "no readable result for this request"
        # An expired batch is worth another try, and so is a completed one that lost a result; a cancelled or
        # invalid one would end the same way again.
        kind = {"expired": TIMEOUT, "completed": BAD_RESPONSE}.get(batch.status, CLIENT)
        return results, self.error(kind, f"batch {batch.status}: {why}")

    def _result(self, line: dict, where: str):
        response = line.get("response")
        if response is not None and not isinstance(response, dict):
            return None, self.unreadable(where, f"response is {type(response).__name__}, not a JSON object")
        response = response or {}
        status, body, request_id = response.get("status_code"), response.get("body"), response.get("request_id")
        request_id = request_id if isinstance(request_id, str) else None
        if status is not None and (isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599):
            return None, self.unreadable(where, f"status_code {status!r} is not an HTTP status", request_id)
        if status == 200:
            try:
                parsed = self.sdk.types.chat.ChatCompletion.model_validate(body)
                return openai_completion(parsed, request_id=request_id), None
            except (ValueError, TypeError, AttributeError, IndexError) as exc:
                return None, self.unreadable(
                    where, f"an answer that is not a chat completion ({type(exc).__name__}: {exc})", request_id
                )
        detail = _dict(_dict(body).get("error")) or _dict(line.get("error"))
        message = ": ".join(str(x) for x in (detail.get("code"), detail.get("message")) if x)
        if not message:  # an error body (or error) that is plain text
            text = body if isinstance(body, str) else line.get("error")
            message = text if isinstance(text, str) and text else f"HTTP {status}"
        if status:
            kind = FATAL if detail.get("code") == "insufficient_quota" else kind_for_status(status)
        else:
            kind = TIMEOUT if detail.get("code") == "batch_expired" else SERVER
        return None, self.error(kind, message, status, request_id)


class AnthropicBatches(_Adapter):
    """``/v1/messages/batches``: requests inline. A batch has no metadata, so a batch whose id a killed run did
    not record is found by its creation time and request count, and only when exactly one batch fits."""

    # Anthropic's error types as fastspe's failure kinds.
    KINDS = {
        "rate_limit_error": RATE_LIMIT,
        "api_error": SERVER,
        "overloaded_error": SERVER,
        "authentication_error": FATAL,
        "permission_error": FATAL,
        "not_found_error": FATAL,
        "billing_error": FATAL,
    }

    def prepare(self, trials, settings):
        """The batch's requests (sent inline with the create)."""
        return [{"custom_id": t.trial_id, "params": self.body(t, settings)} for t in trials]

    def create(self, prepared, token: str) -> str:
        return self.creating(
            "POST /v1/messages/batches", lambda: self.client.messages.batches.create(requests=prepared)
        ).id

    def retrieve(self, batch_id: str) -> BatchState:
        batch = self.call(lambda: self.client.messages.batches.retrieve(batch_id))
        return BatchState("ended" if batch.processing_status == "ended" else "in_progress", batch)

    def look_up(self, token: str, created_after: float, n: int, known: set) -> str | None:
        fits = []
        try:
            for batch in self.call(lambda: self.client.messages.batches.list(limit=100)):
                created = batch.created_at.timestamp()
                if created < created_after - LOOKUP_SLACK_S:
                    break
                counts = batch.request_counts
                total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
                if created >= created_after - 60 and total == n and batch.id not in known:  # 60 s of clock skew
                    fits.append(batch.id)
        except AttemptError as exc:
            if exc.http_status not in NO_BATCH_API:
                raise
            return None  # no batch endpoints: the batch was never created
        if len(fits) > 1:
            raise UserError(
                f"a run was killed while creating a batch of {n} requests and {len(fits)} batches "
                f"of that size were created since ({', '.join(fits)}); append "
                f'{{"event": "batch_submitted", "token": "{token}", "batch_id": ID, "condition": ...}} '
                f"naming the right one to the log, or cancel the others"
            )
        return fits[0] if fits else None

    def results(self, state: BatchState) -> tuple[dict, AttemptError]:
        # The raw JSONL, not the SDK's decoder: one damaged line would stop it, and every later answer with it.
        batch = state.raw
        data = self.call(
            lambda: self.client.get(
                batch.results_url, cast_to=bytes, options={"headers": {"Accept": "application/binary"}}
            )
        )
        results = self.read_lines(data, f"batch {batch.id}: results", self._result)
        return results, self.error(BAD_RESPONSE, "no readable result for this request")

    def _result(self, line: dict, where: str):
        result = line.get("result")
        if not isinstance(result, dict):
            return None, self.unreadable(where, "result is not a JSON object")
        kind = result.get("type")
        if kind == "succeeded":
            try:
                return anthropic_completion(self.sdk.types.Message.model_validate(result.get("message"))), None
            except (ValueError, TypeError, AttributeError, IndexError) as exc:
                return None, self.unreadable(where, f"an answer that is not a message ({type(exc).__name__}: {exc})")
        if kind == "errored":
            detail = _dict(_dict(result.get("error")).get("error"))
            error_type = detail.get("type")
            error_type = error_type if isinstance(error_type, str) else None
            return None, self.error(
                self.KINDS.get(error_type, CLIENT if error_type == "invalid_request_error" else SERVER),
                f"{error_type}: {detail.get('message', '')}",
            )
        if kind in ("expired", "canceled"):  # expired: worth another try; canceled would end the same way again
            return None, self.error(TIMEOUT if kind == "expired" else CLIENT, f"request {kind}")
        return None, self.unreadable(where, f"result type {kind!r} is none of succeeded, errored, canceled, expired")


ADAPTERS = {"openai": OpenAIBatches, "anthropic": AnthropicBatches}
