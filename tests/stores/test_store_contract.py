"""The MemoryStore contract, run on every store (``ctx`` is parametrised: sqlite, neo4j).

Expected values are computed here from the written data (brute force with
``MemoryFilter.matches`` and exact float32 cosine), never from another store, so each
store is checked on its own; ``test_same_writes_same_outputs`` then compares the two.
"""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.errors import StoreConfigError, ValidationError
from graphmem.model import EDGE_TYPES, HealthPenalty, Memory, MemoryFilter
from graphmem.stores.base import MemoryStore
from tests.helpers.memories import (
    DIM,
    FILTERS,
    MODEL,
    NOW,
    as_dict,
    exact_vector,
    link,
    mem,
    recall_corpus,
    save,
    ts,
    unit,
)

pytestmark = pytest.mark.heavy       # minutes long: the parallel run starts it first


# -- builders ------------------------------------------------------------------------------
def full_memory(ns: str, id_: str = "full") -> Memory:
    return Memory(
        id=id_, namespace=ns, content='Deploy üñí config to prod\nwith "quotes" \\ and tabs\t',
        content_hash="sha-1",
        tags=["deploy", "prod env", "ünïcode"], category="ops", source="agent:planner", reason="user said so",
        metadata={"k": [1, 2.5, None, True], "nested": {"ü": "x"}, "a": "z-last"},
        created_at=ts(10), updated_at=ts(20), valid_until=ts(1000), expires_at=ts(2000), embedding=unit(7),
        health=0.625, health_reasons=[HealthPenalty("stale", 0.25, "older than 90 days"),
                                      HealthPenalty("conflict", 0.125, "contradicts x")],
        source_weight=0.75, term_counts={"deploy": 2, "config": 1, "prod": 1, "x.yaml": 3},
        near_duplicate_of="other-id", evidence={"quote": "deploy to prod", "span": [0, 14]})


def test_thread_context_has_a_row_per_key_even_at_a_threads_ends(ctx):
    ns = ctx.ns
    turns = [mem(ns, f"c{i}", t=i, thread="s", seq=i) for i in range(3)]
    save(ctx.store, *turns)
    keys = [(m.thread, m.thread_pos) for m in turns] + [("s", turns[2].thread_pos + "~"), ("none", "0")]
    assert ctx.store.thread_context(ns, keys, 2, 2) == [
        ([], ["c1", "c2"]), (["c0"], ["c2"]), (["c1", "c0"], []), (["c2", "c1"], []), ([], [])]


# -- lifecycle -------------------------------------------------------------------------------
def test_protocol_and_kind(ctx):
    assert isinstance(ctx.store, MemoryStore)
    assert ctx.store.kind == ctx.kind
    assert ctx.store.ping() is True


def test_maintenance_calls_are_in_the_contract(ctx, tmp_path):
    """check and backup use only contract calls: a healthy store has no integrity findings, a
    recount changes no count, and a file backup is either a readable copy or a clear refusal."""
    ctx.store.save_memory(mem(ctx.ns, "a", tags=["x"]), [], [])
    assert ctx.store.integrity(ctx.ns) == []
    before = ctx.store.stats(ctx.ns)
    ctx.store.recount(ctx.ns)
    assert ctx.store.stats(ctx.ns) == before
    if ctx.kind == "sqlite":
        copy = ctx.store.backup_file(tmp_path / "copy.sqlite")
        import sqlite3
        with sqlite3.connect(copy) as db:
            assert db.execute("SELECT count(*) FROM memories WHERE namespace = ?", (ctx.ns,)).fetchone() == (1,)
    else:
        with pytest.raises(ValidationError, match="JSONL dump"):
            ctx.store.backup_file(tmp_path / "copy.sqlite")
        assert not (tmp_path / "copy.sqlite").exists()


def test_ensure_schema_is_idempotent(ctx):
    ctx.store.ensure_schema(MODEL, DIM)
    save(ctx.store, mem(ctx.ns, "a"))
    assert list(ctx.store.get_memories(ctx.ns, ["a"])) == ["a"]


