"""Ingest through the engine on the real SQLite store and the real embedding model."""

import math
from dataclasses import replace

import pytest

from graphmem.contract import MemoryInput
from graphmem.errors import ConflictError, EvidenceRejected, NotFoundError, ValidationError
from graphmem.ingest.validate import validate_memory
from graphmem.views import dump

DEPLOY = {"content": "Deploys of the billing service go through the blue-green pipeline in infra/",
          "tags": ["Billing", " deploy "], "category": "Skills", "source": "memory_tool"}


def test_create_normalises_and_scores(engine):
    res = engine.add(DEPLOY)
    mem = res.memory
    assert res.status == "created"
    assert mem.tags == ["billing", "deploy"] and mem.category == "skills"
    assert mem.health == 1.0 and mem.source_weight == 1.0
    assert engine.store.get_memories("default", [mem.id])[mem.id].embedding.shape == (384,)    # stored, not sent
    assert engine.get("default", mem.id).content == DEPLOY["content"]


def test_exact_duplicate_returns_existing(engine):
    first = engine.add(DEPLOY).memory
    again = engine.add({**DEPLOY, "content": "  deploys of the BILLING service go through the blue-green "
                                            "pipeline in infra/ ", "source": "cron"})
    assert again.status == "duplicate" and again.duplicate_of == first.id
    assert dump(engine.stats())["memories"] == 1


def test_idempotency_key(engine):
    a = engine.add({**DEPLOY, "id": "deploy-skill"})
    b = engine.add({**DEPLOY, "id": "deploy-skill"})
    assert a.status == "created" and b.status == "duplicate" and b.memory.id == "deploy-skill"
    with pytest.raises(ConflictError) as err:
        engine.add({**DEPLOY, "id": "deploy-skill", "content": "something else entirely about deploys"})
    assert err.value.field == "id"


def test_near_duplicate_is_stored_flagged_and_linked(engine):
    first = engine.add(DEPLOY).memory
    near = engine.add({**DEPLOY, "content": DEPLOY["content"] + " now", "source": "cron"}).memory
    assert near.near_duplicate_of == first.id
    out = dump(engine.search("how are billing deploys done", k=5))
    ids = [r["id"] for r in out["results"]]
    assert first.id in ids and near.id not in ids          # the better-sourced copy is kept
    kept = next(r for r in out["results"] if r["id"] == first.id)
    assert kept["why"]["near_duplicates_merged"] == [near.id]


@pytest.mark.parametrize("bad, field", [
    ({"content": ""}, "content"),
    ({"content": "x" * 9000}, "content"),
    ({"content": "ok content here", "tags": "notalist"}, "tags"),
    ({"content": "ok content here", "tags": ["t"] * 40}, "tags"),
    ({"content": "ok content here", "tags": ["x" * 100]}, "tags[0]"),
    ({"content": "ok content here", "metadata": {"blob": "x" * 20000}}, "metadata"),
    ({"content": "ok content here", "namespace": "bad namespace!"}, "namespace"),
    ({"content": "ok content here", "id": "has space"}, "id"),
    ({"content": "ok content here", "expires_at": "tomorrow"}, "expires_at"),
    ({"content": "ok content here", "colour": "red"}, "colour"),
])
def test_validation_names_the_field_and_writes_nothing(engine, bad, field):
    with pytest.raises(ValidationError) as err:
        engine.add(bad)
    assert err.value.field == field
    assert dump(engine.stats())["memories"] == 0


def test_evidence_gate(engine):
    source_text = "User said: I always want answers in British English, please."
    ok = engine.add({"content": "The user wants answers in British English", "extracted": True,
                     "evidence": {"source_text": source_text, "quote": "always want answers in  BRITISH English"},
                     "tags": ["preferences"], "category": "preferences"})
    assert ok.status == "created" and ok.memory.evidence is not None and ok.memory.evidence.quote
    with pytest.raises(EvidenceRejected) as err:
        engine.add({"content": "The user wants answers in French", "extracted": True,
                    "evidence": {"source_text": source_text, "quote": "answers in French"}})
    assert err.value.field == "evidence.quote"
    with pytest.raises(EvidenceRejected):
        engine.add({"content": "The user wants answers in French", "extracted": True})


