"""Multi-turn protocols (``--protocol tools`` / ``feedback``) against the fake server over real HTTP, both wire
formats: every turn logged before the next is sent, the final answer scored, resumed inside a conversation without
paying an answered turn twice, and a one-shot run's log lines as before."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_runners import bank, paper_bank  # noqa: F401 - the four boards of both cohorts (fixtures)
from tests.fake_llm_server import FakeLLMServer, call, isolate_api_environment, ok, status
from fastspe.boundary.banks import write_bank
from fastspe.cli import main
from fastspe.protocols import Protocol, ToolCall, protocol_spec, tool_result
from fastspe.runners import GenerationSettings, Pricing, RetryPolicy, read_run_log, run_model

KEY = "sk-fastspe-TEST-pr0t0c0ls-k3y-0038"
REPO = Path(__file__).resolve().parents[1]
FAST = RetryPolicy(max_retries=3, max_rate_limit_retries=3, base_delay=0.01, max_delay=0.05, retry_after_cap=2.0)
TOOLS, FEEDBACK = protocol_spec("tools"), protocol_spec("feedback")
# The fields of a one-shot attempt's record before issue 38 (main at the seam commit, an OpenAI answer, taken from a
# run of that code): a run without --protocol must write exactly these.
ONESHOT_FIELDS = {
    "attempt",
    "base_url",
    "board_id",
    "condition",
    "cost_usd",
    "error",
    "error_type",
    "extra_body",
    "fastspe_version",
    "finish_reason",
    "http_status",
    "input_tokens",
    "latency_s",
    "max_tokens",
    "output_tokens",
    "prompt_sha256",
    "prompt_text_sha256",
    "prompt_version",
    "provider",
    "raw_finish_reason",
    "reasoning_effort",
    "reasoning_tokens",
    "request_id",
    "requested_model",
    "response",
    "returned_model",
    "seed",
    "status",
    "stop",
    "temperature",
    "thinking_budget",
    "timestamp",
    "top_p",
    "trial",
    "trial_id",
}


@pytest.fixture
def server(monkeypatch):
    isolate_api_environment(monkeypatch, KEY)
    with FakeLLMServer(key=KEY) as srv:
        yield srv


def target(server, wire):
    return (
        ("openai:fake-gpt", server.openai_url) if wire == "openai" else ("anthropic:fake-claude", server.anthropic_url)
    )


def plan_of(bank, board_id):
    return ",".join(bank.set_index("board_id").at[board_id, "certificate"])


def records(path):
    recs, skipped = read_run_log(path)
    assert skipped == 0
    return recs


def by_trial(server, script):
    """Answer each request through ``script(seen, turn)``: a scripted conversation per trial."""
    server.script = lambda seen: script(seen, seen.turn)


# --- tools ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_tools_every_turn_logged_and_the_answer_scored(server, bank, tmp_path, wire, capsys):
    model, url = target(server, wire)
    board_of = board_by_prompt(bank)

    def script(seen, turn):
        plan = plan_of(bank, board_of[seen.prompt])
        return {1: call(plan[:3]), 2: call(plan + ",U,U,U,U")}.get(turn, ok(f"MOVES: {plan}"))

    by_trial(server, script)
    out = tmp_path / "r.jsonl"
    summary = run_model(bank, model, out, base_url=url, trials=1, max_connections=2, policy=FAST, protocol=TOOLS)
    assert summary.completed == 4 and summary.failed == 0
    recs = records(out)
    assert len(recs) == 12 and {r["condition"] for r in recs} == {model + "+tools"}
    for trial in {r["trial_id"] for r in recs}:
        mine = sorted((r for r in recs if r["trial_id"] == trial), key=lambda r: r["turn"])
        assert [(r["turn"], r["status"]) for r in mine] == [(1, "turn"), (2, "turn"), (3, "ok")]
        assert all(r["protocol"] == "tools" and r["max_turns"] == 20 for r in mine)
        first, second, last = mine
        assert first["tool_calls"][0]["name"] == "apply_moves" and "illegal" not in first["tool_results"][0]
        assert "is illegal" in second["tool_results"][0]  # past the goal the blank hits the border
        assert (last["turns"], last["tool_call_count"], last["end_reason"]) == (3, 2, "answer")
        assert "tool_calls" not in last and "feedback" not in last
    # what the model saw: the tool results came back as tool messages (tool_result blocks for Anthropic)
    third = next(s for s in server.seen if s.turn == 3)
    results = [r["tool_results"] for r in recs if r["trial_id"] == third.trial_id and r["status"] == "turn"]
    sent = _tool_results_sent(third.body, wire)
    assert sent == [t for pair in results for t in pair]
    assert third.body["tools"][0]["name" if wire == "anthropic" else "function"]
    # scored as today: the closing answers are the trials' outputs, all optimal
    verdicts = tmp_path / "v.csv"
    assert main(["score", "--bank", _bank_file(bank, tmp_path), "--responses", str(out), "--out", str(verdicts)]) == 0
    import pandas as pd

    v = pd.read_csv(verdicts)
    assert len(v) == 4 and (v["status"] == "complete").all() and v["optimal"].all()
    # every turn inspectable: show prints the conversation before the answer
    board = str(v["board_id"].iloc[0])
    trial_recs = sorted((r for r in recs if r["board_id"] == board), key=lambda r: r["turn"])
    capsys.readouterr()
    assert (
        main(
            [
                "show",
                "--bank",
                _bank_file(bank, tmp_path),
                "--verdicts",
                str(verdicts),
                "--board",
                board,
                "--responses",
                str(out),
                "--format",
                "trace",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    conversation = shown[shown.index("conversation (tools): 3 turns, 2 tool calls, ended: answer") :]
    first_call = trial_recs[0]["tool_calls"][0]["arguments"]
    assert f"turn 1: called apply_moves {first_call}" in conversation
    assert "\n".join("    " + line for line in trial_recs[1]["tool_results"][0].split("\n")) in conversation
    assert conversation.index("turn 3: the final answer (below)") < conversation.index("answer as received")


def board_by_prompt(bank):
    from fastspe.runners.engine import BoardPrompts

    boards = BoardPrompts.of(bank)
    return dict(zip(boards.prompts, boards.board_ids))


def _tool_results_sent(body, wire):
    if wire == "openai":
        return [m["content"] for m in body["messages"] if m["role"] == "tool"]
    return [
        b["content"]
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]


def test_max_turns_closes_with_an_empty_answer_a_format_failure(server, bank, tmp_path):
    model, url = target(server, "openai")
    by_trial(server, lambda seen, turn: call("U"))
    out = tmp_path / "r.jsonl"
    run_model(bank.head(1), model, out, base_url=url, trials=1, policy=FAST, protocol=protocol_spec("tools", 3))
    recs = records(out)
    assert [r["status"] for r in recs] == ["turn", "turn", "ok"] and len(server.seen) == 3
    last = recs[-1]
    assert (last["response"], last["end_reason"], last["turns"], last["tool_call_count"]) == ("", "max_turns", 3, 3)
    assert last["condition"] == "openai:fake-gpt+tools" and last["max_turns"] == 3
    import pandas as pd

    verdicts = tmp_path / "v.csv"
    assert (
        main(["score", "--bank", _bank_file(bank.head(1), tmp_path), "--responses", str(out), "--out", str(verdicts)])
        == 0
    )
    v = pd.read_csv(verdicts)
    assert len(v) == 1 and v["status"].iloc[0] != "complete"  # an output, scored as a format failure
    assert v["parse_mode"].iloc[0] == "no_plan"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_rate_limits_and_errors_are_retried_per_turn(server, bank, tmp_path, wire):
    model, url = target(server, wire)
    plan = plan_of(bank, bank["board_id"].iloc[0])
    server.push(call("U"), status(429, retry_after=0.01), status(503), call(plan), status(500), ok(f"MOVES: {plan}"))
    out = tmp_path / "r.jsonl"
    summary = run_model(
        bank.head(1),
        model,
        out,
        base_url=url,
        trials=1,
        policy=FAST,
        protocol=TOOLS,
        pricing=Pricing(1, 1),
        budget=1.0,
        settings=GenerationSettings(max_tokens=100),
    )
    recs = records(out)
    assert [(r["turn"], r["attempt"], r["status"]) for r in recs] == [
        (1, 1, "turn"),
        (2, 2, "error"),
        (2, 3, "error"),
        (2, 4, "turn"),
        (3, 5, "error"),
        (3, 6, "ok"),
    ]
    assert summary.completed == 1 and summary.failures == {"rate_limit": 1, "server_error": 2}
    # every turn's request carried the conversation so far: the retried turn 2 sends what turn 1 logged
    assert [s.turn for s in server.seen] == [1, 2, 2, 2, 3, 3]
    assert summary.spent_usd == pytest.approx(sum(r["cost_usd"] or 0 for r in recs))


def test_the_budget_counts_the_whole_conversation(server, bank, tmp_path):
    model, url = target(server, "openai")
    by_trial(server, lambda seen, turn: call("U") if turn < 3 else ok("MOVES: U"))
    out = tmp_path / "r.jsonl"
    # $1 a token: room for the first turn's worst case and its real cost (~110 tokens), not for the worst case of
    # the conversation grown by a tool call and its result
    settings = GenerationSettings(max_tokens=10)
    from fastspe.runners.cost import conversation_tokens_upper
    from fastspe.runners.engine import BoardPrompts
    from fastspe.protocols import tool_definition
    from fastspe.domains.registry import domain_named

    opening = BoardPrompts.of(bank.head(1)).trial("c", 0, 0).opening
    first = conversation_tokens_upper(opening, [tool_definition(domain_named("sliding"))]) + 10
    summary = run_model(
        bank.head(1),
        model,
        out,
        base_url=url,
        trials=1,
        policy=FAST,
        protocol=TOOLS,
        pricing=Pricing(1e6, 1e6),
        budget=first + 120,
        settings=settings,
    )
    assert summary.budget_exhausted and summary.completed == 0
    assert [r["status"] for r in records(out)] == ["turn"]  # the second turn's worst case would pass the budget


def test_a_budget_stop_inside_a_conversation_is_not_called_unsent(server, bank, tmp_path, capsys):
    model, url = target(server, "openai")
    by_trial(server, lambda seen, turn: call("U") if turn < 3 else ok("MOVES: U"))
    out = tmp_path / "r.jsonl"
    # $1 a token (as above): the first turn is sent and paid, the second's worst case passes the budget
    assert (
        main(
            [
                "run",
                "--bank",
                _bank_file(bank.head(1), tmp_path),
                "--model",
                model,
                "--base-url",
                url,
                "--trials",
                "1",
                "--protocol",
                "tools",
                "--price-in",
                "1000000",
                "--price-out",
                "1000000",
                "--max-tokens",
                "10",
                "--budget",
                "1200",
                "--out",
                str(out),
            ]
        )
        == 4
    )
    assert [r["status"] for r in records(out)] == ["turn"]
    err = capsys.readouterr().err
    assert "not sent" not in err and "1 trial has no answer" in err


def test_tool_texts_from_the_domains_playout(bank):
    from fastspe.domains.registry import domain_named

    sliding, row = domain_named("sliding"), bank.iloc[0].to_dict()
    args = json.dumps({"moves": "U,L"})
    after = tool_result(sliding, row, "apply_moves", args)
    assert after == sliding.playout(row, "UL").state  # the board alone, written as the prompt writes boards
    assert tool_result(sliding, row, "apply_moves", json.dumps({"moves": "u l"})) == tool_result(
        sliding, row, "apply_moves", args
    )  # read as scoring reads a plan
    assert tool_result(sliding, row, "apply_moves", json.dumps({"moves": "U,X"})).startswith("Move 2 (?) is illegal")
    assert tool_result(sliding, row, "apply_moves", "not json").startswith("error: the arguments")
    assert tool_result(sliding, row, "move", args).startswith("error: there is no tool 'move'")
    # the empty plan is the start board, as the prompt writes it
    start = tool_result(sliding, row, "apply_moves", json.dumps({"moves": ""}))
    assert start in sliding.render_prompt(row)
    # what one turn may make fastspe play out is bounded: the 33rd call, or 64 KiB of arguments, is not played
    from fastspe.protocols.texts import MAX_ARGUMENT_CHARS, MAX_CALLS_PER_TURN

    assert tool_result(sliding, row, "apply_moves", args, MAX_CALLS_PER_TURN - 1) == after
    assert tool_result(sliding, row, "apply_moves", args, MAX_CALLS_PER_TURN).startswith("error: at most 32 tool")
    huge = json.dumps({"moves": "U," * (MAX_ARGUMENT_CHARS // 2)})
    assert tool_result(sliding, row, "apply_moves", huge).startswith("error: the arguments are 65,")


# --- feedback ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_feedback_rounds_end_when_solved_or_at_max_rounds(server, bank, tmp_path, wire):
    model, url = target(server, wire)
    plan = plan_of(bank, bank["board_id"].iloc[0])

    def script(seen, turn):
        if turn == 1:
            return ok("I think MOVES: U,U,U,U,U,U")  # off the board: the first illegal move goes back
        if turn == 2:
            return ok("no plan here")  # a format failure goes back too
        return ok(f"MOVES: {plan}")

    by_trial(server, script)
    out = tmp_path / "r.jsonl"
    run_model(bank.head(1), model, out, base_url=url, trials=1, policy=FAST, protocol=FEEDBACK)
    recs = records(out)
    assert [(r["turn"], r["status"]) for r in recs] == [(1, "turn"), (2, "turn"), (3, "ok")]
    assert "is illegal" in recs[0]["feedback"] and "No plan could be read" in recs[1]["feedback"]
    # the answer asked for again in the prompt's own words
    assert recs[0]["feedback"].endswith("on a final line: MOVES: followed by comma-separated U,D,L,R.")
    assert recs[-1]["end_reason"] == "solved" and recs[-1]["max_rounds"] == 3 and recs[-1]["tool_call_count"] == 0
    assert server.seen[1].body["messages"][-1]["content"] == recs[0]["feedback"]
    # a wrong last plan: the conversation ends at max rounds with that plan scored
    other = tmp_path / "o.jsonl"
    by_trial(server, lambda seen, turn: ok("MOVES: D") if turn > 1 else ok("MOVES: U"))
    run_model(
        bank.iloc[[1]],
        model,
        other,
        base_url=url,
        trials=1,
        policy=FAST,
        protocol=protocol_spec("feedback", max_rounds=2),
    )
    recs = records(other)
    assert [r["status"] for r in recs] == ["turn", "ok"] and "legal, but not at the goal" in recs[0]["feedback"]
    assert (recs[-1]["end_reason"], recs[-1]["response"]) == ("max_rounds", "MOVES: D")


# --- resume -----------------------------------------------------------------------------------------------------


def test_resume_continues_after_the_last_logged_turn(server, bank, tmp_path):
    model, url = target(server, "openai")
    by_trial(server, lambda seen, turn: call("U,L") if turn < 3 else ok("MOVES: U"))
    out = tmp_path / "r.jsonl"
    full = tmp_path / "full.jsonl"
    run_model(bank.head(1), model, full, base_url=url, trials=1, policy=FAST, protocol=TOOLS)
    first_two = [line for line in full.read_text().splitlines() if '"status": "turn"' in line]
    out.write_text("\n".join(first_two) + "\n")  # as if killed after turn 2 was logged
    n = len(server.seen)
    run_model(bank.head(1), model, out, base_url=url, trials=1, policy=FAST, protocol=TOOLS)
    later = server.seen[n:]
    assert [s.turn for s in later] == [3]  # no answered turn sent again
    logged = [json.loads(line) for line in first_two]
    ids = [c["id"] for r in logged for c in r["tool_calls"]]
    assert [c["id"] for m in later[0].body["messages"] for c in m.get("tool_calls") or ()] == ids
    assert [r["status"] for r in records(out)] == ["turn", "turn", "ok"]
    assert records(out)[-1]["attempt"] == 3
    # a log whose tool results this fastspe would not have sent is refused before anything is sent
    tampered = tmp_path / "t.jsonl"
    rec = json.loads(first_two[0])
    rec["tool_results"] = ["something else"]
    tampered.write_text(json.dumps(rec) + "\n")
    n = len(server.seen)
    with pytest.raises(ValueError, match="line 1: the texts sent back in turn 1"):
        run_model(bank.head(1), model, tampered, base_url=url, trials=1, policy=FAST, protocol=TOOLS)
    assert len(server.seen) == n


def test_a_protocol_is_part_of_the_conditions_identity(server, bank, tmp_path):
    model, url = target(server, "openai")
    by_trial(server, lambda seen, turn: ok("MOVES: U"))
    out = tmp_path / "r.jsonl"
    run_model(bank.head(1), model, out, base_url=url, trials=1, policy=FAST, protocol=TOOLS, condition="mine")
    with pytest.raises(ValueError, match="max_turns"):
        run_model(
            bank.head(1),
            model,
            out,
            base_url=url,
            trials=1,
            policy=FAST,
            protocol=protocol_spec("tools", max_turns=5),
            condition="mine",
        )
    with pytest.raises(ValueError, match="protocol"):
        run_model(bank.head(1), model, out, base_url=url, trials=1, policy=FAST, condition="mine")
    # Anthropic's extended thinking would need its thinking blocks sent back with each tool turn
    model, url = target(server, "anthropic")
    with pytest.raises(ValueError, match="thinking_budget with protocol tools is not supported"):
        run_model(
            bank.head(1),
            model,
            tmp_path / "t.jsonl",
            base_url=url,
            trials=1,
            protocol=TOOLS,
            settings=GenerationSettings(max_tokens=4096, thinking_budget=1024),
        )


def _bank_file(bank, tmp_path):
    path = tmp_path / "bank.parquet"
    if not path.exists():
        write_bank(bank, path)
    return str(path)


@pytest.mark.slow
def test_killed_mid_conversation_ten_times_pays_every_answered_turn_once(bank, tmp_path, monkeypatch):
    isolate_api_environment(monkeypatch, KEY)
    bank_file = _bank_file(bank, tmp_path)
    out = tmp_path / "r.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    rng = random.Random(38)
    kills = 0
    with FakeLLMServer(key=KEY, delay=0.03) as srv:
        srv.script = lambda seen: call("U,L") if seen.turn < 4 else ok("MOVES: U,L")
        cmd = [
            sys.executable,
            "-m",
            "fastspe",
            "run",
            "--bank",
            bank_file,
            "--model",
            "openai:fake",
            "--out",
            str(out),
            "--base-url",
            srv.openai_url,
            "--trials",
            "3",
            "--max-connections",
            "3",
            "--timeout",
            "5",
            "--backoff",
            "0.01",
            "--protocol",
            "tools",
        ]
        for _ in range(10):
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            start = len(srv.seen)
            deadline = time.monotonic() + 60
            while len(srv.seen) == start and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)  # sending has begun: kill at a random moment of the conversations
            time.sleep(rng.uniform(0, 0.25))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.communicate(timeout=30)
        final = subprocess.run(cmd, env=env, capture_output=True, timeout=120)
        assert final.returncode == 0, final.stderr.decode()
        served = srv.answered_turns()
        seen = list(srv.seen)
    assert kills >= 5, "the kills should land mid-run"
    recs, _ = read_run_log(out)
    answered = [r for r in recs if r.get("status") in ("turn", "ok")]
    logged: dict = {}
    for r in answered:
        logged[r["trial_id"], r["turn"]] = logged.get((r["trial_id"], r["turn"]), 0) + 1
    assert set(logged.values()) == {1}  # every answered turn is logged once
    closing = [r for r in answered if r["status"] == "ok"]
    assert len(closing) == 12 and {r["turns"] for r in closing} == {4}
    assert set(logged) <= set(served)
    # a turn is paid twice only when a kill lost its answer in flight (answered, never logged)
    extra = sum(served.values()) - len(answered)
    assert 0 <= extra <= kills * 3
    lost = {k for k, n in served.items() if n > 1}
    assert len(lost) <= extra
    # every request continued the conversation the log holds: its tool call ids are the logged turns'
    ids = {(r["trial_id"], r["turn"]): [c["id"] for c in r.get("tool_calls") or ()] for r in answered}
    for s in seen:
        if "messages" not in s.body:
            continue  # killed while sending its body: never answered
        sent = [c["id"] for m in s.body["messages"] for c in m.get("tool_calls") or ()]
        assert sent == [i for t in range(1, s.turn) for i in ids[s.trial_id, t]]


# --- one-shot unchanged, batch refused, stats -------------------------------------------------------------------


def test_oneshot_log_fields_unchanged(server, bank, tmp_path):
    model, url = target(server, "openai")
    out = tmp_path / "r.jsonl"
    run_model(bank.head(1), model, out, base_url=url, trials=1, policy=FAST)
    (rec,) = records(out)
    assert set(rec) == ONESHOT_FIELDS and rec["condition"] == "openai:fake-gpt"
    assert server.seen[0].body == {
        "model": "fake-gpt",
        "messages": [{"role": "user", "content": server.seen[0].prompt}],
    }


def test_batch_refuses_multi_turn_protocols(server, bank, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    code = main(
        [
            "run",
            "--bank",
            _bank_file(bank, tmp_path),
            "--model",
            "openai:fake",
            "--out",
            str(out),
            "--base-url",
            server.openai_url,
            "--batch",
            "--protocol",
            "feedback",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("error:") == 1
    assert "--batch sends one request per trial; --protocol feedback" in err
    assert not out.exists() and not server.seen
    code = main(
        ["run", "--bank", _bank_file(bank, tmp_path), "--model", "openai:fake", "--out", str(out), "--max-rounds", "2"]
    )
    assert code == 2 and "--max-rounds bounds a --protocol feedback" in capsys.readouterr().err
    code = main(
        [
            "run",
            "--bank",
            _bank_file(bank, tmp_path),
            "--model",
            "baseline:oracle",
            "--out",
            str(out),
            "--protocol",
            "tools",
        ]
    )
    assert code == 2 and "baseline planners answer once" in capsys.readouterr().err


def test_a_dry_run_names_the_protocols_condition(server, bank, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert (
        main(
            [
                "run",
                "--bank",
                _bank_file(bank, tmp_path),
                "--model",
                "openai:fake",
                "--out",
                str(out),
                "--base-url",
                server.openai_url,
                "--dry-run",
                "--protocol",
                "tools",
                "--max-turns",
                "5",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    assert "openai:fake+tools: 12 requests to send" in shown.replace("\n", " ")
    assert "a conversation of up to 5 requests" in shown and not server.seen


def test_runs_stats_reports_turns_and_tool_calls(server, bank, tmp_path, capsys):
    from fastspe.report.run_stats import run_stats

    model, url = target(server, "openai")
    by_trial(server, lambda seen, turn: call("U") if turn < 3 else ok("MOVES: U"))
    out = tmp_path / "r.jsonl"
    server.push()
    run_model(bank.head(2), model, out, base_url=url, trials=1, policy=FAST, protocol=TOOLS)
    run_model(bank.head(2), model, out, base_url=url, trials=1, policy=FAST)
    stats = run_stats(out).set_index("condition")
    tools = stats.loc["openai:fake-gpt+tools"]
    assert (tools["answers"], tools["attempts"], tools["failed_attempts"]) == (2, 6, 0)
    assert tools["retries_per_answer"] == 0
    assert (tools["turns_mean"], tools["turns_max"], tools["tool_calls_mean"]) == (3, 3, 2)
    assert stats.loc["openai:fake-gpt", "attempts"] == 2
    assert main(["runs", "stats", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "turns/trial" in shown and "tool calls/trial" in shown
    only_oneshot = tmp_path / "o.jsonl"
    run_model(bank.head(1), model, only_oneshot, base_url=url, trials=1, policy=FAST)
    assert "turns_mean" not in run_stats(only_oneshot).columns  # today's columns for today's runs


def test_a_domain_without_playout_is_refused(monkeypatch):
    from fastspe.domains.contract import Domain
    from fastspe.domains.registry import domain_named

    sliding = domain_named("sliding")
    monkeypatch.setattr(type(sliding), "playout", Domain.playout)
    assert not sliding.plays_out
    with pytest.raises(ValueError, match="cannot do"):
        Protocol(TOOLS, sliding, lambda row: {})
    assert ToolCall.of_record({"id": "a", "name": "b", "arguments": "{}"}).as_message()["function"]["name"] == "b"


# --- providers: the conversation and tool calls on each wire ------------------------------------------------------


def test_the_messages_api_conversation_of_a_chat_conversation():
    from fastspe.runners.anthropic_runner import messages_api_conversation, messages_api_tool
    from fastspe.protocols import tool_definition
    from fastspe.domains.registry import domain_named

    call_ = ToolCall("c1", "apply_moves", '{"moves": "U"}')
    chat = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "example"},
        {"role": "assistant", "content": "MOVES: U"},
        {"role": "user", "content": "the board"},
        {"role": "assistant", "content": None, "tool_calls": [call_.as_message()]},
        {"role": "tool", "tool_call_id": "c1", "content": "1 move played"},
        {"role": "user", "content": "and now?"},
    ]
    system, turns = messages_api_conversation(chat)
    assert system == "be brief"
    assert turns == [
        {"role": "user", "content": "example"},
        {"role": "assistant", "content": "MOVES: U"},
        {"role": "user", "content": "the board"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c1", "name": "apply_moves", "input": {"moves": "U"}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "1 move played"},
                {"type": "text", "text": "and now?"},
            ],
        },
    ]
    # one prompt is sent as before: a single user turn of text, no system
    assert messages_api_conversation([{"role": "user", "content": "p"}]) == (None, [{"role": "user", "content": "p"}])
    # an empty answer sent back (feedback on it): the messages API refuses an empty assistant turn, so it is marked
    _, turns = messages_api_conversation(
        [
            {"role": "user", "content": "p"},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "No plan could be read"},
        ]
    )
    assert [t["role"] for t in turns] == ["user", "assistant", "user"] and turns[1]["content"].strip()
    _, turns = messages_api_conversation(
        [{"role": "user", "content": "p"}, {"role": "assistant", "content": "\n ", "tool_calls": [call_.as_message()]}]
    )
    assert [b["type"] for b in turns[1]["content"]] == ["tool_use"]  # no blank text block (the API refuses one)
    tool = messages_api_tool(tool_definition(domain_named("sliding")))
    assert tool["name"] == "apply_moves" and tool["input_schema"]["required"] == ["moves"]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_tool_calls_read_alike_by_the_lean_path_and_the_sdk(wire):
    """A tool-call answer gives the same Completion read straight from its JSON and through the SDK's parser."""
    import httpx
    from tests.fake_llm_server import Seen, _anthropic_body, _openai_body

    seen = Seen(7, wire, "/", {"model": "m", "messages": []}, {}, call("U,L", text="let me try"))
    if wire == "openai":
        import openai
        from fastspe.runners.openai_runner import completion_of, lean_completion

        body = _openai_body(seen, seen.action)
        parsed = completion_of(openai.types.chat.ChatCompletion.model_validate(body))
    else:
        import anthropic
        from fastspe.runners.anthropic_runner import completion_of, lean_completion

        body = _anthropic_body(seen, seen.action)
        parsed = completion_of(anthropic.types.Message.model_validate(body))
    lean = lean_completion(httpx.Response(200, json=body))
    assert lean == parsed
    assert lean.text == "let me try" and lean.finish_reason == "tool_calls"
    assert [(c.name, json.loads(c.arguments)) for c in lean.tool_calls] == [("apply_moves", {"moves": "U,L"})]


