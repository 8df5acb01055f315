"""``--domain sokoban`` on the command line: solve (--level, --input/--out), bank build/show/verify, score."""

from __future__ import annotations

import importlib.util
import json

import pyarrow.parquet as pq
import pytest

from fastspe.cli import main

LEVEL = "#####\n#@$.#\n#####"
DEAD = "####\n#@$#\n#.##\n####"  # the box stands in a corner that is not a goal


def _has(module: str, name: str | None = None) -> bool:
    if importlib.util.find_spec(module) is None:
        return False
    return name is None or hasattr(importlib.import_module(module), name)


@pytest.mark.slow
def test_solve_a_level_file(tmp_path, capsys):
    path = tmp_path / "one.xsb"
    path.write_text(LEVEL + "\n")
    assert main(["solve", "--domain", "sokoban", "--level", str(path)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["length"], answer["pushes"], answer["moves"], answer["level"]) == (1, 1, "R", LEVEL)
    assert answer["nodes"] >= 1 and answer["seconds"] >= 0


@pytest.mark.slow
def test_solve_levels_file_answers_each_line_and_names_the_failures(tmp_path, capsys):
    src, out = tmp_path / "levels.jsonl", tmp_path / "out.jsonl"
    src.write_text(
        "\n".join(
            json.dumps(r)
            for r in (
                {"id": "a", "level": LEVEL},
                {"id": "b", "level": DEAD},
                {"id": "c", "level": "nope"},
                {"id": "d"},
            )
        )
        + "\n"
    )
    assert main(["solve", "--domain", "sokoban", "--input", str(src), "--out", str(out)]) == 1
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["a", "b", "c", "d"]
    assert {k: lines[0][k] for k in ("length", "pushes", "moves")} == {"length": 1, "pushes": 1, "moves": "R"}
    assert "dead" in lines[1]["error"] and "id 'b'" in lines[1]["error"]
    assert "column 1" in lines[2]["error"]
    assert "level" in lines[3]["error"]
    assert "3 levels failed" in capsys.readouterr().err


def test_a_level_without_the_domain_is_refused(tmp_path, capsys):
    path = tmp_path / "one.xsb"
    path.write_text(LEVEL)
    assert main(["solve", "--level", str(path)]) == 2
    assert "--domain sokoban" in capsys.readouterr().err
    assert main(["solve", "--domain", "sokoban", "--board", "1 2 3 0"]) == 2


@pytest.mark.slow
def test_bank_build_writes_a_sokoban_bank_that_names_its_domain(tmp_path, capsys):
    design, out = tmp_path / "d.json", tmp_path / "sk.parquet"
    design.write_text(json.dumps({"seed": 3, "cells": [{"cohort": "primary", "boxes": 1, "depth": 6, "count": 2}]}))
    assert main(["bank", "build", "--domain", "sokoban", "--design", str(design), "--out", str(out)]) == 0
    table = pq.read_table(out)
    assert table.schema.metadata[b"fastspe.domain"] == b"sokoban"
    assert table.column("depth").to_pylist() == [6, 6] and table.column("boxes").to_pylist() == [1, 1]
    again = tmp_path / "again.parquet"
    assert main(["bank", "build", "--domain", "sokoban", "--design", str(design), "--out", str(again)]) == 0
    assert pq.read_table(again).equals(table)  # bit-identical for a seed
    capsys.readouterr()
    assert main(["bank", "show", str(out)]) == 0
    assert "boxes" in capsys.readouterr().out
    assert (
        main(["bank", "build", "--domain", "sokoban", "--design", str(design), "--out", str(tmp_path / "x.jsonl")]) == 2
    )
    if _has("fastspe.domains.sokoban.verify.bank", "verify_sokoban_bank"):
        assert main(["bank", "verify", str(out)]) == 0
        assert main(["bank", "verify", "--domain", "sliding", str(out)]) == 2
    if _has("fastspe.domains.sokoban", "DOMAIN") and _has("fastspe.domains.sokoban.baselines"):
        log, verdicts = tmp_path / "log.jsonl", tmp_path / "v.parquet"
        assert main(["run", "--bank", str(out), "--model", "baseline:greedy", "--trials", "2", "--out", str(log)]) == 0
        assert main(["score", "--bank", str(out), "--responses", str(log), "--out", str(verdicts)]) == 0
        scored = pq.read_table(verdicts)
        assert "boxes" in scored.column_names and "k" not in scored.column_names
        assert scored.schema.metadata[b"fastspe.domain"] == b"sokoban"


# ---- bank build --levels: given levels, each certified by the exact solver ---------------------------------

COLLECTION = """; Tiny 1
#####
#@$.#
#####

Title: Two boxes
  #######
  #     #
  # $.  #
  #  @$ #
  #   . #
  #######
Author: nobody
"""
TWO = "#######\n#@$ . #\n# $ . #\n#######"


def test_split_collection_finds_levels_titles_and_lines():
    from fastspe.domains.sokoban.collection import split_collection

    found = split_collection(COLLECTION)
    assert [(lv.line, lv.title) for lv in found] == [(2, "Tiny 1"), (7, "Two boxes")]
    assert found[0].text == LEVEL and found[1].text.splitlines()[0] == "  #######"
    untitled = split_collection("\n\n" + LEVEL + "\n;\n" + TWO + "\n\n")
    assert [(lv.line, lv.title, lv.text) for lv in untitled] == [(3, None, LEVEL), (7, None, TWO)]
    assert split_collection("Title: x\n\n") == []


def _bank_rows(path) -> list[dict]:
    return pq.read_table(path).to_pandas().to_dict("records")


@pytest.mark.slow
def test_bank_build_levels_certifies_jsonl_and_xsb_collections(tmp_path, capsys):
    from tests.naive_sokoban_bfs import naive_solve

    src, out = tmp_path / "levels.jsonl", tmp_path / "given.parquet"
    src.write_text(json.dumps({"id": "a", "level": LEVEL}) + "\n\n" + json.dumps({"id": 7, "level": TWO}) + "\n")
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--cohort", "given", "--out", str(out)])
        == 0
    )
    rows = _bank_rows(out)
    assert [(r["board_id"], r["cohort"], r["boxes"]) for r in rows] == [("a", "given", 1), ("7", "given", 2)]
    for r, text in zip(rows, (LEVEL, TWO)):  # d* and pushes as an independent breadth-first search finds them
        assert (r["depth"], r["pushes"]) == naive_solve(text)
        assert len(r["certificate"]) == r["depth"]
    assert pq.read_table(out).schema.metadata[b"fastspe.domain"] == b"sokoban"
    xsb, out2 = tmp_path / "set.xsb", tmp_path / "set.parquet"
    xsb.write_text(COLLECTION)
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(xsb), "--out", str(out2)]) == 0
    rows = _bank_rows(out2)
    assert [(r["board_id"], r["cohort"], r["depth"]) for r in rows] == [
        ("Tiny 1", "custom", 1),
        ("Two boxes", "custom", 8),
    ]
    untitled = tmp_path / "untitled.xsb"
    untitled.write_text(LEVEL + "\n\n" + TWO + "\n")
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(untitled), "--out", str(tmp_path / "u.parquet")])
        == 0
    )
    assert [r["board_id"] for r in _bank_rows(tmp_path / "u.parquet")] == ["custom-000", "custom-001"]
    capsys.readouterr()
    if _has("fastspe.domains.sokoban.verify.bank", "verify_sokoban_bank"):
        assert main(["bank", "verify", str(out2)]) == 0
    log, verdicts = tmp_path / "log.jsonl", tmp_path / "v.parquet"
    assert main(["run", "--bank", str(out), "--model", "baseline:oracle", "--out", str(log)]) == 0
    assert main(["score", "--bank", str(out), "--responses", str(log), "--out", str(verdicts)]) == 0
    scored = pq.read_table(verdicts).to_pandas()
    assert set(scored["status"]) == {"complete"} and list(scored["L"]) == list(scored["depth"])


