"""Threads on both stores through the engine: FOLLOWS chains kept on append, middle insert and
delete; context windows rebuilt only where they span the change; window recall's ``why``; a
memory outside any thread untouched; ``check`` verifies and repairs; both stores agree."""

from __future__ import annotations

import uuid

import pytest

from graphmem.config import load_settings
from graphmem.contract.responses import SearchResponse
from graphmem.engine import Graphmem
from graphmem.errors import ValidationError
from graphmem.model import Edge, window_namespace
from graphmem.stores.sqlite import SQLiteStore
from graphmem.views import dump
from tests.neo4j_server import open_store, store_settings

TURNS = ["Alice: I started pottery classes last week.", "Bob: Nice! Where are they?",
         "Alice: At the community center downtown.", "Bob: Do you like it so far?",
         "Alice: Yes, I made a bowl already."]


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine(request, tmp_path, embedder):
    settings = load_settings(overrides={"store": {"data_dir": str(tmp_path)}}, use_env=False)
    store = SQLiteStore(tmp_path, store_settings()) if request.param == "sqlite" else open_store()
    eng = Graphmem(settings, store, embedder)
    eng.test_namespace = f"thr-{uuid.uuid4().hex[:10]}"   # type: ignore[attr-defined]
    yield eng
    if request.param == "neo4j":
        for ns in (eng.test_namespace, window_namespace(eng.test_namespace)):   # type: ignore[attr-defined]
            store.drop_namespace(ns)
    eng.close()


def chain(eng, ns, ids):
    return sorted((e.a, e.b) for e in eng.store.edges_of(ns, ids, ["FOLLOWS"]))


def windows(eng, ns, ids):
    return {i: m.metadata["turns"] for i, m in eng.store.get_memories(window_namespace(ns), ids).items()}


def add_thread(eng, ns):
    items = [{"id": f"t{i}", "content": c, "thread": "s1", "seq": i * 10} for i, c in enumerate(TURNS)]
    assert [r.status for r in eng.add_batch(items, ns).results] == ["created"] * 5
    return [f"t{i}" for i in range(5)]


def test_follows_and_windows_on_append_middle_insert_and_delete(engine):
    ns = engine.test_namespace
    ids = add_thread(engine, ns)
    assert chain(engine, ns, ids) == [("t0", "t1"), ("t1", "t2"), ("t2", "t3"), ("t3", "t4")]
    assert windows(engine, ns, ids)["t2"] == ["t0", "t1", "t2", "t3", "t4"]
    assert windows(engine, ns, ids)["t0"] == ["t0", "t1", "t2"]
    edge = next(e for e in engine.store.edges_of(ns, ["t0"], ["FOLLOWS"]))
    assert (edge.weight, edge.reason) == (1.0, {"thread": "s1", "from": "t0", "to": "t1"})

    before = {i: m.updated_at for i, m in engine.store.get_memories(window_namespace(ns), ids).items()}
    engine.add({"id": "mid", "content": "Alice: The teacher is really patient.", "thread": "s1", "seq": 25}, ns)
    ids.append("mid")
    assert chain(engine, ns, ids) == [("mid", "t3"), ("t0", "t1"), ("t1", "t2"), ("t2", "mid"), ("t3", "t4")]
    got = windows(engine, ns, ids)
    assert got["mid"] == ["t1", "t2", "mid", "t3", "t4"]
    assert got["t1"] == ["t0", "t1", "t2", "mid"] and got["t4"] == ["mid", "t3", "t4"]
    after = {i: m.updated_at for i, m in engine.store.get_memories(window_namespace(ns), ids).items()}
    assert after["t0"] == before["t0"], "a window that does not span the new turn is not rewritten"

    engine.delete(ns, "mid")
    ids.remove("mid")
    assert chain(engine, ns, ids) == [("t0", "t1"), ("t1", "t2"), ("t2", "t3"), ("t3", "t4")]
    assert windows(engine, ns, ids)["t2"] == ["t0", "t1", "t2", "t3", "t4"]
    assert "mid" not in engine.store.get_memories(window_namespace(ns), ["mid"])
    assert engine.check([ns])["ok"]
    assert engine.store.namespaces() == [ns] or window_namespace(ns) not in engine.store.namespaces()


def test_one_turn_at_a_time_chains_and_deleting_an_end_keeps_the_rest(engine):
    ns = engine.test_namespace
    for i, content in enumerate(TURNS[:3]):          # each append has stored turns on one side only
        engine.add({"id": f"t{i}", "content": content, "thread": "s1", "seq": i}, ns)
    ids = ["t0", "t1", "t2"]
    assert chain(engine, ns, ids) == [("t0", "t1"), ("t1", "t2")]
    engine.delete(ns, "t2")
    assert chain(engine, ns, ids) == [("t0", "t1")]
    assert windows(engine, ns, ["t0", "t1"])["t1"] == ["t0", "t1"]
    assert engine.check([ns])["ok"]


