"""``fastspe bank build | verify | show | export``: the shared steps; what a bank holds and how it is built and
verified is its domain's (``Domain.load_design``, ``bank_pieces``, ``given_bank``, ``verify_bank``,
``bank_summary``); ``export`` writes a bank where others share data (``fastspe.hub``)."""

from __future__ import annotations

import argparse
import os

from ._common import cell, cluster_client, cluster_options, refuse_overwrite, say, seed_option
from .domain_options import UI, add_domain_options, check_domain_options, domain_option
from .progress import progress
from ..domains.registry import DEFAULT_DOMAIN
from ..errors import UserError
from .._text import count

EXIT_FAILED, EXIT_UNPROVEN = 1, 3


def register(sub: argparse._SubParsersAction) -> None:
    bank = sub.add_parser(
        "bank",
        help="build, verify and summarize certified banks",
        description="Certified banks: every row's shortest plan length d* comes with a certificate, "
        "a plan of exactly that length, proved optimal.",
    )
    verbs = bank.add_subparsers(dest="bank_command", metavar="VERB", required=True)

    build = verbs.add_parser(
        "build",
        help="build a certified bank from a design",
        description="Build the rows a design asks for, each with a certificate of its optimal "
        "plan as its domain certifies it (bit-identical for a design and seed at any "
        "thread count), and write them to --out.",
    )
    build.add_argument(
        "--design",
        default=None,
        help="a design name of the domain ('paper', the paper's Appendix A, for the default domain) or "
        "a design JSON file (default: the domain's default design)",
    )
    domain_option(build, default=DEFAULT_DOMAIN)
    build.add_argument(
        "--seed", type=seed_option, default=None, help="override the design's seed (default: the design's)"
    )
    build.add_argument("--out", required=True, help="bank file to write (.parquet, or .jsonl where the domain allows)")
    cluster_options(build)
    add_domain_options(build, "bank build")
    build.set_defaults(func=cmd_build)

    verify = verbs.add_parser(
        "verify",
        help="independently re-check every row of a bank",
        description="Re-derive every row with code that shares nothing with the kernels, the "
        "solver or the builder, replay every certificate, and name every failing "
        "row (FAIL lines); a certificate whose optimality is not proved is named "
        "on an UNPROVEN line. Exit 0: every row verified and proved optimal; 1: "
        "some row failed; 2: bad input; 3: no row failed but some are not proved "
        "optimal (0 with --accept-unproven).",
    )
    verify.add_argument("file", help="bank file (.parquet or .jsonl; verified as its domain's)")
    domain_option(verify, what="refuse a bank of another domain (default: the bank's own)")
    verify.add_argument(
        "--accept-unproven",
        action="store_true",
        help=f"exit 0 rather than {EXIT_UNPROVEN} when some rows are not proved optimal (they are still listed)",
    )
    add_domain_options(verify, "bank verify")
    verify.set_defaults(func=cmd_verify)

    show = verbs.add_parser(
        "show",
        help="counts of a bank's rows per cohort, stratum and depth",
        description="Print how many rows a bank holds per cohort, second stratum (and what else "
        "its domain counts by) and depth.",
    )
    show.add_argument("file", help="bank file (.parquet or .jsonl)")
    show.set_defaults(func=cmd_show)

    export = verbs.add_parser(
        "export",
        help="write a bank as a Hugging Face dataset folder, or as items",
        description="--hub DIR: a folder that datasets.load_dataset(DIR) reads, one Parquet "
        "file and config per cohort, 'all' as the default config, and a README.md "
        "dataset card (configs, features, license, citation, how d* is certified "
        "and how to score answers with fastspe). fastspe never uploads: publish "
        "the folder with `huggingface-cli upload USER/NAME DIR . --repo-type "
        "dataset`. --items FILE.jsonl: one {question, answer, metadata} line per "
        "row (the paper's prompt, the certified plan as an answer, the row), "
        "scored by fastspe.hub.score_answer.",
    )
    export.add_argument("file", help="bank file (.parquet or .jsonl)")
    export.add_argument("--hub", metavar="DIR", help="dataset folder to write (new or empty, unless --force)")
    export.add_argument("--items", metavar="FILE.jsonl", help="items file to write (JSONL)")
    export.add_argument(
        "--force",
        action="store_true",
        help="write --hub into a folder that is not empty, replacing its README.md and data/ (other "
        "files, such as a clone's .git, are kept)",
    )
    export.add_argument(
        "--repo-id", metavar="USER/NAME", help="the Hub name the card's examples load (default: YOUR-NAME/<DIR's name>)"
    )
    export.set_defaults(func=cmd_export)


