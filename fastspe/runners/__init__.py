"""Runners: answer a bank with a model API or an offline baseline, into an append-only run log.

``run_model`` (OpenAI-compatible or Anthropic servers through the official SDKs), ``run_baseline``
(offline planners) and ``estimate_run`` (a dry run) all share the log format of ``log.RunLog``:
one JSON line per attempt with ``status`` "ok" or "error". ``run_batch`` answers through the providers'
batch APIs at half price (``BATCH_DISCOUNT``), into the same log.
"""

from .base import Completion, GenerationSettings, api_key_from_env, split_model
from .batch import BATCH_DISCOUNT, BatchSummary, run_batch
from .cost import Budget, Pricing
from .engine import (PROVIDERS, RunEstimate, RunSummary, Trial, estimate_run, plan_trials, run_baseline, run_model,
                     trial_id)
from .log import LogScan, RunLog, completed_trial_ids, read_run_log, scan_run_log
from .retry import AdaptiveLimiter, AttemptError, RetryPolicy

__all__ = ["AdaptiveLimiter", "AttemptError", "BATCH_DISCOUNT", "BatchSummary", "Budget", "Completion",
           "GenerationSettings", "LogScan", "PROVIDERS", "Pricing", "RetryPolicy", "RunEstimate", "RunLog",
           "RunSummary", "Trial", "api_key_from_env", "completed_trial_ids", "estimate_run", "plan_trials",
           "read_run_log", "run_baseline", "run_batch", "run_model", "scan_run_log", "split_model", "trial_id"]
