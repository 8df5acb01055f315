"""Sokoban: XSB levels, the room and its push distances, banks certified by the exact solver, the replay kernel, the
baselines, the independent verifiers, the prompt and the viewer (``domain.SokobanDomain`` says which module does
what).
"""

from ..._names import lazy_face

_NAMES = {
    "Level": "level",
    "parse_level": "level",
    "LevelTables": "pack",
    "SokobanTables": "pack",
    "pack_levels": "pack",
    "pack_table": "pack",
    "render_prompt": "prompt",
    "PROMPT_VERSION": "prompt",
    "PROMPT_SHA256": "prompt",
    "DOMAIN": "domain",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
