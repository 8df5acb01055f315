"""Generation settings for reasoning models: the exact request bodies both SDKs send (over real HTTP to
tests/fake_llm_server.py), what the log records, resume identity, ``PROVIDER/MODEL`` and refused values."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_runners import FAST, _bank_file, bank, keys, lines_of, paper_bank, server  # noqa: F401 (fixtures)
from fastspe.cli import main
from fastspe.runners.generation import GenerationSettings, canonical_model, parse_extra_body, split_model
from fastspe.runners import estimate_run, run_baseline, run_model

NEW_FIELDS = ("top_p", "seed", "stop", "reasoning_effort", "thinking_budget", "extra_body")
SETTING_FIELDS = ("temperature", "max_tokens") + NEW_FIELDS


def _run(server, bank, wire, out, settings, **kw):
    model, url = (
        ("openai:fake-gpt", server.openai_url) if wire == "openai" else ("anthropic:fake-claude", server.anthropic_url)
    )
    return run_model(
        bank,
        kw.pop("model", model),
        out,
        base_url=url,
        trials=1,
        max_connections=2,
        timeout=5,
        policy=FAST,
        settings=settings,
        **kw,
    )


def _cli(server, bank, tmp_path, out, *extra, model="openai:fake-gpt"):
    url = server.openai_url if model.startswith("openai") else server.anthropic_url
    return main(
        [
            "run",
            "--bank",
            str(_bank_file(bank, tmp_path)),
            "--model",
            model,
            "--out",
            str(out),
            "--base-url",
            url,
            "--trials",
            "1",
            "--backoff",
            "0.01",
            *extra,
        ]
    )


# --- exact request bodies ----------------------------------------------------------------------------------------


def test_openai_body_carries_every_setting(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    chosen = GenerationSettings(
        temperature=0.5,
        max_tokens=900,
        top_p=0.9,
        seed=7,
        stop=["END", "\n\n"],
        reasoning_effort="high",
        extra_body={"top_k": 20, "chat_template_kwargs": {"a": 1}},
    )
    summary = _run(server, bank, "openai", out, chosen)
    assert summary.completed == 4 and len(server.seen) == 4
    for seen in server.seen:
        body = dict(seen.body)
        assert body.pop("messages") == [{"role": "user", "content": seen.prompt}]
        assert body == {
            "model": "fake-gpt",
            "temperature": 0.5,
            "max_tokens": 900,
            "top_p": 0.9,
            "seed": 7,
            "stop": ["END", "\n\n"],
            "reasoning_effort": "high",
            "top_k": 20,
            "chat_template_kwargs": {"a": 1},
        }
    for rec in lines_of(out):
        assert {k: rec[k] for k in SETTING_FIELDS} == {
            "temperature": 0.5,
            "max_tokens": 900,
            "top_p": 0.9,
            "seed": 7,
            "stop": ["END", "\n\n"],
            "reasoning_effort": "high",
            "thinking_budget": None,
            "extra_body": {"top_k": 20, "chat_template_kwargs": {"a": 1}},
        }


def test_anthropic_body_carries_every_setting(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    chosen = GenerationSettings(
        temperature=1,
        max_tokens=4096,
        top_p=0.97,
        stop=["END"],
        thinking_budget=2048,
        extra_body={"top_k": 5, "metadata": {"user_id": "u1"}},
    )
    assert _run(server, bank, "anthropic", out, chosen).completed == 4
    for seen in server.seen:
        body = dict(seen.body)
        assert body.pop("messages") == [{"role": "user", "content": seen.prompt}]
        assert body == {
            "model": "fake-claude",
            "max_tokens": 4096,
            "temperature": 1,
            "top_p": 0.97,
            "stop_sequences": ["END"],
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "top_k": 5,
            "metadata": {"user_id": "u1"},
        }
    rec = lines_of(out)[0]
    assert (rec["thinking_budget"], rec["stop"], rec["top_p"], rec["seed"]) == (2048, ["END"], 0.97, None)


@pytest.mark.parametrize(
    "wire, sent", [("openai", {"model", "messages"}), ("anthropic", {"model", "messages", "max_tokens"})]
)
def test_unset_settings_are_not_sent_and_logged_as_null(server, bank, tmp_path, wire, sent):
    out = tmp_path / "r.jsonl"
    _run(server, bank.head(1), wire, out, GenerationSettings())
    assert set(server.seen[0].body) == sent
    rec = lines_of(out)[0]
    assert all(rec[k] is None for k in NEW_FIELDS)


def test_openai_api_gets_max_completion_tokens(keys, monkeypatch):
    from fastspe.runners.openai_runner import OpenAIChat

    chat = OpenAIChat("gpt-x")  # api.openai.com: no request is sent, only built
    kwargs = chat.request("hi", GenerationSettings(max_tokens=50, reasoning_effort="minimal"))
    assert kwargs["max_completion_tokens"] == 50 and "max_tokens" not in kwargs
    assert kwargs["extra_body"] == {"reasoning_effort": "minimal"}
    chat.close()


# --- resume identity ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, second, named",
    [
        (
            ["--reasoning-effort", "low"],
            ["--reasoning-effort", "high"],
            "reasoning_effort 'low', this run asks for reasoning_effort 'high'",
        ),
        (["--stop", "END"], [], "stop ['END'], this run asks for stop None"),
        (["--extra-body", '{"top_k": 20}'], ["--extra-body", '{"top_k": 40}'], "extra_body {'top_k': 20}"),
        (["--seed", "1"], ["--seed", "2"], "seed 1, this run asks for seed 2"),
        ([], ["--top-p", "0.5"], "top_p None, this run asks for top_p 0.5"),
    ],
)
def test_resume_with_another_setting_is_refused(server, bank, tmp_path, capsys, first, second, named):
    out = tmp_path / "r.jsonl"
    assert _cli(server, bank, tmp_path, out, *first) == 0
    n, before = len(server.seen), out.read_bytes()
    capsys.readouterr()
    assert _cli(server, bank, tmp_path, out, *second) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {out}: line 1: condition 'openai:fake-gpt' was run with {named}"), err
    assert "--condition" in err and err.count("\n") == 1
    assert len(server.seen) == n and out.read_bytes() == before
    assert _cli(server, bank, tmp_path, out, *first) == 0 and len(server.seen) == n  # the same settings resume


def test_logs_older_than_the_new_settings_resume(server, bank, tmp_path):
    out = tmp_path / "r.jsonl"
    _run(server, bank, "openai", out, GenerationSettings(max_tokens=100))
    old = [{k: v for k, v in r.items() if k not in NEW_FIELDS} for r in lines_of(out)]
    out.write_text("".join(json.dumps(r) + "\n" for r in old))
    n = len(server.seen)
    # Empty --stop / --extra-body values read as unset, like the missing keys.
    again = _run(server, bank, "openai", out, GenerationSettings(max_tokens=100, stop=[], extra_body={}))
    assert again.requested == 0 and again.already_complete == 4 and len(server.seen) == n


# --- PROVIDER/MODEL ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "model, parts",
    [
        ("openai:gpt-4o", ("openai", "gpt-4o")),
        ("openai/gpt-4o", ("openai", "gpt-4o")),
        ("openai:meta-llama/Llama-3-8B", ("openai", "meta-llama/Llama-3-8B")),
        ("openai/meta-llama/Llama-3-8B", ("openai", "meta-llama/Llama-3-8B")),
        ("openai:llama3:8b", ("openai", "llama3:8b")),
        ("openai/llama3:8b", ("openai", "llama3:8b")),
        ("baseline/greedy", ("baseline", "greedy")),
    ],
)
def test_split_model(model, parts):
    assert split_model(model) == parts and canonical_model(model) == ":".join(parts)


@pytest.mark.parametrize("model", ["gpt-4o", "openai:", "openai/", ":x", "/x", ""])
def test_split_model_refuses(model):
    with pytest.raises(ValueError, match="use PROVIDER:MODEL"):
        split_model(model)


def test_slash_model_runs_and_resumes_as_one_condition(server, bank, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert _cli(server, bank, tmp_path, out, model="openai/fake-gpt") == 0
    records = lines_of(out)
    assert {r["condition"] for r in records} == {"openai:fake-gpt"} and len(records) == 4
    assert {s.body["model"] for s in server.seen} == {"fake-gpt"}
    n = len(server.seen)
    assert _cli(server, bank, tmp_path, out, model="openai:fake-gpt") == 0 and len(server.seen) == n


def test_baseline_seed_stays_the_planner_seed(bank, tmp_path):
    pytest.importorskip("fastspe.domains.sliding.planners.baselines")
    out = tmp_path / "b.jsonl"
    args = [
        "run",
        "--bank",
        str(_bank_file(bank, tmp_path)),
        "--model",
        "baseline/random",
        "--out",
        str(out),
        "--trials",
        "1",
    ]
    assert main(args + ["--seed", "5"]) == 0
    records = lines_of(out)
    assert {(r["condition"], r["seed"]) for r in records} == {("baseline:random", 5)}
    assert main(args + ["--seed", "5"]) == 0 and len(lines_of(out)) == 4
    with pytest.raises(ValueError, match="seed 5, this run asks for seed 0"):
        run_baseline(bank, "random", out, trials=1, condition="baseline:random")


# --- dry run and summary -----------------------------------------------------------------------------------------


def test_dry_run_and_summary_name_the_settings(server, bank, tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    extra = ["--reasoning-effort", "medium", "--max-tokens", "2000", "--extra-body", '{"top_k": 3}']
    assert _cli(server, bank, tmp_path, out, "--dry-run", *extra) == 0
    text = capsys.readouterr().out
    assert 'settings sent: max_tokens=2000 reasoning_effort=medium extra_body={"top_k":3}' in text
    assert "reasoning tokens included" in text and not server.seen
    assert _cli(server, bank, tmp_path, out, *extra) == 0
    assert "Settings sent: max_tokens=2000 reasoning_effort=medium" in capsys.readouterr().out
    assert _cli(server, bank, tmp_path, out, "--dry-run", "--condition", "plain") == 0
    assert "settings sent: none (the server's defaults)" in capsys.readouterr().out


def test_estimate_applies_the_providers_rules(bank, tmp_path):
    est = estimate_run(
        bank, "anthropic/fake-claude", tmp_path / "r.jsonl", trials=1, settings=GenerationSettings(thinking_budget=4000)
    )
    assert est.condition == "anthropic:fake-claude" and est.settings.max_tokens == 8192
    assert est.output_tokens_upper == 4 * 8192  # --max-tokens bounds thinking and answer together
    with pytest.raises(ValueError, match="--thinking-budget 9000 must be below --max-tokens 8192"):
        estimate_run(
            bank, "anthropic:fake-claude", tmp_path / "r.jsonl", settings=GenerationSettings(thinking_budget=9000)
        )


# --- refused values: one `error:` line, exit 2, nothing written or sent -------------------------------------------

OPENAI = ["run", "--bank", "b.jsonl", "--model", "openai:x", "--out", "r.jsonl"]
ANTHROPIC = ["run", "--bank", "b.jsonl", "--model", "anthropic:x", "--out", "r.jsonl"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (OPENAI + ["--extra-body", "[1]"], "--extra-body: must be a JSON object like '{\"key\": value}', got an array"),
        (OPENAI + ["--extra-body", '"x"'], "--extra-body: must be a JSON object"),
        (OPENAI + ["--extra-body", '{"model": "y"}'], "--extra-body: must not set 'model': fastspe sends it"),
        (OPENAI + ["--extra-body", '{"messages": []}'], "--extra-body: must not set 'messages'"),
        (OPENAI + ["--extra-body", '{"stream": true}'], "--extra-body: must not set 'stream'"),
        (OPENAI + ["--extra-body", "{top_k: 1}"], "--extra-body: must be valid JSON (Expecting property name"),
        (OPENAI + ["--extra-body", '{"a": NaN}'], "--extra-body: must hold only finite JSON values, got NaN"),
        (OPENAI + ["--extra-body", '{"top_p": 1}', "--top-p", "0.5"], "--extra-body sets 'top_p', which --top-p sets"),
        (
            OPENAI + ["--extra-body", '{"max_completion_tokens": 9}', "--max-tokens", "5"],
            "--extra-body sets 'max_completion_tokens', which --max-tokens sets",
        ),
        (ANTHROPIC + ["--extra-body", '{"max_tokens": 9}'], "--extra-body sets 'max_tokens', which --max-tokens sets"),
        (OPENAI + ["--top-p", "0"], "--top-p: must be a finite number > 0 and <= 1"),
        (OPENAI + ["--top-p", "1.5"], "--top-p: must be a finite number > 0 and <= 1"),
        (OPENAI + ["--top-p", "nan"], "--top-p"),
        (OPENAI + ["--reasoning-effort", "extreme"], "--reasoning-effort: invalid choice: 'extreme'"),
        (OPENAI + ["--stop", ""], "--stop: must be a non-empty text"),
        (
            OPENAI + ["--stop", "a", "--stop", "b", "--stop", "c", "--stop", "d", "--stop", "e"],
            "openai: models take at most 4 --stop sequences, got 5",
        ),
        (OPENAI + ["--seed", "1.5"], "--seed"),
        (
            OPENAI + ["--thinking-budget", "2048"],
            "--thinking-budget is Anthropic's extended thinking; for openai: models give --reasoning-effort",
        ),
        (ANTHROPIC + ["--thinking-budget", "1000"], "--thinking-budget: must be a whole number in 1,024.."),
        (ANTHROPIC + ["--thinking-budget", "8192"], "--thinking-budget 8192 must be below --max-tokens 8192"),
        (
            ANTHROPIC + ["--thinking-budget", "2048", "--max-tokens", "2048"],
            "--thinking-budget 2048 must be below --max-tokens 2048",
        ),
        (
            ANTHROPIC + ["--thinking-budget", "2048", "--temperature", "0.5"],
            "with --thinking-budget Anthropic takes no --temperature but 1, got 0.5",
        ),
        (
            ANTHROPIC + ["--thinking-budget", "2048", "--top-p", "0.5"],
            "with --thinking-budget Anthropic takes --top-p only in 0.95..1, got 0.5",
        ),
        (
            ANTHROPIC + ["--reasoning-effort", "high"],
            "anthropic: models take no --reasoning-effort; give --thinking-budget",
        ),
        (ANTHROPIC + ["--seed", "3"], "Anthropic's messages API has no sampling seed"),
    ],
)
def test_bad_settings_fail_at_once(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1 and "\x1b" not in err, err
    assert time.perf_counter() - start < 5 and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: GenerationSettings(top_p=0), "--top-p must be a number > 0 and <= 1"),
        (lambda: GenerationSettings(seed=True), "--seed must be a whole number"),
        (lambda: GenerationSettings(seed=-1), "--seed must be a whole number"),
        (lambda: GenerationSettings(stop=["a", ""]), "each --stop must be a non-empty text"),
        (lambda: GenerationSettings(reasoning_effort="max"), "--reasoning-effort must be one of minimal, low"),
        (
            lambda: GenerationSettings(thinking_budget=1023),
            "--thinking-budget must be a whole number of tokens >= 1024",
        ),
        (lambda: GenerationSettings(extra_body=[1]), "--extra-body must be a JSON object"),
        (lambda: GenerationSettings(extra_body={"model": "x"}), "--extra-body must not set 'model'"),
        (lambda: GenerationSettings(extra_body={"x": float("inf")}), "--extra-body must hold only finite JSON values"),
        (
            lambda: GenerationSettings(extra_body={"thinking": {}}, thinking_budget=2048),
            "--extra-body sets 'thinking', which --thinking-budget sets too",
        ),
    ],
)
def test_python_api_refuses_bad_settings(make, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        make()


def test_empty_values_read_as_unset():
    assert GenerationSettings(stop=[], extra_body={}) == GenerationSettings()
    one = GenerationSettings(stop="END")
    assert one.stop == ("END",) and one.as_dict()["stop"] == ["END"]


# --- properties ----------------------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)
FREE_KEYS = st.text(max_size=10).filter(lambda k: k not in {"model", "messages", "stream"})


@given(st.dictionaries(FREE_KEYS, JSON_VALUES, max_size=4))
@settings(max_examples=150, deadline=None)
def test_any_json_object_round_trips_through_the_log(body):
    parsed = parse_extra_body(json.dumps(body))
    assert parsed == body
    chosen = GenerationSettings(extra_body=parsed)
    # What the log holds (a JSON line) reads back equal to what resuming compares it with.
    assert json.loads(json.dumps(chosen.as_dict())) == chosen.as_dict()


@given(JSON_VALUES.filter(lambda v: not isinstance(v, dict)))
@settings(max_examples=100, deadline=None)
def test_any_json_that_is_not_an_object_is_refused(value):
    with pytest.raises(ValueError, match="must be a JSON object"):
        parse_extra_body(json.dumps(value))


def test_model_options_with_a_baseline_are_refused(tmp_path, capsys):
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import write_bank
    from fastspe.domains.sliding.bank.design import paper_design

    bank = tmp_path / "bank.parquet"
    write_bank(build_bank(paper_design()).head(2), bank)
    out = tmp_path / "r.jsonl"
    code = main(
        [
            "run",
            "--bank",
            str(bank),
            "--model",
            "baseline:greedy",
            "--out",
            str(out),
            "--temperature",
            "0.5",
            "--stop",
            "x",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "--temperature, --stop only apply to model APIs" in err and not out.exists()
    assert main(["run", "--bank", str(bank), "--model", "baseline:greedy", "--out", str(out), "--seed", "3"]) == 0
