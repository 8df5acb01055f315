"""A scriptable model server on 127.0.0.1 speaking the OpenAI chat-completions and Anthropic
messages wire formats, for testing the runners over real HTTP (stdlib ``http.server`` in a thread).

Each request asks ``server.script(request)`` (default: the next queued action, else ``ok()``) what
to do: answer, answer late, fail with a status, drop the connection or send truncated JSON.
Every request is recorded with its wire format, prompt, trial-id header and what was done.

Tool calls are scriptable in both wire formats: ``call("U,L")`` answers with a call of ``apply_moves`` (OpenAI
``tool_calls``, Anthropic ``tool_use`` blocks), ``ok(text, tool_calls=[(name, arguments), ...])`` with any. A
request's ``turn`` is 1 + the assistant messages it carries; ``answered_turns()`` counts the answers per (trial id,
turn), what a conversation paid for.

It also speaks OpenAI's Batch API (files upload and content, batches create, retrieve, list, cancel) and
Anthropic's Message Batches (create, retrieve, list, cancel, results): a batch completes on its
``batch_polls``-th retrieve, when each request line of its input file goes through the same
``server.script`` as an online request (recorded in ``seen`` with its ``custom_id`` as the trial id); answers go
to the output file, scripted failures to the error file. ``batch_creations`` counts the batches created.
``edit_batch_file(kind, lines)`` (kind "output", "error" or "results") may rewrite a finished batch's result lines
(bytes, one per line) to damage, add or reorder them; ``refuse`` maps ``"METHOD /path"`` to a status the server
answers instead (a server without batch endpoints).
"""

from __future__ import annotations

import email.parser
import itertools
import json
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Action:
    kind: str = "ok"  # ok | status | drop | truncated
    text: str = "MOVES: U,L"
    finish_reason: str = "stop"  # OpenAI vocabulary; "length" becomes Anthropic "max_tokens"
    delay: float = 0.0
    status: int = 200
    headers: dict = field(default_factory=dict)
    model: str | None = None  # returned model; None echoes the requested one
    error_code: str | None = None  # OpenAI error body "code"
    message: str | None = None  # the error body's message (default "scripted STATUS")
    tool_calls: list | None = None  # [(name, JSON arguments text), ...]: the answer calls these tools


def isolate_api_environment(monkeypatch, key: str) -> None:
    """``key`` as both providers' API key, and no base URL or proxy taken from the environment: the tests talk to a
    local server only."""
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    for var in (
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ):
        monkeypatch.delenv(var, raising=False)


def ok(text: str = "MOVES: U,L", **kw) -> Action:
    return Action("ok", text=text, **kw)


def call(moves: str, text: str = "", **kw) -> Action:
    """An answer that calls ``apply_moves`` with ``moves`` (and says ``text`` beside it)."""
    return Action("ok", text=text, tool_calls=[("apply_moves", json.dumps({"moves": moves}))], **kw)


def slow(seconds: float, **kw) -> Action:
    return Action("ok", delay=seconds, **kw)


def status(code: int, retry_after: float | None = None, **kw) -> Action:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
    return Action("status", status=code, headers=headers, **kw)


def drop(**kw) -> Action:
    return Action("drop", **kw)


def truncated(**kw) -> Action:
    return Action("truncated", **kw)


@dataclass
class Seen:
    """One request as the server saw it."""

    n: int
    wire: str  # "openai" | "anthropic"
    path: str
    body: dict
    headers: dict
    action: Action
    at: float = 0.0  # time.monotonic() when the request arrived
    answered: bool = False  # a complete 200 answer was written to the socket

    @property
    def prompt(self) -> str:
        return self.body["messages"][0]["content"]

    @property
    def trial_id(self) -> str | None:
        return self.headers.get("x-fastspe-trial-id")

    @property
    def turn(self) -> int:
        """1 + the assistant turns the request carries: which turn of its conversation it asks for."""
        return 1 + sum(m.get("role") == "assistant" for m in self.body.get("messages", ()))


