"""``fastspe solve`` through ``main(argv)``: one board, a JSONL file, per-line errors."""

from __future__ import annotations

import json

import pytest

from fastspe.cli import main


@pytest.fixture(autouse=True)
def pdb_folder(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(tmp_path_factory.getbasetemp() / "pdb"))


def test_one_board_prints_one_json_object(capsys):
    assert main(["solve", "--board", "8 6 7 2 5 4 3 0 1", "--rows", "3", "--cols", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["length"] == 31 and len(out["moves"]) == 31 and out["heuristic"] == "graph-distance"
    assert (out["rows"], out["cols"], out["blocks"], out["board"][:2]) == (3, 3, [], [8, 6])
    assert set(out) == {"length", "moves", "h", "nodes", "seconds", "heuristic", "board", "rows", "cols", "blocks"}
    assert main(["solve", "--board", "1,2,3,-1,4,5,6,7,0", "--rows", "3", "--cols", "3", "--blocks", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["length"] == 0


def test_unsolvable_and_bad_boards_fail_clearly(capsys):
    assert main(["solve", "--board", "2 1 3 4 5 6 7 8 0", "--rows", "3", "--cols", "3"]) == 2
    assert "unsolvable" in capsys.readouterr().err
    assert main(["solve", "--board", "1 2 x", "--rows", "3", "--cols", "3"]) == 2
    assert "--board must be whole numbers" in capsys.readouterr().err
    assert main(["solve", "--board", "1 2 3 4 5 6 7 8 0", "--rows", "3", "--cols", "3", "--out", "x.jsonl"]) == 2


def test_file_mode_writes_answers_and_per_line_errors(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    lines = [{"id": "a", "rows": 3, "cols": 3, "blocks": [], "board": [8, 6, 7, 2, 5, 4, 3, 0, 1]},
             {"id": "b", "rows": 3, "cols": 3, "blocks": [], "board": [2, 1, 3, 4, 5, 6, 7, 8, 0]},
             {"id": "c", "rows": 3, "cols": 3, "blocks": [0], "board": [-1, 1, 2, 3, 4, 5, 6, 0, 7]},
             {"id": "d", "rows": 3, "cols": 3, "board": "nope"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = tmp_path / "out.jsonl"
    assert main(["solve", "--input", str(src), "--out", str(out)]) == 1
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["id"] for g in got] == ["a", "b", "c", "d"]
    assert got[0]["length"] == 31 and got[2]["length"] == 1 and got[2]["moves"] == "R"
    assert "unsolvable" in got[1]["error"] and "board must be a list" in got[3]["error"]
    assert "2 boards failed" in capsys.readouterr().err
    src.write_text(json.dumps(lines[0]) + "\n{oops\n")
    assert main(["solve", "--input", str(src), "--out", str(out)]) == 2
    assert f"{src}: line 2:" in capsys.readouterr().err
    assert main(["solve", "--input", str(src), "--out", str(src)]) == 2
