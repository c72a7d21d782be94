"""The API contract, one source: typed models for every request and response of ``/v1``.

Validation (HTTP layer, engine entry points, CLI imports), the OpenAPI document, the Python
client and the MCP tools all take their fields and bounds from here. The models are module-level
classes; the server's ``[limits]`` and recipe names reach them as the validation context::

    from graphmem.contract import SearchRequest, validate
    req = validate(SearchRequest, {"query": "backups", "k": 5}, settings)

Names (stable): MemoryInput, MemoryPatch, BatchRequest, Evidence, SearchRequest, ContextRequest,
SearchFilters, SearchParams, Stages, RelationRequest, SupersedeRequest, ListArgs, NeighborsArgs,
GraphArgs, NamespaceArgs, SupersessionArgs, MemoryPath; and the response models in
``graphmem.contract.responses`` (Memory, SearchResponse, Graph, Error, ...).
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter
from pydantic import ValidationError as PydanticError

from graphmem.config import Limits, Settings
from graphmem.contract import responses
from graphmem.contract.limits import context_of
from graphmem.contract.numbers import MAX_SAFE_INTEGER, check_numbers
from graphmem.contract.requests import (
    BatchRequest,
    ContextRequest,
    Evidence,
    GraphArgs,
    ListArgs,
    MemoryInput,
    MemoryPatch,
    MemoryPath,
    NamespaceArgs,
    NeighborsArgs,
    RelationRequest,
    SearchFilters,
    SearchParams,
    SearchRequest,
    Stages,
    SupersedeRequest,
    SupersessionArgs,
    json_depth,
)
from graphmem.contract.types import PATTERN_MEANING
from graphmem.errors import ConfigError, EvidenceRejected, ValidationError

M = TypeVar("M", bound=BaseModel)


def check_recipes(settings: Settings) -> None:
    """Every recipe's tunables within the bounds a request's ``params`` must meet (the same
    ``SearchParams`` model), so a TOML recipe cannot set what no request could."""
    for name, recipe in sorted(settings.recipes.items()):
        values = {f: getattr(recipe, f) for f in SearchParams.model_fields}
        try:
            SearchParams.model_validate(values, context=context_of(settings))
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


def validate(model: type[M], data: Any, config: Settings | Limits | None = None, prefix: str = "", *,
             exact: bool = False) -> M:
    """``model.model_validate(data)`` under ``config``'s limits and recipe names (the shipped ones
    without), failures raised as graphmem's ValidationError (422). Every number anywhere in ``data``
    (metadata included) must be one JSON can carry (RFC 8259). ``exact``: JSON types as sent even for
    a query-string model (MCP arguments are JSON, so ``"5"`` is not an integer there, as in an HTTP body)."""
    check_numbers(data, prefix)
    context = context_of(config)
    try:
        if exact:
            return model.model_validate(data, strict=True, context={**context, "strict": True})
        return model.model_validate(data, context=context)
    except PydanticError as exc:
        raise to_graphmem_error(exc, prefix) from None


@functools.cache
def _adapter(kind: Any) -> TypeAdapter[Any]:
    # the contract's patterns use look-around, which only Python's re engine runs (as its models say)
    return TypeAdapter(kind, config=ConfigDict(regex_engine="python-re"))


def validate_value(kind: Any, value: Any, field: str, limits: Limits | None = None) -> Any:
    """One value of a contract type (``Namespace``, ``Id``), refused as a field of a request is."""
    context = context_of(limits)
    try:
        return _adapter(kind).validate_python(value, strict=True, context=context)
    except PydanticError as exc:
        raise to_graphmem_error(exc, field) from None


__all__ = ["MAX_SAFE_INTEGER", "check_numbers", "check_recipes", "json_depth", "validate", "validate_value",
           "to_graphmem_error", "error_field", "responses", "BatchRequest", "ContextRequest", "Evidence",
           "GraphArgs", "ListArgs", "MemoryInput", "MemoryPatch", "MemoryPath", "NamespaceArgs", "NeighborsArgs",
           "RelationRequest", "SearchFilters", "SearchParams", "SearchRequest", "Stages", "SupersedeRequest",
           "SupersessionArgs"]
