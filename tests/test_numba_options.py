"""The on-disk kernel cache is on by default and an environment variable turns it off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = "import fastspe._numba as n, fastspe.domains.sliding.kernels.graph as g; print(n.CACHE, g.bfs_distances._cache.__class__.__name__)"


@pytest.mark.slow
@pytest.mark.parametrize("value, cached", [(None, True), ("0", False), ("off", False), ("1", True)])
def test_cache_switch(value, cached):
    env = {k: v for k, v in os.environ.items() if k != "FASTSPE_NUMBA_CACHE"}
    if value is not None:
        env["FASTSPE_NUMBA_CACHE"] = value
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == str(cached)
    assert out[1] == ("KernelCache" if cached else "NullCache")


def test_cache_lives_in_the_user_cache_folder(tmp_path):
    """Compiled kernels go under XDG_CACHE_HOME/fastspe/numba/VERSION-cLAYOUT, not beside the package's sources."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("FASTSPE_NUMBA_CACHE", None)
    code = (
        "import fastspe, fastspe._numba.folder as f; from fastspe.domains.sliding.layout import Layout; "
        "Layout(3, 3, ()).distances; print(f'{fastspe.__version__}-c{f.LAYOUT}')"
    )
    name = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    folder = tmp_path / "fastspe" / "numba" / name.strip()
    assert any(p.suffix == ".nbi" for p in folder.rglob("*")) and any(p.suffix == ".nbc" for p in folder.rglob("*"))
    assert [p.name for p in (tmp_path / "fastspe" / "numba").iterdir()] == [name.strip()]


def test_numba_cache_dir_gets_a_fastspe_subfolder(tmp_path):
    """Under NUMBA_CACHE_DIR fastspe keeps to its own subfolder (so `cache clear` touches nothing else),
    and importing fastspe does not redirect other numba functions' caches."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    env.pop("FASTSPE_NUMBA_CACHE", None)
    code = (
        "import numba, fastspe._numba as n; from fastspe.domains.sliding.layout import Layout; Layout(3, 3, ()).distances; "
        "print(n.cache_dir(), numba.config.CACHE_DIR)"
    )
    folder, numba_dir = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert folder.startswith(str(tmp_path / "fastspe")) and numba_dir == str(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["fastspe"] and any(Path(folder).rglob("*.nbc"))


def test_a_helper_compiles_once_whatever_constants_its_callers_pass():
    """Kernels called from kernels compile for plain types: two masks and a flag that starts as a constant
    give one overload (numba alone compiles one per literal), and each caller still gets its own answer."""
    import numpy as np

    from fastspe._numba import njit

    @njit(cache=False)
    def masked(values, bits, keep):
        return values & bits if keep else values

    @njit(cache=False)
    def callers(values):
        keep = True
        total = masked(values, 8, keep) + masked(values, 64, False)
        for _ in range(values.shape[0]):
            keep = values[0] > 0  # keep's type is settled only after a first pass over the literal True
        return total + masked(values, 4, keep)

    values = np.array([77, 12], dtype=np.int64)
    assert callers(values).tolist() == ((values & 8) + values + (values & 4)).tolist()
    assert [tuple(str(t) for t in sig) for sig in masked.signatures] == [("array(int64, 1d, C)", "int64", "bool")]
