"""``python -m benchmarks.compare``: ratio tables from pytest-benchmark JSON, and a drop beyond the margin fails."""

from __future__ import annotations

import json

from benchmarks.compare import main, ratios


def bench_json(path, values: dict) -> str:
    path.write_text(
        json.dumps(
            {"benchmarks": [{"fullname": k, "extra_info": ({"ratio": v} if v else {})} for k, v in values.items()]}
        )
    )
    return str(path)


def test_ratios_save_and_compare(tmp_path, capsys):
    saved = bench_json(tmp_path / "saved.json", {"a": 100.0, "b": 20.0, "no_ratio": None})
    assert ratios(saved) == {"a": 100.0, "b": 20.0}
    table = tmp_path / "table.json"
    assert main([saved, "--save", str(table)]) == 0
    assert json.loads(table.read_text()) == {"ratios": {"a": 100.0, "b": 20.0}}
    same = bench_json(tmp_path / "same.json", {"a": 80.0, "b": 25.0, "new": 3.0})  # a 20% drop: within 30%
    assert main([str(table), same]) == 0
    worse = bench_json(tmp_path / "worse.json", {"a": 50.0, "b": 20.0})  # a halved
    assert main([str(table), worse]) == 1
    err = capsys.readouterr().err
    assert "error: a: ratio 50.0 is 50% below the saved 100.0" in err and "b:" not in err
    assert main([str(table), worse, "--margin", "0.6"]) == 0


def test_bad_files(tmp_path, capsys):
    (tmp_path / "x.json").write_text("[1, 2]")
    assert main([str(tmp_path / "x.json"), str(tmp_path / "x.json")]) == 2
    assert "neither pytest-benchmark JSON" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.json")]) == 2
    other = bench_json(tmp_path / "o.json", {"z": 1.0})
    assert main([bench_json(tmp_path / "a.json", {"a": 1.0}), other]) == 2  # nothing in common
