"""Supersession: mark memories replaced, undo it, walk a chain, list proposed candidates.

Writes carry ``supersedes`` at creation (POST /v1/memories); these routes do the same for
stored memories, undo one link, and read the history. Inputs arrive validated by the contract."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from graphmem.api.serialize import body_namespace, engine, query_namespace
from graphmem.api.validation import operation
from graphmem.contract.requests import NamespaceArgs, SupersedeRequest, SupersessionArgs
from graphmem.views import dump

bp = Blueprint("supersede", __name__, url_prefix="/v1")


@bp.post("/supersessions")
@operation("supersede", "memories", "Mark stored memories as superseded by a stored memory",
           ok={200: ("The links made and the older memories as they are now", "SupersedeResponse")},
           errors=(400, 403, 404, 409, 413, 415, 422), body=SupersedeRequest,
           description="Each older memory gets `superseded_by`, `valid_until` (the newer one's valid_from) and "
                       "a health penalty; a SUPERSEDES edge keeps when, why and its fields before. 404: an id "
                       "not in the namespace; 409: a cycle, self-supersession, an older memory already "
                       "superseded by another, or a newer memory not valid after the older one. Nothing is "
                       "written unless every link is valid.")
def supersede(body: SupersedeRequest) -> Response:
    ns = body_namespace(body.namespace)
    return jsonify(dump(engine().supersede(ns, body.newer, body.older, body.reason)))


@bp.delete("/supersessions")
@operation("unsupersede", "memories", "Undo one supersession",
           ok={200: ("The link undone and the older memory restored", "UndoResponse")},
           errors=(403, 404, 422), args=SupersessionArgs,
           description="The older memory gets back its superseded_by, valid_until, health and updated_at as "
                       "they were before the link; the SUPERSEDES edge is removed.")
def unsupersede(args: SupersessionArgs) -> Response:
    return jsonify(dump(engine().unsupersede(query_namespace(args.namespace), args.newer, args.older)))


@bp.get("/memories/<memory_id:memory_id>/history")
@operation("getHistory", "memories", "The supersession chain of a memory, oldest first",
           ok={200: ("The chain with times and reasons", "History")}, errors=(403, 404, 422), args=NamespaceArgs)
def history(memory_id: str, args: NamespaceArgs) -> Response:
    return jsonify(dump(engine().history(query_namespace(args.namespace), memory_id)))


@bp.get("/memories/<memory_id:memory_id>/candidates")
@operation("getSupersedeCandidates", "memories", "Proposed \"may supersede\" links a memory is part of",
           ok={200: ("The proposals, best first, with their evidence", "CandidateList")},
           errors=(403, 404, 422), args=NamespaceArgs,
           description="A deterministic rule: the two memories share a tag or the category, their cosine and term "
                       "overlap (values set aside) pass `[supersede] min_cosine` and `min_term_overlap`, and they "
                       "state different values of one kind (number, version, date, time, name): those spans are "
                       "the evidence. The later memory is the newer one. Nothing is applied: POST "
                       "/v1/supersessions applies a proposal (`[supersede] auto = true` applies the best one at "
                       "write time). Empty when `[supersede] candidates` is off.")
def candidates(memory_id: str, args: NamespaceArgs) -> Response:
    return jsonify(dump(engine().supersede_candidates(query_namespace(args.namespace), memory_id)))
