"""The embedded store's lexical index (tantivy, derived from SQLite) stays exact.

After every lifecycle step (add, content update, delete, expiry, supersession, namespaces, thread
windows, rescore, reindex, dump/restore, online backup) the engine's hits for every term equal a
brute-force scan of the SQLite rows, and ``verify`` finds no document differing from its row;
with the index committing after each change and with changes left pending (merged at lookup).
A real process killed with SIGKILL mid-write leaves an index that catches up at the next open,
and a real process holding the index's writer does not hide any write from a reader.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphmem.model import MemoryFilter, window_namespace
from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.memories import DIM, MODEL, mem
from tests.neo4j_server import store_settings

ROOT = Path(__file__).resolve().parents[2]


def row_terms(store: SQLiteStore, ns: str) -> dict[str, set[str]]:
    """Brute force: each term of the namespace's rows and the ids holding it, from SQLite."""
    out: dict[str, set[str]] = {}
    for mid, counts in store.db.execute("SELECT id, term_counts_json FROM memories WHERE namespace = ?", (ns,)):
        for term in json.loads(counts):
            out.setdefault(term, set()).add(mid)
    return out


def assert_exact(store: SQLiteStore, namespaces: list[str], gone_terms: tuple[str, ...] = ()) -> None:
    assert store.lexical is not None
    for ns in namespaces:
        assert store.lexical.verify(store.db, ns) == [], ns
        expected = row_terms(store, ns)
        for term in sorted(set(expected) | set(gone_terms)):
            found = store.lexical_candidates(ns, [term], 10_000, None, "")
            assert len(found) == len(set(found)) and set(found) == expected.get(term, set()), (ns, term)
        holders = store.term_holders(ns, sorted(expected), 3)
        for term, ids in expected.items():
            newest = sorted(store.db.execute(
                f"SELECT created_at, id FROM memories WHERE namespace = ? AND id IN ({','.join('?' * len(ids))})",
                [ns, *ids]).fetchall(), reverse=True)[:3]
            assert holders[term] == [tuple(r) for r in newest], (ns, term)


@pytest.fixture(params=[1, 10_000], ids=["commit-each", "pending"])
def lexical_engine(request, make_engine):
    """An engine whose index commits after every change, or keeps them pending (merged at lookup)."""
    eng = make_engine()
    eng.store.lexical.commit_every = request.param
    return eng


def test_lifecycle_keeps_the_index_exact(lexical_engine, tmp_path, make_engine):
    eng, ns = lexical_engine, "default"
    store = eng.store
    eng.add_batch([{"id": f"m{i}", "content": f"Walrus note {i}: the lighthouse logs fog number {i}"}
                   for i in range(6)])
    eng.add({"id": "o1", "content": "The other tenant's walrus counts seals"}, namespace="other")
    assert_exact(store, [ns, "other"])
    eng.update(ns, "m1", {"content": "Completely rewritten about kelp forests"})
    assert_exact(store, [ns], gone_terms=("walrus",))
    assert "m1" not in store.lexical_candidates(ns, ["lighthouse"], 100, None, "")
    eng.delete(ns, "m2")
    assert_exact(store, [ns, "other"])
    eng.add({"id": "old", "content": "The ferry leaves at nine from pier four"})
    eng.add({"id": "new", "content": "The ferry leaves at ten from pier four now"})
    eng.supersede(ns, "new", ["old"])
    assert_exact(store, [ns])
    current = store.lexical_candidates(ns, ["ferry"], 10, MemoryFilter(current_only=True), "2100-01-01T00:00:00Z")
    assert current == ["new"]
    eng.add_batch([{"id": f"t{i}", "content": f"Turn {i} of the chat about the harbour crane", "thread": "s1",
                    "seq": i} for i in range(4)])
    assert_exact(store, [ns, window_namespace(ns)])
    eng.delete(ns, "t1")                                    # its window rows change in the same write
    assert_exact(store, [ns, window_namespace(ns)])
    eng.rescore()
    eng.reindex(force=True)
    assert_exact(store, [ns, "other", window_namespace(ns)])
    dump = io.StringIO()
    eng.dump(dump)
    copy = make_engine(subdir="restored")
    copy.restore(io.StringIO(dump.getvalue()))
    assert_exact(copy.store, [ns, "other", window_namespace(ns)])
    assert row_terms(copy.store, ns) == row_terms(store, ns)


