"""``fastspe run``: answer a bank with a model API or an offline baseline, resumably."""

from __future__ import annotations

import argparse

from ..errors import UserError
from ..runners.generation import MAX_TOKENS, MIN_THINKING_BUDGET, REASONING_EFFORTS, default_condition, parse_extra_body
from ._common import (
    as_options,
    checked_option,
    float_option,
    int_option,
    plain,
    refuse_overwrite,
    say,
    seed_option,
    text_option,
    trials_option,
)
from .._text import count, plural
from .progress import progress
from .domain_options import domain_option
from .prompt_options import add_prompt_options, prompt_inputs, prompt_spec_of

# README's table of exit codes says what each means; 1 stays a bug in fastspe (its traceback printed)
EXIT_BUG = 1
EXIT_INCOMPLETE = 4  # some trials have no answer (retries spent, budget reached): run again to retry them
EXIT_INTERRUPTED = 130


# Bounds that no real run needs to pass; they turn typos (1e30 trials, NaN seconds) into errors.
MAX_BOARDS = 100_000_000
MAX_CONNECTIONS = 1024
MAX_RETRIES = 1000
MAX_SECONDS = 86_400.0
MAX_PRICE_USD = 1e6
MAX_BUDGET_USD = 1e9
MAX_TEMPERATURE = 10.0
MAX_RATE = 1e12

# the runners' parameter names (fastspe.errors.ParameterError) as this command's options
_OPTIONS = {
    "model": "--model",
    "trials": "--trials",
    "timeout": "--timeout",
    "budget": "--budget",
    "max_tokens": "--max-tokens",
    "batch": "--batch",
    "poll_interval": "--poll-interval",
    "thinking_budget": "--thinking-budget",
    "protocol": "--protocol",
}


