"""docs/notebooks/quickstart.ipynb runs top to bottom in a fresh kernel, its frame and its curve drawn inline."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebooks" / "quickstart.ipynb"


@pytest.mark.slow
def test_the_notebook_runs_top_to_bottom(monkeypatch, tmp_path):
    for module in ("nbclient", "nbformat", "ipykernel", "matplotlib", "rejax"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f'{module} is missing: pip install -e ".[docs,jax,baselines]"')
    import nbclient
    import nbformat

    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's own inline backend draws the figures
    monkeypatch.setenv("GYM_SUITE_JAX_CACHE", str(tmp_path / "jax"))  # compiled afresh, no other run's cache
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as error:  # the cell and its traceback
        pytest.fail(f"{NOTEBOOK.name} failed:\n{error}")
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    outputs = [out for cell in code for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    pictures = [cell for cell in code if any("image/png" in out.get("data", {}) for out in cell.outputs)]
    assert len(pictures) == 2, "the frame and the curve are not both drawn inline"
    printed = "".join(out.get("text", "") for out in outputs if out.output_type == "stream")
    assert "normalized:" in printed and "in the table:" in printed  # gym_suite.score's placing
