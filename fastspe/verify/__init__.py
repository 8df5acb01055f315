"""The independent verifiers: plain Python that shares nothing with the kernels, for banks and for verdicts
(the sliding puzzle's, and Sokoban's replay).
"""

from .._names import lazy_face

_NAMES = {
    "verify_bank": "bank", "Optimality": "optimal", "optimality": "optimal", "check_prove_ids": "optimal",
    "shorter_plan": "optimal", "FIELDS": "verdicts", "Board": "verdicts", "Difference": "verdicts",
    "bank_boards": "verdicts", "parse_plan": "answer_format", "replay": "verdicts", "rederive": "verdicts",
    "compare_verdicts": "verdicts", "verify_verdicts_files": "verdicts", "SokobanRoom": "sokoban_replay",
    "SokobanBoard": "sokoban_replay", "bank_levels": "sokoban_replay", "replay_sokoban": "sokoban_replay",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
