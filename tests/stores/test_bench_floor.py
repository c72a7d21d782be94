"""The benchmarks' bare floor (bench/floor.py) searches the store's own engines, one namespace:
its vector arm returns that namespace's memories only, and its lexical arm (tantivy on the
embedded store, Lucene on Neo4j) finds the one memory holding a rare word and nothing else."""

from __future__ import annotations

import pytest

from bench.floor import Floor
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from tests.stores.conftest import new_namespace

ITEMS = [{"content": "The lighthouse keeper painted the rowing boats blue."},
         {"content": "Quarterly invoices are due on the first Monday."},
         {"content": "The deploy pipeline runs the tests before every release."}]


def _check(store, embedder, engine: Graphmem, ns: str, other: str) -> None:
    engine.add_batch(ITEMS, ns)
    engine.add_batch([{"content": "Another lighthouse, in another namespace."}], other)
    floor = Floor(embedder, store, ns)
    vector, lexical = floor.search("who painted the lighthouse")
    assert len(vector) == len(ITEMS)
    assert len(lexical) == 1
    _, none = floor.search("zzzunknownword")
    assert none == []


def test_floor_on_the_embedded_store(make_engine, embedder):
    engine = make_engine()
    _check(engine.store, embedder, engine, new_namespace("floor"), new_namespace("floor-other"))


@pytest.mark.neo4j
def test_floor_on_neo4j(neo4j_store, embedder, tmp_path):
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)
    ns, other = new_namespace("floor"), new_namespace("floor-other")
    try:
        _check(neo4j_store, embedder, Graphmem(settings, neo4j_store, embedder), ns, other)
    finally:
        for name in (ns, other):
            neo4j_store.drop_namespace(name)