def test_window_recall_says_which_key_matched(engine):
    ns = engine.test_namespace
    add_thread(engine, ns)
    engine.add({"id": "solo", "content": "The deploy script lives in ops/deploy.sh.", "tags": ["ops"]}, ns)
    out = dump(engine.search("Where does Alice take pottery classes?", ns, k=5))
    top = {r["id"]: r for r in out["results"]}
    assert "t2" in top, out["results"]
    direct = top["t2"]["why"]["direct"]
    assert "window" in direct["keys"] and direct["window"]["turns"] == ["t0", "t1", "t2", "t3", "t4"]
    solo = dump(engine.search("deploy script location", ns, k=3))["results"][0]
    assert solo["id"] == "solo" and "window" not in solo["why"]["direct"]
    off = dump(engine.search("Where does Alice take pottery classes?", ns, k=5, stages={"context": False}))
    assert all("window" not in r["why"].get("direct", {}) for r in off["results"])


def test_update_keeps_the_chain_and_thread_is_fixed(engine):
    ns = engine.test_namespace
    ids = add_thread(engine, ns)
    engine.update(ns, "t2", {"content": "Alice: At the arts center by the river.", "tags": ["place"]})
    assert chain(engine, ns, ids) == [("t0", "t1"), ("t1", "t2"), ("t2", "t3"), ("t3", "t4")]
    assert "arts center" in engine.store.get_memories(window_namespace(ns), ["t1"])["t1"].content
    assert engine.store.get_memories(window_namespace(ns), ["t2"])["t2"].tags == ["place"]
    with pytest.raises(ValidationError):
        engine.update(ns, "t2", {"thread": "other"})
    assert engine.check([ns])["ok"]


def test_check_finds_and_repairs_a_broken_chain_and_window(engine):
    ns = engine.test_namespace
    add_thread(engine, ns)
    engine.store.write_edges([], [Edge(ns, "t1", "t2", "FOLLOWS", 0.0, {})])
    engine.store.delete_memory(window_namespace(ns), "t3")
    found = engine.check([ns], repair=True)
    assert {p["kind"] for p in found["problems"]} == {"follows_chain", "context_windows"}
    assert all(p["repaired"] for p in found["problems"])
    assert engine.check([ns])["ok"]


def test_memories_without_a_thread_get_no_window_or_follows(engine):
    ns = engine.test_namespace
    engine.add_batch([{"id": "a", "content": "Redis runs on port 6379 in staging."},
                      {"id": "b", "content": "Postgres runs on port 5432 in staging."}], ns)
    assert engine.store.edges_of(ns, ["a", "b"], ["FOLLOWS"]) == []
    assert engine.store.get_memories(window_namespace(ns), ["a", "b"]) == {}
    stats = dump(engine.stats(ns))
    assert stats["edges"]["FOLLOWS"] == 0 and list(stats["namespaces"]) == [ns]


def test_feedback_round_is_off_by_default_and_reported_when_on(engine):
    ns = engine.test_namespace
    add_thread(engine, ns)
    engine.add_batch([{"id": "s2a", "content": "Alice: The pottery teacher showed us the kiln.",
                       "thread": "s2", "seq": 0},
                      {"id": "s2b", "content": "Bob: Does the kiln get hot?", "thread": "s2", "seq": 1}], ns)
    query = "What did Alice make in her pottery class?"
    plain = dump(engine.search(query, ns, k=7, trace=True))
    off = dump(engine.search(query, ns, k=7, trace=True, stages={"feedback": False}))
    assert [r["id"] for r in plain["results"]] == [r["id"] for r in off["results"]]
    assert all("feedback" not in r["why"]["direct"] for r in plain["results"])
    on = dump(engine.search(query, ns, k=7, trace=True, stages={"feedback": True},
                       params={"feedback_seeds": 2, "feedback_terms": 3, "feedback_weight": 0.5}))
    SearchResponse.model_validate(on)
    row = next(r for r in on["trace"]["stages"] if r["stage"] == "recall")
    assert row["feedback"]["seeds"] == 2 and row["feedback"]["found"] > 0
    assert 0 < row["feedback"]["ms"] <= row["ms"], row           # the second round is timed inside recall
    assert all(t not in query.lower() for t in row["feedback"]["terms"])
    assert any("feedback" in r["why"]["direct"] for r in on["results"])
    assert {r["id"] for r in on["results"]} == {r["id"] for r in plain["results"]}   # 7 turns, k = 7
    with pytest.raises(ValidationError):
        dump(engine.search(query, ns, params={"feedback_weight": 2.0}))


