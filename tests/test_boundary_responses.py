"""Damaged responses and run logs through ``fastspe score``: a value of the wrong type is refused naming the
file and line, by the streamed (Parquet out) and the in-memory (CSV out) paths alike, and leaves no output."""

from __future__ import annotations

import pandas as pd
import pytest

from fastspe.boundary.banks import write_bank
from fastspe.boundary.verdict_files import read_verdicts

from .boundary_helpers import assert_refused, oracle_records, run_cli, tiny_bank, write_jsonl

OUTS = ["v.parquet", "v.csv"]


@pytest.fixture
def folder(tmp_path):
    write_bank(tiny_bank(), tmp_path / "bank.parquet")
    return tmp_path


def _line(index: int = 0, **changes) -> dict:
    rec = dict(oracle_records(tiny_bank())[index])
    rec.update(changes)
    return rec


def _score(capsys, folder, responses, out_name):
    out = folder / out_name
    code, stdout, err = run_cli(
        capsys, ["score", "--bank", folder / "bank.parquet", "--responses", responses, "--out", out]
    )
    return code, err, out


@pytest.mark.parametrize("out_name", OUTS)
@pytest.mark.parametrize(
    "response, kind",
    [
        (["MOVES: R"], "a list"),
        (5, "a number"),
        (1.5, "a number"),
        ({"text": "MOVES: R"}, "an object"),
        (True, "a boolean"),
    ],
)
def test_response_that_is_not_text_is_refused(folder, capsys, out_name, response, kind):
    # was scored silently (a list or number stringified into a "response")
    path = write_jsonl(folder / "r.jsonl", [_line(0), _line(1, response=response)])
    code, err, out = _score(capsys, folder, path, out_name)
    assert_refused(code, err, names=[path, "line 2", f"response is {kind}"], absent=[out])


RUN_LOG_DEFECTS = {
    "trial text": ({"trial": "x"}, "trial x is not an integer"),
    "trial digits as text": ({"trial": "1"}, "trial 1 is not an integer"),
    "trial 1.5": ({"trial": 1.5}, "trial 1.5 is not an integer"),
    "trial 10**30": ({"trial": 10**30}, f"trial {10**30} is outside"),
    "trial -1": ({"trial": -1}, "trial -1 is outside"),
    "trial true": ({"trial": True}, "trial True is not an integer"),
    "board_id 5": ({"board_id": 5}, "board_id is a number, not text"),
    "condition 5": ({"condition": 5}, "condition is a number, not text"),
    "condition list": ({"condition": ["a"]}, "condition is a list, not text"),
    "status 3": ({"status": 3}, "status is a number, not text"),
    "status false": ({"status": False}, "status is a boolean, not text"),
}


@pytest.mark.parametrize("out_name", OUTS)
@pytest.mark.parametrize("failed", [False, True], ids=["completed", "failed attempt"])
@pytest.mark.parametrize("defect", list(RUN_LOG_DEFECTS))
def test_run_log_line_with_a_wrong_type_is_refused(folder, capsys, out_name, failed, defect):
    change, message = RUN_LOG_DEFECTS[defect]
    attempt = {"status": "error", "response": None} if failed else {"status": "ok"}
    lines = [
        _line(0, status="ok", attempt=0),
        _line(1, attempt=0, **{**attempt, **change}),
        _line(2, status="ok", attempt=0),
    ]
    path = write_jsonl(folder / "run.jsonl", lines)
    code, err, out = _score(capsys, folder, path, out_name)
    assert_refused(code, err, names=[path, "line 2", message], absent=[out])


@pytest.mark.parametrize("out_name", OUTS)
def test_parquet_responses_with_numeric_board_ids_are_refused(folder, capsys, out_name):
    frame = pd.DataFrame(oracle_records(tiny_bank()))
    frame["board_id"] = range(len(frame))
    frame.to_parquet(folder / "r.parquet")
    code, err, out = _score(capsys, folder, folder / "r.parquet", out_name)
    assert_refused(code, err, names=["r.parquet", "row 1", "board_id is a number"], absent=[out])


@pytest.mark.parametrize("out_name", OUTS)
def test_csv_keys_are_text_and_score(folder, capsys, out_name):
    # a CSV stores everything as text: trial "1" is trial 1, a board id "5" is a board id, not a number
    frame = pd.DataFrame(oracle_records(tiny_bank()))
    frame.to_csv(folder / "r.csv", index=False)
    code, err, out = _score(capsys, folder, folder / "r.csv", out_name)
    assert code == 0, err
    assert len(read_verdicts(out).frame) == len(frame)


