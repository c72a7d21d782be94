"""Bounds that are configuration: a ``[limits]`` key or the recipe names, read at validation time.

Why: the request models are module-level classes (typed, importable, one per request), while the
bounds they enforce are the running server's. A field names its bound (``Limit("max_k")``);
validation reads the configured ``Limits`` and recipe names from the validation context that
``graphmem.contract.validate`` passes (the shipped defaults when there is none), and
``resolve_schema`` writes the configured values into a JSON schema (the OpenAPI document, the MCP
tool schemas), so a document states exactly what its server accepts."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, ValidationInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from graphmem.config import Limits, Settings, load_settings

LIMIT_KEY = "x-graphmem-limit"          # schema key -> [limits key, offset]; resolved, then dropped
RECIPES_KEY = "x-graphmem-recipes"      # the enum is the configured recipe names
_IN_TEXT = re.compile(r"\{limits\.(\w+)\}")   # a limit named in a description


@functools.cache
def _shipped() -> Settings:
    return load_settings(use_env=False)


def context_of(config: Settings | Limits | None) -> dict[str, Any]:
    """The validation context of a server (its limits and recipe names), or of its limits alone
    (the shipped recipe names then); empty for none (the shipped defaults)."""
    if isinstance(config, Limits):
        return {"limits": config}
    if config is None:
        return {}
    return {"limits": config.limits, "recipes": tuple(sorted(config.recipes))}


def limits_of(info: ValidationInfo) -> Limits:
    """The limits in force for this validation (the shipped defaults without a context)."""
    found = (info.context or {}).get("limits")
    return found if isinstance(found, Limits) else _shipped().limits


def _recipes_of(info: ValidationInfo) -> tuple[str, ...]:
    found = (info.context or {}).get("recipes")
    return tuple(found) if found is not None else tuple(sorted(_shipped().recipes))


def _one_of_words(choices: tuple[str, ...]) -> str:
    """pydantic's wording of a literal's choices: ``'a', 'b' or 'c'``."""
    quoted = [repr(c) for c in choices]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


@dataclass(frozen=True)
class Limit:
    """An upper bound that is the ``[limits]`` key ``name`` (plus ``offset``): a string's length, a
    list's items (checked before the items, as pydantic's own ``max_length``), or a number's value
    (checked after conversion). Errors carry pydantic's own types and words."""

    name: str
    offset: int = 0

    def bound(self, limits: Limits) -> int:
        return int(getattr(limits, self.name)) + self.offset

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        inner = handler(source)
        if source in (int, float):
            return core_schema.with_info_after_validator_function(self._value, inner)
        return core_schema.with_info_before_validator_function(self._length, inner)

    def _value(self, value: Any, info: ValidationInfo) -> Any:
        bound = self.bound(limits_of(info))
        if value > bound:
            raise PydanticCustomError("less_than_equal", "Input should be less than or equal to {le}",
                                      {"le": bound})
        return value

    def _length(self, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str | list):
            bound = self.bound(limits_of(info))
            if len(value) > bound and isinstance(value, str):
                raise PydanticCustomError("string_too_long", "String should have at most {max_length} characters",
                                          {"max_length": bound})
            if len(value) > bound:
                raise PydanticCustomError(
                    "too_long",
                    "List should have at most {max_length} items after validation, not {actual_length}",
                    {"field_type": "List", "max_length": bound, "actual_length": len(value)})
        return value

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        out = handler(schema)
        key = {"string": "maxLength", "array": "maxItems"}.get(out.get("type", ""), "maximum")
        out[key] = self.bound(_shipped().limits)
        out.setdefault(LIMIT_KEY, {})[key] = [self.name, self.offset]
        return out


@dataclass(frozen=True)
class OneOf:
    """One of ``choices``, or of the configured recipe names when ``choices`` is empty: an enum in
    the schema, pydantic's literal error otherwise."""

    choices: tuple[str, ...] = ()

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        shown = list(self.choices or sorted(_shipped().recipes))     # the schema's enum (recipes: resolved)
        return core_schema.with_info_plain_validator_function(
            self._check, json_schema_input_schema=core_schema.literal_schema(shown))

    def _check(self, value: Any, info: ValidationInfo) -> str:
        known = self.choices or _recipes_of(info)
        if not isinstance(value, str) or value not in known:
            raise PydanticCustomError("literal_error", "Input should be {expected}",
                                      {"expected": _one_of_words(known)})
        return value

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        out = handler(schema)
        if not self.choices:
            out[RECIPES_KEY] = True
        return out


def resolve_schema(node: Any, settings: Settings) -> Any:
    """``node`` (a JSON schema) with this server's bounds written in and the markers dropped."""
    if isinstance(node, list):
        return [resolve_schema(item, settings) for item in node]
    if isinstance(node, str):
        return _IN_TEXT.sub(lambda m: str(getattr(settings.limits, m.group(1))), node)
    if not isinstance(node, dict):
        return node
    out = {key: resolve_schema(value, settings) for key, value in node.items()
           if key not in (LIMIT_KEY, RECIPES_KEY)}
    for key, (name, offset) in node.get(LIMIT_KEY, {}).items():
        out[key] = int(getattr(settings.limits, name)) + offset
    if node.get(RECIPES_KEY):
        out["enum"] = sorted(settings.recipes)
    return out
