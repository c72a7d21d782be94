"""A small namespace's recall costs the same however large another namespace grows.

On both stores, the vector and lexical lookups of a 40-memory namespace are measured in
work done (not time): on Neo4j the rows and db hits of each query's PROFILE, on SQLite the
virtual-machine steps of the calls (a progress handler; the lexical engine's own top-k is
scoped by a required namespace clause, so only the namespace's hits reach SQLite). Then another
namespace holding the same terms and similar vectors grows 50x, and the same lookups must not do
more than 20% more work on Neo4j, 50% on SQLite. Before the namespace moved inside the indexes,
both grew with the other tenant: Neo4j asked its vector and full-text indexes for hits from
every namespace, and on SQLite the other tenant's better matches filled the ranked window, to be
dropped by the namespace check and the window widened again.
"""

from __future__ import annotations

from graphmem.model import MemoryFilter
from tests.helpers.memories import mem, near, unit
from tests.neo4j_server import cypher_trace

SMALL, GROWTH, QUERY_TERMS = 40, 50, ["alpha", "kepler", "zephyr"]
BOUND = {"neo4j": 1.2, "sqlite": 1.5}
NOW = "2030-01-01T00:00:00.000000Z"


def memories(ns: str, start: int, n: int, closer: bool = False) -> list:
    """The other tenant's memories match the queries better (terms repeated, vectors nearer),
    so an index that ranks every namespace together returns theirs first."""
    base, words = unit(1), "alpha alpha kepler kepler zephyr" if closer else "alpha kepler zephyr"
    return [mem(ns, f"m{i:05d}", t=i, text=f"{words} note {i}", embedding=near(base, i, 0.3 if closer else 0.6))
            for i in range(start, start + n)]


def lookups(store, ns: str) -> None:
    query = unit(1)
    store.vector_candidates(ns, query, 5, MemoryFilter(), NOW)
    store.vector_candidates(ns, query, 5, MemoryFilter(min_health=0.5), NOW)
    store.lexical_candidates(ns, QUERY_TERMS, 10, None, NOW)
    store.lexical_candidates(ns, QUERY_TERMS, 10, MemoryFilter(), NOW, exclude_id="m00001")


def neo4j_work(store, ns: str, monkeypatch) -> int:
    """Rows plus db hits over every operator of every query the lookups run."""
    with cypher_trace(monkeypatch) as seen:
        lookups(store, ns)

    def total(plan) -> int:
        return plan.get("rows", 0) + plan.get("dbHits", 0) + sum(total(c) for c in plan.get("children", []))

    work = 0
    with store._driver.session(database=store.database) as session:
        for query, params in seen:
            text = query.replace("CYPHER 25", "CYPHER 25 PROFILE", 1) if query.startswith("CYPHER 25") \
                else "PROFILE " + query
            work += total(session.run(text, params).consume().profile)
    return work


def sqlite_work(store, ns: str) -> int:
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    store.db.set_progress_handler(count, 100)
    try:
        lookups(store, ns)
    finally:
        store.db.set_progress_handler(None, 0)
    return steps[0] * 100


def test_small_namespace_lookups_do_not_grow_with_another_namespace(ctx, monkeypatch):
    small, big = ctx.ns, ctx.new_ns("big")
    ctx.store.save_batch(memories(small, 0, SMALL), [], [])
    ctx.store.save_batch(memories(big, 0, SMALL, closer=True), [], [])

    def work() -> int:
        return neo4j_work(ctx.store, small, monkeypatch) if ctx.kind == "neo4j" else sqlite_work(ctx.store, small)

    before = work()
    query = unit(1)
    answers = (ctx.store.vector_candidates(small, query, 5, MemoryFilter(), NOW),
               ctx.store.lexical_candidates(small, QUERY_TERMS, 10, None, NOW))
    for start in range(SMALL, SMALL * GROWTH, 500):
        ctx.store.save_batch(memories(big, start, min(500, SMALL * GROWTH - start), closer=True), [], [])
    assert ctx.store.term_stats(big, ["alpha"]).n_docs == SMALL * GROWTH
    after = work()
    assert (ctx.store.vector_candidates(small, query, 5, MemoryFilter(), NOW),
            ctx.store.lexical_candidates(small, QUERY_TERMS, 10, None, NOW)) == answers
    assert all(len(a) for a in answers)
    assert after <= before * BOUND[ctx.kind], f"{ctx.kind}: work {before} -> {after} while another grew 50x"


def unscoped(monkeypatch, kind: str) -> None:
    """Full-text lookups as they were before: the namespace only filtered after the index."""
    if kind == "sqlite":
        from graphmem.stores.sqlite.lexical import LexicalIndex

        monkeypatch.setattr(LexicalIndex, "_in_namespace", staticmethod(lambda ns, query: query))
    else:
        import graphmem.stores.neo4j.search as neo

        monkeypatch.setattr(neo, "lucene_queries", lambda ns, terms: [" OR ".join(f'terms:"{t}"' for t in terms)])


def test_the_measure_fails_lookups_that_scan_other_tenants(ctx, monkeypatch):
    """The work measure is not blind: with the namespace filtered after the full-text index (as
    before), the small namespace's lookups do grow past the bound."""
    small, big = ctx.ns, ctx.new_ns("big")
    ctx.store.save_batch(memories(small, 0, SMALL), [], [])
    ctx.store.save_batch(memories(big, 0, SMALL, closer=True), [], [])
    unscoped(monkeypatch, ctx.kind)

    def work() -> int:
        return neo4j_work(ctx.store, small, monkeypatch) if ctx.kind == "neo4j" else sqlite_work(ctx.store, small)

    before = work()
    ctx.store.save_batch(memories(big, SMALL, SMALL * 10, closer=True), [], [])
    assert work() > before * BOUND[ctx.kind]
