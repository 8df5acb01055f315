"""The JSONL scanner (``kernels.jsonl_scan``) beside its plain-Python twin, and its tables beside pyarrow's."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.json as pj
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.boundary.jsonl_records import KnownKeys, scanned_table
from fastspe.boundary.response_stream import _FIELDS  # noqa: F401  (the reader's schema, as the reader uses it)
from fastspe.kernels import jsonl_scan as scan
from tests.naive_jsonl_scan import naive_any_untimely, naive_scan

# (keys that begin with another key, longer and shorter than a word: the scanner's guess must not take them)
KEYS = [
    "board_id",
    "condition",
    "trial",
    "response",
    "status",
    "latency_s",
    "seed",
    "note",
    "when",
    "flag",
    "trial_id",
    "latency_seconds",
]
NASTY_TEXT = st.text(st.sampled_from(list('MOVES: U,D,L,R\n\t"\\/é→\x01 2026-12-01T20:35:41.5Z')), max_size=30)
LONG_TEXT = st.text(st.sampled_from(list("0123456789abcdef,MOVES: UDLR")), min_size=28, max_size=90)  # both copies
VALUES = st.one_of(
    NASTY_TEXT,
    LONG_TEXT,
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["2026-12-01", "2026-12-01T20:35:41", "20:35"]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from("ab"), st.integers(), max_size=1),
)
SPACES = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def jsonl_lines(draw, max_lines=6):
    """JSON lines with keys in any order, nasty values and spacing, now and then an unknown key or a torn line."""
    lines = []
    for _ in range(draw(st.integers(1, max_lines))):
        keys = draw(st.lists(st.sampled_from(KEYS + ["extra"]), min_size=1, max_size=6, unique=True))
        sep, colon = draw(SPACES), draw(SPACES)
        items = [
            json.dumps(k) + colon + ":" + draw(SPACES) + json.dumps(draw(VALUES), ensure_ascii=draw(st.booleans()))
            for k in keys
        ]
        line = (
            "{" + draw(SPACES) + ("," + sep).join(items) + draw(SPACES) + "}" + draw(st.sampled_from(["", " ", "\r"]))
        )
        if draw(st.integers(0, 20)) == 0:
            line = line[: len(line) // 2]
        lines.append(line)
    return ("\n".join(lines) + draw(st.sampled_from(["\n", ""]))).encode()


def _kernel_rows(data: bytes, names: list[str], scratch=None):
    keys = KnownKeys(names)
    arr = np.frombuffer(data, dtype=np.uint8)
    status, kind, start, end, value, escaped, first, where, _ = scan.scan_records(
        arr, keys.bytes, keys.offsets, scratch=scratch
    )
    if status == scan.UNKNOWN_KEY:
        return status, None, bytes(arr[where[0] : where[1]]).decode()
    if status != scan.CLEAN:
        return status, None, None
    rows = []
    for line in range(kind.shape[0]):
        row = {}
        for k, name in enumerate(names):
            kd = int(kind[line, k])
            if kd == scan.ABSENT:
                continue
            if kd == scan.TEXT:
                offsets, chars, _ = scan.gather_strings(
                    arr,
                    np.array([k]),
                    np.ones((1, 1), np.bool_),
                    start[line : line + 1],
                    end[line : line + 1],
                    value[line : line + 1],
                    escaped[line : line + 1],
                )
                v = chars.tobytes().decode("ascii")
            elif kd == scan.INT:
                v = int(value[line, k])
            elif kd == scan.FLOAT:
                v = data[start[line, k] : end[line, k]].decode()
            else:
                v = None
            row[name] = (kd, v)
        rows.append(row)
    return status, rows, None


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(jsonl_lines())
def test_scanner_matches_its_twin(data):
    status, rows, unknown = naive_scan(data, KEYS)
    k_status, k_rows, k_unknown = _kernel_rows(data, KEYS)
    assert k_status == status
    if status == scan.CLEAN:
        assert k_rows == rows
    if status == scan.UNKNOWN_KEY:
        assert k_unknown == unknown


def _arrow(data: bytes, block_size: int = 1 << 20):
    options = pj.ParseOptions(explicit_schema=_FIELDS, unexpected_field_behavior="infer")
    try:
        return pj.read_json(
            pa.BufferReader(data), read_options=pj.ReadOptions(block_size=block_size), parse_options=options
        )
    except pa.ArrowInvalid:
        return None


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(jsonl_lines())
def test_a_scanned_table_is_the_table_pyarrow_reads(data):
    """Where the scanner vouches for a buffer, pyarrow reads it too, to the same table (schema, values, and
    the json module agrees on every line); else the caller falls back to pyarrow."""
    table = scanned_table(np.frombuffer(data, dtype=np.uint8), _FIELDS, KnownKeys(_FIELDS.names))
    if table is None:
        return
    expected = _arrow(data)
    assert expected is not None
    assert table.schema == expected.schema
    assert table.to_pylist() == expected.to_pylist()
    assert len(table) == len([json.loads(line) for line in data.splitlines()])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(st.text(st.sampled_from(list("0123456789-:+TtZz .a\\")), max_size=12), st.none()), max_size=6)
)
def test_any_untimely_matches_its_twin(values):
    """A column's strings (None: a line where the key holds no string) as the scanner left them."""
    raws = [v.encode() for v in values if v is not None]
    data = np.frombuffer(b"".join(raws) or b"\0", dtype=np.uint8)
    ends = np.cumsum([len(r) for r in raws], dtype=np.int64)
    start, end = np.zeros(len(values), np.int64), np.zeros(len(values), np.int64)
    kind = np.array([scan.NULL if v is None else scan.TEXT for v in values], dtype=np.int8)
    start[kind == scan.TEXT], end[kind == scan.TEXT] = ends - [len(r) for r in raws], ends
    assert scan.any_untimely(data, kind, start, end) == naive_any_untimely(raws)


