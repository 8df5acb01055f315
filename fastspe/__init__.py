"""fastspe: verifiable efficiency limits of innate LLM planning, on sliding puzzles and any other certified domain.

Certified board banks, verified replay of model plans, the SPE = R x Q x E metrics with
stratified bootstrap intervals, and reports, over a Numba-compiled core.

The researcher's verbs are here, one import away (each loads numba and pandas on first use only)::

    import fastspe

    bank = fastspe.build_bank("paper")                        # or fastspe.read_bank("bank.parquet")
    answers = fastspe.baseline_responses(bank, "greedy", trials=3, seed=0)
    verdicts = fastspe.score_responses(bank, answers)         # or fastspe.score_file(bank, "run.jsonl", "v.parquet")
    print(fastspe.compute_metrics(verdicts, by=["cohort", "condition", "depth"]))
    print(fastspe.bootstrap_intervals(verdicts))
    fastspe.write_report(bank, verdicts, "report/")

Banks: ``build_bank``, ``read_bank``, ``write_bank``, ``load_bank``. Answers: ``baseline_responses``,
``read_responses``. Scoring: ``score_responses``, ``score_file``, ``read_verdicts``, ``write_verdicts``. Numbers:
``compute_metrics``, ``board_sums``, ``bootstrap_intervals``, ``compare``. The report: ``write_report``. Training
loops: ``RewardScorer``, ``reward``; a bank as ``{question, answer, metadata}`` items: ``BankItems``,
``score_answer``; a bank as a Hugging Face dataset folder: ``export_hub``. Optimal plans: ``solve`` (any domain's, as ``fastspe solve`` prints them; a
domain's face has its typed solver too, ``fastspe.domains.sliding.solve``). ``domain_names()`` lists the installed
domains. The subpackages (``fastspe.stats``, ``fastspe.report``, ...) are
faces too; module paths below them are not part of the API.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Callable

from . import _names
from .errors import FastspeError, UserError, UserTypeError

__version__ = "0.2.0"

_names.install()  # fastspe 0.1's flat module paths keep working, with a DeprecationWarning

if TYPE_CHECKING:  # what type checkers and IDEs see: the very objects __getattr__ hands out
    import pandas as pd

    from .boundary.banks import Bank, load_bank, read_bank, write_bank
    from .boundary.responses import read_responses
    from .boundary.verdict_files import read_verdicts, write_verdicts
    from .boundary.verdicts import Verdicts
    from .domains.contract import Design
    from .hub.export import HubExport, export_hub
    from .hub.items import BankItems, score_answer
    from .report.write import write_report
    from .scoring.rewards import RewardScorer, Rewards, reward
    from .scoring.score import ScoreSummary, score_file, score_responses
    from .stats.compare import Comparison, compare
    from .stats.intervals import bootstrap_intervals
    from .stats.metrics import board_sums, compute_metrics

# name -> its module, imported on first use so that ``import fastspe`` (and ``fastspe --help``) loads neither numba
# nor pandas; the TYPE_CHECKING block above imports the same names (tests/test_face.py checks they agree)
_LAZY = {
    "Bank": "boundary.banks",
    "load_bank": "boundary.banks",
    "read_bank": "boundary.banks",
    "write_bank": "boundary.banks",
    "read_responses": "boundary.responses",
    "read_verdicts": "boundary.verdict_files",
    "write_verdicts": "boundary.verdict_files",
    "Verdicts": "boundary.verdicts",
    "write_report": "report.write",
    "RewardScorer": "scoring.rewards",
    "Rewards": "scoring.rewards",
    "reward": "scoring.rewards",
    "ScoreSummary": "scoring.score",
    "score_file": "scoring.score",
    "score_responses": "scoring.score",
    "Comparison": "stats.compare",
    "compare": "stats.compare",
    "bootstrap_intervals": "stats.intervals",
    "board_sums": "stats.metrics",
    "compute_metrics": "stats.metrics",
    "export_hub": "hub.export",
    "HubExport": "hub.export",
    "BankItems": "hub.items",
    "score_answer": "hub.items",
}
__all__ = [
    "Bank",
    "BankItems",
    "baseline_responses",
    "board_sums",
    "bootstrap_intervals",
    "build_bank",
    "compare",
    "Comparison",
    "compute_metrics",
    "domain_names",
    "export_hub",
    "FastspeError",
    "HubExport",
    "load_bank",
    "read_bank",
    "read_responses",
    "read_verdicts",
    "reward",
    "Rewards",
    "RewardScorer",
    "score_answer",
    "score_file",
    "score_responses",
    "ScoreSummary",
    "solve",
    "UserError",
    "UserTypeError",
    "Verdicts",
    "__version__",
    "write_bank",
    "write_report",
    "write_verdicts",
]

if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have

    def __getattr__(name: str) -> object:
        import importlib

        if name in _LAZY:
            value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
            globals()[name] = value  # once imported, an ordinary attribute
            return value
        if f"{__name__}.{name}" in _names.MOVED:  # ``fastspe.score`` as an attribute, the 0.1 way
            return importlib.import_module(f"{__name__}.{name}")
        return _moved(name)


__dir__ = _names.face_dir(__all__)


_moved = _names.moved_names(__name__, _names.MOVED_NAMES[__name__])


def domain_names() -> list[str]:
    """The names of the installed planning domains (fastspe's own and plugins'), the default first."""
    from .domains.registry import domain_names as names

    return list(names())


def build_bank(
    design: str | os.PathLike[str] | Design | None = None,
    *,
    domain: str | None = None,
    seed: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Build the certified bank of a design, as ``fastspe bank build`` does, into a DataFrame.

    Parameters
    ----------
    design : a design name of the domain (``"paper"``, the paper's Appendix A, for the default domain), a design JSON
        file, a design the domain made (``Domain.load_design``), or None for the domain's default design
    domain : the domain's name (``domain_names()``; default: the default domain)
    seed : the design's seed instead of its own (with a name or file only)
    progress : called as ``progress(rows_done, rows_in_all)`` while rows are made

    Returns the bank with its domain in ``attrs``: ``write_bank`` writes it, ``score_responses`` scores against it.
    The rows are the same as ``fastspe bank build``'s for the same design and seed.
    """
    import pyarrow as pa

    from .boundary.banks import bank_frame
    from .domains.registry import DEFAULT_DOMAIN, domain_named

    if domain is not None and not isinstance(domain, str):
        raise UserTypeError(f"domain must be a domain name (str), got {type(domain).__name__}")
    chosen = domain_named(domain or DEFAULT_DOMAIN)
    if design is None or isinstance(design, (str, os.PathLike)):
        made = chosen.load_design(None if design is None else os.fspath(design), seed=seed)
    elif isinstance(getattr(design, "total", None), int) and isinstance(getattr(design, "seed", None), int):
        if seed is not None:
            raise UserError("seed goes with a design name or file; a design object carries its own seed")
        made = design
    else:
        raise UserTypeError(
            f"design must be a design name, a design file or a design object, got {type(design).__name__}"
        )
    pieces = list(chosen.bank_pieces(made, progress or (lambda *done: None)))
    frame: pd.DataFrame = bank_frame(pa.concat_tables(pieces).combine_chunks(), chosen)  # its domain in attrs
    return frame


