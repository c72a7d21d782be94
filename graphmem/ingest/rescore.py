"""Re-scoring stored memories under the current rules: health, source ranks, terms, topics
and the weights of their automatic edges."""

from __future__ import annotations

from dataclasses import replace

from graphmem.ingest.build import memory_times
from graphmem.ingest.context import IngestContext
from graphmem.ingest.entities import extract_entities
from graphmem.ingest.health import assess_health, health_score, kept_penalties
from graphmem.ingest.linking import reason_labels, reweigh
from graphmem.ingest.source import source_weight
from graphmem.ingest.topics import extract_topics
from graphmem.model import LINK_TYPES, Edge
from graphmem.text import term_counts


def rescore(ingestor: IngestContext, namespace: str | None = None) -> dict[str, int]:
    """Re-apply health rules and source ranks to stored memories, re-derive their terms with the
    current tokeniser (a store written by an older release is brought up to date), and re-weigh
    their automatic edges from the stored reasons under the current edge rules and tag counts
    (tags grow common after an edge is made). Extracted topics are re-derived under ``[topics]``
    (a store written before topics gains them) and a memory whose topics change is re-linked; its
    relative time phrases are re-resolved under ``[time]`` (``ingest/timeref.py``) and its entity
    mentions re-extracted under ``[entities]`` (their MENTIONS links follow the row).
    Nothing is deleted but edges that no longer qualify."""
    settings, store = ingestor.settings, ingestor.store
    changed = seen = retokenised = reweighed = dropped = retopiced = retimed = reentitied = 0
    for ns in [namespace] if namespace else store.namespaces():
        for batch in store.iter_memories(ns):
            updates, resaves, relinks = [], [], []
            by_id = {m.id: m for m in batch}
            for mem in batch:
                seen += 1
                health, reasons = assess_health(mem.content, mem.tags, mem.category, settings.health)
                if kept_penalties(mem.health_reasons):      # supersession is not the content's rule
                    reasons = [*reasons, *kept_penalties(mem.health_reasons)]
                    health = health_score(reasons)
                weight = source_weight(mem.source, settings.sources)
                terms = term_counts(mem.content)
                topics = extract_topics(mem.content, settings.topics)
                new = replace(mem, term_counts=terms, topics=topics, health=health, health_reasons=reasons,
                              source_weight=weight)
                new.times = memory_times(settings, new)
                new.entities = extract_entities(mem.content, settings.entities)
                retimed += new.times != mem.times
                reentitied += new.entities != mem.entities
                if topics != mem.topics:
                    relinks.append((mem, new))
                elif terms != mem.term_counts or new.times != mem.times or new.entities != mem.entities:
                    resaves.append(new)
                if (health, [r.to_dict() for r in reasons], weight) != (
                        mem.health, [r.to_dict() for r in mem.health_reasons], mem.source_weight):
                    changed += 1
                    if (terms == mem.term_counts and topics == mem.topics and new.times == mem.times
                            and new.entities == mem.entities):
                        updates.append((mem.id, health, reasons, weight))
            with ingestor.serial():
                if updates:
                    store.update_health(ns, updates)
                for mem in resaves:             # the whole row, so the full-text index follows
                    store.save_memory(mem, [], [])
                for old, new in relinks:        # new topic labels: the row, its index entries and edges
                    ingestor.relink(old, new)
                upserts, removals = reweigh_edges(ingestor, ns, [m.id for m in batch])
                if upserts or removals:
                    store.write_edges(upserts, removals)
            retokenised += sum(m.term_counts != by_id[m.id].term_counts for m in resaves) + sum(
                old.term_counts != new.term_counts for old, new in relinks)
            retopiced += len(relinks)
            reweighed += len(upserts)
            dropped += len(removals)
    return {"memories": seen, "changed": changed, "terms_updated": retokenised, "topics_updated": retopiced,
            "times_updated": retimed, "entities_updated": reentitied, "edges_reweighted": reweighed,
            "edges_removed": dropped}


def reweigh_edges(ingestor: IngestContext, namespace: str, ids: list[str]) -> tuple[list[Edge], list[Edge]]:
    """Automatic edges whose ``a`` end is in ``ids`` (each edge once), re-weighed."""
    batch = set(ids)
    store = ingestor.store
    edges = [e for e in store.edges_of(namespace, ids, types=list(LINK_TYPES)) if e.a in batch]
    tags = sorted({t for e in edges if e.type == "SHARES_TAG" for t in reason_labels(e.reason)})
    tag_df = store.tag_counts(namespace, tags)
    upserts, removals = [], []
    for edge in edges:
        new = reweigh(edge, tag_df, ingestor.settings.edges)
        if new is None:
            removals.append(edge)
        elif (new.weight, new.reason) != (edge.weight, edge.reason):
            upserts.append(new)
    return upserts, removals
