"""Recall under ``as_of`` / ``current_only`` / expiry on every store: the vector and full-text
candidates are exactly the memories ``MemoryFilter.matches`` keeps, after writes that change only
validity (a supersession, a PATCH of valid_from) and deletes, and, on SQLite, after another connection's write
(the validity arrays beside the vector matrix are replayed from the vector log)."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from graphmem.model import MemoryFilter
from graphmem.stores.sqlite import SQLiteStore
from tests.helpers.memories import DIM, MODEL, mem, ts
from tests.neo4j_server import store_settings
from tests.stores.conftest import forced_ann

NOW = ts(5000)
FILTERS = [MemoryFilter(as_of=ts(t)) for t in (-10, 0, 150, 400, 900)] + [
    MemoryFilter(current_only=True), MemoryFilter(as_of=ts(300), current_only=True),
    MemoryFilter(as_of=ts(300), include_expired=True), MemoryFilter()]


def memories(ns: str, n: int = 60):
    rng = random.Random(7)
    out = []
    for i in range(n):
        m = mem(ns, f"m{i:02d}", t=10 * i)
        if rng.random() < 0.3:
            m.valid_from = ts(10 * i + rng.choice([-50, 100, 400]))
        if rng.random() < 0.3:
            m.valid_until = ts(10 * i + rng.choice([120, 300, 700]))
        if rng.random() < 0.2 and i:
            m.superseded_by = f"m{i - 1:02d}"
        if rng.random() < 0.15:
            m.expires_at = ts(rng.choice([200, 9000]))
        out.append(m)
    return out


def check(store, ns: str, stored) -> None:
    query = stored[0].embedding
    for flt in FILTERS:
        kept = [m for m in stored if flt.matches(m, NOW)]
        expected = sorted(kept, key=lambda m: (-float(np.dot(m.embedding, query)), m.id))
        got = store.vector_candidates(ns, query, len(stored), flt, NOW)
        assert got == [m.id for m in expected], flt
        # one result: past the approximate threshold, the ids kept (not the few dropped) are listed
        assert store.vector_candidates(ns, query, 1, flt, NOW) == [m.id for m in expected[:1]], flt
        lexical = store.lexical_candidates(ns, ["note"], len(stored), flt, NOW)
        assert sorted(lexical) == sorted(m.id for m in kept), flt


def test_recall_keeps_what_the_filter_keeps_across_validity_writes(ctx):
    stored = memories(ctx.ns)
    ctx.store.save_batch(stored, [], [])
    check(ctx.store, ctx.ns, stored)
    changed = {5: dict(superseded_by="m06", valid_until=ts(160)), 12: dict(valid_from=ts(800)),
               20: dict(superseded_by=None, valid_until=None), 33: dict(expires_at=ts(100))}
    for i, fields in changed.items():       # one memory at a time, as an update writes it
        stored[i] = replace(stored[i], **fields)
        ctx.store.save_memory(stored[i], [], [])
    check(ctx.store, ctx.ns, stored)
    for gone in ("m02", "m40"):             # a delete moves the last row into the freed one
        ctx.store.delete_memory(ctx.ns, gone)
    check(ctx.store, ctx.ns, [m for m in stored if m.id not in ("m02", "m40")])


@pytest.mark.parametrize("ann", [False, True])
def test_another_connections_supersession_reaches_the_arrays(tmp_path, ann):
    reader = SQLiteStore(tmp_path / "db", store_settings(), ann=forced_ann() if ann else None)
    writer = SQLiteStore(tmp_path / "db", store_settings())
    for store in (reader, writer):
        store.ensure_schema(MODEL, DIM)
    ns = "shared"
    stored = memories(ns)
    writer.save_batch(stored, [], [])
    check(reader, ns, stored)               # loads the matrix and its arrays
    stored[3] = replace(stored[3], superseded_by="m04", valid_until=ts(50))
    stored[9] = replace(stored[9], valid_from=ts(1000))
    writer.save_batch([stored[3], stored[9]], [], [])
    check(reader, ns, stored)               # replayed from the vector log
    reader.close()
    writer.close()
