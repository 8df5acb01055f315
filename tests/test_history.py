"""The run history: add, trend, compare between stored runs; one bank per store; an append-only index
that is checked whole on every read; every stored file checked against its checksum; one writer at a time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fastspe.boundary.verdict_files import read_verdicts
from fastspe.cli import main
from fastspe.stats.compare import compare

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """A bank and three 'checkpoints' of one model (baseline planners renamed), and another bank."""
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.boundary.banks import write_bank
    from fastspe.domains.sliding.planners.baselines import baseline_responses
    from fastspe.boundary.verdict_files import write_verdicts
    from fastspe.domains.sliding.bank.design import paper_design
    from fastspe.scoring.score import score_responses

    folder = tmp_path_factory.mktemp("history")
    bank = build_bank(paper_design()).iloc[::4].reset_index(drop=True)
    write_bank(bank, folder / "bank.parquet")
    write_bank(
        build_bank(
            paper_design(),
        )
        .iloc[1::4]
        .reset_index(drop=True),
        folder / "other.parquet",
    )
    paths = []
    for i, planner in enumerate(("oracle", "detour", "noisy")):
        answers = baseline_responses(bank, planner).assign(condition="my-model")
        path = folder / f"ck{i}.parquet"
        write_verdicts(score_responses(bank, answers), path)
        paths.append(path)
    return folder, paths


def _add(folder, store, path, label, draws="100") -> list[str]:
    return [
        "history",
        "add",
        "--store",
        str(store),
        "--bank",
        str(folder / "bank.parquet"),
        "--verdicts",
        str(path),
        "--label",
        label,
        "--draws",
        draws,
    ]


@pytest.fixture(scope="module")
def stored(checkpoints, tmp_path_factory):
    """A store with runs 'a' (oracle) and 'b' (detour); tests damage copies of it (``copy``)."""
    folder, paths = checkpoints
    store = tmp_path_factory.mktemp("stored") / "store"
    for label, path in (("a", paths[0]), ("b", paths[1])):
        assert main(_add(folder, store, path, label)) == 0
    return store


@pytest.fixture
def copy(stored, tmp_path):
    target = tmp_path / "store"
    shutil.copytree(stored, target)
    return target


def _index(store) -> list[dict]:
    return [json.loads(line) for line in (Path(store) / "index.jsonl").read_text().splitlines()]


def assert_refused(capsys, code, names):
    """Exit 2, one `error:` line naming each of ``names``, no table, no traceback."""
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for name in names:
        assert name in err, (name, err)
    assert "Traceback" not in err and "Unknown format code" not in err
    assert "0.999" not in out and "by run" not in out  # nothing was shown
    return err


def test_add_show_compare(checkpoints, tmp_path, capsys):
    folder, paths = checkpoints
    store = str(tmp_path / "store")
    for i, path in enumerate(paths):
        assert (
            main(
                [
                    "history",
                    "add",
                    "--store",
                    store,
                    "--bank",
                    str(folder / "bank.parquet"),
                    "--verdicts",
                    str(path),
                    "--label",
                    f"step-{i}",
                    "--meta",
                    "lr=1e-4",
                    "--draws",
                    "300",
                ]
            )
            == 0
        )
    index = _index(store)
    assert [r["label"] for r in index] == ["step-0", "step-1", "step-2"] and index[0]["meta"] == {"lr": "1e-4"}
    assert [r["number"] for r in index] == [1, 2, 3] and len({r["bank_hash"] for r in index}) == 1
    assert all(set(r["digests"]) == {"verdicts", "metrics"} for r in index)
    capsys.readouterr()
    assert main(["history", "show", "--store", store, "--metric", "E", "--out", str(tmp_path / "trend")]) == 0
    shown = capsys.readouterr().out
    assert shown.index("step-0") < shown.index("step-1") < shown.index("step-2")
    trend = pd.read_csv(tmp_path / "trend" / "trend.csv")
    primary = trend[trend["cohort"] == "primary"].set_index("label")["estimate"]
    assert primary["step-0"] == 1.0 and primary["step-1"] < 1.0  # oracle, then detours
    assert {p.suffix for p in (tmp_path / "trend").iterdir()} == {".csv", ".pdf", ".png", ".svg"}
    # history compare = fastspe compare on the two stored runs
    assert (
        main(["history", "compare", "step-0", "step-1", "--store", store, "--draws", "300", "--fail-on-regression"])
        == 1
    )
    assert "step-1/my-model vs step-0/my-model" in capsys.readouterr().out
    assert (
        main(["history", "compare", "step-1", "step-0", "--store", store, "--draws", "300", "--fail-on-regression"])
        == 0
    )


def test_one_label_one_run_one_bank(checkpoints, tmp_path, capsys, monkeypatch):
    folder, paths = checkpoints
    monkeypatch.setenv("FASTSPE_HISTORY", str(tmp_path / "env-store"))
    add = ["history", "add", "--bank", str(folder / "bank.parquet"), "--verdicts", str(paths[0]), "--draws", "100"]
    assert main(add + ["--label", "a"]) == 0
    assert (tmp_path / "env-store" / "index.jsonl").is_file()  # $FASTSPE_HISTORY is the default store
    before = (tmp_path / "env-store" / "index.jsonl").read_bytes()
    capsys.readouterr()
    assert_refused(capsys, main(add + ["--label", "a"]), ["--label 'a': is already in the history (run 1"])
    code = main(add[:2] + ["--bank", str(folder / "other.parquet"), "--verdicts", str(paths[1]), "--label", "b"])
    err = assert_refused(capsys, code, [])
    assert "--store " in err and "is not the bank of the stored runs" in err or "board" in err
    assert (tmp_path / "env-store" / "index.jsonl").read_bytes() == before  # nothing appended
    assert_refused(capsys, main(add + ["--label", " padded"]), ["--label ' padded': give 1-100 printable"])
    assert_refused(capsys, main(add + ["--label", "x" * 101]), ["--label "])


def test_api_errors_name_parameters_not_options(checkpoints, tmp_path):
    from fastspe.boundary.banks import bank_frame, read_bank_table
    from fastspe.boundary.verdict_files import read_verdicts
    from fastspe.stats.history import History, ParameterError

    folder, paths = checkpoints
    table = read_bank_table(folder / "bank.parquet")
    verdicts = read_verdicts(paths[0], bank=bank_frame(table))
    history = History(tmp_path / "s")
    bad = {
        "label": dict(label=" padded"),
        "meta": dict(meta={"lr": 1e-4}),
        "draws": dict(draws=0),
        "seed": dict(seed=-1),
    }
    bad_too = [
        ("label", dict(label="ckpt\udcff")),
        ("meta", dict(meta={"lr": "\udcff"})),
        ("draws", dict(draws=True)),
        ("label", dict(label="a\u202eb")),
    ]
    for parameter, kwargs in list(bad.items()) + bad_too:
        with pytest.raises(ParameterError) as exc:
            history.add(table, verdicts, **{"label": "ok", **kwargs})
        assert exc.value.parameter == parameter and str(exc.value).startswith(f"{parameter} ")
        assert "--" not in str(exc.value)
    assert not (tmp_path / "s" / "index.jsonl").exists()
    history.add(table, verdicts, "ok", draws=50)
    other = read_bank_table(folder / "other.parquet")
    with pytest.raises(ParameterError, match=r"^store '.*': this bank .* another store$") as exc:
        history.add(other, read_verdicts(paths[0]).frame.iloc[:0], "new", draws=50)
    assert exc.value.parameter == "store"
    with pytest.raises(ParameterError, match=r"^label 'ok': is already in the history"):
        history.add(table, verdicts, "ok", draws=50)
    with pytest.raises(ParameterError, match="^label_b 'ok': is the baseline run too"):
        from fastspe.stats.history import paired_runs

        paired_runs(history, "ok", "ok")
    with pytest.raises(ParameterError, match="^metric 'XYZ': is not in the history"):
        history.trend("XYZ")


def test_unknown_labels_and_empty_stores_are_named(stored, tmp_path, capsys):
    assert_refused(
        capsys,
        main(["history", "compare", "a", "nope", "--store", str(stored)]),
        ["no run labelled 'nope' (runs: 'a', 'b')"],
    )
    assert_refused(capsys, main(["history", "show", "--store", str(tmp_path / "empty")]), ["the history is empty"])
    assert_refused(
        capsys,
        main(["history", "show", "--store", str(stored), "--metric", "XYZ"]),
        ["--metric 'XYZ': is not in the history"],
    )


def test_a_run_compared_with_itself_is_refused(stored, capsys):
    assert_refused(
        capsys,
        main(["history", "compare", "a", "a", "--store", str(stored)]),
        ["LABEL_B 'a': is the baseline run too: a run compared with itself"],
    )


def test_two_runs_of_one_verdicts_file_are_compared_with_a_warning(checkpoints, copy, capsys):
    folder, paths = checkpoints
    assert main(_add(folder, copy, paths[0], "a-again")) == 0
    capsys.readouterr()
    assert main(["history", "compare", "a", "a-again", "--store", str(copy), "--draws", "100"]) == 0
    assert "hold identical verdicts" in capsys.readouterr().err


# ---- the index: every damaged or inconsistent line is refused, naming the file and the line ------------


def _set(key, value):
    return lambda line: {**line, key: value}


def _drop(*keys):
    return lambda line: {k: v for k, v in line.items() if k not in keys}


LINE_CASES = {  # damage to line 2 (run 'b') -> what the error says
    "duplicate number": (_set("number", 1), "run number 1 repeats an earlier run's number"),
    "number as text": (_set("number", "2"), 'number "2" (a string) is not a whole number'),
    "number true": (_set("number", True), "number true (true/false) is not a whole number"),
    "number 1.5": (_set("number", 1.5), "number 1.5 (a fraction) is not a whole number"),
    "number 2.0": (_set("number", 2.0), "number 2.0 (a fraction) is not a whole number"),
    "number null": (_set("number", None), "number null (null) is not a whole number"),
    "number gap": (_set("number", 3), "run number 3 should be 2"),
    "number 0": (_set("number", 0), "number 0 is not a whole number >= 1"),
    "missing number": (_drop("number"), "missing key(s) 'number'"),
    "missing keys": (_drop("label", "seed"), "missing key(s) 'label', 'seed'"),
    "old store": (_drop("digests"), "missing key(s) 'digests'; stores written before"),
    "unknown key": (_set("extra", 1), "unknown key(s) 'extra'"),
    "label repeated": (_set("label", "a"), "label 'a' is already the label of line 1"),
    "label not text": (_set("label", 7), "label 7 is not a run label"),
    "label control": (_set("label", "a\x1bb"), "is not a run label"),
    "other bank": (_set("bank_hash", "0" * 32), "bank_hash 00000000000000000000000000000000 differs from line 1"),
    "conditions": (_set("conditions", "my-model"), 'conditions "my-model" (a string) is not a non-empty list'),
    "meta": (_set("meta", {"lr": 0.1}), "meta "),
    "draws": (_set("draws", "300"), 'draws "300" (a string)'),
    "seed": (_set("seed", -1), "seed -1 is not a whole number >= 0"),
    "NaN": (_set("seed", float("nan")), "not JSON: NaN is not a JSON number"),
    "digests": (_set("digests", {"verdicts": "x"}), "digests "),
    "digest": (lambda line: {**line, "digests": {**line["digests"], "metrics": "ab"}}, 'digests.metrics "ab"'),
}
RAW_CASES = {  # line 2 replaced by these bytes
    "not json": (b"{not json", "not a history entry (not JSON"),
    "a list": (b"[1, 2]", "not a history entry (a JSON list, not an object)"),
    "a string": (b'"run"', "a JSON str, not an object"),
    "not utf-8": (b'{"label": "\xff\xfe"}', "not UTF-8 text (byte 0xff at column 12)"),
    "nested deep": (b"[" * 100000 + b"]" * 100000, "not a history entry"),
    "repeated key": (None, "key 'number' appears twice"),
}


def _damage_line_2(store, case):
    lines = (store / "index.jsonl").read_bytes().split(b"\n")
    if case in LINE_CASES:
        lines[1] = json.dumps(LINE_CASES[case][0](json.loads(lines[1])), ensure_ascii=False).encode()
    elif case == "repeated key":
        lines[1] = lines[1].replace(b'"number": 2', b'"number": 2, "number": 1')
    else:
        lines[1] = RAW_CASES[case][0]
    (store / "index.jsonl").write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("case", list(LINE_CASES) + list(RAW_CASES))
def test_damaged_index_lines_are_refused_naming_file_and_line(checkpoints, copy, capsys, case):
    _damage_line_2(copy, case)
    expected = {**LINE_CASES, **RAW_CASES}[case][1]
    for argv in (["history", "show"], ["history", "compare", "a", "b"]):
        err = assert_refused(capsys, main(argv + ["--store", str(copy)]), ["index.jsonl: line 2: ", expected])
        assert "the store is damaged" in err
    before = (copy / "index.jsonl").read_bytes()
    folder, paths = checkpoints  # no add to a damaged index either
    assert_refused(capsys, main(_add(folder, copy, paths[2], "c")), ["index.jsonl: line 2: "])
    assert (copy / "index.jsonl").read_bytes() == before and not (copy / "runs" / "0003.parquet").exists()


def test_damaged_index_refused_through_the_api(copy):
    from fastspe.boundary.errors import InputError
    from fastspe.stats.history import History

    _damage_line_2(copy, "number as text")
    with pytest.raises(InputError, match=r"index\.jsonl: line 2: number \"2\""):
        History(copy).runs()


def test_blank_lines_and_a_lost_final_newline_are_harmless(checkpoints, copy, capsys):
    folder, paths = checkpoints
    index = copy / "index.jsonl"
    index.write_bytes(index.read_bytes().replace(b"\n", b"\n\n").rstrip(b"\n"))  # an editor's doing
    assert main(_add(folder, copy, paths[2], "c")) == 0
    lines = [line for line in index.read_text().splitlines() if line.strip()]
    assert [json.loads(line)["number"] for line in lines] == [1, 2, 3]
    capsys.readouterr()
    assert main(["history", "show", "--store", str(copy)]) == 0


def test_a_failed_append_leaves_no_broken_line(checkpoints, copy, monkeypatch):
    from fastspe.stats.history import History

    folder, paths = checkpoints
    before = (copy / "index.jsonl").read_bytes()

    index, fsync = os.stat(copy / "index.jsonl").st_ino, os.fsync

    def full_disk(fd):  # the line is written, then the index cannot be synced
        if os.fstat(fd).st_ino == index:
            raise OSError(28, "No space left on device")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", full_disk)
    from fastspe.boundary.banks import bank_frame, read_bank_table
    from fastspe.boundary.verdict_files import read_verdicts

    table = read_bank_table(folder / "bank.parquet")
    with pytest.raises(OSError, match="No space left"):
        History(copy).add(table, read_verdicts(paths[2], bank=bank_frame(table)), "c", draws=50)
    monkeypatch.undo()
    assert (copy / "index.jsonl").read_bytes() == before
    assert [r.label for r in History(copy).runs()] == ["a", "b"]


# ---- stored files: checked against the index on every read ----------------------------------------------


def _page_ranges(path) -> list[tuple[int, int]]:
    meta = pq.ParquetFile(path).metadata
    ranges = []
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            col = meta.row_group(g).column(c)
            start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
            ranges.append((start, start + col.total_compressed_size))
    return ranges


def test_bit_flips_in_metrics_are_refused_or_harmless(copy):
    from fastspe.boundary.errors import InputError
    from fastspe.stats.history import History

    history = History(copy)
    clean = history.trend("G")
    path = copy / "metrics" / "0002.parquet"
    raw = path.read_bytes()
    positions = sorted(
        {p for start, end in _page_ranges(path) for p in (start, (start + end) // 2, end - 2)}
        | set(range(0, len(raw), max(1, len(raw) // 150)))
    )
    refused = 0
    for i, pos in enumerate(positions):
        bad = bytearray(raw)
        bad[pos] ^= 1 << (i % 8)
        path.write_bytes(bytes(bad))
        try:
            shown = history.trend("G")
        except InputError as exc:
            assert str(exc).startswith(str(path)), exc
            refused += 1
        else:  # a flip in bytes no reader uses (statistics, padding): the very same numbers
            pd.testing.assert_frame_equal(shown, clean)
    assert refused >= len(positions) // 2  # the test flipped bytes that matter


def test_one_flipped_bit_in_a_value_is_refused_by_the_cli(copy, capsys):
    path = copy / "metrics" / "0002.parquet"
    raw = bytearray(path.read_bytes())
    start, end = _page_ranges(path)[3]  # the estimate column
    raw[end - 2] ^= 0x10
    path.write_bytes(bytes(raw))
    assert_refused(capsys, main(["history", "show", "--store", str(copy), "--metric", "G"]), [str(path)])


def _edit_with_pandas(path, column, value):
    frame = pd.read_parquet(path)
    frame[column] = value
    frame.to_parquet(path, index=False)


def test_metrics_edited_with_pandas_are_refused(copy, capsys):
    path = copy / "metrics" / "0001.parquet"
    _edit_with_pandas(path, "estimate", 0.999)
    err = assert_refused(
        capsys, main(["history", "show", "--store", str(copy)]), [str(path), "no fastspe content checksum"]
    )
    assert "run 1 ('a')" in err
    assert "warning" not in err


def test_metrics_edited_under_the_old_checksum_are_refused(copy, capsys):
    path = copy / "metrics" / "0001.parquet"
    handle = pq.ParquetFile(path)
    table = handle.read()
    edited = table.set_column(
        table.column_names.index("estimate"), "estimate", pa.array([0.999] * table.num_rows, pa.float64())
    )
    with pq.ParquetWriter(path, edited.schema) as writer:  # a copy that kept the digest
        writer.write_table(edited)
        writer.add_key_value_metadata({k: v for k, v in handle.metadata.metadata.items() if k != b"ARROW:schema"})
    assert_refused(capsys, main(["history", "show", "--store", str(copy)]), [str(path), "checksum"])


def test_verdicts_edited_with_pandas_are_refused(copy, capsys):
    path = copy / "runs" / "0002.parquet"
    _edit_with_pandas(path, "trial", 0)
    assert_refused(capsys, main(["history", "compare", "a", "b", "--store", str(copy)]), [str(path), "checksum"])


@pytest.mark.parametrize("folder", ["runs", "metrics"])
def test_a_file_copied_over_another_runs_is_refused(copy, capsys, folder):
    # each file is intact and checksummed, but it is not the file the index recorded for run 2
    shutil.copyfile(copy / folder / "0001.parquet", copy / folder / "0002.parquet")
    argv = ["history", "compare", "a", "b"] if folder == "runs" else ["history", "show"]
    assert_refused(
        capsys,
        main(argv + ["--store", str(copy)]),
        [str(copy / folder / "0002.parquet"), "is not the one", "recorded for run 2 ('b')"],
    )


def test_a_missing_file_is_named(copy, capsys):
    (copy / "metrics" / "0002.parquet").unlink()
    assert_refused(
        capsys,
        main(["history", "show", "--store", str(copy)]),
        [str(copy / "metrics" / "0002.parquet"), "no such file", "run 2 ('b')"],
    )


# ---- one writer at a time ---------------------------------------------------------------------------------


def test_add_waits_for_the_lock(checkpoints, copy, monkeypatch, capsys):
    from filelock import FileLock

    import fastspe.boundary.history_store as store

    folder, paths = checkpoints
    before = (copy / "index.jsonl").read_bytes()
    monkeypatch.setattr(store, "LOCK_TIMEOUT", 0.2)
    with FileLock(copy / store.LOCK):  # another writer
        capsys.readouterr()
        code = main(_add(folder, copy, paths[2], "c"))
        out, err = capsys.readouterr()
    assert code == 2 and "index.lock: another process has held the history lock" in err
    assert (copy / "index.jsonl").read_bytes() == before and not (copy / "runs" / "0003.parquet").exists()
    assert main(_add(folder, copy, paths[2], "c")) == 0  # once it is free


@pytest.mark.slow
def test_concurrent_adds_get_distinct_consecutive_numbers(checkpoints, copy):
    from fastspe.stats.history import History

    folder, paths = checkpoints
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "fastspe"] + _add(folder, copy, paths[i % 3], f"p{i}", "50"),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(5)
    ]  # started at once: they race for the number
    results = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
    assert all(code == 0 for _, _, code in results), results
    runs = History(copy).runs()  # checks the index whole: numbers 1, 2, 3... and one run per label
    assert [r.number for r in runs] == list(range(1, 8))
    assert sorted(r.label for r in runs[2:]) == [f"p{i}" for i in range(5)]
    said = sorted(int(out.split()[2]) for out, _, _ in results)  # "added run N 'pI' ..."
    assert said == list(range(3, 8))
    for run in runs:  # each run's files are its own: the verdicts of its checkpoint
        # as fastspe reads them (a typed file's nulls are NaN, "" and -1 in memory)
        expected = read_verdicts(
            paths[int(run.label[1:]) % 3] if run.label.startswith("p") else paths["ab".index(run.label)]
        ).frame
        stored = History(copy).verdicts(run.label).frame
        pd.testing.assert_frame_equal(stored.reset_index(drop=True), expected.reset_index(drop=True), check_dtype=False)
    assert len({r.digests["metrics"] for r in runs}) >= 3  # three checkpoints, three different metrics


# ---- show: numbers readable on a pipe, user text never markup --------------------------------------------


def test_show_on_a_pipe_keeps_long_labels_and_every_number(checkpoints, copy):
    folder, paths = checkpoints
    label = "[bold red]ckpt[/bold red] :smile: " + "x" * 62 + "-end"
    assert len(label) == 100
    assert main(_add(folder, copy, paths[2], label)) == 0
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    shown = subprocess.run(
        [sys.executable, "-m", "fastspe", "history", "show", "--store", str(copy), "--metric", "G"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert shown.returncode == 0, shown.stderr
    assert "…" not in shown.stdout
    from fastspe.stats.history import History

    trend = History(copy).trend("G")
    rows = [line for line in shown.stdout.splitlines() if label in line]  # the label whole, markup as typed
    assert len(rows) == (trend["label"] == label).sum() > 0
    for r in trend.itertuples():
        line = next(line for line in shown.stdout.splitlines() if f" {r.label} " in line and f" {r.cohort} " in line)
        assert (
            f"{r.estimate:.3f}" in line and f"[{r.lo:.3f}, {r.hi:.3f}]" in line and line.rstrip().endswith(f"{r.N} │")
        )


def test_history_compare_equals_fastspe_compare(checkpoints, tmp_path):
    from fastspe.boundary.verdict_files import read_verdicts
    from fastspe.stats.history import History, paired_runs

    folder, paths = checkpoints
    history = History(tmp_path / "s")
    from fastspe.boundary.banks import bank_frame, read_bank_table

    table = read_bank_table(folder / "bank.parquet")
    for i in (0, 2):
        history.add(table, read_verdicts(paths[i], bank=bank_frame(table)), f"r{i}", draws=200)
    named, pairs = paired_runs(history, "r0", "r2")
    assert pairs == [("r0/my-model", "r2/my-model")]
    direct = pd.concat(
        [
            read_verdicts(paths[0]).frame.assign(condition="r0/my-model"),
            read_verdicts(paths[2]).frame.assign(condition="r2/my-model"),
        ],
        ignore_index=True,
    )
    a = compare(named, *pairs[0][:1], [pairs[0][1]], draws=300).table
    b = compare(direct, "r0/my-model", ["r2/my-model"], draws=300).table
    pd.testing.assert_frame_equal(a, b)
