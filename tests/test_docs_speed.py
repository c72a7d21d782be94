"""The speed page's tables are the ones tools/docs_speed.py makes from bench/results: a result
saved without regenerating the tables (or a figure typed in by hand) fails here."""

from __future__ import annotations

import pytest

from tools import docs_speed as readme_speed


@pytest.mark.parametrize("block", sorted(readme_speed.BLOCKS))
def test_speed_table_matches_saved_results(block):
    page = readme_speed.PAGE.read_text()
    begin, end = readme_speed.markers(block)
    table = readme_speed.table(readme_speed.BLOCKS[block])
    assert f"{begin}\n{table}\n{end}" in page, "speed table is stale: run `python -m tools.docs_speed`"


@pytest.mark.parametrize("block", sorted(readme_speed.BLOCKS))
def test_every_row_has_its_result_file(block):
    """A renamed or deleted result must not silently drop its row from the speed page."""
    missing = [name for name, _ in readme_speed.BLOCKS[block] if not (readme_speed.RESULTS / name).exists()]
    assert missing == []
