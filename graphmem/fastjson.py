"""JSON on the read and write paths.

``loads``: orjson (several times faster than ``json`` on the small objects every stored row
carries), falling back to ``json`` for what orjson rejects (NaN/Infinity, integers past 64
bits), so every value an older release wrote still reads back.

``dumps`` and ``finite``: what leaves the server is RFC 8259 JSON. Requests with non-finite
numbers are refused at the contract (``graphmem.contract.numbers``); a value stored before that
rule (or by hand) is sent as ``null`` rather than as ``Infinity``, which no strict parser reads."""

from __future__ import annotations

import json
import logging
import math
from typing import Any

import orjson

log = logging.getLogger("graphmem.json")


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def parse(text: str) -> Any:
    """``json.loads`` for a file's text (an import line, a chat export), every failure a
    ``ValueError`` with a message for a person: beside malformed JSON, ``json`` raises a bare
    ``ValueError`` for an integer past 4300 digits and ``RecursionError`` for deep nesting.
    NaN and Infinity parse here, so the contract's number rule names their field."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply to read") from None
    except ValueError:
        raise ValueError("invalid JSON: a number too long to read (over 4300 digits)") from None


def finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (a copy; the input is unchanged)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def all_finite(value: Any) -> bool:
    """True when ``value`` holds no NaN or Infinity (``json.dumps`` with allow_nan=False, in C)."""
    try:
        json.dumps(value, allow_nan=False, default=str)
    except ValueError:
        return False
    return True


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that never writes NaN or Infinity (such values become ``null``, logged)."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        log.warning("a response held a non-finite number; it is sent as null")
        return json.dumps(finite(value), allow_nan=False, **kwargs)
