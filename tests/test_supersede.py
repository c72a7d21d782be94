"""Supersession and validity in time on both stores through the engine: a write that supersedes,
the older memory's fields, penalty and edge; ranking below its successor; current_only and as_of;
chains; exact undo; history; bad inputs answered 4xx with nothing written; batch imports."""

from __future__ import annotations

import uuid

import pytest

from graphmem.config import load_settings
from graphmem.engine import Graphmem
from graphmem.errors import ConflictError, NotFoundError
from graphmem.model import MemoryFilter
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from tests.neo4j_server import open_store, store_settings

REDIS6 = {"id": "redis-6", "content": "The cache cluster runs Redis version 6.2 on three nodes.",
          "tags": ["redis", "cache"], "category": "config", "created_at": "2025-01-10T00:00:00Z"}
REDIS7 = {"id": "redis-7", "content": "The cache cluster runs Redis version 7.4 on three nodes.",
          "tags": ["redis", "cache"], "category": "config", "created_at": "2025-06-01T00:00:00Z",
          "supersedes": ["redis-6"], "reason": "upgraded in June"}
REDIS8 = {"id": "redis-8", "content": "The cache cluster now runs Redis version 8.0, still three nodes.",
          "tags": ["redis", "cache"], "category": "config", "created_at": "2025-11-01T00:00:00Z"}


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine(request, tmp_path, embedder):
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)
    store = SQLiteStore(tmp_path, store_settings()) if request.param == "sqlite" else open_store()
    eng = Graphmem(settings, store, embedder)
    eng.test_namespace = f"sup-{uuid.uuid4().hex[:10]}"   # type: ignore[attr-defined]
    eng.other_namespace = f"sup-o-{uuid.uuid4().hex[:10]}"   # type: ignore[attr-defined]
    yield eng
    if request.param == "neo4j":
        for ns in (eng.test_namespace, eng.other_namespace):   # type: ignore[attr-defined]
            store.drop_namespace(ns)
    eng.close()


def snapshot(eng, ns):
    """Every memory's dict and every edge: 'nothing was written' compares two of these."""
    mems = {m.id: m.to_dict() for m in eng.store.list_memories(ns, MemoryFilter(include_expired=True), 100)}
    edges = sorted((e.a, e.b, e.type, e.weight) for e in eng.store.edges_of(ns, list(mems)))
    return mems, edges


def below(hits, newer, older) -> bool:
    """``newer`` is ranked and ``older`` is not above it (absent, merged under it, or below)."""
    ids = [h["id"] for h in hits]
    return newer in ids and (older not in ids or ids.index(newer) < ids.index(older))


def test_a_write_supersedes_and_undo_restores_exactly(engine):
    ns = engine.test_namespace
    engine.add(REDIS6, ns)
    before = dump(engine.get(ns, "redis-6"))
    assert engine.add(REDIS7, ns).status == "created"
    old = engine.get(ns, "redis-6")
    assert old.superseded_by == "redis-7" and old.valid_until == "2025-06-01T00:00:00.000000Z"
    assert old.content == REDIS6["content"]                        # content and exact lookup kept
    penalty = [p for p in old.health_reasons if p.rule == "superseded"]
    assert len(penalty) == 1 and penalty[0].detail.startswith("superseded by redis-7 at ")
    assert old.health == pytest.approx(before["health"] - engine.settings.health.superseded_penalty)
    edge = [e for e in engine.store.edges_of(ns, ["redis-6"], ["SUPERSEDES"])]
    assert [(e.a, e.b, e.weight) for e in edge] == [("redis-7", "redis-6", 1.0)]
    assert edge[0].reason["reason"] == "upgraded in June" and edge[0].reason["prior"]["valid_until"] is None

    hits = dump(engine.search("which Redis version does the cache run?", ns, 5))["results"]
    assert below(hits, "redis-7", "redis-6")
    current = dump(engine.search("which Redis version does the cache run?", ns, 5,
                            MemoryFilter(current_only=True)))["results"]
    assert "redis-6" not in [h["id"] for h in current]
    then = dump(engine.search("which Redis version does the cache run?", ns, 5,
                         MemoryFilter(as_of="2025-03-01T00:00:00Z")))["results"]
    assert [h["id"] for h in then][:1] == ["redis-6"] and "redis-7" not in [h["id"] for h in then]

    out = dump(engine.unsupersede(ns, "redis-7", "redis-6"))
    assert out["memory"] == before and dump(engine.get(ns, "redis-6")) == before
    assert engine.store.edges_of(ns, ["redis-6"], ["SUPERSEDES"]) == []
    with pytest.raises(NotFoundError):
        dump(engine.unsupersede(ns, "redis-7", "redis-6"))


