"""Fixtures for the store contract suite: every contract test runs on SQLite and on Neo4j.

Neo4j comes from tests/neo4j_server.py (``GRAPHMEM_NEO4J_URI``; skipped without it, failed under
``GRAPHMEM_REQUIRE_NEO4J=1``). Each test gets its own random namespace and deletes it afterwards,
so tests share one database without seeing each other (and a developer's data is never touched).

The vector index has one dimension per database and the service uses 384, so tests use
deterministic 384-dim unit vectors and ``ensure_schema(TEST_MODEL, 384)``: the database is
shared with the engine tests, and a store refuses another model than the one it records.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace

import pytest

from graphmem.stores.sqlite import SQLiteStore
from graphmem.stores.sqlite.ann import AnnSettings
from tests.embedding_model import TEST_MODEL
from tests.neo4j_server import open_store, store_settings

DIM = 384
MODEL = TEST_MODEL


def new_namespace(tag: str = "t") -> str:
    return f"test-{tag}-{uuid.uuid4().hex[:12]}"


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
