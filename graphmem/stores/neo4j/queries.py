"""Loader for the Cypher files in ``cypher/`` (one query per file, header comments kept).

Python never builds Cypher from values: every value is a query parameter. The text substitutions
are ``{{TYPE}}`` (a relationship type, which Cypher cannot take as a parameter in MERGE; it accepts
nothing but a type from ``graphmem.model.EDGE_TYPES``) and ``{{MEMORY_MAP}}``, the map every memory
read returns, kept once in ``cypher/memory_map.cypher``.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from graphmem.errors import ConfigError, ValidationError
from graphmem.model import EDGE_TYPES

_STATEMENT_END = re.compile(r";[ \t]*(?:\n|$)")
_MEMORY_MAP = "{{MEMORY_MAP}}"


def cypher_dir() -> Path:
    """``$GRAPHMEM_CYPHER_DIR`` when set; else the copy an installed wheel carries in the package
    (``graphmem/cypher``, made at build time by setup.py); else ``cypher/`` at the repository root."""
    override = os.environ.get("GRAPHMEM_CYPHER_DIR")
    if override:
        return Path(override)
    here = Path(__file__).resolve()
    packaged = here.parents[2] / "cypher"
    return packaged if packaged.is_dir() else here.parents[3] / "cypher"


@cache
def load(name: str) -> str:
    """The text of ``cypher/<name>.cypher`` without the trailing ';', ``{{MEMORY_MAP}}`` filled in."""
    text = _read(name).strip().removesuffix(";")
    return text.replace(_MEMORY_MAP, memory_map()) if _MEMORY_MAP in text else text


@cache
def memory_map() -> str:
    """The map of ``cypher/memory_map.cypher`` on one line, without its comments."""
    return " ".join(_code(_read("memory_map")).split())


def _read(name: str) -> str:
    path = cypher_dir() / f"{name}.cypher"
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"Cypher query file {path} is missing", field="GRAPHMEM_CYPHER_DIR") from exc


def statements(name: str) -> list[str]:
    """The statements of a multi-statement file (split on ';' at the end of a line)."""
    parts = _STATEMENT_END.split(load(name))
    return [p.strip() for p in parts if _code(p)]


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("//")).strip()


@cache
def for_type(name: str, edge_type: str) -> str:
    """``name`` with ``{{TYPE}}`` replaced by a whitelisted relationship type."""
    if edge_type not in EDGE_TYPES:
        raise ValidationError(f"unknown edge type {edge_type!r}; expected one of {EDGE_TYPES}", field="type")
    return load(name).replace("{{TYPE}}", edge_type)
