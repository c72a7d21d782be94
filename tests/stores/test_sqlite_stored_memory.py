"""The embedded store's memories decode their JSON columns when first read (``StoredMemory``):
every field still reads back as written, copies stay independent, and a stored memory equals a
``Memory`` with the same fields. Real SQLite."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from graphmem.model import HealthPenalty, Memory
from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.memories import DIM, MODEL, mem
from tests.neo4j_server import store_settings

JSON_FIELDS = ("tags", "metadata", "health_reasons", "term_counts", "evidence", "topics", "times", "entities")


def written() -> Memory:
    return mem("ns", "m1", text="kelp forests shelter otters", tags=["sea", "kelp"],
               metadata={"turns": ["a", "b"]}, health=0.5, health_reasons=[HealthPenalty("stale", 0.5, "old")],
               evidence={"quote": "kelp", "source": "chat"}, topics=[{"topic": "kelp", "quote": "kelp"}],
               times=[{"phrase": "yesterday", "span": [0, 9], "value": "2025-02-28", "text": "yesterday"}],
               entities=[{"entity": "otter", "kind": "name", "quote": "otters"}])


def read_back(tmp_path) -> tuple[SQLiteStore, Memory]:
    store = SQLiteStore(tmp_path, store_settings(sqlite_synchronous="NORMAL", sqlite_row_cache=0))
    store.ensure_schema(MODEL, DIM)
    store.save_memory(written(), [], [])
    return store, store.get_memories("ns", ["m1"])["m1"]


def test_every_json_field_reads_back_as_written(tmp_path):
    store, got = read_back(tmp_path)
    want = written()
    for name in JSON_FIELDS:
        assert getattr(got, name) == getattr(want, name), name
    assert got.to_dict() == want.to_dict()
    store.close()


def test_copies_decode_apart_and_equal_a_plain_memory(tmp_path):
    store, got = read_back(tmp_path)
    twin = copy.copy(got)
    twin.tags.append("changed")                 # the copy decodes its own list
    assert got.tags == ["sea", "kelp"] and twin.tags == ["sea", "kelp", "changed"]
    again = pickle.loads(pickle.dumps(got))
    assert again.entities == written().entities and again.id == "m1"
    plain = Memory(**{f.name: getattr(got, f.name) for f in dataclasses.fields(Memory) if f.name != "embedding"})
    got.embedding = None                        # an array's == is elementwise: compare the rest
    assert got == plain and plain == got
    assert got != dataclasses.replace(plain, topics=[])
    store.close()
