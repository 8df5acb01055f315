"""Sokoban: XSB levels, the room and its push distances, the packed bank, the prompt and the domain object.
"""

from ..._names import lazy_face

_NAMES = {
    "Level": "level", "parse_level": "level", "LevelTables": "pack", "SokobanTables": "pack",
    "pack_levels": "pack", "pack_table": "pack", "render_prompt": "prompt", "PROMPT_VERSION": "prompt",
    "PROMPT_SHA256": "prompt", "DOMAIN": "domain",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
