"""The optional inspect_ai task and log importer (inspect_ai is in the test extra: these tests always run).

A mock model answers each prompt with baseline answers (a mix of complete, legal-noncompleting
and illegal plans); inspect's per-sample scores must agree with fastspe's own scoring of the
imported log. A second mock fails on one board, and copies of its log marked failed, cancelled,
unfinished or emptied check that the importer loses nothing silently.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import lru_cache

import numpy as np
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalError, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.cli import main
from fastspe.domains.sliding.planners.baselines import baseline_responses
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.inspect_task import PROVENANCE, bank_samples, import_log, responses_from_log, sliding_puzzles, verdict_of
from fastspe.boundary.responses import read_responses
from fastspe.domains.sliding.prompt import PROMPT_SHA256, PROMPT_VERSION, prompt_sha256, render_prompt
from fastspe.scoring.score import score_responses

TRIALS = 3
# generation settings the eval is given: the importer must keep them (the mock model ignores them)
CONFIG = {
    "temperature": 0.5,
    "max_tokens": 900,
    "top_p": 0.9,
    "seed": 7,
    "stop_seqs": ["END", "\n\n"],
    "reasoning_tokens": 2048,
}


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
    prompts = {
        row.board_id: render_prompt(row.initial, row.goal, row.rows, row.cols) for row in bank.itertuples(index=False)
    }
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

    logs = inspect_eval(
        sliding_puzzles(bank=str(path), trials=TRIALS),
        model=get_model("mockllm/model", custom_outputs=model),
        log_dir=str(tmp / "logs"),
        display="none",
        **CONFIG,
    )
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


def test_metrics_have_standard_errors_and_means_by_depth_and_k(eval_log):
    bank, log, _ = eval_log
    verdicts = score_responses(bank, responses_from_log(log.location))
    verdicts["C"] = (verdicts["status"] == "complete").astype(float)
    scores = {sc.name: {m.name: m.value for m in sc.metrics.values()} for sc in log.results.scores}
    assert set(scores) == {"C", "R", "O", "SPE"}
    c = scores["C"]
    # the standard error over boards, as inspect takes it: each board's epochs averaged first
    per_board = verdicts.groupby("board_id")["C"].mean()
    assert c["stderr"] == pytest.approx(per_board.std(ddof=1) / np.sqrt(len(per_board)))
    for key, label in (("depth", "d*"), ("k", "k")):
        expected = verdicts.groupby(key)["C"].mean()
        got = {name: value for name, value in c.items() if name.startswith(f"{label}=")}
        assert got == pytest.approx({f"{label}={g}": v for g, v in expected.items()})
        assert len(got) == bank[key].nunique() > 1


def test_imported_answers_keep_the_prompt_hashes_and_the_settings(eval_log, tmp_path):
    bank, log, _ = eval_log
    responses = responses_from_log(log.location)
    prompts = {
        row.board_id: render_prompt(row.initial, row.goal, row.rows, row.cols) for row in bank.itertuples(index=False)
    }
    first = responses.iloc[0]
    assert {k: first[k] for k in PROVENANCE if k != "prompt_text_sha256"} == {
        "requested_model": "mockllm/model",
        "temperature": 0.5,
        "max_tokens": 900,
        "top_p": 0.9,
        "seed": 7,
        "stop": '["END","\\n\\n"]',
        "reasoning_effort": None,
        "thinking_budget": 2048,
        "extra_body": None,
        "prompt_version": PROMPT_VERSION,
        "prompt_sha256": PROMPT_SHA256,
    }
    assert (responses["prompt_text_sha256"] == responses["board_id"].map(lambda b: prompt_sha256(prompts[b]))).all()
    # through a responses file and `score`, into the verdicts with the schema's types
    from fastspe.boundary.verdict_files import read_verdicts

    import_log(log.location, tmp_path / "answers.jsonl")
    write_bank(bank, tmp_path / "bank.parquet")
    assert (
        main(
            [
                "score",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--responses",
                str(tmp_path / "answers.jsonl"),
                "--out",
                str(tmp_path / "v.parquet"),
            ]
        )
        == 0
    )
    verdicts = read_verdicts(tmp_path / "v.parquet").frame
    row = verdicts.iloc[0]
    assert (row["temperature"], row["max_tokens"], row["seed"], row["thinking_budget"]) == (0.5, 900, 7, 2048)
    assert json.loads(row["stop"]) == ["END", "\n\n"] and row["prompt_sha256"] == PROMPT_SHA256


def test_importer_takes_a_condition_name_and_writes_a_responses_file(eval_log, tmp_path):
    bank, log, _ = eval_log
    assert (responses_from_log(log, condition="mine")["condition"] == "mine").all()
    written = import_log(log.location, tmp_path / "answers.jsonl")
    back = read_responses(tmp_path / "answers.jsonl", bank)
    assert (
        back[["board_id", "trial", "response"]].values.tolist()
        == written[["board_id", "trial", "response"]].values.tolist()
    )


# -- errored samples and incomplete logs --------------------------------------------------------------

FAILING = "model down"


@pytest.fixture(scope="module")
def errored_log(tmp_path_factory):
    """A successful eval (fail_on_error=False) in which every request for one board raised: 2 of 8 samples."""
    tmp = tmp_path_factory.mktemp("inspect_errors")
    bank = small_bank().iloc[::2].reset_index(drop=True)  # 4 boards
    path = tmp / "bank.parquet"
    write_bank(bank, path)
    plans = {
        render_prompt(r.initial, r.goal, r.rows, r.cols): "MOVES: " + ",".join(r.certificate)
        for r in bank.itertuples(index=False)
    }
    failing = bank.iloc[1]

    def model(messages, tools, tool_choice, config):
        text = messages[-1].text
        if text == render_prompt(failing.initial, failing.goal, failing.rows, failing.cols):
            raise RuntimeError(FAILING)
        out = ModelOutput.from_content(model="mockllm", content=plans[text])  # the certificate: complete
        out.usage = ModelUsage(input_tokens=10, output_tokens=5)
        return out

    logs = inspect_eval(
        sliding_puzzles(bank=str(path), trials=2),
        model=get_model("mockllm/model", custom_outputs=model),
        log_dir=str(tmp / "logs"),
        display="none",
        fail_on_error=False,
    )  # errored samples do not stop the run
    assert logs[0].status == "success"
    return bank, logs[0], failing.board_id


def _copy(log, tmp_path, name, **changes):
    """``log`` with ``changes`` written to ``tmp_path/name`` with inspect's own writer."""
    copy = log.model_copy(update=changes)
    path = tmp_path / name
    write_eval_log(copy, str(path))
    return path


