"""Helpers shared by the blueprints: the engine, the caller and its namespace.

Input parsing lives in ``validation`` (the contract's models); shaping adds no ranking logic."""

from __future__ import annotations

from flask import current_app, g

from graphmem.api.auth import Principal
from graphmem.engine import Graphmem
from graphmem.errors import ValidationError


def engine() -> Graphmem:
    return current_app.extensions["graphmem"].engine


def principal() -> Principal:
    return g.principal


def body_namespace(in_body: str | None, in_query: str | None) -> str:
    """Writes and search carry the namespace in the body; ``?namespace=`` is accepted too."""
    if in_body is not None and in_query is not None and in_body != in_query:
        raise ValidationError("namespace in the body and in the query string differ", field="namespace")
    return query_namespace(in_body if in_body is not None else in_query)


def query_namespace(requested: str | None) -> str:
    ns = principal().namespace(requested)
    g.namespace = ns
    return ns


