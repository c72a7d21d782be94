"""The library facade used by the API, the CLI, the eval harness and the notebooks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphmem.config import Settings, load_settings
from graphmem.contract import check_recipes, contract, responses, validate
from graphmem.contract.search import (
    encode_position,
    filters_from,
    list_order,
    parse_args,
    parse_search,
    search_config,
)
from graphmem.embedding.embedder import Embedder
from graphmem.embedding.first_use import open_embedder
from graphmem.errors import NotFoundError, ValidationError
from graphmem.ingest.service import Ingestor, IngestResult, PreparedBatch
from graphmem.ingest.supersede import link_view
from graphmem.ingest.supersede_candidates import proposals_about
from graphmem.ingest.validate import validate_namespace
from graphmem.model import (
    EDGE_TYPES,
    HEALTH_BINS,
    Edge,
    Memory,
    MemoryFilter,
    StoreStats,
    utcnow_iso,
    window_namespace,
)
from graphmem.retrieval.context_block import build_block
from graphmem.retrieval.pipeline import SearchOutcome, SearchPipeline, SearchRequest
from graphmem.stores.base import MemoryStore
from graphmem.stores.factory import open_store


def result_dict(cand, explain: bool = True) -> dict[str, Any]:
    out = {"id": cand.memory.id, "score": round(cand.score, 6), "kind": cand.kind,
           "memory": cand.memory.to_dict()}
    if explain:
        out["why"] = cand.why()
    return out


def search_view(outcome: SearchOutcome, query: str, namespace: str, explain: bool = True,
                trace: bool = False) -> dict[str, Any]:
    """The search response document: the query, the results (each with its ``why``), the trace."""
    out: dict[str, Any] = {"query": query, "namespace": namespace,
                           "results": [result_dict(c, explain) for c in outcome.candidates]}
    if trace:
        out["trace"] = outcome.trace
    return out


def merge_stats(parts: list[StoreStats]) -> StoreStats:
    """One view of several namespaces' counts (a memory, and so its degree, is in one namespace)."""
    merged = StoreStats({}, dict.fromkeys(EDGE_TYPES, 0), dict.fromkeys(EDGE_TYPES, 0),
                        dict.fromkeys(HEALTH_BINS, 0))
    for part in parts:
        merged.namespaces.update(part.namespaces)
        for t in EDGE_TYPES:
            merged.edges[t] += part.edges.get(t, 0)
            merged.max_degree[t] = max(merged.max_degree[t], part.max_degree.get(t, 0))
        for bin_, count in part.health_bins.items():
            merged.health_bins[bin_] += count
    merged.namespaces = dict(sorted(merged.namespaces.items()))
    return merged


