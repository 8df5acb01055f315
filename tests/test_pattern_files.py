"""Pattern-table files bound to what they are: swapped, renamed, copied or old files are rebuilt with one warning,
never loaded; an unwritable folder warns once and the tables are used from memory."""

from __future__ import annotations

import shutil
import warnings
import zlib

import numpy as np
import pytest

from fastspe.cli import main
from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.planners import pdb as pdb_module
from fastspe.domains.sliding.planners import solver as solver_module
from fastspe.domains.sliding.planners.pdb import load_or_build, pattern_databases, pattern_file

from . import naive_search as naive

OPEN_3X3 = Layout(3, 3, ())
SPLIT = ((1, 2, 3, 4), (5, 6, 7, 8))  # two groups of the same size: their files have the same length

# boards whose search, with SPLIT's two tables swapped and loaded as they are (format 1), finds no plan
BOARDS_A_SWAP_GETS_WRONG = [
    (0, 6, 7, 1, 8, 2, 5, 3, 4),
    (4, 7, 1, 5, 6, 0, 3, 8, 2),
    (8, 6, 5, 3, 7, 1, 4, 2, 0),
    (1, 0, 8, 2, 7, 6, 5, 4, 3),
]


@pytest.fixture(autouse=True)
def fresh_tables(tmp_path, monkeypatch):
    """A pattern folder of this test's own, and no tables kept in memory from another test."""
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(tmp_path / "pdb"))
    monkeypatch.setattr(solver_module, "_TABLES", {})
    return tmp_path / "pdb"


def use_split(monkeypatch):
    """The solver uses SPLIT's tables on the open 3x3 board (it uses none there by default)."""
    monkeypatch.setattr(pdb_module, "default_partition", lambda layout: SPLIT)
    monkeypatch.setattr(solver_module, "uses_pdb", lambda layout: True)


def swap(a, b):
    tmp = a.with_suffix(".swap")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)


def rebuilds(expected: dict, layout=OPEN_3X3):
    """Load every group of ``expected``, asserting that the tables are right and that it warned about them."""
    with pytest.warns(UserWarning) as caught:
        for tiles, table in expected.items():
            assert np.array_equal(load_or_build(layout, tiles), table)
    return [str(w.message) for w in caught]


def test_swapped_files_of_same_size_groups_are_rebuilt_with_a_warning_naming_the_tiles():
    first = {g: load_or_build(OPEN_3X3, g) for g in SPLIT}
    assert not np.array_equal(first[SPLIT[0]], first[SPLIT[1]])  # so a swap would change the heuristic
    paths = [pattern_file(OPEN_3X3, g) for g in SPLIT]
    assert paths[0].stat().st_size == paths[1].stat().st_size
    swap(*paths)
    messages = rebuilds(first)
    assert len(messages) == 2
    assert str(paths[0]) in messages[0] and "tiles 5,6,7,8 where 1,2,3,4 is needed" in messages[0]
    assert str(paths[1]) in messages[1] and "rebuilding it" in messages[1]
    with warnings.catch_warnings():  # rebuilt and kept: the next load is silent
        warnings.simplefilter("error")
        assert all(np.array_equal(load_or_build(OPEN_3X3, g), first[g]) for g in SPLIT)


def test_renamed_file_and_a_copy_from_another_layout_are_rebuilt():
    table = load_or_build(OPEN_3X3, (1, 2, 3, 5))
    right = load_or_build(OPEN_3X3, (1, 2, 3, 4))
    pattern_file(OPEN_3X3, (1, 2, 3, 4)).unlink()
    pattern_file(OPEN_3X3, (1, 2, 3, 5)).rename(pattern_file(OPEN_3X3, (1, 2, 3, 4)))
    [message] = rebuilds({(1, 2, 3, 4): right})
    assert "tiles 1,2,3,5 where 1,2,3,4 is needed" in message
    assert not np.array_equal(table, right)
    # blocks 0 and 8 leave the same number of free cells: a table of one has the length of the other's
    corner, other = Layout(3, 3, (0,)), Layout(3, 3, (8,))
    wanted = load_or_build(other, (1, 2, 3))
    load_or_build(corner, (1, 2, 3))
    shutil.copyfile(pattern_file(corner, (1, 2, 3)), pattern_file(other, (1, 2, 3)))
    [message] = rebuilds({(1, 2, 3): wanted}, other)
    assert "blocks 0 where 8 is needed" in message


def test_a_file_of_format_1_is_rebuilt_with_a_warning():
    tiles = (1, 2, 3, 4)
    table = load_or_build(OPEN_3X3, tiles)
    old = (
        b"FSPDB\x00"
        + (1).to_bytes(2, "little")
        + len(table).to_bytes(4, "little")
        + zlib.crc32(table.data).to_bytes(4, "little")
    )  # format 1's trailer: no layout, no tiles
    np.save(pattern_file(OPEN_3X3, tiles), np.concatenate([table, np.frombuffer(old, dtype=np.uint8)]))
    [message] = rebuilds({tiles: table})
    assert "format 1, which does not bind its layout and tiles" in message


def test_the_solve_stays_optimal_after_a_swap_and_the_cli_prints_the_warning(monkeypatch, capsys):
    use_split(monkeypatch)
    pattern_databases(OPEN_3X3, SPLIT)
    paths = [pattern_file(OPEN_3X3, g) for g in SPLIT]
    swap(*paths)
    distances = naive.bfs_all(3, 3, ())
    boards = BOARDS_A_SWAP_GETS_WRONG
    with pytest.warns(UserWarning, match="holds another table"):
        solved = [solver_module.solve(list(board), 3, 3, use_pdb=True) for board in boards]
    for board, sol in zip(boards, solved):
        assert sol.heuristic == "pdb-4-4+mirror+graph-distance" and sol.length == distances[board]
        assert naive.apply_plan(board, sol.moves, naive.neighbours(3, 3, ())) == naive.goal_state(3, 3, ())
    monkeypatch.setattr(solver_module, "_TABLES", {})
    swap(*paths)
    board_text = " ".join(map(str, boards[0]))
    assert main(["solve", "--board", board_text, "--rows", "3", "--cols", "3", "--heuristic", "layout"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("warning: pattern database") == 2 and "holds another table" in captured.err
    assert f'"length": {distances[boards[0]]}' in captured.out


def test_an_uncreatable_folder_warns_once_and_the_tables_come_from_memory(tmp_path, monkeypatch, capsys):
    use_split(monkeypatch)
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    monkeypatch.setenv("FASTSPE_PDB_DIR", str(blocker / "pdb"))
    from fastspe.domains.sliding.planners import pattern_files

    monkeypatch.setattr(pattern_files, "_UNWRITABLE", set())
    board = "8 6 7 2 5 4 3 0 1"
    assert main(["solve", "--board", board, "--rows", "3", "--cols", "3", "--heuristic", "layout"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("warning:") == 1
    assert f"pattern database folder {blocker / 'pdb'} cannot be written" in captured.err
    assert '"length": 31' in captured.out and '"tables": "built"' in captured.out
    assert blocker.read_text() == "in the way"
