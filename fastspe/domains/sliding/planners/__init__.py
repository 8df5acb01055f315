"""Sliding-puzzle plans without a model: the exact IDA* solver, its pattern databases, and the offline baseline
planners.
"""

from typing import TYPE_CHECKING

from ...._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .baselines import answer_texts, baseline_responses, planner_name
    from .pdb import (
        board_rank,
        build_table,
        default_partition,
        empty_databases,
        free_neighbours,
        load_or_build,
        mirror_cells,
        parity_decides,
        pattern_databases,
        pattern_file,
        PatternDatabases,
        pdb_dir,
        reachable_table,
        uses_pdb,
    )
    from .solver import (
        layout_h,
        search_tables,
        SearchLimit,
        Solution,
        solve,
        solve_boards,
        solve_record,
        SolvedBoards,
        UnsolvableBoard,
    )

_NAMES = {
    "planner_name": "baselines",
    "baseline_responses": "baselines",
    "answer_texts": "baselines",
    "pdb_dir": "pdb",
    "default_partition": "pdb",
    "uses_pdb": "pdb",
    "parity_decides": "pdb",
    "reachable_table": "pdb",
    "board_rank": "pdb",
    "free_neighbours": "pdb",
    "pattern_file": "pdb",
    "build_table": "pdb",
    "load_or_build": "pdb",
    "mirror_cells": "pdb",
    "PatternDatabases": "pdb",
    "empty_databases": "pdb",
    "pattern_databases": "pdb",
    "UnsolvableBoard": "solver",
    "SearchLimit": "solver",
    "Solution": "solver",
    "SolvedBoards": "solver",
    "search_tables": "solver",
    "solve": "solver",
    "solve_boards": "solver",
    "layout_h": "solver",
    "solve_record": "solver",
}
__all__ = [
    "answer_texts",
    "baseline_responses",
    "board_rank",
    "build_table",
    "default_partition",
    "empty_databases",
    "free_neighbours",
    "layout_h",
    "load_or_build",
    "mirror_cells",
    "parity_decides",
    "pattern_databases",
    "pattern_file",
    "PatternDatabases",
    "pdb_dir",
    "planner_name",
    "reachable_table",
    "search_tables",
    "SearchLimit",
    "Solution",
    "solve",
    "solve_boards",
    "solve_record",
    "SolvedBoards",
    "UnsolvableBoard",
    "uses_pdb",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
