"""Runners: answer a bank with a model API or an offline baseline, into an append-only run log.

``run_model`` (OpenAI-compatible or Anthropic servers through the official SDKs), ``run_baseline``
(offline planners) and ``estimate_run`` (a dry run) all share the log format of ``log.RunLog``:
one JSON line per attempt with ``status`` "ok" or "error" ("turn" for an answered turn that does not end a
multi-turn protocol's conversation, ``fastspe.protocols``). ``run_batch`` answers through the providers'
batch APIs at half price (``BATCH_DISCOUNT``), into the same log. ``export_prompts`` writes the requests a run
would send, for an engine outside fastspe.
"""

from .._names import lazy_face

# loaded on first use, so that the CLI's option parsing (which needs ``generation``) imports no SDK or pandas
_NAMES = {
    "Completion": "base", "api_key_from_env": "base", "GenerationSettings": "generation", "split_model": "generation",
    "BATCH_DISCOUNT": "batch", "BatchSummary": "batch", "run_batch": "batch", "Budget": "cost", "Pricing": "cost",
    "PROVIDERS": "engine", "RunEstimate": "engine", "RunRequest": "engine", "estimate_run": "engine",
    "plan_trials": "engine", "run_baseline": "engine", "run_model": "engine", "default_condition": "generation",
    "export_prompts": "export",
    "RunSummary": "records", "Trial": "records", "trial_id": "records", "Sender": "sender",
    "LogScan": "log", "RunLog": "log", "completed_trial_ids": "log", "read_run_log": "log", "scan_run_log": "log",
    "cell_quotas": "sample", "sample_bank": "sample", "AdaptiveLimiter": "retry", "AttemptError": "retry", "RetryPolicy": "retry",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
