"""The sliding puzzle, the paper's domain: layouts with blocked cells, banks and their certificates, the replay and
search kernels, the exact solver and the baselines, the independent verifiers, the prompt and the viewer
(``domain.SlidingDomain`` says which module does what).
"""

from typing import TYPE_CHECKING

from ..._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .domain import DOMAIN
    from .layout import board_rows, Layout
    from .pack import BankTables
    from .planners.solver import solve
    from .prompt import board_text, prompt_sha256, render_prompt

_NAMES = {
    "Layout": "layout",
    "board_rows": "layout",
    "prompt_sha256": "prompt",
    "board_text": "prompt",
    "render_prompt": "prompt",
    "BankTables": "pack",
    "DOMAIN": "domain",
    "solve": "planners.solver",
}
__all__ = ["BankTables", "board_rows", "board_text", "DOMAIN", "Layout", "prompt_sha256", "render_prompt", "solve"]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
