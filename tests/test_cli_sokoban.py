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


def test_solve_a_level_file(tmp_path, capsys):
    path = tmp_path / "one.xsb"
    path.write_text(LEVEL + "\n")
    assert main(["solve", "--domain", "sokoban", "--level", str(path)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["length"], answer["pushes"], answer["moves"], answer["level"]) == (1, 1, "R", LEVEL)
    assert answer["nodes"] >= 1 and answer["seconds"] >= 0


def test_solve_levels_file_answers_each_line_and_names_the_failures(tmp_path, capsys):
    src, out = tmp_path / "levels.jsonl", tmp_path / "out.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in ({"id": "a", "level": LEVEL}, {"id": "b", "level": DEAD},
                                                     {"id": "c", "level": "nope"}, {"id": "d"})) + "\n")
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
    assert main(["bank", "build", "--domain", "sokoban", "--design", str(design), "--out",
                 str(tmp_path / "x.jsonl")]) == 2
    if _has("fastspe.verify.sokoban_bank", "verify_sokoban_bank"):
        assert main(["bank", "verify", str(out)]) == 0
        assert main(["bank", "verify", "--domain", "sliding", str(out)]) == 2
    if _has("fastspe.domains.sokoban", "DOMAIN") and _has("fastspe.planners.sokoban_baselines"):
        log, verdicts = tmp_path / "log.jsonl", tmp_path / "v.parquet"
        assert main(["run", "--bank", str(out), "--model", "baseline:greedy", "--trials", "2", "--out", str(log)]) == 0
        assert main(["score", "--bank", str(out), "--responses", str(log), "--out", str(verdicts)]) == 0
        scored = pq.read_table(verdicts)
        assert "boxes" in scored.column_names and "k" not in scored.column_names
        assert scored.schema.metadata[b"fastspe.domain"] == b"sokoban"
