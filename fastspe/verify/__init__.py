"""The independent verdict verifier: plain Python that shares nothing with the parsers or the kernels (each domain's
own replay and bank verifiers are its ``Domain.verifier`` and ``Domain.verify_bank``).
"""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .answer_format import parse_plan
    from .verdicts import compare_verdicts, Difference, FIELDS, rederive, verify_verdicts_files

_NAMES = {
    "FIELDS": "verdicts",
    "Difference": "verdicts",
    "parse_plan": "answer_format",
    "rederive": "verdicts",
    "compare_verdicts": "verdicts",
    "verify_verdicts_files": "verdicts",
}
__all__ = ["compare_verdicts", "Difference", "FIELDS", "parse_plan", "rederive", "verify_verdicts_files"]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
