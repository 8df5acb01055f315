"""From answers to verdicts: the reference parser, the column parser, the verdict table and the reward API.
"""

from .._names import lazy_face

_NAMES = {
    "MODE_EXACT": "parse_column", "MODE_NORMALIZED": "parse_column", "MODE_NO_PLAN": "parse_column",
    "MODE_NAMES": "parse_column", "ParsedColumn": "parse_column", "moves_strings": "parse_column",
    "ParsedPlan": "parse_reference", "parse_answer": "parse_reference", "parse_answers": "parse_reference",
    "Rewards": "rewards", "RewardScorer": "rewards", "reward": "rewards", "STATUS_NAMES": "rewards",
    "ScoreSummary": "score", "bank_tables": "score",
    "encode_moves": "score", "score_responses": "score", "score_file": "score",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
