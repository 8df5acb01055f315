"""A run always ends and logs every attempt: a bug in an attempt, a server that drips its answer, a redirect or
a wrong port each end as logged failed attempts, and ``fastspe run`` says why trials have no answer, with the exit
code README's table gives."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tests.fake_llm_server import FakeLLMServer, isolate_api_environment
from tests.test_sdk_transport import ANSWER, head, raw_server
from fastspe.boundary.banks import write_bank
from fastspe.cli import main
from fastspe.cli.run import EXIT_BUG, EXIT_INCOMPLETE
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.runners import RetryPolicy, run_model
from fastspe.runners.openai_runner import OpenAIChat

KEY = "sk-fastspe-ENDS-d1st1nct1ve-k3y-0077"
FAST = RetryPolicy(max_retries=1, max_rate_limit_retries=1, base_delay=0.01, max_delay=0.05)
HANG_GUARD_S = 120  # far above what any run below needs: only a hang reaches it


@pytest.fixture(scope="module")
def bank():
    from fastspe.domains.sliding.bank.design import paper_design

    return build_bank(paper_design()).iloc[[0, 150, 300]].reset_index(drop=True)


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    isolate_api_environment(monkeypatch, KEY)


def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def guarded(fn):
    """``fn()`` on a thread joined under the hang guard; its result (an exception in it is re-raised)."""
    got: list = []
    thread = threading.Thread(target=lambda: got.append(_outcome(fn)), daemon=True)
    thread.start()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive(), "the run hung"
    if isinstance(got[0], BaseException):
        raise got[0]
    return got[0]


def _outcome(fn):
    try:
        return fn()
    except BaseException as exc:  # noqa: BLE001 - re-raised on the test's thread
        return exc


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]  # nothing listens there once closed


@pytest.mark.parametrize("raised", [ValueError("negative chunk size"), MemoryError()])
def test_an_unexpected_exception_is_a_logged_attempt_and_frees_its_slot(bank, tmp_path, monkeypatch, raised):
    """What a transport raised raw (a ValueError or MemoryError from a malformed answer) killed the worker before:
    no line logged, its slot never freed, and the run waited forever. One connection: a slot not freed hangs."""

    def complete(self, prompt, settings, trial_id=""):
        raise raised

    monkeypatch.setattr(OpenAIChat, "complete", complete)
    out = tmp_path / "r.jsonl"
    summary = guarded(
        lambda: run_model(
            bank,
            "openai:fake",
            out,
            base_url=f"http://127.0.0.1:{free_port()}/v1",
            trials=2,
            max_connections=1,
            timeout=5,
            policy=FAST,
        )
    )
    records = lines_of(out)
    assert len(records) == 6 and {r["error_type"] for r in records} == {"unexpected"}  # not retried
    assert summary.remaining == 6 and summary.failures == {"unexpected": 6} and len(summary.tracebacks) == 6
    assert type(raised).__name__ in records[0]["error"] and "Traceback" in summary.tracebacks[0]


def test_a_bug_in_an_attempt_exits_1_with_its_traceback_and_no_secret(bank, tmp_path, monkeypatch, capsys):
    def complete(self, prompt, settings, trial_id=""):
        raise ValueError(f"the key was {KEY}")

    monkeypatch.setattr(OpenAIChat, "complete", complete)
    bank_file = tmp_path / "bank.jsonl"
    write_bank(bank.head(1), bank_file)
    code = guarded(
        lambda: main(
            [
                "run",
                "--bank",
                str(bank_file),
                "--model",
                "openai:fake",
                "--out",
                str(tmp_path / "r.jsonl"),
                "--base-url",
                f"http://127.0.0.1:{free_port()}/v1",
                "--trials",
                "1",
                "--max-connections",
                "1",
            ]
        )
    )
    err = capsys.readouterr().err
    assert code == EXIT_BUG == 1 and "Traceback" in err and "ValueError" in err and "a bug in fastspe" in err
    assert KEY not in err and KEY not in (tmp_path / "r.jsonl").read_text()


def test_a_dripped_answer_is_a_logged_timeout_that_is_retried_as_one(bank, tmp_path):
    reply = head("200 OK", f"Content-Length: {len(ANSWER)}") + ANSWER
    out = tmp_path / "r.jsonl"
    with raw_server(reply, drip_s=0.08) as (port, _):
        summary = guarded(
            lambda: run_model(
                bank.head(1),
                "openai:fake",
                out,
                base_url=f"http://127.0.0.1:{port}/v1",
                trials=1,
                max_connections=1,
                timeout=2,
                policy=FAST,
            )
        )
    records = lines_of(out)
    assert [(r["status"], r["error_type"]) for r in records] == [("error", "timeout")] * 2  # one retry, no answer
    assert summary.completed == 0 and summary.remaining == 1 and summary.failures == {"timeout": 2}
    assert "timeout of 2 s" in records[0]["error"]


def test_a_redirect_is_a_logged_failure_naming_status_and_location(bank, tmp_path):
    out = tmp_path / "r.jsonl"
    with FakeLLMServer(key=KEY) as other:
        location = other.openai_url + "/chat/completions"
        with raw_server(head("307 Temporary Redirect", f"Location: {location}", "Content-Length: 0")) as (port, _):
            summary = guarded(
                lambda: run_model(
                    bank.head(1),
                    "openai:fake",
                    out,
                    trials=1,
                    max_connections=1,
                    base_url=f"http://127.0.0.1:{port}/v1",
                    timeout=5,
                    policy=FAST,
                )
            )
        assert not other.seen
    (record,) = lines_of(out)
    assert record["status"] == "error" and record["http_status"] == 307 and record["response"] is None
    assert "HTTP 307" in record["error"] and location in record["error"] and summary.completed == 0


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_wrong_port_says_why_and_exits_incomplete(bank, tmp_path, capsys, wire):
    port = free_port()
    bank_file = tmp_path / "bank.jsonl"
    write_bank(bank.head(1), bank_file)
    url = f"http://127.0.0.1:{port}" + ("/v1" if wire == "openai" else "")
    code = guarded(
        lambda: main(
            [
                "run",
                "--bank",
                str(bank_file),
                "--model",
                f"{wire}:fake",
                "--out",
                str(tmp_path / "r.jsonl"),
                "--base-url",
                url,
                "--trials",
                "1",
                "--backoff",
                "0.01",
            ]
        )
    )
    err = capsys.readouterr().err
    assert code == EXIT_INCOMPLETE == 4 and "1 trial has no answer yet" in err
    assert f"connection refused to http://127.0.0.1:{port} (the server is not listening)" in err
    assert "connection (4x)" in err  # the first attempt and --max-retries' 3 retries
    assert KEY not in err
