"""The one line a command says before its first compile, only when the cache lacks a kernel; `cache warm`'s
options. (The full cold run beside a warm one is benchmarks/bench_first_run.py: minutes, not a test.)"""

from __future__ import annotations

import pytest

from fastspe._text import compile_notice
from fastspe.cli import main
from fastspe.cli._common import compiling_line
from fastspe.domains.registry import domain_named
from tests.test_numba_cache import load_kernels, root  # noqa: F401  (the fixture: a fresh cache folder)


@pytest.fixture
def told(monkeypatch):
    seen = []
    monkeypatch.setattr(compile_notice, "_tell", None)
    compile_notice.tell_before_compiling(lambda: seen.append("compiling"))
    yield seen
    compile_notice.tell_before_compiling(None)


def test_told_once_before_the_first_compile_and_not_on_a_cache_load(tmp_path, root, told):  # noqa: F811
    mod = load_kernels(tmp_path / "kern_first.py", root, "kern_first")
    assert told == []  # nothing compiled yet: nothing said
    assert mod.outer(1, 2) == 13 and mod.inner(2.0, 0.5) == 20.5  # three compiles, one line
    assert told == ["compiling"]
    compile_notice.tell_before_compiling(lambda: told.append("again"))
    again = load_kernels(tmp_path / "kern_first.py", root, "kern_first_again")
    assert again.outer(1, 2) == 13 and again.inner(2.0, 0.5) == 20.5  # loaded from the cache
    assert told == ["compiling"] and sum(again.outer.stats.cache_hits.values()) == 1
    assert again.inner(1.0, 2) == 12.0  # a signature the cache lacks: now it is said
    assert told == ["compiling", "again"]


def test_the_line_names_the_estimate_and_the_way_ahead():
    assert compiling_line(25) == (
        "compiling fastspe's kernels for this machine, once: about 25 s (`fastspe cache warm` does it ahead)"
    )
    assert ": about" not in compiling_line(None)


def test_cache_warm_refuses_an_unknown_domain_in_one_line(capsys):
    assert main(["cache", "warm", "--domain", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--domain chess: not an installed domain" in err


def test_cache_warm_refuses_when_the_cache_is_off(monkeypatch, capsys):
    monkeypatch.setattr("fastspe._numba.folder.cache_enabled", lambda environ=None: False)
    assert main(["cache", "warm"]) == 2
    assert "FASTSPE_NUMBA_CACHE turns the cache off" in capsys.readouterr().err


def test_a_command_leaves_no_notice_armed_after_it(monkeypatch, capsys):
    import fastspe.cli

    monkeypatch.setattr(fastspe.cli, "tell_before_compiling", compile_notice.tell_before_compiling)  # the real one
    assert main(["domains"]) == 0  # compiles nothing
    assert compile_notice._tell is None  # a later compile in this process (a library call) says nothing


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sliding", "sokoban"])
def test_the_warm_bank_is_small_and_has_every_shape_of_the_demo_bank(name):
    """`cache warm` runs the demo pipeline on each domain's warm bank: fewer boards, but every cohort, stratum and
    depth of the demo's bank (and the sliding bank's certificate kinds), so the same kernels compile."""
    domain = domain_named(name)
    demo, warm = domain.demo_bank().to_pandas(), domain.warm_bank().to_pandas()
    shape = [c for c in ("cohort", domain.stratum, "depth", "certificate_kind") if c in demo.columns]
    assert len(warm) <= len(demo) / 5
    assert set(warm[shape].itertuples(index=False)) == set(demo[shape].itertuples(index=False))
    assert list(warm.columns) == list(demo.columns) and (warm.dtypes == demo.dtypes).all()
