"""The sliding puzzle, the paper's domain: layouts with blocked cells, banks and their certificates, the replay and
search kernels, the exact solver and the baselines, the independent verifiers, the prompt and the viewer
(``domain.SlidingDomain`` says which module does what).
"""

from ..._names import lazy_face

_NAMES = {
    "Layout": "layout", "board_rows": "layout", "prompt_sha256": "prompt", "board_text": "prompt",
    "render_prompt": "prompt", "BankTables": "pack", "DOMAIN": "domain", "solve": "planners.solver",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