@pytest.mark.parametrize("out_name", OUTS)
def test_whole_number_trial_and_null_status_still_score(folder, capsys, out_name):
    lines = [_line(0, trial=0.0), _line(1, status=None), _line(2, status="ok", attempt=3)]
    path = write_jsonl(folder / "r.jsonl", lines)
    code, err, out = _score(capsys, folder, path, out_name)
    assert code == 0, err
    assert sorted(read_verdicts(out).frame["status"]) == ["complete"] * 3


@pytest.mark.parametrize("which", ["responses", "bank"])
@pytest.mark.parametrize("content", [b"null\n", b"\n  null\n" + b'{"board_id": "x"}\n'])
def test_a_null_line_does_not_crash_the_process(folder, which, content):
    # pyarrow 26's JSON reader dies (SIGSEGV) on a block starting with `null`: the readers never hand it one.
    # A subprocess, so that a crash fails this test instead of ending the test run.
    import subprocess
    import sys
    from pathlib import Path

    bad = folder / "null.jsonl"
    bad.write_bytes(content)
    bank = bad if which == "bank" else folder / "bank.parquet"
    args = [sys.executable, "-m", "fastspe", "score", "--bank", bank, "--responses", bad, "--out", folder / "v.parquet"]
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[1]
    )
    line = content.split(b"\n").index(next(ln for ln in content.split(b"\n") if ln.strip() == b"null")) + 1
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert_refused(
        done.returncode, done.stderr, names=[bad, f"line {line}", "not a JSON object"], absent=[folder / "v.parquet"]
    )


@pytest.mark.parametrize("out_name", OUTS)
def test_parquet_responses_with_garbled_pandas_metadata_score(folder, capsys, out_name):
    # the pandas bookkeeping in a Parquet file's metadata is not the responses: a damaged one (here a column
    # entry without its keys) was a KeyError traceback
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pd.DataFrame(oracle_records(tiny_bank())))
    meta = dict(table.schema.metadata)
    meta[b"pandas"] = meta[b"pandas"].replace(b'"pandas_type"', b'"pandas_typo"')
    pq.write_table(table.replace_schema_metadata(meta), folder / "r.parquet")
    code, err, out = _score(capsys, folder, folder / "r.parquet", out_name)
    assert code == 0, err
    assert len(read_verdicts(out).frame) == len(tiny_bank())


@pytest.mark.parametrize("out_name", OUTS)
def test_parquet_run_log_of_failed_attempts_with_numeric_answers(folder, capsys, out_name):
    # a numeric response column whose rows are all failed attempts: nothing to score (was a numpy TypeError)
    frame = pd.DataFrame(oracle_records(tiny_bank())[:1]).assign(response=7, status="error", attempt=0)
    frame.to_parquet(folder / "r.parquet")
    code, err, out = _score(capsys, folder, folder / "r.parquet", out_name)
    assert_refused(code, err, names=["r.parquet", "no completed outputs"], absent=[out])


def test_parquet_text_that_is_not_utf8_is_named_damage(tmp_path, capsys):
    # found by the fuzz test: a Parquet file without page checksums decodes flipped text bytes blindly
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import write_bank
    from fastspe.boundary.responses import read_responses
    from fastspe.cli import main
    from fastspe.domains.sliding.bank.design import paper_design

    bank = build_bank(paper_design()).head(2)
    write_bank(bank, tmp_path / "bank.parquet")
    path = tmp_path / "r.parquet"
    table = pa.table(
        {"board_id": [str(bank["board_id"].iat[0])], "condition": ["c"], "trial": [0], "response": ["MOVES: U"]}
    )
    pq.write_table(table, path, compression="none", write_page_checksum=False)
    data = bytearray(path.read_bytes())
    data[data.find(b"primary-k")] = 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="not a readable Parquet file .*UTF8"):
        read_responses(path)
    assert (
        main(
            [
                "score",
                "--bank",
                str(tmp_path / "bank.parquet"),
                "--responses",
                str(path),
                "--out",
                str(tmp_path / "v.parquet"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "not a readable Parquet file" in err and "Traceback" not in err and not (tmp_path / "v.parquet").exists()
