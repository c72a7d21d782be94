"""Engines on real stores for tests outside the fixtures' reach (a data dir of the test's choosing, the
Neo4j test server), and what the same-data-both-stores tests load and compare."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.ingest.bulk import import_jsonl
from graphmem.model import window_namespace
from graphmem.stores.sqlite import SQLiteStore
from tests.neo4j_server import open_store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
QUERIES = ["How do I ship a new release of the billing service?", "search config", "what does the user prefer",
           "who am I", "secrets in chat", "CI machines"]


def neo4j_engine(settings, embedder) -> Graphmem:
    return Graphmem(settings, open_store(), embedder)


@contextmanager
def engine_on(kind: str, data_dir: Path, embedder, prefix: str) -> Iterator[Graphmem]:
    """An engine on ``kind`` ("sqlite" in ``data_dir``, or the Neo4j test server) with a fresh
    ``test_namespace`` named from ``prefix``; on Neo4j the namespace and its windows are dropped after."""
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    store = SQLiteStore(data_dir, settings.store) if kind == "sqlite" else open_store()
    engine = Graphmem(settings, store, embedder)
    engine.test_namespace = f"{prefix}-{uuid.uuid4().hex[:10]}"   # type: ignore[attr-defined]
    try:
        yield engine
    finally:
        if kind == "neo4j":
            for ns in (engine.test_namespace, window_namespace(engine.test_namespace)):  # type: ignore[attr-defined]
                store.drop_namespace(ns)
        engine.close()


@contextmanager
def engine_at(data_dir: Path, embedder) -> Iterator[Graphmem]:
    """An engine on an embedded store in ``data_dir``, closed afterwards."""
    settings = load_settings(overrides={"store": {"data_dir": str(data_dir)}}, use_env=False)
    engine = Graphmem(settings, SQLiteStore(data_dir, settings.store), embedder)
    try:
        yield engine
    finally:
        engine.close()


def load(engine, namespace, path):
    """Imports a JSONL fixture; every line must be accepted."""
    summary = import_jsonl(engine, path, namespace=namespace)
    assert summary["rejected"] == 0
    return summary


def all_edges(engine, namespace):
    """The namespace's memory ids and its edges in a store-independent, comparable form."""
    ids = sorted(m.id for batch in engine.store.iter_memories(namespace) for m in batch)
    return ids, sorted((e.a, e.b, e.type, e.weight, json.dumps(e.reason, sort_keys=True))
                       for e in engine.store.edges_among(namespace, ids))
