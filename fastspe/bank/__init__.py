"""Certified board banks: designs (cells and quotas), the h-walk builder and the search-certified retreat cells.
"""

from .._names import lazy_face

_NAMES = {
    "QuotaError": "acceptance", "build_bank": "build", "build_bank_table": "build", "read_bank": "build",
    "write_bank": "build", "bank_to_table": "build", "certificates": "build", "DesignCell": "design",
    "Design": "design", "paper_design": "design", "max_distinct_boards": "design", "design_from_dict": "design",
    "load_design": "design", "build_search_cell": "search",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)
