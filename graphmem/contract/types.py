"""Field types shared by the request models: text that is proper Unicode, names without
control characters, ids that round-trip in a URL, timestamps inside the supported range.

Each type carries its rule for validation and for the JSON schema at once, so the OpenAPI
document states exactly what the server accepts."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
)

from graphmem.contract.limits import Limit
from graphmem.model import EDGE_TYPES, normalize_timestamp

# Character classes spelled out (not \s): every regex engine that reads the OpenAPI document
# (Python's, ECMA's, a fuzzer's) must agree on them. _BLANK is Python's str.isspace() set plus
# the control characters.
_CONTROL = r"\x00-\x1f\x7f-\x9f"
_BLANK = r"\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,63}$"
# Segments separated by '/', each starting with a letter or digit (so no '', '.' or '..'
# segment), and no trailing '/neighbors', '/history' or '/candidates' (those paths are the neighbours
# view, the supersession history and its candidates): every id is
# reachable as /v1/memories/{id}, raw or percent-encoded.
ID_PATTERN = (r"^(?!.*/(neighbors|history|candidates)$)"
              r"[A-Za-z0-9][A-Za-z0-9_.:@\-]*(/[A-Za-z0-9][A-Za-z0-9_.:@\-]*)*$")
# A name (tag, category, source, label): at least one visible character, no control characters.
NAME_PATTERN = rf"^[^{_CONTROL}]*[^{_BLANK}][^{_CONTROL}]*$"
# A list item sent in a query string, where ',' also separates items.
QUERY_ITEM_PATTERN = rf"^[^,{_CONTROL}]*[^,{_BLANK}][^,{_CONTROL}]*$"
# Free text (content, query, reason): at least one non-space character.
TEXT_PATTERN = rf"[^{_BLANK}]"
# The first and last day of the calendar are out: an offset there leaves the UTC range.
TIMESTAMP_PATTERN = r"^(?!0001-01-01|9999-12-31)[0-9]"
# A cursor is ``<key>~<id>``, the key that of the list's sort: ``<created_at>`` (sorts created,
# -created), ``h<health>`` (the float's repr: health, -health) or ``t<seq>|<created_at>`` (sort thread:
# model.thread_position without its id). Its time is spelled as a real instant only (no month 13, no
# 30 February, no year 0): a position that names no instant would page from nowhere, and a schema
# that admits it would promise a request the service refuses. Any health is a position (beyond 1:
# an empty page). The one rule past the schema: a cursor pages only the sort whose key it holds.
_YEAR = r"(?:[0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)"
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_MONTH_DAY = (r"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
              r"|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)")
_DATE = rf"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z"
_HEALTH_KEY = r"(?:[01]\.[0-9]{1,17}|[1-9](?:\.[0-9]{1,16})?e-[0-9]{2,3})"
CURSOR_PATTERN = rf"^(?:{_DATE}T{_TIME}|h{_HEALTH_KEY}|t(?:[0-9]{{16}}|~)\|{_DATE}T{_TIME})~.+$"
PATTERN_MEANING = {
    NAMESPACE_PATTERN: "must be 1-64 characters of letters, digits, '_', '-', '.', ':' (starting with a letter "
                       "or digit)",
    ID_PATTERN: "must be letters, digits and _ . : @ - in '/'-separated segments that start with a letter or "
                "digit, not ending in '/neighbors', '/history' or '/candidates'",
    NAME_PATTERN: "must hold a visible character and no control characters",
    QUERY_ITEM_PATTERN: "must hold a visible character and no control characters or ','",
    TEXT_PATTERN: "must not be empty or only whitespace",
    TIMESTAMP_PATTERN: "must be an ISO-8601 timestamp from 0001-01-02 to 9999-12-30",
}
EdgeType = Annotated[str, Field(json_schema_extra={"enum": list(EDGE_TYPES)}),
                     AfterValidator(lambda v: _one_of(v, EDGE_TYPES))]


def _integral(value: Any, info: ValidationInfo) -> Any:
    """JSON Schema's integer includes 10.0 (a query string then says "10.0"): take it as 10.
    A JSON body keeps exact types: "10" stays a string, and is refused."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    strict = (info.config or {}).get("strict") or (info.context or {}).get("strict")
    if (isinstance(value, str) and not strict
            and re.fullmatch(r"-?[0-9]+\.0*", value.strip())):
        return int(float(value))
    return value


def int_range(low: int, high: int | None = None) -> Any:
    """An integer from ``low`` to ``high`` (the bounds go on the int, before the 10.0 -> 10 step)."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_integral)]


def _one_of(value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"must be one of {', '.join(allowed)}")
    return value


def _unicode(value: str) -> str:
    """Reject lone surrogates (they cannot be stored or sent back as UTF-8)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode (no lone surrogates)") from None
    return value


def _no_nul(value: str) -> str:
    """No U+0000 in any text. JSON can carry it, but SQLite's text functions and FTS5 stop at
    a NUL (what follows would be stored yet unsearchable) and a C client reading the value
    truncates it there: refused everywhere, so both stores hold the same text."""
    if "\x00" in value:
        raise ValueError("must not contain the NUL character (U+0000)")
    return value


def _timestamp(value: str) -> str:
    try:
        return normalize_timestamp(value)
    except (ValueError, OverflowError):
        raise ValueError("must be an ISO-8601 timestamp within years 0001-9999 (UTC)") from None


# Bounded by a ``[limits]`` key at the point of use: ``Annotated[Text, Limit("max_query_chars")]``.
Text = Annotated[str, StringConstraints(min_length=1, pattern=TEXT_PATTERN), AfterValidator(_no_nul),
                 AfterValidator(_unicode)]
Name = Annotated[str, StringConstraints(min_length=1, pattern=NAME_PATTERN), AfterValidator(_no_nul),
                 AfterValidator(_unicode)]
QueryItem = Annotated[str, StringConstraints(min_length=1, pattern=QUERY_ITEM_PATTERN), AfterValidator(_no_nul),
                      AfterValidator(_unicode)]
MemoryId = Annotated[str, StringConstraints(min_length=1, pattern=ID_PATTERN), Limit("max_id_chars")]
Positive = Annotated[int, Field(ge=1), BeforeValidator(_integral)]
Count = Annotated[int, Field(ge=0), BeforeValidator(_integral)]
Position = Annotated[int, Field(ge=0, le=2**53 - 1), BeforeValidator(_integral)]     # exact in every JSON parser
Namespace = Annotated[str, StringConstraints(pattern=NAMESPACE_PATTERN), Field(
    description="Tenancy boundary; defaults to the key's only namespace (or `default` without keys).")]
Timestamp = Annotated[str, StringConstraints(pattern=TIMESTAMP_PATTERN), AfterValidator(_timestamp),
                      Field(json_schema_extra={"format": "date-time"},
                            description="ISO-8601 (RFC 3339), 0001-01-02 to 9999-12-30; no offset means UTC.")]


class Body(BaseModel):
    """A JSON body: exact types (no "1" for 1), unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", strict=True, regex_engine="python-re")


class QueryArgs(BaseModel):
    """Query-string arguments: strings converted to the field's type, unknown names rejected."""

    model_config = ConfigDict(extra="forbid", regex_engine="python-re")


class Output(BaseModel):
    """A response body: documents what the server sends (never used to parse input)."""

    model_config = ConfigDict(extra="forbid")
