"""The context block: a search's results as prompt-ready text under a token budget.

Why: an agent handed records still has to date, order, group and trim them. The block does it once:
each memory on one line with its date (and what its relative phrases resolve to), its speaker or
source; thread members grouped under their thread, in thread order, threads ordered by their best
result; a selected turn's neighbouring turns shown with it, each turn once however many windows
overlap; cut at the budget on a memory boundary. Results are taken in rank order while they fit,
then neighbours of the selected turns while they fit. A thread's header carries the date of its
first selected turn, and a line of that thread repeats its date only when it differs (a session is
usually one day: the date once saves about five tokens a line). Tokens are counted by
``text.llm_tokens`` (one rule; additive over lines, so the count of the text is the sum of its lines').

    ## conv-26/session_1 (8 May 2023)
    [yesterday = 7 May 2023] Caroline: I went to a support group yesterday.
    Melanie: How was it?
    [9 May 2023] Caroline: ...
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from graphmem.config import ContextBlockSettings, TimeSettings
from graphmem.ingest.timeref import memory_time, parse_day, render
from graphmem.model import Memory, MemoryFilter
from graphmem.stores.base import MemoryStore
from graphmem.text import llm_tokens


@dataclass
class Block:
    """What the block holds so far: memories by id with their line, their rank (results; neighbours
    have none), each thread's header date, and the tokens used."""

    max_tokens: int
    rules: TimeSettings
    shown: dict[str, Memory] = field(default_factory=dict)
    lines: dict[str, str] = field(default_factory=dict)
    rank: dict[str, int] = field(default_factory=dict)
    threads: dict[str, date | None] = field(default_factory=dict)     # thread -> its header's date
    tokens: int = 0

    def try_add(self, mem: Memory, rank: int | None) -> bool:
        """Add ``mem`` when its line (and its thread's header, for a thread's first) fits the budget."""
        if mem.id in self.shown:
            return True
        day = memory_day(mem, self.rules)
        opens = mem.thread is not None and mem.thread not in self.threads
        header_day = day if opens else self.threads.get(mem.thread) if mem.thread else None
        line = memory_line(mem, self.rules, header_day, day)
        need = llm_tokens(line) + (llm_tokens(thread_header(mem.thread, day)) if opens else 0)   # type: ignore
        if self.tokens + need > self.max_tokens:
            return False
        self.shown[mem.id] = mem
        self.lines[mem.id] = line
        if rank is not None:
            self.rank[mem.id] = rank
        if opens:
            self.threads[mem.thread] = day   # type: ignore[index]
        self.tokens += need
        return True


def thread_header(thread: str, day: date | None) -> str:
    return f"## {thread} ({render(day)})" if day is not None else f"## {thread}"


def memory_day(mem: Memory, rules: TimeSettings) -> date | None:
    """The calendar date of the memory's time (``ingest/timeref.memory_time``)."""
    return parse_day(memory_time(mem.metadata, mem.created_at, rules.time_fields))


def speaker_prefix(mem: Memory) -> str:
    """The speaker (``metadata.speaker``, else ``role``) or the source, unless the content already
    opens with it (chat imports write ``"<speaker>: <text>"``)."""
    meta = mem.metadata if isinstance(mem.metadata, dict) else {}
    who = next((str(meta[k]) for k in ("speaker", "role") if isinstance(meta.get(k), str) and meta[k]), None)
    if who is None:
        return "" if mem.source in ("", "unknown") else f"({mem.source}) "
    return "" if mem.content.startswith(f"{who}:") else f"{who}: "


def memory_line(mem: Memory, rules: TimeSettings, header_day: date | None = None,
                day: date | None = None) -> str:
    """One memory as one line: ``[date; phrase = resolution] speaker: content``, the date left out
    when it is the thread header's (``day``: the memory's, when already known)."""
    day = day if day is not None else memory_day(mem, rules)
    parts = [render(day)] if day is not None and day != header_day else []
    parts += [f"{t.get('phrase')} = {t.get('text')}" for t in mem.times]
    stamp = f"[{'; '.join(parts)}] " if parts else ""
    return stamp + speaker_prefix(mem) + " ".join(mem.content.split())


def render_block(block: Block) -> tuple[str, list[str]]:
    """The text and the ids in the order shown: groups ordered by their best result's rank (a thread
    is one group, a memory outside threads its own), thread members in thread order."""
    groups: dict[str, list[Memory]] = {}
    for mem in block.shown.values():
        groups.setdefault(f"t:{mem.thread}" if mem.thread else f"m:{mem.id}", []).append(mem)
    unranked = len(block.rank) + 1

    def best(members: list[Memory]) -> tuple[int, str]:
        return min(block.rank.get(m.id, unranked) for m in members), members[0].id

    lines: list[str] = []
    order: list[str] = []
    for key, members in sorted(groups.items(), key=lambda kv: best(kv[1])):
        if lines:
            lines.append("")
        if key.startswith("t:"):
            lines.append(thread_header(key[2:], block.threads[key[2:]]))
            members = sorted(members, key=lambda m: m.thread_pos or "")
        for mem in members:
            lines.append(block.lines[mem.id])
            order.append(mem.id)
    return "\n".join(lines), order


def build_block(store: MemoryStore, namespace: str, results: list[Memory], max_tokens: int,
                rules: TimeSettings, cfg: ContextBlockSettings, flt: MemoryFilter, now: str) -> dict[str, Any]:
    """The block for ``results`` (rank order): ``text``, ``tokens`` (<= ``max_tokens``), ``memories``
    (ids in the order shown) and the counts the trace reports."""
    t0 = time.perf_counter()
    block = Block(max_tokens, rules)
    taken = 0
    for rank, mem in enumerate(results):
        if not block.try_add(mem, rank):
            break
        taken += 1
    neighbours = 0
    selected = [m for m in results[:taken] if m.thread is not None]
    room = cfg.neighbours_before + cfg.neighbours_after > 0 and block.tokens < max_tokens
    if selected and room:
        around = store.thread_context(namespace, [(m.thread, m.thread_pos) for m in selected],  # type: ignore
                                      cfg.neighbours_before, cfg.neighbours_after)
        wanted = [i for before, after in around for i in (*before, *after) if i not in block.shown]
        found = store.get_memories(namespace, list(dict.fromkeys(wanted))) if wanted else {}
        for before, after in around:
            for nid in (*before, *after):
                near = found.get(nid)
                if near is None or nid in block.shown or not flt.matches(near, now):
                    continue
                if not block.try_add(near, None):
                    break
                neighbours += 1
    text, order = render_block(block)
    tokens = llm_tokens(text)
    assert tokens == block.tokens, "llm_tokens is additive over lines"
    return {"text": text, "tokens": tokens, "memories": order,
            "trace": {"max_tokens": max_tokens, "results": len(results), "results_used": taken,
                      "neighbours_added": neighbours, "threads": len(block.threads), "tokens": tokens,
                      "ms": round((time.perf_counter() - t0) * 1000, 3)}}
