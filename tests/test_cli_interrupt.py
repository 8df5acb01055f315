"""Ctrl-C ends a command with "interrupted" and exit 130, also when it lands inside a compiled kernel (Python then
sees a SystemError caused by the KeyboardInterrupt); any other SystemError stays a bug with its traceback."""

from __future__ import annotations

import pytest

from fastspe.cli import main
from fastspe.domains.sokoban.domain import SokobanDomain


def _raising(exc):
    def bank_pieces(self, *args, **kwargs):
        raise exc

    return bank_pieces


def _chained(interrupt):
    """A SystemError as numba's dispatcher raises it when a Ctrl-C lands inside a kernel."""
    exc = SystemError("CPUDispatcher(<function search_levels>) returned a result with an exception set")
    exc.__cause__ = interrupt
    return exc


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), _chained(KeyboardInterrupt())], ids=["python", "kernel"])
def test_an_interrupt_exits_130(exc, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(SokobanDomain, "bank_pieces", _raising(exc))
    assert main(["bank", "build", "--domain", "sokoban", "--out", str(tmp_path / "b.parquet")]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_another_system_error_keeps_its_traceback(monkeypatch, tmp_path):
    monkeypatch.setattr(SokobanDomain, "bank_pieces", _raising(SystemError("a real bug")))
    with pytest.raises(SystemError, match="a real bug"):
        main(["bank", "build", "--domain", "sokoban", "--out", str(tmp_path / "b.parquet")])
