"""The report's forked figure process: its value and its error reach the parent, a cancelled one stops,
and the figures are the same bytes drawn in a child or here."""

import os
import time

import pytest

from fastspe.errors import UserError
from fastspe.report import forked

needs_fork = pytest.mark.skipif(not forked.can_fork(), reason="forks only on Linux with more than one CPU")


@needs_fork
def test_value_comes_from_another_process():
    here = os.getpid()
    assert forked.in_child(lambda: os.getpid()).result() != here


@needs_fork
def test_error_in_the_child_is_raised_in_the_parent():
    def fail():
        raise UserError("no such cohort")

    with pytest.raises(UserError, match="no such cohort"):
        forked.in_child(fail).result()


@needs_fork
def test_an_error_that_does_not_pickle_keeps_its_text():
    class Local(Exception):  # a local class does not pickle
        pass

    def fail():
        raise Local("bad figure")

    with pytest.raises(RuntimeError, match="Local: bad figure"):
        forked.in_child(fail).result()


@needs_fork
def test_a_child_that_dies_is_an_error_not_a_hang():
    with pytest.raises(UserError, match="exit code 3"):
        forked.in_child(lambda: os._exit(3)).result()


@needs_fork
def test_cancel_stops_the_child(tmp_path):
    flag = tmp_path / "written"

    def slow():
        time.sleep(30)
        flag.write_text("late")

    child = forked.in_child(slow)
    started = time.monotonic()
    child.cancel()
    assert time.monotonic() - started < 10 and not flag.exists()


def test_without_fork_the_work_runs_here(monkeypatch):
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    handle = forked.in_child(lambda: os.getpid())
    assert isinstance(handle, forked.Done) and handle.result() == os.getpid()
    handle.cancel()


@needs_fork
def test_no_fork_to_be_had_runs_the_work_here(monkeypatch):
    def refuse(*args, **kwargs):
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(forked.Child, "__init__", refuse)
    handle = forked.in_child(lambda: os.getpid())
    assert isinstance(handle, forked.Done) and handle.result() == os.getpid()
