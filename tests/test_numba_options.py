"""The on-disk kernel cache is on by default and an environment variable turns it off."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = "import fastspe._numba as n, fastspe.kernels.graph as g; print(n.CACHE, g.bfs_distances._cache.__class__.__name__)"


@pytest.mark.parametrize("value, cached", [(None, True), ("0", False), ("off", False), ("1", True)])
def test_cache_switch(value, cached):
    env = {k: v for k, v in os.environ.items() if k != "FASTSPE_NUMBA_CACHE"}
    if value is not None:
        env["FASTSPE_NUMBA_CACHE"] = value
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == str(cached)
    assert (out[1] == "NullCache") is (not cached)


def test_cache_lives_in_the_user_cache_folder(tmp_path):
    """Compiled kernels go under XDG_CACHE_HOME/fastspe/numba/VERSION, not beside the package's sources."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    code = ("import fastspe, fastspe.kernels.graph as g, numpy as np; from fastspe.layout import Layout; "
            "Layout(3, 3, ()).distances; print(fastspe.__version__)")
    version = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    folder = tmp_path / "fastspe" / "numba" / version.strip()
    assert any(p.suffix == ".nbi" for p in folder.rglob("*"))
