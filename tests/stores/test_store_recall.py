"""``store.recall``: both recall arms of one key in one call, the same on both stores as the
separate reads it stands for (ids in the same order, the same statistics and memories), and on
Neo4j in two round trips where the separate reads take five."""

from __future__ import annotations

import pytest

from graphmem.model import MemoryFilter, TermStats
from tests.helpers.memories import (
    FILTERS,
    NOW,
    as_dict,
    mem,
    near,
    recall_corpus,
    save,
    unit,
)
from tests.neo4j_server import cypher_trace

TERMS = ["gamma", "x.yaml", "nothing", "alpha"]


def rarest_two(stats: TermStats) -> list[str]:
    """A caller's lookup rule: the two rarest terms the namespace holds (ties by term)."""
    return sorted(stats.df, key=lambda t: (stats.df[t], t))[:2]


def separate_reads(store, ns, vector, vector_limit, terms, lookup, lexical_limit, flt):
    vector_ids = store.vector_candidates(ns, vector, vector_limit, flt, NOW) if vector is not None else []
    stats = store.term_stats(ns, terms)
    searched = lookup(stats) if terms else []
    lexical_ids = store.lexical_candidates(ns, searched, lexical_limit, flt, NOW) if searched else []
    return stats, vector_ids, lexical_ids, store.get_memories(ns, [*vector_ids, *lexical_ids])


def assert_same(ctx, vector, vector_limit, terms, lookup, lexical_limit, flt):
    hits = ctx.store.recall(ctx.ns, vector, vector_limit, terms, lookup, lexical_limit, flt, NOW)
    stats, vector_ids, lexical_ids, memories = separate_reads(ctx.store, ctx.ns, vector, vector_limit, terms,
                                                              lookup, lexical_limit, flt)
    assert (hits.stats.n_docs, hits.stats.total_length, hits.stats.df) == (stats.n_docs, stats.total_length,
                                                                           stats.df)
    assert hits.vector_ids == vector_ids
    assert hits.lexical_ids == lexical_ids
    assert {i: as_dict(m) for i, m in hits.memories.items()} == {i: as_dict(m) for i, m in memories.items()}
    return hits


@pytest.mark.serial         # Neo4j's vector index answers approximately while other workers write to it
@pytest.mark.parametrize("flt", FILTERS, ids=lambda f: repr({k: v for k, v in vars(f).items() if v}))
def test_recall_is_its_separate_reads_under_every_filter(ctx, flt):
    save(ctx.store, *recall_corpus(ctx.ns))
    hits = assert_same(ctx, unit(9), 8, TERMS, rarest_two, 100, flt)
    assert hits.vector_ids and set(hits.memories) == {*hits.vector_ids, *hits.lexical_ids}


def test_recall_without_an_arm(ctx):
    save(ctx.store, *recall_corpus(ctx.ns))
    everything = MemoryFilter(include_expired=True)
    only_text = assert_same(ctx, None, 8, TERMS, rarest_two, 5, everything)
    assert only_text.vector_ids == [] and len(only_text.lexical_ids) == 5
    only_vector = assert_same(ctx, unit(3), 6, [], rarest_two, 5, everything)
    assert only_vector.lexical_ids == [] and len(only_vector.vector_ids) == 6
    nothing = ctx.store.recall(ctx.ns, unit(3), 0, ["gamma"], lambda stats: [], 5, everything, NOW)
    assert (nothing.vector_ids, nothing.lexical_ids, nothing.memories) == ([], [], {})
    assert nothing.stats.df == {"gamma": nothing.stats.df["gamma"]} and nothing.stats.n_docs == 30


def test_recall_hands_the_lookup_the_statistics_and_searches_only_its_terms(ctx):
    ns = ctx.ns
    save(ctx.store, mem(ns, "a", text="alpha alpha beta"), mem(ns, "b", text="alpha gamma"),
         mem(ns, "c", text="d"))
    seen: list[TermStats] = []

    def only_gamma(stats: TermStats) -> list[str]:
        seen.append(stats)
        return ["gamma"]

    hits = ctx.store.recall(ns, None, 5, ["alpha", "gamma", "zeta"], only_gamma, 10, MemoryFilter(), NOW)
    assert [(s.n_docs, s.total_length, s.df) for s in seen] == [(3, 6, {"alpha": 2, "gamma": 1})]
    assert hits.lexical_ids == ["b"] and set(hits.memories) == {"b"}
    elsewhere = ctx.store.recall(ctx.new_ns(), None, 5, ["alpha"], only_gamma, 10, MemoryFilter(), NOW)
    assert elsewhere.lexical_ids == [] and elsewhere.stats.n_docs == 0


@pytest.mark.neo4j
@pytest.mark.serial         # its index path is taken only while no other worker's writes are pending
def test_neo4j_recall_takes_two_round_trips_on_the_index_path(neo, monkeypatch):
    """60 memories with no minimum fetch: the vector index path; the one-shot reads settle it."""
    store, ns = neo.store, neo.ns
    center = unit(4242)
    save(store, *[mem(ns, f"v{i:02d}", t=i, embedding=near(center, 5000 + i, 0.35), text=f"alpha w{i % 7}",
                      tags=["odd"] if i % 2 else []) for i in range(60)])
    store.vector_min_fetch = 1
    try:
        for flt in (MemoryFilter(), MemoryFilter(tags=["odd"])):
            q = near(center, 1, 0.2)
            with cypher_trace(monkeypatch) as seen:
                hits = store.recall(ns, q, 5, ["alpha", "w3"], rarest_two, 20, flt, NOW)
            assert len(seen) == 2
            assert_same(neo, q, 5, ["alpha", "w3"], rarest_two, 20, flt)
            assert len(hits.vector_ids) == 5 and hits.lexical_ids
    finally:
        store.vector_min_fetch = 32


@pytest.mark.neo4j
def test_neo4j_recall_widens_a_short_first_fetch_instead_of_repeating_it(neo, monkeypatch):
    """A filter that few memories pass leaves both one-shot reads short: each arm's loop then starts
    at four times the first fetch, never with the same query again, and still answers as the
    separate reads do."""
    store, ns = neo.store, neo.ns
    center = unit(4343)
    save(store, *[mem(ns, f"w{i:02d}", t=i, embedding=near(center, 6000 + i, 0.35), text=f"alpha w{i % 7}",
                      tags=["rare"] if i % 20 == 0 else []) for i in range(60)])
    store.vector_min_fetch = 1
    try:
        q, flt = near(center, 2, 0.2), MemoryFilter(tags=["rare"])
        with cypher_trace(monkeypatch) as seen:
            hits = store.recall(ns, q, 5, ["alpha"], rarest_two, 20, flt, NOW)
        vector = [params["fetch"] for _, params in seen if "fetch" in params and "vector" in params]
        lexical = [params["fetch"] for _, params in seen if "fetch" in params and "vector" not in params]
        first = 5 * store.vector_overfetch
        assert vector[:2] == [first, 4 * first] and len(set(vector)) == len(vector), vector
        first = 20 * store.vector_overfetch
        assert lexical[:2] == [first, 4 * first] and len(set(lexical)) == len(lexical), lexical
        assert set(hits.vector_ids) == {"w00", "w20", "w40"} and set(hits.lexical_ids) == {"w00", "w20", "w40"}
        assert_same(neo, q, 5, ["alpha"], rarest_two, 20, flt)
    finally:
        store.vector_min_fetch = 32
