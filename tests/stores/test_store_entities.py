"""Entity mentions in the store contract (every store kind): each memory's entities round-trip,
each is a MENTIONS link whose members (newest first) and counts follow every write: an update
moves them, a delete and a namespace drop remove them, a batch counts each once."""

from __future__ import annotations

from graphmem.model import Memory
from tests.stores.test_store_contract import mem, save

DOG = {"entity": "dog", "kind": "phrase", "quote": "dogs"}
AUDREY = {"entity": "audrey", "kind": "name", "quote": "Audrey"}
CLASS = {"entity": "agility class", "kind": "phrase", "quote": "agility class"}


def test_entities_round_trip_and_index_members_and_counts(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", t=1, text="Audrey took her dogs out", entities=[AUDREY, DOG]),
         mem(ns, "b", t=2, text="Audrey enrolled her dogs in an agility class", entities=[AUDREY, DOG, CLASS]),
         mem(ns, "c", t=3, text="nothing here"))
    got = ctx.store.get_memories(ns, ["a", "b", "c"])
    assert got["a"].entities == [AUDREY, DOG] and got["c"].entities == []
    assert got["b"].to_dict()["entities"] == [AUDREY, DOG, CLASS]
    assert ctx.store.entity_members(ns, ["dog", "agility class", "cat"], 10) == {
        "dog": ["b", "a"], "agility class": ["b"], "cat": []}
    assert ctx.store.entity_members(ns, ["dog"], 1) == {"dog": ["b"]}       # bounded: the newest first
    assert ctx.store.entity_counts(ns, ["audrey", "agility class", "cat"]) == {
        "audrey": 2, "agility class": 1, "cat": 0}


def test_update_moves_mentions_and_delete_removes_them(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", t=1, entities=[AUDREY, DOG]), mem(ns, "b", t=2, entities=[DOG]))
    ctx.store.save_memory(mem(ns, "a", t=1, entities=[CLASS]), [], [])
    assert ctx.store.get_memories(ns, ["a"])["a"].entities == [CLASS]
    assert ctx.store.entity_counts(ns, ["audrey", "dog", "agility class"]) == {
        "audrey": 0, "dog": 1, "agility class": 1}
    assert ctx.store.entity_members(ns, ["audrey", "dog"], 10) == {"audrey": [], "dog": ["b"]}
    assert ctx.store.delete_memory(ns, "b")
    assert ctx.store.entity_counts(ns, ["dog"]) == {"dog": 0}
    assert ctx.store.entity_members(ns, ["dog"], 10) == {"dog": []}


def test_batch_counts_each_mention_once_and_namespaces_stay_apart(ctx):
    ns, other = ctx.ns, ctx.new_ns()
    ctx.store.save_batch([mem(ns, f"m{i}", t=i, entities=[DOG]) for i in range(5)], [], [])
    ctx.store.save_memory(mem(other, "x", t=1, entities=[DOG]), [], [])
    assert ctx.store.entity_counts(ns, ["dog"]) == {"dog": 5}
    assert ctx.store.entity_members(other, ["dog"], 10) == {"dog": ["x"]}
    assert ctx.store.delete_memory(other, "x")
    assert ctx.store.entity_counts(other, ["dog"]) == {"dog": 0}
    assert ctx.store.entity_counts(ns, ["dog"]) == {"dog": 5}
    assert ctx.store.entity_members(ns, ["dog"], 3) == {"dog": ["m4", "m3", "m2"]}


def test_a_memory_without_entities_reads_back_empty(ctx):
    save(ctx.store, Memory(id="bare", namespace=ctx.ns, content="x", content_hash="h",
                           created_at="2025-03-01T00:00:00.000000Z", updated_at="2025-03-01T00:00:00.000000Z"))
    assert ctx.store.get_memories(ctx.ns, ["bare"])["bare"].entities == []
    assert ctx.store.entity_members(ctx.ns, ["x"], 5) == {"x": []}


def test_check_finds_and_repair_rebuilds_broken_mention_rows(sqlite_store):
    """SQLite is the source of truth: a MENTIONS row or count out of step with the memory row is a
    ``graphmem check`` finding, and ``recount`` (check --repair) rebuilds them from the rows."""
    ns = "check-entities"
    save(sqlite_store, mem(ns, "a", t=1, entities=[AUDREY, DOG]), mem(ns, "b", t=2, entities=[DOG]))
    assert sqlite_store.integrity(ns) == []
    with sqlite_store._write() as db:
        db.execute("DELETE FROM memory_entities WHERE namespace = ? AND memory_id = 'a' AND entity = 'dog'", (ns,))
        db.execute("UPDATE entity_counts SET n = 7 WHERE namespace = ? AND entity = 'audrey'", (ns,))
    found = {kind: ids for kind, _msg, ids in sqlite_store.integrity(ns)}
    assert found == {"memory_entities": ["a"], "entity_counts": ["audrey", "dog"]}
    sqlite_store.recount(ns)
    assert sqlite_store.integrity(ns) == []
    assert sqlite_store.entity_members(ns, ["dog"], 10) == {"dog": ["b", "a"]}
    assert sqlite_store.entity_counts(ns, ["audrey", "dog"]) == {"audrey": 1, "dog": 2}