def test_a_tool_call_without_an_id_gets_one_a_resume_can_read():
    """Some OpenAI-compatible servers write tool calls without an id: the SDK reads it as None, which a resumed run
    would refuse as a damaged log; the call gets an id of its place in the answer instead."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion
    from fastspe.runners.openai_runner import completion_of

    body = {
        "id": "x",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"type": "function", "function": {"name": "apply_moves", "arguments": '{"moves": "U"}'}},
                        {"type": "function", "function": {"name": "apply_moves", "arguments": '{"moves": "L"}'}},
                        {"type": "function", "function": {"name": None}},
                    ],
                },
            }
        ],
    }
    calls = completion_of(construct_type(type_=ChatCompletion, value=body)).tool_calls
    assert [c.id for c in calls] == ["call_0", "call_1", "call_2"] and calls[2].arguments == ""
    assert [ToolCall.of_record(c.as_record()) for c in calls] == list(calls)


def test_a_protocol_bug_logs_the_paid_answer_and_ends_the_trial(server, bank, tmp_path, monkeypatch):
    model, url = target(server, "openai")
    by_trial(server, lambda seen, turn: call("U"))

    def broken(self, conv, text, calls=()):
        conv.turn += 1
        raise RuntimeError("a bug in the protocol")

    monkeypatch.setattr(Protocol, "answered", broken)
    out = tmp_path / "r.jsonl"
    summary = run_model(bank.head(1), model, out, base_url=url, trials=1, policy=FAST, protocol=TOOLS)
    (rec,) = records(out)
    assert (rec["status"], rec["error_type"], rec["response"], rec["turn"]) == ("error", "unexpected", "", 1)
    assert len(server.seen) == 1 and summary.failed == 1 and summary.tracebacks
