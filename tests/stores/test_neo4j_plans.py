"""Every Cypher query of an insert, update, delete and search on the Neo4j store is served by an
index keyed on more than the namespace: no scan, no seek on the namespace alone, and the "newest /
oldest first" lookups take their order from the index instead of sorting a whole tag or category.

The structural half of "the cost of one insert must not grow with the store" (the Neo4j twin of
test_sqlite_plans.py). Each query the engine actually runs is captured with its parameters and
checked with EXPLAIN on the server, after a few hundred memories exist (plans differ on an empty
database). Also here: the one-time migration that the TAGGED index and CategoryCount need.
"""

from __future__ import annotations

import re

import pytest

from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.model import EDGE_TYPES, MemoryFilter
from graphmem.stores.neo4j import queries as Q
from graphmem.stores.neo4j.admin import LAYOUT
from harness.corpus import make_memories
from tests.helpers.memories import DIM, MODEL, mem, new_namespace
from tests.neo4j_server import cypher_trace

pytestmark = pytest.mark.neo4j

# "UNIQUE m:Memory(namespace, id) WHERE namespace = $namespace AND id IS NOT NULL, cache[m.id]"
# "RANGE INDEX ()-[r:TAGGED(namespace, tag, ...)]->() WHERE namespace = $namespace AND ..."
INDEX_USE = re.compile(r"(?P<unique>UNIQUE )?.*?\w+:\w+\((?P<keys>[^)]*)\)\S* WHERE (?P<preds>.*)")
ORDERED = {"tag_members", "category_members", "memory_by_hash"}   # must read their order from the index
FULL_SORTS = {"Top", "Top1WithTies", "Sort"}                        # PartialTop / PartialSort are fine
# vector_scan walks the namespace by design, bounded: Neo4jStore.vector_candidates runs it only
# when the namespace holds no more memories than the vector index would be asked for anyway.
BOUNDED_WALKS = {"vector_scan"}


def seek_problem(details: str) -> str | None:
    """An index seek whose only bound key is the namespace (unless that is a unique key's all)."""
    found = INDEX_USE.match(details)
    if not found:
        return None
    keys = {k.strip() for k in found["keys"].split(",")}
    preds = found["preds"].split(", ")[0].split(" AND ")
    bound = {p.split()[0] for p in preds if not p.strip().endswith("IS NOT NULL")}
    if bound <= {"namespace"} and not (found["unique"] and bound == keys):
        return "seek on the namespace alone"
    return None


def plan_problems(plan: dict, ordered: bool) -> list[str]:
    problems = []
    op = plan["operatorType"].split("@")[0]
    details = plan["args"].get("Details", "")
    if "Scan" in op:
        problems.append(f"{op}: {details}")
    elif "Seek" in op or op.startswith("Merge"):
        problem = seek_problem(details)
        if problem:
            problems.append(f"{op} ({problem}): {details}")
    if ordered and op in FULL_SORTS:
        problems.append(f"{op} (order not from the index): {details}")
    for child in plan.get("children", []):
        problems += plan_problems(child, ordered)
    return problems


def explain(store, query: str, params: dict) -> dict:
    with store._driver.session(database=store.database) as session:
        return session.run("EXPLAIN " + query, params).consume().plan


def query_names() -> dict[str, str]:
    """Query text -> the cypher file it came from."""
    names = {Q.load(p.stem): p.stem for p in Q.cypher_dir().glob("*.cypher")}
    names.update({Q.for_type("edges_add", t): "edges_add" for t in EDGE_TYPES})
    return names


@pytest.fixture(scope="module")
def loaded(neo4j_store, embedder, tmp_path_factory):
    """An engine on Neo4j with a namespace of 300 memories (removed afterwards)."""
    ns = new_namespace("plans")
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path_factory.mktemp("plans"))}},
                             use_env=False)
    engine = Graphmem(settings, neo4j_store, embedder)
    try:
        engine.add_batch(make_memories(300, namespace=ns), ns)
        yield engine, ns
    finally:
        neo4j_store.drop_namespace(ns)


