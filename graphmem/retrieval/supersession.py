"""Supersession in ranking: a superseded memory never ranks above the memory that replaced it.

A result whose successor (``superseded_by``) passes the request's filters but was not recalled
brings it in at its own score (the reader asked about the fact, and the current version of the
fact is the answer); then each superseded result moves to just below its successor. A filter
that drops the successor (``as_of`` before it was valid) leaves the older memory where it is:
at that time it was the fact."""

from __future__ import annotations

from graphmem.config import SupersedeSettings
from graphmem.contract.responses import Candidate as ProposedLink
from graphmem.contract.responses import SupersessionWhy
from graphmem.ingest.supersede_candidates import propose
from graphmem.model import Memory, MemoryFilter
from graphmem.retrieval.candidate import Candidate
from graphmem.stores.base import MemoryStore

MAX_HOPS = 3   # successors pulled in per chain per search (a longer chain resolves over its links)


def pull_successors(cands: dict[str, Candidate], store: MemoryStore, namespace: str, flt: MemoryFilter,
                    now: str) -> int:
    """Add the missing successors of superseded candidates (filters applied); returns how many."""
    added = 0
    for _ in range(MAX_HOPS):
        wanted = {c.memory.superseded_by: c for c in cands.values()
                  if c.memory.superseded_by is not None and c.memory.superseded_by not in cands}
        if not wanted:
            break
        found: dict[str, Memory] = store.get_memories(namespace, sorted(k for k in wanted if k))
        fresh = {i: m for i, m in found.items() if flt.matches(m, now)}
        if not fresh:
            break
        for succ_id, mem in fresh.items():
            older = wanted[succ_id]
            pulled = SupersessionWhy.model_validate({"pulled_in_for": older.memory.id})
            cands[succ_id] = Candidate(mem, score=older.score, supersession=pulled)
            added += 1
    return added


def below_successors(ordered: list[Candidate]) -> tuple[list[Candidate], int]:
    """``ordered`` with every superseded candidate moved to just below its successor when that
    ranks lower (chains too: a -> b -> c orders a, b, c); returns the order and the moves made."""
    out = list(ordered)
    moved = 0
    for _ in range(len(out)):
        position = {c.memory.id: n for n, c in enumerate(out)}
        late_at = next((n for n, c in enumerate(out) if c.memory.superseded_by in position
                        and position[c.memory.superseded_by] > n), None)
        if late_at is None:
            break
        late = out.pop(late_at)   # by place, not by value: comparing whole candidates is slow
        successor_at = position[late.memory.superseded_by or ""]
        out.insert(successor_at, late)   # the successor moved up by one: just below it
        sup = late.supersession or SupersessionWhy.model_validate({})
        sup.moved_below_successor = True
        late.supersession = sup
        moved += 1
    return out, moved


def mark_candidates(results: list[Candidate], cfg: SupersedeSettings,
                    cands: dict[str, Candidate] | None = None) -> int:
    """The rule's "may supersede" proposals between results, and between a result and the near
    duplicates merged into it (from ``cands``), in the shown results' ``why.supersession.candidates``
    (``ingest/supersede_candidates.py``): read from the candidates alone, no store reads. Returns
    how many proposals."""
    shown = {c.memory.id for c in results}
    pairs = [(a, b) for n, a in enumerate(results) for b in results[n + 1:]]
    for c in results:
        pairs += [(c, cands[i]) for i in c.merged_duplicates or [] if cands and i in cands and i not in shown]
    found = 0
    for a, b in pairs:
        newer, older = (a, b) if _order(a.memory) > _order(b.memory) else (b, a)
        proposal = propose(newer.memory, older.memory, cfg)
        if proposal is None:
            continue
        found += 1
        for c in (newer, older):
            if c.memory.id in shown:
                sup = c.supersession or SupersessionWhy.model_validate({})
                sup.candidates = [*(sup.candidates or []), ProposedLink.model_validate(proposal.to_dict())]
                c.supersession = sup
    return found


def _order(m: Memory) -> tuple[str, str, str]:
    return (m.effective_valid_from, m.created_at, m.id)
