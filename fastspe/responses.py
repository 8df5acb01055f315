"""Responses in: kept for imports written before fastspe 0.2; the readers live in ``fastspe.boundary``."""

from .boundary.responses import (KEY, OK, REQUIRED, TORN_LINE_EVENT, read_responses,  # noqa: F401
                                 validate_responses, MARKER_EVENTS)
