"""The local worker pool that ``--workers N`` runs on (``fastspe.workers.pool``): the same bytes as in-process,
shared values sent once per worker, dead workers replaced, Ctrl-C left to this process, nothing left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fastspe
from fastspe.domains.sliding.bank.build import build_bank_table
from fastspe.boundary.banks import write_bank
from fastspe.domains.sliding.bank.design import Design, DesignCell, paper_design
from fastspe.boundary.banks import read_bank_table
from fastspe.boundary.files import write_table
from fastspe.distributed import Proposals, executor, ordered_map
from fastspe.domains.sliding.layout import Layout
from fastspe.domains.sliding.planners.baselines import baseline_responses
from fastspe.scoring.score import score_file
from fastspe.stats import intervals
from fastspe.stats.metrics import board_sums
from fastspe.workers.pool import RETRIES, ProcessPool, WorkerDied, process_pool
from fastspe.domains.sliding.bank.build import proposal_piece

from .naive_bootstrap import synthetic_verdicts

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}


def run_script(folder: Path, code: str, env: dict = ENV, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """``code`` run as a script file of its own (its workers import it as their main module), in a new session."""
    script = folder / "script.py"
    script.write_text(code)
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        start_new_session=True,
    )


@pytest.fixture(scope="module")
def pool():
    with process_pool(2) as p:
        yield p


def _where(shared, _item):
    return fastspe.__file__, os.getpid(), id(shared)


def _item(_shared, item):
    return item


def nap(_shared, seconds):
    import time

    time.sleep(seconds)
    return seconds


def _fails(_shared, item):
    raise ValueError(f"no good: {item}")


def test_results_come_in_order_from_this_checkout(pool):
    assert list(pool.map(_item, None, range(20))) == list(range(20))
    assert list(ordered_map(pool, _item, None, iter([3, 1, 2]))) == [3, 1, 2]
    assert list(executor(pool)(_item, None, [])) == []
    found = list(pool.map(_where, None, range(8)))
    assert {Path(f).resolve() for f, _, _ in found} == {Path(fastspe.__file__).resolve()}
    assert len({pid for _, pid, _ in found}) <= 2 and os.getpid() not in {pid for _, pid, _ in found}


def test_a_shared_value_reaches_each_worker_once_and_its_file_goes(pool):
    shared = np.arange(100_000)
    seen = list(pool.map(_where, shared, range(12)))
    for pid in {pid for _, pid, _ in seen}:  # one unpickled copy per worker, for all its tasks of the map
        assert len({ident for _, p, ident in seen if p == pid}) == 1
    assert os.listdir(pool._folder) == []  # the map's file went with the map


def test_an_exception_in_a_task_is_raised_here(pool):
    with pytest.raises(ValueError, match="no good: 0"):
        list(pool.map(_fails, None, [0, 1]))
    assert list(pool.map(_item, None, [5])) == [5]  # the pool goes on


class DiesOnce:
    """``intervals.draw_range`` that kills its worker process the first time it meets draw ``first``."""

    def __init__(self, marker: Path, first: int):
        self.marker, self.first = marker, first

    def __call__(self, arrays, draws, *args):
        if draws[0] == self.first and not self.marker.exists():
            self.marker.write_text(str(os.getpid()))
            os._exit(1)  # the worker process dies mid-task
        return intervals.draw_range(arrays, draws, *args)


def test_a_killed_worker_is_replaced_and_the_result_is_the_same(pool, tmp_path):
    packed = intervals.pack_sums(board_sums(synthetic_verdicts(seed=4, conditions=("a", "b"), per_cell=4)))
    dies = DiesOnce(tmp_path / "died", first=intervals.DRAW_RANGE)
    local = intervals.bootstrap_draws(packed, 3 * intervals.DRAW_RANGE, seed=1)
    remote = intervals.bootstrap_draws(
        packed,
        3 * intervals.DRAW_RANGE,
        seed=1,
        executor=lambda fn, shared, items, *args: pool.map(dies, shared, items, *args),
    )
    assert (tmp_path / "died").exists()
    assert np.array_equal(local.samples, remote.samples, equal_nan=True)


def _always_dies(_shared, _item):
    os._exit(3)


def test_a_task_that_kills_every_worker_is_given_up_with_a_clear_error():
    with process_pool(1) as p:
        with pytest.raises(WorkerDied, match=f"died {RETRIES + 1} times before a task \\(_always_dies\\) could finish"):
            list(p.map(_always_dies, None, [0]))
        assert list(p.map(_item, None, [1, 2])) == [1, 2]


def test_bootstrap_and_bank_are_identical(pool, tmp_path):
    sums = board_sums(synthetic_verdicts(seed=11, conditions=("a", "b", "c"), per_cell=5))
    draws = 3 * intervals.DRAW_RANGE + 17  # several ranges, the last one short
    pd.testing.assert_frame_equal(
        intervals.bootstrap_intervals(sums, draws=draws, seed=9),
        intervals.bootstrap_intervals(sums, draws=draws, seed=9, executor=executor(pool)),
    )
    design = Design(
        seed=7,
        cells=(
            DesignCell("primary", Layout(4, 4, ()), 10, 300),
            DesignCell("primary", Layout(4, 4, (5,)), 20, 150),
            DesignCell("stress", Layout(4, 4, ()), 10, 200),
        ),
    )
    with Proposals(
        pool, proposal_piece, piece=257, first=100, ahead=3
    ) as proposals:  # pieces never aligned with the ranges
        remote = build_bank_table(design, propose=proposals)
    assert remote.equals(build_bank_table(design))


def test_score_file_is_byte_identical(pool, tmp_path):
    bank = build_bank_table(paper_design())
    write_bank(bank, tmp_path / "bank.parquet")
    bank = read_bank_table(tmp_path / "bank.parquet")
    frame = bank.to_pandas()
    responses = pd.concat(
        [baseline_responses(frame, name, trials=1) for name in ("greedy", "random")], ignore_index=True
    )
    write_table(responses, tmp_path / "r.jsonl")
    local = score_file(bank, tmp_path / "r.jsonl", tmp_path / "a.parquet", chunk_bytes=20_000)
    remote = score_file(
        bank, tmp_path / "r.jsonl", tmp_path / "b.parquet", chunk_bytes=20_000, executor=executor(pool, once=True)
    )
    assert local == remote and local.scored == len(responses)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def _sigint_handler(_shared, _item):
    return repr(signal.getsignal(signal.SIGINT))


def test_workers_leave_ctrl_c_to_this_process(pool):
    assert set(pool.map(_sigint_handler, None, range(4))) == {repr(signal.SIG_IGN)}
    assert callable(signal.getsignal(signal.SIGINT))


def test_workers_must_be_a_whole_number():
    with pytest.raises(fastspe.errors.UserError, match="whole number"):
        ProcessPool(0)


_NO_DASK = """
import sys
sys.modules["distributed"] = sys.modules["dask"] = None  # as on a base install: --workers needs neither
from fastspe.cli import main
if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
"""


def test_cli_workers_need_no_dask_and_write_the_same_bank(tmp_path):
    (tmp_path / "nodask.py").write_text(_NO_DASK)
    for name, extra in (("a.parquet", []), ("b.parquet", ["--workers", "2"])):
        done = subprocess.run(
            [sys.executable, str(tmp_path / "nodask.py"), "bank", "build", "--out", str(tmp_path / name), *extra],
            env=ENV,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


_INTERRUPTED = """
import sys
from fastspe.workers.pool import process_pool
from tests.test_worker_pool import nap
try:
    with process_pool(2) as pool:
        print("up", flush=True)
        list(pool.map(nap, None, [0.2] * 1000))
