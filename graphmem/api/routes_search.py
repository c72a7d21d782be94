"""Search, graph views (neighbours, subgraph) and explicit relations.

Ranking stays in the engine; this module checks request shapes the engine would otherwise
turn into a 500 (unknown recipe, non-integer counts) and feeds the search trace to metrics.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from graphmem.api.serialize import (
    arg_float,
    arg_int,
    arg_list,
    body_namespace,
    check_args,
    edge_types,
    engine,
    json_body,
    query_namespace,
)
from graphmem.errors import ValidationError
from graphmem.model import EDGE_TYPES
from graphmem.retrieval.request import parse_filters

bp = Blueprint("search", __name__, url_prefix="/v1")

SEARCH_FIELDS = {"query", "namespace", "k", "filters", "recipe", "stages", "params", "explain", "trace"}
INT_PARAMS = {"recall_candidates": 1000, "rrf_k": 10000, "expansion_seeds": 100, "expansion_per_seed": 100,
              "expansion_max_added": 1000}
MAX_HOPS = 3


def _flag(data: dict[str, Any], name: str, default: bool) -> bool:
    value = data.get(name, default)
    if not isinstance(value, bool):
        raise ValidationError(f"{name} must be a boolean", field=name)
    return value


def check_search_options(recipe: Any, params: Any) -> None:
    """Reject what ``build_search_config`` lets through but the pipeline cannot run (would be a 500)."""
    if isinstance(recipe, str) and recipe not in engine().settings.recipes:
        raise ValidationError(f"unknown recipe {recipe!r}; recipes are "
                              + ", ".join(sorted(engine().settings.recipes)), field="recipe")
    if not isinstance(params, dict):
        return
    for name, limit in INT_PARAMS.items():
        value = params.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value > limit):
            raise ValidationError(f"{name} must be an integer between 0 and {limit}", field=f"params.{name}")
    for name, value in params.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ValidationError(f"{name} must be finite", field=f"params.{name}")
    half_life = params.get("recency_half_life_days")
    if isinstance(half_life, int | float) and not isinstance(half_life, bool) and half_life <= 0:
        raise ValidationError("recency_half_life_days must be positive", field="params.recency_half_life_days")
    if "dedupe_near_duplicates" in params and not isinstance(params["dedupe_near_duplicates"], bool):
        raise ValidationError("dedupe_near_duplicates must be a boolean", field="params.dedupe_near_duplicates")
    weights = params.get("edge_type_weights")
    if weights is not None:
        if not isinstance(weights, dict):
            raise ValidationError("edge_type_weights must be an object", field="params.edge_type_weights")
        for edge_type, weight in weights.items():
            where = f"params.edge_type_weights.{edge_type}"
            if edge_type not in EDGE_TYPES:
                raise ValidationError(f"unknown edge type {edge_type!r}", field=where)
            if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 <= weight <= 10:
                raise ValidationError("edge type weights are numbers between 0 and 10", field=where)


@bp.post("/search")
def search() -> Response:
    data = json_body(SEARCH_FIELDS)
    ns = body_namespace(data)
    explain, trace = _flag(data, "explain", True), _flag(data, "trace", False)
    check_search_options(data.get("recipe"), data.get("params"))
    eng = engine()
    filters = parse_filters(data.get("filters"), eng.settings.limits)
    out = eng.search(data.get("query"), ns, data.get("k"), filters, data.get("recipe"), data.get("stages"),
                     data.get("params"), explain=explain, trace=True)
    current_app.extensions["graphmem"].metrics.observe_search(out["trace"])
    if not trace:
        out.pop("trace")
    return jsonify(out)


@bp.get("/memories/<path:memory_id>/neighbors")
def neighbors(memory_id: str) -> Response:
    check_args({"namespace", "types", "min_weight", "limit"})
    ns = query_namespace()
    out = engine().neighbors(ns, memory_id, edge_types(arg_list("types")),
                             arg_float("min_weight", 0.0, 0.0, 1.0), arg_int("limit", 50, 1, 200) or 50)
    return jsonify(out)


@bp.get("/graph")
def graph() -> Response:
    check_args({"namespace", "ids", "query", "k", "hops"})
    ns = query_namespace()
    ids, query = arg_list("ids"), request.args.get("query")
    if ids and query:
        raise ValidationError("give ids or query, not both", field="ids")
    hops = arg_int("hops", 1, 0, MAX_HOPS)
    k = arg_int("k", 10, 1, engine().settings.limits.max_k)
    return jsonify(engine().graph(ns, ids=ids, query=query, k=k or 10, hops=1 if hops is None else hops))


@bp.post("/relations")
def relate() -> tuple[Response, int]:
    data = json_body({"from_id", "to_id", "label", "evidence", "weight", "namespace"})
    ns = body_namespace(data)
    label = data.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip() or len(label) > 200):
        raise ValidationError("label must be a non-empty string of at most 200 characters", field="label")
    weight = data.get("weight")
    if weight is not None and (isinstance(weight, bool) or not isinstance(weight, int | float)
                               or not 0 < weight <= 1):
        raise ValidationError("weight must be a number in (0, 1]", field="weight")
    edge = engine().relate(ns, data.get("from_id"), data.get("to_id"), data.get("evidence"),
                           label.strip() if label else None, None if weight is None else float(weight))
    return jsonify(edge.to_dict()), 201
