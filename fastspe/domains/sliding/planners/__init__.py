"""Sliding-puzzle plans without a model: the exact IDA* solver, its pattern databases, and the offline baseline
planners.
"""

from ...._names import lazy_face

_NAMES = {
    "planner_name": "baselines", "baseline_responses": "baselines", "answer_texts": "baselines", "pdb_dir": "pdb", "default_partition": "pdb", "uses_pdb": "pdb",
    "parity_decides": "pdb", "reachable_table": "pdb", "board_rank": "pdb", "free_neighbours": "pdb",
    "pattern_file": "pdb", "build_table": "pdb", "load_or_build": "pdb", "mirror_cells": "pdb",
    "PatternDatabases": "pdb", "empty_databases": "pdb", "pattern_databases": "pdb", "UnsolvableBoard": "solver",
    "SearchLimit": "solver", "Solution": "solver", "SolvedBoards": "solver", "search_tables": "solver",
    "solve": "solver", "solve_boards": "solver", "layout_h": "solver", "solve_record": "solver",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
