"""The embedded store's approximate vector index, forced on at a small size.

Real usearch, real SQLite: recall against exact search, the exact-score ranking contract,
filters (exact subset and over-fetch), persistence beside the database, staleness (writes by
another store or process, a pruned log, an index from another database) and concurrent use.
The whole store contract suite also runs with the index forced on (``sqlite_ann`` in conftest).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from graphmem.model import MemoryFilter
from graphmem.stores.sqlite import SQLiteStore
from graphmem.stores.sqlite.vectors import HEADROOM
from tests.helpers.memories import DIM, MODEL, exact_vector, mem, near, unit
from tests.neo4j_server import store_settings
from tests.stores.conftest import forced_ann

ROOT = Path(__file__).resolve().parents[2]
N = 1000
HALF_ROUNDING = 1e-3      # a cosine from an f16 matrix row is this close to the float32 one
ANY = MemoryFilter()


def clustered(i: int) -> np.ndarray:
    """Vectors in 30 clusters: nearest neighbours are close, as with real embeddings."""
    return near(unit(1_000_000 + i % 30), i, 0.9)


def memories(n: int = N, ns: str = "ns") -> list:
    return [mem(ns, f"m{i:05d}", embedding=clustered(i), category="even" if i % 2 == 0 else "odd")
            for i in range(n)]


def open_store(path: Path, **over) -> SQLiteStore:
    store = SQLiteStore(path, store_settings(sqlite_synchronous="NORMAL"), ann=forced_ann(**over))
    store.ensure_schema(MODEL, DIM)
    return store


def fill(store: SQLiteStore, mems: list) -> None:
    for m in mems:
        store.save_memory(m, [], [])


def recall_at(store: SQLiteStore, mems: list, flt: MemoryFilter = ANY, queries: int = 40, k: int = 10) -> float:
    hits = 0
    for q in range(queries):
        qvec = near(clustered(q * 7), 50_000 + q, 0.5)
        found = store.vector_candidates("ns", qvec, k, flt, "")
        truth = exact_vector(mems, qvec, k, flt, "")
        hits += len(set(found) & set(truth))
        scores = {m.id: float(np.dot(m.embedding, qvec)) for m in mems}
        # exact order, up to the half-precision matrix's rounding (ann_matrix_dtype, f16 by default)
        pairs = zip(found, found[1:], strict=False)
        assert all(scores[a] >= scores[b] - HALF_ROUNDING for a, b in pairs), "exact order"
        assert all(flt.matches(m, "") for m in mems if m.id in found)
    return hits / (queries * k)


def test_recall_against_exact_and_exact_order(tmp_path):
    store = open_store(tmp_path)
    mems = memories()
    fill(store, mems)
    assert recall_at(store, mems) >= 0.95
    assert store.vectors.ann_events["built"] == 1
    store.close()


def test_filters_use_exact_subset_or_overfetch(tmp_path):
    mems = memories()
    for subset_max, label in ((0, "over-fetch"), (10_000, "exact subset")):
        store = open_store(tmp_path / label, exact_subset_max=subset_max)
        fill(store, mems)
        assert recall_at(store, mems, MemoryFilter(categories=["even"])) >= 0.95, label
        even = {m.id for m in mems if m.category == "even"}
        assert store.vectors.namespaces["ns"]._approximate(unit(8), 10, even) is not None, label
        store.close()


def test_index_is_saved_and_loaded_not_rebuilt(tmp_path):
    mems = memories()
    store = open_store(tmp_path)
    fill(store, mems)
    before = store.vector_candidates("ns", unit(3), 10, ANY, "")
    store.close()
    assert list((tmp_path / "graphmem.ann").glob("*.usearch"))
    again = open_store(tmp_path)
    assert again.vector_candidates("ns", unit(3), 10, ANY, "") == before
    assert again.vectors.ann_events["loaded"] == 1
    again.close()


def test_changes_made_while_the_index_was_closed_are_replayed(tmp_path):
    mems = memories()
    store = open_store(tmp_path)
    fill(store, mems)
    store.vector_candidates("ns", unit(3), 10, ANY, "")
    store.close()
    # writes without touching the index
    plain = SQLiteStore(tmp_path, store_settings(), ann=forced_ann(threshold=10**9))
    plain.ensure_schema(MODEL, DIM)
    newcomer = mem("ns", "newcomer", embedding=unit(77))
    moved = mem("ns", mems[5].id, embedding=unit(78), category="even")
    plain.save_memory(newcomer, [], [])
    plain.save_memory(moved, [], [])
    plain.delete_memory("ns", mems[9].id)
    plain.close()
    again = open_store(tmp_path)
    assert again.vector_candidates("ns", unit(77), 1, ANY, "") == ["newcomer"]
    assert again.vector_candidates("ns", unit(78), 1, ANY, "") == [mems[5].id]
    assert mems[9].id not in again.vector_candidates("ns", mems[9].embedding, 50, ANY, "")
    assert again.vectors.ann_events["loaded"] == 1 and again.vectors.ann_events["replayed"] == 3
    again.close()


def write_past_a_short_log(path: Path) -> None:
    """30 memories (late0..late29, vectors unit(900 + i)) by a store that keeps 5 log rows and
    never loads the vectors: whatever was saved before is then older than the log."""
    writer = SQLiteStore(path, store_settings(sqlite_vector_log_keep=5), ann=forced_ann(threshold=10**9))
    writer.ensure_schema(MODEL, DIM)
    for i in range(30):
        writer.save_memory(mem("ns", f"late{i}", embedding=unit(900 + i)), [], [])
    writer.close()


def test_index_older_than_the_kept_log_is_rebuilt(tmp_path):
    mems = memories(300)
    store = open_store(tmp_path)
    fill(store, mems)
    store.vector_candidates("ns", unit(3), 10, ANY, "")
    store.close()
    write_past_a_short_log(tmp_path)
    again = open_store(tmp_path)
    assert again.vector_candidates("ns", unit(917), 1, ANY, "") == ["late17"]
    assert again.vectors.ann_events["stale"] == 1 and again.vectors.ann_events["built"] == 1
    again.close()


def test_index_from_another_database_is_not_trusted(tmp_path):
    store = open_store(tmp_path / "a")
    fill(store, memories(300))
    store.vector_candidates("ns", unit(3), 10, ANY, "")
    store.close()
    other = open_store(tmp_path / "b")
    fill(other, [mem("ns", "only", embedding=unit(5))])
    other.close()
    shutil.rmtree(tmp_path / "b" / "graphmem.ann", ignore_errors=True)
    shutil.copytree(tmp_path / "a" / "graphmem.ann", tmp_path / "b" / "graphmem.ann")
    again = open_store(tmp_path / "b")
    assert again.vector_candidates("ns", unit(3), 10, ANY, "") == ["only"]
    assert again.vectors.ann_events["built"] == 1
    again.close()


def test_other_live_store_writes_are_seen_through_the_index(tmp_path):
    """Two stores on one file behave like two processes: own connections, caches and indexes."""
    mems = memories(600)
    reader, writer = open_store(tmp_path), open_store(tmp_path)
    fill(writer, mems)
    assert recall_at(reader, mems) >= 0.95
    writer.save_memory(mem("ns", "fresh", embedding=unit(4242)), [], [])
    writer.delete_memory("ns", mems[0].id)
    assert reader.vector_candidates("ns", unit(4242), 1, ANY, "") == ["fresh"]
    assert mems[0].id not in reader.vector_candidates("ns", mems[0].embedding, 20, ANY, "")
    for store in (reader, writer):
        store.close()


def test_index_saved_by_another_process_is_loaded_and_caught_up(tmp_path):
    fill_script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from tests.stores.test_sqlite_ann import open_store, fill, memories\n"
        "from tests.helpers.memories import unit\n"
        "from graphmem.model import MemoryFilter\n"
        "s = open_store(__import__('pathlib').Path(sys.argv[2])); fill(s, memories(400))\n"
        "s.vector_candidates('ns', unit(1), 5, MemoryFilter(), ''); s.close()\n")
    subprocess.run([sys.executable, "-c", fill_script, str(ROOT), str(tmp_path)], check=True, timeout=300)
    store = open_store(tmp_path)
    store.save_memory(mem("ns", "mine", embedding=unit(31337)), [], [])
    assert store.vector_candidates("ns", unit(31337), 1, ANY, "") == ["mine"]
    assert store.vectors.ann_events["loaded"] == 1 and store.vectors.ann_events["built"] == 0
    assert recall_at(store, memories(400) + [mem("ns", "mine", embedding=unit(31337))]) >= 0.95
    store.close()


def test_concurrent_search_and_writes_keep_index_and_matrix_in_step(tmp_path):
    mems = memories(600)
    store = open_store(tmp_path)
    fill(store, mems)
    errors: list[BaseException] = []
    stop = threading.Event()

    def searcher(worker: int) -> None:
        i = 0
        while not stop.is_set():
            try:
                flt = MemoryFilter(categories=["odd"]) if worker else ANY
                found = store.vector_candidates("ns", unit(20_000 + i), 10, flt, "")
                assert len(found) == len(set(found)) == 10
            except BaseException as exc:      # noqa: BLE001 - every failure is the finding
                errors.append(exc)
            i += 1

    def writer() -> None:
        i = 0
        while not stop.is_set():
            try:
                victim = mems[i % len(mems)]
                store.delete_memory("ns", victim.id)
                store.save_memory(victim, [], [])
            except BaseException as exc:      # noqa: BLE001
                errors.append(exc)
            i += 1

    threads = [threading.Thread(target=searcher, args=(w,)) for w in range(2)] + [threading.Thread(target=writer)]
    for t in threads:
        t.start()
    time.sleep(2.0)
    stop.set()
    for t in threads:
        t.join()
    assert errors == [], errors[:3]
    vectors = store.vectors.namespaces["ns"]
    assert vectors.ann is not None and vectors.ann.keys.keys() == vectors.rows.keys()
    assert recall_at(store, mems) >= 0.95
    store.close()


def loader(path: Path, warm_after: int, keep: int = 100_000, **over) -> SQLiteStore:
    """A store that writes batches, with a threshold the load passes on the way (300)."""
    store = SQLiteStore(path, store_settings(sqlite_synchronous="NORMAL", sqlite_warm_after=warm_after,
                                             sqlite_vector_log_keep=keep), ann=forced_ann(threshold=300, **over))
    store.ensure_schema(MODEL, DIM)
    return store


def load_in_batches(store: SQLiteStore, mems: list, size: int = 100) -> None:
    for start in range(0, len(mems), size):
        store.save_batch(mems[start:start + size], [], [])


def test_a_bulk_load_keeps_the_index_in_step_and_the_next_search_replays_nothing(tmp_path):
    mems = memories(800)
    store = loader(tmp_path, warm_after=200)
    load_in_batches(store, mems)
    loaded = store.vectors.namespaces["ns"]
    assert loaded.ann is not None and loaded.ann.keys.keys() == loaded.rows.keys() == {m.id for m in mems}
    assert store.vectors.ann_events["built"] == 1           # once, as the load passed the threshold
    store.close()
    reader = open_store(tmp_path, threshold=300)
    assert recall_at(reader, mems) >= 0.95
    assert dict(reader.vectors.ann_events) == {"loaded": 1, "replayed": 0}
    reader.close()


def test_without_warming_the_first_search_after_a_load_builds_the_index(tmp_path):
    """The same load with ``warm_after`` 0: the writer never loads the namespace, so the reader builds."""
    store = loader(tmp_path, warm_after=0)
    load_in_batches(store, memories(800))
    assert "ns" not in store.vectors.namespaces
    store.close()
    reader = open_store(tmp_path, threshold=300)
    reader.vector_candidates("ns", unit(3), 10, ANY, "")
    assert reader.vectors.ann_events["built"] == 1
    reader.close()


def run_killed_loader(path: Path, body: str) -> None:
    """``body`` (a loader ``s`` on ``path`` and its loads) in a child process, which is then killed -9."""
    script = ("import os, sys, threading; sys.path.insert(0, sys.argv[1])\n"
              "from pathlib import Path\n"
              "from tests.stores.test_sqlite_ann import loader, load_in_batches, memories\n"
              f"{body}os.kill(os.getpid(), 9)\n")
    done = subprocess.run([sys.executable, "-c", script, str(ROOT), str(path)], timeout=300)
    assert done.returncode == -9


def test_a_loader_killed_mid_load_leaves_an_index_the_log_can_bring_up_to_date(tmp_path):
    """The loader saves its index every vector_log_keep / 2 changes; killed (no close), the saved
    index is at most that far behind, within the log, so the next search replays instead of rebuilding."""
    run_killed_loader(tmp_path, "s = loader(Path(sys.argv[2]), warm_after=100, keep=400)\n"
                                "load_in_batches(s, memories(1000))\n")
    reader = open_store(tmp_path, threshold=300)
    assert recall_at(reader, memories(1000)) >= 0.95
    events = reader.vectors.ann_events
    assert events["loaded"] == 1 and events["built"] == 0 and 0 < events["replayed"] <= 300
    reader.close()


def test_past_the_threshold_the_matrix_is_half_precision_and_ranks_as_float32(tmp_path):
    """ann_matrix_dtype f16: the namespace the index searches keeps a half-precision matrix, from
    the moment the index attaches; below the threshold, or with f32, the matrix stays float32.
    Its scan (what a filter the index cannot serve falls back to) ranks as a float32 scan does."""
    mems = memories(600)
    half = loader(tmp_path / "half", warm_after=100)
    kept = loader(tmp_path / "f32", warm_after=100, matrix_dtype="f32")
    for store in (half, kept):
        load_in_batches(store, mems[:200])
    assert half.vectors.namespaces["ns"].matrix.dtype == np.float32      # below the threshold (300)
    for store in (half, kept):
        load_in_batches(store, mems[200:])
    matrix = half.vectors.namespaces["ns"]
    assert matrix.ann is not None and matrix.matrix.dtype == np.float16
    assert kept.vectors.namespaces["ns"].matrix.dtype == np.float32
    for q in range(20):
        qvec = near(clustered(q * 11), 70_000 + q, 0.5)
        scanned, ids = matrix.snapshot_scores(qvec)
        exact = {m.id: float(np.dot(m.embedding, qvec)) for m in mems}
        assert scanned.dtype == np.float32
        assert max(abs(float(s) - exact[i]) for s, i in zip(scanned, ids, strict=True)) < HALF_ROUNDING
        third = mems[::3]
        found = matrix.search(qvec, 10, allowed={m.id for m in third})      # over-fetched, re-scored from f16 rows
        assert len(set(found) & set(exact_vector(third, qvec, 10, ANY, ""))) >= 9
    for store in (half, kept):
        store.close()


def test_a_namespace_past_the_threshold_is_read_into_one_half_precision_matrix(tmp_path):
    """Opened over 600 memories (threshold 300), the store sizes the matrix from the namespace's
    count before reading it, in half precision at once, with headroom: reading never grows it,
    and neither do the next writes."""
    store = loader(tmp_path, warm_after=0)
    load_in_batches(store, memories(600))
    store.close()
    reader = open_store(tmp_path, threshold=300)
    reader.vector_candidates("ns", unit(3), 10, ANY, "")
    matrix = reader.vectors.namespaces["ns"]
    assert matrix.matrix.dtype == np.float16 and matrix.matrix.shape[0] == 600 + 600 // HEADROOM
    fill(reader, memories(640)[600:])
    assert matrix.matrix.shape[0] == 600 + 600 // HEADROOM and len(matrix) == 640
    assert matrix.ann is not None and matrix.ann.keys.keys() == matrix.rows.keys()
    reader.close()
