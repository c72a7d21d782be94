"""The README's recipes: each shell block follows an ``<!-- recipe: NAME -->`` mark, so tests run
exactly what a reader copies."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def recipe(name: str, language: str = "bash", path: Path = README) -> str:
    text = path.read_text()
    found = re.search(rf"<!-- recipe: {name} -->\n```{language}\n(.*?)\n```", text, re.S)
    assert found, f"{path.name} has no ```{language} block after <!-- recipe: {name} -->"
    return found.group(1)
