"""Prompt variants in the inspect_ai task (``fastspe.inspect_tools``' openings): a mock model is asked exactly the
messages ``fastspe run`` sends for the same trial (chain of thought, a template, a system prompt, worked examples,
with and without ``protocol=tools``); the imported log keeps the variant, its condition suffix and a prompts sidecar,
so that ``fastspe score`` checks its answers as a run's and refuses tampered ones; bad prompt parameters are one
error."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from fastspe.boundary.banks import load_bank, write_bank
from fastspe.boundary.prompt_texts import read_prompt_records, sidecar_path
from fastspe.cli import main
from fastspe.domains.contract import prompt_hash
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.errors import UserError
from fastspe.inspect_task import (
    CONVERSATION_COLUMNS,
    LOG_COLUMNS,
    import_log,
    planning,
    responses_from_log,
    sliding_puzzles,
)
from fastspe.inspect_tools import SAMPLE_KEYS, SPEC_KEY
from fastspe.prompting import prompt_spec, system_text
from fastspe.runners.engine import BoardPrompts
from fastspe.runners.generation import default_condition

SYSTEM = "You plan carefully."
TRIALS = 2


@lru_cache(maxsize=None)
def boards():
    """The boards asked and other boards for worked examples."""
    paper = build_bank(paper_design())
    return paper.iloc[[0, 200]].reset_index(drop=True), paper.iloc[[1, 151, 301]].reset_index(drop=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("variant-files")
    asked, shots = boards()
    write_bank(asked, d / "bank.parquet")
    write_bank(shots, d / "shots.parquet")
    (d / "mine.txt").write_text("Board {board_id}, depth {depth}:\n{initial}\n{rules}\n{answer}\n")
    (d / "system.txt").write_text("From a file:\nplan carefully.\n")
    return d


def certified(bank, spec, tools: bool = False, answer: str | None = None):
    """A mock model that answers each board's message under ``spec`` with its certificate (with ``tools``: after one
    call of ``apply_moves``), and records every request's messages."""
    texts = BoardPrompts.of(bank, spec).prompts
    plans = {t: "MOVES: " + ",".join(c) for t, c in zip(texts, bank.frame["certificate"])}
    asked = []

    def model(messages, tools_offered, tool_choice, config):
        asked.append([(m.role, m.text) for m in messages])
        board = [m.text for m in messages if m.role == "user"][-1]
        if tools and not any(m.role == "tool" for m in messages):
            out = ModelOutput.for_tool_call("mockllm", "apply_moves", {"moves": plans[board][7:9]}, tool_call_id="c1")
        else:
            out = ModelOutput.from_content(model="mockllm", content=answer or plans[board])
        out.usage = ModelUsage(input_tokens=10, output_tokens=5)  # (so that the mock counts no tokens itself)
        return out

    return model, asked


def run_eval(files, tmp, model, **task_args):
    logs = inspect_eval(
        sliding_puzzles(bank=str(files / "bank.parquet"), trials=TRIALS, **task_args),
        model=get_model("mockllm/model", custom_outputs=model),
        log_dir=str(tmp / "logs"),
        display="none",
    )
    assert logs[0].status == "success"
    return logs[0]


def run_spec(files, task_args: dict):
    """The spec ``fastspe run`` settles for the same options (its ``--system`` reads a file as ``system_text``)."""
    system = task_args.get("system")
    return prompt_spec(
        task_args.get("prompt", "paper"),
        system_text(system) if system else None,
        task_args.get("shots", 0),
        task_args.get("shots_bank"),
        task_args.get("shots_seed", 0),
    )


