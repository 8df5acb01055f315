"""Bank builds, scoring and bootstrap draws on a Dask cluster of 2 worker processes: the same bytes as in-process."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

pytest.importorskip("distributed")

import fastspe  # noqa: E402
from fastspe.domains.sliding.bank.build import proposal_piece
from fastspe.stats import intervals  # noqa: E402
from fastspe.domains.sliding.bank.build import build_bank_table  # noqa: E402
from fastspe.boundary.banks import read_bank, write_bank
from fastspe.domains.sliding.planners.baselines import baseline_responses  # noqa: E402
from fastspe.boundary.banks import read_bank_table  # noqa: E402
from fastspe.cli import main  # noqa: E402
from fastspe.domains.sliding.bank.design import Design, DesignCell, paper_design  # noqa: E402
from fastspe.distributed import Proposals, cluster, executor, ordered_map  # noqa: E402
from fastspe.boundary.files import write_table  # noqa: E402
from fastspe.domains.sliding.layout import Layout  # noqa: E402
from fastspe.stats.metrics import board_sums  # noqa: E402
from fastspe.scoring.score import score_file  # noqa: E402

from .naive_bootstrap import synthetic_verdicts  # noqa: E402
from .test_worker_pool import DiesOnce, run_script  # noqa: E402  (as for the local pool, on Dask's workers)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    with cluster(workers=2) as c:
        yield c


def _where(_shared, _item):
    return fastspe.__file__, os.getpid()


@pytest.mark.slow
def test_workers_import_this_checkout(client):
    found = list(ordered_map(client, _where, None, range(4)))
    assert {Path(f).resolve() for f, _ in found} == {Path(fastspe.__file__).resolve()}
    assert len(client.nthreads()) == 2 and set(client.nthreads().values()) == {1}


def _item(_shared, item):
    return item


_COLD_KERNEL = """
import os, sys
import numba  # imported in the forkserver too, as fastspe.scoring is by score --workers, before the workers' env is set
import numpy as np
from fastspe.distributed import cluster, ordered_map
from fastspe.workers.forkserver import apply_share_of_cores


def compile_a_new_kernel(_shared, n):
    apply_share_of_cores()
    kernel = numba.njit(parallel=True)(lambda a: a.sum())  # not in any cache: Numba compiles it here
    return float(kernel(np.arange(n, dtype=np.float64))), numba.get_num_threads()


if __name__ == "__main__":
    with cluster(workers=2, preload=("numba",)) as client:
        print(list(ordered_map(client, compile_a_new_kernel, None, [10, 100])))
