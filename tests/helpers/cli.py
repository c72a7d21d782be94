"""Reading the CLI's rich output by its structure rather than by substrings that any number matches."""

from __future__ import annotations


def import_counts(out: str) -> dict[str, int]:
    """The `graphmem import` summary table's one row by column (created, duplicate, rejected)."""
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "┃" in line and "created" in line)
    header, row = lines[at], next(line for line in lines[at:] if line.lstrip().startswith("│"))
    names = [cell.strip() for cell in header.strip().strip("┃").split("┃")]
    values = [int(cell) for cell in row.strip().strip("│").split("│")]
    return dict(zip(names, values, strict=True))
