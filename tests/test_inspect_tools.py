"""The inspect_ai task's ``protocol=tools`` (``fastspe.inspect_tools``): a mock model calls ``apply_moves`` through
inspect's tool loop and then answers; the tool returns what fastspe's runners return, the answer is scored, the
turns are bounded, and the imported log keeps the protocol."""

from __future__ import annotations

from functools import lru_cache

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding import DOMAIN
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.domains.contract import Domain
from fastspe.errors import UserError
from fastspe.inspect_task import CONVERSATION_COLUMNS, LOG_COLUMNS, import_log, planning, sliding_puzzles
from fastspe.inspect_tools import check_plays_out
from fastspe.protocols.tool_text import apply_moves_result
from fastspe.scoring.score import score_responses

TRIALS = 2


@lru_cache(maxsize=None)
def small_bank():
    return build_bank(paper_design()).iloc[::100].reset_index(drop=True)  # 4 boards of several layouts


def scripted(bank, probe: bool = True, always_call: bool = False):
    """A mock model: first a call of ``apply_moves`` with half the certificate (or, with ``always_call``, a call at
    every turn), then the certificate as its answer; it counts the requests of each prompt."""
    certificates = {DOMAIN.render_prompt(row): row["certificate"] for row in bank.to_dict("records")}
    requests: dict[str, int] = {}

    def model(messages, tools, tool_choice, config):
        prompt = next(m.text for m in messages if m.role == "user")
        requests[prompt] = requests.get(prompt, 0) + 1
        certificate = certificates[prompt]
        turn = sum(m.role == "assistant" for m in messages)
        if always_call or (probe and turn == 0):
            half = ",".join(certificate[: len(certificate) // 2])
            out = ModelOutput.for_tool_call("mockllm", "apply_moves", {"moves": half}, tool_call_id=f"call-{turn}")
        else:
            out = ModelOutput.from_content(model="mockllm", content="MOVES: " + ",".join(certificate))
        out.usage = ModelUsage(input_tokens=100, output_tokens=10)  # (so that the mock counts no tokens itself)
        return out

    return model, requests


def run(tmp, bank, model, **task_args):
    path = tmp / "bank.parquet"
    write_bank(bank, path)
    logs = inspect_eval(
        sliding_puzzles(bank=str(path), trials=TRIALS, **task_args),
        model=get_model("mockllm/model", custom_outputs=model),
        log_dir=str(tmp / "logs"),
        display="none",
    )
    assert logs[0].status == "success"
    return logs[0]


@pytest.fixture(scope="module")
def tools_log(tmp_path_factory):
    bank = small_bank()
    model, requests = scripted(bank)
    return bank, run(tmp_path_factory.mktemp("tools"), bank, model, protocol="tools"), requests


def test_the_model_calls_the_tool_and_gets_the_runners_text(tools_log):
    bank, log, requests = tools_log
    rows = {row["board_id"]: row for row in bank.to_dict("records")}
    assert set(requests.values()) == {2 * TRIALS}  # a tool turn and an answer per trial
    for sample in log.samples:
        row = rows[sample.id]
        user, call, result, answer = sample.messages
        assert (user.role, call.role, result.role, answer.role) == ("user", "assistant", "tool", "assistant")
        (tool_call,) = call.tool_calls
        assert tool_call.function == "apply_moves" and result.tool_call_id == tool_call.id
        assert result.text == apply_moves_result(DOMAIN, row, tool_call.arguments["moves"])
        half = row["certificate"][: len(row["certificate"]) // 2]
        assert result.text == DOMAIN.playout(row, half).state  # the board after the moves, as the prompt writes it
        assert sample.scores["plan_verifier"].value["C"] == 1.0  # the answer after the tool call is scored
    tool = log.samples[0].events  # the tool was offered with its shared description
    assert any(getattr(e, "event", "") == "model" and e.tools and e.tools[0].name == "apply_moves" for e in tool)


def test_the_imported_log_keeps_the_protocol_and_counts_turns_and_tool_calls(tools_log, tmp_path):
    bank, log, _ = tools_log
    responses = import_log(log.location, tmp_path / "answers.jsonl")
    assert list(responses.columns) == LOG_COLUMNS + CONVERSATION_COLUMNS
    assert (responses["condition"] == "mockllm:model+tools").all()
    assert responses[CONVERSATION_COLUMNS].drop_duplicates().values.tolist() == [["tools", 20, 2, 1, "answer"]]
    assert (responses["input_tokens"] == 200).all()  # both turns' tokens: one line stands for the conversation
    verdicts = score_responses(bank, responses)
    assert (verdicts["status"] == "complete").all() and len(verdicts) == len(bank) * TRIALS


def test_at_max_turns_the_trial_has_no_answer_and_no_request_is_wasted(tmp_path):
    bank = small_bank().iloc[:2]
    model, requests = scripted(bank, always_call=True)
    log = run(tmp_path, bank, model, protocol="tools", max_turns=3)
    assert set(requests.values()) == {3 * TRIALS}  # three requests per trial, none past the limit
    for sample in log.samples:
        assert sample.scores["plan_verifier"].value["R"] == 0.0  # no answer: a format failure
        assert sample.scores["plan_verifier"].metadata["error_kind"] == "format"
    responses = import_log(log.location, tmp_path / "answers.jsonl")
    assert (responses["response"] == "").all()
    assert responses[CONVERSATION_COLUMNS].drop_duplicates().values.tolist() == [["tools", 3, 3, 3, "max_turns"]]


def test_a_one_shot_log_imports_as_before(tmp_path):
    bank = small_bank().iloc[:1]
    model, requests = scripted(bank, probe=False)
    log = run(tmp_path, bank, model)
    responses = import_log(log.location, tmp_path / "answers.jsonl")
    assert list(responses.columns) == LOG_COLUMNS and (responses["condition"] == "mockllm:model").all()
    assert log.eval.metadata == {
        "fastspe_prompt_version": DOMAIN.prompt_version,
        "fastspe_prompt_sha256": DOMAIN.prompt_sha256,
        "fastspe_domain": "sliding",
    }


def test_a_protocol_the_task_cannot_run_is_one_clear_error():
    with pytest.raises(UserError, match="protocol must be one of oneshot, tools, got 'feedback' .*fastspe run"):
        planning(protocol="feedback")
    with pytest.raises(UserError, match="max_turns must be a whole number of at least 1, got 0"):
        planning(protocol="tools", max_turns=0)


def test_a_domain_without_playout_cannot_run_the_tools_protocol():
    class OneShotOnly(Domain):
        name = "oneshot-only"

    assert DOMAIN.plays_out and not OneShotOnly().plays_out
    with pytest.raises(UserError, match="the oneshot-only domain cannot do .*run it one-shot"):
        check_plays_out(OneShotOnly())
