"""The runners' HTTP path (the SDKs' own httpx client, ``runners/http_client.py``) against hostile local servers:
every malformed, endless, redirected or refused answer is one classified ``AttemptError`` (so the sender logs it
and frees its slot), ``timeout`` bounds a whole attempt however slowly a server sends, and no redirect is
followed."""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time

import pytest

from tests.fake_llm_server import FakeLLMServer, isolate_api_environment, ok
from fastspe.runners import GenerationSettings
from fastspe.runners.anthropic_runner import AnthropicMessages
from fastspe.runners.openai_runner import OpenAIChat
from fastspe.runners.retry import CLIENT, CONNECTION, TIMEOUT, AttemptError

pytest.importorskip("openai")
pytest.importorskip("anthropic")
KEY = "sk-fastspe-HOSTILE-0123456789abcdef"
HANG_GUARD_S = 60  # far above any timeout below: only a hang reaches it
ANSWER = json.dumps(
    {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "MOVES: U"}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    }
).encode()


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    isolate_api_environment(monkeypatch, KEY)


def read_request(conn: socket.socket) -> bool:
    """Read one HTTP request from ``conn``; False when the client closed the connection first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    while len(rest) < length:
        rest += conn.recv(65536)
    return True


@contextlib.contextmanager
def raw_server(reply: bytes, drip_s: float | None = None, close: bool = True):
    """A server on 127.0.0.1 that answers each request with the bytes ``reply`` (one byte every ``drip_s``
    seconds when given, until the client leaves), then closes the connection when ``close``; yields its port and
    the number of connections it accepted."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    accepted, stop = [0], threading.Event()

    def answer(conn):
        with conn:
            while read_request(conn):
                try:
                    if drip_s is None:
                        conn.sendall(reply)
                    else:
                        for i in range(len(reply)):
                            if stop.is_set():
                                return
                            conn.sendall(reply[i : i + 1])
                            time.sleep(drip_s)
                except OSError:  # the client left: what a deadline does
                    return
                if close:
                    return

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                continue
            accepted[0] += 1
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def runner(wire: str, port: int, timeout: float = 5.0, **kw):
    url = f"http://127.0.0.1:{port}" + ("/v1" if wire == "openai" else "")
    return (OpenAIChat if wire == "openai" else AnthropicMessages)("fake", base_url=url, timeout=timeout, **kw)


def outcome(run) -> AttemptError | object:
    """``run.complete``'s answer or AttemptError, on a thread joined under the hang guard (any other exception is
    re-raised: the test fails)."""
    got: list = []

    def call():
        try:
            got.append(run.complete("Solve this board.", run.effective_settings(GenerationSettings()), "t"))
        except AttemptError as exc:
            got.append(exc)
        except BaseException as exc:  # noqa: BLE001 - shown by the assertion below
            got.append(("raw", exc))

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive(), "the attempt hung"
    run.close()
    assert not (isinstance(got[0], tuple) and got[0][0] == "raw"), f"a raw exception escaped: {got[0]!r}"
    return got[0]


def head(status: str = "200 OK", *lines: str) -> bytes:
    return (
        "HTTP/1.1 "
        + status
        + "\r\nContent-Type: application/json\r\n"
        + "".join(f"{line}\r\n" for line in lines)
        + "\r\n"
    ).encode()


