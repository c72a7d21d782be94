"""``graphmem check`` finds each kind of damage and ``--repair`` fixes what is derivable (both stores);
a JSONL dump restored into a fresh store of either kind gives identical stats, edges and top-10
rankings (the migration path); the embedded store's online backup opens as a complete copy."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from tests.helpers.engines import FIXTURES, QUERIES, all_edges, load, neo4j_engine

AGENT = FIXTURES / "e2e_agent.jsonl"


def kinds(report) -> set[str]:
    return {p["kind"] for p in report["problems"]}


def seeded(engine, namespace: str):
    load(engine, namespace, AGENT)
    ids = sorted(m.id for batch in engine.store.iter_memories(namespace) for m in batch)
    text = engine.get(namespace, ids[1]).content
    engine.relate(namespace, ids[0], ids[1], {"source_text": text, "quote": text[:20]}, label="see-also")
    return ids


def fingerprint(engine, namespace):
    rankings = [[r["id"] for r in dump(engine.search(q, namespace, k=10))["results"]] for q in QUERIES]
    return engine.stats(namespace).model_dump(exclude={"server"}), all_edges(engine, namespace), rankings


def lose_index_entry(store: SQLiteStore, namespace: str, memory_id: str) -> None:
    """Damage the derived full-text index behind the store's back (a real tantivy writer): the
    memory's document goes, and a phantom document for a row that does not exist appears."""
    import tantivy

    from graphmem.stores.sqlite.lexical import LexicalIndex, key_of

    assert store.lexical is not None
    store.lexical.catch_up(block=True)
    writer = store.lexical.index.writer(15_000_000, 1)
    writer.delete_documents_by_term("key", key_of(namespace, memory_id))
    LexicalIndex._add_rows(writer, [(10**9, namespace, "phantom", "2001-01-01T00:00:00Z", '{"phantom": 1}')])
    writer.commit()
    writer.wait_merging_threads()
    store.lexical.index.reload()
    assert isinstance(store.lexical.index, tantivy.Index)


def test_check_finds_and_repairs_sqlite_damage(engine):
    ids = seeded(engine, "default")
    assert engine.check()["ok"], engine.check()
    db = engine.store.db
    lose_index_entry(engine.store, "default", ids[2])
    db.execute("UPDATE term_df SET df = df + 3 WHERE term IN (SELECT term FROM term_df LIMIT 2)")
    db.execute("UPDATE label_counts SET n = n + 1 WHERE kind = 'tag'")
    db.execute("DELETE FROM memory_tags WHERE memory_id = ?", (ids[3],))
    db.execute("INSERT INTO edges VALUES ('default', ?, 'zz-gone', 'OVERLAPS', 0.5, '{}')", (ids[4],))
    db.execute("UPDATE namespace_stats SET n_docs = n_docs + 1")
    engine.store.vectors.remove("default", ids[5])          # a matrix row lost in memory
    damaged = engine.check()
    assert not damaged["ok"]
    assert {"lexical_index", "fulltext_index", "term_df", "tag_counts", "label_counts", "memory_tags",
            "dangling_edges", "namespace_stats", "vector_index", "vector_rows"} <= kinds(damaged), damaged
    repaired = engine.check(repair=True)
    assert all(p["repaired"] for p in repaired["problems"]), repaired
    assert engine.check() == {**engine.check(), "ok": True, "problems": []}


@pytest.mark.neo4j
def test_check_finds_and_repairs_neo4j_counts(tmp_path, embedder):
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)
    neo = neo4j_engine(settings, embedder)
    ns = f"check-{uuid.uuid4().hex[:10]}"
    try:
        seeded(neo, ns)
        assert neo.check([ns])["ok"]
        with neo.store._driver.session(database=neo.store.database) as session:
            session.run("MATCH (d:TermDF {namespace: $ns}) WITH d LIMIT 3 SET d.df = d.df + 2", ns=ns).consume()
            session.run("MATCH (c:CategoryCount {namespace: $ns}) SET c.n = c.n + 1", ns=ns).consume()
            session.run("MATCH (s:NamespaceStats {namespace: $ns}) SET s.total_length = 0", ns=ns).consume()
            session.run("MATCH (:Memory {namespace: $ns})-[r:TAGGED]->() WITH r LIMIT 1 DELETE r", ns=ns).consume()
        assert {"term_df", "category_counts", "namespace_stats", "tag_counts"} <= kinds(neo.check([ns]))
        assert all(p["repaired"] for p in neo.check([ns], repair=True)["problems"])
        assert neo.check([ns])["ok"]
    finally:
        neo.store.drop_namespace(ns)
        neo.close()


@pytest.mark.neo4j
def test_dump_restore_round_trip_and_migration(tmp_path, embedder, make_engine):
    source = make_engine(subdir="source")
    ns = f"rt-{uuid.uuid4().hex[:10]}"
    seeded(source, ns)
    expected = fingerprint(source, ns)
    dumped = io.StringIO()
    assert source.dump(dumped) == {"memories": expected[0]["memories"], "edges": len(expected[1][1])}
    text = dumped.getvalue()

    copy = make_engine(subdir="copy")
    copy.restore(io.StringIO(text))
    assert fingerprint(copy, ns) == expected
    assert copy.check()["ok"]

    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path / "n")}}, use_env=False)
    neo = neo4j_engine(settings, embedder)
    try:
        neo.restore(io.StringIO(text))                       # SQLite -> Neo4j: the migration path
        assert fingerprint(neo, ns) == expected
        assert neo.check([ns])["ok"]
        again = io.StringIO()
        neo.dump(again, [ns])
        strip = [json.loads(line) for line in text.splitlines()[1:]]
        assert [json.loads(line) for line in again.getvalue().splitlines()[1:]] == strip
        with pytest.raises(Exception, match="not empty"):
            neo.restore(io.StringIO(text))
    finally:
        neo.store.drop_namespace(ns)
        neo.close()


def test_cli_online_backup_dump_restore_and_check(tmp_path, engine):
    seeded(engine, "default")
    data_dir = engine.settings.store.data_dir
    runner = CliRunner()

    def run(*args, code=0):
        result = runner.invoke(main, ["--data-dir", str(args[0]), *args[1:]], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result.stdout

    run(data_dir, "backup", "--format", "sqlite", "-o", str(tmp_path / "snap" / "graphmem.sqlite"))
    run(data_dir, "backup", "-o", str(tmp_path / "dump.jsonl"))
    snapshot = Graphmem(engine.settings, SQLiteStore(tmp_path / "snap", engine.settings.store), engine.embedder)
    try:
        assert fingerprint(snapshot, "default") == fingerprint(engine, "default")
    finally:
        snapshot.close()
    run(tmp_path / "restored", "restore", str(tmp_path / "dump.jsonl"))
    assert json.loads(run(tmp_path / "restored", "check"))["ok"]
    run(tmp_path / "restored", "restore", str(tmp_path / "dump.jsonl"), code=1)      # not empty: refused
    engine.store.db.execute("UPDATE label_counts SET n = n + 5")
    assert not json.loads(run(data_dir, "check", code=1))["ok"]
    run(data_dir, "check", "--repair")
    assert json.loads(run(data_dir, "check"))["ok"]
