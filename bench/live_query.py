"""An embedder for benches: documents may come from a cache, queries never do.

Why: a search figure must include embedding the query, as a user's search does; a warm cache
would hide that cost (and serve repeated bench queries for free).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphmem.embedding.embedder import Embedder


class LiveQueryEmbedder:
    """Documents from the cache, queries always through the model."""

    def __init__(self, cached: Embedder, live: Embedder) -> None:
        self.cached, self.live = cached, live
        self.model_id, self.dim = live.model_id, live.dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.cached.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.live.embed_query(text)
