"""The vector matrix saved beside the approximate index (``stores/sqlite/matrix_file.py``).

Real SQLite, real usearch, real files and a real kill -9: a new store reads the saved matrix
instead of the table, replays what was written meanwhile (new, moved, deleted and expired
memories), ignores a damaged, foreign or too-old file (reading the table, then saving a good
one), and ``check`` compares a saved matrix with the rows it stands for, ``--repair`` mending it.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from graphmem.config import load_settings
from graphmem.ops.check import check_namespace
from graphmem.stores.sqlite import SQLiteStore, matrix_file
from graphmem.stores.sqlite.ann import index_base
from tests.helpers.memories import DIM, MODEL, mem, unit
from tests.neo4j_server import store_settings
from tests.stores.conftest import forced_ann
from tests.stores.test_sqlite_ann import (
    ANY,
    clustered,
    fill,
    loader,
    memories,
    open_store,
    run_killed_loader,
    write_past_a_short_log,
)

PAST = "2000-01-01T00:00:00.000000Z"


def saved_path(path: Path, ns: str = "ns") -> Path:
    return matrix_file.path_of(index_base(path / "graphmem.ann", ns))


def table_rows(store: SQLiteStore, ns: str = "ns") -> dict[str, np.ndarray]:
    return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in store.db.execute(
        "SELECT id, embedding FROM memories WHERE namespace = ? AND embedding IS NOT NULL", (ns,))}


def same_as_table(store: SQLiteStore, ns: str = "ns") -> bool:
    ids, rows, _ = store.vectors.namespaces[ns].copy_rows()
    stored = table_rows(store, ns)
    return (sorted(ids) == sorted(stored)
            and all(np.abs(rows[k].astype(np.float32) - stored[i]).max() < 1e-3 for k, i in enumerate(ids)))


def never_reads_the_table(store: SQLiteStore) -> None:
    def refuse(namespace: str):
        raise AssertionError(f"read {namespace}'s vectors from the table")
    store._load_vectors = refuse        # type: ignore[method-assign]


def loaded_store(path: Path, n: int = 400) -> list:
    mems = memories(n)
    store = open_store(path)
    fill(store, mems)
    store.vector_candidates("ns", unit(3), 10, ANY, "")
    store.close()
    return mems


def test_a_new_store_reads_the_saved_matrix_not_the_table(tmp_path):
    loaded_store(tmp_path)
    first = open_store(tmp_path)
    expected = first.vector_candidates("ns", unit(3), 10, ANY, "")
    ids, rows, columns = first.vectors.namespaces["ns"].copy_rows()
    first.close()
    assert saved_path(tmp_path).exists()
    again = open_store(tmp_path)
    never_reads_the_table(again)
    assert again.vector_candidates("ns", unit(3), 10, ANY, "") == expected
    assert dict(again.vectors.matrix_events) == {"loaded": 1, "replayed": 0}
    held = again.vectors.namespaces["ns"].copy_rows()
    assert held[0] == ids and np.array_equal(held[1], rows) and rows.dtype == np.float16
    assert all(np.array_equal(a, b) for a, b in zip(held[2], columns, strict=True))
    assert again.integrity("ns") == []
    again.close()


def test_writes_made_meanwhile_are_replayed_into_the_saved_matrix(tmp_path):
    mems = loaded_store(tmp_path)
    plain = SQLiteStore(tmp_path, store_settings(), ann=forced_ann(threshold=10**9))    # never touches the files
    plain.ensure_schema(MODEL, DIM)
    plain.save_memory(mem("ns", "newcomer", embedding=unit(77)), [], [])
    plain.save_memory(mem("ns", mems[5].id, embedding=unit(78)), [], [])
    plain.save_memory(mem("ns", mems[7].id, embedding=clustered(7), expires_at=PAST), [], [])
    plain.delete_memory("ns", mems[9].id)
    plain.close()
    again = open_store(tmp_path)
    never_reads_the_table(again)
    assert again.vector_candidates("ns", unit(77), 1, ANY, "") == ["newcomer"]
    assert again.vector_candidates("ns", unit(78), 1, ANY, "") == [mems[5].id]
    assert mems[9].id not in again.vector_candidates("ns", mems[9].embedding, 50, ANY, "")
    assert mems[7].id not in again.vector_candidates("ns", clustered(7), 50, ANY, "2026-01-01T00:00:00Z")
    assert again.vectors.matrix_events["loaded"] == 1 and again.vectors.matrix_events["replayed"] == 4
    assert same_as_table(again) and again.integrity("ns") == []
    again.close()


def damage_rows(path: Path) -> None:
    """Flip bytes in the middle of the saved rows (the zip's CRC no longer matches)."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("matrix.npy")
    data = bytearray(path.read_bytes())
    middle = info.header_offset + 200 + info.compress_size // 2
    data[middle:middle + 8] = bytes(8)
    path.write_bytes(bytes(data))


def resaved(data_dir: Path, change: Callable[[dict[str, np.ndarray]], None]) -> dict[str, np.ndarray]:
    """The saved matrix's parts, changed by ``change`` and saved again as a well-formed file."""
    with np.load(saved_path(data_dir)) as z:
        parts = {k: z[k] for k in z.files}
    change(parts)
    matrix_file.save(index_base(data_dir / "graphmem.ann", "ns"), str(parts["source"]), int(parts["seq"]),
                     parts["ids"].tolist(), parts["matrix"],
                     (parts["start"], parts["until"], parts["expires"], parts["superseded"]))
    return parts


@pytest.mark.parametrize("damage", ["truncated", "flipped", "foreign", "garbage", "short column"])
def test_a_damaged_or_foreign_saved_matrix_is_not_used_and_is_saved_anew(tmp_path, damage):
    loaded_store(tmp_path / "a")
    path = saved_path(tmp_path / "a")
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "flipped":
        damage_rows(path)
    elif damage == "garbage":
        path.write_bytes(b"not a zip at all")
    elif damage == "short column":
        resaved(tmp_path / "a", lambda parts: parts.update(start=parts["start"][:-1]))
    else:                   # another database's matrix and index, same namespace
        loaded_store(tmp_path / "b", 350)
        shutil.rmtree(tmp_path / "a" / "graphmem.ann")
        shutil.copytree(tmp_path / "b" / "graphmem.ann", tmp_path / "a" / "graphmem.ann")
    again = open_store(tmp_path / "a")
    assert again.vector_candidates("ns", unit(3), 10, ANY, "")
    assert again.vectors.matrix_events["loaded"] == 0 and same_as_table(again)
    again.close()
    healed = open_store(tmp_path / "a")
    never_reads_the_table(healed)
    healed.vector_candidates("ns", unit(3), 10, ANY, "")
    assert healed.vectors.matrix_events["loaded"] == 1 and same_as_table(healed)
    healed.close()


def test_a_saved_matrix_older_than_the_kept_log_is_not_used(tmp_path):
    loaded_store(tmp_path, 300)
    write_past_a_short_log(tmp_path)
    again = open_store(tmp_path)
    assert again.vector_candidates("ns", unit(917), 1, ANY, "") == ["late17"]
    assert again.vectors.matrix_events["stale"] == 1 and same_as_table(again)
    again.close()


def test_check_finds_a_saved_matrix_that_differs_from_its_rows_and_repair_mends_it(tmp_path):
    loaded_store(tmp_path)
    parts = resaved(tmp_path, lambda parts: parts["matrix"].__setitem__(11, -parts["matrix"][11]))
    wrong = str(parts["ids"][11])                   # a well-formed file that is wrong about one row
    store = open_store(tmp_path)
    findings = {kind: ids for kind, _detail, ids in store.integrity("ns")}
    assert findings == {"vector_values": [wrong]}
    problems = check_namespace(store, "ns", load_settings(use_env=False).edges, recall_depth=20, repair=True)
    assert {p.kind for p in problems} <= {"vector_values", "vector_index"} and all(p.repaired for p in problems)
    assert [p.ids for p in problems if p.kind == "vector_values"] == [[wrong]]
    assert store.integrity("ns") == []
    store.close()
    again = open_store(tmp_path)
    never_reads_the_table(again)
    assert again.integrity("ns") == [] and again.vectors.matrix_events["loaded"] == 1
    again.close()


def test_a_loader_killed_while_saving_leaves_files_the_next_store_can_use(tmp_path):
    """kill -9 at once after a batch, while the loader may be writing its index and matrix (it saves
    both every vector_log_keep / 2 changes): the next store reads a good saved matrix or the table,
    never half of a save."""
    run_killed_loader(tmp_path, "s = loader(Path(sys.argv[2]), warm_after=100, keep=200)\n"
                                "mems = memories(900)\n"
                                "load_in_batches(s, mems[:800])\n"
                                "threading.Timer(0.05, lambda: os.kill(os.getpid(), 9)).start()\n"
                                "load_in_batches(s, mems[800:], size=20)\n")
    assert saved_path(tmp_path).exists()
    reader = open_store(tmp_path, threshold=300)
    reader.vector_candidates("ns", unit(3), 10, ANY, "")
    assert same_as_table(reader) and reader.integrity("ns") == []
    stored = table_rows(reader)
    for memory_id in sorted(stored)[::37]:
        assert reader.vector_candidates("ns", stored[memory_id], 1, ANY, "") == [memory_id]
    reader.close()


def test_a_bulk_load_leaves_a_matrix_the_next_store_reads(tmp_path):
    store = loader(tmp_path, warm_after=200)
    for start in range(0, 800, 100):
        store.save_batch(memories(800)[start:start + 100], [], [])
    store.close()
    reader = open_store(tmp_path, threshold=300)
    never_reads_the_table(reader)
    reader.vector_candidates("ns", unit(3), 10, ANY, "")
    assert dict(reader.vectors.matrix_events) == {"loaded": 1, "replayed": 0} and same_as_table(reader)
    reader.close()


def test_a_matrix_that_cannot_be_saved_leaves_the_search_working(tmp_path):
    """A write that fails (here a directory where the temporary file goes; a full disk alike) is
    logged and counted; the search answers and the next store reads the table."""
    mems = memories(300)
    store = open_store(tmp_path)
    fill(store, mems)
    final = saved_path(tmp_path)
    final.with_name(f"{final.name}.tmp{os.getpid()}").mkdir(parents=True)
    assert store.vector_candidates("ns", mems[4].embedding, 1, ANY, "") == [mems[4].id]
    assert store.vectors.matrix_events["save_failed"] == 1 and not final.exists()
    store.close()
    again = open_store(tmp_path)
    assert again.vector_candidates("ns", mems[4].embedding, 1, ANY, "") == [mems[4].id]
    assert again.vectors.matrix_events["loaded"] == 0 and same_as_table(again)
    again.close()


def test_a_saved_matrix_whose_every_row_was_deleted_meanwhile_is_still_read(tmp_path):
    mems = loaded_store(tmp_path, 300)
    plain = SQLiteStore(tmp_path, store_settings(), ann=forced_ann(threshold=10**9))
    plain.ensure_schema(MODEL, DIM)
    for m in mems:
        plain.delete_memory("ns", m.id)
    plain.close()
    again = open_store(tmp_path)
    never_reads_the_table(again)
    assert again.vector_candidates("ns", mems[0].embedding, 5, ANY, "") == []
    assert again.vectors.matrix_events["loaded"] == 1 and again.vectors.matrix_events["replayed"] == 300
    again.close()