def test_expansion_threaded_rule_keeps_windowed_seeds_in_bounds(engine):
    ns = engine.test_namespace
    add_thread(engine, ns)
    query = "Where does Alice take pottery classes?"
    seen = {}
    for mode in ("all", "outside_window", "off"):
        out = dump(engine.search(query, ns, k=5, trace=True, params={"expansion_threaded": mode}))
        SearchResponse.model_validate(out)
        row = next(r for r in out["trace"]["stages"] if r["stage"] == "expansion")
        paths = [(p["seed"], r["id"]) for r in out["results"] for p in r["why"].get("related", [])]
        seen[mode] = (row.get("threaded_edges_skipped"), paths)
    skipped_all, paths_all = seen["all"]
    assert skipped_all is None and any(a == "t2" for a, _ in paths_all)     # FOLLOWS: t2 reaches t1 / t3
    skipped_out, paths_out = seen["outside_window"]
    assert skipped_out > 0 and not paths_out          # 5 turns: every turn is in every seed's window here
    skipped_off, paths_off = seen["off"]
    assert skipped_off >= skipped_out and not paths_off
    with pytest.raises(ValidationError):
        dump(engine.search(query, ns, params={"expansion_threaded": "sometimes"}))


def test_window_key_recalled_beside_the_memory_key_gives_the_same_answers(engine):
    """With overlap workers the window key's recall runs beside the memory key's (and the query
    embeds beside the router): only the wall time changes, on both stores."""
    from graphmem.retrieval.overlap import Overlap

    ns = engine.test_namespace
    add_thread(engine, ns)
    engine.add({"id": "solo", "content": "Alice keeps her pottery tools in the garage.", "tags": ["ops"]}, ns)
    queries = ["Where does Alice take pottery classes?", "what did she make", "pottery bowl garage"]

    def answers():
        return [[(r["id"], r["score"], r["why"]) for r in dump(engine.search(q, ns, k=5))["results"]]
                for q in queries]

    engine.pipeline.overlap = Overlap(2)
    overlapped = answers()
    engine.pipeline.overlap = Overlap(0)
    in_turn = answers()
    assert overlapped == in_turn and any("window" in r[2].get("direct", {}) for r in overlapped[0])


def memory_key_rrf(direct: dict, k: int) -> float:
    """The memory key's reciprocal-rank fusion from the ranks ``why.direct`` reports."""
    return sum((k + 1) / (2 * (k + direct[arm]["rank"])) for arm in ("vector", "lexical") if arm in direct)


def test_a_search_over_threads_fuses_the_memory_key_by_threaded_fusion(engine):
    ns = engine.test_namespace
    add_thread(engine, ns)
    engine.add({"id": "solo", "content": "Alice keeps the pottery studio keys in the blue box."}, ns)
    cfg = engine.settings.recipe("default")
    query = "Where does Alice take pottery classes?"
    out = dump(engine.search(query, ns, k=6, trace=True))
    recall_row = next(s for s in out["trace"]["stages"] if s["stage"] == "recall")
    assert recall_row["memory_fusion"] == cfg.threaded_fusion == "rrf"
    for result in out["results"]:
        direct = result["why"].get("direct")
        if not direct:
            continue
        own = memory_key_rrf(direct, cfg.rrf_k)
        if "window" in direct:       # a thread member: both keys, mixed by context_weight
            own = (1 - cfg.context_weight) * own + cfg.context_weight * direct["window"]["fused"]
        assert direct["fused"] == pytest.approx(own, abs=2e-6), result["id"]
    # the same memories without threads: the memory key keeps `fusion`, whatever threaded_fusion says
    plain = f"{ns}-plain"
    engine.add_batch([{"id": f"p{i}", "content": c} for i, c in enumerate(TURNS)], plain)
    runs = [dump(engine.search(query, plain, k=5, trace=True, params={"threaded_fusion": rule}))
            for rule in ("rrf", "weighted")]
    assert [[(r["id"], r["score"]) for r in run["results"]] for run in runs] == \
        [[(r["id"], r["score"]) for r in runs[0]["results"]]] * 2
    assert all("memory_fusion" not in s for s in runs[0]["trace"]["stages"])
    if isinstance(engine.store, SQLiteStore):
        return
    for name in (plain, window_namespace(plain)):
        engine.store.drop_namespace(name)
