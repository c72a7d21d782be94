"""Every SQL statement of an insert, update, delete and search on the embedded store uses an
index with more than the namespace as its key: no statement walks a namespace or a table.

This is the structural half of "the cost of one insert must not grow with the store" (the
timing half is bench/bench_engine.py). Each statement actually executed is captured with
its bound values and checked with EXPLAIN QUERY PLAN.
"""

from __future__ import annotations

import re

import pytest

from graphmem.model import MemoryFilter
from harness.corpus import make_memories

TABLES = r"(memories|memory_tags|edges|term_df|label_counts)"  # namespace_stats, meta: keyed by namespace
# A full scan of a table, or an index search keyed on the namespace alone.
BAD_STEP = re.compile(rf"^(SCAN {TABLES}\b|SEARCH {TABLES} USING (COVERING )?INDEX \w+ \(namespace=\?\)$)")


def plan_problems(store, statements: list[str]) -> list[tuple[str, str]]:
    problems = []
    for sql in statements:
        if not re.match(r"^\s*(SELECT|WITH|UPDATE|DELETE|INSERT)", sql, re.I) or "memory_fts (rowid" in sql:
            continue
        for _id, _parent, _unused, detail in store.db.execute("EXPLAIN QUERY PLAN " + sql):
            if BAD_STEP.match(detail):
                problems.append((detail, sql[:200]))
    return problems


@pytest.fixture
def loaded(make_engine):
    engine = make_engine()
    engine.add_batch(make_memories(120), "bench")
    engine.search("warm the vector cache", "bench", 5)
    return engine


def traced(engine, action) -> list[str]:
    statements: list[str] = []
    engine.store.db.set_trace_callback(statements.append)
    try:
        action()
    finally:
        engine.store.db.set_trace_callback(None)
    assert statements, "the trace captured nothing"
    return statements


def test_insert_update_delete_use_selective_indexes(loaded):
    probe = {**make_memories(1, seed=99)[0], "id": "probe", "content": "The billing service probe note kepler"}
    statements = traced(loaded, lambda: loaded.add(probe))
    statements += traced(loaded, lambda: loaded.add(probe))                 # duplicate check by id
    statements += traced(loaded, lambda: loaded.add({**probe, "id": None}))  # duplicate check by hash
    statements += traced(loaded, lambda: loaded.update("bench", "probe", {"tags": ["tag-1", "new-tag"]}))
    statements += traced(loaded, lambda: loaded.delete("bench", "probe"))
    problems = plan_problems(loaded.store, statements)
    assert problems == [], "\n".join(map(str, problems))


def test_search_uses_selective_indexes(loaded):
    statements = traced(loaded, lambda: loaded.search("how does the billing service deploy tag-3", "bench", 10))
    problems = plan_problems(loaded.store, statements)
    assert problems == [], "\n".join(map(str, problems))


def test_the_check_catches_a_namespace_walk(loaded):
    """The detector itself: a lookup on an unindexed column is reported."""
    sql = "SELECT id FROM memories WHERE namespace = 'bench' AND reason = 'x'"
    assert plan_problems(loaded.store, [sql])



def test_validity_filters_use_selective_indexes(loaded):
    """``as_of`` and ``current_only`` searches and lists seek their own indexes (valid_start,
    valid_until, superseded_by), never walk the namespace."""
    as_of = "2025-01-01T00:00:00.000000Z"
    statements: list[str] = []
    for flt in (MemoryFilter(as_of=as_of), MemoryFilter(current_only=True),
                MemoryFilter(as_of=as_of, current_only=True, tags=["tag-1"])):
        def search_and_list(flt=flt):
            loaded.search("how does the billing service deploy", "bench", 10, flt)
            loaded.list_memories("bench", flt, 20)
        statements += traced(loaded, search_and_list)
    assert any("valid_start" in s for s in statements) and any("superseded_by IS" in s for s in statements)
    problems = plan_problems(loaded.store, statements)
    assert problems == [], "\n".join(map(str, problems))