class FakeLLMServer:
    """Start with ``with FakeLLMServer(key=...) as server:``; ``openai_url`` and ``anthropic_url`` to connect.

    Parameters
    ----------
    key : str or None
        When given, requests whose key differs get a 401 whose body echoes the key they sent.
    delay : float
        Seconds every answer waits (on top of an action's own delay).
    """

    def __init__(self, key: str | None = None, delay: float = 0.0):
        self.key = key
        self.delay = delay
        self.queue: deque[Action] = deque()
        self.script = self._next_queued
        self.seen: list[Seen] = []
        self.count = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self.batch_polls = 1  # a batch completes on this retrieve of it
        self.batches: dict[str, dict] = {}
        self.files: dict[str, bytes] = {}
        self.batch_creations = 0
        self.edit_batch_file = None  # (kind, lines) -> lines: rewrite a finished batch's result lines
        self.refuse: dict[str, int] = {}  # "POST /v1/files" -> 404: routes this server does not have
        self._ids = itertools.count(1)
        self._batch_lock = threading.Lock()
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def push(self, *actions: Action) -> None:
        """Queue actions for the next requests, in order; after them, requests get ``ok()``."""
        self.queue.extend(actions)

    def _next_queued(self, seen: Seen) -> Action:
        with self._lock:
            return self.queue.popleft() if self.queue else ok()

    def __enter__(self) -> "FakeLLMServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.seen.append(seen)

    def answered_trials(self) -> list[str]:
        return [s.trial_id for s in self.seen if s.answered]

    def answered_turns(self) -> dict:
        """(trial id, turn) -> answers the server delivered for it."""
        counts: dict = {}
        for s in self.seen:
            if s.answered:
                counts[s.trial_id, s.turn] = counts.get((s.trial_id, s.turn), 0) + 1
        return counts


def _new_id(server: FakeLLMServer, prefix: str) -> str:
    with server._lock:
        return f"{prefix}-{next(server._ids)}"


def _multipart_file(content_type: str, raw: bytes) -> bytes:
    """The ``file`` part of a multipart/form-data upload."""
    message = email.parser.BytesParser().parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    for part in message.get_payload():
        if part.get_param("name", header="content-disposition") == "file":
            return part.get_payload(decode=True)
    raise ValueError("no file part")


