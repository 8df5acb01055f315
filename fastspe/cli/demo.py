"""``fastspe demo [--out DIR] [--draws N]``: the paper bank, answered by the baselines, scored and reported."""

from __future__ import annotations

import time

from ._common import draws_option, metrics_table, note, say, seed_option, trials_option
from .progress import Stages
from .report import STAGE_UNITS
from .domain_options import domain_option
from ..domains.registry import DEFAULT_DOMAIN

# The defaults of fastspe.demo, repeated so that `--help` imports neither pandas nor numba (a test keeps them equal).
DEFAULT_OUT = "fastspe-demo"
DEMO_DRAWS = 5000
DEMO_SEED = 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="run the whole pipeline offline: paper bank -> baseline answers -> verdicts -> report",
        description="Build the paper's 400-board bank (or another domain's demo bank, --domain), answer it with the "
        "offline baseline planners (oracle, greedy, detour, noisy, random; 3 trials each), score the "
        "answers and write the full report into DIR.",
    )
    p.add_argument(
        "--out", default=DEFAULT_OUT, metavar="DIR", help="folder for the bank, answers, verdicts and report"
    )
    p.add_argument(
        "--draws", type=draws_option, default=DEMO_DRAWS, metavar="N", help="bootstrap draws for the intervals"
    )
    p.add_argument("--trials", type=trials_option, default=3, metavar="N", help="answers per board and planner")
    p.add_argument("--seed", type=seed_option, default=DEMO_SEED, help="seed of the baseline planners")
    domain_option(
        p,
        default=DEFAULT_DOMAIN,
        what=f"the domain whose demo bank to build, answered by all of its "
        f"baseline planners (default: {DEFAULT_DOMAIN}, the paper bank; "
        "`fastspe domains` lists them)",
    )
    p.set_defaults(func=run_demo_command, compile_seconds=30)  # (a fresh cache, 2 cores: bench_first_run)


def run_demo_command(args) -> int:
    from ..demo import run_demo

    start = time.perf_counter()
    with Stages("report", STAGE_UNITS) as report_progress:
        result = run_demo(
            args.out,
            draws=args.draws,
            trials=args.trials,
            seed=args.seed,
            stage=lambda what: note(f"· {what}"),
            progress=report_progress,
            domain=args.domain,
        )
    say(metrics_table(result.headline, title="Primary cohort (Table 1): SPE = R x Q x E"))
    say(f"report: {result.report_path}")
    say(
        f"files:  {result.bank_path.name}, {result.responses_path.name}, {result.verdicts_path.name}, "
        f"metrics.csv, tables/, figures/, report.html in {result.out_dir}"
    )
    note(f"done in {time.perf_counter() - start:.1f} s")
    return 0
