"""What makes a domain: its layout and state packing, goal, moves and error kinds, heuristic, prompt and strata.

The sliding puzzle (``domains.sliding``) is the first; domains know nothing of files, runs or reports.
"""

from .._names import lazy_face

_NAMES = {"Domain": "base", "Packed": "base", "domain_named": "registry", "domain_of": "registry"}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
