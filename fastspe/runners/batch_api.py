"""The two batch APIs behind ``fastspe run --batch``: OpenAI's Batch API and Anthropic's Message Batches.

Each adapter creates a batch from trials (the request body is the online mode's), polls it, reads its results
as ``Completion`` or ``AttemptError`` per custom id, and finds a batch whose creation a killed run left
unrecorded. ``batch.py`` drives them and writes the log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .anthropic_runner import completion_of as anthropic_completion
from .base import KEY_SHAPED, MAX_ERROR_CHARS, classify_sdk_error
from .log import scrub
from .openai_runner import completion_of as openai_completion
from .retry import BAD_RESPONSE, CLIENT, FATAL, RATE_LIMIT, SERVER, TIMEOUT, AttemptError, kind_for_status
from ..boundary.errors import UserError

LOOKUP_SLACK_S = 3600  # batches are listed newest first: stop looking this long before the pending marker


@dataclass
class BatchState:
    """A batch as polled: ``status`` in fastspe's words (submitted, in_progress, ended) and the SDK object."""

    status: str
    raw: object

    @property
    def ended(self) -> bool:
        return self.status == "ended"


class _Adapter:
    def __init__(self, runner):
        self.runner, self.client, self.sdk = runner, runner.client, runner._sdk

    def call(self, request):
        """``request()`` with SDK failures as a secret-free ``AttemptError``."""
        try:
            return request()
        except self.sdk.APIError as exc:
            raise classify_sdk_error(exc, self.sdk, self.runner.secrets) from None

    def error(self, kind: str, message: str, status=None, request_id=None) -> AttemptError:
        message = KEY_SHAPED.sub("[redacted]", scrub(message, self.runner.secrets))[:MAX_ERROR_CHARS]
        return AttemptError(kind, message, http_status=status, request_id=request_id)

    def body(self, trial, settings) -> dict:
        """The JSON body the online mode sends for ``trial`` (``extra_body`` merged in)."""
        kwargs = self.runner.request(trial.prompt, settings)
        extra = kwargs.pop("extra_body", {})
        return {**kwargs, **extra}


