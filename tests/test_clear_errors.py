"""Every user mistake or file-system refusal is one ``error:`` line naming the option or the file; a bug keeps
its traceback. (``solve``'s own cases: test_cli_solve.py.)"""

from __future__ import annotations

import ast
import ctypes
import errno
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import fastspe
from fastspe.domains.sliding.bank.build import build_bank
from fastspe.boundary.banks import write_bank
from fastspe.errors import FastspeError, UserError, UserTypeError
from fastspe.cli import main

REPO = Path(__file__).resolve().parents[1]
DEEP = "[" * 3000 + "]" * 3000


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    from fastspe.domains.sliding.bank.design import paper_design

    root = tmp_path_factory.mktemp("errors")
    write_bank(build_bank(paper_design()).iloc[[0, 150]].reset_index(drop=True), root / "bank.parquet")
    return root / "bank.parquet"


def _cli(args, tmp_path, preexec_fn=None, env=None):
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "fastspe", *map(str, args)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=preexec_fn,
        errors="replace",
    )


def _one_error_line(proc, *wanted):
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for text in wanted:
        assert text in lines[0], lines[0]
    return lines[0]


# -- the error classes -----------------------------------------------------------------------------------


def test_user_errors_are_still_the_builtins_callers_caught():
    assert issubclass(UserError, ValueError) and issubclass(UserTypeError, TypeError)
    assert issubclass(UserTypeError, UserError) and issubclass(UserError, FastspeError)
    from fastspe.domains.sliding.layout import Layout

    with pytest.raises(TypeError, match="rows must be an integer"):
        Layout("4", 4)


def test_no_plain_value_or_type_error_is_raised_for_user_input():
    """fastspe raises its own classes, so that `main` can tell a user's mistake from a bug."""
    plain = []
    for path in Path(fastspe.__file__).parent.rglob("*.py"):
        if (
            "_numba" in path.relative_to(REPO).parts
        ):  # how kernels are compiled: a programmer's mistake, never user input
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            call = node.exc if isinstance(node, ast.Raise) else node.value if isinstance(node, ast.Return) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id in ("ValueError", "TypeError")
            ):
                plain.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not plain, f"raise UserError / UserTypeError (fastspe.boundary.errors) instead: {plain}"


def test_a_bug_keeps_its_traceback(monkeypatch, capsys):
    from fastspe.domains.sliding.domain import SlidingDomain

    def broken(self, args, ui):
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr(SlidingDomain, "solve", broken)
    with pytest.raises(TypeError, match="unsupported operand"):
        main(["solve", "--board", "1 2 3 0", "--rows", "2", "--cols", "2"])
    assert "error:" not in capsys.readouterr().err