def test_another_model_of_the_same_dimension_is_refused_naming_reindex(ctx):
    with pytest.raises(StoreConfigError) as err:
        ctx.store.ensure_schema("another-model-same-dim", DIM)
    assert "graphmem reindex" in err.value.message and repr(MODEL) in err.value.message
    ctx.store.ensure_schema("another-model-same-dim", DIM, reindexing=True)   # the reindex command may open it
    assert ctx.store.model_record() == {"model_id": MODEL, "dimension": DIM, "reindex": None}


def test_dimension_mismatch_names_both_models(ctx):
    stored = ctx.store.schema_info()["model_id"] if ctx.kind == "neo4j" else MODEL
    with pytest.raises(StoreConfigError) as err:
        ctx.store.ensure_schema("other-model", 8)
    assert "other-model" in err.value.message and repr(stored) in err.value.message
    assert "384" in err.value.message and "8 dimensions" in err.value.message
    assert err.value.field == "model"
    ctx.store.ensure_schema(MODEL, DIM)  # still usable with the right model


# -- memories --------------------------------------------------------------------------------
def test_roundtrip_every_field(ctx):
    full = full_memory(ctx.ns)
    bare = Memory(id="bare", namespace=ctx.ns, content="x", content_hash="h", created_at=ts(1), updated_at=ts(1))
    save(ctx.store, full, bare)
    got = ctx.store.get_memories(ctx.ns, ["full", "bare"])
    for original in (full, bare):
        back = got[original.id]
        assert as_dict(back) == as_dict(original)
        assert back.health_reasons == original.health_reasons and back.evidence == original.evidence
        assert back.doc_length == original.doc_length
    assert got["full"].embedding.dtype == np.float32
    assert np.array_equal(got["full"].embedding, full.embedding)
    assert got["bare"].embedding is None and got["bare"].evidence is None and got["bare"].tags == []


def test_get_memories_ignores_missing_duplicates_and_other_namespaces(ctx):
    other = ctx.new_ns()
    save(ctx.store, mem(ctx.ns, "a"), mem(ctx.ns, "b"), mem(other, "c"))
    got = ctx.store.get_memories(ctx.ns, ["a", "a", "missing", "c", "b"])
    assert sorted(got) == ["a", "b"]
    assert ctx.store.get_memories(ctx.ns, []) == {}


def test_find_by_hash_returns_oldest(ctx):
    save(ctx.store, mem(ctx.ns, "late", t=5, content_hash="same"), mem(ctx.ns, "b-tie", t=1, content_hash="same"),
         mem(ctx.ns, "a-tie", t=1, content_hash="same"), mem(ctx.ns, "x", t=0, content_hash="other"))
    assert ctx.store.find_by_hash(ctx.ns, "same").id == "a-tie"
    assert ctx.store.find_by_hash(ctx.ns, "nope") is None
    assert ctx.store.find_by_hash(ctx.new_ns(), "same") is None


def test_update_keeps_id_and_moves_tags(ctx):
    ns = ctx.ns
    a = mem(ns, "a", t=1, tags=["old", "kept"], category="c1", text="alpha beta beta")
    save(ctx.store, a, mem(ns, "b", t=2, tags=["kept"]), mem(ns, "c", t=3),
         edges=[link(ns, "a", "b"), link(ns, "a", "c", "SHARES_TAG", 0.9)])
    updated = mem(ns, "a", t=1, tags=["kept", "new"], category="c2", text="gamma beta", content="changed")
    ctx.store.save_memory(updated, [], [])  # no replace_edges: edges stay
    assert len(ctx.store.edges_of(ns, ["a"])) == 2
    got = ctx.store.get_memories(ns, ["a"])["a"]
    assert (got.content, got.tags, got.category, got.term_counts) == ("changed", ["kept", "new"], "c2",
                                                                     {"gamma": 1, "beta": 1})
    assert ctx.store.tag_members(ns, "old", 10) == []
    assert ctx.store.tag_members(ns, "new", 10) == ["a"]
    assert ctx.store.tag_members(ns, "kept", 10) == ["b", "a"]
    assert ctx.store.tag_counts(ns, ["old", "kept", "new"]) == {"old": 0, "kept": 2, "new": 1}
    assert ctx.store.category_members(ns, "c1", 10) == [] and ctx.store.category_members(ns, "c2", 10) == ["a"]
    stats = ctx.store.term_stats(ns, ["alpha", "beta", "gamma"])
    assert stats.df == {"beta": 1, "gamma": 1} and stats.n_docs == 3
    assert stats.total_length == 2 + 2 + 2
    assert ctx.store.lexical_candidates(ns, ["alpha"], 10, None, NOW) == []
    assert ctx.store.lexical_candidates(ns, ["gamma"], 10, None, NOW) == ["a"]
    # replace_edges drops every old edge of "a", then the new ones are added
    ctx.store.save_memory(updated, [link(ns, "a", "c", "RELATED", 0.4)], [], replace_edges=True)
    assert [(e.a, e.b, e.type) for e in ctx.store.edges_of(ns, ["a"])] == [("a", "c", "RELATED")]
    assert len(ctx.store.get_memories(ns, ["a", "b", "c"])) == 3


