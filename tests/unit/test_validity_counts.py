"""The validity counts beside the vector matrix stay exact through writes, swap-removes and growth,
so a search whose filter can drop nothing skips the pass over every row, and one that can drop
something still gets the full mask."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.stores.sqlite.validity_mask import NEVER, ValidityFilter, micros
from graphmem.stores.sqlite.vectors import NamespaceVectors

DIM = 4
PAST, FUTURE = "2020-01-01T00:00:00.000000Z", "2999-01-01T00:00:00.000000Z"
NOW = micros("2026-06-01T00:00:00.000000Z", 0)

validity = st.tuples(st.none(), st.none(), st.sampled_from([None, PAST, FUTURE]), st.sampled_from([None, "m-new"]))
op = st.one_of(st.tuples(st.just("put"), st.integers(0, 40), validity),
               st.tuples(st.just("remove"), st.integers(0, 40), st.none()))


def recount(vectors: NamespaceVectors) -> tuple[int, int]:
    n = len(vectors)
    cols = vectors.validity
    return int(np.count_nonzero(cols.expires[:n] != NEVER)), int(np.count_nonzero(cols.superseded[:n]))


@settings(max_examples=150, deadline=None)
@given(st.lists(op, max_size=120))
def test_counts_match_the_rows_after_any_writes(ops: list) -> None:
    vectors = NamespaceVectors(DIM)
    rng = np.random.default_rng(0)
    for kind, k, valid in ops:
        memory_id = f"m{k:02d}"
        if kind == "put":
            vectors.upsert_many([memory_id], rng.normal(size=(1, DIM)).astype(np.float32), [valid])
        else:
            vectors.remove(memory_id)
        cols = vectors.validity
        assert (cols.expiring, cols.superseded_rows) == recount(vectors)
        for flt in (ValidityFilter(now=NOW), ValidityFilter(current_only=True),
                    ValidityFilter(current_only=True, now=NOW)):
            if cols.drops_nothing(flt):
                assert cols.mask(flt, len(vectors)).all()


def test_a_filter_that_drops_rows_still_drops_them() -> None:
    vectors = NamespaceVectors(DIM)
    block = np.eye(DIM, dtype=np.float32)
    expired, superseded = (None, None, PAST, None), (None, None, None, "x")
    vectors.upsert_many(["a", "b", "c", "d"], block, [None, expired, None, superseded])
    query = block[1] + 0.1 * block[0]
    expiry = ValidityFilter(now=NOW)
    assert not vectors.validity.drops_nothing(expiry)
    assert "b" not in vectors.search(query, 4, keep=expiry)
    assert vectors.kept_share(expiry) == 0.75
    assert "d" not in vectors.search(block[3], 4, keep=ValidityFilter(current_only=True))
    vectors.remove("b")
    vectors.remove("d")
    assert vectors.validity.drops_nothing(ValidityFilter(current_only=True, now=NOW))
    assert vectors.kept_share(expiry) == 1.0
    assert vectors.search(block[0], 2, keep=expiry) == ["a", "c"]
