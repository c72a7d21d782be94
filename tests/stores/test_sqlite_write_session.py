"""The embedded store's write session: writes serialise on the database across processes.

Real SQLite, two stores on one data dir (separate connections, as two processes are): while one
holds a write session, the other's write waits at most ``store.write_wait`` and then fails as
``StoreUnavailable`` with a Retry-After, while its reads go on; a session that fails leaves
nothing behind (rows, counts, vector matrix, row cache); a failing write inside a session is
undone alone (a savepoint) and the session's other writes commit.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from graphmem.errors import StoreUnavailable, ValidationError
from graphmem.model import MemoryFilter
from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.memories import DIM, MODEL, mem
from tests.neo4j_server import store_settings


def open_store(path: Path, wait: float = 0.4) -> SQLiteStore:
    store = SQLiteStore(path, store_settings(sqlite_synchronous="NORMAL", write_wait=wait))
    store.ensure_schema(MODEL, DIM)
    return store


def test_a_held_session_bounds_the_other_process_s_write(tmp_path):
    a, b = open_store(tmp_path), open_store(tmp_path)
    a.save_memory(mem("ns", "m0"), [], [])
    with a.write_session():
        a.save_memory(mem("ns", "m1"), [], [])
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as err:
            b.save_memory(mem("ns", "m2"), [], [])
        waited = time.monotonic() - started
        assert waited >= 0.3 and err.value.retry_after == 1     # refused after write_wait, the lock still held
        assert "store.write_wait" in err.value.message
        assert sorted(b.get_memories("ns", ["m0", "m1"])) == ["m0"]     # reads go on; m1 is not committed
    assert sorted(b.get_memories("ns", ["m0", "m1", "m2"])) == ["m0", "m1"]
    b.save_memory(mem("ns", "m2"), [], [])                              # the lock is free again
    a.close()
    b.close()


def test_another_thread_of_the_process_waits_bounded_too(tmp_path):
    store = open_store(tmp_path)
    failed: list[BaseException] = []

    def writer() -> None:
        try:
            store.save_memory(mem("ns", "t1"), [], [])
        except StoreUnavailable as exc:
            failed.append(exc)

    with store.write_session():
        thread = threading.Thread(target=writer)
        thread.start()
        thread.join(timeout=5)
    assert not thread.is_alive() and len(failed) == 1
    store.close()


def test_a_failed_session_leaves_nothing(tmp_path):
    store = open_store(tmp_path)
    store.save_memory(mem("ns", "keep", tags=["x"]), [], [])
    vector = store.get_memories("ns", ["keep"])["keep"].embedding
    assert store.vector_candidates("ns", vector, 5, MemoryFilter(), "") == ["keep"]   # matrix loaded
    with pytest.raises(RuntimeError), store.write_session():
        store.save_memory(mem("ns", "gone", tags=["x"]), [], [])
        store.delete_memory("ns", "keep")
        assert sorted(store.get_memories("ns", ["gone", "keep"])) == ["gone"]   # its own writes, uncached
        raise RuntimeError("planning failed")
    assert sorted(store.get_memories("ns", ["gone", "keep"])) == ["keep"]
    assert store.tag_counts("ns", ["x"]) == {"x": 1}
    assert store.term_stats("ns", ["note"]).n_docs == 1
    assert set(store.vectors.namespaces["ns"].ids) == {"keep"}
    assert store.integrity("ns") == []
    store.close()


def test_a_failing_write_inside_a_session_is_undone_alone(tmp_path):
    store = open_store(tmp_path)
    with store.write_session():
        store.save_memory(mem("ns", "first"), [], [])
        with pytest.raises(ValidationError):
            store.save_memory(mem("ns", "bad", embedding=np.ones(3, dtype=np.float32)), [], [])
        with pytest.raises(StoreUnavailable), store._write() as db:     # a statement failing mid-write
            db.execute("INSERT INTO meta VALUES ('half', 'written')")
            db.execute("INSERT INTO no_such_table VALUES (1)")
        with store.write_session():                                       # reentrant
            store.save_memory(mem("ns", "second"), [], [])
    assert sorted(store.get_memories("ns", ["first", "bad", "second"])) == ["first", "second"]
    assert store.db.execute("SELECT count(*) FROM meta WHERE key = 'half'").fetchone()[0] == 0
    assert store.integrity("ns") == []
    store.close()