def test_delete_removes_memory_edges_tags_and_term_stats(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", tags=["t"], text="alpha beta"), mem(ns, "b", tags=["t"], text="alpha"),
         edges=[link(ns, "a", "b"), link(ns, "a", "b", "SHARES_TAG", 0.8)])
    assert ctx.store.delete_memory(ns, "a") is True
    assert ctx.store.delete_memory(ns, "a") is False
    assert ctx.store.get_memories(ns, ["a"]) == {}
    assert ctx.store.edges_of(ns, ["a", "b"]) == []
    assert ctx.store.neighbors(ns, ["b"], 5, 0, list(EDGE_TYPES)) == []
    assert ctx.store.tag_members(ns, "t", 10) == ["b"] and ctx.store.tag_counts(ns, ["t"]) == {"t": 1}
    assert ctx.store.term_stats(ns, ["alpha", "beta"]).df == {"alpha": 1}
    assert (ctx.store.term_stats(ns, []).n_docs, ctx.store.term_stats(ns, []).total_length) == (1, 1)
    assert ctx.store.lexical_candidates(ns, ["beta", "alpha"], 10, None, NOW) == ["b"]
    assert ctx.store.vector_candidates(ns, unit(1), 10, MemoryFilter(), NOW) == ["b"]
    assert ctx.store.stats(ns).edges == dict.fromkeys(EDGE_TYPES, 0)
    assert ctx.store.delete_memory(ns, "b") is True
    assert ns not in ctx.store.namespaces()
    assert ctx.store.term_stats(ns, ["alpha"]).df == {} and ctx.store.tag_counts(ns, ["t"]) == {"t": 0}


def test_update_health(ctx):
    full = full_memory(ctx.ns)
    save(ctx.store, full, mem(ctx.ns, "b"))
    reasons = [HealthPenalty("stale", 0.5, "very old")]
    assert ctx.store.update_health(ctx.ns, [("full", 0.25, reasons, 0.5), ("missing", 0.1, [], 1.0)]) == 2
    got = ctx.store.get_memories(ctx.ns, ["full", "b"])
    assert (got["full"].health, got["full"].health_reasons, got["full"].source_weight) == (0.25, reasons, 0.5)
    expect = as_dict(full) | {"health": 0.25, "source_weight": 0.5, "health_reasons": [reasons[0].to_dict()]}
    assert as_dict(got["full"]) == expect
    assert got["b"].health == 1.0
    assert ctx.store.update_health(ctx.ns, []) == 0


