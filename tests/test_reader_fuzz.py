"""Every reader, fed mutated copies of valid files through the command line (in-process).

Each run either exits 0 (with the clean file's results when the mutation cannot change meaning) or exits 2
with exactly one ``error:`` line and no traceback, and leaves nothing under the output name. The mutations:
byte flips, truncation, deleted and repeated lines, and JSON values replaced by wrong types, nulls, huge
numbers, NaN, control characters and ``[red]...[/]`` markup.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastspe.boundary.banks import write_bank

from .boundary_helpers import TINY_DESIGN, assert_refused, oracle_records, run_cli, tiny_bank, write_jsonl

EXAMPLES = int(os.environ.get("FASTSPE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

ODD_VALUES = [
    None,
    -1,
    0,
    2.5,
    10**30,
    -(10**30),
    2**63,
    float("nan"),
    float("inf"),
    True,
    "",
    "x" * 300,
    "\x1b[31m\x00\x07",
    "[red]x[/red]",
    "[/]",
    "\u202e",
    [],
    [None],
    [1.5],
    {"a": [1]},
    "\ud800",
]


@pytest.fixture(scope="module")
def clean():
    """Valid files of every kind, and what the commands make of them."""
    folder = Path(tempfile.mkdtemp())
    bank = tiny_bank()
    write_bank(bank, folder / "bank.parquet")
    write_bank(bank, folder / "bank.jsonl")
    (folder / "design.json").write_text(json.dumps(TINY_DESIGN, indent=1))
    answers = oracle_records(bank) + [
        {**r, "condition": "lazy", "response": "MOVES: U, U"} for r in oracle_records(bank)
    ]
    answers[1]["latency_s"] = 0.5
    write_jsonl(folder / "r.jsonl", answers)
    frame = pd.DataFrame(answers)
    frame.to_csv(folder / "r.csv", index=False)
    frame.to_parquet(folder / "r.parquet")
    for out in ("v.parquet", "v.csv"):
        assert (
            _run(
                None,
                ["score", "--bank", folder / "bank.parquet", "--responses", folder / "r.jsonl", "--out", folder / out],
            )[0]
            == 0
        )
    yield folder
    shutil.rmtree(folder)


def _run(capsys, args):
    if capsys is None:  # module setup: no capture fixture, and nothing to check
        from fastspe.cli import main

        return (main([str(a) for a in args]),)
    return run_cli(capsys, args)


# ---- mutations ------------------------------------------------------------------------------------------


def _edit_json_line(line: bytes, key_pick: int, value) -> bytes:
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return line
    if not isinstance(obj, dict) or not obj:
        return line
    target, keys = obj, list(obj)
    key = keys[key_pick % len(keys)]
    if isinstance(target[key], dict) and target[key]:  # design cells: edit inside
        target = target[key]
        key = list(target)[key_pick % len(target)]
    if isinstance(target[key], list) and target[key] and isinstance(target[key][0], dict):
        target = target[key][key_pick % len(target[key])]
        key = list(target)[key_pick % len(target)]
    target[key] = value
    return json.dumps(obj, allow_nan=True).encode()


@st.composite
def mutations(draw, text: bool):
    """(name, function bytes -> bytes, harmless): ``harmless`` mutations cannot change meaning."""
    kinds = ["flip", "truncate", "delete line", "repeat line"] + (
        ["edit value", "edit value", "blank line", "crlf", "trailing space"] if text else []
    )
    kind = draw(st.sampled_from(kinds))
    pos, bit = draw(st.integers(0, 10**6)), draw(st.integers(0, 7))
    value = draw(st.sampled_from(ODD_VALUES))

    def lines_of(data: bytes):
        lines = data.split(b"\n")
        return lines, pos % max(len(lines) - 1, 1)

    def apply(data: bytes) -> bytes:
        if kind == "flip":
            b = bytearray(data)
            b[pos % len(b)] ^= 1 << bit
            return bytes(b)
        if kind == "truncate":
            return data[: pos % len(data)]
        lines, i = lines_of(data)
        if kind == "delete line":
            del lines[i]
        elif kind == "repeat line":
            lines.insert(i, lines[i])
        elif kind == "edit value":
            lines[i] = _edit_json_line(lines[i], pos, value)
        elif kind == "blank line":
            lines.insert(i + 1, b"")
        elif kind == "crlf":
            lines = [ln + b"\r" if ln else ln for ln in lines]
        elif kind == "trailing space":
            lines[i] = lines[i] + b"  "
        return b"\n".join(lines)

    return kind, apply, kind in ("blank line", "crlf", "trailing space")


def _check(code: int, err: str, out: Path):
    """The common promise: exit 0 or a clean refusal."""
    assert "Traceback" not in err
    if code != 0:
        assert_refused(code, err, absent=[out])
    return code == 0


def _fresh(folder: Path, name: str) -> Path:
    path = folder / name
    if path.exists():
        path.unlink()
    return path


# ---- the readers ----------------------------------------------------------------------------------------


@FUZZ
@given(fmt=st.sampled_from(["jsonl", "parquet"]), mutation=st.data())
def test_bank_reader(clean, capsys, fmt, mutation):
    kind, apply, harmless = mutation.draw(mutations(text=fmt == "jsonl"))
    bad = clean / f"bad.{fmt}"
    bad.write_bytes(apply((clean / f"bank.{fmt}").read_bytes()))
    out = _fresh(clean, "fuzz.parquet")
    code, _, err = run_cli(capsys, ["score", "--bank", bad, "--responses", clean / "r.jsonl", "--out", out])
    ok = _check(code, err, out)
    if harmless:
        assert ok, err
    if ok:  # a bank the checks accept has the clean boards (a label may differ): the same replays
        replay = [
            "board_id",
            "condition",
            "trial",
            "depth",
            "L",
            "status",
            "error_kind",
            "first_error",
            "final_h",
            "min_h",
            "economy",
        ]
        assert pd.read_parquet(out)[replay].equals(pd.read_parquet(clean / "v.parquet")[replay])
    code, stdout, err = run_cli(capsys, ["bank", "verify", bad])
    assert "Traceback" not in err and code in (0, 1, 2)
    if code == 2:
        assert_refused(code, err)


@FUZZ
@given(mutation=st.data())
def test_design_reader(clean, capsys, mutation):
    kind, apply, harmless = mutation.draw(mutations(text=True))
    bad = clean / "bad-design.json"
    bad.write_bytes(apply((clean / "design.json").read_bytes()))
    out = _fresh(clean, "built.parquet")
    code, _, err = run_cli(capsys, ["bank", "build", "--design", bad, "--out", out])
    ok = _check(code, err, out)
    try:
        same = json.loads(bad.read_bytes()) == TINY_DESIGN
    except (UnicodeDecodeError, json.JSONDecodeError):
        same = False
    if harmless or same:
        assert ok, err
        assert pd.read_parquet(out).equals(pd.read_parquet(clean / "bank.parquet"))


@FUZZ
@given(
    fmt=st.sampled_from(["jsonl", "csv", "parquet"]), out_fmt=st.sampled_from(["parquet", "csv"]), mutation=st.data()
)
def test_responses_reader(clean, capsys, fmt, out_fmt, mutation):
    kind, apply, harmless = mutation.draw(mutations(text=fmt != "parquet"))
    if fmt == "csv" and kind in ("edit value", "trailing space"):
        harmless = False  # a CSV line is not JSON (no edit is made); a trailing space changes the last cell
    bad = clean / f"bad-r.{fmt}"
    bad.write_bytes(apply((clean / f"r.{fmt}").read_bytes()))
    out = _fresh(clean, f"fuzz.{out_fmt}")
    code, _, err = run_cli(capsys, ["score", "--bank", clean / "bank.parquet", "--responses", bad, "--out", out])
    ok = _check(code, err, out)
    if harmless:
        assert ok, err
        want = pd.read_parquet(clean / "v.parquet") if out_fmt == "parquet" else pd.read_csv(clean / "v.csv")
        got = pd.read_parquet(out) if out_fmt == "parquet" else pd.read_csv(out)
        keys = ["condition", "board_id", "trial"]
        pd.testing.assert_frame_equal(
            got.sort_values(keys).reset_index(drop=True), want.sort_values(keys).reset_index(drop=True)
        )


@FUZZ
@given(mutation=st.data())
def test_verdicts_reader_csv(clean, capsys, mutation):
    _verdicts_reader(clean, capsys, "csv", mutation)


@FUZZ
@given(mutation=st.data())
def test_verdicts_reader_parquet(clean, capsys, mutation):
    _verdicts_reader(clean, capsys, "parquet", mutation)


def _verdicts_reader(clean, capsys, fmt, mutation):
    kind, apply, harmless = mutation.draw(mutations(text=fmt == "csv"))
    bad = clean / f"bad-v.{fmt}"
    bad.write_bytes(apply((clean / f"v.{fmt}").read_bytes()))
    out = _fresh(clean, "metrics.csv")
    code, _, err = run_cli(capsys, ["metrics", "--verdicts", bad, "--out", out])
    _check(code, err, out)


def test_verdicts_with_garbled_pandas_metadata_are_read_or_refused(clean, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pd.read_parquet(clean / "v.parquet"))  # as the in-memory score path writes it
    meta = dict(table.schema.metadata)
    meta[b"pandas"] = meta[b"pandas"].replace(b'"pandas_type"', b'"pandas_typo"')
    pq.write_table(table.replace_schema_metadata(meta), clean / "garbled-v.parquet")
    out = _fresh(clean, "metrics.csv")
    code, _, err = run_cli(capsys, ["metrics", "--verdicts", clean / "garbled-v.parquet", "--out", out])
    _check(code, err, out)