def test_expired_rows_stay_indexed_and_filtered(tmp_path):
    store = SQLiteStore(tmp_path, store_settings())
    store.ensure_schema(MODEL, DIM)
    expired = mem("ns", "gone", text="tide table expired", expires_at="2001-01-01T00:00:00.000000Z")
    store.save_memory(expired, [], [])
    store.save_memory(mem("ns", "kept", text="tide table current"), [], [])
    assert_exact(store, ["ns"])
    now = "2020-01-01T00:00:00.000000Z"
    assert store.lexical_candidates("ns", ["tide"], 10, MemoryFilter(), now) == ["kept"]
    assert sorted(store.lexical_candidates("ns", ["tide"], 10, MemoryFilter(include_expired=True), now)) == \
        ["gone", "kept"]


def test_online_backup_and_a_restored_older_copy_rebuild_the_index(tmp_path):
    data = tmp_path / "data"
    store = SQLiteStore(data, store_settings())
    store.ensure_schema(MODEL, DIM)
    store.save_batch([mem("ns", f"a{i}", text=f"alpha beta {i}") for i in range(5)], [], [])
    store.backup_file(tmp_path / "backup.sqlite")
    store.save_batch([mem("ns", f"b{i}", text=f"alpha gamma {i}") for i in range(5)], [], [])
    store.delete_memory("ns", "a0")
    store.lexical.catch_up(block=True)
    store.close()
    fresh = tmp_path / "fresh"                               # the backup opened in a new data dir
    fresh.mkdir()
    shutil.copy(tmp_path / "backup.sqlite", fresh / "graphmem.sqlite")
    copy = SQLiteStore(fresh, store_settings())
    copy.ensure_schema(MODEL, DIM)
    assert_exact(copy, ["ns"], gone_terms=("gamma",))
    # The older copy put back over the data dir whose index is ahead of it: rebuilt, no phantom.
    shutil.copy(tmp_path / "backup.sqlite", data / "graphmem.sqlite")
    for suffix in ("-wal", "-shm"):
        Path(f"{data / 'graphmem.sqlite'}{suffix}").unlink(missing_ok=True)
    restored = SQLiteStore(data, store_settings())
    restored.ensure_schema(MODEL, DIM)
    assert_exact(restored, ["ns"], gone_terms=("gamma",))
    assert sorted(restored.lexical_candidates("ns", ["alpha"], 10, None, "")) == [f"a{i}" for i in range(5)]


WRITER = """
import sys, time
from graphmem.stores.sqlite import SQLiteStore
from tests.neo4j_server import store_settings
from tests.helpers.memories import DIM, MODEL
from tests.helpers.memories import mem
store = SQLiteStore(sys.argv[1], store_settings(sqlite_lexical_commit_every=int(sys.argv[2]),
                                                sqlite_synchronous="NORMAL"))
store.ensure_schema(MODEL, DIM)
start = int(sys.argv[3])
print("ready", flush=True)
for i in range(start, start + 100000):
    store.save_batch([mem("ns", f"w{i}-{k}", t=i, text=f"word{i % 7} other{k} common") for k in range(5)], [], [])
    if i % 3 == 0:
        store.delete_memory("ns", f"w{i - 1}-0")
"""


@pytest.mark.parametrize("commit_every", [1, 16])
def test_sigkill_mid_write_leaves_an_index_that_catches_up_at_open(tmp_path, commit_every):
    data = tmp_path / "data"
    for round_ in range(5):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(data), str(commit_every), str(round_ * 10000)],
                                 cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(0.3 + 0.3 * round_)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    store = SQLiteStore(data, store_settings(sqlite_lexical_commit_every=commit_every))
    store.ensure_schema(MODEL, DIM)
    assert store.db.execute("SELECT count(*) FROM memories").fetchone()[0] > 0
    assert_exact(store, ["ns"])


HOLDER = """
import sys, tantivy
from graphmem.stores.sqlite.lexical import SCHEMA
index = tantivy.Index(SCHEMA, path=sys.argv[1], reuse=True)
writer = index.writer(15_000_000, 1)
print("holding", flush=True)
sys.stdin.readline()
"""


