"""fastspe's kernel cache (fastspe._numba.cache): keyed data files, the compile lock, info and clear,
and a stress test of several processes compiling into one fresh folder at once."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from filelock import FileLock

from fastspe import __version__
from fastspe import _numba
from fastspe._numba import cache as _numba_cache, folder as _numba_folder
from fastspe.cli import main

REPO = Path(__file__).resolve().parents[1]

KERNELS = """
from fastspe._numba import njit

@njit
def inner(a, b):
    return a * 10 + b

@njit
def outer(a, b):
    return inner(a, b) + 1
"""


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A fresh cache folder for this test (its kernels are cached there, whatever the suite's env says)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    return _numba_folder.cache_dir()


def load_kernels(path: Path, root: Path, name: str = "kern_mod"):
    """A fresh module with two small kernels (a caller and its callee) cached in ``root``."""
    if not path.exists():
        path.write_text(KERNELS)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for fn in ("inner", "outer"):  # the module's njit follows FASTSPE_NUMBA_CACHE; here always cached
        dispatcher = getattr(module, fn)
        if not isinstance(dispatcher._cache, _numba_cache.KernelCache):
            setattr(module, fn, _numba._cached(numba.njit(dispatcher.py_func, cache=False), root))
    module.outer.py_func.__globals__["inner"] = module.inner
    return module


def data_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.nbc"))


def test_folder_names_version_and_layout(root):
    assert root.name == f"{__version__}-c{_numba_folder.LAYOUT}"
    assert root.parent == Path(os.environ["NUMBA_CACHE_DIR"]) / "fastspe"


def test_overloads_never_share_a_data_file_and_reload_from_the_cache(tmp_path, root):
    mod = load_kernels(tmp_path / "kern_mod.py", root)
    assert (mod.inner(2, 3), mod.inner(2.0, 0.5)) == (23, 20.5)
    names = [p.name for p in data_files(root)]
    assert len(names) == len(set(names)) == 2
    again = load_kernels(tmp_path / "kern_mod.py", root, "kern_mod_again")
    assert (again.inner(2, 3), again.inner(2.0, 0.5)) == (23, 20.5)
    assert sum(again.inner.stats.cache_hits.values()) == 2 and not again.inner.stats.cache_misses


def test_a_data_file_holding_another_overload_is_a_miss_never_run(tmp_path, root):
    mod = load_kernels(tmp_path / "kern_mod.py", root)
    assert (mod.inner(2, 3), mod.inner(2.0, 0.5)) == (23, 20.5)
    int_file, float_file = data_files(root)
    shutil.copyfile(float_file, int_file)  # what numba's numbered files did under concurrent writers
    shutil.copyfile(float_file, float_file.with_name(float_file.name + ".x"))
    float_file.write_bytes(float_file.read_bytes()[:100])  # and a file cut short
    again = load_kernels(tmp_path / "kern_mod.py", root, "kern_mod_again")
    assert (again.inner(2, 3), again.inner(2.0, 0.5)) == (23, 20.5)
    assert not again.inner.stats.cache_hits and sum(again.inner.stats.cache_misses.values()) == 2
    third = load_kernels(tmp_path / "kern_mod.py", root, "kern_mod_third")  # the misses were rewritten
    assert (third.inner(2, 3), third.inner(2.0, 0.5)) == (23, 20.5)
    assert sum(third.inner.stats.cache_hits.values()) == 2


def test_keyed_file_checks_the_stored_key(tmp_path):
    cache_file = _numba_cache.KeyedCacheFile(str(tmp_path), "f-1.py311", source_stamp=("s", 1))
    cache_file.save("key-a", ("payload a",))
    assert cache_file.load("key-a") == ("payload a",)
    shutil.copyfile(tmp_path / cache_file.data_name("key-a"), tmp_path / cache_file.data_name("key-b"))
    assert cache_file.load("key-b") is None
    stale = _numba_cache.KeyedCacheFile(str(tmp_path), "f-1.py311", source_stamp=("s", 2))
    assert stale.load("key-a") is None


def test_a_kernel_module_edit_invalidates_every_kernel(tmp_path, root, monkeypatch):
    """A caller's cached code embeds its callees, so the stamp covers all kernel modules."""
    mod = load_kernels(tmp_path / "kern_mod.py", root)
    assert mod.outer(1, 2) == 13
    monkeypatch.setattr(_numba_cache, "kernels_stamp", lambda package=None: "another kernels tree")
    again = load_kernels(tmp_path / "kern_mod.py", root, "kern_mod_again")
    assert again.outer(1, 2) == 13
    assert not again.outer.stats.cache_hits and again.outer.stats.cache_misses


