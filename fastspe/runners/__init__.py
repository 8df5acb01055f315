"""Runners: answer a bank with a model API or an offline baseline, into an append-only run log.

``run_model`` (OpenAI-compatible or Anthropic servers through the official SDKs), ``run_baseline``
(offline planners) and ``estimate_run`` (a dry run) all share the log format of ``log.RunLog``:
one JSON line per attempt with ``status`` "ok" or "error" ("turn" for an answered turn that does not end a
multi-turn protocol's conversation, ``fastspe.protocols``). ``run_batch`` answers through the providers'
batch APIs at half price (``BATCH_DISCOUNT``), into the same log. ``export_prompts`` writes the requests a run
would send, for an engine outside fastspe.
"""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .base import Completion
    from .batch import BATCH_DISCOUNT, BatchSummary, run_batch
    from .cost import Budget, Pricing
    from .engine import estimate_run, plan_trials, run_baseline, run_model, RunEstimate
    from .export import export_prompts
    from .generation import default_condition, GenerationSettings, split_model
    from .log import completed_trial_ids, read_run_log, RunLog
    from .records import RunSummary, Trial, trial_id
    from .retry import AdaptiveLimiter, AttemptError, RetryPolicy
    from .sample import sample_bank

# loaded on first use, so that the CLI's option parsing (which needs ``generation``) imports no SDK or pandas
_NAMES = {
    "Completion": "base",
    "GenerationSettings": "generation",
    "split_model": "generation",
    "BATCH_DISCOUNT": "batch",
    "BatchSummary": "batch",
    "run_batch": "batch",
    "Budget": "cost",
    "Pricing": "cost",
    "RunEstimate": "engine",
    "estimate_run": "engine",
    "plan_trials": "engine",
    "run_baseline": "engine",
    "run_model": "engine",
    "default_condition": "generation",
    "export_prompts": "export",
    "RunSummary": "records",
    "Trial": "records",
    "trial_id": "records",
    "RunLog": "log",
    "completed_trial_ids": "log",
    "read_run_log": "log",
    "sample_bank": "sample",
    "AdaptiveLimiter": "retry",
    "AttemptError": "retry",
    "RetryPolicy": "retry",
}
__all__ = [
    "AdaptiveLimiter",
    "AttemptError",
    "BATCH_DISCOUNT",
    "BatchSummary",
    "Budget",
    "completed_trial_ids",
    "Completion",
    "default_condition",
    "estimate_run",
    "export_prompts",
    "GenerationSettings",
    "plan_trials",
    "Pricing",
    "read_run_log",
    "RetryPolicy",
    "run_baseline",
    "run_batch",
    "run_model",
    "RunEstimate",
    "RunLog",
    "RunSummary",
    "sample_bank",
    "split_model",
    "Trial",
    "trial_id",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
