"""An embedded store written by an earlier graphmem opens with the current schema: maintained
label counts are backfilled once, the superseded hash index is replaced, and the FTS5 table gives
way to the lexical engine's index."""

from __future__ import annotations

import shutil
import sqlite3

from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.memories import DIM, MODEL, mem
from tests.neo4j_server import store_settings


def test_old_store_gets_label_counts_and_new_hash_index(tmp_path):
    store = SQLiteStore(tmp_path, store_settings())
    store.ensure_schema(MODEL, DIM)
    for i, tags in enumerate([["x", "y"], ["x"], ["x", "z"], []]):
        store.save_memory(mem("ns", f"m{i}", tags=tags, category="k" if i < 3 else None), [], [])
    store.save_memory(mem("other", "o1", tags=["x"], category="k"), [], [])
    expected = (store.tag_counts("ns", ["x", "y", "z", "w"]), store.category_counts("ns", ["k", "none"]))
    assert expected == ({"x": 3, "y": 1, "z": 1, "w": 0}, {"k": 3, "none": 0})
    store.close()

    # Make it look like a store from before label_counts / memories_hash_created.
    db = sqlite3.connect(tmp_path / "graphmem.sqlite")
    db.executescript("DELETE FROM label_counts; DELETE FROM meta WHERE key = 'label_counts'; "
                     "DROP INDEX memories_hash_created; "
                     "CREATE INDEX memories_hash ON memories (namespace, content_hash);")
    db.close()

    reopened = SQLiteStore(tmp_path, store_settings())
    reopened.ensure_schema(MODEL, DIM)
    counts = (reopened.tag_counts("ns", ["x", "y", "z", "w"]), reopened.category_counts("ns", ["k", "none"]))
    assert counts == expected
    assert reopened.tag_counts("other", ["x"]) == {"x": 1}
    indexes = {r[0] for r in reopened.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "memories_hash_created" in indexes and "memories_hash" not in indexes
    # Counts stay in step afterwards, and a second open does not count again.
    reopened.delete_memory("ns", "m0")
    reopened.close()
    again = SQLiteStore(tmp_path, store_settings())
    again.ensure_schema(MODEL, DIM)
    assert again.tag_counts("ns", ["x", "y"]) == {"x": 2, "y": 0}
    assert again.db.execute("SELECT count(*) FROM meta WHERE key = 'label_counts'").fetchone()[0] == 1


def test_a_store_written_with_fts5_moves_to_the_lexical_engine_at_open(tmp_path):
    """A store from before the lexical engine (rows in the FTS5 table ``memory_fts``, no index
    directory): the open builds the index from its rows and drops the FTS5 table."""
    store = SQLiteStore(tmp_path, store_settings())
    store.ensure_schema(MODEL, DIM)
    store.save_memory(mem("ns", "a", text="deploy the billing service"), [], [])
    store.save_memory(mem("ns", "b", text="billing alerts"), [], [])
    store.save_memory(mem("other", "c", text="billing in the other tenant"), [], [])
    expected = store.lexical_candidates("ns", ["billing", "deploy"], 10, None, "")
    store.close()

    # Make it look like a store of the FTS5 era: its table and meta key, no index beside it.
    shutil.rmtree(tmp_path / "graphmem.lexical")
    db = sqlite3.connect(tmp_path / "graphmem.sqlite")
    db.executescript("DELETE FROM meta WHERE key = 'lexical_source'; "
                     "INSERT INTO meta VALUES ('fts_namespace', '1'); "
                     "CREATE VIRTUAL TABLE memory_fts USING fts5 (terms, namespace); "
                     "INSERT INTO memory_fts (rowid, terms, namespace) "
                     "SELECT rowid, content, namespace FROM memories;")
    db.close()

    reopened = SQLiteStore(tmp_path, store_settings())
    reopened.ensure_schema(MODEL, DIM)
    tables = {r[0] for r in reopened.db.execute("SELECT name FROM sqlite_master")}
    assert not any(t.startswith("memory_fts") for t in tables), tables
    assert reopened.lexical is not None and reopened.lexical.verify(reopened.db, "ns") == []
    assert reopened.lexical_candidates("ns", ["billing", "deploy"], 10, None, "") == expected == ["a", "b"]
    assert reopened.lexical_candidates("other", ["billing"], 10, None, "") == ["c"]
    reopened.save_memory(mem("other", "d", text="billing again"), [], [])
    assert sorted(reopened.lexical_candidates("other", ["billing"], 10, None, "")) == ["c", "d"]


def test_old_store_without_topics_opens_and_rescore_derives_them(tmp_path, embedder):
    """A store from before extracted topics (no ``topics_json`` column) gains the column at open;
    ``graphmem rescore`` then derives each memory's topics, indexes them and links by them."""
    from graphmem.config import load_settings
    from graphmem.engine import Graphmem
    from graphmem.model import topic_label

    def engine(topics: bool) -> Graphmem:
        settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}, "topics": {"enabled": topics},
                                            "edges": {"topic_tag_weight": 1.0, "min_shared_terms": 50}},
                                 use_env=False)
        return Graphmem(settings, SQLiteStore(tmp_path, settings.store), embedder)

    old = engine(False)
    ids = [old.add({"content": text, "tags": [f"session:{i}"]}).memory.id for i, text in enumerate(
        ["Melanie took a pottery class with her kids.", "The pottery workshop was relaxing.",
         "Caroline researched adoption agencies."])]
    assert old.get("default", ids[0]).topics == [] and not old.store.edges_of("default", ids)
    old.close()
    db = sqlite3.connect(tmp_path / "graphmem.sqlite")
    db.execute("ALTER TABLE memories DROP COLUMN topics_json")
    db.commit()
    db.close()

    new = engine(True)
    assert new.get("default", ids[0]).topics == []           # opened: the column is back, empty
    result = new.rescore()
    assert result["topics_updated"] == 3
    got = new.get("default", ids[0])
    assert {"topic": "pottery", "quote": "pottery"} in [t.model_dump() for t in got.topics]
    assert got.tags == ["session:0"]
    assert new.store.tag_counts("default", [topic_label("pottery")]) == {topic_label("pottery"): 2}
    edges = new.store.edges_of("default", [ids[0]])
    assert [(e.type, e.other(ids[0]), e.reason.get("topics")) for e in edges] == [
        ("SHARES_TAG", ids[1], ["pottery"])]
    assert new.rescore()["topics_updated"] == 0              # idempotent
    new.close()
