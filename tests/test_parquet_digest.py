"""The digests of fastspe's Parquet files. Format 3's: SHA-256 of the file's pages as written, beside a twin that
walks the footer. Formats 1 and 2's content digest (still verified on read, and ``table_digest`` for identities):
it hashes Arrow's buffers in place, the same value as the IPC streams built and hashed (``tests/naive_digest.py``,
fastspe 0.2's way), on every table, however it is chunked, sliced or fed."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings, strategies as st

from fastspe.boundary import parquet
from fastspe.boundary.parquet import ContentDigest, table_digest
from tests.naive_digest import naive_table_digest

_INT = st.one_of(st.none(), st.integers(-(2**40), 2**40))
_TEXT = st.one_of(st.none(), st.text(max_size=6))
_LIST = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-128, 127)), max_size=4))
_BOARD = st.one_of(st.none(), st.lists(st.integers(-1, 15), min_size=3, max_size=3))


@st.composite
def tables(draw):
    n = draw(st.integers(0, 40))
    cols = {
        "i": pa.array(draw(st.lists(_INT, min_size=n, max_size=n)), pa.int64()),
        "s": pa.array(draw(st.lists(_TEXT, min_size=n, max_size=n)), pa.string()),
        "l": pa.array(draw(st.lists(_LIST, min_size=n, max_size=n)), pa.list_(pa.int8())),
        "f": pa.array(draw(st.lists(_BOARD, min_size=n, max_size=n)), pa.list_(pa.int8(), 3)),
        "b": pa.array(draw(st.lists(st.one_of(st.none(), st.booleans()), min_size=n, max_size=n)), pa.bool_()),
        "d": pa.array(
            draw(st.lists(st.one_of(st.none(), st.floats(allow_nan=False)), min_size=n, max_size=n)), pa.float64()
        ),
    }
    table = pa.table(cols)
    if n and draw(st.booleans()):  # an offset into the buffers, as a slice of a bigger read has
        lo = draw(st.integers(0, n))
        table = table.slice(lo, draw(st.integers(0, n - lo)))
    return table


@pytest.mark.slow
@given(tables(), st.integers(1, 9), st.lists(st.integers(1, 12), max_size=6), st.sampled_from(["sha256", "blake2b"]))
@settings(max_examples=300, deadline=None)
def test_digest_is_the_ipc_stream_digest(table, slice_rows, cuts, algorithm):
    batches, at = [], 0
    for size in cuts:
        batches.append(table.slice(at, size))
        at += size
    if at < table.num_rows:
        batches.append(table.slice(at))
    with mock.patch.object(parquet, "DIGEST_ROWS", slice_rows):  # several slices in a small table
        assert table_digest(table, algorithm) == naive_table_digest(table, slice_rows, algorithm=algorithm)
        digest = ContentDigest(algorithm)  # fed in batches of any size
        for batch in batches:
            digest.update(batch)
        assert digest.hexdigest() == naive_table_digest(table, slice_rows, batches, algorithm)


def test_digest_of_a_table_over_several_slices_of_the_real_size():
    n = 2 * parquet.DIGEST_ROWS + 1234
    rng = np.random.default_rng(5)
    boards = pa.FixedSizeListArray.from_arrays(pa.array(rng.integers(-1, 16, 16 * n).astype(np.int8)), 16)
    ids = pa.array([f"cell-{i:07d}" for i in range(n)])
    table = pa.table({"board_id": ids, "initial": boards, "seed": pa.array(rng.integers(0, 2**62, n))})
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=50_000))  # chunks across slice boundaries
    for whole in (table, chunked, table.slice(7)):
        assert table_digest(whole) == naive_table_digest(whole, algorithm="sha256")
    assert table_digest(table) == table_digest(chunked)  # (chunks hash alike when each slice is a whole buffer)


def test_digest_values_of_fastspe_0_2():
    # computed by fastspe at 3da518a (IPC streams built in buffers): files it wrote must still verify
    t = pa.table(
        {
            "board_id": ["a-0", "a-1", None],
            "k": pa.array([0, 2, None], pa.int64()),
            "blocks": pa.array([[], [3, 5], None], pa.list_(pa.int8())),
            "initial": pa.array([[1, 0, 2, 3], [0, 1, 2, 3], None], pa.list_(pa.int8(), 4)),
        }
    )
    assert table_digest(t, "blake2b") == "a1e8eee4004389087b87a855d89a3ad5f721e48fc6ae502aa769b49fbed7451b"
    assert (
        table_digest(pa.concat_tables([t] * 30000), "blake2b")
        == "6d76e69d7832e66096c78459f4f7512444ebd3480b98b90b75033347da16dcac"
    )


def test_format_1_and_2_files_verify_by_their_content_digest_and_refuse_changes(tmp_path):
    """Files of format 1 (a BLAKE2b digest of the decoded columns, under ``fastspe.content_blake2b``) and format 2
    (SHA-256 of the same, under ``fastspe.content_sha256``) read as before; one whose values were changed under
    that key is refused."""
    import pyarrow.parquet as pq
    from fastspe.boundary.errors import InputError
    from fastspe.boundary.parquet import read_parquet

    t = pa.table({"board_id": ["a-0", "a-1"], "depth": pa.array([3, 4], pa.int64())})
    changed = t.set_column(1, "depth", pa.array([3, 5], pa.int64()))
    for version, key, algorithm in (("1", "blake2b", "blake2b"), ("2", "sha256", "sha256")):

        def old_file(table, digest_of):
            path = tmp_path / f"old-{version}.parquet"
            pq.write_table(
                table.replace_schema_metadata(
                    {
                        b"fastspe.kind": b"bank",
                        b"fastspe.format": version.encode(),
                        f"fastspe.content_{key}".encode(): naive_table_digest(digest_of, algorithm=algorithm).encode(),
                    }
                ),
                path,
                write_page_checksum=True,
            )
            return path

        assert read_parquet(old_file(t, t), "bank").equals(t)
        with pytest.raises(InputError, match="does not match the checksum"):
            read_parquet(old_file(changed, t), "bank")


def _file_sha256(path) -> str:
    """The twin of the format 3 digest: SHA-256 of the whole file, the stored digest's 64 characters (the only
    place they appear) read as zeros."""
    import hashlib
    import pyarrow.parquet as pq

    stored = pq.read_metadata(path).metadata[b"fastspe.file_sha256"]
    data = open(path, "rb").read()
    assert data.count(stored) == 1
    return hashlib.sha256(data.replace(stored, b"0" * 64)).hexdigest()


@pytest.mark.parametrize("rows", [0, 1, 5000])
def test_format_3_files_carry_the_digest_of_their_bytes(tmp_path, rows):
    import pyarrow.parquet as pq
    from fastspe.boundary.parquet import parquet_stream, read_parquet

    t = pa.table(
        {
            "board_id": [f"a-{i}" for i in range(rows)],
            "depth": pa.array(range(rows), pa.int64()),
            "initial": pa.array([[i % 16, 0] for i in range(rows)], pa.list_(pa.int8(), 2)),
        }
    )
    path = tmp_path / "new.parquet"
    with parquet_stream(path, "bank") as write:  # several row groups
        for lo in range(0, max(rows, 1), 2000):
            write(t.slice(lo, 2000))
    meta = pq.read_metadata(path).metadata
    assert meta[b"fastspe.format"] == b"3"
    assert not any(k.startswith(b"fastspe.content_") for k in meta)
    assert meta[b"fastspe.file_sha256"].decode() == _file_sha256(path)
    assert read_parquet(path, "bank").equals(t)


def test_format_3_refuses_other_pages_under_its_footer_and_a_changed_footer(tmp_path):
    """Pages changed with their CRCs recomputed decode to other values: only the digest refuses them. So does a
    footer that names a column otherwise (no CRC covers a footer)."""
    import pyarrow.parquet as pq
    from fastspe.boundary.errors import InputError
    from fastspe.boundary.parquet import read_parquet, write_parquet

    t = pa.table({"depth": pa.array([3, 4, 5, 6], pa.int64())})
    other = pa.table({"depth": pa.array([3, 4, 5, 7], pa.int64())})
    path, fake = tmp_path / "v.parquet", tmp_path / "other.parquet"
    write_parquet(t, path, "verdicts")
    pq.write_table(other, fake, compression="zstd", write_page_checksum=True)
    good, bad = path.read_bytes(), fake.read_bytes()
    good_end = len(good) - 8 - int.from_bytes(good[-8:-4], "little")
    bad_end = len(bad) - 8 - int.from_bytes(bad[-8:-4], "little")
    assert good_end == bad_end  # same sizes: the other file's pages fit under this file's footer
    path.write_bytes(bad[:bad_end] + good[good_end:])
    assert pq.read_table(path).column("depth").to_pylist() == [3, 4, 5, 7]  # pyarrow reads it, CRCs and all
    with pytest.raises(InputError, match="does not match the checksum"):
        read_parquet(path, "verdicts")
    path.write_bytes(good[:good_end] + good[good_end:].replace(b"depth", b"dEpth"))
    assert pq.read_table(path).column_names == ["dEpth"]
    with pytest.raises(InputError, match="does not match the checksum"):
        read_parquet(path, "verdicts")
