"""Execute the analysis notebooks so they cannot rot; check the committed copies are executed and small.

The notebooks run in a fresh kernel (``python3``: the venv's kernelspec) with the notebooks
directory as working directory; a failing cell fails the test with the cell's traceback.

Regenerate the committed outputs (after changing a notebook or the engine) with::

    PYTHONPATH=. python tests/analysis/test_notebooks.py --write
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = ("01_graph_structure.ipynb", "02_query_neighbourhood.ipynb")
CELL_TIMEOUT = 180            # seconds per cell (ingesting the LoCoMo conversation is the slowest)
MAX_BYTES = 1_000_000


def execute(name: str, kernel: str = "python3"):
    """Run one notebook top to bottom; returns (executed notebook, seconds)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    env_path = os.environ.get("PYTHONPATH", "")
    if str(ROOT) not in env_path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env_path) if p)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=kernel,
                            resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
    started = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - started


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes(name, tmp_path):
    import nbformat

    nb, seconds = execute(name)
    errors = [out for cell in nb.cells if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    assert not errors, errors
    images = sum(1 for cell in nb.cells for out in cell.get("outputs", []) if "image/png" in out.get("data", {}))
    assert images >= 3, f"{name} produced {images} plots"
    out = tmp_path / name
    nbformat.write(nb, out)
    assert out.stat().st_size < MAX_BYTES, f"{name} executed is {out.stat().st_size} bytes"
    print(f"{name}: {seconds:.1f} s, {images} plots, {out.stat().st_size // 1024} KiB")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebook_is_executed_and_small(name):
    """Readers see the plots without running anything: outputs are committed, under 1 MB."""
    import nbformat

    path = NOTEBOOK_DIR / name
    assert path.stat().st_size < MAX_BYTES, f"{name} is {path.stat().st_size} bytes"
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), f"{name}: not every cell has been executed"
    assert not [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for c in code for o in c.get("outputs", []))


def main(argv: list[str]) -> int:
    import nbformat

    write = "--write" in argv
    names = [a for a in argv if not a.startswith("--")] or list(NOTEBOOKS)
    for name in names:
        nb, seconds = execute(name)
        for cell in nb.cells:                  # no per-run noise in the committed file
            cell.metadata.pop("execution", None)
        size = len(nbformat.writes(nb).encode())
        print(f"{name}: {seconds:.1f} s, {size // 1024} KiB{' (written)' if write else ''}")
        if write:
            nbformat.write(nb, NOTEBOOK_DIR / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