"""


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a worker's share of one core is the whole pool")
def test_a_worker_compiles_kernels_the_cache_lacks(tmp_path):
    """A local worker compiles a kernel missing from the cache: its share of the cores does not change the Numba
    setting its thread pool was started with (on a cold cache every task of ``score --workers 2`` failed with
    "Cannot set NUMBA_NUM_THREADS to a different value once the threads have been launched")."""
    import subprocess
    import sys

    script = tmp_path / "cold.py"
    script.write_text(_COLD_KERNEL)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == repr(
        [(45.0, (os.cpu_count() or 1) // 2), (4950.0, (os.cpu_count() or 1) // 2)]
    )


def test_arrow_tables_travel_with_their_chunks(client):
    # Dask's Arrow serializer would re-chunk columns at common boundaries, and Parquet pages follow chunks
    table = pa.table({"a": pa.chunked_array([[1, 2], [3]]), "b": pa.chunked_array([["x"], ["y", "z"]])})
    [back] = ordered_map(client, _item, table, [table])
    assert back.equals(table) and [c.num_chunks for c in back.columns] == [2, 2]
    assert [len(c) for c in back.column("b").chunks] == [1, 2]


def test_bootstrap_intervals_are_identical(client):
    sums = board_sums(synthetic_verdicts(seed=11, conditions=("a", "b", "c"), per_cell=5))
    draws = 3 * intervals.DRAW_RANGE + 17  # several ranges, the last one short
    local = intervals.bootstrap_draws(intervals.pack_sums(sums), draws, seed=9)
    remote = intervals.bootstrap_draws(intervals.pack_sums(sums), draws, seed=9, executor=executor(client))
    assert np.array_equal(local.samples, remote.samples, equal_nan=True)
    pd.testing.assert_frame_equal(
        intervals.bootstrap_intervals(sums, draws=700, seed=3),
        intervals.bootstrap_intervals(sums, draws=700, seed=3, executor=executor(client)),
    )


def test_a_running_scheduler_by_address(client):
    sums = board_sums(synthetic_verdicts(seed=2, conditions=("a", "b"), per_cell=3))
    with cluster(scheduler=client.scheduler.address) as other:
        assert other is not client and len(other.nthreads()) == 2
        remote = intervals.bootstrap_intervals(sums, draws=600, seed=8, executor=executor(other))
    pd.testing.assert_frame_equal(intervals.bootstrap_intervals(sums, draws=600, seed=8), remote)


def test_bank_build_is_identical(client, tmp_path):
    # the third cell shares layout and depth with the first, so it skips the first one's boards
    design = Design(
        seed=7,
        cells=(
            DesignCell("primary", Layout(4, 4, ()), 10, 300),
            DesignCell("primary", Layout(4, 4, (5,)), 20, 150),
            DesignCell("stress", Layout(4, 4, ()), 10, 200),
        ),
    )
    local = build_bank_table(design)
    with Proposals(
        client, proposal_piece, piece=257, first=100, ahead=3
    ) as proposals:  # pieces never aligned with the ranges
        remote = build_bank_table(design, propose=proposals)
    assert remote.equals(local)
    write_bank(local, tmp_path / "a.parquet")
    write_bank(remote, tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask")
    bank = build_bank_table(paper_design())
    write_bank(bank, folder / "bank.parquet")
    frame = read_bank(folder / "bank.parquet")
    responses = pd.concat(
        [baseline_responses(frame, name, trials=2) for name in ("greedy", "noisy", "random")], ignore_index=True
    )
    write_table(responses, folder / "r.jsonl")
    return folder


def test_score_file_is_byte_identical(client, files, tmp_path):
    bank = read_bank_table(files / "bank.parquet")
    local = score_file(bank, files / "r.jsonl", tmp_path / "a.parquet", chunk_bytes=20_000)
    remote = score_file(bank, files / "r.jsonl", tmp_path / "b.parquet", chunk_bytes=20_000, executor=executor(client))
    assert local == remote and local.streamed and local.scored == 2400
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


@pytest.mark.slow
def test_cli_with_workers_is_byte_identical(files, tmp_path):
    assert main(["bank", "build", "--out", str(tmp_path / "bank.parquet"), "--workers", "2"]) == 0
    assert (tmp_path / "bank.parquet").read_bytes() == (files / "bank.parquet").read_bytes()
    verdicts = str(files / "v.parquet")
    base = ["--bank", str(files / "bank.parquet")]
    score = ["score", *base, "--responses", str(files / "r.jsonl")]
    assert main(score + ["--out", verdicts]) == 0
    assert main(score + ["--out", str(tmp_path / "v.parquet"), "--workers", "2"]) == 0
    assert (tmp_path / "v.parquet").read_bytes() == Path(verdicts).read_bytes()
    report = ["report", *base, "--verdicts", verdicts, "--draws", "600", "--no-figures"]
    assert main(report + ["--out", str(tmp_path / "a")]) == 0
    assert main(report + ["--out", str(tmp_path / "b"), "--workers", "2"]) == 0
    written = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert Path("metrics.csv") in written and Path("tables/paired_differences.csv") in written
    for name in written:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    compare = ["compare", *base, "--verdicts", verdicts, "--baseline", "baseline:greedy", "--draws", "600"]
    assert main(compare + ["--out", str(tmp_path / "c")]) == 0
    assert main(compare + ["--out", str(tmp_path / "d"), "--workers", "2"]) == 0
    for name in ("compare.csv", "compare.json", "compare.md"):
        assert (tmp_path / "c" / name).read_bytes() == (tmp_path / "d" / name).read_bytes(), name


def test_a_killed_worker_is_replaced_and_the_result_is_the_same(client, tmp_path):
    sums = board_sums(synthetic_verdicts(seed=4, conditions=("a", "b"), per_cell=4))
    packed = intervals.pack_sums(sums)
    dies = DiesOnce(tmp_path / "died", first=intervals.DRAW_RANGE)

    def dying(fn, shared, items, *args):
        assert fn is intervals.draw_range
        return ordered_map(client, dies, shared, items, *args)

    local = intervals.bootstrap_draws(packed, 2 * intervals.DRAW_RANGE, seed=1)
    remote = intervals.bootstrap_draws(packed, 2 * intervals.DRAW_RANGE, seed=1, executor=dying)
    assert (tmp_path / "died").exists()
    assert np.array_equal(local.samples, remote.samples, equal_nan=True)


def test_cluster_options_are_exclusive_and_checked(capsys):
    args = ["report", "--bank", "b.parquet", "--verdicts", "v.parquet", "--out", "r"]
    assert main(args + ["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert main(["bank", "build", "--out", "b.parquet", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    with pytest.raises(ValueError, match="not both"):
        with cluster("tcp://127.0.0.1:1", 2):
            pass
    with cluster() as none:
        assert none is None and executor(none) is None


def test_missing_dask_names_the_extra(monkeypatch):
    import sys

    from fastspe.extras import MissingExtra

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MissingExtra, match=r"pip install 'fastspe\[dask\]'"):
        with cluster(workers=1):
            pass


def test_sliced_arrow_columns_travel_compacted_with_their_chunks():
    import pickle

    from fastspe.distributed import Sealed

    whole = pa.array([f"answer {i:06d} " * 4 for i in range(20_000)])
    # four chunks that are slices of one buffer, as a batch read from a file is
    table = pa.table(
        {
            "response": pa.chunked_array([whole.slice(i, 5_000) for i in range(0, 20_000, 5_000)]),
            "n": pa.chunked_array([pa.array(range(5_000))] * 4),
        }
    )
    back = pickle.loads(pickle.dumps(Sealed(table), protocol=5)).value
    assert back.equals(table) and [len(c) for c in back.column("response").chunks] == [5_000] * 4
    assert len(pickle.dumps(Sealed(table), protocol=5)) < 1.2 * table.nbytes < len(pickle.dumps(table, protocol=5))


@pytest.mark.slow
def test_a_once_executor_lets_the_cluster_close_after_its_last_result():
    """``executor(starting, once=True)``: the cluster starts closing as soon as the map's last result is in (the
    caller still writing it), not when the block ends; an executor for several maps leaves it up."""
    import time

    from fastspe.distributed import cluster_in_background

    with cluster_in_background(workers=1) as starting:
        again = executor(starting)
        assert list(again(_item, None, [3, 1])) == [3, 1] and list(again(_item, None, [2])) == [2]
        assert starting._client.status == "running"
        assert list(executor(starting, once=True)(_item, None, [3, 1, 2])) == [3, 1, 2]
        deadline = time.monotonic() + 30
        while starting._client.status not in ("closing", "closed") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert starting._client.status in ("closing", "closed")


@pytest.mark.slow
def test_a_cluster_started_in_background_serves_the_block_and_stops(tmp_path):
    from multiprocessing import forkserver

    from fastspe.distributed import Starting, cluster_in_background

    before = getattr(forkserver._forkserver, "_forkserver_pid", None)  # (another test's cluster may hold one)
    with cluster_in_background(workers=1) as starting:
        assert isinstance(starting, Starting)
        assert list(ordered_map(starting, _item, None, [3, 1, 2])) == [3, 1, 2]
    # a forkserver this block started went with it; one that was there before stays for its owner
    assert getattr(forkserver._forkserver, "_forkserver_pid", None) == before
    with cluster_in_background() as none:
        assert none is None
    with pytest.raises(fastspe.errors.UserError, match="whole number"):
        with cluster_in_background(workers=0):
            pass


def _sigint_handler(_shared, _item):
    import signal

    return repr(signal.getsignal(signal.SIGINT))


def test_local_workers_leave_ctrl_c_to_this_process(client):
    import signal

    assert set(ordered_map(client, _sigint_handler, None, range(4))) == {repr(signal.SIG_IGN)}
    assert callable(signal.getsignal(signal.SIGINT))  # this process still hears it


def nap(_shared, seconds):
    import time

    time.sleep(seconds)
    return seconds


class _LosesAnInterrupt:
    """Ctrl-C at this process while its finalizer runs: Python prints the KeyboardInterrupt as "ignored" and drops
    it, as it did when a Dask future's ``__del__`` was running (seen once in CI: the map went on to its end)."""

    def __del__(self):
        import signal
        import threading
        import time

        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(0.2)  # the handler runs here, in the finalizer (sleep checks for signals when one wakes it)