except KeyboardInterrupt:
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)
"""

_ENDED = """
import os
from multiprocessing import forkserver
from fastspe.workers.pool import process_pool
from tests.test_worker_pool import _item
if __name__ == "__main__":
    with process_pool(1) as pool:
        server, folder = forkserver._forkserver._forkserver_pid, pool._folder
        assert list(pool.map(_item, b"x" * 10, [0, 1])) == [0, 1]
    try:
        os.kill(server, 0)
        print("forkserver left")
    except ProcessLookupError:
        print("forkserver gone")
    print(os.path.exists(folder), forkserver._forkserver._forkserver_pid)
"""


def _gone(group: int, seconds: float = 10) -> bool:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_ctrl_c_ends_the_pool_quietly_and_leaves_no_process(tmp_path):
    import time

    proc = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED],
        cwd=REPO,
        env=ENV,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert proc.stdout.readline() == "up\n"
        time.sleep(1.0)  # the naps are running on the workers
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: to the whole group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 and err.strip() == "error: interrupted", err
    assert _gone(proc.pid), "a worker or the forkserver outlived the pool"


def test_the_pool_ends_its_forkserver_and_removes_its_folder(tmp_path):
    out = run_script(tmp_path, _ENDED)
    assert out.stdout.splitlines() == ["forkserver gone", "False None"], out.stdout + out.stderr
    assert out.returncode == 0 and out.stderr.strip() == "", out.stderr


_COLD_KERNEL = """
import numba
import numpy as np
from fastspe.workers.pool import process_pool


def compile_a_new_kernel(_shared, n):
    kernel = numba.njit(parallel=True)(lambda a: a.sum())  # not in any cache: Numba compiles it here
    return float(kernel(np.arange(n, dtype=np.float64))), numba.get_num_threads()


if __name__ == "__main__":
    with process_pool(2, preload=("numba",)) as pool:
        print(list(pool.map(compile_a_new_kernel, None, [10, 100])))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a worker's share of one core is the whole pool")
def test_a_worker_compiles_kernels_the_cache_lacks(tmp_path):
    done = run_script(tmp_path, _COLD_KERNEL, env={k: v for k, v in ENV.items() if k != "NUMBA_NUM_THREADS"})
    assert done.returncode == 0, done.stderr[-3000:]
    share = (os.cpu_count() or 1) // 2
    assert done.stdout.strip().splitlines()[-1] == repr([(45.0, share), (4950.0, share)])


_KILLED = """
import os, sys
from fastspe.workers.pool import process_pool
from tests.test_worker_pool import nap, _where
if __name__ == "__main__":
    with process_pool(2) as pool:
        print(*sorted({pid for _, pid, _ in pool.map(_where, None, range(4))}), pool._folder, flush=True)
        list(pool.map(nap, None, [0.5] * 1000))
"""


@pytest.mark.slow
def test_workers_end_by_themselves_when_the_pool_process_is_killed_and_its_folder_goes_later(tmp_path):
    """SIGKILL leaves no process of the pool behind (a ``concurrent.futures`` worker alone waits for ever); the
    folder it could not remove is removed by the next pool."""
    import time

    script = tmp_path / "killed.py"
    script.write_text(_KILLED)
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=REPO,
        env=ENV,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        *workers, folder = proc.stdout.readline().split()
        time.sleep(0.5)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert _gone(proc.pid), "a worker outlived the killed process"
        assert workers and not any(_alive(int(pid)) for pid in workers)
        assert os.path.isdir(folder)
        with process_pool(1) as pool:
            assert not os.path.exists(folder) and os.path.isdir(pool._folder)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