def test_load_compile_and_save_run_under_the_lock(tmp_path, root, monkeypatch):
    seen = []
    lock = _numba_folder.compile_lock(root)
    for name in ("load", "save"):
        original = getattr(_numba_cache.KeyedCacheFile, name)

        def spy(self, *args, _original=original, _name=name):
            seen.append((_name, lock.held, lock._file.is_locked))
            return _original(self, *args)

        monkeypatch.setattr(_numba_cache.KeyedCacheFile, name, spy)
    mod = load_kernels(tmp_path / "kern_mod.py", root)
    assert mod.outer(1, 2) == 13  # outer compiles inner inside its own compile: the lock is reentrant
    assert {s[0] for s in seen} == {"load", "save"} and len(seen) == 4
    assert all(held and locked for _, held, locked in seen)
    assert not lock.held and not lock._file.is_locked


def test_threads_compiling_at_once_do_not_deadlock(tmp_path, root):
    mod = load_kernels(tmp_path / "kern_mod.py", root)
    results, errors = {}, []

    def call(i):
        try:
            results[i] = mod.outer(i, 1) if i % 2 else mod.inner(float(i), 1.0)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors and all(not t.is_alive() for t in threads)
    assert results == {i: (i * 10 + 2 if i % 2 else i * 10.0 + 1.0) for i in range(6)}


def test_a_kernel_called_from_a_plain_numba_function_compiles(tmp_path, root):
    """numba's compiler lock is then held before ours: that thread goes on without ours, no deadlock."""
    mod = load_kernels(tmp_path / "kern_mod.py", root)
    inner = mod.inner

    @numba.njit
    def plain(a):
        return inner(a, 4)

    assert plain(3) == 34 and mod.inner(3, 4) == 34


def test_another_process_waits_for_the_lock(tmp_path, root):
    path = tmp_path / "kern_mod.py"
    path.write_text(KERNELS)
    root.mkdir(parents=True)
    script = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); print('ready', flush=True); import kern_mod; "
        "print(kern_mod.outer(1, 2))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "FASTSPE_NUMBA_CACHE": "1"}
    with FileLock(str(root / _numba_folder.LOCK_NAME)):
        proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(3)
        waiting = proc.poll() is None and not data_files(root)
    out, _ = proc.communicate(timeout=300)
    assert waiting, "the other process compiled while this one held the lock"
    assert proc.returncode == 0 and out.strip() == "13" and len(data_files(root)) == 2


PARALLEL_KERNELS = """
import numpy as np
from fastspe._numba import njit, prange

@njit(parallel=True)
def fill(n):
    out = np.empty(n, dtype=np.int64)
    for i in prange(n):
        out[i] = i
    return out

@njit
def total(n):
    return fill(n).sum()
"""