def test_a_ctrl_c_lost_in_a_finalizer_still_ends_the_map(client, monkeypatch):
    """A cluster latches Ctrl-C: the next wait on it raises the KeyboardInterrupt the finalizer lost."""
    import sys
    import time

    lost = []  # what Python reports as "Exception ignored in" (pytest's own hook makes a warning of it)
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: lost.append(unraisable.exc_type))
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        for i, _ in enumerate(ordered_map(client, nap, None, [0.1] * 100)):  # 5 s on two workers
            if i == 2:
                _LosesAnInterrupt()  # made and dropped at once: its finalizer runs here
    assert time.monotonic() - start < 3
    assert lost == [KeyboardInterrupt]  # the finalizer did lose it
    assert list(ordered_map(client, nap, None, [0.0] * 3)) == [0.0] * 3  # raised once: the cluster goes on


_INTERRUPTED = """
import sys
from fastspe.distributed import cluster, ordered_map
from tests.test_distributed import nap
try:
    with cluster(workers=2) as client:
        print("up", flush=True)
        list(ordered_map(client, nap, None, [0.2] * 1000))
except KeyboardInterrupt:
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)
"""


@pytest.mark.slow
def test_ctrl_c_ends_a_local_cluster_quietly(tmp_path):
    """A terminal's Ctrl-C reaches the whole process group: the workers must leave it to this process, which
    closes the cluster; no worker dies printing Dask's tracebacks, and no process of the group is left."""
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    proc = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert proc.stdout.readline() == "up\n"
        time.sleep(1.0)  # the naps (a batch's time each) are running on the workers
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert err.strip() == "error: interrupted", err
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the forkserver and the workers went with the cluster
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("a process of the cluster outlived it")