class OpenAIBatches(_Adapter):
    """``/v1/batches`` over ``/v1/chat/completions``: an uploaded JSONL, found again by a metadata token."""

    ENDPOINT = "/v1/chat/completions"
    TOKEN_KEY = "fastspe_token"
    STATES = {"validating": "submitted", "in_progress": "in_progress", "finalizing": "in_progress",
              "cancelling": "in_progress", "completed": "ended", "failed": "ended", "expired": "ended",
              "cancelled": "ended"}

    def create(self, trials, settings, token: str) -> str:
        lines = (json.dumps({"custom_id": t.trial_id, "method": "POST", "url": self.ENDPOINT,
                             "body": self.body(t, settings)}) for t in trials)
        data = ("\n".join(lines) + "\n").encode("utf-8")
        upload = self.call(lambda: self.client.files.create(file=("fastspe-batch.jsonl", data), purpose="batch"))
        return self.call(lambda: self.client.batches.create(
            input_file_id=upload.id, endpoint=self.ENDPOINT, completion_window="24h",
            metadata={self.TOKEN_KEY: token})).id

    def retrieve(self, batch_id: str) -> BatchState:
        batch = self.call(lambda: self.client.batches.retrieve(batch_id))
        return BatchState(self.STATES.get(batch.status, "in_progress"), batch)

    def look_up(self, token: str, created_after: float, n: int, known: set) -> str | None:
        for batch in self.call(lambda: self.client.batches.list(limit=100)):
            if (batch.metadata or {}).get(self.TOKEN_KEY) == token:
                return batch.id
            if batch.created_at < created_after - LOOKUP_SLACK_S:
                break
        return None

    def results(self, state: BatchState) -> tuple[dict, AttemptError]:
        """Each custom id's (Completion, None) or (None, AttemptError); the error of a request without a result."""
        batch, results = state.raw, {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                for raw in self.call(lambda: self.client.files.content(file_id)).text.splitlines():
                    if raw.strip():
                        line = json.loads(raw)
                        results[line.get("custom_id")] = self._result(line)
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        why = "; ".join(f"{e.code}: {e.message}" for e in errors) or "no result for this request"
        # An expired batch is worth another try; a cancelled or invalid one would end the same way again.
        missing = self.error(TIMEOUT if batch.status == "expired" else CLIENT, f"batch {batch.status}: {why}")
        return results, missing

    def _result(self, line: dict):
        response = line.get("response") or {}
        status, body, request_id = response.get("status_code"), response.get("body"), response.get("request_id")
        if status == 200:
            try:
                parsed = self.sdk.types.chat.ChatCompletion.model_validate(body)
                return openai_completion(parsed, request_id=request_id), None
            except (ValueError, TypeError, AttributeError, IndexError) as exc:
                return None, self.error(BAD_RESPONSE, f"{type(exc).__name__}: {exc}", status, request_id)
        detail = (body.get("error") if isinstance(body, dict) else None) or line.get("error") or {}
        message = ": ".join(str(x) for x in (detail.get("code"), detail.get("message")) if x) or f"HTTP {status}"
        if status:
            kind = FATAL if detail.get("code") == "insufficient_quota" else kind_for_status(int(status))
        else:
            kind = TIMEOUT if detail.get("code") == "batch_expired" else SERVER
        return None, self.error(kind, message, status, request_id)


class AnthropicBatches(_Adapter):
    """``/v1/messages/batches``: requests inline. A batch has no metadata, so a batch whose id a killed run did
    not record is found by its creation time and request count, and only when exactly one batch fits."""

    # Anthropic's error types as fastspe's failure kinds.
    KINDS = {"rate_limit_error": RATE_LIMIT, "api_error": SERVER, "overloaded_error": SERVER,
             "authentication_error": FATAL, "permission_error": FATAL, "not_found_error": FATAL,
             "billing_error": FATAL}

    def create(self, trials, settings, token: str) -> str:
        requests = [{"custom_id": t.trial_id, "params": self.body(t, settings)} for t in trials]
        return self.call(lambda: self.client.messages.batches.create(requests=requests)).id

    def retrieve(self, batch_id: str) -> BatchState:
        batch = self.call(lambda: self.client.messages.batches.retrieve(batch_id))
        return BatchState("ended" if batch.processing_status == "ended" else "in_progress", batch)

    def look_up(self, token: str, created_after: float, n: int, known: set) -> str | None:
        fits = []
        for batch in self.call(lambda: self.client.messages.batches.list(limit=100)):
            created = batch.created_at.timestamp()
            if created < created_after - LOOKUP_SLACK_S:
                break
            counts = batch.request_counts
            total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
            if created >= created_after - 60 and total == n and batch.id not in known:  # 60 s of clock skew
                fits.append(batch.id)
        if len(fits) > 1:
            raise UserError(f"a run was killed while creating a batch of {n} requests and {len(fits)} batches "
                            f"of that size were created since ({', '.join(fits)}); append "
                            f'{{"event": "batch_submitted", "token": "{token}", "batch_id": ID, "condition": ...}} '
                            f"naming the right one to the log, or cancel the others")
        return fits[0] if fits else None

    def results(self, state: BatchState) -> tuple[dict, AttemptError]:
        results = {}
        for line in self.call(lambda: list(self.client.messages.batches.results(state.raw.id))):
            result = line.result
            if result.type == "succeeded":
                try:
                    results[line.custom_id] = anthropic_completion(result.message), None
                except (ValueError, TypeError, AttributeError, IndexError) as exc:
                    results[line.custom_id] = None, self.error(BAD_RESPONSE, f"{type(exc).__name__}: {exc}")
            elif result.type == "errored":
                detail = getattr(result.error, "error", None)
                kind = getattr(detail, "type", None)
                results[line.custom_id] = None, self.error(
                    self.KINDS.get(kind, CLIENT if kind == "invalid_request_error" else SERVER),
                    f"{kind}: {getattr(detail, 'message', '')}")
            else:  # expired (worth another try) or canceled (would end the same way again)
                results[line.custom_id] = None, self.error(TIMEOUT if result.type == "expired" else CLIENT,
                                                           f"request {result.type}")
        return results, self.error(CLIENT, "no result for this request")


ADAPTERS = {"openai": OpenAIBatches, "anthropic": AnthropicBatches}
