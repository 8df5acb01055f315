"""Plain-Python twins of the bank check kernels (``fastspe.domains.sliding.kernels.bank_check``), from their definitions."""

from __future__ import annotations


def naive_board_faults(initial, goal, layout, layouts):
    """Per board (``layouts[layout[i]]`` its ``Layout``): goal not the layout's, -1 not exactly on the blocks,
    the set of values not the goal's (or one outside -1..63), and h = sum over tiles of the distance from
    the tile's cell to its goal cell."""
    out = {"goal_wrong": [], "blocks_wrong": [], "values_wrong": [], "h": []}
    for i, lay_at in enumerate(layout):
        lay = layouts[lay_at]
        want = list(lay.goal) + [-1] * (len(goal[i]) - lay.cells)
        board = list(initial[i])
        out["goal_wrong"].append(list(goal[i]) != want)
        out["blocks_wrong"].append([v == -1 for v in board] != [v == -1 for v in want])
        out["values_wrong"].append(set(board) != set(want) or any(not -1 <= v <= 63 for v in board))
        goal_cell = {v: c for c, v in enumerate(want)}
        out["h"].append(
            sum(
                int(lay.distances[c][goal_cell[v]])
                for c, v in enumerate(board)
                if v > 0 and v in goal_cell and c < lay.cells
            )
        )  # (h of a faulty board: any value)
    return out


def naive_move_letters_only(strings: list[bytes]) -> list[bool]:
    return [all(b in b"UDLR" for b in s) for s in strings]


def naive_id_runs(ids: list[bytes], limit: int):
    """(starts, status) as ``id_runs`` defines them: a run starts at row 0 and wherever an id's length
    differs from the one before or it is smaller; status 1 on two equal neighbours, 2 past ``limit`` runs."""
    starts = [0] if ids else []
    for i in range(1, len(ids)):
        if ids[i] == ids[i - 1]:
            return [], 1
        if len(ids[i]) != len(ids[i - 1]) or ids[i] < ids[i - 1]:
            if len(starts) == limit:
                return [], 2
            starts.append(i)
    return starts, 0
