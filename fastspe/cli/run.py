"""``fastspe run``: answer a bank with a model API or an offline baseline, resumably."""

from __future__ import annotations

import argparse

from ._common import progress_bar, stderr, stdout

EXIT_INCOMPLETE = 1
EXIT_INTERRUPTED = 130


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="answer a bank with a model (OpenAI-compatible, Anthropic) or a baseline planner",
        description="Send each board's Appendix B prompt in a fresh context, TRIALS times, and append one JSON "
                    "line per attempt to --out. Running the same command again resumes: completed trials are "
                    "never sent again. Keys come only from OPENAI_API_KEY / ANTHROPIC_API_KEY.")
    p.add_argument("--bank", required=True, help="bank file (.parquet, .jsonl or .csv) from `fastspe bank`")
    p.add_argument("--model", required=True, metavar="PROVIDER:MODEL",
                   help="openai:NAME, anthropic:NAME or baseline:PLANNER (oracle, greedy, detour, noisy, random)")
    p.add_argument("--out", required=True, metavar="RESPONSES.jsonl", help="run log, appended to, never rewritten")
    p.add_argument("--base-url", help="server URL, e.g. http://localhost:8000/v1 for vLLM/Ollama/llama.cpp")
    p.add_argument("--trials", type=int, default=3, help="trials per board (default 3)")
    p.add_argument("--limit", type=int, metavar="N", help="only the first N boards of the bank")
    p.add_argument("--max-connections", type=int, default=4, help="requests in flight at most (default 4)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per request (default 120)")
    p.add_argument("--max-retries", type=int, default=3,
                   help="retries per trial after server errors, timeouts, dropped connections (default 3)")
    p.add_argument("--max-rate-limit-retries", type=int, default=8,
                   help="retries per trial after HTTP 429, counted apart (default 8)")
    p.add_argument("--backoff", type=float, default=1.0,
                   help="base seconds of the exponential backoff between retries (default 1)")
    p.add_argument("--temperature", type=float, help="sampling temperature (default: the server's)")
    p.add_argument("--max-tokens", type=int, help="most output tokens per answer (anthropic default 8192)")
    p.add_argument("--price-in", type=float, default=0.0, metavar="USD", help="dollars per million input tokens")
    p.add_argument("--price-out", type=float, default=0.0, metavar="USD", help="dollars per million output tokens")
    p.add_argument("--budget", type=float, metavar="USD",
                   help="stop before the log's cost for this model would exceed USD (needs prices and --max-tokens)")
    p.add_argument("--dry-run", action="store_true", help="print the requests still to send and their cost; send none")
    p.add_argument("--seed", type=int, default=0, help="seed of baseline planners and of retry jitter (default 0)")
    p.set_defaults(func=run_command)


def _check(args: argparse.Namespace) -> None:
    for name in ("trials", "max_connections"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be >= 1, got {args.limit}")
    if args.timeout <= 0:
        raise ValueError(f"--timeout must be > 0 seconds, got {args.timeout}")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise ValueError(f"--max-tokens must be >= 1, got {args.max_tokens}")
    if args.budget is not None and not (args.price_in > 0 or args.price_out > 0):
        raise ValueError("--budget needs --price-in and/or --price-out to know what a request costs")


def run_command(args: argparse.Namespace) -> int:
    from ..bank import read_bank
    from ..runners import GenerationSettings, Pricing, RetryPolicy, estimate_run, run_baseline, run_model, split_model

    _check(args)
    provider, name = split_model(args.model)
    bank = read_bank(args.bank)
    if args.limit is not None:
        bank = bank.head(args.limit)
    if provider == "baseline":
        if args.dry_run:
            stdout.print(f"{args.model}: {len(bank) * args.trials} offline answers, no requests, $0")
            return 0
        with progress_bar(f"{args.model}", len(bank) * args.trials) as update:
            summary = run_baseline(bank, name, args.out, trials=args.trials, seed=args.seed, progress=update)
        stdout.print(f"{args.model}: {summary.completed} answers written, {summary.already_complete} already in "
                     f"{args.out}", highlight=False)
        return 0
    settings = GenerationSettings(temperature=args.temperature, max_tokens=args.max_tokens)
    pricing = Pricing(args.price_in, args.price_out)
    if args.dry_run:
        est = estimate_run(bank, args.model, args.out, base_url=args.base_url, trials=args.trials,
                           settings=settings, pricing=pricing)
        stdout.print(_estimate_text(est), highlight=False)
        return 0
    policy = RetryPolicy(max_retries=args.max_retries, max_rate_limit_retries=args.max_rate_limit_retries,
                         base_delay=args.backoff, max_delay=max(60.0, args.backoff))
    with progress_bar(f"{args.model}", None) as update:
        summary = run_model(bank, args.model, args.out, base_url=args.base_url, trials=args.trials,
                            max_connections=args.max_connections, timeout=args.timeout, policy=policy,
                            settings=settings, pricing=pricing, budget=args.budget, seed=args.seed, progress=update,
                            notify=lambda message: stderr.print(message, highlight=False))
    stdout.print(_summary_text(summary), highlight=False)
    if summary.skipped_log_lines:
        stderr.print(f"note: {summary.skipped_log_lines} torn or unreadable line(s) in {args.out} were skipped "
                     f"(left in place)", highlight=False)
    if summary.fatal_error:
        raise ValueError(f"{args.model}: {summary.fatal_error}")
    if summary.interrupted:
        stderr.print("interrupted; run the same command again to resume", highlight=False)
        return EXIT_INTERRUPTED
    if summary.budget_exhausted:
        stderr.print(f"budget of ${args.budget:.2f} reached; {summary.remaining} trial(s) not sent", highlight=False)
        return EXIT_INCOMPLETE
    if summary.remaining:
        stderr.print(f"{summary.remaining} trial(s) have no answer yet; run the same command again to retry them",
                     highlight=False)
        return EXIT_INCOMPLETE
    return 0


def _estimate_text(est) -> str:
    lines = [f"{est.condition}: {est.requests} request(s) to send ({est.already_complete} of {est.planned} trials "
             f"already complete)",
             f"input tokens: about {est.input_tokens_estimate:,} (at most {est.input_tokens_upper:,})"]
    if est.output_tokens_upper is not None:
        lines.append(f"output tokens: at most {est.output_tokens_upper:,} (--max-tokens per request)")
    if est.cost_estimate_usd is not None:
        upper = f"${est.cost_upper_usd:.4f}" if est.cost_upper_usd is not None else "unbounded without --max-tokens"
        lines.append(f"cost: input about ${est.cost_estimate_usd:.4f}; at most {upper} in all (before retries)")
    else:
        lines.append("cost: give --price-in/--price-out (dollars per million tokens) for an estimate")
    return "\n".join(lines)


def _summary_text(s) -> str:
    failures = ", ".join(f"{k}: {v}" for k, v in sorted(s.failures.items())) or "none"
    cost = f", spent ${s.spent_usd:.4f} in all" if s.spent_usd else ""
    return (f"{s.condition}: {s.planned} trials, {s.already_complete} already complete, {s.requested} sent, "
            f"{s.completed} answered, {s.remaining} without an answer; {s.attempts} attempt(s), "
            f"failures {failures}{cost}. Log: {s.out}")
