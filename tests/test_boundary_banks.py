"""Damaged bank files through the command line: each is refused with one error line that names the file,
the row or line and the board, and leaves no output; damage that cannot change meaning gives the same verdicts."""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.boundary.banks import write_bank
from fastspe.boundary.banks import read_bank_table
from fastspe.boundary.errors import InputError
from fastspe.boundary.verdict_files import read_verdicts

from .boundary_helpers import assert_refused, bank_records, oracle_records, run_cli, tiny_bank, write_jsonl


@pytest.fixture
def files(tmp_path):
    """A clean bank (Parquet written by fastspe, and JSONL) and the oracle's answers to it."""
    bank = tiny_bank()
    write_bank(bank, tmp_path / "bank.parquet")
    write_bank(bank, tmp_path / "bank.jsonl")
    write_jsonl(tmp_path / "r.jsonl", oracle_records(bank))
    return tmp_path


def _score(capsys, bank, folder, out_name="v.parquet"):
    out = folder / out_name
    code, stdout, err = run_cli(capsys, ["score", "--bank", bank, "--responses", folder / "r.jsonl", "--out", out])
    return code, err, out


# one edit of the second board (row 2 / line 2) per reported defect; None: the edit leaves no board id to name
BOARD = 1
DEFECTS = {
    "depth null": ("depth", None),  # was scored with economy -9.2e17
    "depth edited, h and certificate not": ("depth", 3),  # was scored silently
    "initial null": ("initial", None),
    "board_id null": ("board_id", None),
    "17-cell board": ("initial", list(range(17))),
    "rows 9": ("rows", 9),
    "tile stored as 2.5": ("initial", "2.5"),
    "tile value 300": ("initial", "300"),
}


def _edited(records, field, value):
    records = [dict(r) for r in records]
    if value in ("2.5", "300"):  # one tile of a valid board replaced
        board = list(records[BOARD][field])
        board[board.index(max(board))] = float(value) if value == "2.5" else int(value)
        value = board
    records[BOARD][field] = value
    return records


@pytest.mark.parametrize("defect", list(DEFECTS))
@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_bank_row_defect_is_refused_naming_the_row(files, capsys, defect, fmt):
    field, value = DEFECTS[defect]
    records = _edited(bank_records(tiny_bank()), field, value)
    path = files / f"bad.{fmt}"
    if fmt == "jsonl":
        write_jsonl(path, records)
    else:
        pq.write_table(pa.Table.from_pylist(records), path)
    code, err, out = _score(capsys, path, files)
    names = [path, "line 2" if fmt == "jsonl" else "row 2", field]
    if field != "board_id":
        names.append(repr(records[BOARD]["board_id"]))
    assert_refused(code, err, names=names, absent=[out])


def test_initial_as_text_is_refused(files, capsys):
    records = bank_records(tiny_bank())
    records[BOARD]["initial"] = "1,2,3,4,5,6,7,8,0"
    write_jsonl(files / "bad.jsonl", records)
    code, err, out = _score(capsys, files / "bad.jsonl", files)
    assert_refused(code, err, names=["bad.jsonl", "line 2", "initial", records[BOARD]["board_id"]], absent=[out])
    # in Parquet a column has one type: a text column is refused as a whole, naming the column
    table = pq.read_table(files / "bank.parquet")
    texts = pa.array([",".join(map(str, b)) for b in table.column("initial").to_pylist()])
    pq.write_table(table.set_column(table.column_names.index("initial"), "initial", texts), files / "bad.parquet")
    code, err, out = _score(capsys, files / "bad.parquet", files)
    line = assert_refused(code, err, names=["bad.parquet", "initial", "list of integers"], absent=[out])
    assert "row 1" not in line  # no row is more at fault than another


