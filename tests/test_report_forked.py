"""The report's figure server: each call's value and error reach the parent, calls run in other processes
side by side, after the setup and with what it loaded, a cancelled server stops its calls, and without
a fork the calls run here."""

import os
import sys
import time

import pytest

from fastspe.errors import UserError
from fastspe.report import forked

needs_fork = pytest.mark.skipif(not forked.can_fork(), reason="forks only on Linux with more than one CPU")
HERE = __name__  # the server looks the functions up by module and name


def pid():
    return os.getpid()


def loaded(name):
    return name in sys.modules


def fail(message):
    raise UserError(message)


def fail_locally(message):
    class Local(Exception):  # a local class does not pickle
        pass

    raise Local(message)


def die(code):
    os._exit(code)


def sleep_then_write(seconds, path):
    time.sleep(seconds)
    with open(path, "w") as fh:
        fh.write("late")


def load_json_tool():
    import json.tool  # noqa: F401 - a module this test process has not loaded


def length(data):
    return len(data)


def slow_setup():
    time.sleep(2.0)


def pids_side_by_side():
    return forked.side_by_side([pid, pid, pid])


def fails_side_by_side(message):
    return forked.side_by_side([pid, lambda: fail(message)])


def writes_side_by_side(seconds, folder):
    forked.side_by_side(
        [lambda: sleep_then_write(seconds, f"{folder}/a"), lambda: sleep_then_write(seconds, f"{folder}/b")]
    )


def broken_setup():
    raise UserError("matplotlib is broken")


@pytest.fixture
def server():
    started = forked.server(lambda: None)
    yield started
    started.cancel()


@needs_fork
def test_each_call_runs_in_another_process_of_its_own(server):
    first, second = server.submit(HERE, "pid"), server.submit(HERE, "pid")
    assert len({first.result(), second.result(), os.getpid()}) == 3


@needs_fork
def test_calls_start_with_what_the_setup_loaded():
    sys.modules.pop("json.tool", None)
    started = forked.server(load_json_tool)
    try:
        assert started.submit(HERE, "loaded", "json.tool").result() and "json.tool" not in sys.modules
    finally:
        started.close()


@needs_fork
def test_calls_run_side_by_side(server, tmp_path):
    started = time.monotonic()
    calls = [server.submit(HERE, "sleep_then_write", 1.0, tmp_path / f"{i}") for i in range(3)]
    for call in calls:
        call.result()
    assert time.monotonic() - started < 2.5  # one after the other would take 3 s


@needs_fork
def test_results_arrive_whatever_order_they_are_asked_for(server, tmp_path):
    slow = server.submit(HERE, "sleep_then_write", 0.5, tmp_path / "slow")
    quick = server.submit(HERE, "pid")
    assert quick.result() != os.getpid()
    slow.result()
    assert (tmp_path / "slow").read_text() == "late"


@needs_fork
def test_submit_does_not_wait_for_the_setup():
    started = forked.server(slow_setup)
    try:
        t = time.monotonic()
        call = started.submit(HERE, "length", b"x" * 4_000_000)  # far more than a pipe holds
        assert time.monotonic() - t < 1.0
        assert call.result() == 4_000_000
    finally:
        started.close()


@needs_fork
def test_error_in_a_call_is_raised_in_the_parent(server):
    with pytest.raises(UserError, match="no such cohort"):
        server.submit(HERE, "fail", "no such cohort").result()
    assert server.submit(HERE, "pid").result() != os.getpid()  # the server goes on


@needs_fork
def test_an_error_that_does_not_pickle_keeps_its_text(server):
    with pytest.raises(RuntimeError, match="Local: bad figure"):
        server.submit(HERE, "fail_locally", "bad figure").result()


@needs_fork
def test_a_call_that_dies_is_an_error_not_a_hang(server):
    with pytest.raises(UserError, match="exit code 3"):
        server.submit(HERE, "die", 3).result()


@needs_fork
def test_a_setup_that_fails_fails_every_call():
    started = forked.server(broken_setup)
    try:
        with pytest.raises(UserError, match="matplotlib is broken"):
            started.submit(HERE, "pid").result()
    finally:
        started.close()


@pytest.mark.slow
@needs_fork
def test_cancel_stops_the_running_calls(server, tmp_path):
    flag = tmp_path / "written"
    server.submit(HERE, "sleep_then_write", 3.0, flag)
    time.sleep(0.5)  # the call is running
    started = time.monotonic()
    server.cancel()
    time.sleep(3.5)
    assert time.monotonic() - started < 10 and not flag.exists()


@needs_fork
def test_a_job_runs_its_parts_side_by_side_in_forks_of_itself(server):
    first, second, third = server.submit(HERE, "pids_side_by_side").result()
    assert len({first, second, third, os.getpid()}) == 4


def test_parts_outside_a_job_run_here_one_after_the_other():
    assert forked.side_by_side([pid, pid]) == [os.getpid()] * 2


@needs_fork
def test_a_part_that_fails_fails_the_job(server):
    with pytest.raises(UserError, match="second part"):
        server.submit(HERE, "fails_side_by_side", "second part").result()


@pytest.mark.slow
@needs_fork
def test_cancel_stops_the_parts_of_a_job_too(server, tmp_path):
    server.submit(HERE, "writes_side_by_side", 3.0, str(tmp_path))
    time.sleep(0.5)
    server.cancel()
    time.sleep(3.5)
    assert list(tmp_path.iterdir()) == []


@needs_fork
def test_close_waits_for_the_server():
    started = forked.server(lambda: None)
    assert started.submit(HERE, "pid").result()
    started.close()
    assert not started._process.is_alive()


def test_without_fork_the_calls_run_here(monkeypatch):
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    sys.modules.pop("json.tool", None)
    here = forked.server(load_json_tool)
    assert isinstance(here, forked.InProcess) and "json.tool" not in sys.modules  # no setup to share here
    handle = here.submit(HERE, "pid")
    assert isinstance(handle, forked.Done) and handle.result() == os.getpid()
    with pytest.raises(UserError, match="at once"):
        here.submit(HERE, "fail", "at once")
    here.close()


@needs_fork
def test_no_fork_to_be_had_runs_the_calls_here(monkeypatch):
    def refuse(*args, **kwargs):
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(forked.Server, "__init__", refuse)
    here = forked.server(lambda: None)
    assert isinstance(here, forked.InProcess) and here.submit(HERE, "pid").result() == os.getpid()
