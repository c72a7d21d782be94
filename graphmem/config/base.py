"""What every settings section is built with: the merge of TOML layers and the strict builder that
turns one section's table into its dataclass (unknown keys refused by name, types checked)."""

from __future__ import annotations

import copy
import types
import typing
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args, get_origin

from graphmem.errors import ConfigError

APP_NAME = "graphmem"
DEFAULTS_PATH = Path(__file__).parent.parent / "defaults.toml"
UNCAPPED = 2**31 - 1     # the degree "cap" of an edge type that has none


def deep_merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


# Keys a user file may still carry from an older release: named in the error with their successor.
_RENAMED = {
    "edges.lexical_query_terms": "edges.lexical_lookup_terms",
    "edges.lexical_term_max_df": "edges.lexical_max_df_ratio and edges.lexical_max_postings",
}


def build(cls: Any, data: dict, section: str) -> Any:
    """``cls`` from a section's table: an unknown key is refused with its name (a renamed one with its
    successor's)."""
    known = {f.name for f in fields(cls)}
    unknown = set(data) - known
    for key in sorted(unknown):
        if f"{section}.{key}" in _RENAMED:
            raise ConfigError(f"[{section}] {key} was replaced by {_RENAMED[f'{section}.{key}']}",
                              field=f"{section}.{key}")
    if unknown:
        raise ConfigError(f"unknown key(s) in [{section}]: {', '.join(sorted(unknown))}",
                          field=f"{section}.{sorted(unknown)[0]}")
    return cls(**data)


def _matches(value: Any, hint: Any) -> bool:
    origin = get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_matches(value, arg) for arg in get_args(hint))
    if origin is list:
        (item,) = get_args(hint)
        return isinstance(value, list) and all(_matches(v, item) for v in value)
    if hint is bool:
        return isinstance(value, bool)
    if hint is float:                     # TOML writes 5 for 5.0
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint) if isinstance(hint, type) else True


def build_typed(cls: Any, data: dict, section: str) -> Any:
    """``build``, with every value checked against its field's type first, so a wrong type is a
    ``ConfigError`` naming the key at load, never a failure deep inside the component using it."""
    hints = typing.get_type_hints(cls)
    for key, value in data.items():
        if key in hints and not isinstance(value, dict) and not _matches(value, hints[key]):
            raise ConfigError(f"[{section}] {key} must be of type {_type_name(hints[key])}, not {value!r}",
                              field=f"{section}.{key}")
    return build(cls, data, section)


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint)
