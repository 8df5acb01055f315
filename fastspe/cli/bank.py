"""``fastspe bank build | verify | show``."""

from __future__ import annotations

import argparse

from ._common import cell, cluster_client, cluster_options, int_option, refuse_overwrite, say, seed_option
from . import sokoban
from .progress import progress
from .sokoban import domain_option
from ..errors import UserError

EXIT_FAILED, EXIT_UNPROVEN = 1, 3
SHOWN_IDS = 5  # unproven board ids repeated in the summary line (all are on UNPROVEN lines)


def register(sub: argparse._SubParsersAction) -> None:
    bank = sub.add_parser("bank", help="build, verify and summarize certified board banks",
                          description="Certified board banks: every board's shortest plan length d* = h(s) comes with "
                                      "a certificate, a plan of exactly that length.")
    verbs = bank.add_subparsers(dest="bank_command", metavar="VERB", required=True)

    build = verbs.add_parser("build", help="build a certified bank from a design",
                             description="Build the boards a design asks for by h-raising random walks from the goal "
                                         "(bit-identical for a design and seed at any thread count) and write them, "
                                         "with their certificates, to --out.")
    build.add_argument("--design", default=None, help="'paper' (the paper's Appendix A) or a design JSON file; "
                                                      "--domain sokoban: 'sokoban-paper' (what 'paper' means "
                                                      "there) or a design JSON file {seed, cells: [{cohort, boxes, "
                                                      "depth, count}]} (default: paper)")
    domain_option(build)
    build.add_argument("--levels", metavar="FILE",
                       help="--domain sokoban: bank these levels instead of a design: a .jsonl file of {id, level} "
                            "lines (as solve --input reads) or an XSB collection (levels separated by blank lines, "
                            "';' or Title: lines naming them), each certified by the exact solver")
    build.add_argument("--cohort", default="custom", help="--levels: the cohort of the banked levels (default: custom)")
    build.add_argument("--max-nodes", type=int_option(1, 10**12), default=None,
                       help="--levels: give up on a level after this many stored search states (default: 20,000,000)")
    build.add_argument("--seed", type=seed_option, default=None, help="override the design's seed (default: the design's)")
    build.add_argument("--out", required=True, help="bank file to write (.parquet or .jsonl)")
    cluster_options(build)
    build.set_defaults(func=cmd_build)

    verify = verbs.add_parser("verify", help="independently re-check every board of a bank",
                              description="Re-derive each layout's goal, the graph distances and h with code that "
                                          "shares nothing with the kernels, replay every certificate, and name every "
                                          "failing board (FAIL lines). A search-certified board (a retreat cohort) "
                                          "is proved optimal by a breadth-first search up to d* = 30; each deeper "
                                          "one is named on an UNPROVEN line unless --prove-depth or --prove-board "
                                          "proves it. Exit 0: every board verified and every certificate proved "
                                          "optimal; 1: some board failed; 2: bad input; 3: no board failed but some "
                                          "search boards are not proved optimal (0 with --accept-unproven).")
    verify.add_argument("file", help="bank file (.parquet or .jsonl; a Sokoban bank is verified as one)")
    domain_option(verify, default=None, what="refuse a bank of another domain (default: the bank's own)")
    verify.add_argument("--prove-depth", type=int_option(0, 10**6), metavar="N",
                        help="also prove optimal every search board with d* <= N above the breadth-first bound, "
                             "by a plain-Python IDA* (graph-distance heuristic); its time grows fast with the "
                             "retreat d* - h, not with d*")
    verify.add_argument("--prove-board", action="append", metavar="BOARD_ID",
                        help="prove this search board optimal by the IDA*, whatever its depth (repeatable)")
    verify.add_argument("--accept-unproven", action="store_true",
                        help=f"exit 0 rather than {EXIT_UNPROVEN} when some search boards are not proved optimal "
                             "(they are still listed)")
    verify.set_defaults(func=cmd_verify)

    show = verbs.add_parser("show", help="counts per cohort, k, layout and depth",
                            description="Print how many boards a bank holds per cohort, block count k, layout and depth.")
    show.add_argument("file", help="bank file (.parquet or .jsonl)")
    show.set_defaults(func=cmd_show)


def cmd_build(args) -> int:
    if args.domain == "sokoban":
        return sokoban.build_command(args)
    for option, given in (("--levels", args.levels is not None), ("--cohort", args.cohort != "custom"),
                          ("--max-nodes", args.max_nodes is not None)):
        if given:
            raise UserError("--levels takes Sokoban levels: add --domain sokoban" if option == "--levels" else
                            f"{option} goes with --domain sokoban --levels (given Sokoban levels)")
    args.design = args.design or "paper"
    from ..bank.build import stream_bank
    from ..bank.design import load_design
    from ..boundary.files import table_format

    refuse_overwrite({"--design": None if args.design == "paper" else args.design}, {"--out": args.out})
    table_format(args.out, allowed=(".parquet", ".jsonl"))
    design = load_design(args.design, seed=args.seed)
    with cluster_client(args, preload=("fastspe.kernels.walks",)) as client, \
            progress("bank build", design.total, "boards") as update:
        rows = stream_bank(design, args.out, progress=update, **_proposals(client))
    say(f"wrote {rows:,} certified boards to {args.out} (seed {design.seed})", err=True)
    return 0


