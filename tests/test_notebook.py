"""The pipeline notebook runs top to bottom (so it cannot rot)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "pipeline.ipynb"


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("fastspe.domains.sliding.planners.baselines") is None,
    reason="fastspe.domains.sliding.planners.baselines not written yet",
)
def test_pipeline_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("FASTSPE_NOTEBOOK_OUT", str(tmp_path / "report"))
    monkeypatch.setenv("FASTSPE_NOTEBOOK_DRAWS", "300")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"
    ]
    assert not errors
    images = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if "image/png" in o.get("data", {})
    ]
    assert len(images) == 2  # both figures are shown
    assert (tmp_path / "report" / "report.html").is_file()