def condition_name(text: str) -> str:
    """An argparse type: a non-empty condition name without control characters (it lands in files and tables)."""
    if not text.strip() or plain(text, keep_newlines=False) != text:
        raise argparse.ArgumentTypeError(f"must be a non-empty name without control characters, got {text!r}")
    return text


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "run",
        help="answer a bank with a model (OpenAI-compatible, Anthropic) or a baseline planner",
        description="Send each board's Appendix B prompt in a fresh context, TRIALS times, and append one JSON "
        "line per attempt to --out. Running the same command again resumes: completed trials are "
        "never sent again. Keys come only from OPENAI_API_KEY / ANTHROPIC_API_KEY.",
    )
    p.add_argument("--bank", required=True, help="bank file (.parquet or .jsonl) from `fastspe bank build`")
    p.add_argument(
        "--model",
        required=True,
        metavar="PROVIDER:MODEL",
        help="openai:NAME, anthropic:NAME or baseline:PLANNER (oracle, greedy, detour, noisy, random); "
        "PROVIDER/NAME works too",
    )
    p.add_argument(
        "--condition",
        type=condition_name,
        metavar="NAME",
        help="the answers' condition (default: --model as PROVIDER:MODEL); one condition keeps one set "
        "of generation settings, so run other settings of a model as another condition",
    )
    p.add_argument("--out", required=True, metavar="RESPONSES.jsonl", help="run log, appended to, never rewritten")
    domain_option(
        p,
        default=None,
        what="refuse a bank of another domain (default: the bank's own: each domain "
        "sends its own prompt and has its own baseline planners)",
    )
    p.add_argument("--base-url", help="server URL, e.g. http://localhost:8000/v1 for vLLM/Ollama/llama.cpp")
    p.add_argument("--trials", type=trials_option, default=3, help="trials per board")
    some = p.add_mutually_exclusive_group()
    some.add_argument(
        "--sample",
        type=int_option(1, MAX_BOARDS),
        metavar="N",
        help="a seeded sample of N boards, stratified by cohort, stratum and depth (in proportion, at "
        "least one per cell when N allows); its report says what part of the bank it covers",
    )
    some.add_argument(
        "--limit",
        type=int_option(1, MAX_BOARDS),
        metavar="N",
        help="the first N boards in the bank's order (a smoke test: in the paper bank that is one "
        "stratum); prefer --sample for numbers",
    )
    p.add_argument(
        "--sample-seed",
        type=seed_option,
        default=0,
        metavar="SEED",
        help="seed of --sample's draw (default: 0); the same seed draws the same boards, so a run resumes",
    )
    p.add_argument(
        "--max-connections", type=int_option(1, MAX_CONNECTIONS), default=4, help="requests in flight at most"
    )
    p.add_argument(
        "--timeout",
        type=float_option(0, MAX_SECONDS, above=True),
        default=120.0,
        help="seconds per attempt, from connecting to the last byte of its answer",
    )
    p.add_argument(
        "--max-retries",
        type=int_option(0, MAX_RETRIES),
        default=3,
        help="retries per trial after server errors, timeouts, dropped connections",
    )
    p.add_argument(
        "--max-rate-limit-retries",
        type=int_option(0, MAX_RETRIES),
        default=8,
        help="retries per trial after HTTP 429, counted apart",
    )
    p.add_argument(
        "--backoff",
        type=float_option(0, MAX_SECONDS),
        default=1.0,
        help="base seconds of the exponential backoff between retries",
    )
    g = p.add_argument_group(
        "generation settings",
        "sent with every request only when given (else the server's "
        "default applies); recorded in every log line and fixed for a condition",
    )
    g.add_argument(
        "--temperature", type=float_option(0, MAX_TEMPERATURE), help="sampling temperature (default: the server's)"
    )
    g.add_argument(
        "--max-tokens",
        type=int_option(1, MAX_TOKENS),
        help="most output tokens per answer, reasoning tokens included (default: the server's; anthropic: 8192)",
    )
    g.add_argument(
        "--top-p",
        type=float_option(0, 1, above=True),
        metavar="P",
        help="nucleus sampling, 0 < P <= 1 (default: the server's)",
    )
    g.add_argument(
        "--seed",
        type=seed_option,
        help="models: sampling seed sent to the server (openai only; default: not sent) and seed of "
        "retry jitter (default: 0); baselines: the planners' seed (default: 0)",
    )
    g.add_argument(
        "--stop",
        type=text_option,
        action="append",
        metavar="SEQ",
        help="stop sequence, repeatable (openai: at most 4) (default: none)",
    )
    g.add_argument(
        "--reasoning-effort",
        choices=REASONING_EFFORTS,
        help="openai reasoning models' effort (default: the server's); for anthropic give --thinking-budget",
    )
    g.add_argument(
        "--thinking-budget",
        type=int_option(MIN_THINKING_BUDGET, MAX_TOKENS),
        metavar="TOKENS",
        help=f"anthropic extended thinking: tokens it may think, >= {MIN_THINKING_BUDGET} and below "
        f"--max-tokens; --temperature must then be unset or 1 (default: off)",
    )
    g.add_argument(
        "--extra-body",
        type=checked_option(parse_extra_body, "JSON"),
        metavar="JSON",
        help="a JSON object merged into each request body, e.g. '{\"top_k\": 20}'; it may not set "
        "model, messages, stream or a key an option above sets (default: none)",
    )
    p.add_argument(
        "--price-in",
        type=float_option(0, MAX_PRICE_USD),
        default=0.0,
        metavar="USD",
        help="dollars per million input tokens (default: 0)",
    )
    p.add_argument(
        "--price-out",
        type=float_option(0, MAX_PRICE_USD),
        default=0.0,
        metavar="USD",
        help="dollars per million output tokens (default: 0)",
    )
    p.add_argument(
        "--budget",
        type=float_option(0, MAX_BUDGET_USD, above=True),
        metavar="USD",
        help="stop before the log's cost for this condition would exceed USD (needs prices and --max-tokens)",
    )
    p.add_argument(
        "--rpm",
        type=float_option(0, MAX_RATE, above=True),
        metavar="N",
        help="at most N requests a minute, for servers that send no rate-limit headers (default: no "
        "ceiling; OpenAI's and Anthropic's headers pace sends in any case)",
    )
    p.add_argument(
        "--tpm",
        type=float_option(0, MAX_RATE, above=True),
        metavar="N",
        help="at most N tokens a minute (input estimate plus --max-tokens per request) (default: no ceiling)",
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="send through the provider's batch API at half price (results within 24 h); "
        "costs are logged at half of --price-in/--price-out; run the same command again to collect "
        "batches a stopped run left",
    )
    p.add_argument(
        "--poll-interval",
        type=float_option(0, MAX_SECONDS),
        default=30.0,
        metavar="SECONDS",
        help="with --batch: seconds between polls of a batch (default: 30)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the requests still to send and their cost; send none")
    _protocol_options(p)
    add_prompt_options(p)  # the prompt group (fastspe.cli.prompt_options)
    p.set_defaults(func=run_command)


