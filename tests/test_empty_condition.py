"""A responses row whose condition is empty is refused when the responses are read, naming the file and line (or
row), in every format and on every path of ``fastspe score``: ``read_verdicts`` refuses an empty condition, so a
verdicts file must never be written with one."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.bank.design import paper_design
from fastspe.boundary import jsonl_records, response_stream
from fastspe.boundary.jsonl_records import KnownKeys, scanned_table
from fastspe.boundary.responses import read_responses
from fastspe.cli import main
from fastspe.errors import UserError

MESSAGE = "condition is empty"
# the fields the streaming reader asks the scanner for (fastspe.boundary.response_stream)
FIELDS = pa.schema(
    [
        ("board_id", pa.string()),
        ("condition", pa.string()),
        ("trial", pa.int64()),
        ("response", pa.string()),
        ("status", pa.string()),
        ("event", pa.string()),
    ]
)


@pytest.fixture(scope="module")
def bank_file(tmp_path_factory):
    bank = build_bank(paper_design()).head(4)
    path = tmp_path_factory.mktemp("bank") / "bank.parquet"
    write_bank(bank, path)
    return bank, path


def rows(bank, empty_at: int, status: str | None = None) -> list[dict]:
    out = []
    for i, board in enumerate(bank["board_id"]):
        row = {"board_id": board, "condition": "" if i == empty_at else "m", "trial": 0, "response": "MOVES: U"}
        if status is not None:
            row["status"] = "error" if i == empty_at else status
        out.append(row)
    return out


def write(records: list[dict], path):
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif path.suffix == ".csv":
        pd.DataFrame(records).to_csv(path, index=False)
    else:
        pd.DataFrame(records).to_parquet(path)
    return path


def score(bank_path, responses, tmp_path, capsys) -> str:
    out = tmp_path / "verdicts.parquet"
    code = main(["score", "--bank", str(bank_path), "--responses", str(responses), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists(), err  # refused, and no verdicts file left behind
    return err


@pytest.mark.parametrize("suffix, where", [(".jsonl", "line 3"), (".csv", "line 4"), (".parquet", "row 3")])
def test_score_refuses_an_empty_condition_naming_file_and_line(bank_file, tmp_path, capsys, suffix, where):
    bank, bank_path = bank_file
    responses = write(rows(bank, empty_at=2), tmp_path / f"answers{suffix}")
    err = score(bank_path, responses, tmp_path, capsys)
    assert f"{responses}: {where}" in err and MESSAGE in err


@pytest.mark.slow
def test_the_jsonl_scanner_takes_the_file_and_the_checker_still_refuses(bank_file, tmp_path, capsys, monkeypatch):
    """The fast path: the compiled scanner vouches for the file's bytes; the empty condition is caught after it."""
    monkeypatch.setattr(response_stream, "SCANNER_MIN_BYTES", 0)  # (a small file goes to pyarrow otherwise)
    bank, bank_path = bank_file
    responses = write(rows(bank, empty_at=1), tmp_path / "answers.jsonl")
    data = np.frombuffer(responses.read_bytes(), dtype=np.uint8)
    table = scanned_table(data, FIELDS, KnownKeys(FIELDS.names))
    assert table is not None and table.column("condition").to_pylist()[1] == ""
    assert MESSAGE in score(bank_path, responses, tmp_path, capsys)


def test_arrows_reader_path_refuses_it_too(bank_file, tmp_path, capsys, monkeypatch):
    """The fallback: where the scanner declines, pyarrow's JSON reader reads the chunk; the same refusal."""
    bank, bank_path = bank_file
    monkeypatch.setattr(jsonl_records, "scanned_table", lambda *a, **k: None)
    responses = write(rows(bank, empty_at=0), tmp_path / "answers.jsonl")
    err = score(bank_path, responses, tmp_path, capsys)
    assert f"{responses}: line 1" in err and MESSAGE in err


def test_a_failed_attempt_with_an_empty_condition_is_refused_as_well(bank_file, tmp_path, capsys):
    bank, bank_path = bank_file
    responses = write(rows(bank, empty_at=3, status="ok"), tmp_path / "log.jsonl")
    err = score(bank_path, responses, tmp_path, capsys)
    assert f"{responses}: line 4" in err and MESSAGE in err


def test_the_line_reader_refuses_or_skips_it(bank_file, tmp_path):
    bank, _ = bank_file
    responses = write(rows(bank, empty_at=2), tmp_path / "answers.jsonl")
    with pytest.raises(UserError, match=rf"answers.jsonl: line 3: {MESSAGE}"):
        read_responses(responses, bank=bank)
    with pytest.warns(UserWarning, match=MESSAGE):
        kept = read_responses(responses, bank=bank, skip_invalid=True)
    assert len(kept) == 3 and (kept["condition"] == "m").all()
