"""The optional inspect_ai task and log importer (skipped when inspect_ai is not installed).

A mock model answers each prompt with baseline answers (a mix of complete, legal-noncompleting
and illegal plans); inspect's per-sample scores must agree with fastspe's own scoring of the
imported log.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import numpy as np
import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from fastspe.bank import build_bank, write_bank  # noqa: E402
from fastspe.baselines import baseline_responses  # noqa: E402
from fastspe.design import paper_design  # noqa: E402
from fastspe.inspect_task import bank_samples, import_log, responses_from_log, sliding_puzzles, verdict_of  # noqa: E402
from fastspe.score import read_responses  # noqa: E402
from fastspe.prompts import render_prompt  # noqa: E402
from fastspe.score import score_responses  # noqa: E402

TRIALS = 3


@lru_cache(maxsize=None)
def small_bank():
    return build_bank(paper_design()).iloc[::50].reset_index(drop=True)  # 8 boards, several layouts and depths


def test_samples_carry_the_paper_prompt_and_the_board():
    bank = small_bank()
    samples = bank_samples(bank)
    assert [s.id for s in samples] == bank["board_id"].tolist()
    for s, row in zip(samples, bank.itertuples(index=False)):
        assert s.input == render_prompt(row.initial, row.goal, row.rows, row.cols)
        assert s.target == row.certificate
        assert s.metadata["initial"] == list(row.initial) and s.metadata["depth"] == row.depth


def test_verdict_of_uses_fastspes_replay():
    row = small_bank().iloc[3].to_dict()
    meta = bank_samples(small_bank())[3].metadata
    assert verdict_of(meta, "MOVES: " + ",".join(row["certificate"]))["status"] == "complete"
    assert verdict_of(meta, "no idea")["status"] == "illegal"  # format failure counts as illegal by default


@pytest.fixture(scope="module")
def eval_log(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("inspect")
    bank = small_bank()
    path = tmp / "bank.parquet"
    write_bank(bank, path)
    # answers per prompt, one per epoch: detour (complete, not optimal), greedy (often stuck), random (illegal)
    answers = defaultdict(list)
    prompts = {row.board_id: render_prompt(row.initial, row.goal, row.rows, row.cols)
               for row in bank.itertuples(index=False)}
    for planner in ("detour", "greedy", "random"):
        for r in baseline_responses(bank, planner, trials=1, seed=1).itertuples(index=False):
            answers[prompts[r.board_id]].append(r.response)
    served = defaultdict(int)

    def model(messages, tools, tool_choice, config):
        text = messages[-1].text
        i = served[text]
        served[text] += 1
        out = ModelOutput.from_content(model="mockllm", content=answers[text][i % len(answers[text])])
        # usage given, so the mock does not count tokens (tiktoken would download its tables)
        out.usage = ModelUsage(input_tokens=len(text), output_tokens=len(out.completion))
        return out

    logs = inspect_eval(sliding_puzzles(bank=str(path), trials=TRIALS), model=get_model("mockllm/model", custom_outputs=model),
                        log_dir=str(tmp / "logs"), display="none")
    return bank, logs[0], served


def test_eval_runs_every_board_for_every_epoch(eval_log):
    bank, log, served = eval_log
    assert log.status == "success"
    assert len(log.samples) == len(bank) * TRIALS
    assert set(served.values()) == {TRIALS}  # one fresh request per board and epoch


def test_inspect_scores_agree_with_fastspe_on_the_imported_log(eval_log):
    bank, log, _ = eval_log
    responses = responses_from_log(log.location)
    assert len(responses) == len(bank) * TRIALS
    assert sorted(responses["trial"].unique().tolist()) == list(range(TRIALS))
    assert (responses["condition"] == "mockllm:model").all()
    assert (responses["finish_reason"] == "stop").all() and (responses["status"] == "ok").all()
    assert (responses["output_tokens"] == responses["response"].str.len()).all()
    verdicts = score_responses(bank, responses).set_index(["board_id", "trial"])
    statuses = set()
    for s in log.samples:
        v = verdicts.loc[(s.id, s.epoch - 1)]
        value = s.scores["plan_verifier"].value
        statuses.add(v["status"])
        assert value["C"] == float(v["status"] == "complete")
        assert value["R"] == float(v["status"] != "illegal")
        assert value["SPE"] == pytest.approx(v["economy"] if v["status"] == "complete" else 0.0)
    assert statuses == {"complete", "legal_noncompletion", "illegal"}
    # the log-level metrics are means over every output, as the paper defines C, R and SPE
    metrics = {sc.name: sc.metrics["mean"].value for sc in log.results.scores}
    assert metrics["SPE"] == pytest.approx(np.where(verdicts["status"] == "complete", verdicts["economy"], 0.0).mean())
    assert metrics["C"] == pytest.approx((verdicts["status"] == "complete").mean())
    assert metrics["R"] == pytest.approx((verdicts["status"] != "illegal").mean())
    assert metrics["SPE"] < metrics["C"]  # detour completions are not optimal


def test_importer_takes_a_condition_name_and_writes_a_responses_file(eval_log, tmp_path):
    bank, log, _ = eval_log
    assert (responses_from_log(log, condition="mine")["condition"] == "mine").all()
    written = import_log(log.location, tmp_path / "answers.jsonl")
    back = read_responses(tmp_path / "answers.jsonl", bank)
    assert back[["board_id", "trial", "response"]].values.tolist() == written[["board_id", "trial", "response"]].values.tolist()
