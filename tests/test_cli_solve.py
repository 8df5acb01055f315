"""``fastspe solve`` through ``main(argv)``: one board, a JSONL file, per-line errors."""

from __future__ import annotations

import json

import pytest

from fastspe.cli import main
from fastspe.domains.sliding.planners.solver import FIRST_TRY_NODES


@pytest.fixture(autouse=True)
def pdb_folder(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(tmp_path_factory.getbasetemp() / "pdb"))


def test_one_board_prints_one_json_object(capsys):
    assert main(["solve", "--board", "8 6 7 2 5 4 3 0 1", "--rows", "3", "--cols", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["length"] == 31 and len(out["moves"]) == 31 and out["heuristic"] == "graph-distance"
    assert (out["rows"], out["cols"], out["blocks"], out["board"][:2]) == (3, 3, [], [8, 6])
    assert set(out) == {
        "length",
        "moves",
        "h",
        "h_search",
        "nodes",
        "seconds",
        "heuristic",
        "tables",
        "tables_seconds",
        "first_try_nodes",
        "first_try_seconds",
        "board",
        "rows",
        "cols",
        "blocks",
    }
    assert out["tables"] == "not needed" and out["tables_seconds"] == 0.0  # a 3x3 board needs no tables
    assert out["h"] == 21 and out["h_search"] == 21  # graph distances only: the search's bound is h itself
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
    lines = [
        {"id": "a", "rows": 3, "cols": 3, "blocks": [], "board": [8, 6, 7, 2, 5, 4, 3, 0, 1]},
        {"id": "b", "rows": 3, "cols": 3, "blocks": [], "board": [2, 1, 3, 4, 5, 6, 7, 8, 0]},
        {"id": "c", "rows": 3, "cols": 3, "blocks": [0], "board": [-1, 1, 2, 3, 4, 5, 6, 0, 7]},
        {"id": "d", "rows": 3, "cols": 3, "board": "nope"},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in lines))
    out = tmp_path / "out.jsonl"
    assert main(["solve", "--input", str(src), "--out", str(out)]) == 1
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert [g["id"] for g in got] == ["a", "b", "c", "d"]
    assert got[0]["length"] == 31 and got[2]["length"] == 1 and got[2]["moves"] == "R"
    assert "unsolvable" in got[1]["error"] and "board must be a list" in got[3]["error"]
    assert "2 boards failed" in capsys.readouterr().err
    assert main(["solve", "--input", str(src), "--out", str(src)]) == 2


HARD_3X4 = "2 8 11 1 7 0 5 6 3 9 10 4"  # d* = 37, h(s) = 23: the pattern databases bound it at 33


@pytest.mark.slow
def test_h_is_the_papers_h_and_the_search_bound_has_its_own_name(capsys):
    from fastspe.domains.sliding.layout import Layout

    assert main(["solve", "--board", HARD_3X4, "--rows", "3", "--cols", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    board = [int(v) for v in HARD_3X4.split()]
    assert out["length"] == 37 and out["h"] == Layout(3, 4).h(board) == 23  # so length - h is the retreat
    assert out["h_search"] == 33 and out["heuristic"] == "pdb-6-5+graph-distance"
    # the graph-distance first try gave up within its budget; then the tables, timed apart from the search
    assert out["first_try_nodes"] > FIRST_TRY_NODES and out["tables"] in ("built", "loaded", "in memory")
    assert out["tables_seconds"] >= 0 and out["first_try_seconds"] >= 0


def test_an_easy_board_is_solved_without_building_tables(tmp_path, monkeypatch, capsys):
    """First contact: a one-move board of the open 4x4 board needs no 6-6-3 tables, and none are built."""
    from fastspe.domains.sliding.planners import solver as solver_module

    monkeypatch.setenv("FASTSPE_PDB_DIR", str(tmp_path / "fresh"))
    monkeypatch.setattr(solver_module, "_TABLES", {})
    assert main(["solve", "--board", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["length"], out["moves"], out["nodes"], out["heuristic"]) == (1, "R", 3, "graph-distance")
    assert (out["tables"], out["tables_seconds"], out["first_try_nodes"]) == ("not needed", 0.0, 0)
    assert not (tmp_path / "fresh").exists() and solver_module._TABLES == {}


@pytest.mark.parametrize(
    "board",
    ["1 2 3 0 99999999999999999999 5 6 7 8", "1 2 3 0 1e400 5 6 7 8", "1 2 3 0 -99999999999999999999999999 5 6 7 8"],
)
def test_absurd_tiles_on_the_command_line_are_one_error_line(board, capsys):
    assert main(["solve", "--board", board, "--rows", "3", "--cols", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert "out of range" in err or "whole numbers" in err


def test_bad_input_lines_are_named_and_the_good_ones_still_written(tmp_path, capsys):
    good = {"id": "g", "rows": 3, "cols": 3, "board": [1, 2, 3, 4, 5, 6, 7, 0, 8]}
    stale = {**good, "id": "s", "error": "an old failure", "length": 99, "h_search": 0}
    raw = [
        json.dumps(good).encode(),
        b"[1, 2]",
        b"null",
        b"\xff\xfe{}",
        b"{oops",
        b"",
        b'{"id": "big", "rows": 3, "cols": 3, "board": [1, 2, 3, 4, 5, 6, 7, 0, 1e400]}',
        b'{"id": "huge", "rows": 3, "cols": 3, "board": [1, 2, 3, 4, 5, 6, 7, 0, 99999999999999999999]}',
        b'{"id": "nan", "board": NaN}',
        b"[" * 3000,
        json.dumps(stale).encode(),
    ]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b"\n".join(raw) + b"\n")
    assert main(["solve", "--input", str(src), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    text = out.read_text()
    got = [
        json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} written into JSON"))
        for line in text.splitlines()
    ]
    assert len(got) == 10  # one answer line per non-blank input line, in order
    assert got[0]["id"] == "g" and got[0]["moves"] == "R" and "error" not in got[0]
    assert got[-1]["id"] == "s" and got[-1]["length"] == 1 and got[-1]["h_search"] == 1 and "error" not in got[-1]
    for i, (line, what) in enumerate(
        [
            (2, "got an array"),
            (3, "got null"),
            (4, "not UTF-8"),
            (5, "not JSON"),
            (7, "1e400"),
            (10, "nested too deeply"),
        ]
    ):
        message = f"{src}: line {line}: "
        assert message in err
        assert [g for g in got if g.get("error", "").startswith(message) and what in g["error"]], (line, got)
    assert got[6]["id"] == "huge" and "out of range" in got[6]["error"]
    assert got[7]["error"].startswith(f"{src}: line 9: ") and "NaN" in got[7]["error"]
    assert "8 boards failed" in err


def _replay(board, cols, moves):
    """The board after the blank's moves (U/D/L/R: the direction the blank goes), refusing an illegal move."""
    board = list(board)
    step = {"U": -cols, "D": cols, "L": -1, "R": 1}
    for move in moves:
        blank = board.index(0)
        target = blank + step[move]
        assert 0 <= target < len(board) and board[target] != -1, f"illegal move {move}"
        assert move not in "LR" or target // cols == blank // cols, f"illegal move {move}"
        board[blank], board[target] = board[target], board[blank]
    return board


def _blank_first_goal(blocks, cells):
    free = [c for c in range(cells) if c not in blocks]
    goal = [-1] * cells
    for tile, cell in enumerate(free):
        goal[cell] = tile
    return goal


@pytest.mark.slow
@pytest.mark.parametrize(
    "board, rows, cols, blocks",
    [
        ("3 1 2 4 0 5 6 7 8", 3, 3, []),  # 0 1 2 ... 8 three moves away
        ("1 2 0 3 4 5 6 7 8", 3, 3, []),
        ("8 6 7 2 5 4 3 0 1", 3, 3, []),  # a 3x3 board of the hardest depth class
        ("4 1 2 3 0 -1 5 6 7 8 -1 9 10 11 12 13", 4, 4, [5, 10]),  # a blocked layout
    ],
)
def test_blank_first_goal_plans_replay_to_that_goal_on_the_board_as_given(capsys, board, rows, cols, blocks):
    args = ["solve", "--board", board, "--rows", str(rows), "--cols", str(cols), "--goal", "blank-first"]
    assert main(args + (["--blocks", ",".join(map(str, blocks))] if blocks else [])) == 0
    out = json.loads(capsys.readouterr().out)
    given = [int(v) for v in board.split()]
    assert out["board"] == given and out["blocks"] == blocks  # echoed as given, not turned
    assert _replay(given, cols, out["moves"]) == _blank_first_goal(blocks, rows * cols)
    assert len(out["moves"]) == out["length"] >= out["h"]


def test_blank_first_lengths_are_those_of_the_turned_board_and_the_default_is_blank_last(capsys):
    from fastspe.domains.sliding.planners.solver import solve

    korf_like = [3, 1, 2, 4, 0, 5, 6, 7, 8]
    turned = [0 if v == 0 else 9 - v for v in reversed(korf_like)]
    assert solve(korf_like, 3, 3, goal="blank-first").length == solve(turned, 3, 3).length == 2
    assert main(["solve", "--board", "3 1 2 4 0 5 6 7 8", "--rows", "3", "--cols", "3"]) == 0  # to 1 2 ... 8 0
    out = json.loads(capsys.readouterr().out)
    assert _replay(korf_like, 3, out["moves"]) == [1, 2, 3, 4, 5, 6, 7, 8, 0] and out["length"] > 2
    assert main(["solve", "--help"]) == 0
    assert "blank-first" in capsys.readouterr().out.replace("\n", " ")


@pytest.mark.slow
def test_korf_instance_1_solves_as_printed(capsys):
    """Korf (1985), instance 1, in his convention (goal 0 1 2 ... 15): optimal length 57."""
    board = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"
    assert main(["solve", "--board", board, "--goal", "blank-first"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["length"] == 57
    assert _replay([int(v) for v in board.split()], 4, out["moves"]) == list(range(16))


@pytest.mark.slow
def test_heuristic_option_names_what_it_used_and_refuses_what_cannot_be(capsys, monkeypatch):
    assert main(["solve", "--board", "8 6 7 2 5 4 3 0 1", "--rows", "3", "--cols", "3", "--heuristic", "7-8"]) == 2
    assert "'7-8' is for the open 4x4 board" in capsys.readouterr().err
    from fastspe.domains.sliding.planners import pdb_packed

    # the 7-8 files are absent: the announcement names their size and folder before any build (stubbed here)
    class Stop(Exception):
        pass

    def stop(layout, progress=None):
        raise Stop

    monkeypatch.setattr(pdb_packed, "strong_tables", stop)
    with pytest.raises(Stop):
        main(["solve", "--board", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "--heuristic", "7-8"])
    assert "building the 7-8 pattern databases once: 288 MB" in capsys.readouterr().err
    assert main(["solve", "--board", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15", "--heuristic", "layout"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["heuristic"] == "pdb-6-6-3+mirror+graph-distance"
    assert "7-8" not in captured.err
