"""Atomic writes: nothing half-written under a final name, no temporaries left, leftovers of dead writers
cleaned; a full disk names the file; CSV and Markdown outputs keep user text inert."""

from __future__ import annotations

import csv
import errno
import os
import re
import subprocess
import sys

from pathlib import Path

import pandas as pd
import pytest

from fastspe.boundary import files as io
from fastspe.report.render import markdown_text, to_markdown, write_table_files
from fastspe.report.tables import Table


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def listing(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_temp_name_says_whose_it_is(tmp_path):
    with io.atomic_path(tmp_path / "out.csv") as tmp:
        assert re.fullmatch(rf"\.out\.csv\.{os.getpid()}\.[0-9a-f]{{12}}\.tmp", tmp.name)
        assert tmp.parent == tmp_path
        tmp.write_text("x")
    assert listing(tmp_path) == ["out.csv"]


def test_failure_keeps_the_old_file_and_leaves_no_temp(tmp_path):
    final = tmp_path / "out.csv"
    final.write_text("old")
    with pytest.raises(RuntimeError):
        with io.atomic_path(final) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed mid-way")
    assert final.read_text() == "old" and listing(tmp_path) == ["out.csv"]


def test_leftovers_of_dead_writers_are_removed_and_live_ones_kept(tmp_path):
    dead, alive = dead_pid(), os.getppid()
    stale = tmp_path / f".out.csv.{dead}.0123456789ab.tmp"
    stale_dir = tmp_path / f".out.csv.{dead}.0123456789ac.tmp"
    live = tmp_path / f".out.csv.{alive}.0123456789ab.tmp"
    other = tmp_path / f".other.csv.{dead}.0123456789ab.tmp"
    for p in (stale, live, other):
        p.write_text("x")
    stale_dir.mkdir()
    (stale_dir / "inside").write_text("x")
    io.write_text("new", tmp_path / "out.csv")
    assert listing(tmp_path) == sorted([live.name, other.name, "out.csv"])
    assert (tmp_path / "out.csv").read_text() == "new"


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="Linux's /proc tells a zombie and a reused pid")
def test_a_killed_bank_builds_temporary_is_removed_by_the_next_build(tmp_path):
    """A writer killed but not yet reaped (a zombie: a harness that kills without waiting) and a dead pid since
    reused by a process that started after the temporary last changed are both gone writers."""
    import json
    import time

    from fastspe.cli import main

    zombie = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    reused = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        zombie.kill()
        while open(f"/proc/{zombie.pid}/stat").read().rpartition(")")[2].split()[0] != "Z":
            time.sleep(0.01)
        out = tmp_path / "bank.parquet"
        names = {
            who: tmp_path / f".bank.parquet.{pid}.0123456789ab.tmp"
            for who, pid in (
                ("dead", dead_pid()),
                ("zombie", zombie.pid),
                ("reused", reused.pid),
                ("live", os.getppid()),
            )
        }
        for path in names.values():
            path.write_bytes(b"\0" * 4096)
        hour_ago = time.time() - 3600
        os.utime(names["reused"], (hour_ago, hour_ago))
        design = tmp_path / "d.json"
        design.write_text(json.dumps({"seed": 1, "cells": [{"cohort": "primary", "depth": 4, "count": 2}]}))
        assert main(["bank", "build", "--design", str(design), "--out", str(out)]) == 0
        assert listing(tmp_path) == sorted(["bank.parquet", "d.json", names["live"].name])
    finally:
        for proc in (zombie, reused):
            proc.kill()
            proc.wait()


def _full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("where", ["write", "sync"])
@pytest.mark.parametrize("existed", [False, True])
def test_full_disk_names_the_file_and_leaves_nothing(tmp_path, monkeypatch, where, existed):
    final = tmp_path / "metrics.csv"
    if existed:
        final.write_text("old")
    if where == "write":  # the data do not fit

        def to_csv(self, path, **kw):
            with open(path, "w") as fh:
                fh.write("cond")
            _full_disk()

        monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)
    else:  # delayed allocation: the disk is found full when the data are synced
        monkeypatch.setattr(io.os, "fsync", _full_disk)
    with pytest.raises(
        OSError,
        match=rf"^\[Errno {errno.ENOSPC}\] cannot write {re.escape(str(final))}: No space "
        "left on device; nothing was written under that name",
    ) as caught:
        io.write_table(pd.DataFrame({"a": [1]}), final)
    assert caught.value.errno == errno.ENOSPC
    assert listing(tmp_path) == (["metrics.csv"] if existed else [])
    if existed:
        assert final.read_text() == "old"


