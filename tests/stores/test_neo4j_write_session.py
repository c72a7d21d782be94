"""The Neo4j store's write session: the writes of a namespace take turns across processes.

A real Neo4j and two stores (two drivers, as two processes have): while one holds a write session
on a namespace, the other's write to that namespace waits at most ``store.write_wait`` and then
fails as ``StoreUnavailable`` with a Retry-After, while its reads and its writes to another
namespace go on; what the session read is what it commits over (a compare-and-set); a session
that fails leaves nothing behind, and one that only read writes nothing.
"""

from __future__ import annotations

import time

import pytest

from graphmem.errors import StoreUnavailable
from tests.helpers.memories import DIM, MODEL, mem, new_namespace
from tests.neo4j_server import open_store

pytestmark = pytest.mark.neo4j


@pytest.fixture
def stores(neo4j_uri):
    pair = [open_store(write_wait=0.5) for _ in range(2)]
    for store in pair:
        store.ensure_schema(MODEL, DIM)
    namespaces = [new_namespace("session"), new_namespace("session")]
    yield pair, namespaces
    for ns in namespaces:
        pair[0].drop_namespace(ns)
    for store in pair:
        store.close()


def lock_stamp(store, namespace: str) -> int | None:
    rows = store._driver.execute_query("MATCH (l:NamespaceLock {namespace: $ns}) RETURN l.at AS at",
                                       {"ns": namespace}, database_=store.database).records
    return rows[0]["at"] if rows else None


def test_a_held_session_bounds_the_other_process_s_write(stores):
    (a, b), (ns, other) = stores
    a.save_memory(mem(ns, "m0"), [], [])
    with a.write_session():
        assert a.get_memories(ns, ["m1"]) == {}             # the session reads, under the lock
        a.save_memory(mem(ns, "m1"), [], [])
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as err:
            b.save_memory(mem(ns, "m1", text="another writer's m1"), [], [])
        waited = time.monotonic() - started
        assert waited >= 0.45 and err.value.retry_after == 1
        assert "store.write_wait" in err.value.message
        assert sorted(b.get_memories(ns, ["m0", "m1"])) == ["m0"]      # reads go on; m1 is not committed
        b.save_memory(mem(other, "o1"), [], [])                         # another namespace does not wait
    assert b.get_memories(ns, ["m1"])["m1"].content == "note m1"       # the session's write, committed
    b.save_memory(mem(ns, "m2"), [], [])                                # the lock is free again
    assert sorted(a.get_memories(ns, ["m0", "m1", "m2"])) == ["m0", "m1", "m2"]
    assert a.term_stats(ns, []).n_docs == 3


def test_a_failed_session_leaves_nothing_and_a_read_only_one_writes_nothing(stores):
    (a, b), (ns, _) = stores
    a.save_memory(mem(ns, "m0"), [], [])
    stamp = lock_stamp(a, ns)
    with a.write_session():
        assert sorted(a.get_memories(ns, ["m0"])) == ["m0"]
    assert lock_stamp(a, ns) == stamp                                    # rolled back: nothing written
    with pytest.raises(RuntimeError), a.write_session():
        a.save_memory(mem(ns, "gone"), [], [])
        a.delete_memory(ns, "m0")
        raise RuntimeError("the ingest failed after its writes")
    assert sorted(b.get_memories(ns, ["m0", "gone"])) == ["m0"]
    assert b.term_stats(ns, []).n_docs == 1
    b.save_memory(mem(ns, "m1"), [], [])                                # the rollback freed the lock at once


def test_a_window_namespace_shares_its_namespace_s_lock(stores):
    (a, b), (ns, _) = stores
    with a.write_session():
        a.save_memory(mem(ns, "m0"), [], [])
        with pytest.raises(StoreUnavailable):
            b.save_memory(mem(f"~window:{ns}", "m0"), [], [])
    b.save_memory(mem(f"~window:{ns}", "m0"), [], [])
    b.drop_namespace(f"~window:{ns}")
