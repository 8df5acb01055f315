"""The independent verdict verifier: plain Python that shares nothing with the parsers or the kernels (each domain's
own replay and bank verifiers are its ``Domain.verifier`` and ``Domain.verify_bank``).
"""

from .._names import lazy_face

_NAMES = {
    "FIELDS": "verdicts", "Difference": "verdicts", "parse_plan": "answer_format", "rederive": "verdicts",
    "compare_verdicts": "verdicts", "verify_verdicts_files": "verdicts",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
