"""Verdicts files: every damage that would change a number is refused with the file and row named.

A fuzz test damages a small valid file at random (a repeated row, an edited or emptied cell, flipped
bytes, a cut) and asserts that reading it gives exactly the original metrics or an error that starts
with the file's name: never a different number.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fastspe.scoring import score
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.domains.sliding.planners.baselines import baseline_responses
from fastspe.boundary.errors import InputError
from fastspe.boundary.parquet import write_parquet
from fastspe.boundary.verdicts import check_verdicts, verdict_columns
from fastspe.boundary.verdict_files import read_verdicts, write_verdicts
from fastspe.domains.sliding.bank.design import Design, DesignCell
from fastspe.domains.sliding.layout import Layout
from fastspe.stats.metrics import board_sums, compute_metrics

VERDICT_COLUMNS = verdict_columns("sliding")  # the shared columns as the sliding puzzle names them

GROUPS = ["cohort", "condition", "depth", "k"]


def small_bank() -> pd.DataFrame:
    """Three boards at d* 4 (primary, no blocks) and three at d* 6 (stress, block on cell 5)."""
    return build_bank(
        Design(
            seed=3,
            rows=4,
            cols=4,
            cells=(DesignCell("primary", Layout(4, 4, ()), 4, 3), DesignCell("stress", Layout(4, 4, (5,)), 6, 3)),
        )
    )


BANK = small_bank()


def small_verdicts() -> pd.DataFrame:
    """Every status and error kind, a format failure and a condition name a spreadsheet would run."""
    answers = [baseline_responses(BANK, p, trials=2, seed=1) for p in ("oracle", "detour", "noisy", "random")]
    ids = BANK["board_id"].tolist()
    crafted = pd.DataFrame(
        {
            "board_id": ids[:4],
            "condition": "=cmd|' x",
            "trial": 0,
            "response": ["no idea", "moves: u, d", "MOVES: X", "MOVES:"],
        }
    )
    return score.score_responses(BANK, pd.concat([*answers, crafted], ignore_index=True))


VERDICTS = small_verdicts()
METRICS = compute_metrics(VERDICTS, by=GROUPS)


def test_columns_are_the_scorers():
    assert list(VERDICTS.columns[: len(VERDICT_COLUMNS)]) == VERDICT_COLUMNS  # score_responses writes them
    assert set(VERDICTS["status"]) == {"complete", "legal_noncompletion", "illegal"}
    assert {"format", "boundary", "invalid_action"} <= set(VERDICTS["error_kind"])


@pytest.mark.parametrize("ext", ["parquet", "csv"])
def test_round_trip_keeps_every_value(tmp_path, ext):
    path = tmp_path / f"v.{ext}"
    write_verdicts(VERDICTS, path)
    back = read_verdicts(path, bank=BANK).frame
    pd.testing.assert_frame_equal(
        back[VERDICT_COLUMNS], check_verdicts(VERDICTS).frame[VERDICT_COLUMNS], check_dtype=False, check_exact=True
    )
    assert back["error_kind"].map(type).eq(str).all()  # "" stays "", not NaN


def test_csv_text_stays_text_and_formulas_are_escaped(tmp_path):
    v = VERDICTS.assign(board_id=VERDICTS["board_id"].where(VERDICTS["board_id"] != BANK["board_id"][0], "007"))
    bank = BANK.assign(board_id=BANK["board_id"].where(BANK.index != 0, "007"))
    path = tmp_path / "v.csv"
    write_verdicts(v, path)
    text = path.read_text()
    assert ",'=cmd|' x," in text and ",=cmd" not in text  # a spreadsheet would run =cmd...
    assert ",-1," in text  # numbers stay numbers
    back = read_verdicts(path, bank=bank).frame
    assert "007" in set(back["board_id"]) and "=cmd|' x" in set(back["condition"])


# ---- each defect, reproduced ----------------------------------------------------------------------------


def _write_other_tool(df: pd.DataFrame, path: Path) -> None:
    """A file that a tool other than write_verdicts wrote (a valid checksum, no checks)."""
    if path.suffix == ".csv":
        df.to_csv(path, index=False)
    else:
        write_parquet(pa.Table.from_pandas(df, preserve_index=False), path, "verdicts")


@pytest.mark.parametrize("ext", ["parquet", "csv"])
def test_duplicated_row_is_refused_naming_both(tmp_path, ext):
    path = tmp_path / f"v.{ext}"
    _write_other_tool(pd.concat([VERDICTS, VERDICTS.iloc[[3]]], ignore_index=True), path)
    unit, first = ("row", 1) if ext == "parquet" else ("line", 2)
    n = len(VERDICTS)
    with pytest.raises(
        InputError,
        match=rf"^{path}: {unit} {n + first} \(board_id '.*'\): duplicate output .*"
        rf"first seen at {unit} {3 + first}",
    ):
        read_verdicts(path)
    with pytest.raises(InputError, match="duplicate output"):  # was N + 1 outputs, silently
        compute_metrics(pd.concat([VERDICTS, VERDICTS.iloc[[3]]]), by=["condition"])


def test_edited_economy_is_refused(tmp_path):
    i = int(np.flatnonzero(VERDICTS["status"] == "complete")[0])
    path = tmp_path / "v.csv"
    _write_other_tool(VERDICTS.assign(economy=VERDICTS["economy"].where(VERDICTS.index != i, 5.0)), path)
    with pytest.raises(
        InputError,
        match=rf"^{path}: line {i + 2} \(board_id '{VERDICTS['board_id'][i]}'\): "
        r"economy is 5.0 but L = \d+, status complete, depth \d make it",
    ):
        read_verdicts(path)


@pytest.mark.parametrize(
    "col, value, message",
    [
        ("optimal", None, "optimal is"),
        ("excess", 99.0, "excess is 99.0"),
        ("status", "complete", None),  # an illegal plan called complete: economy and error kind disagree
        ("L", 0, None),
    ],
)
def test_inconsistent_derived_columns_are_refused_in_memory(col, value, message):
    i = int(np.flatnonzero(VERDICTS["status"] == ("complete" if col != "status" else "illegal"))[-1])
    v = VERDICTS.copy()
    v.loc[i, col] = (not v.loc[i, col]) if value is None else value
    with pytest.raises(InputError, match=rf"^verdicts: row {i + 1} .*{message or ''}"):
        board_sums(v)
    with pytest.raises(InputError, match=rf"^x\.parquet: row {i + 1} "):
        check_verdicts(v, "x.parquet")


@pytest.mark.parametrize(
    "col, value, message",
    [
        ("trial", 1.5, "trial 1.5 is not an integer"),
        ("trial", None, "trial is missing"),
        ("L", -1, "L is -1, below its least value 0"),
        ("depth", -2, "depth is -2, below"),
        ("condition", None, "condition is empty"),  # a CSV writes None as an empty cell
        ("board_id", "", "board_id is empty"),
        ("status", "done", "status 'done' is not one of"),
        ("error_kind", "lava", "error_kind 'lava' is not one of"),
        ("parse_mode", "guessed", "parse_mode 'guessed' is not one of"),
        ("truncated", "maybe", "truncated 'maybe' is not true or false"),
        ("moves", "UU", "moves has 2 actions but L is"),
        ("first_error", 7, "first_error 7 does not fit"),
    ],
)
def test_schema_faults_name_the_line(tmp_path, col, value, message):
    i = 5
    v = VERDICTS.astype({col: object})
    v.loc[i, col] = value
    path = tmp_path / "v.csv"
    _write_other_tool(v, path)
    with pytest.raises(InputError, match=rf"^{path}: line {i + 2}\b.*{message}"):
        read_verdicts(path)


def test_nulls_in_typed_parquet_columns(tmp_path):
    path = tmp_path / "v.parquet"
    v = VERDICTS.astype({"L": "Int64", "economy": "Float64", "optimal": "boolean"})
    for col, message in (("L", "L is missing"), ("optimal", "optimal is missing")):
        bad = v.copy()
        bad.loc[4, col] = pd.NA
        _write_other_tool(bad, path)
        with pytest.raises(InputError, match=rf"^{path}: row 5 .*{message}"):
            read_verdicts(path)
    _write_other_tool(v, path)  # nullable types without nulls are fine
    pd.testing.assert_frame_equal(compute_metrics(read_verdicts(path), by=GROUPS), METRICS, check_exact=True)


def test_bank_disagreement_names_row_and_board():
    i = 2
    bank = BANK.assign(depth=BANK["depth"].where(BANK["board_id"] != VERDICTS["board_id"][i], 9))
    with pytest.raises(
        InputError,
        match=rf"^v: row {i + 1} \(board_id '{VERDICTS['board_id'][i]}'\): depth is 4 "
        r"but the bank says 9",
    ):
        check_verdicts(VERDICTS, "v", bank=bank)
    with pytest.raises(InputError, match=r"^v: row 1 \(board_id .*\): board_id is not in the bank"):
        check_verdicts(VERDICTS, "v", bank=BANK.iloc[1:])


def test_a_board_with_two_depths_is_refused():
    v = VERDICTS.copy()
    j = int(np.flatnonzero(v["board_id"] == v["board_id"][0])[1])
    v.loc[j, ["depth", "economy", "excess", "optimal"]] = [3, np.nan, np.nan, False]
    v.loc[j, "status"] = "legal_noncompletion"
    with pytest.raises(InputError, match=rf"row {j + 1} .*depth is 3 but 4 on row 1 for the same board"):
        board_sums(v)


def test_jsonl_round_trip_and_missing_column(tmp_path):
    from fastspe.boundary.files import write_table

    path = tmp_path / "v.jsonl"
    write_table(VERDICTS, path)
    pd.testing.assert_frame_equal(compute_metrics(read_verdicts(path, BANK), by=GROUPS), METRICS, check_exact=True)
    write_table(VERDICTS.iloc[[0, 1, 1]], path)
    with pytest.raises(InputError, match=rf"^{path}: record 3 .*duplicate output"):
        read_verdicts(path)
    write_table(VERDICTS.drop(columns=["excess"]), path)
    with pytest.raises(InputError, match=rf"^{path}: its rows lack columns \['excess'\]"):
        read_verdicts(path)


def test_missing_file_and_wrong_kind(tmp_path):
    with pytest.raises(InputError, match=r"nope\.parquet: no such file"):
        read_verdicts(tmp_path / "nope.parquet")
    bad = tmp_path / "v.csv"
    bad.write_bytes(b"")
    with pytest.raises(InputError, match=r"v\.csv: empty file"):
        read_verdicts(bad)
    with pytest.raises(ValueError, match="unknown file type"):
        write_verdicts(VERDICTS, tmp_path / "v.txt")


# ---- the fuzz ---------------------------------------------------------------------------------------------

# A condition is free text: renaming it in a CSV (which has no checksum) makes a different, valid file,
# so edits leave that column alone. Every other column either feeds no metric or is tied to others.
EDITABLE = [c for c in VERDICT_COLUMNS if c != "condition"]


@st.composite
def damage(draw):
    kind = draw(st.sampled_from(["duplicate", "edit", "null", "flip", "cut_parquet", "cut_csv"]))
    n = len(VERDICTS)
    if kind == "duplicate":
        return kind, (draw(st.integers(0, n - 1)), draw(st.integers(0, n)))
    if kind in ("edit", "null"):
        col = draw(st.sampled_from(EDITABLE))
        row = draw(st.integers(0, n - 1))
        value = (
            None
            if kind == "null"
            else draw(
                st.one_of(
                    st.sampled_from(VERDICTS[col].tolist()),  # a value of the same column from another row
                    st.integers(-3, 40),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.booleans(),
                    st.sampled_from(["", "complete", "illegal", "legal_noncompletion", "format", "R", "UD", "x"]),
                )
            )
        )
        return kind, (col, row, value)
    if kind == "flip":
        return kind, draw(
            st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=3)
        )
    return kind, draw(st.floats(0, 1, exclude_max=True))


def _damaged_file(folder: Path, kind: str, arg) -> Path | None:
    if kind in ("flip", "cut_parquet"):
        path = folder / "v.parquet"
        write_verdicts(VERDICTS, path)
        data = bytearray(path.read_bytes())
        if kind == "flip":
            for where, bit in arg:
                data[int(where * len(data))] ^= 1 << bit
        else:
            data = data[: int(arg * len(data))]
        path.write_bytes(bytes(data))
        return path
    if kind == "cut_csv":
        path = folder / "v.csv"
        write_verdicts(VERDICTS, path)
        # A CSV has no checksum or row count: cut at a line end, or anywhere before its last line, it
        # is a shorter valid file (the reason to keep verdicts in Parquet). Cut inside the last line,
        # the broken row must be refused or read as it was.
        data = path.read_bytes()
        start = data.rindex(b"\n", 0, len(data) - 1) + 1
        cut = start + 1 + int(arg * (len(data) - 2 - start))
        path.write_bytes(data[:cut])
        return path
    v = VERDICTS.astype(object)
    if kind == "duplicate":
        row, at = arg
        v = pd.concat([v.iloc[:at], v.iloc[[row]], v.iloc[at:]], ignore_index=True)
    else:
        col, row, value = arg
        v.loc[row, col] = value
    path = folder / "v.csv"
    v.to_csv(path, index=False)
    return path


@settings(
    max_examples=int(os.environ.get("FASTSPE_FUZZ_EXAMPLES", 300)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(damage())
def test_damage_gives_the_same_metrics_or_an_error_naming_the_file(hurt):
    kind, arg = hurt
    with tempfile.TemporaryDirectory() as folder:
        path = _damaged_file(Path(folder), kind, arg)
        if path is None:
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a flip in the digest's key: read without proof, still checked
                got = read_verdicts(path, bank=BANK)
        except ValueError as exc:  # InputError is a ValueError
            assert str(exc).startswith(f"{path}:"), str(exc)
            event(f"{kind}: refused")
            return
        event(f"{kind}: read, same metrics")
        pd.testing.assert_frame_equal(compute_metrics(got, by=GROUPS), METRICS, check_exact=True)
        assert os.path.getsize(path) > 0
