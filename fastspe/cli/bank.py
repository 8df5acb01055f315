"""``fastspe bank build | verify | show``."""

from __future__ import annotations

import argparse

from ._common import cell, cluster_client, cluster_options, refuse_overwrite, say, seed_option
from .progress import progress


def register(sub: argparse._SubParsersAction) -> None:
    bank = sub.add_parser("bank", help="build, verify and summarize certified board banks",
                          description="Certified board banks: every board's shortest plan length d* = h(s) comes with "
                                      "a certificate, a plan of exactly that length.")
    verbs = bank.add_subparsers(dest="bank_command", metavar="VERB", required=True)

    build = verbs.add_parser("build", help="build a certified bank from a design",
                             description="Build the boards a design asks for by h-raising random walks from the goal "
                                         "(bit-identical for a design and seed at any thread count) and write them, "
                                         "with their certificates, to --out.")
    build.add_argument("--design", default="paper", help="'paper' (the paper's Appendix A) or a design JSON file")
    build.add_argument("--seed", type=seed_option, default=None, help="override the design's seed (default: the design's)")
    build.add_argument("--out", required=True, help="bank file to write (.parquet or .jsonl)")
    cluster_options(build)
    build.set_defaults(func=cmd_build)

    verify = verbs.add_parser("verify", help="independently re-check every board of a bank",
                              description="Re-derive each layout's goal, the graph distances and h with code that "
                                          "shares nothing with the kernels, replay every certificate, and name every "
                                          "failing board (exit 1 if any fails).")
    verify.add_argument("file", help="bank file (.parquet or .jsonl)")
    verify.set_defaults(func=cmd_verify)

    show = verbs.add_parser("show", help="counts per cohort, k, layout and depth",
                            description="Print how many boards a bank holds per cohort, block count k, layout and depth.")
    show.add_argument("file", help="bank file (.parquet or .jsonl)")
    show.set_defaults(func=cmd_show)


def cmd_build(args) -> int:
    from ..bank import build_bank_table, write_bank
    from ..design import load_design
    from ..io import table_format

    refuse_overwrite({"--design": None if args.design == "paper" else args.design}, {"--out": args.out})
    table_format(args.out, allowed=(".parquet", ".jsonl"))
    design = load_design(args.design, seed=args.seed)
    with cluster_client(args) as client, progress("bank build", design.total, "boards") as update:
        bank = build_bank_table(design, progress=update, **_proposals(client))
    write_bank(bank, args.out)
    say(f"wrote {bank.num_rows:,} certified boards to {args.out} (seed {design.seed})", err=True)
    return 0


def _proposals(client) -> dict:
    """``build_bank_table``'s ``propose`` for a Dask client (none for in-process)."""
    if client is None:
        return {}
    from ..distributed import Proposals

    return {"propose": Proposals(client)}


def cmd_verify(args) -> int:
    from ..bank import read_bank
    from ..verify_bank import optimality_note, verify_bank

    bank = read_bank(args.file, meaning=False)  # the schema only: verify names every failing board
    with progress("bank verify", len(bank), "boards") as update:
        failures = verify_bank(bank, progress=update)
    for board_id, reason in failures:
        say(f"FAIL {board_id}: {reason}")
    if failures:
        say(f"{len(failures)} of {len(bank)} boards failed verification", err=True)
        return 1
    search = int((bank["certificate_kind"] == "search").sum()) if "certificate_kind" in bank else 0
    kinds = "h = depth = certificate length" if not search else \
        f"h-walk boards: h = depth; {search:,} search boards: plans optimal, retreat = depth - h"
    say(f"ok: all {len(bank):,} boards verified ({kinds}; certificates reach the goal in depth moves, no repeats)")
    note = optimality_note(bank)
    if note:
        say(f"note: {note}", err=True)
    return 0


def cmd_show(args) -> int:
    from rich.table import Table

    from ..bank import read_bank

    bank = read_bank(args.file)
    bank = bank.assign(blocks=bank["blocks"].map(tuple))
    counts = bank.groupby(["cohort", "k", "blocks", "depth"], sort=True).size().reset_index(name="boards")
    counts["blocks"] = [",".join(map(str, b)) or "-" for b in counts["blocks"]]
    table = Table(title=cell(f"{args.file}: {len(bank):,} boards"))
    for col in counts.columns:
        table.add_column(cell(col), justify="right" if col in ("k", "depth", "boards") else "left")
    for row in counts.itertuples(index=False):
        table.add_row(*map(cell, row))
    say(table)
    return 0
