"""A domain from outside fastspe runs the whole pipeline: ``tests/plugins/fastspe-hanoi`` (the Tower of Hanoi with
forbidden moves, its own package and ``pyproject.toml``), installed beside fastspe by README's test command, found by
its ``fastspe.domains`` entry point alone. No file of ``fastspe/`` names it. A domain that cannot be loaded is named
in one clear error, and the others keep working.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fastspe.cli import main
from tests.fake_llm_server import FakeLLMServer, ok

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "hanoi"
INSTALL = "pip install -e tests/plugins/fastspe-hanoi (README's test command does)"
KEY = "sk-fastspe-plugin-test"


def _installed() -> bool:
    return any(ep.name == PLUGIN for ep in entry_points(group="fastspe.domains"))


@pytest.fixture(scope="module", autouse=True)
def plugin_installed():
    assert _installed(), f"the test domain plugin fastspe-hanoi is not installed: {INSTALL}"


def test_no_file_of_fastspe_names_the_plugin():
    named = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "fastspe").rglob("*")
        if p.is_file()
        and p.suffix in (".py", ".toml", ".md", ".txt")
        and PLUGIN in p.read_text(errors="replace").lower()
    ]
    assert not named


def test_fastspe_domains_lists_it_with_its_package(capsys):
    assert main(["domains"]) == 0
    out = capsys.readouterr().out
    assert "hanoi" in out and "fastspe-hanoi" in out and "fastspe_hanoi:DOMAIN" in out and "sokoban" in out


def _answers(bank_path: Path) -> dict:
    """Prompt -> an answer for the fake API server: the certificate in the exact form for even rows, a plan that
    starts with a forbidden or illegal move for odd ones (the domain's own error kinds), prose for the third."""
    from fastspe.boundary.banks import load_bank

    bank = load_bank(bank_path)
    prompts = bank.domain.prompts(bank.frame)
    vocabulary = bank.domain.vocabulary
    out = {}
    for i, (prompt, cert) in enumerate(zip(prompts, bank.frame["certificate"])):
        if i % 3 == 0:
            out[prompt] = "I think this works.\n" + vocabulary.answer(cert)
        elif i % 3 == 1:
            out[prompt] = "MOVES: AC, CA, " + ", ".join(vocabulary.tokens_of(cert))
        else:
            out[prompt] = "Move the small disk first, then the others."
    return out


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """The pipeline through the command line: a bank, two baselines and a model run against a local
    OpenAI-compatible server, scored, verified, reported with figures."""
    d = tmp_path_factory.mktemp("plugin")
    bank, verdicts = d / "bank.parquet", d / "verdicts.parquet"
    assert main(["bank", "build", "--domain", PLUGIN, "--out", str(bank)]) == 0
    logs = []
    for planner in ("oracle", "greedy"):
        logs.append(d / f"{planner}.jsonl")
        assert main(["run", "--bank", str(bank), "--model", f"baseline:{planner}", "--out", str(logs[-1])]) == 0
    answers = _answers(bank)
    os.environ["OPENAI_API_KEY"] = KEY
    try:
        with FakeLLMServer(key=KEY) as server:
            server.script = lambda seen: ok(answers[seen.prompt])
            logs.append(d / "model.jsonl")
            assert (
                main(
                    [
                        "run",
                        "--bank",
                        str(bank),
                        "--model",
                        "openai:fake-model",
                        "--base-url",
                        server.openai_url,
                        "--trials",
                        "2",
                        "--out",
                        str(logs[-1]),
                    ]
                )
                == 0
            )
            requests = len(server.seen)
    finally:
        del os.environ["OPENAI_API_KEY"]
    assert (
        main(
            [
                "score",
                "--bank",
                str(bank),
                *[a for log in logs for a in ("--responses", str(log))],
                "--out",
                str(verdicts),
            ]
        )
        == 0
    )
    return d, bank, logs, verdicts, requests


def test_the_bank_names_its_domain_and_verifies(pipeline, capsys):
    d, bank, *_ = pipeline
    table = pq.read_table(bank)
    assert table.schema.metadata[b"fastspe.domain"] == b"hanoi" and "disks" in table.column_names
    assert main(["bank", "verify", str(bank)]) == 0
    assert main(["bank", "show", str(bank)]) == 0
    out = capsys.readouterr().out
    assert f"ok: all {table.num_rows} states verified" in out and "disks" in out and "rule" in out


def test_the_model_run_is_scored_with_the_domains_tokens_and_error_kinds(pipeline):
    d, bank, logs, verdicts, requests = pipeline
    assert requests == 2 * pq.read_table(bank).num_rows
    frame = pq.read_table(verdicts).to_pandas()
    model = frame[frame["condition"] == "openai:fake-model"]
    assert set(model["status"]) == {"complete", "illegal"}
    complete, illegal = model[model["status"] == "complete"], model[model["status"] == "illegal"]
    # the certificates (after prose: optimal), or AC, CA and then the certificate where those two are legal (classic)
    odd = complete[~(complete["optimal"] | (complete["L"] == complete["depth"] + 2))]
    assert len(complete) and odd.empty, odd[["board_id", "trial", "depth", "L", "moves", "parse_mode"]].to_string()
    assert complete["optimal"].any() and not complete["optimal"].all()
    planned = illegal[illegal["parse_mode"] == "exact"]  # where AC or CA is not: the domain's own illegal moves
    assert len(planned) and planned["first_error"].isin([0, 1]).all()
    assert set(planned["error_kind"]) <= {"forbidden_move", "empty_peg", "larger_on_smaller"}
    assert (illegal[illegal["parse_mode"] == "no_plan"]["error_kind"] == "format").all()
    assert set("".join(model["moves"].dropna())) <= set("abcdef")  # one symbol per action in the file
    oracle = frame[frame["condition"] == "baseline:oracle"]
    assert (oracle["optimal"]).all() and (oracle["L"] == oracle["depth"]).all()


def test_metrics_report_with_figures_and_compare(pipeline, capsys):
    d, bank, logs, verdicts, _ = pipeline
    assert (
        main(
            ["metrics", "--verdicts", str(verdicts), "--by", "cohort,condition,disks", "--out", str(d / "metrics.csv")]
        )
        == 0
    )
    assert "disks" in (d / "metrics.csv").read_text().splitlines()[0]
    assert (
        main(["report", "--bank", str(bank), "--verdicts", str(verdicts), "--out", str(d / "report"), "--draws", "200"])
        == 0
    )
    report = (d / "report" / "report.md").read_text()
    assert "by disks" in report and "illegal\\_forbidden\\_move" in report
    assert (d / "report" / "figures" / "figure1_horizon_metrics.png").is_file()
    assert list((d / "report" / "examples").glob("*.html"))  # the domain's replay pages
    assert (
        main(
            [
                "compare",
                "--bank",
                str(bank),
                "--verdicts",
                str(verdicts),
                "--baseline",
                "baseline:greedy",
                "--candidate",
                "openai:fake-model",
                "--draws",
                "200",
                "--out",
                str(d / "compare"),
            ]
        )
        == 0
    )
    assert "disks" in (d / "compare" / "compare.csv").read_text().splitlines()[0]


def test_the_independent_verifier_agrees_with_every_verdict(pipeline, capsys):
    d, bank, logs, verdicts, _ = pipeline
    assert (
        main(
            [
                "verdicts",
                "verify",
                "--bank",
                str(bank),
                *[a for log in logs for a in ("--responses", str(log))],
                "--verdicts",
                str(verdicts),
            ]
        )
        == 0
    )
    assert "disks" in capsys.readouterr().out


def test_show_draws_the_domains_states(pipeline, capsys):
    d, bank, logs, verdicts, _ = pipeline
    board = pq.read_table(bank).column("board_id")[1].as_py()
    page = d / "one.html"
    capsys.readouterr()
    assert (
        main(
            [
                "show",
                "--bank",
                str(bank),
                "--verdicts",
                str(verdicts),
                "--board",
                board,
                "--condition",
                "openai:fake-model",
                "--trial",
                "0",
                "--format",
                "trace",
                "--html",
                str(page),
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    assert "first illegal: move 1" in out.out and out.err == ""
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and board in html


def test_solve_and_demo(tmp_path, capsys):
    assert main(["solve", "--domain", PLUGIN, "--start", "CAB", "--rule", "adjacent"]) == 0
    assert json.loads(capsys.readouterr().out)["length"] == 11
    assert main(["solve", "--start", "CAB"]) == 2  # the default domain has no --start
    assert "--start is an option of the hanoi domain: add --domain hanoi" in capsys.readouterr().err
    assert main(["demo", "--domain", PLUGIN, "--out", str(tmp_path / "demo"), "--draws", "100"]) == 0
    assert "baseline:oracle" in capsys.readouterr().out and (tmp_path / "demo" / "report.html").is_file()


def test_the_inspect_task_of_the_domain(tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    import fastspe.inspect_task as task_module

    from fastspe_hanoi import DOMAIN

    task = task_module.hanoi_towers(trials=1)
    samples = list(task.dataset)  # the target is the certificate, as its bank stores it
    answers = {s.input: DOMAIN.vocabulary.answer(s.target) for s in samples}

    def model(messages, tools, tool_choice, config):
        out = ModelOutput.from_content(model="mockllm", content=answers[messages[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1)  # so the mock counts no tokens itself
        return out

    [log] = inspect_eval(
        task, model=get_model("mockllm/model", custom_outputs=model), log_dir=str(tmp_path), display="none"
    )
    scores = {sc.name: {m.name: m.value for m in sc.metrics.values()} for sc in log.results.scores}
    assert scores["C"]["mean"] == 1.0 and scores["SPE"]["mean"] == 1.0
    assert any(name.startswith("disks=") for name in scores["C"])
    responses = task_module.responses_from_log(log.location)
    assert len(responses) == len(samples)


# ---- a domain that cannot be loaded -------------------------------------------------------------------------


def _broken_plugins(folder: Path) -> dict:
    """A distribution whose entry points name a module that fails to import, and one whose object calls itself by
    another name: what an installed but broken plugin looks like to ``importlib.metadata``."""
    (folder / "fastspe_broken_plugin.py").write_text("raise ImportError('no module named tensorflow (a test)')\n")
    info = folder / "fastspe_broken-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fastspe-broken\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text(
        "[fastspe.domains]\nbroken = fastspe_broken_plugin:DOMAIN\nmisnamed = fastspe_hanoi:DOMAIN\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(ROOT)]), "FASTSPE_PROGRESS": "off"}
    return env


def test_a_domain_that_cannot_be_loaded_is_named_and_the_others_keep_working(tmp_path):
    env = _broken_plugins(tmp_path)

    def fastspe(*args):
        return subprocess.run(
            [sys.executable, "-m", "fastspe", *args], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    listed = fastspe("domains")
    assert listed.returncode == 1, listed.stderr
    errors = [line for line in listed.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2 and "Traceback" not in listed.stderr
    assert any(
        "'broken' (fastspe-broken 0.0.1, fastspe_broken_plugin:DOMAIN) cannot be used: ImportError: no module "
        "named tensorflow" in e
        for e in errors
    )
    assert any("'misnamed'" in e and "calls itself 'hanoi'" in e for e in errors)
    assert "sliding" in listed.stdout and "hanoi" in listed.stdout
    used = fastspe("bank", "build", "--domain", "broken", "--out", "b.parquet")
    assert (
        used.returncode == 2 and used.stderr.startswith("error: the domain 'broken'") and "Traceback" not in used.stderr
    )
    assert not (tmp_path / "b.parquet").exists()
    assert fastspe("bank", "build", "--out", "paper.parquet").returncode == 0  # the others keep working
    assert fastspe("bank", "build", "--domain", "hanoi", "--out", "h.parquet").returncode == 0
