"""``fastspe bank build | verify | show`` through ``main(argv)``."""

from __future__ import annotations

import json

import pandas as pd

from fastspe.boundary.banks import read_bank
from fastspe.cli import main


def test_build_verify_show_parquet_and_jsonl(tmp_path, capsys):
    for name in ("bank.parquet", "bank.jsonl"):
        out = tmp_path / name
        assert main(["bank", "build", "--out", str(out)]) == 0
        bank = read_bank(out)
        assert len(bank) == 400 and bank["initial"].map(len).eq(16).all()
        assert main(["bank", "verify", str(out)]) == 0
        assert "all 400 boards verified" in capsys.readouterr().out
    assert read_bank(tmp_path / "bank.parquet").equals(read_bank(tmp_path / "bank.jsonl"))
    assert main(["bank", "show", str(tmp_path / "bank.parquet")]) == 0
    shown = capsys.readouterr().out
    assert "400 boards" in shown and "5,10" in shown


def test_verify_names_failing_boards(tmp_path, capsys):
    out = tmp_path / "bank.jsonl"
    assert main(["bank", "build", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    rows[3]["certificate"] = rows[3]["certificate"][:-2]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    capsys.readouterr()
    assert main(["bank", "verify", str(out)]) == 1
    assert f"FAIL {rows[3]['board_id']}" in capsys.readouterr().out


def test_custom_design_and_failed_build_leave_nothing(tmp_path, capsys):
    design = tmp_path / "d.json"
    design.write_text(json.dumps({"seed": 3, "cells": [{"cohort": "x", "blocks": [5, 10], "depth": 10, "count": 11}]}))
    out = tmp_path / "bank.parquet"
    assert main(["bank", "build", "--design", str(design), "--out", str(out)]) == 2
    assert "found 10 distinct certified boards" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [design]
    design.write_text(json.dumps({"seed": 3, "cells": [{"cohort": "x", "blocks": [5, 10], "depth": 12, "count": 4}]}))
    assert main(["bank", "build", "--design", str(design), "--seed", "8", "--out", str(out)]) == 0
    bank = pd.read_parquet(out)
    assert len(bank) == 4 and (bank["seed"] == 8).all() and bank["board_id"].str.startswith("x-k2-d12-b5.10-").all()


def test_bad_output_extension(tmp_path, capsys):
    assert main(["bank", "build", "--out", str(tmp_path / "bank.txt")]) == 2
    assert "a bank file is .parquet or .jsonl (got '.txt')" in capsys.readouterr().err


def test_bank_file_missing_a_column_names_it(tmp_path, capsys):
    out = tmp_path / "bank.parquet"
    assert main(["bank", "build", "--out", str(out)]) == 0
    pd.read_parquet(out).drop(columns=["seed"]).to_parquet(out)
    assert main(["bank", "verify", str(out)]) == 2
    assert (
        f"{out}: not a bank: its rows lack columns ['seed']; make one with `fastspe bank build`"
        in capsys.readouterr().err
    )
