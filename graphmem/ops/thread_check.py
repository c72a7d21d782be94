"""``graphmem check`` for threads: each thread's FOLLOWS chain and its members' context windows.

Expected state is derived from the memories alone (their ``thread`` and ``thread_pos``), the same
rules ingest applies (``ingest/threads.py``): FOLLOWS from each member to the next, nothing else;
each member's window row spans ``[context] before`` / ``after`` members around it. ``repair``
writes the expected edges and windows (removing FOLLOWS edges that should not be there).
"""

from __future__ import annotations

from graphmem.config import ContextSettings, EdgeSettings
from graphmem.ingest.threads import FOLLOWS, follows_edge, thread_orders, window_row
from graphmem.model import Edge, Memory, window_namespace
from graphmem.stores.base import MemoryStore


def expected_threads(mems: list[Memory], context: ContextSettings,
                     edges: EdgeSettings) -> tuple[dict[tuple[str, str, str], Edge], dict[str, Memory]]:
    """FOLLOWS edges by key and window rows by id, as ingest would have written them."""
    follows: dict[tuple[str, str, str], Edge] = {}
    windows: dict[str, Memory] = {}
    for order in thread_orders(mems).values():
        for left, right in zip(order, order[1:], strict=False):
            edge = follows_edge(left.namespace, left, right, edges.follows_weight)
            follows[edge.key] = edge
        if context.enabled:
            for i, mem in enumerate(order):
                span = order[max(0, i - context.before): i + context.after + 1]
                windows[mem.id] = window_row(mem.namespace, mem, span, context.separator)
    return follows, windows


def thread_problems(store: MemoryStore, ns: str, mems: list[Memory], stored_edges: list[Edge],
                    context: ContextSettings, edges: EdgeSettings,
                    repair: bool) -> list[tuple[str, str, list[str], bool]]:
    """(kind, detail, ids, repaired) for each way the threads differ from what ingest maintains."""
    follows, windows = expected_threads(mems, context, edges)
    have = {e.key: e for e in stored_edges if e.type == FOLLOWS}
    missing = [e for k, e in follows.items() if k not in have]
    extra = [e for k, e in have.items() if k not in follows]
    wns = window_namespace(ns)
    stored_windows = store.get_memories(wns, sorted(windows)) if windows else {}
    stale = sorted(i for i, w in windows.items()
                   if i not in stored_windows or stored_windows[i].content != w.content
                   or stored_windows[i].metadata.get("turns") != w.metadata["turns"])
    members = {m.id for m in mems if m.thread is not None}
    orphans = sorted(i for i in store.get_memories(wns, sorted({m.id for m in mems})) if i not in members)
    out: list[tuple[str, str, list[str], bool]] = []
    if missing or extra:
        if repair:
            store.write_edges(missing, extra)
        out.append(("follows_chain", f"{len(missing)} FOLLOWS edges missing, {len(extra)} that no thread order "
                                     "gives", sorted({e.a for e in missing + extra}), repair))
    if stale:
        if repair:
            for start in range(0, len(stale), 200):
                store.save_batch([windows[i] for i in stale[start:start + 200]], [], [])
        out.append(("context_windows", f"{len(stale)} thread members' context windows are missing or out of "
                                       "date", stale, repair))
    if orphans:
        if repair:
            for i in orphans:
                store.delete_memory(wns, i)
        out.append(("orphan_windows", f"{len(orphans)} context windows belong to no thread member", orphans,
                    repair))
    return out
