"""The README's embedded-store speed table is the one bench/readme_speed.py makes from bench/results:
a result saved without regenerating the table (or a figure typed in by hand) fails here."""

from __future__ import annotations

from pathlib import Path

from bench import readme_speed


def test_speed_table_matches_saved_results():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = f"{readme_speed.BEGIN}\n{readme_speed.table()}\n{readme_speed.END}"
    assert block in readme, "README speed table is stale: run `python bench/readme_speed.py`"
