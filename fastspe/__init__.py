"""fastspe: verifiable efficiency limits of innate LLM planning on sliding puzzles.

Certified board banks, verified replay of model plans, the SPE = R x Q x E metrics with
stratified bootstrap intervals, and reports, over a Numba-compiled core.
"""

__version__ = "0.1.0"
