"""``graphmem check``: a store's invariants, verified through the store contract (both stores).

For each namespace: every memory has a vector that vector recall finds and a full-text entry
that lexical recall finds (by its rarest term); no edge points to a missing memory; no memory
holds more automatic edges of a type than its cap; the maintained counts (tags, categories,
term document frequencies, namespace totals) equal a recount from the memories. A store may add
its own internal checks (``integrity``: e.g. the embedded store's vector matrix against its
rows). ``repair`` fixes what can be derived: re-saving a memory rebuilds its index entries,
counts are recounted, dangling edges dropped and over-cap automatic edges trimmed (weakest
first). A memory without an embedding or explicit relations over their cap are only reported.
"""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.config import ContextSettings, EdgeSettings
from graphmem.model import EDGE_TYPES, LINK_TYPES, Edge, Memory, MemoryFilter
from graphmem.ops.records import namespace_edges
from graphmem.ops.thread_check import thread_problems
from graphmem.stores.base import MemoryStore

ALL = MemoryFilter(include_expired=True)
# Cosine similarities this close tie: float32 scores cannot order them, so neither store can.
TIE = 1e-5
TERM_CHUNK = 500


@dataclass
class Problem:
    kind: str
    namespace: str
    detail: str
    ids: list[str] = field(default_factory=list)
    repaired: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "namespace": self.namespace, "detail": self.detail, "ids": self.ids[:20],
                "repaired": self.repaired}


def _count_problems(store: MemoryStore, ns: str, mems: list[Memory]) -> list[Problem]:
    tags = Counter(t for m in mems for t in set(m.index_labels))
    cats = Counter(m.category for m in mems if m.category)
    df = Counter(t for m in mems for t in m.term_counts)
    out: list[Problem] = []
    stored_tags = store.tag_counts(ns, list(tags))
    bad = sorted(t for t in tags if stored_tags.get(t, 0) != tags[t])
    if bad:
        out.append(Problem("tag_counts", ns, f"{len(bad)} tag counts differ from a recount, e.g. {bad[0]!r}: "
                                             f"{stored_tags.get(bad[0], 0)} != {tags[bad[0]]}", bad))
    stored_cats = store.category_counts(ns, list(cats))
    bad = sorted(c for c in cats if stored_cats.get(c, 0) != cats[c])
    if bad:
        out.append(Problem("category_counts", ns, f"{len(bad)} category counts differ from a recount", bad))
    terms = sorted(df)
    bad, stats = [], store.term_stats(ns, terms[:1])
    for start in range(0, len(terms), TERM_CHUNK):
        chunk = terms[start:start + TERM_CHUNK]
        stored = store.term_stats(ns, chunk).df
        bad += [t for t in chunk if stored.get(t, 0) != df[t]]
    if bad:
        out.append(Problem("term_df", ns, f"{len(bad)} term document frequencies differ from a recount", bad))
    total = sum(m.doc_length for m in mems)
    if (stats.n_docs, stats.total_length) != (len(mems), total):
        out.append(Problem("namespace_stats", ns, f"documents/length {stats.n_docs}/{stats.total_length} != "
                                                  f"recount {len(mems)}/{total}"))
    return out


def _not_found_by_vector(store: MemoryStore, ns: str, mems: list[Memory], recall_depth: int) -> list[str]:
    """Ids of memories that their own vector does not rank within ``recall_depth``. Memories whose
    vectors tie with it (identical, as the parts of a long repeated text are) may come first in any
    order, so a memory missed at ``recall_depth`` is looked up again with the depth widened by its ties."""
    with_vector = [(m.id, m.embedding) for m in mems if m.embedding is not None]
    missed = [(mid, vector) for mid, vector in with_vector
              if mid not in store.vector_candidates(ns, vector, recall_depth, ALL, "")]
    if not missed:
        return []
    unit = np.stack([_unit(vector) for _, vector in with_vector])
    missing = []
    for mid, vector in missed:
        own = _unit(vector)
        ties = int(np.count_nonzero(unit @ own >= float(own @ own) - TIE)) - 1
        if not ties or mid not in store.vector_candidates(ns, vector, recall_depth + ties, ALL, ""):
            missing.append(mid)
    return missing


def _unit(vector: np.ndarray) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def _index_problems(store: MemoryStore, ns: str, mems: list[Memory], recall_depth: int) -> list[Problem]:
    no_vector, not_lexical = [], []
    not_found = _not_found_by_vector(store, ns, mems, recall_depth)
    for mem in mems:
        if mem.embedding is None:
            no_vector.append(mem.id)
        if mem.term_counts:
            df = store.term_stats(ns, list(mem.term_counts)).df
            rarest = min(mem.term_counts, key=lambda t: (df.get(t, 0), t))
            if mem.id not in store.lexical_candidates(ns, [rarest], df.get(rarest, 0) + 10, None, ""):
                not_lexical.append(mem.id)
    out = []
    if no_vector:
        out.append(Problem("missing_embedding", ns, f"{len(no_vector)} memories have no embedding", no_vector))
    if not_found:
        out.append(Problem("vector_index", ns, f"{len(not_found)} memories are not found by their own vector",
                           not_found))
    if not_lexical:
        out.append(Problem("fulltext_index", ns, f"{len(not_lexical)} memories are not found by their rarest "
                                                 "term", not_lexical))
    return out