def test_a_writer_held_by_another_process_hides_no_write(tmp_path):
    store = SQLiteStore(tmp_path, store_settings(sqlite_lexical_commit_every=1, write_wait=1.0))
    store.ensure_schema(MODEL, DIM)
    store.save_batch([mem("ns", f"a{i}", text=f"harbour crane {i}") for i in range(3)], [], [])
    assert store.lexical is not None
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "graphmem.lexical")], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        applied = store.lexical.applied(store.lexical.index.searcher())[0]
        store.save_memory(mem("ns", "b", text="harbour crane moved"), [], [])
        store.save_memory(mem("ns", "a1", text="rewritten entirely"), [], [])
        store.delete_memory("ns", "a2")
        assert store.lexical.applied(store.lexical.index.searcher())[0] == applied     # could not commit
        assert sorted(store.lexical_candidates("ns", ["harbour"], 10, None, "")) == ["a0", "b"]
        assert store.lexical_candidates("ns", ["rewritten"], 10, None, "") == ["a1"]
        assert store.term_holders("ns", ["crane"], 10)["crane"] == [(mem("ns", "x").created_at, "b"),
                                                                   (mem("ns", "x").created_at, "a0")]
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
    assert sorted(store.lexical_candidates("ns", ["harbour"], 10, None, "")) == ["a0", "b"]
    assert store.lexical.applied(store.lexical.index.searcher())[0] > applied             # caught up at lookup
    assert_exact(store, ["ns"], gone_terms=("harbour",))


def test_index_files_are_owner_only(tmp_path):
    old = os.umask(0o022)
    try:
        store = SQLiteStore(tmp_path / "data", store_settings())
        store.ensure_schema(MODEL, DIM)
        store.save_batch([mem("ns", f"a{i}", text=f"alpha {i}") for i in range(3)], [], [])
        store.lexical.catch_up(block=True, rebuild=True)
    finally:
        os.umask(old)
    directory = tmp_path / "data" / "graphmem.lexical"
    assert os.stat(directory).st_mode & 0o777 == 0o700
    files = [p for p in directory.iterdir() if p.is_file()]
    assert files and all(os.stat(p).st_mode & 0o077 == 0 for p in files), [oct(os.stat(p).st_mode) for p in files]


def test_an_unreadable_index_is_rebuilt_at_open(tmp_path):
    store = SQLiteStore(tmp_path, store_settings())
    store.ensure_schema(MODEL, DIM)
    store.save_batch([mem("ns", f"a{i}", text=f"alpha {i}") for i in range(3)], [], [])
    store.close()
    (tmp_path / "graphmem.lexical" / "meta.json").write_text("{not json")
    reopened = SQLiteStore(tmp_path, store_settings())
    reopened.ensure_schema(MODEL, DIM)
    assert_exact(reopened, ["ns"])


def test_threads_writing_and_reading_one_store(tmp_path):
    """One store's index shared by a writing thread and reading threads: no error, every write
    found at the end, the index exact (catch-ups of one process run one at a time)."""
    import threading

    store = SQLiteStore(tmp_path, store_settings(sqlite_lexical_commit_every=3))
    store.ensure_schema(MODEL, DIM)
    errors: list[str] = []

    def run(work) -> None:
        try:
            work()
        except Exception as exc:        # noqa: BLE001 - collected and asserted below
            errors.append(repr(exc))

    def write() -> None:
        for i in range(40):
            store.save_memory(mem("ns", f"w{i}", t=i, text=f"harbour crane {i}"), [], [])

    def read() -> None:
        for _ in range(100):
            store.lexical_candidates("ns", ["harbour"], 10, None, "")
            store.term_holders("ns", ["crane"], 5)

    threads = [threading.Thread(target=run, args=(w,)) for w in (write, read, read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.lexical_candidates("ns", ["harbour"], 100, None, "")) == 40
    assert_exact(store, ["ns"])


def test_a_loosened_index_file_is_owner_only_again_after_check(tmp_path):
    """The store keeps its index files 0600 at each catch-up (check catches up first), and the
    check's file-mode finding covers the index directory too."""
    store = SQLiteStore(tmp_path, store_settings())
    store.ensure_schema(MODEL, DIM)
    store.save_batch([mem("ns", "a", text="alpha")], [], [])
    loose = tmp_path / "graphmem.lexical" / "meta.json"         # tantivy rewrites it, never removes it
    os.chmod(loose, 0o644)
    assert not [f for f in store.integrity("ns") if f[0] == "file_modes"]
    assert os.stat(loose).st_mode & 0o077 == 0
