"""The embedded store's row cache (``store.sqlite.row_cache``) never serves a changed row.

Real SQLite, two stores on one database (two connections, as two processes would be): a row
read and cached by one is re-read after the other commits a change, after the store's own
writes, and a read that raced a write does not put its old rows back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.memories import DIM, MODEL, mem
from tests.neo4j_server import store_settings


def open_store(path: Path, capacity: int = 100) -> SQLiteStore:
    store = SQLiteStore(path, store_settings(sqlite_synchronous="NORMAL", sqlite_row_cache=capacity))
    store.ensure_schema(MODEL, DIM)
    return store


def health(store: SQLiteStore, id_: str) -> float:
    return store.get_memories("ns", [id_])[id_].health


def test_another_connections_write_is_seen(tmp_path):
    a, b = open_store(tmp_path), open_store(tmp_path)
    a.save_memory(mem("ns", "m1"), [], [])
    assert health(a, "m1") == 1.0 and health(a, "m1") == 1.0         # second read from the cache
    b.update_health("ns", [("m1", 0.25, [], 1.0)])
    assert health(a, "m1") == 0.25
    b.delete_memory("ns", "m1")
    assert a.get_memories("ns", ["m1"]) == {}
    a.close()
    b.close()


def test_own_writes_are_seen(tmp_path):
    store = open_store(tmp_path)
    store.save_memory(mem("ns", "m1"), [], [])
    assert health(store, "m1") == 1.0
    store.update_health("ns", [("m1", 0.5, [], 1.0)])
    assert health(store, "m1") == 0.5
    store.save_memory(mem("ns", "m1", content="changed text"), [], [])
    assert store.get_memories("ns", ["m1"])["m1"].content == "changed text"
    store.close()


def test_bounded_and_read_only(tmp_path):
    store = open_store(tmp_path, capacity=3)
    for i in range(6):
        store.save_memory(mem("ns", f"m{i}"), [], [])
    got = store.get_memories("ns", [f"m{i}" for i in range(6)])
    assert sorted(got) == [f"m{i}" for i in range(6)] and len(store.rows._rows) == 3
    with pytest.raises(ValueError):
        got["m5"].embedding[0] = 1.0          # shared between readers: changing it in place fails
    store.close()


def test_a_read_that_raced_a_write_is_not_cached(tmp_path):
    store = open_store(tmp_path)
    store.save_memory(mem("ns", "m1"), [], [])
    generation = store.rows.check(store.db)
    stale = store.get_memories("ns", ["m1"])
    store.rows.clear()                         # what a commit does between the read and its put
    store.rows.put("ns", stale, generation)
    assert store.rows.take("ns", ["m1"]) == ({}, ["m1"])
    store.close()


def test_off_at_zero(tmp_path):
    store = open_store(tmp_path, capacity=0)
    store.save_memory(mem("ns", "m1"), [], [])
    assert health(store, "m1") == 1.0 and not store.rows._rows
    store.close()