def test_batch_reports_each_item(engine):
    answer = engine.add_batch([DEPLOY, {"content": ""}, DEPLOY, {"content": "Second memory about deploys"}])
    assert [r.status for r in answer.results] == ["created", "rejected", "duplicate", "created"]
    assert [r.index for r in answer.results] == [0, 1, 2, 3]
    assert answer.results[1].error is not None and answer.results[1].error.field == "content"
    assert (answer.summary.created, answer.summary.duplicate, answer.summary.rejected) == (2, 1, 1)
    with pytest.raises(ValidationError):
        engine.add_batch([DEPLOY] * 501)


def test_update_relinks_and_delete_leaves_no_edges(engine):
    a = engine.add({"content": "Billing API runs on port 8443 behind the internal load balancer",
                    "tags": ["billing", "config"], "category": "configuration"}).memory
    b = engine.add({"content": "Use the billing staging account for integration tests",
                    "tags": ["billing"], "category": "rules"}).memory
    c = engine.add({"content": "Search service caches results for five minutes",
                    "tags": ["search"], "category": "configuration"}).memory
    edges = engine.store.edges_of("default", [a.id])
    assert {e.type for e in edges} >= {"SHARES_TAG", "SAME_CATEGORY"}
    updated = engine.update("default", b.id, {"tags": ["search"], "category": "configuration"})
    assert updated.tags == ["search"]
    b_edges = engine.store.edges_of("default", [b.id])
    assert {(e.type, e.other(b.id)) for e in b_edges} >= {("SHARES_TAG", c.id), ("SAME_CATEGORY", c.id)}
    assert not [e for e in b_edges if e.type == "SHARES_TAG" and e.other(b.id) == a.id]
    engine.delete("default", a.id)
    assert engine.store.edges_of("default", [a.id]) == []
    with pytest.raises(NotFoundError):
        engine.get("default", a.id)
    with pytest.raises(NotFoundError):
        engine.delete("default", a.id)


def test_namespaces_isolate_memories_and_edges(engine):
    engine.add({**DEPLOY, "namespace": "agent-a"})
    engine.add({**DEPLOY, "namespace": "agent-b"})       # same content, other namespace: not a duplicate
    engine.add({**DEPLOY, "content": DEPLOY["content"] + " (b)", "namespace": "agent-b"})
    assert dump(engine.stats("agent-a"))["memories"] == 1 and dump(engine.stats("agent-b"))["memories"] == 2
    for ns in ("agent-a", "agent-b"):
        own = {m.id for batch in engine.store.iter_memories(ns) for m in batch}
        for e in engine.store.edges_of(ns, list(own)):
            assert e.a in own and e.b in own
        assert all(r["memory"]["namespace"] == ns for r in dump(engine.search("billing deploys", ns))["results"])


def test_stats_derives_totals_and_means_and_merges_namespaces(engine):
    """The store returns raw counts; the engine adds totals, mean degree and merges a caller's namespaces."""
    engine.add({**DEPLOY, "namespace": "agent-a"})
    engine.add({**DEPLOY, "namespace": "agent-b"})
    engine.add({**DEPLOY, "content": DEPLOY["content"] + " (b)", "namespace": "agent-b"})
    engine.add({**DEPLOY, "namespace": "agent-c"})
    b = dump(engine.stats("agent-b"))
    assert b["memories"] == 2 and b["edges"]["SHARES_TAG"] == 1
    assert b["degree"]["SHARES_TAG"] == {"max": 1, "mean": 1.0}
    both = dump(engine.stats(namespaces=["agent-b", "agent-a"]))
    assert both["memories"] == 3 and list(both["namespaces"]) == ["agent-a", "agent-b"]
    assert both["degree"]["SHARES_TAG"] == {"max": 1, "mean": round(2 / 3, 4)}
    assert sum(both["health_histogram"].values()) == 3
    assert dump(engine.stats())["memories"] == 4
    with pytest.raises(ValidationError):
        dump(engine.stats(namespaces=["bad namespace!"]))


def test_rescore_applies_changed_rules(make_engine, tmp_path):
    engine = make_engine()
    mem = engine.add({"content": "A memory with a perfectly fine length", "tags": ["t"], "category": "c"}).memory
    assert mem.health == 1.0
    strict = make_engine({"health": {"short_chars": 100}})
    assert strict.rescore() == {"memories": 1, "changed": 1, "terms_updated": 0, "topics_updated": 0,
                                "times_updated": 0, "entities_updated": 0, "edges_reweighted": 0,
                                "edges_removed": 0}
    rescored = strict.get("default", mem.id)
    assert rescored.health == 0.6 and rescored.health_reasons[0].rule == "too_short"


