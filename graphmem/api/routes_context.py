"""The context block: a search's results as one prompt-ready text under a token budget.

The body is a search request plus ``max_tokens`` (the contract's ``ContextRequest``); the block is
built by the engine (``retrieval/context_block.py``). The search trace feeds metrics as a search's does."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from graphmem.api.serialize import body_namespace, engine
from graphmem.api.validation import operation
from graphmem.contract.requests import ContextRequest
from graphmem.views import dump

bp = Blueprint("context", __name__, url_prefix="/v1")


@bp.post("/context")
@operation("context", "search", "A context block: the search's memories as dated, grouped text under a budget",
           ok={200: ("The text, its tokens, the memory ids in the order shown and the trace", "ContextResponse")},
           errors=(400, 403, 413, 415, 422), body=ContextRequest,
           description="Memories are dated (with their resolved time phrases), grouped by thread in thread "
                       "order (threads ordered by their best result), a selected turn's neighbours shown "
                       "once, and the text ends at `max_tokens` on a memory boundary (docs/context-block.md).")
def context(body: ContextRequest) -> Response:
    ns = body_namespace(body.namespace)
    out = dump(engine().context(body.query, body.max_tokens, ns, body.k, body.filters, body.recipe, body.stages,
                                body.params))
    current_app.extensions["graphmem"].metrics.observe_search(out["trace"]["search"])
    return jsonify(out)
