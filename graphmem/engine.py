"""The library facade used by the API, the CLI, the eval harness and the notebooks.

Each call validates its values with the contract's request model under this engine's limits (the
same bounds and words as an HTTP body), and answers with the contract's response model, the
document the HTTP API sends and the HTTP client returns."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from graphmem.config import Settings, load_settings
from graphmem.contract import check_recipes, responses, validate, validate_value
from graphmem.contract.requests import (
    BatchSize,
    ContextRequest,
    GraphArgs,
    ListArgs,
    MemoryPath,
    NeighborsArgs,
    RelationRequest,
    SearchRequest,
    SupersedeRequest,
    SupersessionArgs,
)
from graphmem.contract.search import encode_position, filters_from, list_order, search_config
from graphmem.contract.types import Namespace
from graphmem.embedding.embedder import Embedder
from graphmem.embedding.first_use import open_embedder
from graphmem.errors import NotFoundError
from graphmem.ingest.service import Ingestor, IngestResult, PreparedBatch
from graphmem.ingest.supersede import link_view
from graphmem.ingest.supersede_candidates import proposals_about
from graphmem.model import EDGE_TYPES, Memory, MemoryFilter, utcnow_iso, window_namespace
from graphmem.retrieval.context_block import build_block
from graphmem.retrieval.pipeline import SearchOutcome, SearchPipeline
from graphmem.retrieval.pipeline import SearchRequest as PipelineRequest
from graphmem.stores.base import MemoryStore
from graphmem.stores.factory import open_store
from graphmem.views import (
    batch_response,
    create_response,
    edge_response,
    memory_response,
    merge_stats,
    search_response,
    stats_response,
)

R = TypeVar("R", bound=BaseModel)


class Graphmem:
    def __init__(self, settings: Settings, store: MemoryStore, embedder: Embedder, clock=utcnow_iso,
                 reindexing: bool = False):
        check_recipes(settings)
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.clock = clock
        store.ensure_schema(embedder.model_id, embedder.dim, reindexing)
        self.ingestor = Ingestor(settings, store, embedder, clock)
        cfg = settings.store
        overlap = cfg.recall_overlap_workers if store.kind in cfg.recall_overlap_stores else 0
        self.pipeline = SearchPipeline(store, embedder, clock, overlap, settings.supersede, settings.time,
                                       settings.entities)

    @classmethod
    def open(cls, settings: Settings | None = None, embedder: Embedder | None = None,
             reindexing: bool = False) -> Graphmem:
        settings = settings or load_settings()
        if embedder is None:
            cache = Path(settings.store.data_dir) / "embedding-cache.sqlite"
            cache.parent.mkdir(parents=True, exist_ok=True)
            embedder = open_embedder(settings, cache)
        return cls(settings, open_store(settings.store), embedder, reindexing=reindexing)

    def close(self) -> None:
        self.pipeline.close()
        self.store.close()

    def __enter__(self) -> Graphmem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ready(self) -> dict[str, str]:
        """Readiness per part, "ok" or why not: the store answers a ping and the embedder returns
        a vector of its dimension. Any failure is reported, never raised (a probe must not 500)."""
        checks: dict[str, str] = {}
        try:
            checks["store"] = "ok" if self.store.ping() else "no answer"
        except Exception as exc:
            checks["store"] = f"error: {exc}"
        try:
            vector = self.embedder.embed_query("readiness probe")
            checks["embedder"] = "ok" if len(vector) == self.embedder.dim else "wrong dimension"
        except Exception as exc:
            checks["embedder"] = f"error: {exc}"
        return checks

    def server(self, addresses: bool = True, refresh: bool = True) -> dict[str, Any]:
        """The store's kind, version and topology (``ServerInfo.view``). ``refresh=False`` right
        after ``ready`` adds no wait: that ping already refreshed a stale copy."""
        return self.store.server_info(refresh).view(addresses)

    # -- input ------------------------------------------------------------------------------------
    def _parse(self, model: type[R], **fields: Any) -> R:
        """Plain values through the contract's ``model`` under this engine's limits, unset ones left out."""
        return validate(model, {k: v for k, v in fields.items() if v is not None}, self.settings)

    def _ns(self, namespace: Any) -> str:
        """A namespace, refused as a request's ``namespace`` field is."""
        return str(validate_value(Namespace, namespace, "namespace"))

    def _id(self, memory_id: Any) -> str:
        """A memory id parsed as the HTTP path and the MCP argument are (``MemoryPath``)."""
        return self._parse(MemoryPath, memory_id=memory_id).memory_id

    # -- memories ---------------------------------------------------------------------------
    def add(self, data: Any, namespace: str = "default") -> responses.CreateResult:
        """Store one memory (idempotent: a duplicate answers with the stored memory and ``not_stored``)."""
        return create_response(self.ingestor.create(data, namespace))

    def add_batch(self, items: list[Any], namespace: str = "default", progress=None) -> responses.BatchResponse:
        """Each item is created, a duplicate, or rejected with its reason; never all-or-nothing.
        Each namespace's new memories are linked together (``ingest/linker.py``: the same edges as one
        insert after another) and written in one transaction. ``StoreUnavailable`` when nothing was
        written because the store was down (the whole batch may be retried)."""
        return batch_response(namespace, self.add_prepared(self.prepare_batch(items, namespace), progress))

    def prepare_batch(self, items: list[Any], namespace: str = "default") -> PreparedBatch:
        """Validate and embed (no store access); ``add_prepared`` writes the result. The count is
        bounded as an HTTP batch's is (``BatchSize``); each item is validated on its own."""
        items = list(items)
        # only the count is the batch's rule: an item's own values (a NaN, say) reject that item alone
        self._parse(BatchSize, memories=[None] * len(items))
        return self.ingestor.prepare_batch(items, namespace)

    def add_prepared(self, prepared: PreparedBatch, progress=None) -> list[IngestResult]:
        """The write path's own per-item outcomes (the bulk import reads them item by item)."""
        return self.ingestor.write_prepared(prepared, progress)

    def get(self, namespace: str, memory_id: str) -> responses.Memory:
        return memory_response(self._stored(namespace, memory_id))

    def _stored(self, namespace: str, memory_id: str) -> Memory:
        found = self.store.get_memories(self._ns(namespace), [memory_id]).get(memory_id)
        if found is None:
            raise NotFoundError(f"memory {memory_id!r} not found in namespace {namespace!r}", field="id")
        return found

    def update(self, namespace: str, memory_id: str, patch: Any) -> responses.Memory:
        return memory_response(self.ingestor.update(self._ns(namespace), memory_id, patch))

    def delete(self, namespace: str, memory_id: str) -> None:
        if not self.ingestor.delete(self._ns(namespace), memory_id):
            raise NotFoundError(f"memory {memory_id!r} not found in namespace {namespace!r}", field="id")

    # -- supersession (ingest/supersede.py) --------------------------------------------------
    def supersede(self, namespace: str, newer: Any, older: Any, reason: Any = None) -> responses.SupersedeResponse:
        """Mark stored ``older`` memories as replaced by the stored ``newer`` (one transaction); the
        values parsed by the contract's ``SupersedeRequest``."""
        body = self._parse(SupersedeRequest, newer=newer, older=older, reason=reason)
        ns = self._ns(namespace)
        plan = self.ingestor.supersede(ns, body.newer, list(body.older), body.reason)
        now = self.store.get_memories(ns, list(body.older))
        return responses.SupersedeResponse.model_validate({
            "namespace": ns, "supersessions": [link_view(e) for e in plan.edges],
            "memories": [now[i].to_dict() for i in body.older if i in now]})

    def unsupersede(self, namespace: str, newer: Any, older: Any) -> responses.UndoResponse:
        """Undo one supersession (the ends parsed by ``SupersessionArgs``): the older memory gets back
        the fields it had before it."""
        args = self._parse(SupersessionArgs, newer=newer, older=older)
        ns = self._ns(namespace)
        restored, edge = self.ingestor.unsupersede(ns, args.newer, args.older)
        return responses.UndoResponse.model_validate({"namespace": ns, "undone": link_view(edge),
                                                      "memory": restored.to_dict()})

    def supersede_candidates(self, namespace: str, memory_id: Any) -> responses.CandidateList:
        """The "may supersede" proposals a memory is part of (either side), computed by the rule
        of ``ingest/supersede_candidates.py`` with its evidence; none when ``[supersede] candidates``
        is off. Proposals are never applied here (POST /v1/supersessions applies one)."""
        memory_id, ns = self._id(memory_id), self._ns(namespace)
        mem = self.store.get_memories(ns, [memory_id]).get(memory_id)
        if mem is None:
            raise NotFoundError(f"memory {memory_id!r} not found in namespace {ns!r}", field="id")
        cfg = self.settings.supersede
        found = proposals_about(self.store, mem, cfg) if cfg.candidates else []
        return responses.CandidateList.model_validate({"namespace": ns,
                                                       "candidates": [p.to_dict() for p in found]})

    def history(self, namespace: str, memory_id: Any) -> responses.History:
        """The supersession chain of a memory, oldest first, with times and reasons."""
        memory_id = self._id(memory_id)
        return responses.History.model_validate(self.ingestor.superseder.history(self._ns(namespace), memory_id))

    def list_memories(self, namespace: str = "default", filters: MemoryFilter | None = None, limit: Any = 50,
                      cursor: Any = None, sort: Any = None, thread: Any = None,
                      superseded_only: Any = None) -> responses.MemoryList:
        """One page in ``sort`` (oldest first by default), the values parsed by the contract's
        ``ListArgs``; ``next_cursor`` pages on. With ``thread``: its FOLLOWS edges and windows too."""
        args = self._parse(ListArgs, limit=limit, cursor=cursor, sort=sort, thread=thread,
                           superseded_only=superseded_only)
        ns, flt = self._ns(namespace), filters or MemoryFilter()
        order = list_order(args)
        if order.is_plain():        # oldest first: the store's index-ordered listing
            after = (str(order.after[0]), order.after[1]) if order.after else None
            rows = self.store.list_memories(ns, flt, args.limit + 1, after, self.clock())
        else:
            rows = self.store.list_ordered(ns, flt, order, args.limit + 1, self.clock())
        page = rows[:args.limit]
        nxt = encode_position(order.sort, page[-1]) if len(rows) > args.limit else None
        out: dict[str, Any] = {"namespace": ns, "memories": [m.to_dict() for m in page], "next_cursor": nxt}
        if args.thread is not None:
            out["thread"] = self._thread_page(ns, args.thread, page)
        return responses.MemoryList.model_validate(out)

    def _thread_page(self, namespace: str, thread: str, page: list[Memory]) -> dict[str, Any]:
        """The FOLLOWS edges and context windows of a thread's listed turns (one read each)."""
        ids = [m.id for m in page]
        follows = [{"from": e.reason.get("from", e.a), "to": e.reason.get("to", e.b), "weight": e.weight}
                   for e in self.store.edges_of(namespace, ids, ["FOLLOWS"])]
        windows = self.store.get_memories(window_namespace(namespace), ids)
        return {"id": thread, "follows": follows,
                "windows": {i: list(windows[i].metadata.get("turns", [])) for i in ids if i in windows}}

    def relate(self, namespace: str, from_id: Any, to_id: Any, evidence: Any,
               label: str | None = None, weight: float | None = None) -> responses.Edge:
        """An explicit relation, the values parsed by the contract's ``RelationRequest``."""
        body = self._parse(RelationRequest, from_id=from_id, to_id=to_id, evidence=evidence, label=label,
                           weight=weight)
        return edge_response(self.ingestor.relate(self._ns(namespace), body.from_id, body.to_id,
                                                  body.evidence.model_dump(),
                                                  body.label.strip() if body.label else None, body.weight))

    def rescore(self, namespace: str | None = None) -> dict[str, int]:
        return self.ingestor.rescore(namespace)

    # -- search and graph ----------------------------------------------------------------------
    def search_outcome(self, query: Any, namespace: str = "default", k: Any = None,
                       filters: MemoryFilter | dict | None = None, recipe: str | None = None,
                       stages: Any = None, params: Any = None) -> SearchOutcome:
        """The pipeline's own outcome (candidates with their scores, the trace) for the eval harness
        and the analysis mirror; the values parsed by the contract's ``SearchRequest``, as an HTTP
        body is. ``filters``: a ``MemoryFilter`` or a filter object."""
        request = self._parse(SearchRequest, query=query, k=k, filters=None if isinstance(filters, MemoryFilter)
                               else filters, recipe=recipe, stages=stages, params=params)
        cfg = search_config(self.settings, request)
        flt = filters if isinstance(filters, MemoryFilter) else filters_from(request.filters)
        return self.pipeline.run(PipelineRequest(query=request.query.strip(), config=cfg, k=request.k or cfg.k,
                                                 namespace=self._ns(namespace), filters=flt))

    def search(self, query: Any, namespace: str = "default", k: Any = None,
               filters: MemoryFilter | dict | Any = None, recipe: str | None = None, stages: Any = None,
               params: Any = None, explain: bool = True, trace: bool = False) -> responses.SearchResponse:
        """Ranked results, each with its ``why`` (``explain``), and the per-stage ``trace`` on request."""
        outcome = self.search_outcome(query, namespace, k, filters, recipe, stages, params)
        return search_response(outcome, query, namespace, explain, trace)

    def context(self, query: Any, max_tokens: Any, namespace: str = "default", k: Any = None,
                filters: Any = None, recipe: str | None = None, stages: Any = None,
                params: Any = None) -> responses.ContextResponse:
        """A context block (``retrieval/context_block.py``): the search, then the block; the values
        parsed by the contract's ``ContextRequest``, as the HTTP body of POST /v1/context is."""
        request = self._parse(ContextRequest, query=query, max_tokens=max_tokens, k=k, filters=filters,
                              recipe=recipe, stages=stages, params=params)
        cfg = search_config(self.settings, request)
        ns = self._ns(namespace)
        flt = filters_from(request.filters)
        outcome = self.pipeline.run(PipelineRequest(query=request.query.strip(), config=cfg, namespace=ns,
                                                    k=request.k or self.settings.context_block.k, filters=flt))
        block = build_block(self.store, ns, [c.memory for c in outcome.candidates], request.max_tokens,
                            self.settings.time, self.settings.context_block, flt, self.clock())
        return responses.ContextResponse.model_validate({
            "query": request.query, "namespace": ns, "text": block["text"], "tokens": block["tokens"],
            "memories": block["memories"], "trace": {"search": outcome.trace, "block": block["trace"]}})

    def neighbors(self, namespace: str, memory_id: str, types: list[str] | None = None,
                  min_weight: Any = None, limit: Any = None) -> responses.NeighborsResponse:
        """One hop around a memory, the values parsed by the contract's ``NeighborsArgs``."""
        args = self._parse(NeighborsArgs, types=types, min_weight=min_weight, limit=limit)
        mem = self._stored(namespace, memory_id)
        edges, others = self.store.neighbors_with_memories(namespace, [memory_id], args.limit, args.min_weight,
                                                           list(args.types) or list(EDGE_TYPES), ())
        return responses.NeighborsResponse.model_validate({"memory": mem.to_dict(), "neighbors": [
            {"memory": others[e.b].to_dict(), "type": e.type, "weight": e.weight, "reason": e.reason}
            for e in edges if e.b in others]})

    def graph(self, namespace: str, ids: list[str] | None = None, query: str | None = None,
              k: Any = None, hops: Any = None) -> responses.Graph:
        """A subgraph as nodes + edges (values parsed by ``GraphArgs``): the ids plus the query's
        results, then ``hops`` of neighbours. Cost is capped by ``[limits]``: the contract bounds
        ids and hops, and expansion stops once max_graph_nodes nodes are reached."""
        args = self._parse(GraphArgs, ids=ids, query=query, k=k, hops=hops)
        lim, ns = self.settings.limits, self._ns(namespace)
        seeds = list(args.ids)
        if args.query:
            seeds += [c.memory.id for c in self.search_outcome(args.query, ns, args.k).candidates]
        nodes = list(dict.fromkeys(seeds))[:lim.max_graph_nodes]
        frontier = nodes
        for _ in range(args.hops):
            room = lim.max_graph_nodes - len(nodes)
            if room <= 0 or not frontier:
                break
            edges = self.store.neighbors(ns, frontier, min(lim.max_graph_hop_neighbors, room), 0.0,
                                         list(EDGE_TYPES))
            known = set(nodes)
            frontier = list(dict.fromkeys(e.b for e in edges if e.b not in known))[:room]
            nodes += frontier
        mems = self.store.get_memories(ns, nodes) if nodes else {}
        edges = self.store.edges_among(ns, [n for n in nodes if n in mems]) if mems else []
        return responses.Graph.model_validate({"nodes": [mems[n].to_dict() for n in nodes if n in mems],
                                               "edges": [e.to_dict() for e in edges]})

    def reindex(self, batch_size: int = 64, progress=None, force: bool = False) -> dict[str, Any]:
        """Re-embed every memory with this engine's model (open with ``reindexing=True``)."""
        from graphmem.ingest.reindex import reindex_store

        return reindex_store(self.store, self.embedder, batch_size, progress, force)

    def stats(self, namespace: str | None = None, namespaces: list[str] | None = None) -> responses.Stats:
        """Counts of one namespace, of several (``namespaces``: a caller's own), or of all (neither),
        with the store's ``server``: the counts stay comparable between stores, the report says which
        server they came from."""
        if namespaces is not None:
            counts = merge_stats([self.store.stats(self._ns(ns)) for ns in namespaces])
        else:
            counts = self.store.stats(None if namespace is None else self._ns(namespace))
        return stats_response(counts, self.server())

    # -- operations (graphmem/ops) -------------------------------------------------------------
    def check(self, namespaces: list[str] | None = None, repair: bool = False) -> dict[str, Any]:
        """The store's invariants (see ``ops/check.py``); ``repair`` fixes what can be derived."""
        from graphmem.ops.check import check_store

        return check_store(self.store, self.settings.edges, self.settings.store.check_recall_depth,
                           [self._ns(ns) for ns in namespaces] if namespaces else None, repair,
                           self.settings.context)

    def dump(self, out, namespaces: list[str] | None = None) -> dict[str, int]:
        """A portable JSONL dump of memories and edges (either store; see ``ops/backup.py``)."""
        from graphmem.ops.backup import dump

        return dump(self.store, out, self.embedder.model_id, self.embedder.dim,
                    [self._ns(ns) for ns in namespaces] if namespaces else None)

    def restore(self, lines) -> dict[str, int]:
        """Write a dump into this (empty) store: a backup's restore, or a migration between store kinds."""
        from graphmem.ops.backup import restore

        return restore(self.store, lines, self.embedder.model_id, self.embedder.dim)

    def backup_file(self, destination: str | Path) -> Path:
        """A consistent online copy of the store's database file (the embedded store; Neo4j refuses)."""
        return self.store.backup_file(destination)
