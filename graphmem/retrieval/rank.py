"""Final stage: merge near-duplicates, group copies, order deterministically, cut to k."""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from graphmem.config import SupersedeSettings
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.stage import Search, Stage
from graphmem.retrieval.supersession import below_successors, mark_candidates, pull_successors
from graphmem.retrieval.trace import StageRow
from graphmem.similarity import cosine, jaccard


def order(candidates: list[Candidate]) -> list[Candidate]:
    """Descending score; ties broken by id so every store returns the same order."""
    return sorted(candidates, key=lambda c: (-c.score, c.memory.id))


def dedupe_near_duplicates(ordered: list[Candidate]) -> tuple[list[Candidate], int]:
    """Keep the better-scored member of each near-duplicate pair (health and source already
    applied, so the better-sourced copy wins a close call); the kept one lists the other."""
    kept: list[Candidate] = []
    by_id: dict[str, Candidate] = {}
    by_twin: dict[str, Candidate] = {}          # near_duplicate_of -> the first kept one naming it
    dropped = 0
    for cand in ordered:
        mem = cand.memory
        twin = by_id.get(mem.near_duplicate_of or "") or by_twin.get(mem.id)
        if twin is not None:
            twin.merged_duplicates.append(mem.id)
            dropped += 1
            continue
        kept.append(cand)
        by_id[mem.id] = cand
        if mem.near_duplicate_of:
            by_twin.setdefault(mem.near_duplicate_of, cand)
    return kept, dropped


def is_copy(a: Candidate, b: Candidate, cosine_min: float, overlap_min: float) -> bool:
    """Two memories say the same thing: close in meaning *and* in wording (either alone
    groups paraphrases of different facts, or templated records about different things)."""
    ea, eb = a.memory.embedding, b.memory.embedding
    if ea is None or eb is None or cosine(ea, eb) < cosine_min:
        return False
    ta, tb = set(a.memory.term_counts), set(b.memory.term_counts)
    return bool(ta | tb) and jaccard(ta, tb) >= overlap_min


def quality(c: Candidate) -> tuple[float, float, float]:
    return (c.memory.health, c.memory.source_weight, c.score)


def group_copies(ordered: list[Candidate], cosine_min: float, overlap_min: float) -> tuple[list[Candidate], int]:
    """Group copies (``is_copy`` with the group's first, best-scored member); the healthiest,
    best-sourced member leads at the group's best score, the others are listed under it.
    Health and source decide only between copies, so they never act as filters."""
    groups: list[list[Candidate]] = []
    for cand in ordered:
        home = next((g for g in groups if is_copy(g[0], cand, cosine_min, overlap_min)), None)
        if home is None:
            groups.append([cand])
        else:
            home.append(cand)
    out: list[Candidate] = []
    grouped = 0
    for group in groups:
        leader = min(group, key=lambda c: (*(-x for x in quality(c)), c.memory.id))
        if len(group) > 1:
            leader.score = group[0].score
            for other in group:
                if other is not leader:
                    leader.merged_duplicates.extend([other.memory.id, *other.merged_duplicates])
                    grouped += 1
        out.append(leader)
    return out, grouped


def spread_threads(ordered: list[Candidate], k: int, decay: float) -> tuple[list[Candidate], int]:
    """Greedy top ``k`` where each pick's score is multiplied by ``decay`` per member of its thread
    already picked (memories outside a thread are never touched), so one conversation's neighbouring
    turns do not fill every place when the answer is spread over several; the rest follow in order.
    Returns the order and how many picks moved below a memory they outscored before."""
    if decay >= 1.0 or not ordered:
        return ordered, 0
    rest = list(ordered)
    taken: dict[str, int] = {}
    out: list[Candidate] = []
    demoted = 0
    while rest and len(out) < k:
        def effective(c: Candidate) -> float:
            return c.score * decay ** taken.get(c.memory.thread, 0) if c.memory.thread is not None else c.score
        best = min(range(len(rest)), key=lambda i: (-effective(rest[i]), rest[i].memory.id))
        if best:
            demoted += 1
        pick = rest.pop(best)
        pick.score = effective(pick)
        out.append(pick)
        if pick.memory.thread is not None:
            taken[pick.memory.thread] = taken.get(pick.memory.thread, 0) + 1
    return out + rest, demoted


class TopK(NamedTuple):
    """The top k and what the rank stage did on the way."""

    results: list[Candidate]
    near_duplicates_dropped: int
    copies_grouped: int
    moved_below_successor: int      # superseded results moved below their successor
    thread_spread: int              # places ``spread_threads`` reordered


def top_k(candidates: list[Candidate], k: int, dedupe: bool,
          grouping: tuple[float, float] | None = None, successors_first: bool = False,
          thread_decay: float = 1.0) -> TopK:
    ordered = order(candidates)
    dropped = grouped = moved = 0
    if successors_first:        # first, so a near-duplicate pair keeps the successor
        ordered, moved = below_successors(ordered)
    if dedupe:
        ordered, dropped = dedupe_near_duplicates(ordered)
    if grouping is not None:
        ordered, grouped = group_copies(ordered, *grouping)
    ordered, spread = spread_threads(ordered, k, thread_decay)
    if successors_first and (grouping is not None or spread):
        ordered, again = below_successors(ordered)
        moved += again
    return TopK(ordered[:k], dropped, grouped, moved, spread)


class RankStage(Stage):
    """Brings in missing successors (``successors_first``), then ``top_k``; marks the "may
    supersede" proposals between the results (``[supersede] candidates``). Always runs."""

    name: ClassVar[str] = "rank"

    def __init__(self, supersede: SupersedeSettings | None = None) -> None:
        self.supersede = supersede      # None: proposals are not looked for

    def enabled(self, search: Search) -> bool:
        return True

    def run(self, search: Search, row: StageRow) -> None:
        q, cfg, cands = search.query, search.cfg, search.cands
        # copies are told apart by health and source, so grouping belongs to the weighting recipes
        weighs = cfg.stage("health") or cfg.stage("source")
        grouping = (cfg.group_cosine, cfg.group_term_overlap) if cfg.group_copies and weighs else None
        pulled = pull_successors(cands, search.store, q.ns, q.flt, q.now) if cfg.successors_first else 0
        top = top_k(list(cands.values()), q.k, cfg.dedupe_near_duplicates, grouping, cfg.successors_first,
                    cfg.thread_decay)
        search.results = top.results
        n_in, n_out = len(cands), len(top.results)
        extra = {"thread_spread": top.thread_spread} if cfg.thread_decay < 1 else {}
        row.counts(n_in, n_out, near_duplicates_dropped=top.near_duplicates_dropped,
                   copies_grouped=top.copies_grouped, **extra)
        if pulled or top.moved_below_successor:
            row.counts(n_in, n_out, successors_added=pulled, moved_below_successor=top.moved_below_successor)
        if self.supersede is not None and self.supersede.candidates:
            proposed = mark_candidates(top.results, self.supersede, cands)
            if proposed:
                row.counts(n_in, n_out, supersede_candidates=proposed)
