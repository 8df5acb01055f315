""" "What the tool fixes" and Table 1 by protocol in ``fastspe report`` and ``fastspe compare``: there only when the
verdicts hold a protocol pair (or several protocols); verdicts without a protocol give today's outputs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fastspe.boundary.banks import write_bank
from fastspe.boundary.verdict_files import write_verdicts
from fastspe.cli import main
from fastspe.report.write import write_report
from fastspe.scoring.score import score_responses

from .naive_bootstrap import synthetic_verdicts
from .test_score import tiny_bank

SECTION = "what_the_tool_fixes"


@pytest.fixture(scope="module")
def verdicts():
    v = synthetic_verdicts(seed=7, conditions=("m", "m+tools", "other"), per_cell=2)
    v["protocol"] = np.where(v["condition"] == "m+tools", "tools", None)
    v["tool_call_count"] = np.where(v["condition"] == "m+tools", v["trial"] + 1, np.nan)
    return v


def board_facts(v):
    return v.drop_duplicates("board_id")[["board_id", "cohort", "k", "depth"]].reset_index(drop=True)


def report(tmp_path, v, name):
    return write_report(board_facts(v), v, tmp_path / name, draws=100, seed=5, figures=False).parent


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_protocol_pair_gets_the_section_and_table1_by_protocol(tmp_path, verdicts):
    out = report(tmp_path, verdicts, "r")
    table = pd.read_csv(out / "tables" / f"{SECTION}.csv")
    assert set(table[["baseline", "candidate", "protocol"]].itertuples(index=False, name=None)) == {
        ("m", "m+tools", "tools")
    }
    assert {
        "dR",
        "dR_lo",
        "dR_hi",
        "dSPE",
        "illegal_to_legal",
        "complete_to_incomplete",
        "tool_calls_per_complete",
    } <= set(table.columns)
    assert table["pairs"].iloc[0] == (verdicts["condition"] == "m").sum() * 16 // 20  # primary: 16 of 20 cells
    md, html = (out / "report.md").read_text(), (out / "report.html").read_text()
    assert "### What the tool fixes" in md and f'id="{SECTION}"' in html
    assert md.index("### What the tool fixes") > md.index("Paired differences of SPE")  # beside them
    t1 = pd.read_csv(out / "tables" / "table1_primary.csv")
    assert t1.columns[0] == "protocol"
    assert list(t1["protocol"]) == ["unaided", "unaided", "tools"] and set(t1["condition"][:2]) == {"m", "other"}
    assert "grouped by protocol" in (out / "tables" / "table1_primary.md").read_text()
    tex = (out / "tables" / f"{SECTION}.tex").read_text()
    assert r"$\Delta R$" in tex and "[" in tex  # intervals in the cells


def test_several_protocols_without_a_pair_group_table1_only(tmp_path, verdicts):
    v = verdicts[verdicts["condition"] != "m"]
    out = report(tmp_path, v, "r")
    assert not (out / "tables" / f"{SECTION}.csv").exists()
    assert list(pd.read_csv(out / "tables" / "table1_primary.csv")["protocol"]) == ["unaided", "tools"]


def test_verdicts_of_one_protocol_give_todays_report(tmp_path, verdicts):
    plain = verdicts.drop(columns=["protocol", "tool_call_count"])
    today = files(report(tmp_path, plain, "today"))
    assert not any(SECTION in name for name in today)
    assert pd.read_csv(tmp_path / "today" / "tables" / "table1_primary.csv").columns[0] == "condition"
    # an all-unaided protocol column (a CSV's empty cells) changes nothing
    assert files(report(tmp_path, plain.assign(protocol=""), "blank")) == today


def tools_verdicts():
    """Scored answers on the tiny bank: ``m`` (unaided) and ``m+tools`` (the tool fixed trial 0, broke trial 2;
    only ``m+tools`` answered trial 3)."""
    rows = []
    for board, good, bad in (("near", "MOVES: R", "MOVES: L"), ("blk", "MOVES: D", "MOVES: U")):
        for trial, (before, after) in enumerate([(bad, good), (good, good), (good, bad)]):
            rows.append({"board_id": board, "condition": "m", "trial": trial, "response": before})
            rows.append(
                {
                    "board_id": board,
                    "condition": "m+tools",
                    "trial": trial,
                    "response": after,
                    "protocol": "tools",
                    "turns": 2,
                    "tool_call_count": 1,
                }
            )
    rows.append(
        {
            "board_id": "near",
            "condition": "m+tools",
            "trial": 3,
            "response": "MOVES: R",
            "protocol": "tools",
            "turns": 1,
            "tool_call_count": 0,
        }
    )
    return score_responses(tiny_bank(), pd.DataFrame(rows), ignore_prompt_hash=True)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_compare_reports_what_the_tool_fixes(tmp_path, capsys):
    bank, v = tmp_path / "bank.parquet", tmp_path / "v.parquet"
    write_bank(tiny_bank(), bank)
    write_verdicts(tools_verdicts(), v)
    args = ["compare", "--bank", str(bank), "--verdicts", str(v), "--baseline", "m", "--draws", "200"]
    assert main(args + ["--out", str(tmp_path / "cmp")]) == 0
    captured = capsys.readouterr()
    assert "## What the tool fixes" in captured.out and "m+tools against m: 6 trials paired on 2 boards" in captured.out
    assert "0 trials only the baseline answered and 1 only the candidate are left out" in captured.err
    summary = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    (fixes,) = summary["what_the_tool_fixes"]
    assert fixes["unpaired_trials"] == {"baseline_only": 0, "candidate_only": 1} and fixes["paired_trials"] == 6
    pooled = fixes["rows"][0]
    assert pooled["depth"] == "all" and pooled["pairs"] == 6
    assert pooled["transitions"]["complete"]["complete"] == 2  # trial 1 on both boards
    fixed = pooled["incomplete_to_complete"] + pooled["illegal_to_legal"]
    broken = pooled["complete_to_incomplete"] + pooled["legal_to_illegal"]
    assert fixed == broken == 2  # trial 0 fixed and trial 2 broken on both boards
    assert pooled["tool_calls_per_complete"] == 1.0
    assert pooled["differences"]["SPE"]["estimate"] == pytest.approx(0.0)
    table = pd.read_csv(tmp_path / "cmp" / f"{SECTION}.csv")
    assert list(table["depth"].astype(str)) == ["all", "1"]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_compare_without_protocols_is_todays(tmp_path, capsys):
    bank, v = tmp_path / "bank.parquet", tmp_path / "v.parquet"
    write_bank(tiny_bank(), bank)
    write_verdicts(tools_verdicts().drop(columns=["protocol", "turns", "tool_call_count"]), v)
    assert (
        main(
            [
                "compare",
                "--bank",
                str(bank),
                "--verdicts",
                str(v),
                "--baseline",
                "m",
                "--draws",
                "200",
                "--out",
                str(tmp_path / "cmp"),
            ]
        )
        == 0
    )
    assert "What the tool fixes" not in capsys.readouterr().out
    summary = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert "what_the_tool_fixes" not in summary
    assert sorted(p.name for p in (tmp_path / "cmp").iterdir()) == ["compare.csv", "compare.json", "compare.md"]