def test_errored_samples_are_left_out_with_a_warning_that_counts_them(errored_log, tmp_path):
    bank, log, failing = errored_log
    with pytest.warns(
        UserWarning,
        match=r"2 of 8 samples errored and were left out \(first error: "
        r"RuntimeError\('model down'\)\); keep_errors=True",
    ) as caught:
        written = import_log(log.location, tmp_path / "answers.jsonl")
    assert str(log.location) in str(caught[0].message)
    assert len(written) == 6 and (written["status"] == "ok").all() and failing not in set(written["board_id"])
    assert written["input_tokens"].tolist() == [10] * 6
    assert len(read_responses(tmp_path / "answers.jsonl", bank)) == 6


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_kept_errors_are_failed_attempts_for_fastspes_readers(errored_log, tmp_path, suffix, capsys):
    bank, log, failing = errored_log
    out = tmp_path / f"answers{suffix}"
    written = import_log(log.location, out, keep_errors=True)
    errors = written[written["status"] == "error"]
    assert len(written) == 8 and set(errors["board_id"]) == {failing} and sorted(errors["trial"]) == [0, 1]
    assert errors["response"].isna().all() and errors["error"].str.contains(FAILING).all()
    with pytest.warns(UserWarning, match=r"2 outputs have no answer \(only failed attempts"):
        back = read_responses(out, bank)
    assert len(back) == 6 and failing not in set(back["board_id"])
    write_bank(bank, tmp_path / "bank.parquet")
    capsys.readouterr()
    assert (
        main(
            [
                "score",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--responses",
                str(out),
                "--out",
                str(tmp_path / "verdicts.parquet"),
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "scored 6 outputs (6 complete" in captured.out
    assert (
        "2 outputs have no answer (only failed attempts, or a conversation not ended) and are not scored"
        in captured.err
    )


def test_a_log_of_errored_samples_only_is_refused(errored_log, tmp_path):
    _, log, _ = errored_log
    error = EvalError(message="RuntimeError('down')", traceback="", traceback_ansi="")
    broken = log.model_copy(update={"samples": [s.model_copy(update={"error": error}) for s in log.samples]})
    with pytest.raises(ValueError, match="all 8 samples errored .*keep_errors=True"):
        import_log(broken, tmp_path / "answers.jsonl")
    assert not (tmp_path / "answers.jsonl").exists()
    assert len(responses_from_log(broken, keep_errors=True)) == 8


@pytest.mark.parametrize("status", ["error", "cancelled", "started"])
def test_failed_cancelled_and_unfinished_logs_are_refused(errored_log, tmp_path, status):
    _, log, _ = errored_log
    error = EvalError(message="RuntimeError('rate limited')", traceback="", traceback_ansi="")
    error = error if status == "error" else None
    path = _copy(log, tmp_path, f"{status}.eval", status=status, error=error)
    out = tmp_path / "answers.parquet"
    with pytest.raises(ValueError, match=f"status is '{status}'") as refused:
        import_log(path, out)
    assert str(path) in str(refused.value) and "allow_incomplete=True" in str(refused.value)
    if status == "error":
        assert "rate limited" in str(refused.value)
    assert not out.exists() and list(tmp_path.iterdir()) == [path]  # no output, no temp file left
    with pytest.warns(UserWarning) as caught:
        written = import_log(path, out, keep_errors=True, allow_incomplete=True)
    assert any(f"importing an incomplete eval (status '{status}'" in str(w.message) for w in caught)
    assert len(written) == 8 and out.exists()


def test_a_log_without_samples_is_refused(errored_log, tmp_path):
    _, log, _ = errored_log
    path = _copy(log, tmp_path, "empty.eval", samples=[])
    with pytest.raises(ValueError, match="holds no samples"):
        import_log(path, tmp_path / "answers.jsonl")
    assert not (tmp_path / "answers.jsonl").exists()
    bogus = tmp_path / "bogus.eval"
    bogus.write_text("not a log")
    with pytest.raises(ValueError, match="bogus.eval: not an inspect eval log"):
        responses_from_log(bogus)


def test_cli_imports_warns_and_refuses(errored_log, tmp_path, capsys):
    _, log, failing = errored_log
    out = tmp_path / "answers.jsonl"
    assert main(["import-inspect", log.location, "--out", str(out), "--condition", "mock"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"imported 6 answers (condition mock) -> {out}")
    assert captured.err.startswith("warning: ") and "2 of 8 samples errored" in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert main(["import-inspect", log.location, "--out", str(out), "--keep-errors"]) == 0
    assert (
        "imported 6 answers and 2 errored samples as failed attempts (condition mockllm:model)"
        in capsys.readouterr().out
    )
    failed = _copy(log, tmp_path, "failed.eval", status="cancelled")
    refused = tmp_path / "refused.jsonl"
    assert main(["import-inspect", str(failed), "--out", str(refused)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {failed}: the eval's status is 'cancelled'") and err.count("\n") == 1
    assert not refused.exists()
    assert main(["import-inspect", str(failed), "--out", str(refused), "--allow-incomplete", "--keep-errors"]) == 0
    assert "importing an incomplete eval" in capsys.readouterr().err and refused.exists()


def test_score_takes_an_eval_log_as_import_then_score_does(errored_log, tmp_path, capsys):
    from fastspe.boundary.verdict_files import read_verdicts
    from fastspe.boundary.verdicts import verdict_columns

    columns = verdict_columns("sliding")

    bank, log, _ = errored_log
    write_bank(bank, tmp_path / "bank.parquet")
    common = ["score", "--bank", str(tmp_path / "bank.parquet"), "--out"]
    assert main(common + [str(tmp_path / "direct.parquet"), "--responses", log.location]) == 0
    captured = capsys.readouterr()
    assert "scored 6 outputs (6 complete, 0 legal_noncompletion, 0 illegal)" in captured.out
    assert "2 of 8 samples errored and were left out" in captured.err
    assert main(["import-inspect", log.location, "--out", str(tmp_path / "answers.jsonl")]) == 0
    assert main(common + [str(tmp_path / "twostep.parquet"), "--responses", str(tmp_path / "answers.jsonl")]) == 0
    # the verdicts agree (metadata may differ in kind: an all-null `error` column is None or NaN after JSONL)
    direct, twostep = (
        read_verdicts(tmp_path / f"{name}.parquet")
        .frame.sort_values(["condition", "board_id", "trial"])
        .reset_index(drop=True)[columns]
        for name in ("direct", "twostep")
    )
    assert direct.equals(twostep)
    failed = _copy(log, tmp_path, "failed.eval", status="error")
    capsys.readouterr()
    assert main(common + [str(tmp_path / "refused.parquet"), "--responses", str(failed)]) == 2
    assert "status is 'error'" in capsys.readouterr().err and not (tmp_path / "refused.parquet").exists()


def _damaged(log, tmp_path, how: str):
    """A copy of the ``.eval`` zip damaged as ``how`` says: a compressed member's bytes flipped, no members at all,
    or the file cut in half."""
    import zipfile

    raw = bytearray(open(log.location, "rb").read())
    if how == "corrupt member":
        info = zipfile.ZipFile(log.location).getinfo("header.json")
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)  # local header, then data
        for i in range(start + 8, start + min(info.compress_size, 40)):
            raw[i] ^= 0xFF
    elif how == "no members":
        path = tmp_path / "empty.eval"
        zipfile.ZipFile(path, "w").close()
        return path
    else:
        raw = raw[: len(raw) // 2]
    path = tmp_path / f"{how.replace(' ', '-')}.eval"
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize(
    "how, says",
    [
        ("corrupt member", "a member cannot be decompressed (ZstdError"),
        ("no members", "it has no member _journal/start.json"),
        ("truncated", "not an inspect eval log"),
    ],
)
def test_a_damaged_eval_log_is_one_error_line_naming_it(errored_log, tmp_path, capsys, how, says):
    _, log, _ = errored_log
    damaged = _damaged(log, tmp_path, how)
    out = tmp_path / "answers.jsonl"
    capsys.readouterr()
    assert main(["import-inspect", str(damaged), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {damaged}: ") and says in err and err.count("\n") == 1, err
    assert not out.exists()
    with pytest.raises(ValueError, match=str(damaged)):
        responses_from_log(damaged)
