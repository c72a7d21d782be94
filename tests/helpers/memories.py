"""Memories for the store tests: deterministic unit vectors, timestamps, ``Memory`` builders, the
recall corpus and its filters. Expected values are computed from these, never from another store.

The vector index has one dimension per database and the service uses 384, so the store tests use
deterministic 384-dim unit vectors and ``ensure_schema(MODEL, DIM)``: the Neo4j test database is
shared with the engine tests, and a store refuses another model than the one it records."""

from __future__ import annotations

import random
import uuid
import zlib
from datetime import datetime, timedelta, timezone

import numpy as np

from graphmem.model import Edge, Memory, MemoryFilter
from tests.embedding_model import TEST_MODEL

DIM = 384
MODEL = TEST_MODEL
BASE_TIME = datetime(2025, 3, 1, tzinfo=timezone.utc)
NOW = "2025-03-01T00:01:40.000000Z"  # ts(100)


def new_namespace(tag: str = "t") -> str:
    return f"test-{tag}-{uuid.uuid4().hex[:12]}"


def unit(seed: int, dim: int = DIM) -> np.ndarray:
    v = np.random.RandomState(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def near(base: np.ndarray, seed: int, noise: float) -> np.ndarray:
    v = base + noise * unit(seed, base.shape[0])
    return (v / np.linalg.norm(v)).astype(np.float32)


def ts(seconds: float) -> str:
    return (BASE_TIME + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def mem(ns: str, id_: str, *, t: float = 0, text: str | None = None, seed: int | None = None, **kw) -> Memory:
    words = (text or f"note {id_}").split()
    fields = dict(content=" ".join(words), content_hash=f"hash-{id_}", created_at=ts(t), updated_at=ts(t),
                  embedding=unit(zlib.crc32(id_.encode()) if seed is None else seed),
                  term_counts={w: words.count(w) for w in dict.fromkeys(words)})
    fields.update(kw)
    return Memory(id=id_, namespace=ns, **fields)


def save(store, *mems: Memory, edges: list[Edge] = ()) -> None:
    """Store ``mems`` (in one batch when they are new rows of one namespace, as an import writes
    them: a round trip per memory is most of a Neo4j test's time), then ``edges``."""
    ids = [m.id for m in mems]
    batchable = (len(mems) > 1 and len({m.namespace for m in mems}) == 1 and len(set(ids)) == len(ids)
                 and not store.get_memories(mems[0].namespace, ids))
    if batchable:
        store.save_batch(list(mems), [], [])
    for m in () if batchable else mems:
        store.save_memory(m, [], [])
    if edges:  # edges are written with their first endpoint (one transaction)
        first = store.get_memories(edges[0].namespace, [edges[0].a])[edges[0].a]
        store.save_memory(first, list(edges), [])


def as_dict(m: Memory) -> dict:
    return {**m.to_dict(include_embedding=True), "content_hash": m.content_hash, "term_counts": m.term_counts}


def exact_vector(mems: list[Memory], q: np.ndarray, limit: int, flt: MemoryFilter, now: str) -> list[str]:
    scored = [(-float(np.dot(m.embedding, q)), m.id) for m in mems
              if m.embedding is not None and flt.matches(m, now)]
    return [i for _, i in sorted(scored)[:limit]]



def recall_corpus(ns: str) -> list[Memory]:
    rng = random.Random(5)
    words = ["alpha", "beta", "gamma", "delta", "x.yaml", "v1-2", "snake_case"]
    out = []
    for i in range(30):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        out.append(mem(ns, f"r{i:02d}", t=i, text=text, seed=1000 + i,
                       tags=[t for t in ("a", "b") if rng.random() < 0.5],
                       category=rng.choice(["c1", "c2", None]), source=rng.choice(["s1", "s2"]),
                       health=rng.choice([0.1, 0.5, 0.75, 1.0]),
                       expires_at=rng.choice([None, None, ts(50), ts(100), ts(500)]),
                       embedding=None if i % 11 == 5 else unit(1000 + i), **_validity(i)))
    return out


def _validity(i: int) -> dict:
    """Facts that change: every fourth memory superseded 20 s after it was written, every fifth
    valid only from 40 s after it (``as_of`` and ``current_only`` then drop different memories)."""
    out: dict = {}
    if i % 4 == 1:
        out.update(superseded_by=f"r{i + 1:02d}", valid_until=ts(i + 20))
    if i % 5 == 2:
        out.update(valid_from=ts(i + 40))
    return out


FILTERS = [MemoryFilter(), MemoryFilter(include_expired=True), MemoryFilter(tags=["a"]),
           MemoryFilter(tags=["a", "b"]), MemoryFilter(categories=["c1", "c2"]), MemoryFilter(sources=["s2"]),
           MemoryFilter(min_health=0.5), MemoryFilter(max_health=0.5),
           MemoryFilter(min_health=0.5, max_health=0.75), MemoryFilter(created_after=ts(10)),
           MemoryFilter(created_before=ts(20)),
           MemoryFilter(tags=["b"], categories=["c1"], created_after=ts(3), created_before=ts(25),
                        include_expired=True),
           MemoryFilter(current_only=True), MemoryFilter(as_of=ts(15)),
           MemoryFilter(as_of=ts(45), include_expired=True),
           MemoryFilter(as_of=ts(30), current_only=True, tags=["a"])]


def link(ns: str, x: str, y: str, type_: str = "OVERLAPS", weight: float = 0.5, **reason) -> Edge:
    return Edge.make(ns, x, y, type_, weight, reason or {"terms": sorted([x, y]), "n": 2})


def key_sorted(edges: list[Edge]) -> list[Edge]:
    return sorted(edges, key=lambda e: (e.a, e.b, e.type))
