"""Both stores, same data, same answers: the embedded store and Neo4j hold the same edges (types,
weights, reasons) and return the same ranking for the same queries, because every score is
computed above the store. Runs the agent-memory fixtures through the full engine on both."""

from __future__ import annotations

import json
import uuid

import pytest

from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.retrieval.overlap import Overlap
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from tests.helpers.engines import FIXTURES, QUERIES, all_edges, load, neo4j_engine

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first


@pytest.fixture
def pair(tmp_path, embedder):
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)
    lite = Graphmem(settings, SQLiteStore(tmp_path, settings.store), embedder)
    neo = neo4j_engine(settings, embedder)
    namespace = f"same-{uuid.uuid4().hex[:10]}"
    yield lite, neo, namespace
    neo.store.drop_namespace(namespace)
    lite.close()
    neo.close()


def ranking(engine, namespace, query, **kwargs):
    out = dump(engine.search(query, namespace, k=10, **kwargs))
    return [(r["id"], r["score"], r["kind"]) for r in out["results"]]


@pytest.mark.neo4j
@pytest.mark.parametrize("fixture", ["e2e_agent.jsonl", "agent_memory/memories.jsonl"])
def test_same_edges_and_same_ranking(pair, fixture):
    lite, neo, namespace = pair
    path = FIXTURES / fixture
    assert load(lite, namespace, path) == load(neo, namespace, path)
    lite_ids, lite_edges = all_edges(lite, namespace)
    neo_ids, neo_edges = all_edges(neo, namespace)
    assert lite_ids == neo_ids and lite_edges == neo_edges and lite_edges
    counts = {"exclude": {"server"}}      # the counts are the same; the server is each store's own
    assert lite.stats(namespace).model_dump(**counts) == neo.stats(namespace).model_dump(**counts)
    queries = list(QUERIES)
    qfile = path.with_name("queries.jsonl")
    if fixture != "e2e_agent.jsonl" and qfile.exists():
        queries += [json.loads(line)["text"] for line in qfile.read_text().splitlines() if line.strip()]
    for query in queries:
        for recipe in ("default", "hybrid"):
            assert ranking(lite, namespace, query, recipe=recipe) == ranking(
                neo, namespace, query, recipe=recipe), query
    assert ranking(lite, namespace, QUERIES[0], params={"recall_candidates": 2}) == ranking(
        neo, namespace, QUERIES[0], params={"recall_candidates": 2})


def answers(engine, namespace, query):
    """Results with their scores and ``why``, and each stage's counts (timings vary, so they are left out)."""
    out = dump(engine.search(query, namespace, k=10, trace=True))
    stages = [{k: v for k, v in s.items() if not k.endswith("ms")} for s in out["trace"]["stages"]]
    return [(r["id"], r["score"], r["kind"], json.dumps(r["why"], sort_keys=True)) for r in out["results"]], stages


@pytest.mark.neo4j
def test_overlapped_recall_gives_the_same_answers(pair):
    """Full-text recall beside the query embedding (store.recall_overlap_workers) changes only the
    wall time: on both stores the answers equal those of every step in turn."""
    lite, neo, namespace = pair
    path = FIXTURES / "agent_memory" / "memories.jsonl"
    lines = path.with_name("queries.jsonl").read_text().splitlines()
    queries = QUERIES + [json.loads(line)["text"] for line in lines if line.strip()]
    assert neo.pipeline.overlap.workers > 0 and lite.pipeline.overlap.workers == 0   # store.recall_overlap_stores
    for engine in (lite, neo):
        load(engine, namespace, path)
        engine.pipeline.overlap = Overlap(2)
        overlapped = [answers(engine, namespace, q) for q in queries]
        engine.pipeline.overlap = Overlap(0)
        assert [answers(engine, namespace, q) for q in queries] == overlapped