def stats_view(stats: StoreStats) -> dict[str, Any]:
    """The ``stats`` document: totals and mean degree (2 x edges / memories) derived from raw counts."""
    total = sum(stats.namespaces.values())
    return {"memories": total, "namespaces": stats.namespaces, "edges": stats.edges,
            "degree": {t: {"max": stats.max_degree.get(t, 0),
                           "mean": round(2 * stats.edges.get(t, 0) / total, 4) if total else 0.0}
                       for t in EDGE_TYPES},
            "health_histogram": stats.health_bins}


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

    # -- memories ---------------------------------------------------------------------------
    def add(self, data: Any, namespace: str = "default") -> IngestResult:
        return self.ingestor.create(data, namespace)

    def add_batch(self, items: list[Any], namespace: str = "default", progress=None) -> list[IngestResult]:
        """Each item is created, a duplicate, or rejected with its reason; never all-or-nothing.
        Each namespace's new memories are linked together (``ingest/linker.py``: the same edges as one
        insert after another) and written in one transaction."""
        return self.add_prepared(self.prepare_batch(items, namespace), progress)

    def prepare_batch(self, items: list[Any], namespace: str = "default") -> PreparedBatch:
        """Validate and embed (no store access); ``add_prepared`` writes the result."""
        if len(items) > self.settings.limits.max_batch:
            raise ValidationError(f"{len(items)} memories in one batch; the limit is "
                                  f"{self.settings.limits.max_batch}", field="memories")
        return self.ingestor.prepare_batch(items, namespace)

    def add_prepared(self, prepared: PreparedBatch, progress=None) -> list[IngestResult]:
        return self.ingestor.write_prepared(prepared, progress)

    def get(self, namespace: str, memory_id: str) -> Memory:
        validate_namespace(namespace)
        found = self.store.get_memories(namespace, [memory_id]).get(memory_id)
        if found is None:
            raise NotFoundError(f"memory {memory_id!r} not found in namespace {namespace!r}", field="id")
        return found

    def update(self, namespace: str, memory_id: str, patch: Any) -> Memory:
        return self.ingestor.update(validate_namespace(namespace), memory_id, patch)

    def delete(self, namespace: str, memory_id: str) -> None:
        if not self.ingestor.delete(validate_namespace(namespace), memory_id):
            raise NotFoundError(f"memory {memory_id!r} not found in namespace {namespace!r}", field="id")

    # -- supersession (ingest/supersede.py) --------------------------------------------------
    def supersede(self, namespace: str, newer: Any, older: Any, reason: Any = None) -> dict[str, Any]:
        """The library's supersede: the values parsed by the contract's ``SupersedeRequest``."""
        return self.run_supersede(namespace, parse_args(self.settings, "SupersedeRequest", newer=newer,
                                                        older=older, reason=reason))

    def run_supersede(self, namespace: str, body: Any) -> dict[str, Any]:
        """Mark stored ``older`` memories as replaced by the stored ``newer`` (one transaction), for a
        validated ``SupersedeRequest``."""
        ns = validate_namespace(namespace)
        older = list(body.older)
        plan = self.ingestor.supersede(ns, body.newer, older, body.reason)
        now = self.store.get_memories(ns, older)
        return {"namespace": ns, "supersessions": [link_view(e) for e in plan.edges],
                "memories": [now[i].to_dict() for i in older if i in now]}

    def unsupersede(self, namespace: str, newer: Any, older: Any) -> dict[str, Any]:
        """The library's undo: the two ends parsed by the contract's ``SupersessionArgs``."""
        return self.run_unsupersede(namespace, parse_args(self.settings, "SupersessionArgs", newer=newer,
                                                          older=older))

    def run_unsupersede(self, namespace: str, args: Any) -> dict[str, Any]:
        """Undo one supersession: the older memory gets back the fields it had before it."""
        ns = validate_namespace(namespace)
        restored, edge = self.ingestor.unsupersede(ns, args.newer, args.older)
        return {"namespace": ns, "undone": link_view(edge), "memory": restored.to_dict()}

    def _memory_path(self, memory_id: Any) -> str:
        """A memory id parsed as the HTTP path and the MCP argument are (``MemoryPath``)."""
        return str(parse_args(self.settings, "MemoryPath", memory_id=memory_id).memory_id)

    def supersede_candidates(self, namespace: str, memory_id: Any) -> dict[str, Any]:
        """The library's candidates: the id parsed by the contract's ``MemoryPath``."""
        return self.run_supersede_candidates(namespace, self._memory_path(memory_id))

    def run_supersede_candidates(self, namespace: str, memory_id: str) -> dict[str, Any]:
        """The "may supersede" proposals a memory is part of (either side), computed by the rule
        of ``ingest/supersede_candidates.py`` with its evidence; none when ``[supersede] candidates``
        is off. Proposals are never applied here (POST /v1/supersessions applies one)."""
        ns = validate_namespace(namespace)
        mem = self.store.get_memories(ns, [memory_id]).get(memory_id)
        if mem is None:
            raise NotFoundError(f"memory {memory_id!r} not found in namespace {ns!r}", field="id")
        cfg = self.settings.supersede
        found = proposals_about(self.store, mem, cfg) if cfg.candidates else []
        return {"namespace": ns, "candidates": [p.to_dict() for p in found]}

    def history(self, namespace: str, memory_id: Any) -> dict[str, Any]:
        """The library's history: the id parsed by the contract's ``MemoryPath``."""
        return self.run_history(namespace, self._memory_path(memory_id))

    def run_history(self, namespace: str, memory_id: str) -> dict[str, Any]:
        """The supersession chain of a memory (an id already parsed), oldest first, with times and reasons."""
        return self.ingestor.superseder.history(validate_namespace(namespace), memory_id)

    def list_memories(self, namespace: str, filters: MemoryFilter, limit: int = 50,
                      cursor: str | None = None) -> tuple[list[Memory], str | None]:
        """The library's list: ``limit`` and ``cursor`` parsed by the contract's ``ListArgs``."""
        return self.run_list(namespace, filters, parse_args(self.settings, "ListArgs", limit=limit, cursor=cursor))

    def run_list(self, namespace: str, filters: MemoryFilter, args: Any) -> tuple[list[Memory], str | None]:
        """One page for a validated ``ListArgs`` (the API's parsed query string), in its ``sort``."""
        validate_namespace(namespace)
        order = list_order(args)
        if order.is_plain():        # oldest first: the store's index-ordered listing
            after = (str(order.after[0]), order.after[1]) if order.after else None
            rows = self.store.list_memories(namespace, filters, args.limit + 1, after, self.clock())
        else:
            rows = self.store.list_ordered(namespace, filters, order, args.limit + 1, self.clock())
        page = rows[:args.limit]
        nxt = encode_position(order.sort, page[-1]) if len(rows) > args.limit else None
        return page, nxt

    def thread_page(self, namespace: str, thread: str, page: list[Memory]) -> dict[str, Any]:
        """The FOLLOWS edges and context windows of a thread's listed turns (one read each)."""
        ids = [m.id for m in page]
        follows = [{"from": e.reason.get("from", e.a), "to": e.reason.get("to", e.b), "weight": e.weight}
                   for e in self.store.edges_of(namespace, ids, ["FOLLOWS"])]
        windows = self.store.get_memories(window_namespace(namespace), ids)
        return {"id": thread, "follows": follows,
                "windows": {i: list(windows[i].metadata.get("turns", [])) for i in ids if i in windows}}

    def relate(self, namespace: str, from_id: Any, to_id: Any, evidence: Any,
               label: str | None = None, weight: float | None = None) -> Edge:
        """The library's relate: the values parsed by the contract's ``RelationRequest``."""
        return self.run_relate(namespace, parse_args(self.settings, "RelationRequest", from_id=from_id,
                                                     to_id=to_id, evidence=evidence, label=label, weight=weight))

    def run_relate(self, namespace: str, body: Any) -> Edge:
        """An explicit relation from a validated ``RelationRequest`` (HTTP body, MCP arguments)."""
        return self.ingestor.relate(validate_namespace(namespace), body.from_id, body.to_id,
                                    body.evidence.model_dump(), body.label.strip() if body.label else None,
                                    body.weight)

    def rescore(self, namespace: str | None = None) -> dict[str, int]:
        return self.ingestor.rescore(namespace)

    # -- search and graph ----------------------------------------------------------------------
    def search_outcome(self, query: Any, namespace: str = "default", k: Any = None,
                       filters: MemoryFilter | dict | None = None, recipe: str | None = None,
                       stages: Any = None, params: Any = None) -> SearchOutcome:
        """The library's search: the values are parsed by the contract's ``SearchRequest``, as an
        HTTP body is (same bounds, same errors). ``filters``: a ``MemoryFilter`` or a filter object."""
        plain = filters if isinstance(filters, dict) else None
        request = parse_search(self.settings, query=query, k=k, filters=plain, recipe=recipe, stages=stages,
                               params=params)
        return self.run_search(request, namespace, filters if isinstance(filters, MemoryFilter) else None)

    def run_search(self, request: Any, namespace: str = "default",
                   filters: MemoryFilter | None = None) -> SearchOutcome:
        """A validated ``SearchRequest`` (the API's and MCP's parsed body) through the pipeline."""
        cfg = search_config(self.settings, request)
        flt = filters if filters is not None else filters_from(request.filters)
        return self.pipeline.run(SearchRequest(query=request.query.strip(), config=cfg, k=request.k or cfg.k,
                                               namespace=validate_namespace(namespace), filters=flt))

    def context(self, query: Any, max_tokens: Any, namespace: str = "default", k: Any = None,
                filters: dict | None = None, recipe: str | None = None, stages: Any = None,
                params: Any = None) -> Any:
        """The library's context block (a ``ContextResponse``): the values parsed by the contract's
        ``ContextRequest``, as the HTTP body of POST /v1/context is."""
        request = validate(contract(self.settings).ContextRequest, {key: value for key, value in dict(
            query=query, max_tokens=max_tokens, k=k, filters=filters, recipe=recipe, stages=stages,
            params=params).items() if value is not None})
        return responses.ContextResponse.model_validate(self.run_context(request, namespace))

    def run_context(self, request: Any, namespace: str = "default") -> dict[str, Any]:
        """A validated ``ContextRequest`` (``retrieval/context_block.py``): the search, then the block."""
        cfg = search_config(self.settings, request)
        ns = validate_namespace(namespace)
        flt = filters_from(request.filters)
        outcome = self.pipeline.run(SearchRequest(query=request.query.strip(), config=cfg, namespace=ns,
                                                  k=request.k or self.settings.context_block.k, filters=flt))
        block = build_block(self.store, ns, [c.memory for c in outcome.candidates], request.max_tokens,
                            self.settings.time, self.settings.context_block, flt, self.clock())
        return {"query": request.query, "namespace": ns, "text": block["text"], "tokens": block["tokens"],
                "memories": block["memories"], "trace": {"search": outcome.trace, "block": block["trace"]}}

    def search(self, query: Any, namespace: str = "default", k: Any = None,
               filters: MemoryFilter | dict | None = None, recipe: str | None = None, stages: Any = None,
               params: Any = None, explain: bool = True, trace: bool = False) -> dict[str, Any]:
        outcome = self.search_outcome(query, namespace, k, filters, recipe, stages, params)
        return search_view(outcome, query, namespace, explain, trace)

    def neighbors(self, namespace: str, memory_id: str, types: list[str] | None = None,
                  min_weight: float = 0.0, limit: int = 50) -> dict[str, Any]:
        """The library's neighbours: the values parsed by the contract's ``NeighborsArgs``."""
        args = parse_args(self.settings, "NeighborsArgs", types=types, min_weight=min_weight, limit=limit)
        return self.run_neighbors(namespace, memory_id, args)

    def run_neighbors(self, namespace: str, memory_id: str, args: Any) -> dict[str, Any]:
        """One hop around a memory for a validated ``NeighborsArgs``."""
        mem = self.get(namespace, memory_id)
        types = list(args.types) or list(EDGE_TYPES)
        edges, others = self.store.neighbors_with_memories(namespace, [memory_id], args.limit, args.min_weight,
                                                           types, ())
        return {"memory": mem.to_dict(), "neighbors": [
            {"memory": others[e.b].to_dict(), "type": e.type, "weight": e.weight, "reason": e.reason}
            for e in edges if e.b in others]}

    def graph(self, namespace: str, ids: list[str] | None = None, query: str | None = None,
              k: int = 10, hops: int = 1) -> dict[str, Any]:
        """The library's subgraph: the values parsed by the contract's ``GraphArgs``."""
        return self.run_graph(namespace, parse_args(self.settings, "GraphArgs", ids=ids, query=query, k=k,
                                                    hops=hops))

    def run_graph(self, namespace: str, args: Any) -> dict[str, Any]:
        """A subgraph as nodes + edges for a validated ``GraphArgs``: the ids plus the query's
        results, then ``hops`` of neighbours. Cost is capped by ``[limits]``: the contract bounds
        ids and hops, and expansion stops once max_graph_nodes nodes are reached."""
        lim = self.settings.limits
        validate_namespace(namespace)
        seeds = list(args.ids)
        if args.query:
            seeds += [c.memory.id for c in self.search_outcome(args.query, namespace, args.k).candidates]
        nodes = list(dict.fromkeys(seeds))[:lim.max_graph_nodes]
        frontier = nodes
        for _ in range(args.hops):
            room = lim.max_graph_nodes - len(nodes)
            if room <= 0 or not frontier:
                break
            edges = self.store.neighbors(namespace, frontier, min(lim.max_graph_hop_neighbors, room), 0.0,
                                         list(EDGE_TYPES))
            known = set(nodes)
            frontier = list(dict.fromkeys(e.b for e in edges if e.b not in known))[:room]
            nodes += frontier
        mems = self.store.get_memories(namespace, nodes) if nodes else {}
        edges = self.store.edges_among(namespace, [n for n in nodes if n in mems]) if mems else []
        return {"nodes": [mems[n].to_dict() for n in nodes if n in mems],
                "edges": [e.to_dict() for e in edges]}

    def reindex(self, batch_size: int = 64, progress=None, force: bool = False) -> dict[str, Any]:
        """Re-embed every memory with this engine's model (open with ``reindexing=True``)."""
        from graphmem.ingest.reindex import reindex_store

        return reindex_store(self.store, self.embedder, batch_size, progress, force)

    def stats(self, namespace: str | None = None, namespaces: list[str] | None = None) -> dict[str, Any]:
        """Counts of one namespace, of several (``namespaces``: a caller's own), or of all (neither)."""
        if namespaces is not None:
            view = stats_view(merge_stats([self.store.stats(validate_namespace(ns)) for ns in namespaces]))
        else:
            if namespace is not None:
                validate_namespace(namespace)
            view = stats_view(self.store.stats(namespace))
        return view

    def stats_report(self, namespace: str | None = None, namespaces: list[str] | None = None) -> dict[str, Any]:
        """``stats`` with the store's ``server`` (``/v1/stats``, ``graphmem stats``): the counts stay
        comparable between stores, the report says which server they came from."""
        return {"server": self.server(), **self.stats(namespace, namespaces)}

    # -- operations (graphmem/ops) -------------------------------------------------------------
    def check(self, namespaces: list[str] | None = None, repair: bool = False) -> dict[str, Any]:
        """The store's invariants (see ``ops/check.py``); ``repair`` fixes what can be derived."""
        from graphmem.ops.check import check_store

        return check_store(self.store, self.settings.edges, self.settings.store.check_recall_depth,
                           [validate_namespace(ns) for ns in namespaces] if namespaces else None, repair,
                           self.settings.context)

    def dump(self, out, namespaces: list[str] | None = None) -> dict[str, int]:
        """A portable JSONL dump of memories and edges (either store; see ``ops/backup.py``)."""
        from graphmem.ops.backup import dump

        return dump(self.store, out, self.embedder.model_id, self.embedder.dim,
                    [validate_namespace(ns) for ns in namespaces] if namespaces else None)

    def restore(self, lines) -> dict[str, int]:
        """Write a dump into this (empty) store: a backup's restore, or a migration between store kinds."""
        from graphmem.ops.backup import restore

        return restore(self.store, lines, self.embedder.model_id, self.embedder.dim)

    def backup_file(self, destination: str | Path) -> Path:
        """A consistent online copy of the store's database file (the embedded store; Neo4j refuses)."""
        return self.store.backup_file(destination)
