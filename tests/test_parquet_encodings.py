"""Which columns of a fastspe Parquet file get dictionary pages and statistics (``parquet._encodings``)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from fastspe.boundary.parquet import read_parquet, write_parquet


def _chunk_of(path, name):
    group = pq.read_metadata(path).row_group(0)
    return next(group.column(i) for i in range(group.num_columns) if group.column(i).path_in_schema == name)


def test_unique_text_is_written_plain_and_repeated_text_by_dictionary(tmp_path):
    n = 1000
    table = pa.table(
        {
            "trial_id": [f"{i:032x}" for i in range(n)],  # all distinct
            "status": ["illegal" if i % 3 else "complete" for i in range(n)],
            "depth": pa.array([i % 40 for i in range(n)], pa.int64()),
            "half": [str(i // 2) for i in range(n)],
        }
    )  # exactly half distinct: still a dictionary
    path = tmp_path / "v.parquet"
    write_parquet(table, path, "verdicts")
    unique = _chunk_of(path, "trial_id")
    assert "RLE_DICTIONARY" not in unique.encodings and not unique.is_stats_set
    for name in ("status", "depth", "half"):
        chunk = _chunk_of(path, name)
        assert "RLE_DICTIONARY" in chunk.encodings and chunk.is_stats_set, name
    assert read_parquet(path, "verdicts").equals(table)


def test_nested_tables_keep_the_writer_defaults(tmp_path):
    n = 200
    table = pa.table(
        {
            "board_id": [f"b-{i}" for i in range(n)],
            "initial": pa.array([[i % 16, 0] for i in range(n)], pa.list_(pa.int8(), 2)),
        }
    )
    path = tmp_path / "bank.parquet"
    write_parquet(table, path, "bank")
    ids = _chunk_of(path, "board_id")
    assert "RLE_DICTIONARY" in ids.encodings and ids.is_stats_set
