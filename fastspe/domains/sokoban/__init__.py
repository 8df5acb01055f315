"""Sokoban: XSB levels, the room and its push distances, the packed bank, the prompt and the domain object.
"""

from ..._names import lazy_face

_NAMES = {"Level": "level", "parse_level": "level"}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
