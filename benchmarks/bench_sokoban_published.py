"""Microban (tests/data/sokoban) certified both ways: the push search's time and states per level.

Run with ``python -m benchmarks.bench_sokoban_published [--most-boxes 6] [--node-limit N] [--out FILE.jsonl]``.
Each level is solved move-optimal then push-optimal (``solve_level``, one thread); one JSON line per level and
objective (``number, boxes, size, objective, moves, pushes, nodes, seconds, cpu_seconds`` -- the process's CPU
time, which on a shared machine is what an idle core would take -- or ``error``), then a summary: how
many were certified, the slowest, the total time. Issue 39's target: the 145 levels with at most 6 boxes, each
within 60 s and 4 GB, all within 30 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from fastspe.domains.sokoban.level import parse_level
from fastspe.domains.sokoban.solver import SokobanUnsolved, solve_level
from fastspe.errors import UserError
from tests.sokoban_published import microban


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--most-boxes", type=int, default=16)
    ap.add_argument("--node-limit", type=int, default=20_000_000)
    ap.add_argument("--objectives", default="moves,pushes")
    ap.add_argument("--only", default="", help="comma-separated level numbers")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = open(args.out, "w") if args.out else None
    solve_level("#####\n#@$.#\n#####")  # compile / load
    done, total_seconds, slowest, failed = 0, 0.0, (0.0, ""), []
    only = set(args.only.split(",")) - {""}
    start = time.perf_counter()
    for number, text in microban():
        if only and number not in only:
            continue
        try:
            level = parse_level(text)
        except UserError as exc:
            print(json.dumps({"number": number, "error": str(exc)}), flush=True)
            failed.append(f"{number} refused")
            continue
        if len(level.boxes) > args.most_boxes:
            continue
        for objective in args.objectives.split(","):
            row = {"number": number, "boxes": len(level.boxes), "size": level.size, "objective": objective}
            cpu = time.process_time()
            try:
                sol = solve_level(level, args.node_limit, objective)
                row.update(
                    moves=sol.length,
                    pushes=sol.pushes,
                    nodes=sol.nodes,
                    seconds=round(sol.seconds, 3),
                    cpu_seconds=round(time.process_time() - cpu, 3),
                )
                done += 1
                total_seconds += sol.seconds
                slowest = max(slowest, (sol.seconds, f"{number} {objective}"))
            except SokobanUnsolved as exc:
                row.update(error=exc.kind)
                failed.append(f"{number} {objective} {exc.kind}")
            line = json.dumps(row)
            print(line, flush=True)
            if out:
                out.write(line + "\n")
                out.flush()
    print(
        f"certified {done} (level, objective) pairs in {time.perf_counter() - start:.1f} s wall, search "
        f"{total_seconds:.1f} s, slowest {slowest[0]:.1f} s ({slowest[1]}); not certified: {failed}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
