"""What of the answers' own columns a verdict carries: the truncation flag and the scalar metadata (token counts,
latency, settings), for ``score``'s verdict tables (Arrow outputs) and in-memory responses (a DataFrame)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..boundary.verdict_schema import JSON_TEXT

__all__ = ["TRUNCATION_REASONS", "frame_metadata", "metadata_columns", "truncated_flags"]

TRUNCATION_REASONS = {"length", "max_tokens", "max_output_tokens", "model_length", "token_limit"}


def truncated_flags(outputs: pa.Table) -> np.ndarray:
    """Cut off by the length limit, as far as the metadata says."""
    out = np.zeros(outputs.num_rows, dtype=bool)
    names = outputs.column_names
    if "truncated" in names:
        col = outputs.column("truncated")
        if pa.types.is_boolean(col.type):
            out |= pc.fill_null(col, False).to_numpy(zero_copy_only=False)
        elif not pa.types.is_null(col.type):
            text = col.cast(pa.string()) if not pa.types.is_string(col.type) else col
            out |= pc.fill_null(pc.equal(pc.utf8_lower(text), "true"), False).to_numpy(zero_copy_only=False)
    for name in ("finish_reason", "stop_reason"):
        if name in names and not pa.types.is_null(outputs.column(name).type):
            text = outputs.column(name).cast(pa.string())
            hit = pc.is_in(pc.utf8_lower(text), value_set=pa.array(sorted(TRUNCATION_REASONS)))
            out |= pc.fill_null(hit, False).to_numpy(zero_copy_only=False)
    return out


def metadata_columns(outputs: pa.Table, skip: set[str]) -> list[str]:
    """Scalar metadata carried into the verdicts (token counts, latency, ...), but for the columns in ``skip``
    (``score._not_metadata``); nested values are not, but for the settings ``stop`` and ``extra_body`` (as JSON text)."""
    keep = []
    for field in outputs.schema:
        kind = field.type
        if (
            field.name in skip
            or pa.types.is_nested(kind)
            and field.name not in JSON_TEXT
            or pa.types.is_binary(kind)
            or pa.types.is_dictionary(kind)
        ):
            continue
        keep.append(field.name)
    return keep


def frame_metadata(responses: pd.DataFrame, skip: set[str]) -> list[str]:
    """The columns of in-memory responses carried into the verdicts as metadata, but for those in ``skip``."""
    keep = []
    for col in responses.columns:
        if col in skip:
            continue
        kind = pd.api.types.infer_dtype(responses[col], skipna=True)
        if col in JSON_TEXT or kind in (
            "string",
            "integer",
            "floating",
            "boolean",
            "mixed-integer-float",
            "empty",
            "datetime",
        ):
            keep.append(col)
    return keep