def test_rescore_retokenises_a_store_written_by_an_older_tokeniser(engine):
    """Before the apostrophe fix, "didn't" was stored as the term "didn": rescore re-derives the
    terms (and so the full-text index) from the content, keeping health and edges."""
    added = engine.add({"content": "The nightly export didn't reach the warehouse bucket",
                        "tags": ["export"], "category": "ops"}).memory
    mem = engine.store.get_memories("default", [added.id])[added.id]      # the stored row, with its terms
    assert "didn" not in mem.term_counts and "export" in mem.term_counts
    stale = replace(mem, term_counts={**mem.term_counts, "didn": 1})
    engine.store.save_memory(stale, [], [])
    assert engine.store.term_stats("default", ["didn"]).df == {"didn": 1}
    result = engine.rescore()
    assert result["terms_updated"] == 1 and result["changed"] == 0
    fixed = engine.store.get_memories("default", [mem.id])[mem.id]
    assert fixed.term_counts == mem.term_counts and fixed.health == mem.health
    assert engine.get("default", mem.id).health == mem.health
    assert engine.store.term_stats("default", ["didn"]).df.get("didn", 0) == 0
    assert engine.store.lexical_candidates("default", ["didn"], 10, None, "2099-01-01T00:00:00Z") == []
    assert engine.rescore()["terms_updated"] == 0          # idempotent


def test_rescore_reweighs_edges_from_current_tag_counts_and_rules(make_engine):
    """An edge made while its tag was rare is re-weighed once the tag is common; changed edge
    rules re-weigh every automatic edge, and edges that no longer qualify are removed."""
    engine = make_engine()
    topics = ["billing deploys", "search indexes", "backup rotation", "auth tokens", "email queues",
              "metrics retention", "feature flags", "cache warmup"]
    ids = [engine.add({"content": f"Notes on {t} for the platform team, revision {i}", "tags": ["ops"],
                       "category": f"c{i}"}).memory.id for i, t in enumerate(topics)]
    shares = engine.store.edges_of("default", ids, types=["SHARES_TAG"])
    assert len({e.weight for e in shares}) > 1, "weights were fixed at link time, when 'ops' was rarer"
    result = engine.rescore()
    assert result["memories"] == 8 and result["edges_reweighted"] > 0 and result["edges_removed"] == 0
    after = engine.store.edges_of("default", ids, types=["SHARES_TAG"])
    assert {e.key for e in after} == {e.key for e in shares}
    assert len({e.weight for e in after}) == 1 and {e.reason["rarity"] for e in after} == {
        round(1 / (1 + math.log10(8)), 4)}
    assert engine.rescore()["edges_reweighted"] == 0          # idempotent

    overlaps = engine.store.edges_of("default", ids, types=["OVERLAPS"])
    assert overlaps, "the fixture shares 'notes platform team revision'"
    half = make_engine({"edges": {"shares_tag_weight": 0.5, "min_shared_terms": 50}})
    result = half.rescore()
    assert result["edges_removed"] == len(overlaps) and result["edges_reweighted"] == len(after)
    assert half.store.edges_of("default", ids, types=["OVERLAPS"]) == []
    halved = {e.weight for e in half.store.edges_of("default", ids, types=["SHARES_TAG"])}
    assert len(halved) == 1 and halved.pop() == pytest.approx(after[0].weight / 2, abs=2e-6)


def test_relation_with_evidence(engine):
    a = engine.add({"content": "Billing service deploy skill", "tags": ["billing"]}).memory
    b = engine.add({"content": "Payments freeze during quarter close", "tags": ["finance"]}).memory
    edge = engine.relate("default", a.id, b.id, {"source_text": "Note: billing deploys pause at quarter close.",
                                                 "quote": "billing deploys pause"}, label="blocked_by")
    assert edge.type == "RELATED" and edge.reason["label"] == "blocked_by"
    assert {edge.source, edge.target} == {a.id, b.id}         # stored in the edges' canonical order
    assert [n["type"] for n in dump(engine.neighbors("default", a.id))["neighbors"]] == ["RELATED"]
    with pytest.raises(EvidenceRejected):
        engine.relate("default", a.id, b.id, {"source_text": "nothing here", "quote": "billing"})


def test_explicit_relations_are_degree_bounded(make_engine):
    engine = make_engine({"edges": {"max_degree_related": 1}})
    ids = [engine.add({"content": f"Memory number {i} about the release train", "tags": [f"t{i}"]}).memory.id
           for i in range(3)]
    evidence = {"source_text": "release train notes", "quote": "release train"}
    engine.relate("default", ids[0], ids[1], evidence)
    engine.relate("default", ids[0], ids[1], evidence)          # the same pair again is fine
    with pytest.raises(ConflictError) as err:
        engine.relate("default", ids[0], ids[2], evidence)
    assert err.value.field == "from_id"


