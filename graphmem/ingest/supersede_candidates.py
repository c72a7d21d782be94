"""Supersession candidates: a deterministic, evidence-gated rule that a new memory may replace an
older one.

Why: "the cache runs Redis 7.4" arriving after "the cache runs Redis 6.2" is the commonest way a
memory goes stale, and the writer often does not say ``supersedes``. The rule proposes the link
only with evidence a reader can check: both memories are about the same thing (same category or a
shared tag, cosine at least ``[supersede] min_cosine``, term overlap at least ``min_term_overlap``
once the values are set aside) and they state a different value of the same kind (a number, a
version, a date, a name), each span kept. Restating the same value, or adding a value of a kind
the older memory did not have, is no replacement.

Precision on a labelled set of memory updates: bench/bench_supersede_candidates.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.config import SupersedeSettings
from graphmem.errors import ConflictError
from graphmem.ingest.supersede import SupersedePlan, Superseder
from graphmem.model import Memory
from graphmem.similarity import jaccard
from graphmem.stores.base import MemoryStore
from graphmem.text import tokenize

_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
# Order matters: a date is not also read as numbers, a version not as a number.
_SPANS: list[tuple[str, re.Pattern[str]]] = [
    ("date", re.compile(rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?"
                        rf"(?:,? \d{{4}})?|\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?)\b", re.I)),
    ("time", re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")),
    ("version", re.compile(r"\bv?\d+(?:\.\d+)+\b", re.I)),
    ("number", re.compile(r"(?<![\w.])[$€£]?\d+(?:[.,]\d+)?%?(?![\w.]\d)")),
]
# A name: a capitalised word that is not the sentence's first, possibly followed by more.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")


@dataclass(frozen=True)
class Span:
    kind: str
    text: str
    start: int
    end: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Proposal:
    """``newer`` may supersede ``older``: the scores that gated it, what ties them (shared tags,
    else the category) and the differing value spans of the first kind both state."""

    newer: str
    older: str
    cosine: float
    term_overlap: float
    shared: list[str]
    newer_spans: list[Span]
    older_spans: list[Span]

    @property
    def kind(self) -> str:
        return self.newer_spans[0].kind

    def describe(self) -> str:
        """The reason an applied proposal records: the value that changed."""
        return (f"{self.kind} changed: {', '.join(s.text for s in self.older_spans)} -> "
                f"{', '.join(s.text for s in self.newer_spans)}")

    def to_dict(self, applied: bool = False) -> dict[str, Any]:
        """The contract's ``Candidate``."""
        return {"newer": self.newer, "older": self.older, "cosine": round(self.cosine, 4),
                "term_overlap": round(self.term_overlap, 4), "shared": self.shared,
                "newer_spans": [x.to_dict() for x in self.newer_spans],
                "older_spans": [x.to_dict() for x in self.older_spans], "applied": applied}


def value_spans(text: str) -> list[Span]:
    """The value spans of ``text`` in order (each character belongs to one span at most)."""
    out: list[Span] = []
    taken = [False] * len(text)
    for kind, pattern in _SPANS:
        for found in pattern.finditer(text):
            if any(taken[found.start():found.end()]):
                continue
            taken[found.start():found.end()] = [True] * (found.end() - found.start())
            out.append(Span(kind, found.group(0), found.start(), found.end()))
    out += [Span("name", m.group(0), m.start(), m.end()) for m in _NAME.finditer(text)
            if not any(taken[m.start():m.end()])]
    return sorted(out, key=lambda x: x.start)


def _frame(text: str, spans: list[Span]) -> set[str]:
    """The memory's terms with its value spans taken out: what the two statements share."""
    values = {t for span in spans for t in tokenize(span.text)}
    return {t for t in tokenize(text) if t not in values and not any(c.isdigit() for c in t)}


def _changed(old: list[Span], new: list[Span]) -> tuple[list[Span], list[Span]] | None:
    """The first kind both state with different values: (older spans gone, newer spans new)."""
    for kind in ("version", "date", "time", "number", "name"):
        a = [x for x in old if x.kind == kind]
        b = [x for x in new if x.kind == kind]
        gone = [x for x in a if x.text.casefold() not in {y.text.casefold() for y in b}]
        came = [x for x in b if x.text.casefold() not in {y.text.casefold() for y in a}]
        if gone and came:
            return gone, came
    return None