# ---- the conversation protocol (issue 38) ------------------------------------------------------------------------


def _protocol_options(p) -> None:
    from ..protocols.spec import DEFAULT_MAX_ROUNDS, DEFAULT_MAX_TURNS, MAX_LIMIT, PROTOCOL_NAMES

    g = p.add_argument_group(
        "conversation protocol",
        "how a trial's conversation goes (docs/protocols.md); not "
        "oneshot: every turn is one log line, the default condition name gains +PROTOCOL",
    )
    g.add_argument(
        "--protocol",
        choices=PROTOCOL_NAMES,
        default="oneshot",
        help="oneshot: one answer (the paper's); tools: the model may call apply_moves (the board after "
        "given moves from the start) before it answers; feedback: the verifier's verdict goes back "
        "for another plan (default: oneshot)",
    )
    g.add_argument(
        "--max-turns",
        type=int_option(1, MAX_LIMIT),
        metavar="N",
        help=f"tools: requests per conversation at most; a model still calling the tool then has no "
        f"answer (a format failure) (default: {DEFAULT_MAX_TURNS})",
    )
    g.add_argument(
        "--max-rounds",
        type=int_option(1, MAX_LIMIT),
        metavar="N",
        help=f"feedback: plans per conversation at most; the last is scored (default: {DEFAULT_MAX_ROUNDS})",
    )


def _protocol(args: argparse.Namespace, provider: str):
    """The run's checked ``ProtocolSpec``: refused for baselines and with --batch."""
    from ..protocols.spec import protocol_spec

    spec = protocol_spec(args.protocol, args.max_turns, args.max_rounds)
    if spec.multi_turn and provider == "baseline":
        raise UserError(f"--protocol {spec.name} talks with a model; baseline planners answer once, offline")
    if args.batch:
        from ..runners.batch import check_batch_protocol

        check_batch_protocol(spec)
    return spec


def _protocol_note(spec) -> None:
    """What a dry run's counts mean under a multi-turn protocol."""
    if spec.multi_turn:
        say(
            f"--protocol {spec.name}: each trial is a conversation of up to {count(spec.limit, 'request')}; the "
            f"counts above are of its first request (how many follow is the model's choice)"
        )


# ---- end of the conversation protocol ----------------------------------------------------------------------------


