"""Stage ``time`` (in the weighting stage): a date the query names boosts the results it fits.

The query's first time phrase ("in May 2023", "last summer", "yesterday") is read by the same rules
as a memory's (``ingest/timeref.py``, absolute dates included) against ``filters.as_of``, else now.
A result fits when its own time or one of its resolved phrases falls in that range; its score is
multiplied by ``1 + time_boost``. A boost, never a filter: a memory without a date still ranks.
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar

from graphmem.config import TimeSettings
from graphmem.contract.responses import TimeBoost
from graphmem.ingest.timeref import TimeRef, memory_time, parse_day, resolve_phrases, stored_range
from graphmem.model import Memory
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.stage import Search, Stage
from graphmem.retrieval.trace import StageRow


def query_range(query: str, reference: str, rules: TimeSettings) -> TimeRef | None:
    """The query's first time phrase resolved against ``reference`` (an ISO timestamp)."""
    anchor = parse_day(reference)
    if anchor is None:
        return None
    found = resolve_phrases(query, anchor, rules, absolute=True, limit=1)
    return found[0] if found else None


def fits(mem: Memory, wanted: TimeRef, rules: TimeSettings) -> str | None:
    """How ``mem`` falls in the wanted range: ``"time"`` (its own date), the phrase that does, or None."""
    own = parse_day(memory_time(mem.metadata, mem.created_at, rules.time_fields))
    if own is not None and _overlaps((own, own), wanted):
        return "time"
    for entry in mem.times:
        span = stored_range(entry)
        if span is not None and _overlaps(span, wanted):
            return str(entry.get("phrase", ""))
    return None


def _overlaps(span: tuple[date, date], wanted: TimeRef) -> bool:
    return span[0] <= wanted.last and wanted.first <= span[1]


def apply(cands: dict[str, Candidate], query: str, reference: str, rules: TimeSettings,
          boost: float) -> dict | None:
    """Boost the candidates the query's date fits (each gets ``time``); the trace row's facts, or None
    when the query names no date."""
    wanted = query_range(query, reference, rules)
    if wanted is None:
        return None
    boosted = 0
    for cand in cands.values():
        how = fits(cand.memory, wanted, rules)
        if how is not None:
            cand.score *= 1.0 + boost
            cand.time = TimeBoost(query_phrase=wanted.phrase, range=wanted.value, matched=how,
                                  multiplier=round(1.0 + boost, 6))
            boosted += 1
    return {"phrase": wanted.phrase, "range": wanted.value, "text": wanted.text, "boosted": boosted}


class TimeStage(Stage):
    """Stage ``time`` (``time_boost`` > 0, with the server's ``[time]`` rules)."""

    name: ClassVar[str] = "time"

    def __init__(self, rules: TimeSettings | None) -> None:
        self.rules = rules              # None: the stage finds no dates

    def enabled(self, search: Search) -> bool:
        return search.cfg.stage("time") and search.cfg.time_boost > 0 and self.rules is not None

    def run(self, search: Search, row: StageRow) -> None:
        assert self.rules is not None
        q = search.query
        found = apply(search.cands, q.text, q.flt.as_of or q.now, self.rules, q.cfg.time_boost)
        if found is not None:           # the query names a date
            row.counts(len(search.cands), len(search.cands), time=found)
