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
