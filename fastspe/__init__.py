"""fastspe: verifiable efficiency limits of innate LLM planning on sliding puzzles.

Certified board banks, verified replay of model plans, the SPE = R x Q x E metrics with
stratified bootstrap intervals, and reports, over a Numba-compiled core.
"""

__version__ = "0.1.0"

# The in-memory reward API and the exact solver, imported on first use so that ``import fastspe`` (and ``fastspe --help``)
# loads neither numba nor pandas.
_LAZY = {"reward": "rewards", "RewardScorer": "rewards", "Rewards": "rewards", "solve": "solver"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
