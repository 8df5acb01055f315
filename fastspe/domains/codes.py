"""The codes every domain shares, defined once below everything that uses them (kernels import them as globals).

Status codes: 0 ``complete``, 1 ``legal_noncompletion``, 2 ``illegal``. Error codes: 0 none, 3 ``invalid_action``
(a token that is not one of the domain's actions), 4 ``format`` (scoring's: an answer with no plan); the codes 1, 2
and 5 upwards are a domain's own kinds of illegal move (the sliding puzzle's ``boundary`` and ``obstacle``), named by
its ``Domain.error_names``.
"""

from __future__ import annotations

__all__ = [
    "COMPLETE",
    "LEGAL_NONCOMPLETION",
    "ILLEGAL",
    "STATUS_NAMES",
    "NO_ERROR",
    "INVALID_ACTION",
    "FORMAT",
    "SHARED_ERRORS",
    "SHARED_ERROR_CODES",
    "SHARED_REASONS",
]

COMPLETE, LEGAL_NONCOMPLETION, ILLEGAL = 0, 1, 2
STATUS_NAMES = ("complete", "legal_noncompletion", "illegal")
NO_ERROR, INVALID_ACTION, FORMAT = 0, 3, 4
SHARED_ERRORS = {NO_ERROR: "", INVALID_ACTION: "invalid_action", FORMAT: "format"}
SHARED_ERROR_CODES = tuple(SHARED_ERRORS)
# why an action is illegal, in words, for the error kinds every domain shares (a domain adds its own:
# ``Domain.error_reasons``); the viewer's traces and the protocols' playouts say the same words
SHARED_REASONS = {"invalid_action": "invalid action", "format": "no move list in the answer"}