def test_a_second_local_cluster_at_once_finds_its_own_ports(client):
    """Two runs with ``--workers`` at once: neither takes a fixed port (Dask's scheduler serves HTTP on 8787 by
    default, and warns "Port 8787 is already in use" to the second), and nothing listens beyond this machine."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with cluster(workers=1) as other:
            ports = {c.scheduler_info()["services"]["dashboard"] for c in (client, other)}
    assert not [w for w in caught if "already in use" in str(w.message)]
    assert len(ports) == 2 and 8787 not in ports


def test_importing_the_forkserver_preload_elsewhere_changes_nothing():
    import signal
    import subprocess
    import sys

    code = (
        "import signal, fastspe.workers.forkserver; "
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    assert (
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        == "True\n"
    )
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN  # (a cluster of this module latches it)


def _forked_worker_state():
    """In a process forked from a forkserver: whether Numba's tables were there before its first kernel, whether
    GNU OpenMP had started (a fork would have aborted), and whether a parallel kernel then runs."""
    import sys

    import numba.np.ufunc.parallel as parallel

    from fastspe.kernels.id_hash import id_rows, id_table

    tables, openmp = "numba.cpython.listobj" in sys.modules, parallel._is_initialized
    data, offsets = np.frombuffer(b"abcde", np.uint8), np.array([0, 2, 5], np.int64)
    slots = id_table(data, offsets)
    return tables, openmp, id_rows(slots, data, offsets, data, offsets).tolist()


_FORKED = """
import multiprocessing
from tests.test_distributed import _forked_worker_state
if __name__ == "__main__":
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["fastspe.workers.forkserver", "fastspe._numba.warm"])
    with context.Pool(1) as pool:
        print(pool.apply(_forked_worker_state))
"""


@pytest.mark.slow
def test_the_forkserver_builds_numbas_tables_for_its_workers_without_starting_openmp(tmp_path):
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    script = tmp_path / "forked.py"
    script.write_text(_FORKED)
    out = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.stdout.strip() == "(True, False, [0, 1])", out.stderr[-2000:]


_ENDED = """
import os
from multiprocessing import forkserver
from fastspe.distributed import cluster, ordered_map
from tests.test_distributed import nap
if __name__ == "__main__":
    with cluster(workers=1) as client:
        server = forkserver._forkserver._forkserver_pid
        assert list(ordered_map(client, nap, None, [0.0, 0.0])) == [0.0, 0.0]
    try:
        os.kill(server, 0)
        print("forkserver left")
    except ProcessLookupError:
        print("forkserver gone")
    print(forkserver._forkserver._forkserver_pid, forkserver._forkserver._forkserver_address)
"""


@pytest.mark.slow
def test_a_local_cluster_ends_its_forkserver_and_leaves_nothing(tmp_path):
    """The forkserver is killed, not asked to exit (its exit was 0.35 s of interpreter finalization at the end of
    every command): it is reaped, its socket is gone, and nothing complains."""
    out = run_script(tmp_path, _ENDED)
    assert out.stdout.splitlines() == ["forkserver gone", "None None"], out.stdout + out.stderr
    assert out.returncode == 0 and out.stderr.strip() == "", out.stderr


def test_an_interrupted_block_does_not_wait_for_ever_on_a_start_that_hangs(monkeypatch):
    """Seen by hand: Ctrl-C about 1 s into `score --workers 2` (on the code before too) could leave Python's import
    lock held, and the cluster's start, still importing, hung; the command waited for it for ever."""
    import contextlib
    import threading
    import time

    import fastspe.distributed as fd

    never = threading.Event()

    @contextlib.contextmanager
    def hanging(*args):
        never.wait()  # a start that never comes up
        yield None

    monkeypatch.setattr(fd, "cluster", hanging)
    monkeypatch.setattr(fd, "ABANDON_START", 0.5)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with fd.cluster_in_background(workers=2):
            raise KeyboardInterrupt
    assert time.monotonic() - start < 5
    never.set()  # (lets the thread end)
