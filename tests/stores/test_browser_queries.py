"""The saved Neo4j Browser queries (cypher/browser/*.cypher) run on a real server.

A small fixture graph is written through ``Neo4jStore`` (so the queries see exactly what
the service writes), then every browser file runs with the parameters its header
documents. A new browser file without a check here fails ``test_every_browser_query_is_checked``.
"""

from __future__ import annotations

import json
import re

import pytest

from graphmem.model import Edge, Memory
from graphmem.stores.neo4j import queries as Q
from tests.helpers.memories import unit

pytestmark = pytest.mark.neo4j
BROWSER = sorted(p.stem for p in (Q.cypher_dir() / "browser").glob("*.cypher"))




def run(ctx, name: str, **params) -> list[dict]:
    with ctx.store._driver.session(database=ctx.store.database) as session:
        return session.run(Q.load(f"browser/{name}"), {"namespace": ctx.ns, **params}).data()


def check_memory_neighbourhood(ctx):
    (row,) = run(ctx, "memory_neighbourhood", id="a", min_weight=0.5, limit=25)
    assert row["m"]["id"] == "a"
    assert sorted(n["id"] for n in row["neighbours"]) == ["b", "b", "c"]  # 0.2 OVERLAPS is below 0.5
    assert len(row["edges"]) == 3 and sorted(t["name"] for t in row["tags"]) == ["deploy", "prod"]
    (top,) = run(ctx, "memory_neighbourhood", id="a", min_weight=0.0, limit=1)
    assert [n["id"] for n in top["neighbours"]] == ["c"]  # strongest edge first (1.0 SHARES_TAG)
    (alone,) = run(ctx, "memory_neighbourhood", id="e", min_weight=0.0, limit=25)
    assert alone["edges"] == [] and alone["neighbours"] == [] and alone["tags"] == []
    assert run(ctx, "memory_neighbourhood", id="missing", min_weight=0.0, limit=5) == []


def check_conversation(ctx):
    ns = ctx.ns
    turns = [Memory(id=f"t{i}", namespace=ns, content=f"turn {i}", content_hash=f"ht{i}", thread="s1", seq=i,
                    created_at="2025-01-01T00:00:00.000000Z", updated_at="2025-01-01T00:00:00.000000Z",
                    embedding=unit(10 + i), term_counts={"turn": 1}) for i in range(3)]
    follows = [Edge(ns, "t0", "t1", "FOLLOWS", 1.0, {"thread": "s1"}), Edge(ns, "t1", "t2", "FOLLOWS", 1.0, {})]
    ctx.store.save_batch(turns, follows, [])
    (row,) = run(ctx, "conversation", thread="s1", limit=50)
    assert [t["id"] for t in row["turns"]] == ["t0", "t1", "t2"] and len(row["follows"]) == 2
    (first,) = run(ctx, "conversation", thread="s1", limit=2)
    assert [t["id"] for t in first["turns"]] == ["t0", "t1"] and len(first["follows"]) == 1
    assert run(ctx, "conversation", thread="missing", limit=5) == []


def check_supersession(ctx):
    ns = ctx.ns
    versions = [Memory(id=f"v{i}", namespace=ns, content=f"redis version {6 + i}", content_hash=f"hv{i}",
                       created_at=f"2025-0{i + 1}-01T00:00:00.000000Z", updated_at="2025-01-01T00:00:00.000000Z",
                       superseded_by=f"v{i + 1}" if i < 2 else None, embedding=unit(20 + i),
                       term_counts={"redis": 1}) for i in range(3)]
    links = [Edge(ns, "v1", "v0", "SUPERSEDES", 1.0, {"reason": "upgrade", "at": "2025-02-01"}),
             Edge(ns, "v2", "v1", "SUPERSEDES", 1.0, {"reason": "upgrade", "at": "2025-03-01"})]
    ctx.store.save_batch(versions, links, [])
    for start in ("v0", "v1", "v2"):
        (row,) = run(ctx, "supersession", id=start, limit=50)
        assert row["chain"] == ["v0", "v1", "v2"] and row["current"] == ["v2"] and len(row["supersedes"]) == 2
    (alone,) = run(ctx, "supersession", id="a", limit=50)
    assert alone["chain"] == ["a"] and alone["supersedes"] == []
    assert run(ctx, "supersession", id="missing", limit=5) == []