def baseline_responses(bank: pd.DataFrame | Bank, planner: str, trials: int = 3, seed: int = 0) -> pd.DataFrame:
    """Answers of an offline baseline planner to every row of a bank, by the bank's domain's planners.

    Parameters
    ----------
    bank : a bank (``build_bank``, ``read_bank``, ``load_bank``)
    planner : one of the domain's planners (the default domain's: ``greedy``, ``random``, ``optimal``, ...)
    trials, seed : answers per board and the seed of the random planners (each board's answers depend only on the
        seed and the board)

    Returns ``board_id, condition, trial, response`` per (board, trial), in bank order: ``score_responses`` takes it.
    """
    from .boundary.banks import as_bank

    if not isinstance(planner, str):
        raise UserTypeError(f"planner must be a planner's name (str), got {type(planner).__name__}")
    checked = as_bank(bank)
    answers: pd.DataFrame = checked.domain.baseline_responses(checked.frame, planner, trials, seed)
    return answers


class _Quiet:
    """The ``Ui`` of a solve from Python: no progress display, no lines; a domain's warning is a Python warning."""

    def say(self, text: str, err: bool = False) -> None:
        pass

    def warn(self, text: str) -> None:
        warnings.warn(text, stacklevel=3)

    @contextlib.contextmanager
    def progress(self, stage: str, total: int | None, unit: str) -> Iterator[Callable[..., None]]:
        yield lambda *done, **counts: None


def solve(
    *,
    domain: str | None = None,
    max_nodes: int | None = None,
    **state: str | int | Sequence[int] | os.PathLike[str] | None,
) -> dict[str, object]:
    """An optimal plan of one state by its domain's exact solver: the JSON object ``fastspe solve`` prints.

    Parameters
    ----------
    domain : the domain's name (``domain_names()``; default: the default domain)
    max_nodes : give up after this many search nodes (``SearchLimit``; default: the domain's)
    state : the domain's ``fastspe solve`` options by name (``fastspe solve --help``): the default domain's ``board``
        (its cells, row-major, 0 the blank and -1 a blocked cell: a list or a string), ``rows``, ``cols``,
        ``blocks``, ``goal`` (``blank-last`` or ``blank-first``), ``heuristic``; another domain's own
        (``fastspe solve --domain NAME --help``)

    Returns ``length``, ``moves`` and the solver's other fields, as ``fastspe solve`` prints them.
    """
    from argparse import Namespace

    from .domains.registry import DEFAULT_DOMAIN, domain_named

    if domain is not None and not isinstance(domain, str):
        raise UserTypeError(f"domain must be a domain name (str), got {type(domain).__name__}")
    chosen = domain_named(domain or DEFAULT_DOMAIN)
    if not chosen.solver:
        raise UserError(f"the {chosen.name} domain has no solver")
    options = {option.dest: option.kwargs.get("default") for option in chosen.options("solve")}
    unknown = sorted(set(state) - set(options))
    if unknown:
        raise UserTypeError(
            f"{unknown[0]} is not a solve option of the {chosen.name} domain; it takes {', '.join(options) or 'none'}"
        )
    given = {
        name: " ".join(map(str, value))
        if isinstance(value, (list, tuple))
        else os.fspath(value)
        if isinstance(value, os.PathLike)
        else value
        for name, value in state.items()
    }
    args = Namespace(domain=chosen.name, max_nodes=max_nodes, input=None, out=None, **{**options, **given})
    return dict(chosen.solve(args, _Quiet()))
