"""Certified sliding-puzzle banks: designs (cells and quotas), the h-walk builder, the search-certified retreat cells,
and the check every bank of the domain passes (``table``).
"""

from ...._names import lazy_face

_NAMES = {
    "build_bank": "build", "build_bank_table": "build", "certificates": "build", "DesignCell": "design",
    "Design": "design", "paper_design": "design", "max_distinct_boards": "design", "design_from_dict": "design",
    "load_design": "design", "build_search_cell": "search",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
