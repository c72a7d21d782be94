"""The README's speed tables are the ones bench/readme_speed.py makes from bench/results: a result
saved without regenerating the tables (or a figure typed in by hand) fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import readme_speed


@pytest.mark.parametrize("block", sorted(readme_speed.BLOCKS))
def test_speed_table_matches_saved_results(block):
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    begin, end = readme_speed.markers(block)
    table = readme_speed.table(readme_speed.BLOCKS[block])
    assert f"{begin}\n{table}\n{end}" in readme, "README speed table is stale: run `python bench/readme_speed.py`"


@pytest.mark.parametrize("block", sorted(readme_speed.BLOCKS))
def test_every_row_has_its_result_file(block):
    """A renamed or deleted result must not silently drop its row from the README."""
    missing = [name for name, _ in readme_speed.BLOCKS[block] if not (readme_speed.RESULTS / name).exists()]
    assert missing == []