@pytest.mark.parametrize(
    "lines, message",
    [
        ([{"id": "a", "level": LEVEL}, {"id": "d", "level": DEAD}], "line 2: level 'd': the level is dead"),
        ([{"id": "a", "level": LEVEL}, {"id": "b", "level": "#####\n#@$x#\n#####"}], "line 2: level 'b': level line 2"),
        ([{"id": "a", "level": LEVEL}, {"id": "a", "level": TWO}], "line 2: level 'a': ids must be distinct"),
        ([{"id": "a", "level": LEVEL}, {"level": TWO}], "line 2: id must be"),
        ([{"id": "a", "level": LEVEL}, {"id": "b", "level": 3}], "line 2: id 'b': level must be"),
        ([{"id": "a", "level": LEVEL}, [1]], "line 2: not a JSON object with id and level"),
    ],
)
def test_bank_build_levels_names_the_line_of_a_bad_level_and_writes_nothing(tmp_path, capsys, lines, message):
    src, out = tmp_path / "levels.jsonl", tmp_path / "given.parquet"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{src}: {message}" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [src]


def test_bank_build_levels_refuses_a_mix_of_sources(tmp_path, capsys):
    src, xsb = tmp_path / "levels.jsonl", tmp_path / "dead.xsb"
    src.write_text(json.dumps({"id": "a", "level": LEVEL}) + "\n")
    out = str(tmp_path / "b.parquet")
    assert main(["bank", "build", "--levels", str(src), "--out", out]) == 2
    assert "add --domain sokoban" in capsys.readouterr().err
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--design", "sokoban-paper", "--out", out])
        == 2
    )
    assert main(["bank", "build", "--domain", "sokoban", "--cohort", "x", "--out", out]) == 2
    assert "--cohort goes with --levels" in capsys.readouterr().err
    xsb.write_text("; fine\n" + LEVEL + "\n\n; stuck\n" + DEAD + "\n")
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(xsb), "--out", out]) == 2
    assert f"{xsb}: line 7: level 'stuck': the level is dead" in capsys.readouterr().err
    (tmp_path / "empty.xsb").write_text("; nothing here\n")
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(tmp_path / "empty.xsb"), "--out", out]) == 2
    assert "no levels" in capsys.readouterr().err
    assert not (tmp_path / "b.parquet").exists()


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "same.jsonl",
            json.dumps({"id": "a", "level": LEVEL})
            + "\n"
            + json.dumps({"id": "b", "level": TWO})
            + "\n"
            + json.dumps({"id": "c", "level": LEVEL})
            + "\n",
            "line 3: level 'c': the same level as {src}: line 1: level 'a'",
        ),
        (
            "shifted.xsb",
            "; one\n" + LEVEL + "\n\n; two\n" + "\n".join("   " + x + "  " for x in LEVEL.split("\n")) + "\n",
            "line 7: level 'two': the same level as {src}: line 2: level 'one'",
        ),
    ],
)
def test_bank_build_levels_refuses_a_level_given_twice_naming_both_lines(tmp_path, capsys, name, text, message):
    """The verifier fails a bank holding one level twice; the builder refuses it first, also when the copy is
    indented or has trailing spaces (the bank stores both as the same canonical text)."""
    src, out = tmp_path / name, tmp_path / "given.parquet"
    src.write_text(text)
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {src}: " + message.format(src=src)) and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == [src]


