"""From answers to verdicts: the reference parser, the column parser, the verdict table and the reward API."""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .parse_column import MODE_NAMES
    from .parse_reference import parse_answer, parse_answers, ParsedPlan
    from .rewards import reward, Rewards, RewardScorer, STATUS_NAMES
    from .score import score_file, score_responses, ScoreSummary

_NAMES = {
    "MODE_NAMES": "parse_column",
    "ParsedPlan": "parse_reference",
    "parse_answer": "parse_reference",
    "parse_answers": "parse_reference",
    "Rewards": "rewards",
    "RewardScorer": "rewards",
    "reward": "rewards",
    "STATUS_NAMES": "rewards",
    "ScoreSummary": "score",
    "score_responses": "score",
    "score_file": "score",
}
__all__ = [
    "MODE_NAMES",
    "parse_answer",
    "parse_answers",
    "ParsedPlan",
    "reward",
    "Rewards",
    "RewardScorer",
    "score_file",
    "score_responses",
    "ScoreSummary",
    "STATUS_NAMES",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
