"""The sliding puzzle: layouts with blocked cells, the goal, direction codes, graph distances and the prompt.
"""

from ..._names import lazy_face

_NAMES = {
    "Layout": "layout", "board_rows": "layout", "prompt_sha256": "prompt", "board_text": "prompt",
    "render_prompt": "prompt", "BankTables": "pack", "DOMAIN": "domain",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
