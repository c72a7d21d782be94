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
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphmem.config import SupersedeSettings
from graphmem.model import Memory
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
class Proposal:
    """``newer`` may supersede ``older``: the scores that gated it and the differing spans."""

    newer: str
    older: str
    cosine: float
    term_overlap: float
    kind: str
    older_span: str
    newer_span: str

    def to_dict(self) -> dict[str, Any]:
        return {"newer": self.newer, "older": self.older, "cosine": round(self.cosine, 4),
                "term_overlap": round(self.term_overlap, 4), "kind": self.kind,
                "evidence": {"older": self.older_span, "newer": self.newer_span}}


def value_spans(text: str) -> dict[str, list[str]]:
    """The value spans of ``text`` by kind, in order (each character belongs to one span at most)."""
    out: dict[str, list[str]] = {}
    taken = [False] * len(text)
    for kind, pattern in _SPANS:
        for found in pattern.finditer(text):
            if any(taken[found.start():found.end()]):
                continue
            taken[found.start():found.end()] = [True] * (found.end() - found.start())
            out.setdefault(kind, []).append(found.group(0))
    names = [m.group(0) for m in _NAME.finditer(text) if not any(taken[m.start():m.end()])]
    if names:
        out["name"] = names
    return out


def _frame(text: str, spans: dict[str, list[str]]) -> set[str]:
    """The memory's terms with its value spans taken out: what the two statements share."""
    values = {t for found in spans.values() for span in found for t in tokenize(span)}
    return {t for t in tokenize(text) if t not in values and not any(c.isdigit() for c in t)}


def _changed(old: dict[str, list[str]], new: dict[str, list[str]]) -> tuple[str, str, str] | None:
    """The first kind both state with different values: (kind, older span, newer span)."""
    for kind in ("version", "date", "time", "number", "name"):
        a, b = old.get(kind, []), new.get(kind, [])
        gone = [s for s in a if s.casefold() not in {x.casefold() for x in b}]
        came = [s for s in b if s.casefold() not in {x.casefold() for x in a}]
        if gone and came:
            return kind, gone[0], came[0]
    return None


def propose(newer: Memory, older: Memory, cfg: SupersedeSettings) -> Proposal | None:
    """A proposal when every gate passes, else None. Pure: the same two memories, the same answer."""
    if newer.id == older.id or older.superseded_by is not None or newer.embedding is None \
            or older.embedding is None:
        return None
    same_category = newer.category is not None and newer.category == older.category
    if not same_category and not set(newer.tags) & set(older.tags):
        return None
    cosine = float(np.dot(newer.embedding, older.embedding))
    if cosine < cfg.min_cosine:
        return None
    new_spans, old_spans = value_spans(newer.content), value_spans(older.content)
    a, b = _frame(older.content, old_spans), _frame(newer.content, new_spans)
    overlap = len(a & b) / len(a | b) if a | b else 0.0
    if overlap < cfg.min_term_overlap:
        return None
    changed = _changed(old_spans, new_spans)
    if changed is None:
        return None
    kind, old_span, new_span = changed
    return Proposal(newer.id, older.id, cosine, overlap, kind, old_span, new_span)


def proposals(newer: Memory, pool: list[Memory], cfg: SupersedeSettings) -> list[Proposal]:
    """Proposals against the nearest ``cfg.candidate_pool`` of ``pool`` (by cosine), best first."""
    if newer.embedding is None:
        return []
    near = sorted((m for m in pool if m.embedding is not None),
                  key=lambda m: -float(np.dot(newer.embedding, m.embedding)))[:cfg.candidate_pool]
    found = [p for p in (propose(newer, m, cfg) for m in near) if p is not None]
    return sorted(found, key=lambda p: (-p.cosine, p.older))
