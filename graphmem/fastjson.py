"""JSON decoding on the read path: orjson (several times faster than ``json`` on the small
objects every stored row carries), falling back to ``json`` for what orjson rejects
(NaN/Infinity, integers past 64 bits), so every value ``json.dumps`` wrote still reads back."""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
