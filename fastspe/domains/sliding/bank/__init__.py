"""Certified sliding-puzzle banks: designs (cells and quotas), the h-walk builder, the search-certified retreat cells,
and the check every bank of the domain passes (``table``).
"""

from typing import TYPE_CHECKING

from ...._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .build import build_bank, build_bank_table, certificates
    from .design import Design, design_from_dict, DesignCell, load_design, max_distinct_boards, paper_design
    from .search import build_search_cell

_NAMES = {
    "build_bank": "build",
    "build_bank_table": "build",
    "certificates": "build",
    "DesignCell": "design",
    "Design": "design",
    "paper_design": "design",
    "max_distinct_boards": "design",
    "design_from_dict": "design",
    "load_design": "design",
    "build_search_cell": "search",
}
__all__ = [
    "build_bank",
    "build_bank_table",
    "build_search_cell",
    "certificates",
    "Design",
    "design_from_dict",
    "DesignCell",
    "load_design",
    "max_distinct_boards",
    "paper_design",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)
