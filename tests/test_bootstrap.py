"""The bootstrap kernel against its NumPy twin, fed the same draws; determinism; degenerate strata."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastspe.kernels import bootstrap as kb

from .naive_bootstrap import naive_bootstrap, naive_percentiles, synthetic_sums_arrays
from .threads import digests_by_thread_count

C, I, R, Q, E, G, O, SPE, DC = range(9)


def layout(sizes, cells_per_stratum=1, groupings=("pooled", "stratum")):
    """strata of ``sizes`` boards; each stratum split into cells; groups: everything, each stratum."""
    sizes = np.asarray(sizes, dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    cell_of, goc = [], []
    cell = 0
    for s, size in enumerate(sizes):
        split = np.array_split(np.arange(size), min(cells_per_stratum, size))
        for part in split:
            cell_of += [cell] * len(part)
            row = []
            if "pooled" in groupings:
                row.append(0)
            if "stratum" in groupings:
                row.append(1 + s)
            goc.append(row)
            cell += 1
    goc = np.array(goc, dtype=np.int64)
    n_groups = int(goc.max()) + 1
    return np.array(cell_of, dtype=np.int64), goc, n_groups, start, sizes


def run_both(sums, sizes, draws, seed, cells_per_stratum=1):
    cell_of, goc, n_groups, start, size = layout(sizes, cells_per_stratum)
    fast = kb.bootstrap_metrics(sums, cell_of, goc, n_groups, start, size, seed, draws)
    idx = kb.draw_indices(seed, draws, start, size)
    slow = naive_bootstrap(sums, cell_of, goc, n_groups, idx)
    return fast, slow


def test_kernel_equals_twin_bit_for_bit():
    rng = np.random.default_rng(1)
    sizes = [20, 7, 1, 13]
    sums = synthetic_sums_arrays(rng, sizes, n_cond=4)
    fast, slow = run_both(sums, sizes, draws=300, seed=20261012, cells_per_stratum=3)
    assert fast.shape == (300, 5, 4, 9)
    np.testing.assert_array_equal(fast, slow)  # NaN-aware, exact
    assert np.isfinite(fast).all()


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    n_cond=st.integers(1, 3),
    draws=st.integers(1, 40),
    seed=st.integers(0, 2**63 - 1),
    data_seed=st.integers(0, 2**32 - 1),
    cells=st.integers(1, 3),
    p_illegal=st.sampled_from([0.0, 0.3, 1.0]),
    p_complete=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_kernel_equals_twin_property(sizes, n_cond, draws, seed, data_seed, cells, p_illegal, p_complete):
    sums = synthetic_sums_arrays(
        np.random.default_rng(data_seed), sizes, n_cond, p_illegal=p_illegal, p_complete=p_complete
    )
    fast, slow = run_both(sums, sizes, draws, seed, cells)
    np.testing.assert_array_equal(fast, slow)


def test_draws_stay_in_their_stratum_and_match_counts():
    sizes = np.array([5, 1, 9], dtype=np.int64)
    start = np.array([0, 5, 6], dtype=np.int64)
    idx = kb.draw_indices(7, 200, start, sizes)
    for s0, n in zip(start, sizes):
        block = idx[:, s0 : s0 + n]
        assert block.min() >= s0 and block.max() < s0 + n
    assert (idx[:, 5] == 5).all()
    assert len(np.unique(idx[:, 6:15])) == 9  # every board of the stratum gets drawn some time
    counts = np.zeros(15, dtype=np.int32)
    kb.draw_counts(7, 3, start, sizes, counts)
    np.testing.assert_array_equal(counts, np.bincount(idx[3], minlength=15))
    assert not np.array_equal(idx[0], idx[1])  # draws differ
    assert not np.array_equal(kb.draw_indices(8, 1, start, sizes)[0], idx[0])  # seeds differ


def test_block_size_and_condition_split_do_not_change_results():
    rng = np.random.default_rng(2)
    sizes = [11, 4, 9]
    sums = synthetic_sums_arrays(rng, sizes, n_cond=5)
    cell_of, goc, n_groups, start, size = layout(sizes, 2)
    ref = kb.bootstrap_metrics(sums, cell_of, goc, n_groups, start, size, 3, 37)
    for block in (1, 5, 64):
        np.testing.assert_array_equal(
            kb.bootstrap_metrics(sums, cell_of, goc, n_groups, start, size, 3, 37, block), ref
        )
    part = np.ascontiguousarray(sums[:, [4, 1], :])
    np.testing.assert_array_equal(
        kb.bootstrap_metrics(part, cell_of, goc, n_groups, start, size, 3, 37), ref[:, :, [4, 1]]
    )


@pytest.mark.parametrize("cuts", [(0, 37), (0, 1, 37), (0, 10, 11, 30, 37)])
def test_draw_ranges_give_the_rows_of_one_pass(cuts):
    # progress and scale-out compute draws a..b apart; each draw is keyed by its index
    rng = np.random.default_rng(4)
    sizes = [7, 12, 5]
    sums = synthetic_sums_arrays(rng, sizes, n_cond=3)
    cell_of, goc, n_groups, start, size = layout(sizes, 2)
    ref = kb.bootstrap_metrics(sums, cell_of, goc, n_groups, start, size, 9, 37)
    out = np.full_like(ref, -7.0)
    for a, b in zip(cuts[:-1], cuts[1:]):
        kb.bootstrap_metrics_into(out[a:b], sums, cell_of, goc, n_groups, start, size, 9, a)
    np.testing.assert_array_equal(out, ref)


def test_same_boards_for_every_condition():
    rng = np.random.default_rng(3)
    one = synthetic_sums_arrays(rng, [8, 8], n_cond=1)
    sums = np.ascontiguousarray(np.concatenate([one, one], axis=1))
    cell_of, goc, n_groups, start, size = layout([8, 8])
    out = kb.bootstrap_metrics(sums, cell_of, goc, n_groups, start, size, 11, 500)
    np.testing.assert_array_equal(out[:, :, 0], out[:, :, 1])  # paired: identical conditions, identical draws
    assert out[:, 0, 0, C].std() > 0  # ... and the draws do vary


def test_point_metrics_are_every_board_once():
    rng = np.random.default_rng(4)
    sizes = [6, 3]
    sums = synthetic_sums_arrays(rng, sizes, n_cond=2)
    cell_of, goc, n_groups, start, size = layout(sizes)
    est = kb.point_metrics(sums, cell_of, goc, n_groups)
    pooled = sums.sum(axis=0)
    np.testing.assert_allclose(est[0, :, C], pooled[:, 2] / pooled[:, 0])
    np.testing.assert_allclose(est[0, :, E], pooled[:, 5] / pooled[:, 2])
    np.testing.assert_allclose(est[1, :, G], sums[:6].sum(axis=0)[:, 6] / sums[:6].sum(axis=0)[:, 2])
    # strata of one board each: every draw is the sample itself
    cell_of1, goc1, ng1, start1, size1 = layout([1] * 9)
    out = kb.bootstrap_metrics(sums, cell_of1, goc1, ng1, start1, size1, 5, 20)
    np.testing.assert_array_equal(out, np.broadcast_to(kb.point_metrics(sums, cell_of1, goc1, ng1), out.shape))


def test_spe_identity_and_bounds_in_every_draw():
    rng = np.random.default_rng(5)
    sums = synthetic_sums_arrays(rng, [10, 10, 10], n_cond=3)
    fast, _ = run_both(sums, [10, 10, 10], 400, 9)
    ok = fast[..., C] > 0
    np.testing.assert_allclose(fast[..., SPE][ok], (fast[..., R] * fast[..., Q] * fast[..., E])[ok], rtol=1e-12)
    assert (fast[..., SPE] <= fast[..., C] + 1e-15).all() and (fast[..., SPE] >= 0).all()
    np.testing.assert_allclose(fast[..., R], 1 - fast[..., I])


def degenerate_sums():
    """Conditions over 3 strata of 4 boards x 3 trials: 0 all complete (optimal), 1 all illegal,
    2 all legal noncompletion, 3 no outputs in stratum 1 only."""
    sums = np.zeros((12, 4, 8))
    sums[:, 0] = [3, 3, 3, 0, 3, 3.0, 0.0, 30.0]
    sums[:, 1] = [3, 0, 0, 3, 0, 0.0, 0.0, 0.0]
    sums[:, 2] = [3, 3, 0, 0, 0, 0.0, 0.0, 0.0]
    sums[:, 3] = [3, 2, 1, 1, 0, 0.5, 2.0, 10.0]
    sums[4:8, 3] = 0.0
    return np.ascontiguousarray(sums)


def test_degenerate_strata_give_nan_only_where_undefined():
    sums = degenerate_sums()
    fast, slow = run_both(sums, [4, 4, 4], 50, 1)
    np.testing.assert_array_equal(fast, slow)
    pooled, stratum1 = fast[:, 0], fast[:, 2]
    # all complete: everything defined, R = Q = E = SPE = 1
    np.testing.assert_array_equal(pooled[:, 0], np.broadcast_to([1, 0, 1, 1, 1, 0, 1, 1, 10], (50, 9)))
    # all illegal: Q (no legal plan), E, G, Dc (no completion) undefined; the rest defined
    nan = np.isnan(pooled[:, 1])
    assert nan[:, [Q, E, G, DC]].all() and not nan[:, [C, I, R, O, SPE]].any()
    np.testing.assert_array_equal(pooled[:, 1, [C, I, R, O, SPE]], np.broadcast_to([0, 1, 0, 0, 0], (50, 5)))
    # all legal noncompletion: Q = 0 is defined, E and G are not
    nan = np.isnan(pooled[:, 2])
    assert nan[:, [E, G]].all() and not nan[:, [C, I, R, Q, O, SPE]].any()
    assert (pooled[:, 2, Q] == 0).all() and (pooled[:, 2, SPE] == 0).all()
    # a condition with no output in one stratum: that stratum's group is all NaN, nothing else is
    assert np.isnan(stratum1[:, 3]).all()
    assert not np.isnan(pooled[:, 3]).any() and not np.isnan(fast[:, [1, 3], 3]).any()


def test_undefined_in_some_draws_only():
    # one stratum: one board completes once, five never complete -> E undefined in draws that miss it
    sums = np.zeros((6, 1, 8))
    sums[:, 0] = [3, 3, 0, 0, 0, 0.0, 0.0, 0.0]
    sums[0, 0] = [3, 3, 1, 0, 0, 0.5, 10.0, 20.0]
    fast, slow = run_both(np.ascontiguousarray(sums), [6], 2000, 3)
    np.testing.assert_array_equal(fast, slow)
    e = fast[:, 0, 0, E]
    missed = np.isnan(e)
    assert 0.2 < missed.mean() < 0.45  # (5/6)^6 = 0.335
    assert (e[~missed] == 0.5).all()
    assert not np.isnan(fast[:, 0, 0, [C, I, R, Q, O, SPE]]).any()
    assert (fast[missed, 0, 0, SPE] == 0).all() and (fast[missed, 0, 0, C] == 0).all()


def test_percentiles_match_numpy():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(1001, 40))
    x[rng.random(x.shape) < 0.3] = np.nan
    x[:, 3] = np.nan  # nothing defined
    x[:, 4] = np.nan
    x[17, 4] = 2.5  # one draw defined
    x[:, 5] = np.round(x[:, 5])  # heavy ties
    x[:, 6] = 1.0
    x = np.ascontiguousarray(x)
    for q_low, q_high in ((2.5, 97.5), (5.0, 95.0), (0.0, 100.0), (50.0, 50.0)):
        lo, hi, used = kb.nan_percentile_intervals(x, q_low, q_high)
        nlo, nhi, nused = naive_percentiles(x, q_low, q_high)
        np.testing.assert_array_equal(lo, nlo)
        np.testing.assert_array_equal(hi, nhi)
        np.testing.assert_array_equal(used, nused)
    assert used[3] == 0 and np.isnan(lo[3]) and used[4] == 1 and lo[4] == hi[4] == 2.5


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60),
    cols=st.integers(1, 10),
    seed=st.integers(0, 2**32 - 1),
    q=st.floats(0, 100),
    nan_share=st.sampled_from([0.0, 0.5, 0.95]),
)
def test_percentiles_property(n, cols, seed, q, nan_share):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(n, cols)), 1)
    x[rng.random(x.shape) < nan_share] = np.nan
    lo, hi, used = kb.nan_percentile_intervals(x, q, 100.0)
    nlo, nhi, nused = naive_percentiles(x, q, 100.0)
    np.testing.assert_array_equal(lo, nlo)
    np.testing.assert_array_equal(hi, nhi)
    np.testing.assert_array_equal(used, nused)


_CHILD = textwrap.dedent("""
    import hashlib, numpy as np, numba
    from fastspe.kernels import bootstrap as kb
    from tests.naive_bootstrap import synthetic_sums_arrays
    sizes = np.array([30, 17, 25, 9], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    sums = synthetic_sums_arrays(np.random.default_rng(0), sizes, 3)
    cell_of = np.repeat(np.arange(4), sizes).astype(np.int64)
    goc = np.array([[0, 1 + s] for s in range(4)], dtype=np.int64)
    out = kb.bootstrap_metrics(sums, cell_of, goc, 5, start, sizes, 20261012, 301)
    lo, hi, used = kb.nan_percentile_intervals(out.reshape(301, -1), 2.5, 97.5)
    h = hashlib.sha256(out.tobytes() + lo.tobytes() + hi.tobytes() + used.tobytes()).hexdigest()
    print(numba.get_num_threads(), h)
""")


def test_bit_identical_at_any_thread_count():
    digests = digests_by_thread_count(_CHILD)
    assert digests["1"] == digests["2"]