def traced(monkeypatch, action) -> dict[str, tuple[str, dict]]:
    """The queries ``action`` runs: file name -> (text, last parameters)."""
    names = query_names()
    with cypher_trace(monkeypatch) as runs:
        action()
    seen = {names.get(query, query): (query, params) for query, params in runs}
    assert seen, "the trace captured nothing"
    return seen


def check(store, seen: dict[str, tuple[str, dict]]) -> list[tuple[str, str]]:
    problems = []
    for name, (query, params) in seen.items():
        if name not in BOUNDED_WALKS:
            problems += [(name, p) for p in plan_problems(explain(store, query, params), name in ORDERED)]
    return problems


def test_insert_update_delete_use_selective_indexes(loaded, monkeypatch):
    engine, ns = loaded
    probe = {**make_memories(1, seed=99, namespace=ns)[0], "id": "probe", "tags": ["tag-0", "tag-1"],
             "category": "cat-0", "content": "The billing service probe note kepler"}

    def insert_update_delete():
        engine.add(probe, ns)
        engine.add(probe, ns)                                   # duplicate check by id
        engine.add({**probe, "id": None}, ns)                   # duplicate check by hash
        engine.update(ns, "probe", {"tags": ["tag-0", "new-tag"]})
        engine.delete(ns, "probe")

    seen = traced(monkeypatch, insert_update_delete)
    expected = {"memory_by_hash", "tag_members", "category_members", "tag_counts", "term_stats", "term_holders",
                "memories_get", "edges_of", "memory_unindex", "memory_upsert", "edges_add", "edges_clear",
                "tags_prune", "memory_delete"}
    assert expected <= set(seen), f"the trace missed {sorted(expected - set(seen))}"
    problems = check(engine.store, seen)
    assert problems == [], "\n".join(map(str, problems))


def test_batch_insert_uses_selective_indexes(loaded, monkeypatch):
    engine, ns = loaded
    batch = [{**m, "id": f"batch-{i}"} for i, m in enumerate(make_memories(20, seed=5, namespace=ns))]
    seen = traced(monkeypatch, lambda: engine.add_batch(batch + [batch[0]], ns))
    expected = {"memory_by_hash", "tag_members", "category_members", "tag_counts", "term_stats", "term_holders",
                "memories_get", "edges_of", "memory_unindex", "memory_upsert", "edges_add"}
    assert expected <= set(seen), f"the trace missed {sorted(expected - set(seen))}"
    problems = check(engine.store, seen)
    assert problems == [], "\n".join(map(str, problems))


def test_search_uses_selective_indexes(loaded, monkeypatch):
    engine, ns = loaded
    seen = traced(monkeypatch, lambda: engine.search("how does the billing service deploy tag-3 cat-1", ns, 10))
    expected = {"label_counts", "recall_vector", "recall_lexical", "neighbors"}
    assert expected <= set(seen), f"the trace missed {sorted(expected - set(seen))}"
    problems = check(engine.store, seen)
    assert problems == [], "\n".join(map(str, problems))


def test_validity_filters_use_selective_indexes(loaded, monkeypatch):
    """``as_of`` and ``current_only`` searches and lists run the same index-served queries as
    unfiltered ones (the conditions ride on the vector, fulltext and ordered seeks)."""
    engine, ns = loaded
    as_of = "2025-01-01T00:00:00.000000Z"

    def searches_and_lists():
        for flt in (MemoryFilter(as_of=as_of), MemoryFilter(current_only=True),
                    MemoryFilter(as_of=as_of, current_only=True, tags=["tag-1"])):
            engine.search("how does the billing service deploy tag-3", ns, 10, flt)
            engine.list_memories(ns, flt, 20)

    seen = traced(monkeypatch, searches_and_lists)
    expected = {"recall_vector", "recall_lexical", "memories_list"}
    assert expected <= set(seen), f"the trace missed {sorted(expected - set(seen))}"
    assert any(params.get("as_of") == as_of for _query, params in seen.values())
    problems = check(engine.store, seen)
    assert problems == [], "\n".join(map(str, problems))


