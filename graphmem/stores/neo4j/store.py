"""Neo4j store: the ``MemoryStore`` contract over a real graph (Bolt, official driver).

Memories are ``:Memory`` nodes keyed by (namespace, id), tags are ``:Tag`` nodes, relation
edges are relationships stored once a -> b, and recall uses the database's own vector and
full-text indexes. Every query lives in ``cypher/*.cypher`` (see ``queries.py``) and takes
its values as parameters. Each public call is one managed transaction (retried by the
driver on transient errors); a lost connection surfaces as ``StoreUnavailable``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

import numpy as np
from neo4j import GraphDatabase, ManagedTransaction
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConfigurationError,
    ConnectionPoolError,
    IncompleteCommit,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graphmem.config import StoreSettings
from graphmem.errors import StoreConfigError, StoreUnavailable, ValidationError
from graphmem.model import (
    EDGE_TYPES,
    HEALTH_BINS,
    Edge,
    Memory,
    MemoryFilter,
    ServerInfo,
    StoreStats,
    TermStats,
    health_bin,
)
from graphmem.stores.base import check_model, iter_pages
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.neo4j import server_info as info
from graphmem.stores.neo4j.breaker import Breaker
from graphmem.stores.neo4j.records import (
    edge_param,
    filter_params,
    index_ranges,
    lucene_queries,
    memory_props,
    to_edge,
    to_memory,
)
from graphmem.stores.neo4j.retry import with_retries

T = TypeVar("T")
# The SEARCH clause with filter properties in the vector index (vector_search.cypher) needs
# Cypher 25 on a 2026.x server; 5.26 LTS lacks it (tested: 2026.08.1).
MIN_VERSION = (2026, 1)
# Data layout recorded on the Meta node; databases written with an older one are migrated
# once by ensure_schema (2: TAGGED links carry their index properties, CategoryCount nodes).
LAYOUT = 2
MIGRATIONS = ("migrate_tagged", "migrate_category_counts")
_TYPES = list(EDGE_TYPES)
_PINGER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="neo4j-ping")


def parse_version(text: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _rows(tx: ManagedTransaction, name: str, params: dict[str, Any]) -> list:
    return list(tx.run(Q.load(name), params))


def _edge_writer(add_edges: list[Edge], remove_edges: list[Edge]) -> Callable[[ManagedTransaction], None]:
    """Deletes then upserts (one query per relation type) inside the caller's transaction; an
    unknown type is rejected here, before any transaction starts."""
    removals = [edge_param(e) for e in remove_edges]
    additions: dict[str, list[dict]] = defaultdict(list)
    for edge in add_edges:
        Q.for_type("edges_add", edge.type)
        additions[edge.type].append(edge_param(edge))

    def write(tx: ManagedTransaction) -> None:
        if removals:
            tx.run(Q.load("edges_remove"), {"edges": removals}).consume()
        for edge_type, edges in additions.items():
            tx.run(Q.for_type("edges_add", edge_type), {"edges": edges}).consume()

    return write


class Neo4jStore:
    kind = "neo4j"

    def __init__(self, cfg: StoreSettings):
        """Connection and timeouts from ``cfg`` (the ``neo4j_*`` keys of defaults.toml, the one place
        they are set). The timeouts bound how long a call waits on a dead database (an attempt is at
        most ``neo4j_acquisition_timeout``, retried for ``neo4j_max_retry_time``); deadlocks are retried
        for ``neo4j_transient_retry_time``; the breaker then fails calls at once (``retry.py``, ``breaker.py``)."""
        uri, user, password, database = cfg.neo4j_uri, cfg.neo4j_user, cfg.neo4j_password, cfg.neo4j_database
        self.uri = uri
        self.breaker = Breaker(f"Neo4j at {uri}", cfg.neo4j_breaker_failures, cfg.neo4j_breaker_cooldown)
        self.ping_timeout = cfg.neo4j_ping_timeout
        self.retry_budgets = (cfg.neo4j_max_retry_time, cfg.neo4j_transient_retry_time)
        self._ping: Future | None = None
        self._ping_lock = threading.Lock()
        self.server_info_ttl = cfg.neo4j_server_info_ttl  # version/topology refreshed by a ping at most this often
        self._info = ServerInfo("neo4j", "", "", "unknown")
        self._info_at: float | None = None  # time.monotonic() of the last fetch
        self._refresh: Future | None = None
        self.database = database or "neo4j"
        self.dim = 0
        self.server_version = ""
        # Vector recall: ask the index for max(limit * overfetch, min_fetch) nodes, x4 per retry,
        # and scan the namespace exactly once it is no larger than that.
        self.vector_overfetch = 4
        self.vector_min_fetch = 32
        self.vector_paths: Counter[str] = Counter()  # "index" / "scan" (observability, tests)
        try:
            self._driver = GraphDatabase.driver(
                uri, auth=(user, password) if password else None, connection_timeout=cfg.neo4j_connection_timeout,
                connection_acquisition_timeout=cfg.neo4j_acquisition_timeout, max_transaction_retry_time=0,
                notifications_min_severity="OFF")
        except (ConfigurationError, ValueError) as exc:
            raise StoreConfigError(f"invalid Neo4j URI {uri!r}: {exc}", field="store.neo4j_uri") from exc
        # Causal consistency within this process: every session waits for the bookmarks of the
        # process's earlier transactions, so on a cluster a read after a write sees the write
        # (README: Clusters and Aura). Other processes do not share them.
        self._bookmarks = GraphDatabase.bookmark_manager()

    # -- plumbing ----------------------------------------------------------------------
    def _execute(self, write: bool, work: Callable[[ManagedTransaction], T]) -> T:
        return self.breaker.call(lambda: self._execute_once(write, work))

    def _attempt(self, write: bool, work: Callable[[ManagedTransaction], T]) -> T:
        with self._driver.session(database=self.database, bookmark_manager=self._bookmarks) as session:
            return session.execute_write(work) if write else session.execute_read(work)

    def _execute_once(self, write: bool, work: Callable[[ManagedTransaction], T]) -> T:
        try:
            return with_retries(lambda: self._attempt(write, work), *self.retry_budgets)
        except AuthError as exc:
            raise StoreConfigError(f"Neo4j at {self.uri} refused the credentials: {exc.message}",
                                   field="store.neo4j_password") from exc
        except (ServiceUnavailable, SessionExpired, IncompleteCommit, TransientError, ConnectionPoolError) as exc:
            raise StoreUnavailable(f"Neo4j at {self.uri} (database {self.database!r}) is unavailable: {exc}",
                                   field="store") from exc
        except ClientError as exc:
            if exc.code == "Neo.ClientError.Database.DatabaseNotFound":
                raise StoreConfigError(f"Neo4j at {self.uri} has no database {self.database!r}",
                                       field="store.neo4j_database") from exc
            raise

    def _read(self, name: str, **params: Any) -> list:
        return self._execute(False, lambda tx: _rows(tx, name, params))

    def _write(self, name: str, **params: Any) -> list:
        return self._execute(True, lambda tx: _rows(tx, name, params))

    # -- lifecycle ----------------------------------------------------------------------
    def ensure_schema(self, model_id: str, dim: int, reindexing: bool = False) -> None:
        rows = self._read("server_version")
        self.server_version = rows[0]["version"] if rows else "unknown"
        if parse_version(self.server_version) < MIN_VERSION:
            raise StoreConfigError(
                f"Neo4j at {self.uri} runs {self.server_version}; graphmem needs Neo4j "
                f">= {MIN_VERSION[0]}.{MIN_VERSION[1]:02d} (vector search filtered inside the index)",
                field="store")
        meta = self._read("meta_get")
        where = f"Neo4j database {self.database!r} at {self.uri}"
        if meta:
            check_model(where, meta[0]["model_id"], meta[0]["dimension"], json.loads(meta[0]["reindex"] or "null"),
                        model_id, dim, reindexing)
        for statement in Q.statements("schema"):
            def create(tx: ManagedTransaction, s: str = statement) -> None:
                tx.run(s, {"dimension": int(dim)}).consume()

            try:
                self._execute(True, create)
            except ClientError as exc:  # a concurrent ensure_schema created it first
                if "AlreadyExists" not in (exc.code or ""):
                    raise
        index = self._read("vector_index_info")
        if index and index[0]["dimension"] is not None and int(index[0]["dimension"]) != dim:
            stored = meta[0]["model_id"] if meta else "an unrecorded model"
            self._check_dimension(stored, int(index[0]["dimension"]), model_id, dim)
        stored = self._write("meta_init", model_id=model_id, dimension=int(dim))[0]
        self._check_dimension(stored["model_id"], stored["dimension"], model_id, dim)
        self._read("await_indexes", timeout_seconds=300)
        if not meta or (meta[0]["layout"] or 0) < LAYOUT:
            for name in MIGRATIONS:  # idempotent: a concurrent ensure_schema may run them too
                self._auto_commit(name, {})
            self._write("meta_layout", layout=LAYOUT)
        self.dim = dim
        self._refresh_info()

    def _check_dimension(self, stored_model: str, stored_dim: int, model_id: str, dim: int) -> None:
        if int(stored_dim) != dim:
            raise StoreConfigError(
                f"Neo4j database {self.database!r} at {self.uri} holds {stored_dim}-dim embeddings from "
                f"model {stored_model!r}, but the configured model {model_id!r} has {dim} dimensions",
                field="model")

    def model_record(self) -> dict:
        meta = self._read("meta_get")
        return {"model_id": meta[0]["model_id"] if meta else None,
                "dimension": meta[0]["dimension"] if meta else None,
                "reindex": json.loads(meta[0]["reindex"] or "null") if meta else None}

    def set_model_record(self, model_id: str, dim: int, reindex: dict | None) -> None:
        state = json.dumps(reindex) if reindex else ""
        self._write("meta_model", model_id=model_id, dimension=int(dim), reindex=state)

    def schema_info(self) -> dict[str, Any]:
        """The recorded model and dimension plus the server version (diagnostics)."""
        meta = self._read("meta_get")
        return {"model_id": meta[0]["model_id"] if meta else None,
                "dimension": meta[0]["dimension"] if meta else None,
                "server_version": self.server_version}

    def close(self) -> None:
        self._driver.close()

    def ping(self) -> bool:
        """Readiness within ``ping_timeout`` seconds: at most one ping runs at a time, and a
        caller stops waiting for it after the timeout (a hung database is not ready)."""
        with self._ping_lock:
            if self._ping is None or self._ping.done():
                self._ping = _PINGER.submit(self._ping_once)
            pending = self._ping
        try:
            return pending.result(timeout=self.ping_timeout)
        except FutureTimeout:
            return False

    def _ping_once(self) -> bool:
        try:
            answered = self._read("namespace_size", namespace="") is not None
        except (StoreUnavailable, StoreConfigError):
            return False
        if answered:
            self._schedule_refresh()  # in the background: readiness never waits on the routing table
        return answered

    def _info_stale(self) -> bool:
        return self._info_at is None or time.monotonic() - self._info_at >= self.server_info_ttl

    def _refresh_info(self) -> None:
        """Fetch version and routing table; a failure keeps the previous copy (the ping decides readiness)."""
        try:
            self._info = info.fetch(self._read, self.database)
            self._info_at = time.monotonic()
        except (StoreUnavailable, StoreConfigError):
            pass

    def _schedule_refresh(self) -> Future | None:
        """Start one background refresh when the copy is stale (at most one at a time)."""
        with self._ping_lock:
            if self._info_stale() and (self._refresh is None or self._refresh.done()):
                self._refresh = _PINGER.submit(self._refresh_info)
            return self._refresh

    def server_info(self, refresh: bool = True) -> ServerInfo:
        """The cached copy; when stale (and ``refresh``) wait up to ``ping_timeout`` for a fresh one."""
        pending = self._schedule_refresh() if refresh else None
        if pending is not None:
            try:
                pending.result(timeout=self.ping_timeout)
            except FutureTimeout:
                pass
        return self._info

    # -- writes ------------------------------------------------------------------------
    def save_memory(self, mem: Memory, add_edges: list[Edge], remove_edges: list[Edge],
                    replace_edges: bool = False) -> None:
        self._save([mem], add_edges, remove_edges, replace_edges)

    def save_batch(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        if memories or add_edges or remove_edges:
            self._save(memories, add_edges, remove_edges, False)

    def _save(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge],
              replace_edges: bool) -> None:
        """Memories of one namespace and edge changes in one transaction: each statement
        handles every memory at once (UNWIND), so a batch costs a handful of round trips."""
        namespaces = {m.namespace for m in memories}
        if len(namespaces) > 1:
            raise ValidationError("a batch is saved one namespace at a time", field="namespace")
        rows: list[dict[str, Any]] = []
        term_df: Counter[str] = Counter()
        categories: Counter[str] = Counter()
        length = 0
        for mem in memories:
            props = memory_props(mem)
            if self.dim and props["embedding"] is not None and len(props["embedding"]) != self.dim:
                raise ValidationError(f"embedding has {len(props['embedding'])} dimensions; the store holds "
                                      f"{self.dim}-dim embeddings", field="embedding")
            rows.append({"id": mem.id, "props": props, "tags": sorted(set(mem.tags))})
            term_df.update(props["term_keys"])
            categories.update([mem.category] if mem.category else [])
            length += props["doc_length"]
        namespace = next(iter(namespaces), "")
        ids = [m.id for m in memories]
        upsert = {"namespace": namespace, "rows": rows, "doc_length": length,
                  "term_df": [{"term": t, "n": n} for t, n in sorted(term_df.items())],
                  "category_counts": [{"category": c, "n": n} for c, n in sorted(categories.items())]}
        kept = {m.id: set(m.tags) for m in memories}
        write_edges = _edge_writer(add_edges, remove_edges)

        def work(tx: ManagedTransaction) -> None:
            if rows:
                old = _rows(tx, "memory_unindex", {"namespace": namespace, "ids": ids})
                if replace_edges:
                    for memory_id in ids:
                        tx.run(Q.load("edges_clear"), {"namespace": namespace, "id": memory_id,
                                                        "types": _TYPES}).consume()
                tx.run(Q.load("memory_upsert"), upsert).consume()
                dropped = sorted({t for r in old for t in (r["old_tags"] or []) if t not in kept[r["id"]]})
                if dropped:
                    tx.run(Q.load("tags_prune"), {"namespace": namespace, "tags": dropped}).consume()
            write_edges(tx)

        self._execute(True, work)

    def write_edges(self, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        if add_edges or remove_edges:
            self._execute(True, _edge_writer(add_edges, remove_edges))

    def delete_memory(self, namespace: str, memory_id: str) -> bool:
        key = {"namespace": namespace, "id": memory_id}

        def work(tx: ManagedTransaction) -> bool:
            old = _rows(tx, "memory_unindex", {"namespace": namespace, "ids": [memory_id]})
            if not old:
                return False
            tx.run(Q.load("memory_delete"), key).consume()
            if old[0]["old_tags"]:
                tx.run(Q.load("tags_prune"), {"namespace": namespace, "tags": old[0]["old_tags"]}).consume()
            return True

        return self._execute(True, work)

    def update_health(self, namespace: str, updates: list[tuple[str, float, list, float]]) -> int:
        rows = [{"id": i, "health": float(h), "health_reasons": json.dumps([p.to_dict() for p in reasons]),
                 "source_weight": float(w)} for i, h, reasons, w in updates]
        if rows:
            self._write("health_update", namespace=namespace, updates=rows)
        return len(updates)

    def recount(self, namespace: str) -> None:
        """Rebuild TermDF, CategoryCount and NamespaceStats of ``namespace`` (graphmem check --repair)."""
        def work(tx: ManagedTransaction) -> None:
            for statement in Q.statements("recount_namespace"):
                tx.run(statement, {"namespace": namespace}).consume()

        self._execute(True, work)

    def drop_namespace(self, namespace: str) -> None:
        """Delete everything stored for ``namespace`` (admin and test cleanup; not in the contract)."""
        self._auto_commit("namespace_drop", {"namespace": namespace})

    def _auto_commit(self, name: str, params: dict[str, Any]) -> None:
        """Queries that batch with CALL ... IN TRANSACTIONS cannot run in a managed transaction."""
        self.breaker.call(lambda: self._auto_commit_once(name, params))

    def _auto_commit_once(self, name: str, params: dict[str, Any]) -> None:
        try:
            with self._driver.session(database=self.database, bookmark_manager=self._bookmarks) as session:
                session.run(Q.load(name), params).consume()
        except (ServiceUnavailable, SessionExpired, ConnectionPoolError) as exc:
            raise StoreUnavailable(f"Neo4j at {self.uri} is unavailable: {exc}", field="store") from exc

    # -- reads -------------------------------------------------------------------------
    def get_memories(self, namespace: str, ids: list[str]) -> dict[str, Memory]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        rows = self._read("memories_get", namespace=namespace, ids=unique)
        return {r["memory"]["id"]: to_memory(r["memory"]) for r in rows}

    def find_by_hash(self, namespace: str, content_hash: str) -> Memory | None:
        return self.find_by_hashes(namespace, [content_hash]).get(content_hash)

    def find_by_hashes(self, namespace: str, hashes: list[str]) -> dict[str, Memory]:
        unique = list(dict.fromkeys(hashes))
        if not unique:
            return {}
        rows = self._read("memory_by_hash", namespace=namespace, hashes=unique)
        found = (to_memory(r["memory"]) for r in rows)
        return {m.content_hash: m for m in found}

    def list_memories(self, namespace: str, flt: MemoryFilter, limit: int,
                      after: tuple[str, str] | None = None, now_iso: str = "") -> list[Memory]:
        if limit <= 0:
            return []
        rows = self._read("memories_list", namespace=namespace, limit=int(limit),
                          after_created=after[0] if after else None, after_id=after[1] if after else None,
                          **filter_params(flt, now_iso))
        return [to_memory(r["memory"]) for r in rows]

    def iter_memories(self, namespace: str, batch_size: int = 500) -> Iterator[list[Memory]]:
        return iter_pages(self, namespace, batch_size)

    def namespaces(self) -> list[str]:
        return [r["namespace"] for r in self._read("namespaces")]

    # -- candidate indexes ----------------------------------------------------------------
    def tag_members(self, namespace: str, tag: str, limit: int, exclude_id: str | None = None) -> list[str]:
        return self._members("tag_members", "tags", "tag", namespace, [tag], limit, exclude_id).get(tag, [])

    def category_members(self, namespace: str, category: str, limit: int,
                         exclude_id: str | None = None) -> list[str]:
        return self._members("category_members", "categories", "category", namespace, [category], limit,
                             exclude_id).get(category, [])

    def tag_members_many(self, namespace: str, tags: list[str], limit: int) -> dict[str, list[str]]:
        return self._members("tag_members", "tags", "tag", namespace, tags, limit, None)

    def category_members_many(self, namespace: str, categories: list[str], limit: int) -> dict[str, list[str]]:
        return self._members("category_members", "categories", "category", namespace, categories, limit, None)

    def _members(self, query: str, param: str, column: str, namespace: str, labels: list[str], limit: int,
                 exclude_id: str | None) -> dict[str, list[str]]:
        unique = list(dict.fromkeys(labels))
        if limit <= 0 or not unique:
            return {}
        out: dict[str, list[str]] = {label: [] for label in unique}
        for r in self._read(query, namespace=namespace, limit=int(limit), exclude_id=exclude_id or "",
                            **{param: unique}):
            out[r[column]].append(r["id"])
        return out

    def tag_counts(self, namespace: str, tags: list[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(tags))
        if not unique:
            return {}
        rows = self._read("tag_counts", namespace=namespace, tags=unique)
        return {r["tag"]: r["count"] for r in rows}

    def category_counts(self, namespace: str, categories: list[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(categories))
        if not unique:
            return {}
        rows = self._read("category_counts", namespace=namespace, categories=unique)
        return {r["category"]: r["count"] for r in rows}

    # -- recall --------------------------------------------------------------------------
    def vector_candidates(self, namespace: str, vector: np.ndarray, limit: int,
                          flt: MemoryFilter, now_iso: str) -> list[str]:
        if limit <= 0:
            return []
        params = {"namespace": namespace, "vector": np.asarray(vector, dtype=np.float32).tolist(),
                  **filter_params(flt, now_iso)}
        ranged = {**params, **index_ranges(params)}

        def work(tx: ManagedTransaction) -> tuple[str, list[str]]:
            size = _rows(tx, "namespace_size", {"namespace": namespace})[0]["n_docs"]
            fetch = max(limit * self.vector_overfetch, self.vector_min_fetch, 1)
            while size > fetch:
                row = _rows(tx, "vector_search", {**ranged, "fetch": fetch})[0]
                hits = row["hits"]
                if len(hits) >= limit or row["fetched"] < fetch:
                    hits.sort(key=lambda h: (-h[1], h[0]))
                    return "index", [h[0] for h in hits[:limit]]
                fetch *= 4
            return "scan", [r["id"] for r in _rows(tx, "vector_scan", {**params, "limit": int(limit)})]

        path, ids = self._execute(False, work)
        self.vector_paths[path] += 1
        return ids

    def lexical_candidates(self, namespace: str, terms: list[str], limit: int,
                           flt: MemoryFilter | None, now_iso: str, exclude_id: str | None = None) -> list[str]:
        return self._lexical(namespace, [terms], limit, flt, now_iso, exclude_id)[0]

    def lexical_candidates_many(self, namespace: str, term_lists: list[list[str]], limit: int) -> list[list[str]]:
        return self._lexical(namespace, term_lists, limit, None, "", None)

    def _lexical(self, namespace: str, term_lists: list[list[str]], limit: int, flt: MemoryFilter | None,
                 now_iso: str, exclude_id: str | None) -> list[list[str]]:
        """Asks the index for the ``limit`` best hits of the namespace (+1 for an excluded id);
        with a filter, ``vector_overfetch`` x that (at least ``vector_min_fetch``), x4 per
        retry for a request that came back short while the index had more."""
        requests = [lucene_queries(namespace, terms) for terms in term_lists]
        out: list[list[str]] = [[] for _ in term_lists]
        todo = [i for i, queries in enumerate(requests) if queries]
        if limit <= 0:
            return out
        fetch = limit + (1 if exclude_id else 0)
        if flt is not None and not flt.is_empty():
            fetch = max(fetch * self.vector_overfetch, self.vector_min_fetch)
        params = {"namespace": namespace, "limit": int(limit), "exclude_id": exclude_id or "",
                  **filter_params(flt, now_iso)}
        while todo:
            rows = self._read("lexical_search", requests=[requests[i] for i in todo], fetch=int(fetch), **params)
            short = []
            for r in rows:
                i = todo[r["request"]]
                out[i] = r["ids"]
                # a chunked request is exact only once no chunk was cut at ``fetch``
                exhausted = r["fetched"] < fetch or (len(requests[i]) == 1 and len(r["ids"]) >= limit)
                if not exhausted:
                    short.append(i)
            todo, fetch = short, fetch * 4
        return out

    def term_stats(self, namespace: str, terms: list[str]) -> TermStats:
        row = self._read("term_stats", namespace=namespace, terms=list(dict.fromkeys(terms)))[0]
        return TermStats(n_docs=row["n_docs"], total_length=row["total_length"],
                         df={term: df for term, df in row["df"]})

    # -- graph ----------------------------------------------------------------------------
    def edges_of(self, namespace: str, ids: list[str], types: list[str] | None = None,
                 with_reasons: bool = True) -> list[Edge]:
        unique = list(dict.fromkeys(ids))
        if not unique or types == []:
            return []
        rows = self._read("edges_of", namespace=namespace, ids=unique, types=list(types or _TYPES),
                          with_reasons=with_reasons)
        return [to_edge(namespace, r) for r in rows]

    def neighbors(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                  edge_types: list[str]) -> list[Edge]:
        if not seed_ids or not edge_types or per_seed <= 0:
            return []
        rows = self._read("neighbors", namespace=namespace, seed_ids=sorted(set(seed_ids)),
                          per_seed=int(per_seed), min_weight=float(min_weight), types=list(edge_types))
        # Oriented seed -> neighbour: ``a`` is the seed here (not the stored direction).
        return [to_edge(namespace, r) for r in rows]

    def edges_among(self, namespace: str, ids: list[str]) -> list[Edge]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        rows = self._read("edges_among", namespace=namespace, ids=unique, types=_TYPES)
        return [to_edge(namespace, r) for r in rows]

    def stats(self, namespace: str | None) -> StoreStats:
        def work(tx: ManagedTransaction) -> tuple[list, list]:
            scope = [namespace] if namespace else [r["namespace"] for r in _rows(tx, "namespaces", {})]
            return (_rows(tx, "stats_memories", {"namespaces": scope}),
                    _rows(tx, "stats_edges", {"namespaces": scope, "types": _TYPES}))

        memory_rows, edge_rows = self._execute(False, work)
        per_ns: Counter[str] = Counter()
        histogram = dict.fromkeys(HEALTH_BINS, 0)
        for row in memory_rows:
            per_ns[row["namespace"]] += row["memories"]
            histogram[health_bin(row["bucket"])] += row["memories"]
        edges = {r["type"]: r["edges"] for r in edge_rows}
        degree_max = {r["type"]: r["max_degree"] for r in edge_rows}
        return StoreStats(namespaces={ns: per_ns[ns] for ns in sorted(per_ns)},
                          edges={t: edges.get(t, 0) for t in EDGE_TYPES},
                          max_degree={t: degree_max.get(t, 0) for t in EDGE_TYPES}, health_bins=histogram)