def test_timestamp_like_strings_are_left_to_pyarrow():
    data = b'{"board_id": "a", "when": "2026-12-01T20:35:41"}\n'
    assert scanned_table(np.frombuffer(data, np.uint8), _FIELDS, KnownKeys(_FIELDS.names)) is None
    mixed = data + b'{"board_id": "b", "when": "later"}\n'
    table = scanned_table(np.frombuffer(mixed, np.uint8), _FIELDS, KnownKeys(_FIELDS.names))
    assert table.column("when").type == pa.string() and table.equals(_arrow(mixed))


@pytest.mark.parametrize("block", [64, 100, 1000])
def test_columns_are_chunked_as_pyarrow_chunks_them(block):
    lines = b"".join(
        b'{"board_id": "b%d", "trial": %d, "response": "MOVES: %s"}\n' % (i, i, b"U," * (i % 7)) for i in range(200)
    )
    table = scanned_table(np.frombuffer(lines, np.uint8), _FIELDS, KnownKeys(_FIELDS.names), block_size=block)
    expected = _arrow(lines, block)
    if expected is None:  # a line longer than a block: pyarrow refuses it, the scanner leaves it to pyarrow
        assert block == 64 and table is None
        return
    assert [len(c) for c in table.column("trial").chunks] == [len(c) for c in expected.column("trial").chunks]
    assert table.equals(expected)


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 200])
def test_strings_of_every_length_are_gathered_whole(size):
    """Strings under a word are copied byte by byte, longer ones a word at a time with the last word overlapping:
    both give every byte and nothing past the string, plain and escaped."""
    text = "".join("0123456789abcdefMOVES: UDLR,"[i % 28] for i in range(size))
    lines = [
        {"board_id": text, "condition": "c", "trial": 0, "response": text + "\n" + text},
        {"board_id": "b", "condition": text[::-1], "trial": 1, "response": text},
    ]
    data = ("\n".join(json.dumps(line) for line in lines) + "\n").encode()
    table = scanned_table(np.frombuffer(data, dtype=np.uint8), _FIELDS, KnownKeys(_FIELDS.names))
    assert table.select(["board_id", "condition", "trial", "response"]).to_pylist() == lines


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(jsonl_lines(), jsonl_lines())
def test_a_reused_scratch_scans_as_its_twin(first, second):
    """The arrays kept from one chunk to the next hold nothing of the chunk before (a key absent now but present
    then reads as absent), whether the next chunk has fewer lines or more: each scan agrees with the twin, and
    its arrays equal those of a scan into fresh ones."""
    scratch = scan.Scratch()
    for data in (first, second, first):
        status, rows, unknown = naive_scan(data, KEYS)
        k_status, k_rows, k_unknown = _kernel_rows(data, KEYS, scratch)
        assert (
            k_status,
            k_rows if status == scan.CLEAN else None,
            k_unknown if status == scan.UNKNOWN_KEY else None,
        ) == (status, rows if status == scan.CLEAN else None, unknown if status == scan.UNKNOWN_KEY else None)
        arr, keys = np.frombuffer(data, dtype=np.uint8), KnownKeys(KEYS)
        reused = scan.scan_records(arr, keys.bytes, keys.offsets, scratch=scratch)
        if reused[0] == scan.CLEAN:
            for a, b in zip(reused[1:], scan.scan_records(arr, keys.bytes, keys.offsets)[1:]):
                np.testing.assert_array_equal(a, b)


def test_a_small_file_is_read_by_pyarrow_alone_and_a_large_one_by_the_scanner(tmp_path, monkeypatch):
    """Below ``SCANNER_MIN_BYTES`` the scanner (~10 s of compiling on a fresh cache) is not called; the tables are
    the same either way."""
    from fastspe.boundary import jsonl_records, response_stream

    path = tmp_path / "answers.jsonl"
    path.write_text(
        "".join(
            json.dumps({"board_id": f"b{i}", "condition": "m", "trial": 0, "response": "MOVES: U"}) + "\n"
            for i in range(50)
        )
    )
    calls = []
    real = jsonl_records.scanned_table
    monkeypatch.setattr(jsonl_records, "scanned_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    by_pyarrow = pa.concat_tables(response_stream.response_tables(path))
    assert calls == []
    monkeypatch.setattr(response_stream, "SCANNER_MIN_BYTES", path.stat().st_size)
    by_scanner = pa.concat_tables(response_stream.response_tables(path))
    assert calls == [1] and by_scanner.equals(by_pyarrow) and by_scanner.num_rows == 50
