"""The overhead of a multi-turn protocol (issue 38): fastspe's CPU per turn of a ``--protocol tools`` run against a
loopback server in its own process that answers at once, beside the one-shot run of the same boards.

Run with ``python -m pytest benchmarks/bench_protocols.py --benchmark-only -s``. The server calls ``apply_moves``
until a conversation's ``TURNS``-th request, then answers; fastspe plays each call out on the board, logs each turn
(one fsynced line) and sends the grown conversation. Target: <= 2 ms of fastspe CPU (this process, all threads) per
turn.
"""

from __future__ import annotations

import json
import time

import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.protocols import protocol_spec
from fastspe.runners import RetryPolicy, run_model
from benchmarks.loopback import http_200, server_process, serve_replies
from benchmarks.timing import target

KEY = "sk-fastspe-PROTOCOLS-000000000000"
TURNS = 4  # three tool calls, then the answer
CONNECTIONS = 16
ROUNDS = 3


def _completion(message: dict, finish: str) -> bytes:
    return http_200(
        json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": "fake",
                "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
                "usage": {"prompt_tokens": 300, "completion_tokens": 9},
            }
        ).encode()
    )


_CALL = _completion(
    {
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "apply_moves", "arguments": '{"moves": "U,L"}'}}
        ],
    },
    "tool_calls",
)
_ANSWER = _completion({"content": "MOVES: U,L"}, "stop")


def serve() -> None:
    """Serve chat completions on 127.0.0.1 at once (keep-alive): a tool call until a request carries TURNS - 1
    assistant turns, then an answer; print the port, stop when stdin closes."""

    async def reply(head: bytes, body: bytes) -> bytes:
        turns = body.count(b'"role": "assistant"') + body.count(b'"role":"assistant"')
        return _CALL if turns < TURNS - 1 else _ANSWER

    serve_replies(reply)


def _server_process():
    return server_process("from benchmarks.bench_protocols import serve; serve()")


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def _timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads) of ``fn()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def test_tools_cpu_per_turn_beside_oneshot(benchmark, tmp_path):
    """The paper bank (400 boards), one trial each: a tools run of TURNS turns per trial beside the one-shot run,
    interleaved rounds, best of each. Target: <= 2 ms of fastspe CPU per turn of the tools run."""
    bank = build_bank(paper_design())
    n = len(bank)
    tools, oneshot = [], []
    with _server_process() as port:
        url = f"http://127.0.0.1:{port}/v1"

        def run(i, protocol):
            summary = run_model(
                bank,
                "openai:fake",
                tmp_path / f"{protocol}{i}.jsonl",
                base_url=url,
                trials=1,
                max_connections=CONNECTIONS,
                timeout=10,
                policy=RetryPolicy(),
                protocol=protocol_spec(protocol),
            )
            assert summary.completed == n

        for i in range(ROUNDS):
            oneshot.append(_timed(lambda: run(i, "oneshot")))
            if i == ROUNDS - 1:
                tools.append(benchmark.pedantic(lambda: _timed(lambda: run(i, "tools")), rounds=1, iterations=1))
            else:
                tools.append(_timed(lambda: run(i, "tools")))
    turns = n * TURNS
    lines = sum(1 for _ in open(tmp_path / f"tools{ROUNDS - 1}.jsonl"))
    assert lines == turns  # every turn logged once
    tools_cpu, oneshot_cpu = min(c for _, c in tools), min(c for _, c in oneshot)
    per_turn = 1000 * tools_cpu / turns
    per_request = 1000 * oneshot_cpu / n
    benchmark.extra_info.update(turns=turns, tools_cpu_ms_per_turn=per_turn, oneshot_cpu_ms_per_request=per_request)
    print(
        f"\n{n} boards x 1 trial, {TURNS} turns per tools conversation ({turns:,} turns), {CONNECTIONS} connections, "
        f"a loopback server answering at once; best of {ROUNDS} interleaved rounds:"
    )
    for name, runs, count in (("tools", tools, turns), ("oneshot", oneshot, n)):
        print(f"  {name:>8}: " + ", ".join(f"{s:.2f} s wall {1000 * c / count:.2f} ms CPU/request" for s, c in runs))
    print(f"  tools: {per_turn:.2f} ms fastspe CPU per turn (target <= 2); one-shot: {per_request:.2f} ms per request")
    target(per_turn <= 2.0, f"a tools run at {per_turn:.2f} ms CPU per turn (target <= 2)")