def propose(newer: Memory, older: Memory, cfg: SupersedeSettings) -> Proposal | None:
    """A proposal when every gate passes, else None. Pure: the same two memories, the same answer."""
    if newer.id == older.id or older.superseded_by is not None or newer.embedding is None \
            or older.embedding is None:
        return None
    shared = sorted(set(newer.tags) & set(older.tags))
    if not shared and newer.category is not None and newer.category == older.category:
        shared = [newer.category]
    if not shared:
        return None
    cosine = float(np.dot(newer.embedding, older.embedding))
    if cosine < cfg.min_cosine:
        return None
    new_spans, old_spans = value_spans(newer.content), value_spans(older.content)
    a, b = _frame(older.content, old_spans), _frame(newer.content, new_spans)
    overlap = jaccard(a, b)
    if overlap < cfg.min_term_overlap:
        return None
    changed = _changed(old_spans, new_spans)
    if changed is None:
        return None
    return Proposal(newer.id, older.id, cosine, overlap, shared, newer_spans=changed[1], older_spans=changed[0])


def _nearest(mem: Memory, pool: list[Memory], n: int) -> list[Memory]:
    """The ``n`` memories of ``pool`` nearest ``mem`` by cosine (ties by id)."""
    vector = mem.embedding
    if vector is None:
        return []
    scored = [(-float(np.dot(vector, m.embedding)), m.id, m) for m in pool if m.embedding is not None]
    return [m for _, _, m in sorted(scored, key=lambda x: (x[0], x[1]))[:n]]


def proposals(newer: Memory, pool: list[Memory], cfg: SupersedeSettings) -> list[Proposal]:
    """Proposals against the nearest ``cfg.candidate_pool`` of ``pool`` (by cosine), best first."""
    found = [p for p in (propose(newer, m, cfg) for m in _nearest(newer, pool, cfg.candidate_pool))
             if p is not None]
    return sorted(found, key=lambda p: (-p.cosine, p.older))


def pool(store: MemoryStore, mem: Memory, cfg: SupersedeSettings) -> list[Memory]:
    """Memories sharing a tag or the category with ``mem``: the newest ``candidate_pool`` of each
    label, from the tag and category indexes (never a scan), ``mem`` itself left out."""
    ns = mem.namespace
    ids: list[str] = []
    for tag in mem.tags:
        ids += store.tag_members(ns, tag, cfg.candidate_pool, exclude_id=mem.id)
    if mem.category:
        ids += store.category_members(ns, mem.category, cfg.candidate_pool, exclude_id=mem.id)
    found = store.get_memories(ns, list(dict.fromkeys(ids)))
    return [found[i] for i in sorted(found)]


def _order(m: Memory) -> tuple[str, str, str]:
    return (m.effective_valid_from, m.created_at, m.id)


def proposals_about(store: MemoryStore, mem: Memory, cfg: SupersedeSettings) -> list[Proposal]:
    """Proposals ``mem`` is part of, either side: the later of each pair is the newer one."""
    near = _nearest(mem, pool(store, mem, cfg), cfg.candidate_pool)
    found = [propose(*((mem, m) if _order(mem) > _order(m) else (m, mem)), cfg) for m in near]
    return sorted((p for p in found if p is not None), key=lambda p: (-p.cosine, p.newer, p.older))


def _shares_label(a: Memory, b: Memory) -> bool:
    return bool(set(a.tags) & set(b.tags)) or (a.category is not None and a.category == b.category)


def auto_plan(superseder: Superseder, store: MemoryStore, mem: Memory, cfg: SupersedeSettings,
              pending: Mapping[str, Memory] | None = None) -> SupersedePlan | None:
    """With ``[supersede] auto`` (and ``candidates``) on, the best proposal that can be applied,
    recorded ``by: auto`` with the changed value as reason; None otherwise. The pool is the
    store's (``pool``) and, for a batch, ``pending``: its earlier items and the stored memories it
    changed, as they are now (a memory it already superseded is no candidate). A single write and
    a batch import decide alike, here."""
    if not (cfg.auto and cfg.candidates):
        return None
    pending = pending or {}
    current = {m.id: m for m in pool(store, mem, cfg)}
    current.update({i: m for i, m in pending.items() if i != mem.id and _shares_label(m, mem)})
    earlier = [current[i] for i in sorted(current) if _order(current[i]) < _order(mem)]
    for proposal in proposals(mem, earlier, cfg):
        try:
            return superseder.plan(mem, [proposal.older], mem.updated_at, proposal.describe(), by="auto",
                                   pending=dict(pending))
        except ConflictError:
            continue            # e.g. the older one is valid after it: the next proposal
    return None