HOSTILE = {
    "negative chunk size": head("200 OK", "Transfer-Encoding: chunked") + b"-5\r\nhello\r\n0\r\n\r\n",
    "chunk size not hex": head("200 OK", "Transfer-Encoding: chunked") + b"zz\r\nhello\r\n0\r\n\r\n",
    "absurd content-length": head("200 OK", "Content-Length: 99999999999999999999999999") + ANSWER,
    "negative content-length": head("200 OK", "Content-Length: -1") + ANSWER,
    "cut short": head("200 OK", "Content-Length: 1000") + ANSWER[:10],
    "not http": b"HTTX/1.1 200 OK\r\n\r\n",
    "nothing": b"",
    "endless header": b"HTTP/1.1 200 OK\r\nX-Junk: " + b"a" * 300_000,
}


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize("case", HOSTILE)
def test_a_malformed_answer_is_a_connection_failure(wire, case):
    with raw_server(HOSTILE[case]) as (port, _):
        got = outcome(runner(wire, port))
    assert isinstance(got, AttemptError) and got.kind == CONNECTION, got
    assert f"127.0.0.1:{port}" in got.message and KEY not in got.message


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_dripped_answer_past_the_timeout_is_a_timeout_not_an_answer(wire):
    """One byte every 0.08 s: each read is quick, the answer as a whole is not; at a 2 s timeout the attempt ends
    as a timeout (before, reads were bounded one by one and the answer, 20 s later, was taken)."""
    reply = head("200 OK", f"Content-Length: {len(ANSWER)}") + ANSWER
    with raw_server(reply, drip_s=0.08) as (port, _):
        assert len(reply) * 0.08 > 10  # the whole answer would take far longer than the timeout
        got = outcome(runner(wire, port, timeout=2))
    assert isinstance(got, AttemptError) and got.kind == TIMEOUT, got
    assert "timeout of 2 s" in got.message and f"127.0.0.1:{port}" in got.message


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_an_answer_within_the_timeout_is_taken(wire):
    with raw_server(head("200 OK", f"Content-Length: {len(ANSWER)}") + ANSWER) as (port, _):
        got = outcome(runner("openai", port, timeout=2))
    assert not isinstance(got, AttemptError) and got.text == "MOVES: U"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize("code", [301, 302, 307, 308])
def test_a_redirect_is_not_followed_and_names_where_it_led(wire, code):
    with FakeLLMServer(key=KEY) as other:
        other.push(ok("MOVES: D"))
        location = (other.openai_url + "/chat/completions") + f"?key={KEY}"
        with raw_server(head(f"{code} Moved", f"Location: {location}", "Content-Length: 0")) as (port, _):
            got = outcome(runner(wire, port))
        assert not other.seen  # the other host was never asked
    assert isinstance(got, AttemptError) and got.kind == CLIENT and got.http_status == code
    assert f"HTTP {code}" in got.message and other.openai_url in got.message and f"127.0.0.1:{port}" in got.message
    assert KEY not in got.message


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_wrong_port_names_the_address_and_the_reason(wire):
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    got = outcome(runner(wire, port))
    assert isinstance(got, AttemptError) and got.kind == CONNECTION
    assert f"connection refused to http://127.0.0.1:{port} (the server is not listening)" in got.message


def test_a_connection_the_server_closed_is_not_reused():
    with raw_server(head("200 OK", f"Content-Length: {len(ANSWER)}") + ANSWER) as (port, accepted):
        run = runner("openai", port)
        for i in range(3):
            assert run.complete("p", GenerationSettings(), f"t{i}").text == "MOVES: U"
            time.sleep(0.05)  # the server's close arrives before the next request
        run.close()
    assert accepted[0] == 3


def test_a_kept_alive_connection_carries_the_next_request():
    with raw_server(head("200 OK", f"Content-Length: {len(ANSWER)}") + ANSWER, close=False) as (port, accepted):
        run = runner("openai", port)
        for i in range(3):
            assert run.complete("p", GenerationSettings(), f"t{i}").text == "MOVES: U"
        run.close()
    assert accepted[0] == 1


def test_a_gzipped_answer_is_decoded():
    body = gzip.compress(ANSWER)
    with raw_server(head("200 OK", "Content-Encoding: gzip", f"Content-Length: {len(body)}") + body) as (port, _):
        got = outcome(runner("openai", port))
    assert not isinstance(got, AttemptError) and got.text == "MOVES: U"


def test_the_pool_opens_no_more_connections_than_the_run_sends_at_once():
    """Six requests at once on a pool of two: the server sees two connections, each carrying three requests."""
    reply = head("200 OK", f"Content-Length: {len(ANSWER)}") + ANSWER
    with raw_server(reply, close=False) as (port, accepted):
        run = runner("openai", port, max_connections=2)
        texts: list = []
        threads = [
            threading.Thread(target=lambda i=i: texts.append(run.complete("p", GenerationSettings(), f"{i}")))
            for i in range(6)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(HANG_GUARD_S)
        run.close()
    assert len(texts) == 6 and accepted[0] <= 2