def test_chains_history_and_cycles(engine):
    ns = engine.test_namespace
    engine.add(REDIS6, ns)
    engine.add(REDIS7, ns)
    engine.add({**REDIS8, "supersedes": ["redis-7"], "reason": "8.0 rollout"}, ns)
    history = dump(engine.history(ns, "redis-6"))
    assert [e["memory"]["id"] for e in history["chain"]] == ["redis-6", "redis-7", "redis-8"]
    assert history["current"] == ["redis-8"]
    assert [(link["newer"], link["older"], link["reason"]) for link in history["links"]] == [
        ("redis-7", "redis-6", "upgraded in June"), ("redis-8", "redis-7", "8.0 rollout")]
    assert dump(engine.history(ns, "redis-8"))["chain"] == history["chain"]
    hits = dump(engine.search("Redis version of the cache cluster", ns, 5))["results"]
    assert below(hits, "redis-8", "redis-7") and below(hits, "redis-7", "redis-6") and hits[0]["id"] == "redis-8"

    report = engine.check([ns])                                 # a chain is a valid store (no degree cap)
    assert report["ok"], report["problems"]

    state = snapshot(engine, ns)
    with pytest.raises(ConflictError):                          # redis-6 -> redis-8 would close a cycle
        dump(engine.supersede(ns, "redis-6", ["redis-8"]))
    with pytest.raises(ConflictError):                          # already superseded by redis-7
        dump(engine.supersede(ns, "redis-8", ["redis-6"]))
    assert snapshot(engine, ns) == state


AS_OF = [  # instants as the contract normalises them (fixed width, UTC)
    ("2024-12-01T00:00:00.000000Z", []),                # before any was written
    ("2025-03-01T00:00:00.000000Z", ["redis-6"]),       # before the first supersession
    ("2025-06-01T00:00:00.000000Z", ["redis-7"]),       # that instant: valid_until is exclusive
    ("2025-08-01T00:00:00.000000Z", ["redis-7"]),
    ("2026-01-01T00:00:00.000000Z", ["redis-8"])]


def test_as_of_answers_the_state_at_each_instant(engine):
    """Search and list at past instants see the chain as it was: a fact superseded later is
    returned before its supersession and not after, and expansion brings in no memory that was
    not valid then (the chain's members are linked to each other)."""
    ns = engine.test_namespace
    engine.add(REDIS6, ns)
    engine.add(REDIS7, ns)
    engine.add({**REDIS8, "supersedes": ["redis-7"], "reason": "8.0 rollout"}, ns)
    engine.add({"id": "pg", "content": "The cache cluster sits next to the Postgres primary in the same rack.",
                "tags": ["cache"], "created_at": "2025-02-01T00:00:00Z"}, ns)
    assert engine.store.edges_of(ns, ["redis-7"], ["SUPERSEDES"])
    for when, redis in AS_OF:
        flt = MemoryFilter(as_of=when)
        hits = dump(engine.search("which Redis version does the cache cluster run?", ns, 5, flt))["results"]
        assert sorted(h["id"] for h in hits if h["id"].startswith("redis")) == redis, when
        assert ("pg" in [h["id"] for h in hits]) == (when >= "2025-02-01"), when
        listed = [m.id for m in engine.list_memories(ns, flt).memories]
        assert sorted(i for i in listed if i.startswith("redis")) == redis, when
    # the same instants with current_only: only what is still current today and was valid then
    current = MemoryFilter(as_of="2025-03-01T00:00:00.000000Z", current_only=True)
    assert [m.id for m in engine.list_memories(ns, current).memories] == ["pg"]