@pytest.mark.slow
def test_a_caller_compiled_over_a_cached_parallel_callee_starts_the_thread_pool(tmp_path, root):
    """numba starts its thread pool when it loads a parallel overload (its reload hooks) but does not carry
    the hooks over to the rebuilt library, so a caller compiled afresh over that cached callee was saved
    without them: a later process that loaded only the caller called the parallel runtime through a null
    pointer (numba issues 8578 and 4807; `fastspe solve`'s ida_star_split over _search_subtrees)."""
    (tmp_path / "par_mod.py").write_text(PARALLEL_KERNELS)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}", "FASTSPE_NUMBA_CACHE": "1"}

    def run(expression):
        proc = subprocess.run(
            [sys.executable, "-c", f"from par_mod import *; print(repr(({expression})))"],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, f"exit {proc.returncode}:\n{proc.stderr[-3000:]}"
        return proc.stdout.strip()

    assert run("fill(5).tolist()") == "[0, 1, 2, 3, 4]"  # the parallel callee alone is cached
    assert run("total(5)") == "10"  # the caller compiles, linking the cached callee
    # a fresh process loads the caller only (the callee's code is inside it) and runs it
    assert run("total(5), sum(total.stats.cache_hits.values()), len(fill.signatures)") == "(10, 1, 0)"


def test_cache_info_and_clear(tmp_path, root, capsys):
    mod = load_kernels(tmp_path / "kern_mod.py", root)
    assert (mod.outer(1, 2), mod.inner(2.0, 1.0)) == (13, 21.0)
    old = root.parent / "0.0.9"  # an older version's folder, written by numba's own scheme
    old.mkdir()
    (old / "search._deepen-1.py311.nbi").write_bytes(b"x")
    (old / "search._deepen-1.py311.1.nbc").write_bytes(b"x")
    keep = root / "notes.txt"
    keep.write_text("not a cache file")

    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"folder: {root}" in out and "kernels: 2" in out and "overloads: 3" in out and "0.0.9" in out
    assert "caching: on" in out or "caching: off" in out

    assert main(["cache", "clear"]) == 0
    assert "removed 5 cache files" in capsys.readouterr().out
    assert not data_files(root) and not list(root.rglob("*.nbi")) and keep.exists()
    assert len(list(old.iterdir())) == 2
    assert main(["cache", "clear", "--all"]) == 0
    assert "removed 2 cache files" in capsys.readouterr().out
    assert [p.name for p in old.iterdir()] == [_numba_folder.LOCK_NAME]
    main(["cache", "info"])
    assert "kernels: 0" in capsys.readouterr().out


def test_clear_waits_for_a_compiling_process(root):
    lock = _numba_folder.compile_lock(root)
    done = threading.Event()
    with lock:
        worker = threading.Thread(target=lambda: (_numba_folder.clear_cache(), done.set()))
        worker.start()
        assert not done.wait(1.0)
    worker.join(timeout=60)
    assert done.is_set()


# ---- several processes, one fresh folder ---------------------------------------------------------------

BOARD_4X4 = [5, 1, 2, 4, 9, 6, 3, 8, 13, 10, 7, 11, 0, 14, 15, 12]
DESIGN = {
    "seed": 3,
    "rows": 3,
    "cols": 3,
    "cells": [
        {"cohort": "p", "blocks": [], "depth": 4, "count": 3},
        {"cohort": "p", "blocks": [4], "depth": 3, "count": 2},
        {"cohort": "r", "blocks": [], "depth": 8, "retreat": 2, "count": 2},
    ],
}


def _digest(frame) -> str:
    import pandas as pd

    return hashlib.sha256(pd.util.hash_pandas_object(frame.astype(str), index=True).values.tobytes()).hexdigest()


def _solve():
    from fastspe.domains.sliding import solve

    # `fastspe solve`'s path (ida_star_split; _deepen with the literal MAX_DEPTH), without building 4x4 tables
    return [
        [s.length, s.moves, s.nodes]
        for s in (solve(b, use_pdb=False) for b in (BOARD_4X4, list(range(1, 15)) + [0, 15]))
    ]


def _boards():
    from fastspe.domains.sliding.planners.solver import solve_boards

    boards = np.array([[1, 2, 3, 4, 0, 5, 7, 8, 6], [8, 6, 7, 2, 5, 4, 3, 0, 1]], dtype=np.int8)
    r = solve_boards(boards, 3, 3)
    return [r.lengths.tolist(), list(r.moves), r.nodes.tolist()]


def _bank():
    from fastspe.domains.sliding.bank.build import build_bank
    from fastspe.domains.sliding.bank.design import design_from_dict

    return build_bank(design_from_dict(DESIGN))


def _score():
    import pandas as pd

    from fastspe.scoring.score import score_responses

    bank = _bank()
    answers = ["MOVES: " + ",".join(c) for c in bank["certificate"]] + ["MOVES: U,D,L", "nonsense", "moves: r l u"]
    ids = list(bank["board_id"]) + list(bank["board_id"][:3])
    resp = pd.DataFrame({"board_id": ids, "condition": "m", "trial": range(len(ids)), "response": answers})
    return _digest(score_responses(bank, resp))


ENTRY_POINTS = {"solve": _solve, "boards": _boards, "bank": lambda: _digest(_bank()), "score": _score}


def workload(order: str) -> None:
    """Run the entry points in ``order`` and print their results as one JSON line."""
    print(json.dumps({name: ENTRY_POINTS[name]() for name in order.split(",")}, sort_keys=True))


ORDERS = ["solve,boards,bank,score", "score,bank,boards,solve", "boards,score,solve,bank", "bank,solve,score,boards"]


def _start(order: str, env: dict) -> subprocess.Popen:
    code = f"from tests.test_numba_cache import workload; workload({order!r})"
    return subprocess.Popen(
        [sys.executable, "-c", code], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _results(procs) -> list[dict]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"exit {proc.returncode}:\n{stderr[-3000:]}"
        out.append(json.loads(stdout))
    return out


@pytest.mark.slow
def test_parallel_processes_sharing_one_fresh_cache(tmp_path):
    """Round 1: four processes start together on an empty folder, each through other entry points
    first. Rounds 2-5 start warm, from a folder with some data files removed or swapped (so that some
    overloads compile while others load), and after `fastspe cache clear`. After each round every
    entry point run from the cache gives exactly the results of an uncached run."""
    base = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "FASTSPE_NUMBA_CACHE")}
    base.update(PYTHONPATH=str(REPO), FASTSPE_PDB_DIR=str(tmp_path / "pdb"), FASTSPE_PROGRESS="off")
    uncached = _results([_start(ORDERS[0], {**base, "FASTSPE_NUMBA_CACHE": "0"})])[0]
    env = {**base, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    folder = tmp_path / "numba" / "fastspe" / f"{__version__}-c{_numba_folder.LAYOUT}"
    for round_ in range(5):
        if round_ in (1, 3):  # drop every other data file: those overloads compile while others load
            for path in data_files(folder)[::2]:
                path.unlink()
        elif round_ == 2:  # swap two overloads' files, as numba's numbered files could end up
            files = data_files(folder)
            files[0].write_bytes(files[-1].read_bytes())
        elif round_ == 4:
            assert (
                subprocess.run(
                    [sys.executable, "-m", "fastspe", "cache", "clear"], env=env, capture_output=True
                ).returncode
                == 0
            )
            assert not data_files(folder)
        results = _results([_start(order, env) for order in ORDERS])
        assert all(r == uncached for r in results), f"round {round_ + 1}: results differ from an uncached run"
        assert _results([_start(ORDERS[0], env)])[0] == uncached, f"round {round_ + 1}: rerun from the cache"
