"""Numbers from verdicts: the paper's metrics, bootstrap intervals, paired comparisons, what a protocol fixes and the
run history.
"""

from .._names import lazy_face

_NAMES = {
    "Comparison": "compare", "SignTest": "compare", "verdict": "compare", "sign_test_p": "compare",
    "bootstrap_p_values": "compare", "holm": "compare", "summary_json": "compare", "DEFAULT_METRICS": "compare",
    "DEFAULT_MARGIN": "compare", "REGRESSION": "compare", "IMPROVEMENT": "compare", "NO_CHANGE": "compare",
    "ParameterError": "history", "store_path": "history", "bank_hash": "history", "History": "history",
    "paired_runs": "history",
    "PackedSums": "intervals", "BootstrapDraws": "intervals", "pack_sums": "intervals", "draw_indices": "intervals",
    "draw_range": "intervals", "bootstrap_draws": "intervals", "interval_table": "intervals",
    "paired_differences": "intervals", "bootstrap_intervals": "intervals", "board_sums": "metrics",
    "metrics_from_sums": "metrics", "compute_metrics": "metrics",
    "ToolEffect": "protocol_effect", "tool_effect": "protocol_effect", "protocol_effects": "protocol_effect",
    "tool_effect_json": "protocol_effect", "UNAIDED": "protocol_names", "condition_protocols": "protocol_names",
    "protocol_pairs": "protocol_names",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
