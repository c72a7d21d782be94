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


def finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (a copy; the input is unchanged)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` that never writes NaN or Infinity (such values become ``null``, logged)."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        log.warning("a response held a non-finite number; it is sent as null")
        return json.dumps(finite(value), allow_nan=False, **kwargs)
