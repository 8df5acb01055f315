"""fastspe: verifiable efficiency limits of innate LLM planning, on sliding puzzles and any other certified domain.

Certified board banks, verified replay of model plans, the SPE = R x Q x E metrics with
stratified bootstrap intervals, and reports, over a Numba-compiled core.
"""

__version__ = "0.1.0"

from . import _names

_names.install()  # fastspe 0.1's flat module paths keep working, with a DeprecationWarning

# The in-memory reward API, imported on first use so that ``import fastspe`` (and ``fastspe --help``) loads neither
# numba nor pandas.
_LAZY = {"reward": "scoring.rewards", "RewardScorer": "scoring.rewards", "Rewards": "scoring.rewards"}
__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    if f"{__name__}.{name}" in _names.MOVED:  # ``fastspe.score`` as an attribute, the 0.1 way
        return importlib.import_module(f"{__name__}.{name}")
    return _moved(name)


_moved = _names.moved_names(__name__, _names.MOVED_NAMES[__name__])
