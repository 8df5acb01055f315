"""The independent verdict verifier agrees with `fastspe score` and names every tampered row."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.domains.sliding.planners.baselines import PLANNERS, baseline_responses
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.cli import main
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.scoring.score import score_responses
from fastspe.domains.sliding.verify.replay import bank_boards
from fastspe.verify.verdicts import compare_verdicts

REPO = Path(__file__).resolve().parents[1]
OPTIONS = [(p, f) for p in ("lenient", "strict") for f in ("illegal", "noncompletion")]
NASTY = [
    "MOVES: U, D, L, R",
    "moves: u, d",
    "```\nMOVES: U,L\n```",
    "**MOVES:** up, left",
    "MOVES: ↑ ← ↓",
    "MOVES: U → L → D",
    "MOVES: [U, L].",
    "Here is my plan. MOVES: U, L",
    "MOVES:\nU, L,\nD",
    "U L D R",
    "I would go up then left.",
    "MOVES: U, X, L",
    "MOVES: UDX",
    "MOVES: U (up), L (2 moves)",
    "MOVES:",
    "",
    "MOVES: R, R, R, R, R",
    "MOVES: D, D, D, D, D",
    "MOVES: U\nMOVES: L",
    "moves -> U, L",
    "Move: up; left",
    "MOVES: U, then, L",
    "MOVES: UP, Down, LEFT",
    "MOVES: ⬆\ufe0f, ⬅\ufe0f",
]
PIECES = [
    "MOVES:",
    "Moves:",
    "**MOVES:**",
    "- move:",
    "Answer: MOVES:",
    "```\n",
    "~~~\n",
    "U",
    "D",
    "L",
    "R",
    "u",
    "UDLR",
    "up",
    "Down",
    "LEFT",
    "↑",
    "→",
    "⬅\ufe0f",
    "->",
    "⇒",
    ", ",
    ",",
    " ",
    ";",
    "/",
    "\n",
    "\r\n",
    "(up)",
    "[",
    "]",
    '"',
    ".",
    "X",
    "then",
    "`",
    "*",
    "_",
    "\u00a0",
    "\u2028",
    "MOVESMOVES:",
    "éMOVES:",
]


@pytest.fixture(scope="module")
def bank():
    return build_bank(paper_design()).iloc[::4].reset_index(drop=True)  # every layout and depth, 100 boards


@pytest.fixture(scope="module")
def boards(bank):
    return bank_boards(bank)


def _answers(bank, texts, condition="hand"):
    ids = bank["board_id"].to_numpy()
    return pd.DataFrame(
        {
            "board_id": [ids[i % len(ids)] for i in range(len(texts))],
            "condition": condition,
            "trial": range(len(texts)),
            "response": texts,
        }
    )


def _nasty(bank) -> pd.DataFrame:
    """Hand-written answers, plus a certificate with a detour after the goal (goal reached midway)."""
    goal_blank_up = next(
        i for i, (blocks, cert) in enumerate(zip(bank["blocks"], bank["certificate"])) if not blocks and cert
    )
    cert = bank["certificate"].iloc[goal_blank_up]
    midway = pd.DataFrame(
        {
            "board_id": [bank["board_id"].iloc[goal_blank_up]],
            "condition": "midway",
            "trial": [0],
            "response": ["MOVES: " + ", ".join(cert + "UD")],
        }
    )
    rng = np.random.default_rng(5)
    walks = ["MOVES: " + ", ".join(rng.choice(list("UDLR"), rng.integers(1, 30))) for _ in range(300)]
    nasty = _answers(bank, NASTY * 4)
    nasty["finish_reason"] = (["stop", "LENGTH", "max_tokens"] * len(nasty))[: len(nasty)]  # cut off: truncated
    return pd.concat([nasty, _answers(bank, walks, "walks"), midway], ignore_index=True)


@pytest.mark.parametrize("parse, format_failure", OPTIONS)
def test_agrees_with_score_on_every_planner_and_nasty_answers(bank, boards, parse, format_failure):
    responses = pd.concat(
        [baseline_responses(bank, p, trials=2, seed=3) for p in PLANNERS] + [_nasty(bank)], ignore_index=True
    )
    verdicts = score_responses(bank, responses, parse=parse, format_failure=format_failure)
    diffs, compared = compare_verdicts("sliding", boards, responses, verdicts, parse, format_failure)
    assert diffs == [] and compared == len(responses)
    # the answers reach every outcome the replay knows
    kinds = set(verdicts["error_kind"])
    assert {"boundary", "obstacle", "invalid_action"} <= kinds
    assert ("format" in kinds) == (format_failure == "illegal")
    assert set(verdicts["parse_mode"]) == (
        {"exact", "normalized", "no_plan"} if parse == "lenient" else {"exact", "no_plan"}
    )
    assert (
        verdicts["truncated"].any()
        and verdicts["goal_midway"].any()
        and (verdicts["revisits"] > 0).any()
        and verdicts["optimal"].any()
    )


_TEXT = st.one_of(
    st.lists(st.sampled_from("UDLR?"), max_size=25).map(lambda m: "MOVES: " + ", ".join(m)),
    st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
    st.text(max_size=40),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(st.tuples(st.integers(0, 99), _TEXT), min_size=1, max_size=12), st.sampled_from(OPTIONS))
def test_random_answers_on_random_boards_agree(bank, boards, answers, options):
    ids = bank["board_id"].to_numpy()
    responses = pd.DataFrame(
        {
            "board_id": [ids[i] for i, _ in answers],
            "condition": "fuzz",
            "trial": range(len(answers)),
            "response": [t for _, t in answers],
        }
    )
    verdicts = score_responses(bank, responses, *options)
    assert compare_verdicts("sliding", boards, responses, verdicts, *options)[0] == []


# ---- files and the command line ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(bank, tmp_path_factory):
    folder = tmp_path_factory.mktemp("verdicts")
    write_bank(bank, folder / "bank.parquet")
    responses = pd.concat([baseline_responses(bank, "noisy", trials=2, seed=1), _nasty(bank)], ignore_index=True)
    failed = responses.iloc[[0]].assign(response="", status="timeout")  # a run log's failed attempt, then its retry
    pd.concat([failed, responses.assign(status="ok")]).to_json(folder / "runs.jsonl", orient="records", lines=True)
    assert (
        main(
            [
                "score",
                "--bank",
                str(folder / "bank.parquet"),
                "--responses",
                str(folder / "runs.jsonl"),
                "--out",
                str(folder / "v.parquet"),
            ]
        )
        == 0
    )
    return folder


def _verify(files, verdicts, *extra):
    return main(
        [
            "verdicts",
            "verify",
            "--bank",
            str(files / "bank.parquet"),
            "--responses",
            str(files / "runs.jsonl"),
            "--verdicts",
            str(verdicts),
            *extra,
        ]
    )


def test_cli_ok(files, capsys):
    assert _verify(files, files / "v.parquet") == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: all ") and "verdicts re-derived independently (parse," in out


def test_verdicts_rewritten_by_another_tool_still_compare(files):
    pd.read_parquet(files / "v.parquet").to_csv(files / "plain.csv", index=False)
    assert _verify(files, files / "plain.csv") == 0


def test_wrong_options_are_differences(files, capsys):
    assert _verify(files, files / "v.parquet", "--format-failure", "noncompletion") == 1
    captured = capsys.readouterr()
    assert "status is 'illegal' in the verdicts, re-derived 'legal_noncompletion'" in captured.out
    assert "--parse and --format-failure" in captured.err


def test_tampered_rows_are_each_named(files, capsys):
    df = pd.read_parquet(files / "v.parquet")
    complete, lengthened, dropped, copied = (
        int(i) for i in np.flatnonzero((df["status"] == "complete") & (df["L"] > 0))[:4]
    )
    df.loc[complete, ["status", "optimal", "economy", "excess"]] = ["legal_noncompletion", False, np.nan, np.nan]
    df.loc[lengthened, "L"] += 1
    named_rows = {
        "status": df.loc[complete],
        "L": df.loc[lengthened],
        "dropped": df.loc[dropped],
        "extra": df.loc[copied].copy(),
    }
    named_rows["extra"]["trial"] = 12345
    pd.concat([df.drop(index=dropped), named_rows["extra"].to_frame().T], ignore_index=True).to_csv(
        files / "tampered.csv", index=False
    )
    assert _verify(files, files / "tampered.csv") == 1
    lines = capsys.readouterr().out.strip().splitlines()

    def named(row, what):
        where = f"condition {row['condition']!r}, board_id {row['board_id']!r}, trial {row['trial']}: "
        return any(ln == "DIFF " + where + what for ln in lines)

    status, length = named_rows["status"], named_rows["L"]
    assert named(status, "status is 'legal_noncompletion' in the verdicts, re-derived 'complete'")
    assert named(status, f"economy is nan in the verdicts, re-derived {float(status['depth'] / status['L'])!r}")
    assert named(length, f"L is {length['L']} in the verdicts, re-derived {length['L'] - 1}")
    assert named(named_rows["dropped"], "a response with no verdict")
    assert named(named_rows["extra"], "a verdict with no response")
    assert all(ln.startswith("DIFF ") for ln in lines) and len(lines) == 7  # status, optimal, economy, excess


def test_duplicate_verdict_is_named(files, capsys):
    df = pd.read_parquet(files / "v.parquet")
    pd.concat([df, df.iloc[[3]]], ignore_index=True).to_json(files / "dup.jsonl", orient="records", lines=True)
    assert _verify(files, files / "dup.jsonl") == 1
    assert "verdict appears again" in capsys.readouterr().out


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda f: {"verdicts": f / "missing.parquet"}, "missing.parquet: no such file"),
        (lambda f: {"verdicts": f / "runs.jsonl"}, "lack columns ["),
        (lambda f: {"bank": f / "runs.jsonl"}, "error: "),
        (lambda f: {"verdicts": f / "bank.parquet"}, "error: "),
    ],
)
def test_bad_input_exits_2_with_one_error_line(files, capsys, change, message):
    paths = {
        "bank": files / "bank.parquet",
        "responses": files / "runs.jsonl",
        "verdicts": files / "v.parquet",
        **change(files),
    }
    code = main(["verdicts", "verify", *(a for k, v in paths.items() for a in (f"--{k}", str(v)))])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.startswith("error:") and "Traceback" not in err


def test_bad_option_exits_2(files):
    assert _verify(files, files / "v.parquet", "--parse", "loose") == 2


def test_shares_no_code_with_the_scorer():
    # fastspe.kernels itself holds only constants (MAX_SEED); its kernel modules must not load
    probe = (
        "import sys, fastspe.verify.verdicts, fastspe.cli.verdicts; "
        "bad = [m for m in sys.modules if m.startswith('fastspe.kernels.') or m in ('fastspe.scoring.parse_reference', "
        "'fastspe.scoring.parse_column', 'fastspe.scoring.score', 'fastspe.domains.sliding.layout', 'numba')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", probe], cwd=REPO, check=True, env={"PYTHONPATH": str(REPO)})


def test_help_imports_no_heavy_module():
    from tests.test_startup import HEAVY, PROBE

    for argv in (["verdicts", "--help"], ["verdicts", "verify", "--help"]):
        subprocess.run(
            [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
            cwd=REPO,
            check=True,
            capture_output=True,
            env={"PYTHONPATH": str(REPO)},
        )
