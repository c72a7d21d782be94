"""The embedded store's vector index under concurrent search and delete/re-add:
searches read a consistent matrix while writers swap rows out and back in."""

from __future__ import annotations

import threading
import time

from graphmem.model import MemoryFilter
from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.memories import DIM, MODEL, mem, unit
from tests.neo4j_server import store_settings

N = 300
SECONDS = 3.0


def test_search_while_deleting_and_re_adding(tmp_path):
    store = SQLiteStore(tmp_path, store_settings())
    store.ensure_schema(MODEL, DIM)
    memories = [mem("ns", f"m{i:03d}", tags=["even" if i % 2 == 0 else "odd"]) for i in range(N)]
    for m in memories:
        store.save_memory(m, [], [])
    errors: list[BaseException] = []
    searches = [0]
    stop = threading.Event()

    def searcher(worker: int) -> None:
        flt = MemoryFilter(tags=["even"]) if worker % 2 else MemoryFilter()
        i = 0
        while not stop.is_set():
            try:
                found = store.vector_candidates("ns", unit(10_000 + i), 20, flt, "")
                assert len(found) == len(set(found)) and all(f.startswith("m") for f in found)
                searches[0] += 1
            except BaseException as exc:      # noqa: BLE001 - every failure is the finding
                errors.append(exc)
            i += 1

    def writer(worker: int) -> None:
        i = worker
        while not stop.is_set():
            try:
                victim = memories[i % N]
                store.delete_memory("ns", victim.id)
                store.save_memory(victim, [], [])
            except BaseException as exc:      # noqa: BLE001
                errors.append(exc)
            i += 2

    threads = [threading.Thread(target=searcher, args=(w,)) for w in range(4)]
    threads += [threading.Thread(target=writer, args=(w,)) for w in range(2)]
    for t in threads:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in threads:
        t.join()
    store.close()
    assert searches[0] > 50
    assert errors == [], f"{len(errors)} of {searches[0]} searches/writes failed: {errors[:3]!r}"


def test_second_store_on_the_same_file_sees_writes_even_after_the_log_is_pruned(tmp_path):
    """Two stores on one file behave like two processes (own connections, own caches)."""
    reader = SQLiteStore(tmp_path, store_settings())
    writer = SQLiteStore(tmp_path, store_settings(sqlite_synchronous="NORMAL", sqlite_vector_log_keep=5))
    for store in (reader, writer):
        store.ensure_schema(MODEL, DIM)
    writer.save_memory(mem("ns", "first"), [], [])
    assert reader.vector_candidates("ns", unit(1), 10, MemoryFilter(), "") == ["first"]
    writer.save_memory(mem("ns", "second"), [], [])          # replayed from the log
    assert sorted(reader.vector_candidates("ns", unit(1), 10, MemoryFilter(), "")) == ["first", "second"]
    assert reader.vectors.reloads == 0
    for i in range(20):                                        # more than the log keeps
        writer.save_memory(mem("ns", f"m{i}"), [], [])
    writer.delete_memory("ns", "first")
    found = reader.vector_candidates("ns", mem("ns", "m7").embedding, 30, MemoryFilter(), "")
    assert found[0] == "m7" and len(found) == 21 and "first" not in found
    assert reader.vectors.reloads == 1
    for store in (reader, writer):
        store.close()