def test_csv_bank_is_refused_saying_what_a_bank_is(files, capsys):
    tiny_bank().to_csv(files / "bank.csv", index=False)
    for args in (
        ["score", "--bank", files / "bank.csv", "--responses", files / "r.jsonl", "--out", files / "v.csv"],
        ["bank", "verify", files / "bank.csv"],
        ["bank", "show", files / "bank.csv"],
        ["run", "--bank", files / "bank.csv", "--model", "baseline:oracle", "--out", files / "run.jsonl"],
    ):
        code, out, err = run_cli(capsys, args)
        assert_refused(
            code, err, names=["bank.csv", ".parquet or .jsonl"], absent=[files / "v.csv", files / "run.jsonl"]
        )


def test_verify_names_every_failing_board_while_score_refuses(files, capsys):
    records = bank_records(tiny_bank())
    records[1]["depth"] = 3
    records[3]["certificate"] = records[3]["certificate"][::-1]
    write_jsonl(files / "bad.jsonl", records)
    code, out, err = run_cli(capsys, ["bank", "verify", files / "bad.jsonl"])
    assert code == 1 and "Traceback" not in err
    failed = [line.split()[1].rstrip(":") for line in out.splitlines() if line.startswith("FAIL")]
    assert failed == [records[1]["board_id"], records[3]["board_id"]]
    code, err, out = _score(capsys, files / "bad.jsonl", files)
    assert_refused(code, err, names=["bad.jsonl"], absent=[out])
    code, stdout, err = run_cli(capsys, ["bank", "show", files / "bad.jsonl"])
    assert_refused(code, err, names=["bad.jsonl"])


# ---- corrupt Parquet: refused, never other numbers -----------------------------------------------------------


@pytest.fixture
def clean_verdicts(files, capsys):
    code, err, out = _score(capsys, files / "bank.parquet", files, "clean.parquet")
    assert code == 0, err
    return read_verdicts(out).frame


def _same_verdicts_or_refused(capsys, files, clean):
    code, err, out = _score(capsys, files / "bad.parquet", files)
    if code == 0:  # the damage hit bytes that carry no content (statistics, padding): same results
        assert read_verdicts(out).frame.equals(clean)
        out.unlink()
        return False
    assert_refused(code, err, names=["bad.parquet"], absent=[out])
    return True


