"""The networkx mirror on real stores: attributes, counts, batching, store equality, export.

Each store test runs on the embedded SQLite store and, when ``GRAPHMEM_NEO4J_URI`` is set, on
Neo4j (skipped with a message otherwise; ``GRAPHMEM_REQUIRE_NEO4J=1`` makes it a failure).
Both stores get the same data from ``sample_memories.jsonl`` (explicit ids and created_at, a
constant clock) in the same run-unique namespace, so their mirrors must be identical.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from graphmem.analysis import export, metrics
from graphmem.analysis.mirror import (
    induced_edges,
    iter_namespace,
    mirror_ids,
    mirror_namespace,
    mirror_query,
    same_graph,
    subgraph,
)
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.model import EDGE_TYPES
from graphmem.views import dump
from tests.neo4j_server import open_store

HERE = Path(__file__).parent
NAMESPACE = f"mirror-{uuid.uuid4().hex[:8]}"
NOW = "2024-06-01T00:00:00.000000Z"
REQUIRED_NODE_ATTRS = ("content", "tags", "category", "source", "health", "health_reasons", "source_weight",
                       "created_at", "namespace")
RELATION = ("incident-canary-2024", "note-vault-rotation",
            {"source_text": "The canary failed: the key was missing after the vault rotation.",
             "quote": "missing after the vault rotation"})


def sample_memories() -> list[dict]:
    return [json.loads(line) for line in (HERE / "sample_memories.jsonl").read_text().splitlines() if line]


def sample_queries() -> list[dict]:
    return [json.loads(line) for line in (HERE / "sample_queries.jsonl").read_text().splitlines() if line]


def _fill(engine: Graphmem) -> Graphmem:
    results = engine.add_batch(sample_memories(), NAMESPACE).results
    assert [r.status for r in results] == ["created"] * len(results), [r.error for r in results]
    a, b, evidence = RELATION
    engine.relate(NAMESPACE, a, b, evidence, label="caused_by")
    return engine


def _sqlite_engine(tmp_dir: Path, embedder) -> Graphmem:
    from graphmem.stores.sqlite import SQLiteStore

    settings = load_settings(overrides={"store": {"data_dir": str(tmp_dir)}}, use_env=False)
    return Graphmem(settings, SQLiteStore(tmp_dir, settings.store), embedder, clock=lambda: NOW)


def _neo4j_engine(embedder) -> Graphmem:
    store = open_store()
    settings = load_settings(overrides={"store": {"kind": "neo4j", "neo4j": {"uri": store.uri}}}, use_env=False)
    return Graphmem(settings, store, embedder, clock=lambda: NOW)


def _cleanup(engine: Graphmem) -> None:
    ids = [m.id for batch in engine.store.iter_memories(NAMESPACE, 500) for m in batch]
    for memory_id in ids:
        engine.store.delete_memory(NAMESPACE, memory_id)


@pytest.fixture(scope="module")
def sqlite_engine(tmp_path_factory, embedder):
    engine = _fill(_sqlite_engine(tmp_path_factory.mktemp("mirror-sqlite"), embedder))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def neo4j_engine(embedder):
    engine = _neo4j_engine(embedder)
    try:
        _cleanup(engine)
        yield _fill(engine)
    finally:
        _cleanup(engine)
        engine.close()


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine(request):
    return request.getfixturevalue(f"{request.param}_engine")


@pytest.fixture
def full(engine):
    return mirror_namespace(engine.store, NAMESPACE)


# -- the mirror on each store -----------------------------------------------------------------------
def test_attributes_complete(engine, full):
    mems = engine.store.get_memories(NAMESPACE, list(full.nodes))
    assert len(mems) == full.number_of_nodes() == len(sample_memories())
    for node, data in full.nodes(data=True):
        for name in REQUIRED_NODE_ATTRS:
            assert name in data, f"{node} lacks {name}"
        assert data == {k: v for k, v in mems[node].to_dict().items() if k != "id"}
        assert isinstance(data["tags"], list) and isinstance(data["health_reasons"], list)
    for *_, key, data in full.edges(keys=True, data=True):
        assert set(data) == {"type", "weight", "reason"}
        assert key == data["type"] and key in EDGE_TYPES
        assert 0 < data["weight"] <= 1 and isinstance(data["reason"], dict) and data["reason"]
    low = [n for n, d in full.nodes(data=True) if d["health"] < 1]
    assert {"transient-restart", "ref-pr"} <= set(low)
    assert all(full.nodes[n]["health_reasons"] for n in low)


def test_counts_match_store_stats(engine, full):
    stats = dump(engine.stats(NAMESPACE))
    assert full.number_of_nodes() == stats["memories"]
    by_type = Counter(k for *_, k in full.edges(keys=True))
    assert {t: by_type.get(t, 0) for t in EDGE_TYPES} == stats["edges"]
    assert full.number_of_edges() == sum(stats["edges"].values())
    summary = metrics.degree_summary(full)
    for etype in EDGE_TYPES:
        assert summary.get(etype, {"max": 0})["max"] == stats["degree"][etype]["max"], etype
    assert by_type["RELATED"] == 1
    assert full.edges[RELATION[0], RELATION[1], "RELATED"]["reason"]["label"] == "caused_by"
    # several types between one pair: the reason a MultiGraph is used
    assert any(len(full[u][v]) > 1 for u, v in full.edges())


@pytest.mark.parametrize("batch_size", [1, 4, 7])
def test_namespace_equals_union_of_batches(engine, full, batch_size):
    batches = list(iter_namespace(engine.store, NAMESPACE, batch_size))
    assert [len(b.nodes) for b in batches[:-1]] == [batch_size] * (len(batches) - 1)
    keys = [(a, b, t) for batch in batches for a, b, t, _ in batch.edges]
    assert len(keys) == len(set(keys)) == full.number_of_edges()          # each edge in exactly one batch
    union = nx.compose_all([b.graph() for b in batches])
    assert same_graph(union, full) == []
    streamed = mirror_namespace(engine.store, NAMESPACE, batch_size)
    assert same_graph(streamed, full) == []
    assert list(streamed.nodes) == list(full.nodes)                        # iter_memories order


class _Recorder:
    """Store proxy recording the size of every id list passed to a read."""

    def __init__(self, store):
        self.store, self.sizes = store, Counter()

    def __getattr__(self, name):
        method = getattr(self.store, name)
        if name in ("edges_of", "edges_among", "get_memories", "neighbors"):
            def call(namespace, ids, *args, **kwargs):
                self.sizes[name] = max(self.sizes[name], len(ids))
                return method(namespace, ids, *args, **kwargs)
            return call
        return method


def test_store_reads_stay_bounded(engine, full):
    rec = _Recorder(engine.store)
    assert same_graph(mirror_namespace(rec, NAMESPACE, batch_size=5), full) == []
    assert rec.sizes["edges_of"] <= 5 and "edges_among" not in rec.sizes
    rec = _Recorder(engine.store)
    sub = mirror_ids(rec, NAMESPACE, ["skill-deploy-billing"], hops=2, chunk=3)
    assert max(rec.sizes.values()) <= 3
    assert same_graph(sub, mirror_ids(engine.store, NAMESPACE, ["skill-deploy-billing"], hops=2)) == []


def test_induced_edges_chunked_equals_edges_among(engine, full):
    ids = sorted(full.nodes)[:11]
    direct = {e.key for e in engine.store.edges_among(NAMESPACE, ids)}
    assert {e.key for e in induced_edges(engine.store, NAMESPACE, ids, chunk=4)} == direct
    assert direct == {(min(u, v), max(u, v), k) for u, v, k in full.subgraph(ids).edges(keys=True)}


def test_mirror_ids_hops(engine, full):
    seeds = ["skill-go-tests", "orphan-note", "no-such-memory"]
    zero = mirror_ids(engine.store, NAMESPACE, seeds, hops=0)
    assert list(zero.nodes) == ["skill-go-tests", "orphan-note"]
    assert zero.graph["missing_ids"] == ["no-such-memory"]
    for hops in (1, 2):
        sub = mirror_ids(engine.store, NAMESPACE, seeds, hops=hops)
        dist = nx.multi_source_dijkstra_path_length(full, ["skill-go-tests", "orphan-note"], weight=lambda *_: 1)
        assert set(sub.nodes) == {n for n, d in dist.items() if d <= hops}
        assert all(sub.nodes[n]["hop"] == dist[n] for n in sub.nodes)
        assert all(sub.nodes[n]["seed"] == (dist[n] == 0) for n in sub.nodes)
        # induced subgraph of the namespace mirror, same attributes
        assert same_graph(sub, full.subgraph(sub.nodes), ignore=("hop", "seed")) == []
    typed = mirror_ids(engine.store, NAMESPACE, ["incident-canary-2024"], hops=1, edge_types=["RELATED"])
    assert set(typed.nodes) == {"incident-canary-2024", "note-vault-rotation"}
    assert [k for *_, k in typed.edges(keys=True)] == ["RELATED"]
    with pytest.raises(ValueError, match="unknown edge type"):
        mirror_ids(engine.store, NAMESPACE, seeds, edge_types=["LIKES"])


def test_subgraph_keeps_mirror_order(full):
    picked = list(full.nodes)[::3]
    sub = subgraph(full, reversed(picked))
    assert list(sub.nodes) == picked                                     # G's order, not the argument's
    assert same_graph(sub, full.subgraph(picked)) == [] and sub.graph == full.graph


def test_mirror_ids_per_node_matches_api_graph(engine):
    seeds = ["skill-deploy-billing", "pref-user-tests"]
    api = dump(engine.graph(NAMESPACE, ids=seeds, hops=1))
    mine = export.to_json(mirror_ids(engine.store, NAMESPACE, seeds, hops=1, per_node=50))
    assert sorted(json.dumps(n, sort_keys=True) for n in mine["nodes"]) == \
        sorted(json.dumps(n, sort_keys=True) for n in api["nodes"])
    assert mine["edges"] == sorted(api["edges"], key=lambda e: (e["source"], e["target"], e["type"]))
    assert [n["id"] for n in mine["nodes"]][:2] == seeds


def test_mirror_query_marks_results(engine):
    G = mirror_query(engine, NAMESPACE, "where does the STRIPE_KEY come from?", k=5, recipe="hybrid_expansion")
    results = G.graph["results"]
    assert 0 < len(results) <= 5 and G.graph["recipe"] == "hybrid_expansion"
    assert G.graph["trace"]["recipe"] == "hybrid_expansion"
    for rank, res in enumerate(results, start=1):
        data = G.nodes[res["id"]]
        assert (data["result_rank"], data["result_kind"]) == (rank, res["kind"])
        assert data["result_score"] == res["score"]
        assert data["hop"] == 0 and data["result_why"] == res["why"]
        for path in res["why"].get("related", []):
            assert G.edges[path["seed"], res["id"], path["edge"]]["expanded"] is True
    others = [n for n, d in G.nodes(data=True) if "result_rank" not in d]
    assert others and all(G.nodes[n]["hop"] == 1 for n in others)
    assert any(d["expanded"] for *_, d in G.edges(data=True))


def test_same_graph_from_both_stores(sqlite_engine, neo4j_engine):
    a = mirror_namespace(sqlite_engine.store, NAMESPACE)
    b = mirror_namespace(neo4j_engine.store, NAMESPACE, batch_size=5)
    assert same_graph(a, b) == []
    assert list(a.nodes) == list(b.nodes)
    assert sorted(a.edges(keys=True)) == sorted(b.edges(keys=True))
    seeds = ["config-billing-env", "pref-user-summaries"]
    assert same_graph(mirror_ids(sqlite_engine.store, NAMESPACE, seeds, 2),
                      mirror_ids(neo4j_engine.store, NAMESPACE, seeds, 2)) == []
    for q in sample_queries():
        qa = mirror_query(sqlite_engine, NAMESPACE, q["text"], k=5)
        qb = mirror_query(neo4j_engine, NAMESPACE, q["text"], k=5)
        assert [r["id"] for r in qa.graph["results"]] == [r["id"] for r in qb.graph["results"]], q["id"]
        assert same_graph(qa, qb, ignore=("result_score", "result_why")) == []


# -- export ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["graphml", "gexf", "json"])
def test_export_round_trip(sqlite_engine, tmp_path, fmt):
    full = mirror_namespace(sqlite_engine.store, NAMESPACE)
    query = mirror_query(sqlite_engine, NAMESPACE, "how do I deploy billing safely?", k=5)
    for name, G in (("namespace", full), ("query", query)):
        path = tmp_path / f"{name}.{fmt}"
        export.export_graph(G, fmt, path, include_analysis=True)
        back = export.read_graph(fmt, path)
        assert back.number_of_nodes() == G.number_of_nodes()
        assert back.number_of_edges() == G.number_of_edges()
        assert same_graph(back, G) == [], name
    # the files are plain GraphML / GEXF for other tools: only scalar attributes
    if fmt != "json":
        plain = (nx.read_graphml(tmp_path / "query.graphml") if fmt == "graphml"
                 else nx.read_gexf(tmp_path / "query.gexf"))
        assert plain.number_of_nodes() == query.number_of_nodes()
        assert plain.number_of_edges() == query.number_of_edges()
        node = plain.nodes["skill-deploy-billing"]
        assert json.loads(node["tags"]) == ["billing", "deploy"] and isinstance(node["health"], float)
    if fmt == "graphml":
        assert export.read_graphml(tmp_path / "query.graphml").graph["query"] == "how do I deploy billing safely?"


def test_json_export_is_api_shape(sqlite_engine):
    seeds = ["rule-secrets"]
    mine = export.to_json(mirror_ids(sqlite_engine.store, NAMESPACE, seeds, hops=1, per_node=50))
    api = dump(sqlite_engine.graph(NAMESPACE, ids=seeds, hops=1))
    assert set(mine) == set(api) == {"nodes", "edges"}
    assert {tuple(n) for n in mine["nodes"]} == {tuple(n) for n in api["nodes"]}     # same keys, same order
    assert all(set(e) == {"source", "target", "type", "weight", "reason"} for e in mine["edges"])


# -- CLI -----------------------------------------------------------------------------------------------
def _cli(sqlite_engine, *args: str):
    from graphmem.cli import main

    data_dir = str(sqlite_engine.store.path.parent)
    runner = CliRunner()
    return runner.invoke(main, ["--data-dir", data_dir, "--store", "sqlite", "export", *args],
                         catch_exceptions=False)


def test_cli_export(sqlite_engine, tmp_path):
    stats = dump(sqlite_engine.stats(NAMESPACE))
    out = tmp_path / "all.graphml"
    result = _cli(sqlite_engine, "--format", "graphml", "--namespace", NAMESPACE, "--output", str(out))
    assert result.exit_code == 0, result.output
    back = export.read_graphml(out)
    assert back.number_of_nodes() == stats["memories"]
    assert back.number_of_edges() == sum(stats["edges"].values())
    assert "exported 18 memories" in result.output

    out = tmp_path / "ids.gexf"
    result = _cli(sqlite_engine, "--format", "gexf", "-n", NAMESPACE, "--ids", "skill-go-tests,orphan-note",
                  "--hops", "0", "--output", str(out))
    assert result.exit_code == 0, result.output
    assert set(export.read_gexf(out).nodes) == {"skill-go-tests", "orphan-note"}

    result = _cli(sqlite_engine, "--format", "json", "-n", NAMESPACE, "--query", "go tests", "--k", "3",
                  "--output", "-")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert {"nodes", "edges"} == set(body) and len(body["nodes"]) >= 3

    result = _cli(sqlite_engine, "--format", "json", "--ids", "a", "--query", "b", "--output", "-")
    assert result.exit_code != 0 and "not both" in result.output
    result = _cli(sqlite_engine, "--format", "json", "-n", "bad namespace!", "--output", str(tmp_path / "x"))
    assert result.exit_code != 0 and "namespace" in result.output