VARIANTS = {
    "cot": lambda f: {"prompt": "cot"},
    "template": lambda f: {"prompt": str(f / "mine.txt")},
    "system": lambda f: {"system": SYSTEM},
    "system-file": lambda f: {"system": str(f / "system.txt")},
    "shots": lambda f: {"shots": 2, "shots_bank": str(f / "shots.parquet"), "shots_seed": 3},
    "all": lambda f: {"prompt": "cot", "system": SYSTEM, "shots": 1, "shots_bank": str(f / "shots.parquet")},
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_model_is_asked_what_fastspe_run_asks(files, tmp_path, variant):
    task_args = VARIANTS[variant](files)
    bank = load_bank(files / "bank.parquet")
    spec = run_spec(files, task_args)
    model, asked = certified(bank, spec)
    log = run_eval(files, tmp_path, model, **task_args)
    prompts = BoardPrompts.of(bank, spec)
    condition = default_condition("mockllm/model", spec)
    openings = {}
    for row, board in enumerate(prompts.board_ids):
        trials = [prompts.trial(condition, row, t).opening for t in range(TRIALS)]
        assert trials[0] == trials[1]
        openings[board] = [(m["role"], m["content"]) for m in trials[0]]
    assert sorted(map(tuple, asked)) == sorted(tuple(o) for o in openings.values() for _ in range(TRIALS))
    for sample in log.samples:
        opening = openings[sample.id]
        given = [sample.input] if isinstance(sample.input, str) else [(m.role, m.text) for m in sample.input]
        assert given == ([opening[0][1]] if len(opening) == 1 else opening)  # one user message: the text, as before
        assert {name: sample.metadata[key] for name, key in SAMPLE_KEYS.items()} == {
            "prompt_variant": spec.label,
            "prompt_spec_sha256": spec.sha256,
            "prompt_text_sha256": prompt_hash(opening[-1][1]),
        }
        assert sample.scores["plan_verifier"].value["C"] == 1.0
    assert log.eval.metadata[SPEC_KEY] == spec.sidecar_record()


@pytest.fixture(scope="module")
def all_log(files, tmp_path_factory):
    task_args = VARIANTS["all"](files)
    spec = run_spec(files, task_args)
    model, _ = certified(load_bank(files / "bank.parquet"), spec)
    return spec, run_eval(files, tmp_path_factory.mktemp("all"), model, **task_args)


def test_the_import_keeps_the_variant_its_suffix_and_its_sidecar(all_log, files, tmp_path, capsys):
    spec, log = all_log
    out = tmp_path / "answers.jsonl"
    assert main(["import-inspect", log.location, "--out", str(out)]) == 0
    assert "answers.prompts.jsonl" in capsys.readouterr().out
    responses = import_log(log.location, tmp_path / "again.jsonl")
    system8 = hashlib.sha256(SYSTEM.encode()).hexdigest()[:8]
    assert (responses["condition"] == f"mockllm:model+cot+system:{system8}+1shot").all()
    assert list(responses.columns) == LOG_COLUMNS + list(spec.record_fields())  # the fields a run's lines carry
    assert responses[list(spec.record_fields())].drop_duplicates().to_dict("records") == [spec.record_fields()]
    records = read_prompt_records(sidecar_path(out))
    assert [r for r in records if r["record"] == "spec"] == [spec.sidecar_record()]
    texts = {prompt_hash(r["text"]) for r in records if r["record"] == "prompt"}
    assert texts == set(responses["prompt_text_sha256"]) and len(texts) == 2  # every board's message, once
    common = ["score", "--bank", str(files / "bank.parquet"), "--out"]
    assert main(common + [str(tmp_path / "v.parquet"), "--responses", str(out)]) == 0
    assert main(common + [str(tmp_path / "direct.parquet"), "--responses", log.location]) == 0
    assert capsys.readouterr().out.count(f"scored {2 * TRIALS} outputs ({2 * TRIALS} complete") == 2
    board = responses["board_id"].iat[0]
    assert (
        main(
            [
                "show",
                "--bank",
                str(files / "bank.parquet"),
                "--verdicts",
                str(tmp_path / "v.parquet"),
                "--board",
                board,
                "--trial",
                "0",
                "--responses",
                str(out),
                "--prompt",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out  # what was asked, from the sidecar the import wrote
    assert "[system]" in shown and SYSTEM in shown and "Think step by step" in shown


def test_score_refuses_tampered_imports(all_log, files, tmp_path, capsys):
    (
        _,
        log,
    ) = all_log
    out = tmp_path / "answers.jsonl"
    import_log(log.location, out)
    common = ["score", "--bank", str(files / "bank.parquet"), "--out", str(tmp_path / "v.parquet"), "--responses"]
    side = sidecar_path(out)
    kept = side.read_text()
    side.unlink()  # the variant's answers, nothing to check them against
    assert main(common + [str(out)]) == 2
    assert "whose spec no prompts sidecar read keeps" in capsys.readouterr().err
    records = [json.loads(line) for line in kept.splitlines()]
    records[0]["variant"] = "paper"  # the spec said to be another than was asked: no longer the spec of its hash
    side.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(common + [str(out)]) == 2
    assert "whose spec no prompts sidecar read keeps" in capsys.readouterr().err
    side.write_text(kept)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    lines[0]["prompt_text_sha256"] = lines[-1]["prompt_text_sha256"]  # an answer said to be to another board
    out.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert main(common + [str(out)]) == 2
    assert "line 1" in capsys.readouterr().err and not (tmp_path / "v.parquet").exists()


def test_an_edited_spec_in_the_log_is_refused(all_log, tmp_path):
    spec, log = all_log
    record = {**spec.sidecar_record(), "system": "Another system prompt."}
    edited = tmp_path / "edited.eval"
    write_eval_log(
        log.model_copy(
            update={"eval": log.eval.model_copy(update={"metadata": {**log.eval.metadata, SPEC_KEY: record}})}
        ),
        str(edited),
    )
    with pytest.raises(UserError, match="does not hash to its prompt_spec_sha256"):
        responses_from_log(edited)
    with pytest.raises(UserError, match="does not hash to its prompt_spec_sha256"):
        import_log(edited, tmp_path / "answers.jsonl")
    assert not (tmp_path / "answers.jsonl").exists() and not sidecar_path(tmp_path / "answers.jsonl").exists()


def test_a_variant_with_the_tools_protocol(files, tmp_path):
    task_args = {"prompt": "cot", "system": SYSTEM, "protocol": "tools"}
    bank = load_bank(files / "bank.parquet")
    spec = run_spec(files, {"prompt": "cot", "system": SYSTEM})
    model, asked = certified(bank, spec, tools=True)
    log = run_eval(files, tmp_path, model, **task_args)
    prompts = BoardPrompts.of(bank, spec)
    openings = [[(m["role"], m["content"]) for m in prompts.trial("c", row, 0).opening] for row in range(len(bank))]
    assert all(request[:2] in openings for request in asked)  # each turn opens as run's trial does
    assert sorted(len(request) for request in asked) == [2] * 4 + [4] * 4  # the opening; then a call and its result
    responses = import_log(log.location, tmp_path / "answers.jsonl")
    assert (responses["condition"] == default_condition("mockllm:model", spec) + "+tools").all()
    assert list(responses.columns) == LOG_COLUMNS + list(spec.record_fields()) + CONVERSATION_COLUMNS
    assert responses["turns"].tolist() == [2] * 4
    assert (
        main(
            [
                "score",
                "--bank",
                str(files / "bank.parquet"),
                "--out",
                str(tmp_path / "v.parquet"),
                "--responses",
                str(tmp_path / "answers.jsonl"),
            ]
        )
        == 0
    )


def test_the_paper_prompt_records_nothing_new(files):
    (sample,) = planning(bank=str(files / "bank.parquet"), trials=1).dataset[:1]
    assert isinstance(sample.input, str) and not set(SAMPLE_KEYS.values()) & set(sample.metadata)


@pytest.mark.parametrize(
    "args, said",
    [
        ({"prompt": "nothing-here.txt"}, "--prompt nothing-here.txt: neither paper, cot nor a template file"),
        ({"prompt": 3}, "--prompt must be paper, cot or a template file, got 3"),
        ({"system": "  "}, "an empty system prompt is no system prompt"),
        ({"shots": 2}, "--shots needs --shots-bank"),
        ({"shots": "two", "shots_bank": "x"}, "--shots must be a whole number in 0..64, got 'two'"),
        ({"shots": 65, "shots_bank": "x"}, "--shots must be a whole number in 0..64, got 65"),
        (
            {"shots": 1, "shots_bank": "x", "shots_seed": -1},
            "--shots-seed must be a whole number of at least 0, got -1",
        ),
        ({"shots_bank": "x"}, "--shots-bank needs --shots N"),
    ],
)
def test_bad_prompt_parameters_are_one_error_before_the_bank_is_read(args, said):
    with pytest.raises(UserError) as caught:
        planning(bank="no-such-bank.parquet", **args)  # the bank is never reached
    assert said in str(caught.value) and len(str(caught.value).splitlines()) == 1


def test_shots_of_the_boards_asked_or_a_bad_template_are_refused(files, tmp_path):
    with pytest.raises(UserError, match="has the start state of board"):
        sliding_puzzles(bank=str(files / "bank.parquet"), shots=1, shots_bank=str(files / "bank.parquet"))
    (tmp_path / "bad.txt").write_text("Solve {nope}\n")
    with pytest.raises(UserError, match="template field {nope} is neither a bank column"):
        sliding_puzzles(bank=str(files / "bank.parquet"), prompt=str(tmp_path / "bad.txt"))