def test_list_memories_paging_filters_and_iter(ctx):
    ns = ctx.ns
    mems = [mem(ns, f"m{i:02d}", t=i // 3, tags=["even"] if i % 2 == 0 else [], health=0.1 * (i % 10),
                expires_at=ts(50) if i % 5 == 0 else None) for i in range(20)]
    save(ctx.store, *reversed(mems))
    everything = MemoryFilter(include_expired=True)
    order = [m.id for m in sorted(mems, key=lambda m: (m.created_at, m.id))]
    pages, after = [], None
    while True:
        page = ctx.store.list_memories(ns, everything, 6, after)
        if not page:
            break
        pages.append([m.id for m in page])
        after = (page[-1].created_at, page[-1].id)
    assert [len(p) for p in pages] == [6, 6, 6, 2] and sum(pages, []) == order
    flt = MemoryFilter(tags=["even"], min_health=0.3)
    want = [i for i in order if MemoryFilter(tags=["even"], min_health=0.3).matches(
        next(m for m in mems if m.id == i), NOW)]
    assert [m.id for m in ctx.store.list_memories(ns, flt, 100, None, NOW)] == want
    assert "m00" not in want and "m10" not in want  # expired at NOW
    assert [m.id for m in ctx.store.list_memories(ns, flt, 2, (ts(2), "m06"), NOW)] == [
        i for i in want if (ts(int(i[1:]) // 3), i) > (ts(2), "m06")][:2]
    assert [[m.id for m in b] for b in ctx.store.iter_memories(ns, batch_size=7)] == [
        order[:7], order[7:14], order[14:]]


def test_list_memories_empty_now_means_nothing_expired(ctx, request):
    save(ctx.store, mem(ctx.ns, "a", expires_at=ts(10**7)), mem(ctx.ns, "b"))
    assert [m.id for m in ctx.store.list_memories(ctx.ns, MemoryFilter(), 10)] == ["a", "b"]


def test_empty_created_before_is_no_bound(ctx, request):
    save(ctx.store, mem(ctx.ns, "a"))
    assert [m.id for m in ctx.store.list_memories(ctx.ns, MemoryFilter(created_before=""), 10, None, NOW)] == ["a"]


def test_namespaces_are_isolated(ctx):
    ns, other = ctx.ns, ctx.new_ns()
    for n, text in ((ns, "alpha shared"), (other, "beta shared")):
        save(ctx.store, mem(n, "a", tags=["t"], category="c", text=text), mem(n, "b", tags=["t"], category="c"),
             edges=[link(n, "a", "b", weight=0.9 if n == ns else 0.2)])
    assert ctx.store.get_memories(ns, ["a"])["a"].content == "alpha shared"
    assert ctx.store.tag_counts(ns, ["t"]) == {"t": 2} and ctx.store.category_counts(ns, ["c"]) == {"c": 2}
    assert [e.weight for e in ctx.store.edges_of(ns, ["a"])] == [0.9]
    assert [e.weight for e in ctx.store.neighbors(other, ["a"], 5, 0, ["OVERLAPS"])] == [0.2]
    assert ctx.store.lexical_candidates(ns, ["beta"], 10, None, NOW) == []
    assert ctx.store.term_stats(ns, ["shared", "beta"]).df == {"shared": 1}
    assert sorted(ctx.store.vector_candidates(ns, unit(3), 10, MemoryFilter(), NOW)) == ["a", "b"]
    assert ctx.store.stats(ns).namespaces == {ns: 2}
    assert {ns, other} <= set(ctx.store.namespaces())
    ctx.store.delete_memory(other, "a")
    assert len(ctx.store.edges_of(ns, ["a"])) == 1 and ctx.store.find_by_hash(ns, "hash-a") is not None


# -- candidate indexes -------------------------------------------------------------------------
def test_tag_and_category_members_newest_first(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", t=1, tags=["x"], category="k"), mem(ns, "b", t=3, tags=["x", "y"], category="k"),
         mem(ns, "c", t=3, tags=["x"], category="k"), mem(ns, "d", t=2, tags=["y"]), mem(ns, "e", t=9))
    assert ctx.store.tag_members(ns, "x", 10) == ["c", "b", "a"]  # created_at desc, then id desc
    assert ctx.store.tag_members(ns, "x", 2) == ["c", "b"]
    assert ctx.store.tag_members(ns, "x", 10, exclude_id="c") == ["b", "a"]
    assert ctx.store.tag_members(ns, "missing", 10) == []
    assert ctx.store.category_members(ns, "k", 10) == ["c", "b", "a"]
    assert ctx.store.category_members(ns, "k", 1, exclude_id="c") == ["b"]
    assert ctx.store.tag_counts(ns, ["x", "y", "z"]) == {"x": 3, "y": 2, "z": 0}
    assert ctx.store.category_counts(ns, ["k", "none"]) == {"k": 3, "none": 0}


def test_label_counts_is_tag_and_category_counts_in_one_call(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", t=1, tags=["x"], category="k"), mem(ns, "b", t=2, tags=["x", "k"], category="y"))
    # a label can be a tag and a category at once; each half counts only its own kind
    assert ctx.store.label_counts(ns, ["x", "k", "z", "x"], ["k", "y", "x"]) == (
        {"x": 2, "k": 1, "z": 0}, {"k": 1, "y": 1, "x": 0})
    assert ctx.store.label_counts(ns, [], ["k"]) == ({}, {"k": 1})
    assert ctx.store.label_counts(ns, ["x"], []) == ({"x": 2}, {})
    assert ctx.store.label_counts(ns, [], []) == ({}, {})
    assert ctx.store.label_counts(ns + "-other", ["x"], ["k"]) == ({"x": 0}, {"k": 0})


# -- recall ----------------------------------------------------------------------------------
def test_vector_candidates_exact_order(ctx):
    corpus = recall_corpus(ctx.ns)
    save(ctx.store, *corpus)
    everything = MemoryFilter(include_expired=True)
    for seed in (1, 2, 3):
        q = unit(seed)
        for limit in (1, 5, 50):
            assert ctx.store.vector_candidates(ctx.ns, q, limit, everything, NOW) == exact_vector(
                corpus, q, limit, everything, NOW)
    q = corpus[7].embedding
    assert ctx.store.vector_candidates(ctx.ns, q, 3, everything, NOW)[0] == "r07"
    assert ctx.store.vector_candidates(ctx.ns, q, 0, everything, NOW) == []


@pytest.mark.parametrize("flt", FILTERS, ids=lambda f: repr({k: v for k, v in vars(f).items() if v}))
def test_vector_candidates_filters(ctx, flt):
    corpus = recall_corpus(ctx.ns)
    save(ctx.store, *corpus)
    want = exact_vector(corpus, unit(9), 8, flt, NOW)
    assert ctx.store.vector_candidates(ctx.ns, unit(9), 8, flt, NOW) == want
    assert want, "the fixture should leave candidates for every filter"


@pytest.mark.parametrize("flt", [None, *FILTERS], ids=lambda f: "None" if f is None else repr(
    {k: v for k, v in vars(f).items() if v}))
def test_lexical_candidates_ids_and_filters(ctx, flt):
    corpus = recall_corpus(ctx.ns)
    save(ctx.store, *corpus)
    terms = ["gamma", "x.yaml", "nothing"]
    for exclude in (None, "r03"):
        got = ctx.store.lexical_candidates(ctx.ns, terms, 100, flt, NOW, exclude_id=exclude)
        want = {m.id for m in corpus if set(terms) & set(m.term_counts) and m.id != exclude
                and (flt is None or flt.matches(m, NOW))}
        assert len(got) == len(set(got)) and set(got) == want
        assert set(ctx.store.lexical_candidates(ctx.ns, terms, 3, flt, NOW, exclude)) <= want
        assert len(ctx.store.lexical_candidates(ctx.ns, terms, 3, flt, NOW, exclude)) == min(3, len(want))


def test_lexical_candidates_best_first_and_odd_terms(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "b-weak", text="alpha one two three"),
         mem(ns, "a-strong", text="alpha alpha alpha beta"), mem(ns, "c", text="gamma"))
    assert ctx.store.lexical_candidates(ns, ["alpha", "beta"], 10, None, NOW) == ["a-strong", "b-weak"]
    assert ctx.store.lexical_candidates(ns, [], 10, None, NOW) == []
    for odd in ['c++', 'a"b', "(x)", "AND", "OR", "NOT", "\\", "*", "?", "a:b", "~1", "[x TO y]", "{", "^2", "!"]:
        assert ctx.store.lexical_candidates(ns, [odd], 10, None, NOW) == []
    assert ctx.store.lexical_candidates(ns, ["gamma", "gamma"], 10, None, NOW) == ["c"]


def test_lexical_candidates_found_behind_better_matches_elsewhere(ctx):
    """Stronger matches in another namespace and filtered-out ones do not hide the weak matches
    that qualify (the SQLite store ranks a window of full-text matches first, then widens it)."""
    other = ctx.new_ns()
    save(ctx.store, *[mem(other, f"o{i:03d}", text="alpha alpha alpha alpha") for i in range(150)])
    save(ctx.store, *[mem(ctx.ns, f"x{i:03d}", text="alpha alpha alpha beta", expires_at=ts(10))
                      for i in range(80)])
    save(ctx.store, mem(ctx.ns, "weak-1", text="alpha one two three four five six seven"),
         mem(ctx.ns, "weak-2", text="alpha one two three four five six eight"))
    assert sorted(ctx.store.lexical_candidates(ctx.ns, ["alpha"], 2, MemoryFilter(), NOW)) == ["weak-1", "weak-2"]
    assert len(ctx.store.lexical_candidates(ctx.ns, ["alpha"], 100, MemoryFilter(include_expired=True), NOW)) == 82


def test_term_stats_values(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", text="alpha alpha beta"), mem(ns, "b", text="alpha gamma"),
         mem(ns, "c", text="d"))
    stats = ctx.store.term_stats(ns, ["alpha", "beta", "gamma", "zeta", "alpha"])
    assert (stats.n_docs, stats.total_length, stats.df) == (3, 6, {"alpha": 2, "beta": 1, "gamma": 1})
    empty = ctx.store.term_stats(ctx.new_ns(), ["alpha"])
    assert (empty.n_docs, empty.total_length, empty.df) == (0, 0, {})


# -- graph -----------------------------------------------------------------------------------



# -- ordered listing (GET /v1/memories?sort=&thread=&superseded_only=) ---------------------
def test_list_ordered_pages_each_sort_with_thread_and_superseded_filters(ctx):
    """Every sort pages each matching memory once, in the order computed here from the written data."""
    from graphmem.model import ListOrder

    ns = ctx.ns
    mems = [mem(ns, f"o{i:02d}", t=i // 2, health=round(0.1 * (i % 4), 2), tags=["odd"] if i % 2 else [],
                superseded_by="o00" if i in (3, 7) else None,
                thread="chat" if i % 3 == 0 else None, seq=(9 - i) if i % 3 == 0 else None)
            for i in range(10)]
    save(ctx.store, *mems)
    stored = {m.id: m for m in ctx.store.list_memories(ns, MemoryFilter(), 100)}
    keys = {"created": lambda m: (m.created_at, m.id), "health": lambda m: (m.health, m.id),
            "thread": lambda m: (m.thread_pos, m.id)}
    for sort in ("created", "-created", "health", "-health", "thread"):
        cases = ((None, False, MemoryFilter()), ("chat", False, MemoryFilter()), (None, True, MemoryFilter()),
                 (None, False, MemoryFilter(tags=["odd"])))
        for thread, superseded_only, flt in cases:
            pool = [m for m in stored.values() if flt.matches(m, NOW) and (thread is None or m.thread == thread)
                    and (not superseded_only or m.superseded_by) and (sort != "thread" or m.thread)]
            want = [m.id for m in sorted(pool, key=keys[sort.lstrip("-")], reverse=sort.startswith("-"))]
            got: list[str] = []
            after = None
            while True:
                order = ListOrder(sort=sort, thread=thread, superseded_only=superseded_only, after=after)
                page = ctx.store.list_ordered(ns, flt, order, 3, NOW)
                got += [m.id for m in page]
                if len(page) < 3:
                    break
                last = page[-1]
                key = {"created": last.created_at, "health": last.health, "thread": last.thread_pos}
                after = (key[sort.lstrip("-")], last.id)
            assert got == want, (sort, thread, superseded_only, flt)
