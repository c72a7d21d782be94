"""``term_holders`` (linking's lexical candidates) on both stores: each term's ``limit`` newest
holders of the namespace, newest first (created_at desc, id desc), the same on both, and
following deletes and content updates. Linking's ranking above it depends on that order."""

from __future__ import annotations

from tests.helpers.memories import mem


def test_newest_holders_per_term_bounded_and_ordered(ctx):
    store, ns, other = ctx.store, ctx.ns, ctx.new_ns()
    # t ties on created_at for pairs, so the id breaks the tie
    store.save_batch([mem(ns, f"m{i:02d}", t=i // 2, text=f"kelp {'otter ' if i % 3 == 0 else ''}note{i}")
                      for i in range(12)], [], [])
    store.save_batch([mem(other, "x1", t=50, text="kelp otter elsewhere")], [], [])
    newest = [(mem(ns, "m", t=i // 2).created_at, f"m{i:02d}") for i in range(11, -1, -1)]
    found = store.term_holders(ns, ["kelp", "otter", "absent", "kelp"], 5)
    assert found["kelp"] == newest[:5]
    assert found["otter"] == [h for h in newest if int(h[1][1:]) % 3 == 0][:5]
    assert found["absent"] == []
    assert store.term_holders(ns, ["kelp"], 0)["kelp"] == []

    store.delete_memory(ns, "m11")
    store.save_memory(mem(ns, "m10", t=5, text="rewritten without the word"), [], [])
    assert store.term_holders(ns, ["kelp"], 3)["kelp"] == newest[2:5]
    assert store.term_holders(other, ["kelp"], 3)["kelp"] == [(mem(other, "x1", t=50).created_at, "x1")]


def test_every_cut_matches_the_full_order(ctx):
    """Cut at every limit: inside an instant (pairs share created_at) or between two, the newest
    ``limit`` holders are the head of the full (created_at desc, id desc) order."""
    store, ns = ctx.store, ctx.ns
    store.save_batch([mem(ns, f"c{i:02d}", t=i // 2 if i < 8 else i, text=f"heron note{i}") for i in range(14)],
                     [], [])
    full = sorted(((mem(ns, "c", t=i // 2 if i < 8 else i).created_at, f"c{i:02d}") for i in range(14)),
                  reverse=True)
    for limit in range(1, 16):
        assert store.term_holders(ns, ["heron"], limit)["heron"] == full[:limit]