BAD_QUERIES = {  # the detector itself: each of these must be reported
    "label scan": ("MATCH (m:Memory) WHERE m.reason = $tag RETURN m.id", False),
    "namespace seek + filter": ("MATCH (m:Memory) WHERE m.namespace = $namespace AND m.reason = $tag "
                                "RETURN m.id", False),
    "namespace prefix of the key": ("MATCH (m:Memory) USING INDEX m:Memory(namespace, id) "
                                    "WHERE m.namespace = $namespace AND m.id IS NOT NULL RETURN m.id", False),
    "old tag_members (expand the tag, sort)": (
        "MATCH (:Tag {namespace: $namespace, name: $tag})<-[:TAGGED]-(m:Memory) RETURN m.id AS id "
        "ORDER BY m.created_at DESC, m.id DESC LIMIT 10", True),
    "ordered seek without index order": (
        "MATCH (m:Memory) USING INDEX SEEK m:Memory(namespace, category, created_at, id) "
        "WHERE m.namespace = $namespace AND m.category = $tag AND m.created_at IS NOT NULL "
        "AND m.id IS NOT NULL RETURN m.id ORDER BY m.created_at DESC, m.id DESC LIMIT 10", True),
}


@pytest.mark.parametrize("case", sorted(BAD_QUERIES))
def test_the_check_catches_bad_plans(loaded, case):
    engine, ns = loaded
    query, ordered = BAD_QUERIES[case]
    assert plan_problems(explain(engine.store, query, {"namespace": ns, "tag": "tag-0"}), ordered)


# -- the one-time migration of databases written before LAYOUT 2 ---------------------------------
def _run(store, query: str, **params) -> list[dict]:
    with store._driver.session(database=store.database) as session:
        return session.run(query, params).data()


@pytest.mark.serial   # removes the database's layout mark: another worker's ensure_schema would migrate early
def test_ensure_schema_migrates_old_tag_links_and_category_counts(neo):
    store, ns = neo.store, neo.ns
    for m in (mem(ns, "a", t=1, tags=["x"], category="k"), mem(ns, "b", t=3, tags=["x", "y"], category="k"),
              mem(ns, "c", t=3, tags=["x"], category="j"), mem(ns, "d", t=2, tags=["y"])):
        store.save_memory(m, [], [])
    # What a database written before LAYOUT 2 holds: bare TAGGED links, no CategoryCount, no layout.
    _run(store, "MATCH (:Memory {namespace: $ns})-[l:TAGGED]->() "
                "REMOVE l.namespace, l.tag, l.created_at, l.memory_id", ns=ns)
    _run(store, "MATCH (c:CategoryCount {namespace: $ns}) DELETE c", ns=ns)
    _run(store, "MATCH (m:Meta {key: 'graphmem'}) REMOVE m.layout")
    assert store.tag_members(ns, "x", 10) == [] and store.category_counts(ns, ["k"]) == {"k": 0}

    store.ensure_schema(MODEL, DIM)
    assert _run(store, "MATCH (m:Meta {key: 'graphmem'}) RETURN m.layout AS layout") == [{"layout": LAYOUT}]
    assert store.tag_members(ns, "x", 10) == ["c", "b", "a"]
    assert store.tag_members(ns, "y", 10, exclude_id="b") == ["d"]
    assert store.category_counts(ns, ["k", "j", "none"]) == {"k": 2, "j": 1, "none": 0}
    # migrated links and counts are kept in step like new ones
    store.save_memory(mem(ns, "a", t=1, tags=["y"], category="j"), [], [])
    store.delete_memory(ns, "c")
    assert store.tag_members(ns, "x", 10) == ["b"] and store.tag_members(ns, "y", 10) == ["b", "d", "a"]
    assert store.category_counts(ns, ["k", "j"]) == {"k": 1, "j": 1}
    assert store.category_members(ns, "j", 10) == ["a"]