def test_bad_inputs_write_nothing(engine):
    ns, other = engine.test_namespace, engine.other_namespace
    engine.add(REDIS6, ns)
    engine.add({**REDIS6, "id": "elsewhere"}, other)
    state = snapshot(engine, ns)
    cases = [
        ({**REDIS7, "supersedes": ["missing"]}, NotFoundError),
        ({**REDIS7, "supersedes": ["elsewhere"]}, NotFoundError),           # another namespace's memory
        ({**REDIS7, "supersedes": ["redis-6", "missing"]}, NotFoundError),  # all or nothing
        ({**REDIS7, "supersedes": ["redis-7"]}, ConflictError),             # itself
        ({**REDIS7, "valid_from": "2025-03-01T00:00:00Z", "valid_until": "2025-02-01T00:00:00Z"}, ConflictError),
        ({**REDIS7, "created_at": "2024-01-01T00:00:00Z"}, ConflictError),  # valid before the one it replaces
    ]
    for body, error in cases:
        with pytest.raises(error):
            engine.add(body, ns)
        assert snapshot(engine, ns) == state, body
    with pytest.raises(ConflictError):
        engine.update(ns, "redis-6", {"valid_until": "2024-01-01T00:00:00Z"})
    assert snapshot(engine, ns) == state


def test_batch_supersedes_earlier_items_and_stored_memories(engine):
    ns = engine.test_namespace
    engine.add(REDIS6, ns)
    items = [{k: v for k, v in REDIS7.items()}, {**REDIS8, "supersedes": ["redis-7"]},
             {"id": "bad", "content": "Points nowhere at all, which is rejected.", "supersedes": ["nope"]}]
    results = engine.add_batch(items, ns).results
    assert [r.status for r in results] == ["created", "created", "rejected"]
    got = engine.store.get_memories(ns, ["redis-6", "redis-7", "redis-8"])
    assert (got["redis-6"].superseded_by, got["redis-7"].superseded_by, got["redis-8"].superseded_by) == (
        "redis-7", "redis-8", None)
    assert got["redis-7"].valid_until == "2025-11-01T00:00:00.000000Z"
    listed = engine.list_memories(ns, MemoryFilter(current_only=True)).memories
    assert [m.id for m in listed] == ["redis-8"]
    as_of = engine.list_memories(ns, MemoryFilter(as_of="2025-07-01T00:00:00Z")).memories
    assert [m.id for m in as_of] == ["redis-7"]


def test_an_update_keeps_the_supersession_and_rescore_too(engine):
    ns = engine.test_namespace
    engine.add(REDIS6, ns)
    engine.add(REDIS7, ns)
    engine.update(ns, "redis-6", {"content": "The cache cluster ran Redis version 6.2 on three nodes."})
    old = engine.get(ns, "redis-6")
    assert old.superseded_by == "redis-7" and any(p.rule == "superseded" for p in old.health_reasons)
    engine.rescore(ns)
    assert engine.get(ns, "redis-6").health == old.health
    assert engine.store.edges_of(ns, ["redis-6"], ["SUPERSEDES"])


def test_cli_add_supersedes_and_history(tmp_path, embedder):
    import json

    from click.testing import CliRunner

    from graphmem.cli import main

    runner = CliRunner()

    def run(*args):
        result = runner.invoke(main, ["--data-dir", str(tmp_path / "cli"), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    run("add", REDIS6["content"], "--id", "redis-6", "--tags", "redis", "--category", "config")
    run("add", REDIS7["content"], "--id", "redis-7", "--tags", "redis", "--category", "config",
        "--supersedes", "redis-6", "--reason", "upgraded in June")
    history = run("history", "redis-6")
    assert [e["memory"]["id"] for e in history["chain"]] == ["redis-6", "redis-7"]
    assert history["links"][0]["reason"] == "upgraded in June" and history["current"] == ["redis-7"]
