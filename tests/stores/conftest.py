"""Fixtures for the store contract suite: every contract test runs on SQLite and on Neo4j.

Neo4j comes from tests/neo4j_server.py (``GRAPHMEM_NEO4J_URI``; skipped without it, failed under
``GRAPHMEM_REQUIRE_NEO4J=1``). Each test gets its own random namespace and deletes it afterwards,
so tests share one database without seeing each other (and a developer's data is never touched).

The vector index has one dimension per database and the service uses 384, so tests use
deterministic 384-dim unit vectors and ``ensure_schema(TEST_MODEL, 384)``: the database is
shared with the engine tests, and a store refuses another model than the one it records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pytest

from graphmem.model import Edge, HealthPenalty, Memory
from graphmem.stores.sqlite import SQLiteStore
from graphmem.stores.sqlite.ann import AnnSettings
from tests.helpers.memories import DIM, MODEL, new_namespace, unit
from tests.neo4j_server import open_store, store_settings


def open_neo4j(**kwargs):
    return open_store(**kwargs)


@pytest.fixture(scope="session")
def neo4j_store():
    store = open_neo4j()
    store.ensure_schema(MODEL, DIM)
    yield store
    store.close()


@pytest.fixture
def sqlite_store(tmp_path):
    store = SQLiteStore(tmp_path / "sqlite", store_settings())
    store.ensure_schema(MODEL, DIM)
    yield store
    store.close()


def forced_ann(**over) -> AnnSettings:
    """Approximate vector recall from the first memory (real usearch), filters over-fetched."""
    return replace(AnnSettings.from_store(store_settings()), **{"threshold": 1, "exact_subset_max": 0, **over})


@pytest.fixture
def sqlite_ann_store(tmp_path):
    store = SQLiteStore(tmp_path / "sqlite-ann", store_settings(), ann=forced_ann())
    store.ensure_schema(MODEL, DIM)
    yield store
    store.close()


@dataclass
class Ctx:
    """A store plus the test's own namespace (``new_ns`` adds more, all cleaned up)."""

    store: object
    kind: str
    ns: str = field(default_factory=new_namespace)
    created: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.created.append(self.ns)
        self.kind = self.kind.removesuffix("_ann")

    def new_ns(self, tag: str = "o") -> str:
        ns = new_namespace(tag)
        self.created.append(ns)
        return ns

    def cleanup(self) -> None:
        if self.kind == "neo4j":
            for ns in self.created:
                self.store.drop_namespace(ns)


@pytest.fixture(params=["sqlite", "sqlite_ann", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def ctx(request):
    """A store of each kind with a fresh namespace, removed after the test (sqlite_ann: the
    embedded store with its approximate vector index forced on)."""
    store = request.getfixturevalue(f"{request.param}_store")
    context = Ctx(store, request.param)
    try:
        yield context
    finally:
        context.cleanup()


@pytest.fixture
def neo(request):
    """Neo4j only (tests of Neo4j-specific paths)."""
    context = Ctx(request.getfixturevalue("neo4j_store"), "neo4j")
    try:
        yield context
    finally:
        context.cleanup()


@pytest.fixture
def both(request):
    """The SQLite and the Neo4j store side by side, each with a fresh namespace."""
    lite = Ctx(request.getfixturevalue("sqlite_store"), "sqlite")
    neo = Ctx(request.getfixturevalue("neo4j_store"), "neo4j")
    try:
        yield lite, neo
    finally:
        neo.cleanup()


@pytest.fixture
def graph(neo):
    """A small Neo4j graph written through the store (tags, categories, health reasons, every edge type the
    Browser queries show) in the test's namespace; the Browser query tests and the Browser page read it."""
    ns = neo.ns
    specs = {  # id: (tags, category, health, reasons)
        "a": (["deploy", "prod"], "ops", 1.0, []),
        "b": (["deploy"], "ops", 0.4, [HealthPenalty("stale", 0.6, "older than 180 days")]),
        "c": (["deploy", "prod"], "dev", 0.2, [HealthPenalty("conflict", 0.5, "contradicts a"),
                                               HealthPenalty("stale", 0.3, "old")]),
        "d": (["misc"], None, 0.9, []),
        "e": ([], None, 1.0, []),
    }
    for n, (id_, (tags, category, health, reasons)) in enumerate(specs.items()):
        neo.store.save_memory(Memory(
            id=id_, namespace=ns, content=f"memory {id_} about deploying", content_hash=f"h-{id_}", tags=tags,
            category=category, created_at=f"2025-01-0{n + 1}T00:00:00.000000Z",
            updated_at="2025-01-09T00:00:00.000000Z",
            embedding=unit(n), health=health, health_reasons=reasons, term_counts={"deploy": 1, id_: 1}), [], [])
    edges = [Edge.make(ns, "a", "b", "SHARES_TAG", 0.8, {"tags": ["deploy"], "rarity": 0.77}),
             Edge.make(ns, "a", "b", "SAME_CATEGORY", 0.7, {"category": "ops", "similarity": 0.1}),
             Edge.make(ns, "a", "c", "SHARES_TAG", 1.0, {"tags": ["deploy", "prod"], "rarity": 1.5}),
             Edge.make(ns, "c", "a", "OVERLAPS", 0.2, {"terms": ["deploy"], "shared_terms": 1}),
             Edge.make(ns, "b", "c", "RELATED", 0.9, {"quote": "b relates to c"})]
    a = neo.store.get_memories(ns, ["a"])["a"]
    neo.store.save_memory(a, edges, [])
    return neo