def test_a_byte_order_mark_is_skipped_and_a_level_file_is_named_in_its_errors(tmp_path, capsys):
    bom = "\ufeff"
    xsb, out = tmp_path / "set.xsb", tmp_path / "set.parquet"
    xsb.write_text(bom + COLLECTION, encoding="utf-8")
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(xsb), "--out", str(out)]) == 0
    assert [r["board_id"] for r in _bank_rows(out)] == ["Tiny 1", "Two boxes"]  # the first title survives the mark
    src = tmp_path / "levels.jsonl"
    src.write_text(bom + json.dumps({"id": "a", "level": LEVEL}) + "\n", encoding="utf-8")
    assert (
        main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--out", str(tmp_path / "j.parquet")]) == 0
    )
    assert main(["solve", "--domain", "sokoban", "--input", str(src), "--out", str(tmp_path / "plans.jsonl")]) == 0
    assert json.loads((tmp_path / "plans.jsonl").read_text())["moves"] == "R"
    one = tmp_path / "one.xsb"
    one.write_text(bom + LEVEL + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["solve", "--domain", "sokoban", "--level", str(one)]) == 0
    assert json.loads(capsys.readouterr().out)["moves"] == "R"
    one.write_text("#####\n#@x.#\n#####\n")
    assert main(["solve", "--domain", "sokoban", "--level", str(one)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {one}: level line 2, column 3: 'x' is not an XSB character") and err.count("\n") == 1


@pytest.mark.slow
def test_report_and_compare_name_the_sokoban_stratum_boxes(tmp_path, capsys):
    design, bank = tmp_path / "d.json", tmp_path / "sk.parquet"
    design.write_text(
        json.dumps({"seed": 5, "cells": [{"cohort": "primary", "boxes": b, "depth": 6, "count": 3} for b in (1, 2)]})
    )
    assert main(["bank", "build", "--domain", "sokoban", "--design", str(design), "--out", str(bank)]) == 0
    logs = []
    for model in ("oracle", "random"):
        logs.append(tmp_path / f"{model}.jsonl")
        assert (
            main(["run", "--bank", str(bank), "--model", f"baseline:{model}", "--trials", "2", "--out", str(logs[-1])])
            == 0
        )
    both = tmp_path / "both.jsonl"
    both.write_text("".join(p.read_text() for p in logs))
    verdicts = tmp_path / "v.parquet"
    assert main(["score", "--bank", str(bank), "--responses", str(both), "--out", str(verdicts)]) == 0
    assert (
        main(
            [
                "report",
                "--bank",
                str(bank),
                "--verdicts",
                str(verdicts),
                "--out",
                str(tmp_path / "rep"),
                "--no-figures",
                "--draws",
                "200",
            ]
        )
        == 0
    )
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Table 4: Primary completion percentages by boxes" in md and "cohort by boxes, averaged" in md
    assert "| boxes=1 | boxes=2 |" in md and "`all` in depth or boxes marks pooled rows" in md
    assert "block count" not in md and "cohort x boxes x depth" in md
    assert main(
        [
            "compare",
            "--bank",
            str(bank),
            "--verdicts",
            str(verdicts),
            "--baseline",
            "baseline:random",
            "--out",
            str(tmp_path / "cmp"),
            "--draws",
            "200",
        ]
    ) in (0, 1)
    summary = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert "by depth and by boxes" in summary["rows_adjusted"]
    capsys.readouterr()


def test_show_replays_an_answer_on_a_sokoban_bank(tmp_path, capsys):
    src, bank = tmp_path / "levels.jsonl", tmp_path / "given.parquet"
    src.write_text(json.dumps({"id": "a", "level": LEVEL}) + "\n")
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--out", str(bank)]) == 0
    log, verdicts = tmp_path / "log.jsonl", tmp_path / "v.parquet"
    assert main(["run", "--bank", str(bank), "--model", "baseline:oracle", "--out", str(log)]) == 0
    assert main(["score", "--bank", str(bank), "--responses", str(log), "--out", str(verdicts)]) == 0
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
                "a",
                "--trial",
                "0",
                "--format",
                "grid",
                "--html",
                str(tmp_path / "a.html"),
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    assert "status complete · L = 1" in out.out and "#@$.#" in out.out and "# @*#" in out.out
    assert out.err == "" and (tmp_path / "a.html").read_text().startswith("<!DOCTYPE html>")


def test_a_bank_and_verdicts_of_two_domains_are_refused_naming_both(tmp_path, capsys):
    """The verdicts' domain (their file's metadata) and the bank's must be one: report, show and compare name both
    files and both domains instead of a missing column."""
    src, sokoban_bank = tmp_path / "levels.jsonl", tmp_path / "sokoban.parquet"
    src.write_text(json.dumps({"id": "a", "level": LEVEL}) + "\n")
    assert main(["bank", "build", "--domain", "sokoban", "--levels", str(src), "--out", str(sokoban_bank)]) == 0
    sliding_bank, log, verdicts = tmp_path / "sliding.parquet", tmp_path / "log.jsonl", tmp_path / "v.parquet"
    design = tmp_path / "d.json"
    design.write_text(json.dumps({"seed": 1, "cells": [{"cohort": "primary", "blocks": [], "depth": 4, "count": 3}]}))
    assert main(["bank", "build", "--design", str(design), "--out", str(sliding_bank)]) == 0
    assert main(["run", "--bank", str(sliding_bank), "--model", "baseline:oracle", "--out", str(log)]) == 0
    assert main(["score", "--bank", str(sliding_bank), "--responses", str(log), "--out", str(verdicts)]) == 0
    as_csv = tmp_path / "v.csv"  # records no domain: its columns say whose verdicts they are
    assert main(["score", "--bank", str(sliding_bank), "--responses", str(log), "--out", str(as_csv)]) == 0
    capsys.readouterr()
    for scored in (verdicts, as_csv):
        for command in (
            [
                "report",
                "--bank",
                str(sokoban_bank),
                "--verdicts",
                str(scored),
                "--out",
                str(tmp_path / "r"),
                "--no-figures",
            ],
            ["show", "--bank", str(sokoban_bank), "--verdicts", str(scored), "--board", "a"],
            ["compare", "--bank", str(sokoban_bank), "--verdicts", str(scored), "--baseline", "x"],
        ):
            assert main(command) == 2
            err = capsys.readouterr().err
            assert (
                err == f"error: {scored}: sliding verdicts, but {sokoban_bank} is a sokoban bank; score the "
                "answers against the bank they were made for\n"
            ), err
    assert not (tmp_path / "r").exists()
