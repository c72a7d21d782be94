"""Embedded store: SQLite (WAL, one transaction per write) + a derived tantivy full-text index
(``lexical.py``, caught up from the change log after each commit) + in-process vectors.

Safe for many threads and several processes on one data dir: each thread reads on its own
connection; writes serialise on the database (``connection.SQLiteBase``), and an ingest holds one
``write_session`` from its duplicate check to its save. Every value reaches SQL as a bound parameter.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Iterator, Sequence

import numpy as np

from graphmem.errors import ValidationError
from graphmem.fastjson import loads
from graphmem.model import Edge, Memory
from graphmem.stores.base import iter_pages, neighbors_then_memories
from graphmem.stores.sqlite import vector_log
from graphmem.stores.sqlite.admin import AdminMixin
from graphmem.stores.sqlite.reads import _COLUMNS, ReadsMixin
from graphmem.stores.sqlite.search import SearchMixin
from graphmem.stores.sqlite.validity_mask import memory_validity


class SQLiteStore(AdminMixin, SearchMixin, ReadsMixin):
    kind = "sqlite"

    # -- writes ------------------------------------------------------------------------
    @staticmethod
    def _add_counts(db, memories: list[Memory]) -> None:
        """Term document frequencies, label counts and namespace totals for memories being added,
        summed over the whole batch first: one upsert per distinct term or label, not per memory."""
        terms: Counter[tuple[str, str]] = Counter()
        labels: Counter[tuple[str, str, str]] = Counter()
        totals: dict[str, list[int]] = {}
        for mem in memories:
            terms.update((mem.namespace, t) for t in mem.term_counts)
            labels.update((mem.namespace, "tag", t) for t in mem.index_labels)
            if mem.category:
                labels[(mem.namespace, "category", mem.category)] += 1
            total = totals.setdefault(mem.namespace, [0, 0])
            total[0] += 1
            total[1] += sum(mem.term_counts.values())
        db.executemany("INSERT INTO term_df VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET df = df + excluded.df",
                       [(*key, n) for key, n in terms.items()])
        db.executemany("INSERT INTO label_counts VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n",
                       [(*key, n) for key, n in labels.items()])
        db.executemany("INSERT INTO namespace_stats VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET "
                       "n_docs = n_docs + excluded.n_docs, total_length = total_length + excluded.total_length",
                       [(ns, n, length) for ns, (n, length) in totals.items()])

    @staticmethod
    def _subtract_counts(db, namespace: str, counts: dict[str, int], tags: list[str],
                         category: str | None) -> None:
        """The counts of a memory being removed; touches only that memory's own rows."""
        terms = [(namespace, t) for t in counts]
        labels = [(namespace, "tag", t) for t in tags] + ([(namespace, "category", category)] if category else [])
        db.executemany("UPDATE term_df SET df = df - 1 WHERE namespace = ? AND term = ?", terms)
        db.executemany("DELETE FROM term_df WHERE namespace = ? AND term = ? AND df <= 0", terms)
        db.executemany("UPDATE label_counts SET n = n - 1 WHERE namespace = ? AND kind = ? AND label = ?", labels)
        db.executemany("DELETE FROM label_counts WHERE namespace = ? AND kind = ? AND label = ? AND n <= 0",
                       labels)
        db.execute("INSERT INTO namespace_stats VALUES (?, -1, ?) ON CONFLICT DO UPDATE SET "
                   "n_docs = n_docs + excluded.n_docs, total_length = total_length + excluded.total_length",
                   (namespace, -sum(counts.values())))

    def _remove_row(self, db, namespace: str, memory_id: str) -> bool:
        row = db.execute("SELECT rowid, term_counts_json, tags_json, category, topics_json FROM memories "
                         "WHERE namespace = ? AND id = ?", (namespace, memory_id)).fetchone()
        if row is None:
            return False
        old = Memory(memory_id, namespace, "", "", tags=loads(row[2]), topics=loads(row[4] or "[]"))
        labels = old.index_labels
        self._subtract_counts(db, namespace, loads(row[1]), labels, row[3])
        db.execute("DELETE FROM memory_tags WHERE namespace = ? AND memory_id = ?", (namespace, memory_id))
        db.execute("DELETE FROM memories WHERE rowid = ?", (row[0],))
        return True

    @staticmethod
    def _delete_edges_of(db, namespace: str, memory_id: str) -> None:
        """Two key lookups (primary key on a, edges_b on b); an OR here walks the namespace."""
        db.execute("DELETE FROM edges WHERE namespace = ? AND a = ?", (namespace, memory_id))
        db.execute("DELETE FROM edges WHERE namespace = ? AND b = ?", (namespace, memory_id))

    @staticmethod
    def _apply_edges(db, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        db.executemany("DELETE FROM edges WHERE namespace = ? AND a = ? AND b = ? AND type = ?",
                       [(e.namespace, e.a, e.b, e.type) for e in remove_edges])
        # A graph cannot hold an edge to a missing memory: such edges are skipped.
        db.executemany(
            "INSERT OR REPLACE INTO edges SELECT ?, ?, ?, ?, ?, ? WHERE "
            "(SELECT count(*) FROM memories WHERE namespace = ?1 AND id IN (?2, ?3)) = 2",
            [(e.namespace, e.a, e.b, e.type, e.weight, json.dumps(e.reason, sort_keys=True)) for e in add_edges])

    def write_edges(self, add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        with self._write() as db:
            self._apply_edges(db, add_edges, remove_edges)

    def save_memory(self, mem: Memory, add_edges: list[Edge], remove_edges: list[Edge],
                    replace_edges: bool = False, also: Sequence[Memory] = ()) -> None:
        self._save([mem, *also], add_edges, remove_edges, replace_edges)

    def save_batch(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge]) -> None:
        self._save(memories, add_edges, remove_edges, False)

    def _save(self, memories: list[Memory], add_edges: list[Edge], remove_edges: list[Edge],
              replace_edges: bool) -> None:
        for mem in memories:
            if mem.embedding is not None and self.dim and np.asarray(mem.embedding).shape != (self.dim,):
                raise ValidationError(f"embedding has shape {np.asarray(mem.embedding).shape}; this store "
                                      f"holds {self.dim}-dim vectors", field="embedding")
        with self._locked():   # commit and cache update in one critical section: applied in commit order
            with self._write() as db:
                if len({(m.namespace, m.id) for m in memories}) == len(memories):
                    seqs = [self._write_row(db, mem, replace_edges) for mem in memories]
                    self._add_counts(db, memories)
                else:                   # one id twice: each row's counts before the next replaces it
                    seqs = []
                    for mem in memories:
                        seqs.append(self._write_row(db, mem, replace_edges))
                        self._add_counts(db, [mem])
                self._apply_edges(db, add_edges, remove_edges)
            self._after_commit(lambda: self._apply_saved(memories, seqs))

    def _apply_saved(self, memories: Sequence[Memory], seqs: list[int]) -> None:
        """After the commit: each namespace's vectors as the batch left them (an id written twice
        counts by its last row), in one bulk upsert per namespace, then the full-text index."""
        if self.vectors is not None:
            for namespace in dict.fromkeys(m.namespace for m in memories):
                final = {m.id: m for m in memories if m.namespace == namespace}
                for memory_id in [i for i, m in final.items() if m.embedding is None]:
                    self.vectors.remove(namespace, memory_id)
                put = [m for m in final.values() if m.embedding is not None]
                if put:
                    self.vectors.upsert_many(namespace, [m.id for m in put],
                                             np.stack([np.asarray(m.embedding, dtype=np.float32) for m in put]),
                                             [memory_validity(m) for m in put])
            for seq in seqs:
                self.vectors.applied_own(seq)
        for namespace, count in Counter(m.namespace for m in memories).items():
            self._keep_in_step(namespace, count)
        self._index_lexical()

    def _keep_in_step(self, namespace: str, written: int) -> None:
        """A process that has written ``warm_after`` memories to a namespace keeps its vectors (and
        its approximate index, attached as the namespace passes the threshold) loaded and current,
        saving the index every ``save_every`` changes, so the first search after a load finds it
        current. (``get`` loads it the first time, and attaches the index when due.)"""
        self.written[namespace] += written
        vectors = self.vectors
        if vectors is None or not self.warm_after or self.written[namespace] < self.warm_after:
            return
        vectors.get(namespace, self._load_vectors, self.db)
        if vectors.save_every:
            vectors.save(at_least=vectors.save_every)

    def _index_lexical(self) -> None:
        """After a commit: the full-text index catches up once enough changes are pending, unless
        another process or thread holds its writer (lookups merge the pending rows meanwhile)."""
        if self.lexical is not None:
            self.lexical.after_commit(self.db)

    def _write_row(self, db, mem: Memory, replace_edges: bool) -> int:
        """One memory's rows, term counts and vector log entry (whose sequence number it returns)."""
        self._remove_row(db, mem.namespace, mem.id)
        if replace_edges:
            self._delete_edges_of(db, mem.namespace, mem.id)
        db.execute(f"INSERT INTO memories ({_COLUMNS}) VALUES ({','.join('?' * 30)})", (
            mem.namespace, mem.id, mem.content, mem.content_hash, json.dumps(mem.tags), mem.category,
            mem.source, mem.reason, json.dumps(mem.metadata), mem.created_at, mem.updated_at,
            mem.valid_until, mem.expires_at,
            None if mem.embedding is None else np.asarray(mem.embedding, dtype=np.float32).tobytes(),
            mem.health, mem.health_reasons_json(), mem.source_weight, json.dumps(mem.term_counts),
            mem.doc_length, mem.near_duplicate_of,
            None if mem.evidence is None else json.dumps(mem.evidence), json.dumps(mem.topics),
            mem.thread, mem.seq, mem.thread_pos, mem.valid_from, mem.superseded_by, mem.effective_valid_from,
            json.dumps(mem.times), json.dumps(mem.entities)))
        db.executemany("INSERT INTO memory_tags VALUES (?, ?, ?, ?)",
                       [(mem.namespace, t, mem.id, mem.created_at) for t in mem.index_labels])
        return vector_log.record(db, mem.namespace, mem.id, self.vector_log_keep)

    def delete_memory(self, namespace: str, memory_id: str, companions: Sequence[str] = (),
                      save: Sequence[Memory] = (), add_edges: Sequence[Edge] = ()) -> bool:
        with self._locked():
            deleted: list[tuple[str, int]] = []
            with self._write() as db:
                existed = False
                for ns in (namespace, *companions):
                    found = self._remove_row(db, ns, memory_id)
                    existed = existed or (found and ns == namespace)
                    self._delete_edges_of(db, ns, memory_id)
                    if found or ns == namespace:
                        deleted.append((ns, vector_log.record(db, ns, memory_id, self.vector_log_keep)))
                seqs = [self._write_row(db, mem, False) for mem in save]
                self._add_counts(db, list(save))
                self._apply_edges(db, list(add_edges), [])
            self._after_commit(lambda: self._apply_vectors(memory_id, deleted, save, seqs))
        return existed

    def _apply_vectors(self, memory_id: str, deleted: list[tuple[str, int]], save: Sequence[Memory],
                       seqs: list[int]) -> None:
        if self.vectors is not None:
            for ns, seq in deleted:
                self.vectors.remove(ns, memory_id)
                self.vectors.applied_own(seq)
        self._apply_saved(save, seqs)       # and the full-text index

    def update_health(self, namespace: str, updates: list[tuple[str, float, list, float]]) -> int:
        with self._write() as db:
            db.executemany(
                "UPDATE memories SET health = ?, health_reasons_json = ?, source_weight = ? "
                "WHERE namespace = ? AND id = ?",
                [(h, json.dumps([p.to_dict() for p in reasons]), w, namespace, i) for i, h, reasons, w in updates])
        return len(updates)

    def iter_memories(self, namespace: str, batch_size: int = 500) -> Iterator[list[Memory]]:
        return iter_pages(self, namespace, batch_size)

    def neighbors_with_memories(self, namespace: str, seed_ids: list[str], per_seed: int, min_weight: float,
                                edge_types: list[str], known_ids: Collection[str]
                                ) -> tuple[list[Edge], dict[str, Memory]]:
        return neighbors_then_memories(self, namespace, seed_ids, per_seed, min_weight, edge_types, known_ids)
