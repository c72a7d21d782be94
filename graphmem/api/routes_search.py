"""Search, graph views (neighbours, subgraph) and explicit relations.

Inputs arrive validated by the contract's models (``@operation``); ranking stays in the
engine. The search trace always feeds metrics, and is returned only when asked for."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from graphmem.api.serialize import body_namespace, engine, query_namespace
from graphmem.api.validation import operation
from graphmem.contract.requests import GraphArgs, NeighborsArgs, RelationRequest, SearchRequest
from graphmem.views import dump

bp = Blueprint("search", __name__, url_prefix="/v1")


@bp.post("/search")
@operation("search", "search", "Staged search: router, hybrid recall, expansion, weighting, rank",
           ok={200: ("Ranked results, each with a `why`", "SearchResponse")},
           errors=(400, 403, 413, 415, 422), body=SearchRequest)
def search(body: SearchRequest) -> Response:
    ns = body_namespace(body.namespace)
    out = dump(engine().search(body.query, ns, body.k, body.filters, body.recipe, body.stages, body.params,
                               explain=body.explain, trace=True))
    current_app.extensions["graphmem"].metrics.observe_search(out["trace"])
    if not body.trace:
        out.pop("trace")
    return jsonify(out)


@bp.get("/memories/<memory_id:memory_id>/neighbors")
@operation("getNeighbors", "graph", "One-hop neighbourhood with edge types, weights and reasons",
           ok={200: ("The memory and its neighbours", "NeighborsResponse")}, errors=(403, 404, 422),
           args=NeighborsArgs)
def neighbors(memory_id: str, args: NeighborsArgs) -> Response:
    ns = query_namespace(args.namespace)
    return jsonify(dump(engine().neighbors(ns, memory_id, args.types, args.min_weight, args.limit)))


@bp.get("/graph")
@operation("getGraph", "graph", "A subgraph (nodes + edges) around ids and/or a query's results",
           ok={200: ("Nodes and edges", "Graph")}, errors=(403, 422), args=GraphArgs,
           description="Seeds are the given ids plus the query's top k results (neither: an empty graph), "
                       "expanded by `hops` of neighbours up to limits.max_graph_nodes nodes.")
def graph(args: GraphArgs) -> Response:
    ns = query_namespace(args.namespace)
    return jsonify(dump(engine().graph(ns, args.ids, args.query, args.k, args.hops)))


@bp.post("/relations")
@operation("createRelation", "graph", "Add an explicit, evidence-gated RELATED edge",
           ok={201: ("The edge", "Edge")}, errors=(400, 403, 404, 409, 413, 415, 422), body=RelationRequest,
           description="404 when either memory is missing; 422 `evidence_rejected` when the quote is not in "
                       "the source text, or when both ids name the same memory.")
def relate(body: RelationRequest) -> tuple[Response, int]:
    ns = body_namespace(body.namespace)
    edge = engine().relate(ns, body.from_id, body.to_id, body.evidence, body.label, body.weight)
    return jsonify(dump(edge)), 201
