"""Settings for the whole test session."""

import signal

import pytest


def pytest_configure(config):
    # Several tests send Ctrl-C (SIGINT) to this process or to a command it starts, and expect it to be heard.
    # A process started as a background job of a non-interactive shell (`python -m pytest ... &` in a script,
    # nohup) inherits SIGINT ignored; Python then keeps SIG_IGN rather than installing its KeyboardInterrupt
    # handler, and every child inherits it again. Those tests would hang (test_limiter's Ctrl-C test) or fail
    # for a reason of the launcher's, not fastspe's, so the session hears Ctrl-C however it was started.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True, scope="session")
def _no_compile_notice():
    """Commands run in this process say nothing before a first compile: whether one happens depends on which test ran
    first on a cold cache, and many tests hold a command's stderr to its exact lines. The notice has its own tests
    (test_first_compile.py) and benchmarks/bench_first_run.py sees it in a fresh process. (Session-wide: module
    fixtures that run commands are set up before any function's fixture.)"""
    import fastspe.cli

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fastspe.cli, "tell_before_compiling", lambda tell: None)
        yield
