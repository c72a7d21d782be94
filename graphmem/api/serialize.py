"""Helpers shared by the blueprints: the engine, the caller and its namespace.

Input parsing lives in ``validation`` (the contract's models); shaping adds no ranking logic."""

from __future__ import annotations

from flask import current_app, g

from graphmem.auth import Principal
from graphmem.engine import Graphmem


def engine() -> Graphmem:
    return current_app.extensions["graphmem"].engine


def principal() -> Principal:
    return g.principal


def body_namespace(in_body: str | None) -> str:
    """Writes and search carry the namespace in the body (a query string there is refused)."""
    return query_namespace(in_body)


def query_namespace(requested: str | None) -> str:
    ns = principal().namespace(requested)
    g.namespace = ns
    return ns


