"""Administration of the Neo4j store: version gate, schema and migrations, the model record,
readiness (bounded ping) and server info, recounts, namespace drop and statistics."""

from __future__ import annotations

import json
import logging
import re
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from neo4j import ManagedTransaction
from neo4j.exceptions import ClientError

from graphmem.errors import StoreConfigError, StoreUnavailable, ValidationError
from graphmem.model import EDGE_TYPES, HEALTH_BINS, ServerInfo, StoreStats, health_bin, is_window_namespace
from graphmem.stores.base import check_model
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.neo4j import server_info as info
from graphmem.stores.neo4j.breaker import CircuitOpen
from graphmem.stores.neo4j.connection import _TYPES, Neo4jBase, _rows

# The SEARCH clause with filter properties in the vector index (vector_search.cypher) needs
# Cypher 25 on a 2026.x server; 5.26 LTS lacks it (tested: 2026.08.1).
MIN_VERSION = (2026, 1)
# Data layout recorded on the Meta node; databases written with an older one are migrated
# once by ensure_schema (2: TAGGED links carry their index properties, CategoryCount nodes;
# 3: memories carry valid_start, what as_of compares).
LAYOUT = 3
MIGRATIONS = ("migrate_tagged", "migrate_category_counts", "migrate_valid_start")
_PINGER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="neo4j-ping")
log = logging.getLogger("graphmem.store")


def refused(exc: BaseException) -> bool:
    """True when the connection was refused: nothing listens at the URI, so waiting will not help."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def parse_version(text: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


class AdminMixin(Neo4jBase):
    # -- lifecycle ----------------------------------------------------------------------
    def ensure_schema(self, model_id: str, dim: int, reindexing: bool = False) -> None:
        """The schema, retried for up to ``open_wait`` seconds while a reachable database answers
        slowly (a cold start on a busy machine); a refused connection fails at once."""
        give_up = time.monotonic() + self.open_wait
        while True:
            try:
                return self._ensure_schema(model_id, dim, reindexing)
            except StoreUnavailable as exc:
                pause = max(1.0, float(exc.retry_after or 0)) if isinstance(exc, CircuitOpen) else 1.0
                if refused(exc) or time.monotonic() + pause > give_up:
                    raise
                log.warning("Neo4j is slow to answer; retrying",
                            extra={"fields": {"uri": self.uri, "error": str(exc)}})
                time.sleep(pause)

    def _ensure_schema(self, model_id: str, dim: int, reindexing: bool) -> None:
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
                self._execute(True, create, kind="admin")
            except ClientError as exc:  # a concurrent ensure_schema created it first
                if "AlreadyExists" not in (exc.code or ""):
                    raise
        index = self._read("vector_index_info")
        if index and index[0]["dimension"] is not None and int(index[0]["dimension"]) != dim:
            stored = meta[0]["model_id"] if meta else "an unrecorded model"
            self._check_dimension(stored, int(index[0]["dimension"]), model_id, dim)
        stored = self._write("meta_init", model_id=model_id, dimension=int(dim))[0]
        self._check_dimension(stored["model_id"], stored["dimension"], model_id, dim)
        self._admin_read("await_indexes", timeout_seconds=300)
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

    def integrity(self, namespace: str) -> list[tuple[str, str, list[str]]]:
        """Indexes that are not ONLINE: a failed or populating index makes recall miss memories
        silently (the server's indexes are shared by every namespace)."""
        rows = self._read("index_states")
        if not rows:
            return []
        names = [str(r["name"]) for r in rows]
        states = ", ".join(f"{r['name']} {r['state']}" for r in rows)
        return [("index_state", f"{len(names)} indexes not ONLINE: {states}", names)]

    def backup_file(self, destination: str | Path) -> Path:
        raise ValidationError("a database-file backup is for the embedded store; use the JSONL dump "
                              "(graphmem backup --format jsonl)", field="format")

    def recount(self, namespace: str) -> None:
        """Rebuild TermDF, CategoryCount and NamespaceStats of ``namespace`` (graphmem check --repair)."""
        def work(tx: ManagedTransaction) -> None:
            for statement in Q.statements("recount_namespace"):
                tx.run(statement, {"namespace": namespace}).consume()

        self._execute(True, work, kind="admin", namespaces=[namespace])

    def drop_namespace(self, namespace: str) -> None:
        """Delete everything stored for ``namespace`` (admin and test cleanup; not in the contract)."""
        self._auto_commit("namespace_drop", {"namespace": namespace})

    def stats(self, namespace: str | None) -> StoreStats:
        def work(tx: ManagedTransaction) -> tuple[list, list]:
            scope = [namespace] if namespace else [r["namespace"] for r in _rows(tx, "namespaces", {})
                                                   if not is_window_namespace(r["namespace"])]
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