def run_command(args: argparse.Namespace) -> int:
    with as_options(_OPTIONS):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    refuse_overwrite({"--bank": args.bank, **prompt_inputs(args)}, {"--out": args.out})
    from ..boundary.banks import load_bank
    from ..runners import Pricing, RetryPolicy, estimate_run, run_baseline, run_model, split_model
    from ..runners.engine import settings_for
    from ..runners.log import check_log_path

    if args.budget is not None and not (args.price_in > 0 or args.price_out > 0):
        raise UserError("--budget needs --price-in and/or --price-out to know what a request costs")
    provider, name = split_model(args.model)
    check_log_path(args.out)  # a .jsonl name that is not a bank, before the bank is read
    protocol = _protocol(args, provider)
    prompt = _prompt_spec(args, provider)
    condition = args.condition if args.condition is not None else default_condition(args.model, prompt, protocol)
    if args.batch:
        from ..runners.batch import check_batch_provider

        check_batch_provider(args.model)  # before any file: baseline planners send no requests
    if provider != "baseline":
        settings = settings_for(args.model, _settings(args))  # refuse what the provider refuses before any file
    else:
        _refuse_model_options(args)
    bank = load_bank(args.bank)
    if args.domain is not None and args.domain != bank.domain.name:
        raise UserError(f"{args.bank}: a {bank.domain.name} bank, not a {args.domain} one")
    if args.sample is not None:
        from ..runners.sample import sample_bank

        whole = len(bank)
        bank = sample_bank(bank, args.sample, args.sample_seed)
        if len(bank) < whole:
            say(
                f"sample: {count(len(bank), bank.domain.unit)} of {whole:,} (seed {args.sample_seed}), stratified "
                "by cohort, stratum and depth",
                err=True,
            )
    if args.limit is not None:
        bank = bank.head(args.limit)
    if provider == "baseline":
        if args.dry_run:
            say(f"{condition}: {len(bank) * args.trials} offline answers, no requests, $0")
            return 0
        with progress(f"run {condition}", len(bank) * args.trials, "trials") as update:
            summary = run_baseline(
                bank, name, args.out, trials=args.trials, seed=args.seed or 0, progress=update, condition=condition
            )
        say(
            f"{condition}: {count(summary.completed, 'answer')} written, {summary.already_complete:,} already in {args.out}"
        )
        _report_torn(summary, args.out)
        return 0
    pricing = Pricing(args.price_in, args.price_out)
    if args.dry_run:
        if args.batch:
            from ..runners.batch import BATCH_DISCOUNT, batch_pricing

            pricing = batch_pricing(pricing)
        est = estimate_run(
            bank,
            args.model,
            args.out,
            base_url=args.base_url,
            trials=args.trials,
            settings=settings,
            pricing=pricing,
            condition=condition,
            protocol=protocol,
            prompt=prompt,
        )
        say(
            _estimate_text(est)
            + (
                f" at batch prices ({BATCH_DISCOUNT:g} x --price-in/--price-out)"
                if args.batch and pricing.priced
                else ""
            )
        )
        _protocol_note(protocol)
        return 0
    policy = RetryPolicy(
        max_retries=args.max_retries,
        max_rate_limit_retries=args.max_rate_limit_retries,
        base_delay=args.backoff,
        max_delay=max(60.0, args.backoff),
    )
    if args.batch:
        from ..runners.batch import run_batch

        with progress(f"run --batch {condition}", None, RUN_UNIT) as shown:
            update = run_progress(shown, pricing.priced)
            summary = run_batch(
                bank,
                args.model,
                args.out,
                base_url=args.base_url,
                trials=args.trials,
                timeout=args.timeout,
                policy=policy,
                settings=settings,
                pricing=pricing,
                budget=args.budget,
                poll_interval=args.poll_interval,
                progress=update,
                condition=condition,
                prompt=prompt,
            )
        return _finish(args, summary, condition)
    with progress(f"run {condition}", None, RUN_UNIT) as shown:
        update = run_progress(shown, pricing.priced)
        # --seed is also the sampling seed here; unset, the jitter keeps its old seed 0.
        summary = run_model(
            bank,
            args.model,
            args.out,
            base_url=args.base_url,
            trials=args.trials,
            max_connections=args.max_connections,
            timeout=args.timeout,
            policy=policy,
            settings=settings,
            pricing=pricing,
            budget=args.budget,
            seed=args.seed or 0,
            progress=update,
            notify=lambda message: say(message, err=True),
            condition=condition,
            rpm=args.rpm,
            tpm=args.tpm,
            protocol=protocol,
            prompt=prompt,
        )
    return _finish(args, summary, condition)


RUN_UNIT = "trials finished"  # answered or given up: the count the percentage is of


def run_progress(shown, priced: bool):
    """The runners' tallies as a run's progress shows them: ``failed`` trials ended without an answer (their
    retries spent, or a fatal error), and a cost only when a price was given (else it is always $0)."""

    def update(done, total=None, **counts):
        counts = {
            ("without_an_answer" if name == "failed" else name): value
            for name, value in counts.items()
            if priced or name != "spent_usd"
        }
        shown(done, total, **counts)

    return update


def _finish(args: argparse.Namespace, summary, condition: str) -> int:
    """Print the summary, and why trials have no answer; the exit status (README's table)."""
    say(_summary_text(summary))
    _report_torn(summary, args.out)
    for text in summary.tracebacks:  # a bug: each attempt it hit is logged as a failure of kind "unexpected"
        say(text.rstrip("\n"), err=True)
    if summary.tracebacks:
        say(
            f"{count(len(summary.tracebacks), 'attempt')} met an unexpected error, a bug in fastspe (please report it with "
            f"the traceback above); each is logged as a failed attempt of kind unexpected",
            err=True,
        )
    if summary.fatal_error:
        raise UserError(f"{condition}: {summary.fatal_error}")
    if summary.interrupted:
        say("interrupted; run the same command again to resume", err=True)
        return EXIT_INTERRUPTED
    code = 0
    if summary.budget_exhausted:
        # (not "not sent": a failed trial, or a conversation stopped between turns, was sent and paid for)
        say(
            f"budget of ${args.budget:.2f} reached; {count(summary.remaining, 'trial')} "
            f"{plural(summary.remaining, 'has')} no answer",
            err=True,
        )
        code = EXIT_INCOMPLETE
    elif summary.remaining:
        say(
            f"{count(summary.remaining, 'trial')} {plural(summary.remaining, 'has')} no answer yet; "
            "run the same command again to retry them",
            err=True,
        )
        if summary.last_errors:
            say(_why_text(summary), err=True)
        code = EXIT_INCOMPLETE
    return EXIT_BUG if summary.tracebacks else code


