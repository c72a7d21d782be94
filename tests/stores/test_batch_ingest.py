"""Batch ingest gives exactly the memories, edges and counts of one insert after another.

On both stores: a namespace is seeded one memory at a time, then the same items (with
in-batch duplicates by id and by content, an id conflict and an invalid item) go in one at a
time into one namespace and in batches into another. Small candidate limits and degree caps
make truncation and eviction happen, the lexical lookup included (its ranking has no
corpus-wide statistic, so a batch ranks its candidates as a sequence of inserts does: see
ingest/candidates.py); some items are thread turns (FOLLOWS edges and context windows).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.ingest.bulk import import_jsonl
from graphmem.model import EDGE_TYPES
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from harness.corpus import make_memories

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first

NOW = "2025-03-01T00:00:00.000000Z"
CAPS = {"max_degree_shares_tag": 3, "max_degree_same_category": 2, "max_degree_overlaps": 3}
# Topics link too (they are candidates from the same tag index, under the same caps).
EDGES = {"candidates_per_tag": 6, "candidates_per_category": 5, "candidates_lexical": 4,
         "topic_tag_weight": 0.5, "topic_max_df_ratio": 0.1, **CAPS}


def items() -> list[dict]:
    out = make_memories(100, seed=3, namespace="ignored")
    for n, item in enumerate(out):
        item.pop("namespace")
        if n % 3 == 0:      # some explicit, out-of-order creation times: "newest first" is not id order
            item["created_at"] = f"2024-{1 + n % 12:02d}-{1 + n % 27:02d}T00:00:00.000000Z"
        if n % 4 == 1:      # thread turns, some arriving before the turns they follow
            item.update(thread=f"chat-{n % 3}", seq=(n * 7) % 23)
    return out[:25], out[25:] + [
        {**out[45], "id": "same-content-new-id"},        # duplicate by content (of a batch item)
        {**out[3], "id": "same-content-seeded"},          # duplicate by content (of a seeded memory)
        dict(out[50]),                                    # duplicate by id
        {**out[51], "content": "other words entirely for an existing id"},   # conflict
        {"content": ""},                                  # invalid
        {**out[60], "id": "near-copy", "content": out[60]["content"] + " Again."},
    ]


def snapshot(engine: Graphmem, namespace: str) -> dict:
    store = engine.store
    memories = sorted((m.id, m.created_at, m.near_duplicate_of, tuple(m.index_labels), m.category,
                       json.dumps(m.topics)) for batch in store.iter_memories(namespace) for m in batch)
    ids = [m[0] for m in memories]
    edges = sorted((e.a, e.b, e.type, e.weight, json.dumps(e.reason, sort_keys=True))
                   for e in store.edges_among(namespace, ids))
    terms = sorted({t for batch in store.iter_memories(namespace) for m in batch for t in m.term_counts})
    stats = store.term_stats(namespace, terms)
    tags = sorted({t for m in memories for t in m[3]})
    return {"memories": memories, "edges": edges,
            "terms": (stats.n_docs, stats.total_length, sorted(stats.df.items())),
            "tags": store.tag_counts(namespace, tags),
            "categories": store.category_counts(namespace, sorted({m[4] for m in memories if m[4]})),
            "tag_members": {t: store.tag_members(namespace, t, 100) for t in tags}}


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engines(request, tmp_path, embedder):
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}, "edges": EDGES}, use_env=False)
    if request.param == "sqlite":
        one, many = (Graphmem(settings, SQLiteStore(tmp_path / d, settings.store), embedder, clock=lambda: NOW)
                     for d in "ab")
        yield one, many, "batch", "batch"
        one.close()
        many.close()
    else:
        store = request.getfixturevalue("neo4j_store")
        ctx = request.getfixturevalue("neo")
        engine = Graphmem(settings, store, embedder, clock=lambda: NOW)
        yield engine, engine, ctx.ns, ctx.new_ns("batch")


def test_batch_gives_the_edges_of_one_insert_after_another(engines):
    one, many, ns_one, ns_many = engines
    seed, rest = items()
    for engine, ns in ((one, ns_one), (many, ns_many)):
        for item in seed:
            assert engine.add(item, ns).status == "created"
    singles = []
    for item in rest:
        try:
            singles.append(dump(one.add(item, ns_one)))
        except Exception as exc:           # what the batch reports per item instead
            singles.append({"status": "rejected", "code": getattr(exc, "code", type(exc).__name__)})
    batched = []
    for start in range(0, len(rest), 37):
        batched += dump(many.add_batch(rest[start:start + 37], ns_many))["results"]

    def outcome(r: dict) -> tuple:
        return (r["status"], r.get("id"), r.get("duplicate_of"), r.get("code") or r.get("error", {}).get("code"))

    assert [outcome(r) for r in singles] == [outcome(r) for r in batched]
    assert {"created", "duplicate", "rejected"} == {r["status"] for r in batched}
    expected, got = snapshot(one, ns_one), snapshot(many, ns_many)
    for key in expected:
        assert got[key] == expected[key], key
    degree = Counter((node, e[2]) for e in expected["edges"] for node in e[:2])
    for edge_type, cap in (("SHARES_TAG", 3), ("SAME_CATEGORY", 2), ("OVERLAPS", 3)):
        held = [n for (_, t), n in degree.items() if t == edge_type]
        assert max(held) == cap, (edge_type, held)      # the caps bound: eviction ran
    assert set(EDGE_TYPES) - {"RELATED", "FOLLOWS", "SUPERSEDES"} <= {e[2] for e in expected["edges"]}
    topical = [e for e in expected["edges"] if '"topics"' in e[4]]
    assert topical and any('"tags": []' in e[4] for e in topical)    # topic-only links exist, batch-exact


def test_import_overlapping_embedding_writes_the_same_store(tmp_path, embedder):
    """``graphmem import`` embeds the next chunk while this one is written: the same store
    (memories, edges, counts, stats) and the same per-line summary as one step after another."""
    seed, rest = items()
    lines = [json.dumps(item) for item in seed + rest] + ["{not json"]
    lines[7] = json.dumps({**json.loads(lines[7]), "namespace": "other"})   # a second namespace group
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outcomes = []
    for overlap in (False, True):
        settings = load_settings(overrides={"store": {"data_dir": str(tmp_path / str(overlap))}, "edges": EDGES,
                                            "ingest": {"import_overlap": overlap}}, use_env=False)
        engine = Graphmem(settings, SQLiteStore(tmp_path / str(overlap), settings.store), embedder,
                          clock=lambda: NOW)
        summary = import_jsonl(engine, path, namespace="imp", batch_size=13)
        outcomes.append((summary, snapshot(engine, "imp"), snapshot(engine, "other"), dump(engine.stats())))
        engine.close()
    assert outcomes[0] == outcomes[1]
    summary = outcomes[0][0]
    assert summary["created"] > 100 and summary["duplicate"] and summary["rejected"] >= 3
    assert len(outcomes[0][1]["edges"]) > 100
