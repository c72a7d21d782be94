"""Extracted topics in the store contract (every store kind): stored beside the caller's tags,
indexed in the tag index under their labels (members, counts, rarity), moved on update and
removed on delete; a tag filter never matches a topic."""

from __future__ import annotations

from graphmem.model import Memory, MemoryFilter, topic_label
from tests.helpers.memories import NOW, mem, save

POTTERY = [{"topic": "pottery", "quote": "Pottery"}, {"topic": "lgbtq", "quote": "LGBTQ"}]


def test_topics_round_trip_apart_from_tags(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", t=1, tags=["speaker:mel"], topics=POTTERY, text="Pottery class for LGBTQ"),
         mem(ns, "b", t=2, tags=["pottery"], topics=[{"topic": "pottery", "quote": "pottery"}]))
    got = ctx.store.get_memories(ns, ["a", "b"])
    assert got["a"].tags == ["speaker:mel"] and got["a"].topics == POTTERY
    assert got["a"].to_dict()["topics"] == POTTERY and "pottery" not in got["a"].tags
    label = topic_label("pottery")
    assert ctx.store.tag_members(ns, label, 10) == ["b", "a"]
    assert ctx.store.tag_counts(ns, [label, "pottery", topic_label("lgbtq")]) == {
        label: 2, "pottery": 1, topic_label("lgbtq"): 1}
    assert ctx.store.tag_members_many(ns, [label], 10) == {label: ["b", "a"]}
    # a caller's tag filter means the caller's tags only
    assert [m.id for m in ctx.store.list_memories(ns, MemoryFilter(tags=["pottery"]), 10, now_iso=NOW)] == ["b"]
    found = {i for batch in ctx.store.iter_memories(ns) for i in (m.id for m in batch)}
    assert found == {"a", "b"}


def test_update_moves_topic_labels_and_delete_removes_them(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", t=1, topics=POTTERY), mem(ns, "b", t=2, topics=POTTERY[:1]))
    moved = [{"topic": "camping", "quote": "camping"}]
    ctx.store.save_memory(mem(ns, "a", t=1, topics=moved), [], [])
    assert ctx.store.get_memories(ns, ["a"])["a"].topics == moved
    assert ctx.store.tag_counts(ns, [topic_label("pottery"), topic_label("lgbtq"), topic_label("camping")]) == {
        topic_label("pottery"): 1, topic_label("lgbtq"): 0, topic_label("camping"): 1}
    assert ctx.store.tag_members(ns, topic_label("lgbtq"), 10) == []
    assert ctx.store.delete_memory(ns, "b")
    assert ctx.store.tag_counts(ns, [topic_label("pottery")]) == {topic_label("pottery"): 0}
    assert ctx.store.tag_members(ns, topic_label("pottery"), 10) == []


def test_a_memory_without_topics_reads_back_empty(ctx):
    save(ctx.store, Memory(id="bare", namespace=ctx.ns, content="x", content_hash="h",
                           created_at="2025-03-01T00:00:00.000000Z", updated_at="2025-03-01T00:00:00.000000Z"))
    assert ctx.store.get_memories(ctx.ns, ["bare"])["bare"].topics == []