def _why_text(summary) -> str:
    """Why trials have no answer: the last error of each kind met, with how often it was met."""
    lines = ["why: the last error of each kind"]
    for kind, message in sorted(summary.last_errors.items()):
        lines.append(f"  {kind} ({summary.failures.get(kind, 0)}x): {message}")
    return "\n".join(lines)


def _settings(args: argparse.Namespace):
    from ..runners.generation import GenerationSettings

    return GenerationSettings(
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        top_p=args.top_p,
        seed=args.seed,
        stop=args.stop,
        reasoning_effort=args.reasoning_effort,
        thinking_budget=args.thinking_budget,
        extra_body=args.extra_body,
    )


# Options that only shape requests to a model; a baseline planner sends none.
MODEL_ONLY = (
    "temperature",
    "max_tokens",
    "top_p",
    "stop",
    "reasoning_effort",
    "thinking_budget",
    "extra_body",
    "base_url",
    "budget",
    "rpm",
    "tpm",
)


def _refuse_model_options(args: argparse.Namespace) -> None:
    given = [f"--{name.replace('_', '-')}" for name in MODEL_ONLY if getattr(args, name) not in (None, [], {})]
    if given:
        raise UserError(
            f"{', '.join(given)} only apply to model APIs; baseline planners send no requests "
            f"(their only setting is --seed)"
        )


def _prompt_spec(args: argparse.Namespace, provider: str):
    """The prompt the options ask for; None for a baseline planner, which is asked nothing (the options refused)."""
    if provider != "baseline":
        return prompt_spec_of(args)
    given = [
        name
        for name, default in (("--prompt", "paper"), ("--system", None), ("--shots", 0), ("--shots-bank", None))
        if getattr(args, name[2:].replace("-", "_")) != default
    ]
    if given:
        raise UserError(f"{', '.join(given)} only apply to model APIs; baseline planners are asked no prompt")
    return None


def _report_torn(summary, out) -> None:
    if summary.skipped_log_lines:
        say(
            f"note: {count(summary.skipped_log_lines, 'torn line')} left by a stopped run in {out} "
            f"{plural(summary.skipped_log_lines, 'was')} skipped "
            f"(left in place)",
            err=True,
        )


def _estimate_text(est) -> str:
    lines = [
        f"{est.condition}: {count(est.requests, 'request')} to send ({est.already_complete} of "
        f"{count(est.planned, 'trial')} "
        f"already complete)",
        f"settings sent: {est.settings.sent()}",
        f"input tokens: about {est.input_tokens_estimate:,} (at most {est.input_tokens_upper:,})",
    ]
    if est.output_tokens_upper is not None:
        lines.append(
            f"output tokens: at most {est.output_tokens_upper:,} (--max-tokens per request, reasoning tokens included)"
        )
    if est.cost_estimate_usd is not None:
        upper = f"${est.cost_upper_usd:.4f}" if est.cost_upper_usd is not None else "unbounded without --max-tokens"
        lines.append(f"cost: input about ${est.cost_estimate_usd:.4f}; at most {upper} in all (before retries)")
    else:
        lines.append("cost: give --price-in/--price-out (dollars per million tokens) for an estimate")
    return "\n".join(lines)


def _summary_text(s) -> str:
    failures = ", ".join(f"{k}: {v}" for k, v in sorted(s.failures.items())) or "none"
    cost = f", spent ${s.spent_usd:.4f} in all" if s.spent_usd else ""
    paced = f", {count(s.paced, 'send')} paced by rate limits" if s.paced else ""
    batches = getattr(s, "batches", None)
    if batches:
        paced += ", batches " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in batches.items())
    return (
        f"{s.condition}: {count(s.planned, 'trial')}, {s.already_complete:,} already complete, {s.requested:,} "
        f"sent, {s.completed:,} answered, {s.remaining:,} without an answer; {count(s.attempts, 'attempt')}, "
        f"failures {failures}{cost}{paced}. Settings sent: {s.settings.sent() if s.settings else 'none'}. Log: {s.out}"
    )
