"""The ranking rule that a superseded memory never shows above its successor."""

from graphmem.model import Memory
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.supersession import below_successors


def cand(i: str, score: float, superseded_by: str | None = None) -> Candidate:
    return Candidate(Memory(id=i, namespace="ns", content=i, content_hash=i, superseded_by=superseded_by), score)


def test_a_chain_orders_newest_first_and_keeps_the_rest_in_place():
    # a -> b -> c (c is current); x and y are unrelated and keep their relative order
    ordered = [cand("a", .9, "b"), cand("x", .8), cand("b", .7, "c"), cand("y", .6), cand("c", .5)]
    out, moved = below_successors(ordered)
    assert [c.memory.id for c in out] == ["x", "y", "c", "b", "a"]
    assert moved == 3
    moved_why = [c.supersession.model_dump(exclude_unset=True) for c in out if c.supersession is not None]
    assert [c.memory.id for c in out if c.supersession is not None] == ["b", "a"]
    assert moved_why == [{"moved_below_successor": True}] * 2


def test_a_successor_that_already_ranks_higher_moves_nothing():
    ordered = [cand("b", .9), cand("a", .8, "b"), cand("z", .7, "missing")]
    out, moved = below_successors(ordered)
    assert [c.memory.id for c in out] == ["b", "a", "z"] and moved == 0