def test_update_keeps_shares_tag_weights_exact(engine):
    """Re-linking on update counts the memory's own tags once: its SHARES_TAG
    weights equal what rescore derives from the current tag counts, and stay put on repeated updates."""
    ids = [engine.add({"content": f"Storage volume {name} is snapshotted nightly by the backup job",
                       "tags": ["storage"]}).memory.id for name in ("alpha", "beta", "gamma")]
    for round_ in range(2):
        engine.update("default", ids[2], {"content": f"Storage volume gamma is snapshotted hourly (v{round_})"})
        mine = {e.key: e.weight for e in engine.store.edges_of("default", [ids[2]], types=["SHARES_TAG"])}
        assert len(mine) == 2
        engine.rescore()
        after = {e.key: e.weight for e in engine.store.edges_of("default", [ids[2]], types=["SHARES_TAG"])}
        assert after == pytest.approx(mine, abs=1e-9), "update linked with a drifted tag count"


def test_lexical_link_candidates_hold_most_rare_terms_then_newest(make_engine):
    """OVERLAPS candidates are the memories holding the most of a memory's rarest terms, ties
    newest first, cut at ``edges.candidates_lexical``; no tag or category makes other candidates."""
    engine = make_engine({"edges": {"candidates_lexical": 2, "min_shared_terms": 1}})
    seed = [("old-both", "zircon quokka", "2024-01-01"), ("one-a", "zircon pelican", "2024-02-01"),
            ("one-b", "quokka walrus", "2024-03-01"), ("newest-one", "zircon heron", "2024-04-01")]
    for key, text, day in seed:
        engine.add({"id": key, "content": text, "created_at": f"{day}T00:00:00.000000Z"})
    new = engine.add({"id": "probe", "content": "zircon quokka probe"}).memory
    linked = {e.other(new.id) for e in engine.store.edges_of("default", [new.id], types=["OVERLAPS"])}
    assert linked == {"old-both", "newest-one"}      # two terms beat one; then the newest of one term


def test_validate_memory_returns_the_contract_model_normalised(engine):
    limits = engine.settings.limits
    inp = validate_memory({"content": "  Backups run nightly  ", "tags": [" Ops ", "ops", "NIGHTLY"],
                           "category": " Runbooks ", "source": " cron ", "reason": " checked ", "thread": " t1 ",
                           "supersedes": ["a", "b", "a"]}, limits, "work")
    assert isinstance(inp, MemoryInput)
    assert (inp.content, inp.tags, inp.category, inp.source, inp.reason, inp.thread, inp.supersedes) == (
        "Backups run nightly", ["ops", "nightly"], "runbooks", "cron", "checked", "t1", ["a", "b"])
    assert inp.namespace == "work"
    bare = validate_memory({"content": "plain", "namespace": "home"}, limits, "work")
    assert bare.namespace == "home" and bare.tags is None and bare.source is None and bare.metadata is None


def test_fields_not_given_are_stored_with_their_defaults(engine):
    mem = engine.add({"content": "A memory with nothing but content"}).memory
    stored = engine.get("default", mem.id)
    assert (stored.tags, stored.source, stored.metadata, stored.category, stored.evidence) == (
        [], "unknown", {}, None, None)


def test_an_update_keeps_the_checked_evidence(engine):
    source_text = "User said: the staging database restarts every Sunday at 02:00."
    mem = engine.add({"content": "Staging database restarts on Sundays", "extracted": True,
                      "evidence": {"source_text": source_text, "quote": "restarts every Sunday"}}).memory
    assert mem.evidence is not None
    assert mem.evidence.model_dump() == {"source_text": source_text, "quote": "restarts every Sunday"}
    engine.update("default", mem.id, {"tags": ["Staging"]})
    after = engine.get("default", mem.id)
    assert after.tags == ["staging"] and after.evidence == mem.evidence


def test_a_tag_normalised_longer_than_the_limit_is_stored(engine):
    """The limit bounds what was sent; NFKC may lengthen it (one ligature is 18 letters)."""
    tag = "\ufdfa" * engine.settings.limits.max_tag_chars
    mem = engine.add({"content": "A tag of ligatures", "tags": [tag]}).memory
    assert len(mem.tags[0]) > engine.settings.limits.max_tag_chars