def cmd_build(args) -> int:
    from ..boundary.banks import check_bank_path, write_bank_tables
    from ..domains.registry import domain_named

    domain = domain_named(args.domain)
    check_domain_options(args, domain)
    check_bank_path(args.out, domain)  # before any work
    units = f"{domain.unit}s"
    given = domain.given_bank(args, UI)
    if given is not None:
        if args.design is not None or args.seed is not None:
            raise UserError(
                f"{'--design' if args.design is not None else '--seed'} builds from a design; the "
                "options given name the rows to bank: give one or the other"
            )
        refuse_overwrite(dict(given.inputs), {"--out": args.out})
        with progress("bank build", given.total, units) as update:
            rows = write_bank_tables(given.pieces(update), args.out, domain)
        say(f"wrote {count(rows, 'certified ' + domain.unit)} to {args.out} {given.what}", err=True)
        return 0
    design_file = args.design if args.design is not None and os.path.isfile(args.design) else None
    refuse_overwrite({"--design": design_file}, {"--out": args.out})
    design = domain.load_design(args.design, seed=args.seed)
    with (
        cluster_client(args, preload=domain.build_preload) as client,
        progress("bank build", design.total, units) as update,
    ):
        rows = write_bank_tables(domain.bank_pieces(design, update, client, args), args.out, domain)
    say(f"wrote {count(rows, 'certified ' + domain.unit)} to {args.out} (seed {design.seed})", err=True)
    return 0


def cmd_verify(args) -> int:
    from ..boundary.banks import read_bank_table
    from ..domains.registry import domain_named, name_in

    # the schema only: verify names every failing row; a bank of another domain than --domain is refused
    table = read_bank_table(args.file, meaning=False, domain=args.domain)
    domain = domain_named(name_in(table))
    check_domain_options(args, domain, args.file)
    found = domain.verify_bank(table, args, UI)
    for board_id, reason in found.failures:
        say(f"FAIL {board_id}: {reason}")
    for board_id, reason in found.unproven:
        say(f"UNPROVEN {board_id}: {reason}")
    if found.failures:
        say(found.summary, err=True)
        return EXIT_FAILED
    say(found.summary)
    if not found.unproven or args.accept_unproven:
        return 0
    if found.hint:
        say(f"{found.hint} (exit {EXIT_UNPROVEN} until then)", err=True)
    return EXIT_UNPROVEN


def cmd_show(args) -> int:
    from rich.table import Table

    from ..boundary.banks import load_bank

    bank = load_bank(args.file)
    counts = bank.domain.bank_summary(bank.frame)
    table = Table(title=cell(f"{args.file}: {len(bank):,} {bank.domain.unit}s"))
    for col in counts.columns:
        numeric = counts[col].dtype.kind in "iu"
        table.add_column(cell(col), justify="right" if numeric else "left")
    for row in counts.itertuples(index=False):
        table.add_row(*map(cell, row))
    say(table)
    return 0


def cmd_export(args) -> int:
    from ..boundary.banks import load_bank
    from ..hub.export import check_hub_dir, export_hub
    from ..hub.items import BankItems, write_items

    if args.hub is None and args.items is None:
        raise UserError("bank export writes --hub DIR, --items FILE.jsonl or both: give one")
    if args.items is not None and not args.items.lower().endswith(".jsonl"):
        raise UserError(f"--items {args.items}: items are written as JSONL; give a .jsonl file")
    refuse_overwrite({"FILE": args.file}, {"--hub": args.hub, "--items": args.items})
    if args.hub is not None:
        check_hub_dir(args.hub, args.force)  # before the bank is read
    bank = load_bank(args.file)
    if args.hub is not None:
        done = export_hub(bank, args.hub, force=args.force, repo_id=args.repo_id)
        configs = ", ".join(f"{c.name} ({c.rows:,})" for c in done.configs)
        say(
            f"wrote {count(done.rows, bank.domain.unit)} to {args.hub}: configs {configs}; publish it with "
            f"`huggingface-cli upload {args.repo_id or 'USER/NAME'} {args.hub} . --repo-type dataset`",
            err=True,
        )
    if args.items is not None:
        rows = write_items(BankItems(bank), args.items)
        say(f"wrote {count(rows, 'item')} to {args.items}", err=True)
    return 0