def test_a_bug_prints_a_traceback_from_the_command_line(tmp_path):
    code = (
        "import sys, fastspe.domains.sliding.domain as d\n"
        "def broken(self, args, ui): raise TypeError('a genuine bug')\n"
        "d.SlidingDomain.solve = broken\n"
        "from fastspe.cli import run\n"
        "sys.argv = ['fastspe', 'solve', '--board', '1 2 3 0', '--rows', '2', '--cols', '2']\nrun()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "Traceback" in proc.stderr and "TypeError: a genuine bug" in proc.stderr
    assert "error:" not in proc.stderr


# -- options ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, what",
    [(DEEP, "nested too deeply"), ('{"a": "\\ud800"}', "lone surrogate"), ('{"a": ["\\udcff"]}', "lone surrogate")],
)
def test_extra_body_errors_name_the_option(body, what, bank, tmp_path, capsys):
    code = main(
        ["run", "--bank", str(bank), "--model", "openai:x", "--out", str(tmp_path / "r.jsonl"), "--extra-body", body]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --extra-body") and what in err and err.count("\n") == 1
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize("address", ["inproc://x", "nonsense", "tcp://host:99999", "tcp://:8786", "host:port"])
def test_bad_scheduler_addresses_name_the_option(address, tmp_path, capsys):
    assert main(["bank", "build", "--out", str(tmp_path / "b.parquet"), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --scheduler") and repr(address) in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_good_scheduler_addresses_pass_the_check():
    from fastspe.distributed import check_scheduler

    for address in ("tcp://10.0.0.5:8786", "localhost:8786", "tls://sched.example.org:8786", "[::1]:8786"):
        assert check_scheduler(address) == address
    with pytest.raises(UserError, match="inproc"):
        check_scheduler("inproc://192.168.1.2/123/1")


# -- file-system refusals --------------------------------------------------------------------------------


def _file_size_limit(limit: int):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return set_limit


def test_a_file_size_limit_names_the_run_log(bank, tmp_path):
    proc = _cli(
        ["run", "--bank", bank, "--model", "baseline:oracle", "--trials", "200", "--out", "r.jsonl"],
        tmp_path,
        preexec_fn=_file_size_limit(4096),
    )
    _one_error_line(proc, "cannot write the run log r.jsonl", os.strerror(errno.EFBIG))
    assert (tmp_path / "r.jsonl").stat().st_size <= 4096


def test_a_file_size_limit_names_the_output(tmp_path):
    proc = _cli(["bank", "build", "--out", "bank.parquet"], tmp_path, preexec_fn=_file_size_limit(4096))
    _one_error_line(proc, "cannot write bank.parquet", os.strerror(errno.EFBIG))
    assert os.listdir(tmp_path) == []  # no temporary left, nothing under the final name


def _without_root_override():
    """Drop CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH from the bounding set, so that permissions hold for root too
    (the exec that follows loses them)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP; fails harmlessly where it is not permitted


def _read_only_folder(tmp_path) -> Path:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


needs_linux = pytest.mark.skipif(sys.platform != "linux", reason="permission checks through prctl are Linux's")


@pytest.mark.slow
@needs_linux
@pytest.mark.parametrize(
    "command, name",
    [
        (["bank", "build", "--out", "ro/bank.parquet"], "ro/bank.parquet"),
        (["solve", "--input", "in.jsonl", "--out", "ro/solved.jsonl"], "ro/solved.jsonl"),
        (["run", "--bank", "BANK", "--model", "baseline:oracle", "--out", "ro/r.jsonl"], "ro/r.jsonl"),
    ],
)
def test_a_read_only_folder_names_the_final_path(command, name, bank, tmp_path):
    _read_only_folder(tmp_path)
    (tmp_path / "in.jsonl").write_text('{"rows": 2, "cols": 2, "board": [1, 2, 3, 0]}\n')
    proc = _cli([str(bank) if a == "BANK" else a for a in command], tmp_path, preexec_fn=_without_root_override)
    line = _one_error_line(proc, name, os.strerror(errno.EACCES))
    assert ".tmp" not in line and os.listdir(tmp_path / "ro") == []


def test_a_report_folder_that_cannot_be_made_names_the_folder(monkeypatch, tmp_path):
    from fastspe.boundary.files import atomic_dir

    real_mkdir = Path.mkdir

    def refuse(self, *args, **kwargs):
        if self.name.endswith(".tmp"):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refuse)
    with pytest.raises(OSError, match=rf"cannot write {tmp_path / 'report'}: Permission denied") as caught:
        with atomic_dir(tmp_path / "report"):
            pass
    assert ".tmp" not in str(caught.value)


@pytest.mark.slow
@needs_linux
def test_a_read_only_pdb_folder_still_solves(tmp_path):
    folder = _read_only_folder(tmp_path)
    proc = _cli(
        ["solve", "--board", "1 2 3 4 5 6 7 0 8 -1", "--rows", "2", "--cols", "5"],
        tmp_path,
        preexec_fn=_without_root_override,
        env={"FASTSPE_PDB_DIR": str(folder / "pdb")},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["length"] == 1
    assert "warning: pattern database folder" in proc.stderr and "cannot be written" in proc.stderr
    assert os.listdir(folder) == []


# -- file names that are not UTF-8 -----------------------------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="needs a file system that takes any bytes in a name")
def test_file_names_that_are_not_utf8_work(bank, tmp_path):
    odd = os.fsdecode(b"bank\xff\xfe.parquet")
    (tmp_path / odd).write_bytes(bank.read_bytes())
    proc = _cli(["bank", "verify", odd], tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    log, verdicts = os.fsdecode(b"r\xff.jsonl"), os.fsdecode(b"v\xff.parquet")
    assert (
        _cli(["run", "--bank", odd, "--model", "baseline:oracle", "--trials", "1", "--out", log], tmp_path).returncode
        == 0
    )
    proc = _cli(["score", "--bank", odd, "--responses", log, "--out", verdicts], tmp_path)
    assert proc.returncode == 0 and "v\\udcff.parquet" in proc.stdout, proc.stderr
    proc = _cli(["bank", "verify", os.fsdecode(b"missing\xff.parquet")], tmp_path)
    _one_error_line(proc, "missing\\udcff.parquet")
