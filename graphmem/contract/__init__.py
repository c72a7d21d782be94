"""The API contract, one source: typed models for every request and response of ``/v1``.

Validation (HTTP layer, engine entry points, CLI imports), the OpenAPI document, the Python
client and the MCP tools all take their fields and bounds from here. Request models depend on
the server's ``[limits]`` and recipe names, so they are built per configuration::

    from graphmem.contract import contract
    c = contract(settings)                  # cached per (limits, recipes)
    req = c.SearchRequest.model_validate({"query": "backups", "k": 5})

Names (stable): MemoryInput, MemoryPatch, BatchRequest, Evidence, SearchRequest, SearchFilters,
SearchParams, Stages, RelationRequest, ListArgs, NeighborsArgs, GraphArgs, NamespaceArgs; and the
response models in ``graphmem.contract.responses`` (Memory, SearchResponse, Graph, Error, ...).
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError

from graphmem.config import Limits, Settings
from graphmem.contract import responses
from graphmem.contract.numbers import MAX_SAFE_INTEGER, check_numbers
from graphmem.contract.requests import build_requests, json_depth, limit_models
from graphmem.contract.types import PATTERN_MEANING
from graphmem.errors import ConfigError, EvidenceRejected, ValidationError


@lru_cache(maxsize=16)
def _build(limits: Limits, recipes: tuple[str, ...]) -> SimpleNamespace:
    return build_requests(for_limits(limits), limits, recipes)


@lru_cache(maxsize=16)
def for_limits(limits: Limits) -> SimpleNamespace:
    """The models that need no recipe names (memories, filters, graph arguments)."""
    return limit_models(limits)


def contract(settings: Settings) -> SimpleNamespace:
    """The request models for this configuration (built once per limits and recipe names)."""
    return _build(settings.limits, tuple(sorted(settings.recipes)))


def check_recipes(settings: Settings) -> None:
    """Every recipe's tunables within the bounds a request's ``params`` must meet (the same
    ``SearchParams`` model), so a TOML recipe cannot set what no request could."""
    params = for_limits(settings.limits).SearchParams
    for name, recipe in sorted(settings.recipes.items()):
        values = {f: getattr(recipe, f) for f in params.model_fields}
        try:
            params.model_validate(values)
        except PydanticError as exc:
            found = to_graphmem_error(exc)
            raise ConfigError(f"recipe {name!r}: {found.message}", field=f"recipes.{name}.{found.field}") from None


def error_field(loc: tuple[Any, ...], prefix: str = "") -> str | None:
    """``("memories", 2, "tags", 0)`` -> ``memories[2].tags[0]`` (the API's field syntax)."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part and not str(part).startswith("function-"):
            out += ("." if out else "") + str(part)
    return out or None


def to_graphmem_error(exc: PydanticError, prefix: str = "") -> ValidationError:
    """The first failure as the API's error: a message and the offending field."""
    first = exc.errors(include_url=False)[0]
    loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and p.startswith(("function-", "literal["))))
    field = error_field(loc, prefix)
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "evidence_rejected":
        return EvidenceRejected(message, field=error_field((*loc, "evidence"), prefix))
    if first["type"] == "extra_forbidden":
        return ValidationError(f"unknown field {loc[-1]!r}", field=field)
    if first["type"] == "string_pattern_mismatch":
        message = PATTERN_MEANING.get(first.get("ctx", {}).get("pattern", ""), message)
    return ValidationError(f"{field}: {message}" if field else message, field=field)


def validate(model: type[BaseModel], data: Any, prefix: str = "", *, exact: bool = False) -> Any:
    """``model.model_validate(data)``, failures raised as graphmem's ValidationError (422).
    Every number anywhere in ``data`` (metadata included) must be one JSON can carry (RFC 8259).
    ``exact``: JSON types as sent even for a query-string model (MCP arguments are JSON, so
    ``"5"`` is not an integer there, as in an HTTP body)."""
    check_numbers(data, prefix)
    try:
        if exact:
            return model.model_validate(data, strict=True, context={"strict": True})
        return model.model_validate(data)
    except PydanticError as exc:
        raise to_graphmem_error(exc, prefix) from None


__all__ = ["MAX_SAFE_INTEGER", "check_numbers", "contract", "for_limits", "json_depth", "validate",
           "to_graphmem_error", "error_field", "responses"]
