"""Re-embed a whole store with another model, in batches, resumably.

Why: vectors from two models are not comparable, so a store records the model that
embedded it and refuses to open with another one (``stores.base.check_model``). Changing
the model means re-embedding every memory. That can take long on a big store, so the
progress is recorded *in the store* after every batch (the target model, the namespaces
finished, and the keyset cursor of the current one): an interrupted run picks up where it
stopped, and until it finishes the store opens only for ``graphmem reindex``.

Only embeddings change; content, tags, terms and edges stay as they are (edge weights
were computed with the old model's cosine for SAME_CATEGORY; `graphmem rescore` re-weighs
them from their reasons).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from graphmem.errors import StoreConfigError
from graphmem.model import MemoryFilter


def reindex_store(store, embedder, batch_size: int = 64,
                  progress: Callable[[int], None] | None = None, force: bool = False) -> dict[str, Any]:
    """Re-embed every memory of every namespace with ``embedder``; returns counts. The
    store must have been opened with ``ensure_schema(..., reindexing=True)``."""
    record = store.model_record()
    old, dim = record["model_id"], record["dimension"]
    if dim is not None and int(dim) != embedder.dim:
        raise StoreConfigError(f"the store holds {dim}-dim vectors, {embedder.model_id!r} makes {embedder.dim}; "
                               "reindex keeps the dimension (export and import into a new store instead)",
                               field="model")
    state = record["reindex"]
    if state and state.get("model_id") != embedder.model_id:
        raise StoreConfigError(f"an unfinished reindex to {state.get('model_id')!r} is recorded; finish it with "
                               "that model configured first", field="model")
    if not state:
        if old == embedder.model_id and not force:
            return {"model_id": old, "reindexed": 0, "resumed": False, "up_to_date": True}
        state = {"model_id": embedder.model_id, "from": old, "done": [], "cursor": {}}
    resumed = bool(state["done"] or state["cursor"])
    store.set_model_record(old or embedder.model_id, embedder.dim, state)
    count = 0
    for namespace in store.namespaces():
        if namespace in state["done"]:
            continue
        after = tuple(state["cursor"][namespace]) if namespace in state["cursor"] else None
        while True:
            batch = store.list_memories(namespace, MemoryFilter(include_expired=True), batch_size, after)
            if not batch:
                break
            vectors = np.asarray(embedder.embed_documents([m.content for m in batch]), dtype=np.float32)
            for mem, vec in zip(batch, vectors, strict=True):
                store.save_memory(replace(mem, embedding=vec), [], [])
            after = (batch[-1].created_at, batch[-1].id)
            state["cursor"][namespace] = list(after)
            store.set_model_record(old or embedder.model_id, embedder.dim, state)
            count += len(batch)
            if progress is not None:
                progress(len(batch))
        state["done"].append(namespace)
        state["cursor"].pop(namespace, None)
        store.set_model_record(old or embedder.model_id, embedder.dim, state)
    store.set_model_record(embedder.model_id, embedder.dim, None)
    return {"model_id": embedder.model_id, "from": state.get("from"), "reindexed": count, "resumed": resumed,
            "up_to_date": False}
