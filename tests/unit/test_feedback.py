"""The second recall round's pure rules (retrieval/feedback.py)."""

import numpy as np

from graphmem.model import Memory, TermStats
from graphmem.retrieval import feedback


def mem(i, terms):
    return Memory(id=f"m{i}", namespace="ns", content="c", content_hash=str(i), term_counts=terms)


def test_seeds_are_the_top_by_fused_score_ties_by_id():
    fused = {"b": {"fused": 0.5}, "a": {"fused": 0.5}, "c": {"fused": 0.9}, "d": {"fused": 0.1}}
    assert feedback.seeds(fused, 3) == ["c", "a", "b"]


def test_feedback_vector_moves_towards_the_seeds_and_stays_unit():
    q = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    seeds = [np.array([0.0, 1.0, 0.0], dtype=np.float32), np.array([0.0, 0.0, 1.0], dtype=np.float32)]
    moved = feedback.feedback_vector(q, seeds, 1.0)
    assert abs(float(np.linalg.norm(moved)) - 1.0) < 1e-6
    assert float(moved @ q) < 1.0 and float(moved @ seeds[0]) > 0 and abs(moved[1] - moved[2]) < 1e-6
    heavier = feedback.feedback_vector(q, seeds, 3.0)
    assert float(heavier @ q) < float(moved @ q)
    assert feedback.feedback_vector(q, [], 1.0) is q and feedback.feedback_vector(q, seeds, 0.0) is q


def test_expansion_terms_are_shared_rare_and_not_the_query():
    docs = [mem(1, {"pottery": 1, "class": 2, "bowl": 1}), mem(2, {"pottery": 1, "class": 1, "kiln": 1}),
            mem(3, {"class": 1, "pottery": 2})]
    stats = TermStats(n_docs=100, total_length=500, df={"pottery": 3, "class": 60, "bowl": 1, "kiln": 1})
    assert feedback.expansion_terms(["what", "class"], docs, stats, 5) == ["pottery"]   # bowl, kiln: one seed
    assert feedback.expansion_terms(["what"], docs, stats, 1) == ["pottery"]            # rarer than class
    assert feedback.expansion_terms(["what"], docs, stats, 0) == []


def test_mix_rounds_weights_both_and_says_what_the_second_found():
    first = {"a": {"fused": 1.0, "vector": {"rank": 1, "score": 0.9}}, "b": {"fused": 0.4}}
    second = {"b": {"fused": 1.0}, "c": {"fused": 0.5, "vector": {"rank": 2, "score": 0.7}}}
    out = feedback.mix_rounds(first, second, 0.25)
    assert out["a"]["fused"] == 0.75 and "feedback" not in out["a"] and out["a"]["vector"]["rank"] == 1
    assert out["b"]["fused"] == 0.75 * 0.4 + 0.25 and out["b"]["feedback"] == {"rank": 1, "fused": 1.0,
                                                                               "weight": 0.25}
    assert out["c"]["fused"] == 0.125 and out["c"]["vector"]["score"] == 0.7 and out["c"]["feedback"]["rank"] == 2


def test_spread_threads_demotes_a_threads_later_turns_and_leaves_others():
    from dataclasses import replace

    from graphmem.retrieval import rank
    from graphmem.retrieval.candidate import Candidate

    def cand(i, score, thread):
        return Candidate(replace(mem(i, {}), thread=thread), score=score)

    ordered = [cand(1, 1.0, "s1"), cand(2, 0.9, "s1"), cand(3, 0.8, "s1"), cand(4, 0.7, "s2"), cand(5, 0.6, None)]
    same, moved = rank.spread_threads(list(ordered), 3, 1.0)
    assert [c.memory.id for c in same] == ["m1", "m2", "m3", "m4", "m5"] and moved == 0
    out, moved = rank.spread_threads([cand(c.memory.id[1:], c.score, c.memory.thread) for c in ordered], 4, 0.5)
    # m2: 0.45 < m4's 0.7 and m5's 0.6; then m2 (0.45) beats m3 (0.8 * 0.5 ** 1 = 0.4)
    assert [c.memory.id for c in out] == ["m1", "m4", "m5", "m2", "m3"] and moved == 2
    assert [round(c.score, 3) for c in out[:4]] == [1.0, 0.7, 0.6, 0.45]
