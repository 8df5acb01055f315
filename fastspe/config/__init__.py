"""Every environment variable fastspe reads, in one list: its name, what it does and its default.

The code reads each variable where it is used (so that reading one costs no import); this list is what the docs'
reference page is generated from, and ``tests/test_docs_config.py`` fails when a ``FASTSPE_*`` name appears
anywhere in ``fastspe/`` without an entry here. A package rather than a module: ``fastspe/`` keeps at most eight
top-level modules (tests/test_house.py).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Variable", "VARIABLES", "OTHER_VARIABLES", "variable"]


class Variable(NamedTuple):
    """One environment variable: ``name``, its ``default`` (as text; "" when there is none) and what it does
    (``meaning``). Where it is read is found in the code (the docs' hook searches for the name), not kept here."""

    name: str
    default: str
    meaning: str


VARIABLES: tuple[Variable, ...] = (
    Variable(
        "FASTSPE_PROGRESS",
        "auto",
        "How stages that take more than a few seconds show progress: `bar` (a live bar), `lines` (a plain line every "
        "`FASTSPE_PROGRESS_SECONDS`, with counts, rate and ETA, and a closing line), `off`, or `auto` (a bar "
        "on a terminal, lines otherwise: nohup, SLURM, CI, a pipe). Any other value is an `error:` line.",
    ),
    Variable("FASTSPE_PROGRESS_SECONDS", "5", "Seconds between two progress lines in `lines` mode (a number > 0)."),
    Variable(
        "FASTSPE_NUMBA_CACHE",
        "1",
        "`0`, `false`, `no` or `off` turns the on-disk cache of compiled kernels off (read-only installs, "
        "debugging): every process then compiles what it uses. `fastspe cache info` says whether it is on.",
    ),
    Variable(
        "FASTSPE_PDB_DIR",
        "$XDG_CACHE_HOME/fastspe/pdb/v2 (~/.cache/...)",
        "The folder of the exact solver's pattern-database files (`fastspe solve`, search-certified bank "
        "cells). A folder that cannot be written makes the tables be built in memory, with one warning.",
    ),
    Variable(
        "FASTSPE_HISTORY",
        "./fastspe-history",
        "The history store folder of `fastspe history` when `--store` is not given.",
    ),
    Variable(
        "FASTSPE_WORKER_THREADS",
        "(set by fastspe)",
        "Internal: a local worker's share of the cores, set by `--workers N` in each worker's environment "
        "(cores // N) for Numba's parallel kernels. Not meant to be set by hand.",
    ),
)

# Variables of other tools that fastspe reads or sets, listed so that the reference page has them all in one place.
OTHER_VARIABLES: tuple[Variable, ...] = (
    Variable(
        "OPENAI_API_KEY",
        "",
        "The key of `--model openai:...` runs; keys are read from the environment only, "
        "never from a file or an option, and never written anywhere.",
    ),
    Variable("ANTHROPIC_API_KEY", "", "The key of `--model anthropic:...` runs (as `OPENAI_API_KEY`)."),
    Variable(
        "OPENAI_BASE_URL",
        "https://api.openai.com/v1",
        "The OpenAI-compatible server when `--base-url` is not given (with `/v1`).",
    ),
    Variable(
        "ANTHROPIC_BASE_URL",
        "https://api.anthropic.com",
        "The Anthropic-compatible server when `--base-url` is not given (without `/v1`).",
    ),
    Variable(
        "NUMBA_CACHE_DIR",
        "",
        "When set, compiled kernels are cached in `$NUMBA_CACHE_DIR/fastspe/VERSION-cN` instead of the user "
        "cache folder.",
    ),
    Variable(
        "NUMBA_NUM_THREADS",
        "the number of cores",
        "The threads of the parallel kernels (a whole number from 1 up); results do not depend on it.",
    ),
    Variable(
        "XDG_CACHE_HOME", "~/.cache", "The base of fastspe's cache folders (compiled kernels, pattern databases)."
    ),
    Variable(
        "MIMALLOC_PURGE_DELAY",
        "0 (set by fastspe unless given)",
        "pyarrow's allocator: fastspe sets it to 0 (hand freed pages back at once) for every command but "
        "`score`; a value you set wins.",
    ),
)


def variable(name: str) -> Variable:
    """The entry of ``name`` (a ``KeyError`` naming it when fastspe does not read it)."""
    for entry in VARIABLES + OTHER_VARIABLES:
        if entry.name == name:
            return entry
    raise KeyError(f"{name} is not an environment variable fastspe reads")