def test_truncated_and_random_parquet_are_refused(files, capsys, clean_verdicts):
    data = (files / "bank.parquet").read_bytes()
    for size in (0, 4, 100, len(data) // 2, len(data) - 9, len(data) - 1):
        (files / "bad.parquet").write_bytes(data[:size])
        assert _same_verdicts_or_refused(capsys, files, clean_verdicts)
    noise = random.Random(0).randbytes(len(data))
    (files / "bad.parquet").write_bytes(b"PAR1" + noise + b"PAR1")
    assert _same_verdicts_or_refused(capsys, files, clean_verdicts)


def _page_ranges(path) -> list[tuple[int, int]]:
    meta = pq.ParquetFile(path).metadata
    ranges = []
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            col = meta.row_group(g).column(c)
            start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
            ranges.append((start, start + col.total_compressed_size))
    return ranges


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bit_flips_in_data_pages_are_refused_or_harmless(files, capsys, clean_verdicts, data):
    raw = bytearray((files / "bank.parquet").read_bytes())
    start, end = data.draw(st.sampled_from(_page_ranges(files / "bank.parquet")))
    for _ in range(data.draw(st.integers(1, 3))):
        raw[data.draw(st.integers(start, end - 1))] ^= 1 << data.draw(st.integers(0, 7))
    (files / "bad.parquet").write_bytes(bytes(raw))
    _same_verdicts_or_refused(capsys, files, clean_verdicts)


def test_flips_inside_page_values_are_refused(files, capsys, clean_verdicts):
    # the last bytes of each column chunk are page data, covered by the page CRC and the content digest
    raw = (files / "bank.parquet").read_bytes()
    for start, end in _page_ranges(files / "bank.parquet"):
        bad = bytearray(raw)
        bad[end - 2] ^= 0x10
        (files / "bad.parquet").write_bytes(bytes(bad))
        assert _same_verdicts_or_refused(capsys, files, clean_verdicts), (start, end)


def test_edited_values_under_the_old_checksum_are_refused(files, capsys):
    handle = pq.ParquetFile(files / "bank.parquet")
    table = handle.read()
    seeds = pa.array([s + 1 for s in table.column("seed").to_pylist()], pa.int64())
    edited = table.set_column(table.column_names.index("seed"), "seed", seeds)
    with pq.ParquetWriter(files / "bad.parquet", edited.schema) as writer:  # a copy that kept the digest
        writer.write_table(edited)
        writer.add_key_value_metadata({k: v for k, v in handle.metadata.metadata.items() if k != b"ARROW:schema"})
    code, err, out = _score(capsys, files / "bad.parquet", files)
    assert_refused(code, err, names=["bad.parquet", "checksum"], absent=[out])


def test_a_checksum_mismatch_is_named_before_what_the_rows_break(files):
    # the checks run while the digest is computed: a damaged file is named as damaged, not by its first bad row
    handle = pq.ParquetFile(files / "bank.parquet")
    table = handle.read()
    edited = table.set_column(table.column_names.index("h"), "h", pc.add(table.column("h"), 2))
    with pq.ParquetWriter(files / "bad.parquet", edited.schema) as writer:
        writer.write_table(edited)
        writer.add_key_value_metadata({k: v for k, v in handle.metadata.metadata.items() if k != b"ARROW:schema"})
    with pytest.raises(InputError, match="does not match the checksum"):
        read_bank_table(files / "bad.parquet")
    edited_file = files / "unsigned.parquet"
    pq.write_table(edited.replace_schema_metadata(None), edited_file)  # no digest: the rows' fault is named
    with pytest.warns(UserWarning, match="no fastspe content checksum"), pytest.raises(InputError, match="h is"):
        read_bank_table(edited_file)


def _jsonl_lines(records) -> list[bytes]:
    import json

    return [json.dumps(r).encode() for r in records]


@pytest.mark.parametrize("case", ["two objects on a line", "lone surrogate", "repeated key"])
def test_jsonl_bank_lines_arrow_would_misread_are_named(files, capsys, case):
    lines = _jsonl_lines(bank_records(tiny_bank()))
    if case == "two objects on a line":  # Arrow reads them as two rows: accepted, with later lines misnamed
        lines[1] = lines[1] + b" " + lines[2]
        del lines[2]
        what = "Extra data"
    elif case == "lone surrogate":  # Arrow's message names no line
        lines[1] = lines[1].replace(b'"cohort": "p"', b'"cohort": "\\ud800"')
        what = "lone surrogate"
    else:  # which of the two depths counts? (Arrow's message names no line)
        lines[1] = lines[1][:-1] + b', "depth": 3}'
        what = "'depth' appears more than once"
    (files / "bad.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    code, err, out = _score(capsys, files / "bad.jsonl", files)
    assert_refused(code, err, names=["bad.jsonl", "line 2", what], absent=[out])


def test_jsonl_bank_with_bom_and_crlf_scores_and_empty_one_has_no_boards(files, capsys, clean_verdicts):
    lines = _jsonl_lines(bank_records(tiny_bank()))
    (files / "bad.jsonl").write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(lines) + b"\r\n")
    code, err, out = _score(capsys, files / "bad.jsonl", files)
    assert code == 0, err
    assert read_verdicts(out).frame.equals(clean_verdicts)
    (files / "bad.jsonl").write_bytes(b"")
    out.unlink()
    code, err, out = _score(capsys, files / "bad.jsonl", files)
    assert_refused(code, err, names=["bad.jsonl", "no boards"], absent=[out])


@pytest.mark.parametrize("field", ["board_id", "cohort", "certificate"])
def test_jsonl_bank_text_that_is_not_utf8_is_named(files, capsys, field):
    # Arrow's JSON reader does not check UTF-8 inside strings: a flipped bit was a pyarrow traceback
    lines = _jsonl_lines(bank_records(tiny_bank()))
    lines[1] = lines[1].replace(f'"{field}": "'.encode(), f'"{field}": "\xe9'.encode("latin-1"))
    (files / "bad.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    code, err, out = _score(capsys, files / "bad.jsonl", files)
    assert_refused(code, err, names=["bad.jsonl", "line 2", f"{field} is not UTF-8"], absent=[out])
