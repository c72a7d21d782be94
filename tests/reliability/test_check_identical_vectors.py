"""``graphmem check`` is right about a store whose memories share one vector: a long message of
repeated text imports as many identical parts, whose vectors tie, so any order among them is a
right answer to a lookup by one of them. Check must call such a store intact (both stores)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.ingest.chat import import_chat
from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.engines import neo4j_engine

PART_CHARS = 400          # limits.max_content_chars: a 16,000-character message becomes 40 parts,
PARTS = 40                # twice check_recall_depth (20) of one vector


def repeated_message(tmp_path: Path) -> Path:
    path = tmp_path / "repeated.txt"
    path.write_text("Ana: " + "x" * (PART_CHARS - 6) * PARTS + "\nBo: Thanks, that was the whole log.\n")
    return path


def settings_for(tmp_path: Path):
    return load_settings(overrides={"store": {"data_dir": str(tmp_path / "store")},
                                    "limits": {"max_content_chars": PART_CHARS}}, use_env=False)


def import_and_check(engine: Graphmem, tmp_path: Path, namespace: str) -> dict:
    summary = import_chat(engine, repeated_message(tmp_path), "transcript", namespace=namespace,
                          batch_size=10)
    assert summary["created"] > engine.settings.store.check_recall_depth + 10 and summary["rejected"] == 0
    parts = [m for batch in engine.store.iter_memories(namespace) for m in batch if m.content.startswith("Ana:")]
    assert len({m.embedding.tobytes() for m in parts[:-1]}) == 1, "the parts share one vector"
    return engine.check([namespace])


def test_identical_vectors_are_not_reported_as_missing_sqlite(tmp_path, embedder):
    settings = settings_for(tmp_path)
    engine = Graphmem(settings, SQLiteStore(tmp_path / "store", settings.store), embedder)
    try:
        report = import_and_check(engine, tmp_path, "default")
        assert report["ok"], report["problems"]
    finally:
        engine.close()


@pytest.mark.neo4j
def test_identical_vectors_are_not_reported_as_missing_neo4j(tmp_path, embedder):
    engine = neo4j_engine(settings_for(tmp_path), embedder)
    namespace = f"twins-{uuid.uuid4().hex[:10]}"
    try:
        report = import_and_check(engine, tmp_path, namespace)
        assert report["ok"], report["problems"]
    finally:
        engine.store.drop_namespace(namespace)
        engine.close()
