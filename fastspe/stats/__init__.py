"""Numbers from verdicts: the paper's metrics, bootstrap intervals, paired comparisons, what a protocol fixes and the
run history. (``compare``, the paired comparison, is ``fastspe.compare``: here the name is its module's.)
"""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .compare import Comparison, SignTest
    from .history import History, paired_runs
    from .intervals import (
        bootstrap_draws,
        bootstrap_intervals,
        BootstrapDraws,
        interval_table,
        pack_sums,
        PackedSums,
        paired_differences,
    )
    from .metrics import board_sums, compute_metrics, metrics_from_sums
    from .protocol_effect import protocol_effects, tool_effect, ToolEffect
    from .protocol_names import protocol_pairs

_NAMES = {
    "Comparison": "compare",
    "SignTest": "compare",
    "History": "history",
    "paired_runs": "history",
    "PackedSums": "intervals",
    "BootstrapDraws": "intervals",
    "pack_sums": "intervals",
    "bootstrap_draws": "intervals",
    "interval_table": "intervals",
    "paired_differences": "intervals",
    "bootstrap_intervals": "intervals",
    "board_sums": "metrics",
    "metrics_from_sums": "metrics",
    "compute_metrics": "metrics",
    "ToolEffect": "protocol_effect",
    "tool_effect": "protocol_effect",
    "protocol_effects": "protocol_effect",
    "protocol_pairs": "protocol_names",
}
__all__ = [
    "board_sums",
    "bootstrap_draws",
    "bootstrap_intervals",
    "BootstrapDraws",
    "Comparison",
    "compute_metrics",
    "History",
    "interval_table",
    "metrics_from_sums",
    "pack_sums",
    "PackedSums",
    "paired_differences",
    "paired_runs",
    "protocol_effects",
    "protocol_pairs",
    "SignTest",
    "tool_effect",
    "ToolEffect",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