def check_why_linked(ctx):
    rows = run(ctx, "why_linked", a="b", b="a")
    assert [r["type"] for r in rows] == ["SHARES_TAG", "SAME_CATEGORY"]
    assert (rows[0]["source"], rows[0]["target"], rows[0]["weight"]) == ("a", "b", 0.8)
    assert json.loads(rows[0]["reason"]) == {"tags": ["deploy"], "rarity": 0.77}
    assert rows[0]["shared_tags"] == ["deploy"] and rows[0]["categories"] == ["ops", "ops"]
    related = run(ctx, "why_linked", a="c", b="b")
    assert [(r["type"], json.loads(r["reason"])["quote"]) for r in related] == [("RELATED", "b relates to c")]
    assert run(ctx, "why_linked", a="d", b="e") == []


def check_weakest_health(ctx):
    rows = run(ctx, "weakest_health", limit=3)
    assert [(r["id"], r["health"]) for r in rows] == [("c", 0.2), ("b", 0.4), ("d", 0.9)]
    assert [p["rule"] for p in json.loads(rows[0]["health_reasons"])] == ["conflict", "stale"]
    assert rows[0]["content"].startswith("memory c")


def check_hub_tags(ctx):
    rows = run(ctx, "hub_tags", limit=2)
    assert [(r["tag"], r["memories"]) for r in rows] == [("deploy", 3), ("prod", 2)]
    assert rows[0]["first_used"] < rows[0]["last_used"]


def check_hubs_by_degree(ctx):
    rows = run(ctx, "hubs_by_degree", limit=10, caps={"SHARES_TAG": 2, "SAME_CATEGORY": 8, "OVERLAPS": 8,
                                                      "RELATED": 1})
    assert [(r["id"], r["degree"]) for r in rows] == [("a", 4), ("b", 3), ("c", 3)]
    assert rows[0]["per_type"] == {"SHARES_TAG": 2, "SAME_CATEGORY": 1, "OVERLAPS": 1, "RELATED": 0}
    assert rows[0]["at_cap_types"] == ["SHARES_TAG"] and rows[1]["at_cap_types"] == ["RELATED"]


def check_entity_memories(ctx):
    ns = ctx.ns
    dog = [{"entity": "dog", "kind": "phrase", "quote": q} for q in ("dogs", "dog", "Dogs")]
    ctx.store.save_batch([Memory(id=f"en{i}", namespace=ns, content=f"{dog[i]['quote']} {i}",
                                 content_hash=f"hen{i}", created_at=f"2025-02-0{i + 1}T00:00:00.000000Z",
                                 updated_at="2025-02-09T00:00:00.000000Z", embedding=unit(30 + i),
                                 term_counts={"dog": 1}, entities=[dog[i]]) for i in range(3)], [], [])
    rows = run(ctx, "entity_memories", entity="dog", limit=100)
    assert [(r["id"], r["quote"]) for r in rows] == [("en2", "Dogs"), ("en1", "dog"), ("en0", "dogs")]
    assert rows[0]["e"]["key"] == "dog" and rows[0]["content"] == "Dogs 2"
    assert [r["id"] for r in run(ctx, "entity_memories", entity="dog", limit=1)] == ["en2"]
    ctx.store.delete_memory(ns, "en2")
    assert [r["id"] for r in run(ctx, "entity_memories", entity="dog", limit=100)] == ["en1", "en0"]
    assert run(ctx, "entity_memories", entity="cat", limit=100) == []


CHECKS = {name.removeprefix("check_"): fn for name, fn in globals().items() if name.startswith("check_")}


def test_every_browser_query_is_checked():
    assert BROWSER and set(BROWSER) == set(CHECKS)


@pytest.mark.parametrize("name", BROWSER)
def test_browser_query_header_documents_its_parameters(name):
    text = Q.load(f"browser/{name}")
    header = "\n".join(line for line in text.splitlines() if line.startswith("//"))
    code = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    assert header.startswith("// Browser: ")
    used = set(re.findall(r"\$(\w+)", code))
    documented = set(re.findall(r":param (\w+) =>", header))
    assert used == documented, f"{name}: parameters used {sorted(used)} vs documented {sorted(documented)}"


@pytest.mark.parametrize("name", BROWSER)
def test_browser_query_on_fixture(graph, name):
    CHECKS[name](graph)