def _scripted(server: FakeLLMServer, wire: str, path: str, custom_id: str, body: dict) -> Seen:
    """One request of a batch, seen and scripted as an online request (``seen.action`` says what to do)."""
    with server._lock:
        server.count += 1
        n = server.count
    seen = Seen(n, wire, path, body, {"x-fastspe-trial-id": custom_id}, Action(), at=time.monotonic())
    seen.action = server.script(seen)
    seen.answered = seen.action.kind == "ok"
    server.record(seen)
    return seen


ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _run_anthropic_batch(server: FakeLLMServer, batch: dict, cancel: bool = False) -> None:
    results, counts = [], {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
    for request in batch.pop("requests"):
        if cancel:
            results.append({"custom_id": request["custom_id"], "result": {"type": "canceled"}})
            counts["canceled"] += 1
            continue
        seen = _scripted(server, "anthropic", "/v1/messages", request["custom_id"], request["params"])
        if seen.answered:
            result = {"type": "succeeded", "message": _anthropic_body(seen, seen.action)}
        else:
            code = seen.action.status if seen.action.kind == "status" else 500
            kind = ANTHROPIC_ERRORS.get(code, "api_error")  # a batch result carries no status, only the type
            message = seen.action.message or f"scripted {code}"
            result = {"type": "errored", "error": {"type": "error", "error": {"type": kind, "message": message}}}
        counts[result["type"]] += 1
        results.append({"custom_id": request["custom_id"], "result": result})
    server.files[batch["id"]] = _file(server, "results", [json.dumps(x).encode() for x in results])
    batch.update(
        processing_status="ended",
        request_counts=counts,
        ended_at=_iso(time.time()),
        results_url=f"{server.anthropic_url}/v1/messages/batches/{batch['id']}/results",
    )


def _file(server: FakeLLMServer, kind: str, lines: list[bytes]) -> bytes:
    """A results file of ``lines``, as ``server.edit_batch_file`` rewrites them."""
    if server.edit_batch_file is not None:
        lines = server.edit_batch_file(kind, lines)
    return b"".join(line + b"\n" for line in lines)


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _run_batch(server: FakeLLMServer, batch: dict) -> None:
    """Answer every request line of ``batch``'s input file through ``server.script``, as the online endpoint does."""
    out, err = [], []
    for raw in server.files[batch["input_file_id"]].splitlines():
        line = json.loads(raw)
        seen = _scripted(server, "openai", line["url"], line["custom_id"], line["body"])
        action, n = seen.action, seen.n
        result = {"id": f"batch_req_{n}", "custom_id": line["custom_id"], "error": None}
        if action.kind == "ok":
            result["response"] = {"status_code": 200, "request_id": f"req-{n}", "body": _openai_body(seen, action)}
            out.append(result)
        elif action.kind == "status":
            message = action.message or f"scripted {action.status}"
            body = _error_body("openai", action.status, message, action.error_code)
            result["response"] = {"status_code": action.status, "request_id": f"req-{n}", "body": body}
            err.append(result)
        else:  # drop, truncated: the request never got an answer
            result.update(response=None, error={"code": "server_error", "message": f"scripted {action.kind}"})
            err.append(result)
    for name, lines in (("output_file_id", out), ("error_file_id", err)):
        data = _file(server, name.split("_")[0], [json.dumps(x).encode() for x in lines])
        if data:
            file_id = _new_id(server, "file")
            server.files[file_id] = data
            batch[name] = file_id
    batch.update(
        status="completed",
        completed_at=int(time.time()),
        request_counts={"total": len(out) + len(err), "completed": len(out), "failed": len(err)},
    )


def _openai_body(seen: Seen, a: Action) -> dict:
    words = len(a.text.split())
    message = {"role": "assistant", "content": a.text}
    finish = a.finish_reason
    if a.tool_calls:
        message["content"] = a.text or None
        message["tool_calls"] = [
            {"id": f"call_{seen.n}_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
            for i, (name, arguments) in enumerate(a.tool_calls)
        ]
        finish = "tool_calls" if finish == "stop" else finish
    return {
        "id": f"chatcmpl-{seen.n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": a.model or seen.body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": 100 + seen.n,
            "completion_tokens": words + 7,
            "total_tokens": 107 + words + seen.n,
            "completion_tokens_details": {"reasoning_tokens": 5},
        },
    }


def _anthropic_body(seen: Seen, a: Action) -> dict:
    stop = {"stop": "end_turn", "length": "max_tokens"}.get(a.finish_reason, a.finish_reason)
    content = [{"type": "text", "text": a.text}] if a.text or not a.tool_calls else []
    if a.tool_calls:
        content += [
            {"type": "tool_use", "id": f"toolu_{seen.n}_{i}", "name": name, "input": json.loads(arguments)}
            for i, (name, arguments) in enumerate(a.tool_calls)
        ]
        stop = "tool_use" if stop == "end_turn" else stop
    return {
        "id": f"msg_{seen.n}",
        "type": "message",
        "role": "assistant",
        "model": a.model or seen.body.get("model"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 100 + seen.n, "output_tokens": len(a.text.split()) + 7},
    }


def _error_body(wire: str, code: int, message: str, error_code: str | None = None) -> dict:
    if wire == "anthropic":
        kind = {429: "rate_limit_error", 401: "authentication_error", 529: "overloaded_error"}.get(code, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {
        "error": {
            "message": message,
            "type": "server_error" if code >= 500 else "invalid_request_error",
            "code": error_code,
        }
    }


def _public(batch: dict) -> dict:
    return {k: v for k, v in batch.items() if k not in ("polls", "requests")}


def _handler_for(server: FakeLLMServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # keep test output quiet
            pass

        def _authorized(self) -> bool:
            headers = {k.lower(): v for k, v in self.headers.items()}
            sent_key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
            if server.key is None or sent_key == server.key:
                return True
            self._send(401, _error_body("openai", 401, f"Incorrect API key provided: {sent_key}"), {})
            return False

        def _message_batches(self, method: str, path: str, raw: bytes) -> None:
            if method == "POST" and path == "/v1/messages/batches":
                requests = json.loads(raw)["requests"]
                batch = {
                    "id": _new_id(server, "msgbatch"),
                    "type": "message_batch",
                    "processing_status": "in_progress",
                    "request_counts": {
                        "processing": len(requests),
                        "succeeded": 0,
                        "errored": 0,
                        "canceled": 0,
                        "expired": 0,
                    },
                    "created_at": _iso(time.time()),
                    "expires_at": _iso(time.time() + 86400),
                    "ended_at": None,
                    "archived_at": None,
                    "cancel_initiated_at": None,
                    "results_url": None,
                    "polls": 0,
                    "requests": requests,
                }
                with server._lock:
                    server.batch_creations += 1
                    server.batches[batch["id"]] = batch
                return self._send(200, _public(batch), {})
            if method == "GET" and path == "/v1/messages/batches":
                data = [_public(b) for b in reversed(list(server.batches.values())) if b["id"].startswith("msgbatch")]
                return self._send(
                    200,
                    {
                        "data": data,
                        "has_more": False,
                        "first_id": data[0]["id"] if data else None,
                        "last_id": data[-1]["id"] if data else None,
                    },
                    {},
                )
            m = re.fullmatch(r"/v1/messages/batches/([^/]+)(/cancel|/results)?", path)
            batch = server.batches.get(m.group(1)) if m else None
            if batch is None:
                return self._send(404, _error_body("anthropic", 404, f"no route {method} {path}"), {})
            if m.group(2) == "/results":
                return self._send_bytes(200, server.files[batch["id"]], {})
            with server._batch_lock:
                if batch["processing_status"] != "ended":
                    batch["polls"] += 1
                    if m.group(2) == "/cancel" or batch["polls"] >= server.batch_polls:
                        _run_anthropic_batch(server, batch, cancel=m.group(2) == "/cancel")
            self._send(200, _public(batch), {})

        def _batch_api(self, method: str, raw: bytes) -> bool:
            """Serve a files or batches request; False for any other path."""
            path = self.path.split("?")[0].rstrip("/")
            if not re.match(r"/v1/(files|batches|messages/batches)(/|$)", path):
                return False
            if not self._authorized():
                return True
            if code := server.refuse.get(f"{method} {path}"):
                self._send(code, _error_body("openai", code, f"no route {method} {path}"), {})
                return True
            if path.startswith("/v1/messages/"):
                self._message_batches(method, path, raw)
                return True
            if method == "POST" and path == "/v1/files":
                file_id = _new_id(server, "file")
                server.files[file_id] = _multipart_file(self.headers["Content-Type"], raw)
                self._send(
                    200,
                    {
                        "id": file_id,
                        "object": "file",
                        "bytes": len(server.files[file_id]),
                        "created_at": int(time.time()),
                        "filename": "input.jsonl",
                        "purpose": "batch",
                        "status": "processed",
                    },
                    {},
                )
            elif method == "GET" and (m := re.fullmatch(r"/v1/files/([^/]+)/content", path)):
                data = server.files[m.group(1)]
                self._send_bytes(200, data, {})
            elif method == "POST" and path == "/v1/batches":
                body = json.loads(raw)
                batch = {
                    "id": _new_id(server, "batch"),
                    "object": "batch",
                    "endpoint": body["endpoint"],
                    "errors": None,
                    "input_file_id": body["input_file_id"],
                    "completion_window": "24h",
                    "status": "validating",
                    "output_file_id": None,
                    "error_file_id": None,
                    "created_at": int(time.time()),
                    "metadata": body.get("metadata"),
                    "polls": 0,
                }
                with server._lock:
                    server.batch_creations += 1
                    server.batches[batch["id"]] = batch
                self._send(200, _public(batch), {})
            elif method == "GET" and path == "/v1/batches":
                data = [_public(b) for b in reversed(list(server.batches.values()))]  # newest first
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "has_more": False,
                        "first_id": data[0]["id"] if data else None,
                        "last_id": data[-1]["id"] if data else None,
                    },
                    {},
                )
            elif m := re.fullmatch(r"/v1/batches/([^/]+)(/cancel)?", path):
                batch = server.batches[m.group(1)]
                with server._batch_lock:  # a batch runs once however many polls arrive at once
                    if m.group(2) and batch["status"] not in ("completed", "cancelled"):
                        batch["status"] = "cancelled"
                    elif batch["status"] not in ("completed", "cancelled"):
                        batch["polls"] += 1
                        batch["status"] = "in_progress"
                        if batch["polls"] >= server.batch_polls:
                            _run_batch(server, batch)
                self._send(200, _public(batch), {})
            else:
                self._send(404, _error_body("openai", 404, f"no route {method} {path}"), {})
            return True

        def do_GET(self):
            if not self._batch_api("GET", b""):
                self._send(404, _error_body("openai", 404, f"no route GET {self.path}"), {})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self._batch_api("POST", raw):
                return
            wire = "anthropic" if self.path.rstrip("/").endswith("/messages") else "openai"
            headers = {k.lower(): v for k, v in self.headers.items()}
            with server._lock:
                server.count += 1
                n = server.count
            seen = Seen(n, wire, self.path, json.loads(raw or b"{}"), headers, Action(), at=time.monotonic())
            with server._lock:
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                self._serve(seen, wire, headers)
            finally:
                with server._lock:
                    server.in_flight -= 1

        def _serve(self, seen: Seen, wire: str, headers: dict) -> None:
            n = seen.n
            # Anthropic SDKs send x-api-key (older) or a bearer token (newer); OpenAI a bearer token.
            sent_key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
            if server.key is not None and sent_key != server.key:
                seen.action = status(401)
                server.record(seen)
                # Real servers echo (part of) a wrong key; the runner must not write it anywhere.
                return self._send(401, _error_body(wire, 401, f"Incorrect API key provided: {sent_key}"), {})
            action = server.script(seen)
            seen.action = action
            server.record(seen)
            wait = server.delay + action.delay
            if wait:
                time.sleep(wait)
            if action.kind == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            rid = {"x-request-id" if wire == "openai" else "request-id": f"req-{n}"}
            if action.kind == "status":
                message = action.message or f"scripted {action.status}"
                body = _error_body(wire, action.status, message, action.error_code)
                return self._send(action.status, body, {**rid, **action.headers})
            body = (_anthropic_body if wire == "anthropic" else _openai_body)(seen, action)
            if action.kind == "truncated":
                data = json.dumps(body).encode()
                return self._send_bytes(200, data[: len(data) // 2], rid)
            seen.answered = self._send(200, body, {**rid, **action.headers})  # e.g. rate-limit headers

        def _send(self, code: int, body: dict, headers: dict) -> bool:
            return self._send_bytes(code, json.dumps(body).encode(), headers)

        def _send_bytes(self, code: int, data: bytes, headers: dict) -> bool:
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                return True
            except OSError:  # the client gave up (timeout) and closed the socket
                self.close_connection = True
                return False

    return Handler