def test_a_folder_is_synced_whole_before_its_swap(tmp_path, monkeypatch):
    synced, real = [], io.os.fsync
    monkeypatch.setattr(io.os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), real(fd)))
    final = tmp_path / "report"
    with io.atomic_dir(final) as build:
        io.write_text("a", build / "report.md")
        io.write_text("b", build / "tables" / "t.md")
        assert synced == []  # not file by file: all at once below
    assert {Path(p).relative_to(build).as_posix() for p in synced if Path(p).is_relative_to(build)} == {
        "report.md",
        "tables/t.md",
        "tables",
        ".",
    }
    assert (final / "tables" / "t.md").read_text() == "b" and listing(tmp_path) == ["report"]
    io.write_text("c", tmp_path / "alone.md")  # outside a folder being built: synced at once, as ever
    assert Path(synced[-2]).name.startswith(".alone.md.") and Path(synced[-1]) == tmp_path  # its temporary, its folder


def test_full_disk_found_at_a_folders_sync_keeps_the_old_folder(tmp_path, monkeypatch):
    final = tmp_path / "report"
    final.mkdir()
    (final / "report.md").write_text("old")
    with pytest.raises(OSError, match=rf"cannot write {re.escape(str(final))}: No space left on device"):
        with io.atomic_dir(final) as build:
            io.write_text("new", build / "report.md")
            monkeypatch.setattr(io.os, "fsync", _full_disk)
    assert (final / "report.md").read_text() == "old" and listing(tmp_path) == ["report"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_real_write_error_from_dev_full(tmp_path, monkeypatch):
    def write_to_full_disk(self, data, encoding=None, errors=None, newline=None):
        with open("/dev/full", "w", encoding=encoding) as fh:  # the kernel answers ENOSPC
            fh.write(data)

    monkeypatch.setattr(io.Path, "write_text", write_to_full_disk)
    final = tmp_path / "report.md"
    with pytest.raises(OSError, match=rf"cannot write {re.escape(str(final))}: No space left on device"):
        io.write_text("x" * 100_000, final)
    assert listing(tmp_path) == []


def test_cli_prints_the_full_disk_error(tmp_path, monkeypatch, capsys):
    from fastspe.cli import main
    from fastspe.scoring.score import score_responses

    from .test_score import tiny_bank

    verdicts = tmp_path / "v.parquet"
    answers = pd.DataFrame({"board_id": ["near"], "condition": ["m"], "trial": [0], "response": ["MOVES: R"]})
    score_responses(tiny_bank(), answers).to_parquet(verdicts)
    monkeypatch.setattr(io.os, "fsync", _full_disk)
    out = tmp_path / "m.csv"
    assert main(["metrics", "--verdicts", str(verdicts), "--out", str(out)]) == 2
    err = capsys.readouterr().err.replace("\n", "")
    assert f"cannot write {out}" in err and "No space left" in err and "Traceback" not in err
    assert not out.exists() and listing(tmp_path) == ["v.parquet"]


def _files_of(tmp_path, monkeypatch):
    """A tiny bank, answers and their verdicts written under ``tmp_path`` (for the commands below)."""
    from fastspe.boundary.banks import write_bank
    from fastspe.boundary.verdict_files import write_verdicts
    from fastspe.scoring.score import score_responses

    from .test_score import tiny_bank

    answers = pd.DataFrame(
        {"board_id": ["near", "blk"], "condition": ["m", "m"], "trial": [0, 0], "response": ["MOVES: R", "MOVES: D"]}
    )
    write_bank(tiny_bank(), tmp_path / "bank.parquet")
    answers.to_json(tmp_path / "answers.jsonl", orient="records", lines=True)
    write_verdicts(score_responses(tiny_bank(), answers), tmp_path / "v.parquet")
    return [str(tmp_path / name) for name in ("bank.parquet", "answers.jsonl", "v.parquet")]


@pytest.mark.slow
def test_a_full_disk_in_a_report_names_the_report_folder_not_its_temporary(tmp_path, monkeypatch, capsys):
    from fastspe.cli import main

    bank, _, verdicts = _files_of(tmp_path, monkeypatch)
    real = pd.DataFrame.to_csv

    def to_csv(self, path=None, **kw):  # the third table file no longer fits
        to_csv.calls += 1
        if to_csv.calls == 3:
            _full_disk()
        return real(self, path, **kw)

    to_csv.calls = 0
    monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)
    out = tmp_path / "report"
    assert main(["report", "--bank", bank, "--verdicts", verdicts, "--out", str(out), "--no-figures"]) == 2
    err = capsys.readouterr().err
    assert re.fullmatch(
        rf"error: cannot write {re.escape(str(out))}/\S+: No space left on device; nothing was "
        "written under that name\n",
        err,
    ), err
    assert ".tmp" not in err and not out.exists()
    assert listing(tmp_path) == ["answers.jsonl", "bank.parquet", "v.parquet"]