def _edge_problems(ns: str, ids: set[str], edges: list[Edge], cfg: EdgeSettings) -> tuple[list[Problem], dict]:
    dangling = [e for e in edges if e.a not in ids or e.b not in ids]
    held: dict[tuple[str, str], list[Edge]] = {}
    for e in edges:
        if e.a in ids and e.b in ids:
            for end in (e.a, e.b):
                held.setdefault((end, e.type), []).append(e)
    over = {k: v for k, v in held.items() if len(v) > cfg.max_degree(k[1])}
    out = []
    if dangling:
        out.append(Problem("dangling_edges", ns, f"{len(dangling)} edges point to a missing memory",
                           sorted({e.a if e.a not in ids else e.b for e in dangling})))
    if over:
        out.append(Problem("degree", ns, f"{len(over)} memories hold more edges of a type than its cap",
                           sorted({k[0] for k in over})))
    return out, {"dangling": dangling, "over": over}


def check_namespace(store: MemoryStore, ns: str, cfg: EdgeSettings, recall_depth: int,
                    repair: bool, context: ContextSettings | None = None) -> list[Problem]:
    """``recall_depth`` (store.check_recall_depth): a memory's own vector must rank it within this many.
    With ``context``, threads are checked too (FOLLOWS chains and context windows; repaired here)."""
    mems = [m for batch in store.iter_memories(ns) for m in batch]
    ids = {m.id for m in mems}
    problems = _count_problems(store, ns, mems) + _index_problems(store, ns, mems, recall_depth)
    stored_edges = namespace_edges(store, ns, sorted(ids))
    edge_found, broken = _edge_problems(ns, ids, stored_edges, cfg)
    problems += edge_found
    if context is not None:
        problems += [Problem(kind, ns, detail, found, repaired) for kind, detail, found, repaired
                     in thread_problems(store, ns, mems, stored_edges, context, cfg, repair)]
    problems += [Problem(kind, ns, detail, list(found)) for kind, detail, found in store.integrity(ns)]
    if repair and problems:
        _repair(store, ns, mems, problems, broken, cfg)
    return problems


def _repair(store: MemoryStore, ns: str, mems: list[Memory], problems: list[Problem], broken: dict,
            cfg: EdgeSettings) -> None:
    by_id = {m.id: m for m in mems}
    for problem in problems:
        resave: list[str] = []
        if problem.kind in ("vector_index", "fulltext_index", "memory_tags", "fts_rows", "vector_rows",
                            "vector_values"):
            resave = [mid for mid in problem.ids or list(by_id) if mid in by_id]
        elif problem.kind == "tag_counts":      # Neo4j counts a tag by its links: rebuild the holders'
            bad = set(problem.ids)
            resave = [m.id for m in mems if bad & set(m.index_labels)]
        for mid in resave:
            store.save_memory(by_id[mid], [], [])          # rebuilds the memory's index entries and links
        if resave:
            problem.repaired = True
    if any(p.kind in ("tag_counts", "category_counts", "term_df", "namespace_stats", "label_counts",
                      "lexical_index") for p in problems):      # recount also rebuilds derived indexes
        store.recount(ns)
        for p in problems:
            p.repaired = p.repaired or p.kind in ("tag_counts", "category_counts", "term_df", "namespace_stats",
                                                  "label_counts", "lexical_index")
    trim: list[Edge] = list(broken["dangling"])
    for (_end, edge_type), edges in broken["over"].items():
        if edge_type in LINK_TYPES:   # FOLLOWS is the thread check's
            ordered = sorted(edges, key=lambda e: e.strength_key)
            trim += ordered[cfg.max_degree(edge_type):]
    if trim:
        store.write_edges([], list({e.key: e for e in trim}.values()))
        for p in problems:
            if p.kind == "dangling_edges" or (p.kind == "degree" and all(
                    k[1] in LINK_TYPES for k in broken["over"])):
                p.repaired = True


def check_store(store: MemoryStore, cfg: EdgeSettings, recall_depth: int, namespaces: list[str] | None = None,
                repair: bool = False, context: ContextSettings | None = None) -> dict[str, Any]:
    checked = namespaces or store.namespaces()
    problems: list[Problem] = []
    for ns in checked:
        # A repair re-saves what it read: no other writer (another process too) may change the
        # namespace in between, or a memory deleted meanwhile would come back.
        with store.write_session() if repair else nullcontext():
            problems += check_namespace(store, ns, cfg, recall_depth, repair, context)
    return {"store": store.kind, "namespaces": len(checked), "ok": not problems,
            "problems": [p.to_dict() for p in problems], "edge_types": list(EDGE_TYPES)}