def _proposals(client) -> dict:
    """``build_bank_table``'s ``propose`` for a Dask client or a local pool (none for in-process)."""
    if client is None:
        return {}
    from ..distributed import Proposals

    return {"propose": Proposals(client)}


def cmd_verify(args) -> int:
    from ..boundary.banks import bank_frame, read_bank_table
    from ..domains.registry import domain_name_of
    from ..verify.bank import OPTIMALITY_BOUND, verify_bank
    from ..verify.optimal import check_prove_ids, optimality

    table = read_bank_table(args.file, meaning=False)  # the schema only: verify names every failing board
    sokoban.check_domain(table, args.domain, args.file)
    if domain_name_of(table) == "sokoban":
        return sokoban.verify_command(args, table)
    bank = bank_frame(table)
    prove_ids = check_prove_ids(bank, args.prove_board or ())  # before the long work
    with progress("bank verify", len(bank), "boards") as update:
        failures = verify_bank(bank, progress=update)
    with progress("bank verify: IDA* proofs", None, "boards") as update:
        status = optimality(bank, failures, args.prove_depth, prove_ids, progress=update)
    failures += status.refuted
    for board_id, reason in failures:
        say(f"FAIL {board_id}: {reason}")
    for board_id, depth in status.unproven:
        say(f"UNPROVEN {board_id}: d* = {depth} > {OPTIMALITY_BOUND}: the certificate replays, but no shorter plan "
            "was ruled out")
    unproven = _unproven_text(status.unproven, OPTIMALITY_BOUND)
    if failures:
        say(f"{len(failures)} of {len(bank)} boards failed verification" + (f"; {unproven}" if unproven else ""),
            err=True)
        return EXIT_FAILED
    proven = len(status.by_bfs) + len(status.by_ida)
    search = proven + len(status.unproven)
    if not search:
        kinds = "h = depth = certificate length"
    else:
        how = f"{len(status.by_bfs):,} by BFS up to d* = {OPTIMALITY_BOUND}" + \
            (f", {len(status.by_ida):,} by IDA*" if status.by_ida else "")
        kinds = f"h-walk boards: h = depth; {proven:,} search boards: plans optimal (proven: {how})"
        kinds += f"; {unproven}" if unproven else ""
        kinds += "; retreat = depth - h"
    checks = f"{kinds}; certificates reach the goal in depth moves, no repeats"
    if not status.unproven:
        say(f"ok: all {len(bank):,} boards verified ({checks})")
        return 0
    accepted = args.accept_unproven
    say(f"{'ok (unproven accepted)' if accepted else 'NOT PROVEN'}: all {len(bank):,} boards pass every check, "
        f"but {len(status.unproven):,} of {search:,} search boards are not proved optimal ({checks})")
    if not accepted:
        deepest = max(d for _, d in status.unproven)
        say(f"prove them with --prove-depth {deepest} (a plain-Python IDA*; slow for large retreats) or "
            f"--prove-board ID, or accept them with --accept-unproven (exit {EXIT_UNPROVEN} until then)", err=True)
    return 0 if accepted else EXIT_UNPROVEN


def _unproven_text(unproven: list, bound: int) -> str:
    """``2 not proven optimal (d* > 30): a, b`` with at most ``SHOWN_IDS`` ids; '' when none."""
    if not unproven:
        return ""
    ids = ", ".join(bid for bid, _ in unproven[:SHOWN_IDS])
    more = f" and {len(unproven) - SHOWN_IDS:,} more (UNPROVEN lines)" if len(unproven) > SHOWN_IDS else ""
    return f"{len(unproven):,} not proven optimal (d* > {bound}): {ids}{more}"


def cmd_show(args) -> int:
    from rich.table import Table

    from ..bank.build import read_bank

    bank = read_bank(args.file)
    if "blocks" in bank.columns:
        bank = bank.assign(blocks=bank["blocks"].map(tuple))
        counts = bank.groupby(["cohort", "k", "blocks", "depth"], sort=True).size().reset_index(name="boards")
        counts["blocks"] = [",".join(map(str, b)) or "-" for b in counts["blocks"]]
    else:  # a Sokoban bank: levels per cohort, box count and depth
        counts = bank.groupby(["cohort", "boxes", "depth"], sort=True).size().reset_index(name="boards")
    table = Table(title=cell(f"{args.file}: {len(bank):,} boards"))
    for col in counts.columns:
        table.add_column(cell(col), justify="right" if col in ("k", "boxes", "depth", "boards") else "left")
    for row in counts.itertuples(index=False):
        table.add_row(*map(cell, row))
    say(table)
    return 0