@pytest.mark.parametrize("out", ["v.parquet", "v.csv", "sub/v.parquet"])
def test_a_read_only_folder_under_score_names_the_file_asked_for(tmp_path, monkeypatch, capsys, out):
    """A read-only folder (simulated: tests may run as root, whom permissions do not stop) refuses the temporary,
    and its removal; the error names the file the user asked for."""
    from fastspe.cli import main

    bank, answers, _ = _files_of(tmp_path, monkeypatch)
    folder = tmp_path / "ro"
    folder.mkdir()
    real_open, real_unlink, real_mkdir = os.open, os.unlink, Path.mkdir

    def read_only(path):
        if Path(path).parent == folder or folder in Path(path).parents:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))

    monkeypatch.setattr(io.os, "open", lambda path, *a, **kw: read_only(path) or real_open(path, *a, **kw))
    monkeypatch.setattr(io.os, "unlink", lambda path, *a, **kw: read_only(path) or real_unlink(path, *a, **kw))
    monkeypatch.setattr(io.Path, "mkdir", lambda self, *a, **kw: read_only(self) or real_mkdir(self, *a, **kw))
    asked = folder / out
    assert main(["score", "--bank", bank, "--responses", answers, "--out", str(asked)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: cannot write {asked}: Read-only file system; nothing was written under that name\n", err
    assert listing(folder) == []


# ---- user text in outputs ---------------------------------------------------------------------------------

NASTY = ['=HYPERLINK("http://x","y")', "+cmd", "-2+3", "@SUM(A1)", "\tlead", "'=quoted", "plain", "-1.5"]


def test_csv_formulas_are_escaped_numbers_kept(tmp_path):
    frame = pd.DataFrame({"condition": NASTY, "estimate": [-0.5, 1.0, -2.0, 0.0, 3.0, -1e-9, 2.0, 4.0]})
    path = write_table_files(Table("t", "cap", frame), tmp_path)[0]
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    assert [r[0] for r in rows] == [
        '\'=HYPERLINK("http://x","y")',
        "'+cmd",
        "'-2+3",
        "'@SUM(A1)",
        "'\tlead",
        "''=quoted",
        "plain",
        "-1.5",
    ]  # -1.5 reads as a number, not a formula
    assert [float(r[1]) for r in rows] == frame["estimate"].tolist()
    assert io.unescape_formulas(pd.read_csv(path)["condition"]).tolist() == NASTY  # and it is reversible


def test_markdown_keeps_user_text_literal():
    name = "a|b `code` <img src=x onerror=alert(1)>\nnext *em* [l](u)\x07"
    md = to_markdown(Table("t", "cap", pd.DataFrame({"condition": [name], "v": [0.5]}), {"v": ".2f"}))
    rows = md.splitlines()
    assert len(rows) == 5  # caption, blank, header, rule, one row: the line break did not end the row
    row = rows[-1]
    assert row.startswith("| a\\|b \\`code\\` \\<img") and row.endswith(" | 0.50 |")
    assert "<" not in row.replace("\\<", "") and "\x07" not in row
    assert row.count("|") - row.count("\\|") == 3  # two cells
    assert markdown_text("0.125") == "0.125" and markdown_text("n/a") == "n/a"
