"""Second recall round seeded by the first (pseudo-relevance feedback, stage ``feedback``).

Why: a multi-hop question's evidence sits in several turns, often in different sessions, and
the query alone matches only some of them. The first round's top turns say what the answer
looks like, so a second round searches again with

    vector  = unit(query + feedback_vector_weight * unit(mean of the seeds' embeddings))
    terms   = the query's terms + up to ``feedback_terms`` terms the seeds share and the query lacks

and each candidate's recall score becomes ``(1 - feedback_weight) * first + feedback_weight * second``
(a candidate one round did not find scores 0 there). Pure functions; the pipeline does the IO.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np

from graphmem.model import Memory, TermStats
from graphmem.similarity import idf


def seeds(fused: dict[str, dict], n: int) -> list[str]:
    """The first round's top ``n`` ids by fused score (ties by id, as everywhere)."""
    return sorted(fused, key=lambda i: (-fused[i]["fused"], i))[:n]


def feedback_vector(qvec: np.ndarray, seed_vectors: Iterable[np.ndarray], weight: float) -> np.ndarray:
    """Rocchio's query update on unit vectors; the query itself when no seed has a vector."""
    vectors = [np.asarray(v, dtype=np.float32) for v in seed_vectors]
    if not vectors or weight <= 0:
        return qvec
    centroid = np.mean(vectors, axis=0)
    norm = float(np.linalg.norm(centroid))
    if norm == 0:
        return qvec
    moved = qvec + weight * centroid / norm
    size = float(np.linalg.norm(moved))
    return (moved / size).astype(np.float32) if size > 0 else qvec


def expansion_terms(query_terms: list[str], docs: list[Memory], stats: TermStats, n: int,
                    min_seeds: int = 2) -> list[str]:
    """Up to ``n`` terms held by at least ``min_seeds`` seeds, by summed idf over the seeds that
    hold them (shared and rare first); ``stats`` carries their document frequencies."""
    if n <= 0 or not docs:
        return []
    known = set(query_terms)
    held = Counter(t for mem in docs for t in set(mem.term_counts) if t not in known)
    scored: dict[str, float] = {}
    for term, count in held.items():
        if count < min(min_seeds, len(docs)):
            continue
        scored[term] = count * idf(stats.n_docs, stats.df.get(term, 0))
    return sorted(scored, key=lambda t: (-scored[t], t))[:n]


def mix_rounds(first: dict[str, dict], second: dict[str, dict], weight: float) -> dict[str, dict]:
    """Per id: the first round's parts (the second's for an id only it found), the mixed fused
    score, and ``feedback`` = the second round's rank and fused score (the ``why``)."""
    order = {doc: r for r, doc in enumerate(seeds(second, len(second)), start=1)}
    out: dict[str, dict] = {}
    for doc in set(first) | set(second):
        base = first.get(doc) or second[doc]
        one = first[doc]["fused"] if doc in first else 0.0
        two = second[doc]["fused"] if doc in second else 0.0
        parts = {**base, "fused": (1 - weight) * one + weight * two}
        if doc in second:
            parts["feedback"] = {"rank": order[doc], "fused": round(two, 6), "weight": weight}
        out[doc] = parts
    return out
