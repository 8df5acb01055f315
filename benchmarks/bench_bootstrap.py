"""Bootstrap speed: the numba kernel beside a vectorized NumPy version in the same run.

Run with ``NUMBA_NUM_THREADS=2 python -m pytest benchmarks/bench_bootstrap.py --benchmark-only -s``.
Targets (issue 4): the paper scale (7 conditions x 320 boards x 3 trials, 5,000 draws, every metric,
pooled + by depth + by k) < 0.5 s once compiled and >= 10x the NumPy version; 100 conditions x
10,000 boards x 5,000 draws < 60 s on 2 cores.

The NumPy version draws with NumPy's generator, accumulates count-weighted board sums vectorized
over draws (tests/naive_bootstrap.py) and takes ``np.nanpercentile``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from fastspe.stats import intervals as iv
from fastspe.kernels import bootstrap as kb
from tests.naive_bootstrap import naive_bootstrap, naive_percentiles, numpy_indices, synthetic_sums_frame
from benchmarks.timing import best_of, target

DRAWS = 5000
SEED = 20261012


def _kernel_intervals(packed, draws):
    samples = kb.bootstrap_metrics(
        packed.sums,
        packed.cell_of,
        packed.group_of_cell,
        len(packed.groups),
        packed.strata_start,
        packed.strata_size,
        SEED,
        draws,
    )
    return kb.nan_percentile_intervals(samples.reshape(draws, -1), 2.5, 97.5)


def _numpy_intervals(packed, draws, rng):
    idx = numpy_indices(rng, draws, packed.strata_start, packed.strata_size)
    samples = naive_bootstrap(packed.sums, packed.cell_of, packed.group_of_cell, len(packed.groups), idx)
    return naive_percentiles(samples.reshape(draws, -1), 2.5, 97.5)


def test_paper_scale_vs_numpy(benchmark):
    sums = synthetic_sums_frame(np.random.default_rng(0), n_cond=7, per_cell=20)
    packed = iv.pack_sums(sums)
    assert packed.sums.shape == (320, 7, len(iv.SUM_COLUMNS)) and len(packed.groups) == 9
    _kernel_intervals(packed, 10)  # compile / load from cache
    benchmark.pedantic(_kernel_intervals, args=(packed, DRAWS), rounds=5, iterations=1, warmup_rounds=1)
    kernel_s = benchmark.stats.stats.min
    numpy_s = best_of(lambda: _numpy_intervals(packed, DRAWS, np.random.default_rng(1)), repeat=2)
    domain_s = best_of(lambda: iv.bootstrap_intervals(sums, draws=DRAWS, seed=SEED))  # validation + tables too
    benchmark.extra_info.update(kernel_s=kernel_s, numpy_s=numpy_s, ratio=numpy_s / kernel_s, domain_s=domain_s)
    print(
        f"\npaper scale, {DRAWS} draws: kernel + percentiles {kernel_s:.3f} s, NumPy {numpy_s:.3f} s "
        f"({numpy_s / kernel_s:.0f}x); bootstrap_intervals from the sums frame {domain_s:.3f} s"
    )
    target(numpy_s / kernel_s >= 10, f"bootstrap kernel >= 10x NumPy, got {numpy_s / kernel_s:.0f}x")
    target(domain_s < 0.5, f"bootstrap_intervals at paper scale < 0.5 s, got {domain_s:.2f} s")


@pytest.mark.slow
def test_100_conditions_10000_boards(benchmark):
    sums = synthetic_sums_frame(np.random.default_rng(2), n_cond=100, per_cell=625)
    small = iv.pack_sums(sums.head(1000))
    _kernel_intervals(small, 10)
    t = time.perf_counter()
    packed = iv.pack_sums(sums)
    pack_s = time.perf_counter() - t
    assert packed.sums.shape == (10_000, 100, len(iv.SUM_COLUMNS))
    out_mb = DRAWS * len(packed.groups) * 100 * len(iv.METRICS) * 8 / 2**20
    kernel_s = best_of(lambda: _kernel_intervals(packed, DRAWS), repeat=1)
    result = benchmark.pedantic(
        iv.bootstrap_intervals, args=(sums,), kwargs={"draws": DRAWS, "seed": SEED}, rounds=1, iterations=1
    )
    total_s = benchmark.stats.stats.min
    assert len(result) == len(packed.groups) * 100 * len(iv.METRICS)
    benchmark.extra_info.update(pack_s=pack_s, kernel_s=kernel_s, total_s=total_s, draws_mb=out_mb)
    print(
        f"\n100 conditions x 10,000 boards x {DRAWS} draws: kernel + percentiles {kernel_s:.1f} s "
        f"(all draws at once: {out_mb:.0f} MB), bootstrap_intervals end to end {total_s:.1f} s "
        f"(packing {pack_s:.1f} s, draws held <= {iv.MEMORY_BUDGET / 2**20:.0f} MB)"
    )
    target(total_s < 60, f"100 conditions x 10k boards < 60 s, got {total_s:.1f} s")
