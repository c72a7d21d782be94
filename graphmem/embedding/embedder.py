"""Text embedders: the ``Embedder`` protocol, fastembed and cached implementations.

Why the care about loading: fastembed, when it cannot find a model locally and
HF_HUB_OFFLINE is unset, retries the hub for ~40 s before failing. graphmem must
never stall like that, so ``load_embedder`` checks the local directory first
and raises ``ModelNotPreparedError`` (naming the fix) in milliseconds; fastembed
is only imported once we know what it will load. Downloads of other fastembed
models happen only when the user opts in with GRAPHMEM_ALLOW_DOWNLOAD=1.

Inputs: an empty string embeds as ``[CLS] [SEP]`` and yields a valid unit vector;
inputs longer than the model's token limit are truncated (the tail is ignored): 256 for
all-MiniLM-L6-v2, matching sentence-transformers, 512 for e5-small-v2 (the default) and bge.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from graphmem.embedding.models import DEFAULT_MODEL, ModelSpec, model_spec
from graphmem.embedding.prepare import (
    MODEL_DIM,
    MODEL_FILE,
    default_model_dir,
    is_prepared,
)
from graphmem.embedding.prepare import MODEL_ID as PYPI_MODEL

if TYPE_CHECKING:
    from graphmem.embedding.cache import EmbeddingCache

PREPARE_HINT = "run `graphmem model prepare`"


class ModelNotPreparedError(RuntimeError):
    """The model files are not on disk; the message says how to fix it."""


@runtime_checkable
class Embedder(Protocol):
    """What the rest of graphmem embeds with: unit-norm float32 rows of ``dim``."""

    model_id: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


# Self-attention holds batch x tokens^2 values per layer: 64 passages at the 512-token cap peaked
# at 2.1 GB RSS (against 0.3 GB for the loaded model). A batch is cut so that its size times its
# widest passage squared stays within this (64 passages of 128 tokens, 4 of 512), bounding memory
# (padding is masked, so a vector does not depend on its batch beyond float rounding).
ATTENTION_BUDGET = 64 * 128 * 128
MAX_TOKENS = 512
CHARS_PER_TOKEN = 3             # an over-estimate of tokens: English WordPiece averages ~4 chars


def attention_batches(items: list[str], batch_size: int) -> Iterator[list[str]]:
    """``items`` in order, in batches of at most ``batch_size`` whose attention fits ATTENTION_BUDGET."""
    batch: list[str] = []
    widest = 0
    for text in items:
        tokens = min(MAX_TOKENS, len(text) // CHARS_PER_TOKEN + 2)
        wider = max(widest, tokens)
        if batch and (len(batch) == batch_size or (len(batch) + 1) * wider * wider > ATTENTION_BUDGET):
            yield batch
            batch, wider = [], tokens
        batch.append(text)
        widest = wider
    if batch:
        yield batch


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed_documents takes a sequence of strings, not a single string")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] is {type(t).__name__}, expected str")
    return out


@contextlib.contextmanager
def _hf_offline() -> Iterator[None]:
    """Force HF_HUB_OFFLINE=1 while fastembed resolves a local model dir."""
    old = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = old


def _register(spec: ModelSpec) -> None:
    """Tell fastembed how ``spec`` pools and normalises (once per process)."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    if any(m["model"] == spec.fastembed_name for m in TextEmbedding.list_supported_models()):
        return
    TextEmbedding.add_custom_model(
        spec.fastembed_name, pooling=PoolingType.CLS if spec.pooling == "cls" else PoolingType.MEAN,
        normalization=spec.normalize, sources=ModelSource(hf=spec.name), dim=spec.dim, model_file=MODEL_FILE,
        license=spec.license)


class FastEmbedder:
    """``Embedder`` backed by fastembed's ``TextEmbedding`` (ONNX Runtime, CPU).

    With ``model_dir`` the model loads from that directory only (never the hub);
    without it fastembed resolves ``model_name`` itself, which may download. A model from
    ``models.py`` is used as its card says: its pooling and normalisation (registered with
    fastembed) and its query / passage prefixes (added here).
    """

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        model_dir: str | Path | None = None,
        batch_size: int = 64,
        threads: int | None = None,
        spin_wait: bool = True,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        spec = model_spec(model_name)
        custom = spec is not None and spec.maven is not None
        self.model_id = spec.name if spec is not None else model_name
        self.query_prefix = spec.query_prefix if spec is not None else ""
        self.passage_prefix = spec.passage_prefix if spec is not None else ""
        self._spec_dim = spec.dim if spec is not None else None
        self.batch_size = batch_size
        self.model_dir = Path(model_dir).expanduser() if model_dir is not None else None
        kwargs: dict[str, Any] = {"model_name": spec.fastembed_name if custom and spec else model_name,
                                  "threads": threads}
        if self.model_dir is not None:
            if not (self.model_dir / MODEL_FILE).is_file():
                raise ModelNotPreparedError(
                    f"no {MODEL_FILE} in {self.model_dir}; {PREPARE_HINT}"
                    + ("" if model_name == DEFAULT_MODEL else " or point model_dir at an export")
                )
            kwargs.update(specific_model_path=str(self.model_dir), local_files_only=True)

        # Imported late (~1 s), only once we know what fastembed will load.
        from fastembed import TextEmbedding

        if custom and spec is not None:
            _register(spec)

        if self.model_dir is not None:
            with _hf_offline():
                self._model = TextEmbedding(**kwargs)
        else:
            self._model = TextEmbedding(**kwargs)
        if not spin_wait:
            self._session_without_spinning()
        self.dim = self._resolve_dim()
        # fastembed does not promise thread safety; serialising costs little because
        # onnxruntime already spreads one call over all cores.
        self._lock = threading.Lock()

    def _session_without_spinning(self) -> None:
        """The ONNX Runtime session again, its workers sleeping when idle (the session options
        ``session.intra_op.allow_spinning`` / ``inter_op`` = 0); fastembed exposes no such option,
        so its session is replaced by one with the same model, threads and providers."""
        import onnxruntime as ort  # type: ignore[import-untyped]

        holder: Any = self._model.model
        old = holder.model
        previous = old.get_session_options()
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = previous.intra_op_num_threads
        options.inter_op_num_threads = previous.inter_op_num_threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        holder.model = ort.InferenceSession(old._model_path, sess_options=options,
                                            providers=old.get_providers())

    def _resolve_dim(self) -> int:
        if self.model_id == PYPI_MODEL:
            return MODEL_DIM
        if self._spec_dim is not None:
            return self._spec_dim
        try:
            return int(self._model.embedding_size)
        except (ValueError, AttributeError):  # pragma: no cover - custom models
            return int(next(iter(self._model.embed([""]))).shape[-1])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (as passages) in batches of ``batch_size``; shape (n, dim), float32."""
        return self._embed([self.passage_prefix + t for t in _check_texts(texts)])

    def _embed(self, items: list[str]) -> np.ndarray:
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            rows = [row for batch in attention_batches(items, self.batch_size)
                    for row in self._model.embed(batch, batch_size=len(batch))]
        out = np.asarray(np.stack(rows), dtype=np.float32)
        if out.shape != (len(items), self.dim):
            raise RuntimeError(f"model returned shape {out.shape}, expected ({len(items)}, {self.dim})")
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query with the model's query prefix (none for MiniLM); shape (dim,)."""
        if not isinstance(text, str):
            raise TypeError(f"text is {type(text).__name__}, expected str")
        return self._embed([self.query_prefix + text])[0]


class CachedEmbedder:
    """Wraps an ``Embedder`` with an ``EmbeddingCache``: only uncached texts are embedded.

    Repeated texts within one call are embedded once. Results equal the inner
    embedder's bit for bit (vectors are stored as raw float32).
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache) -> None:
        self.inner = inner
        self.cache = cache
        self.model_id = inner.model_id
        self.dim = inner.dim

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        items = _check_texts(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        hits = self.cache.get_many(self.model_id, items)
        for i, vec in hits.items():
            out[i] = vec
        missing: dict[str, list[int]] = {}
        for i, text in enumerate(items):
            if i not in hits:
                missing.setdefault(text, []).append(i)
        if missing:
            unique = list(missing)
            vecs = np.asarray(self.inner.embed_documents(unique), dtype=np.float32)
            self.cache.put_many(self.model_id, unique, vecs)
            for text, vec in zip(unique, vecs, strict=True):
                out[missing[text]] = vec
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """Queries are cached apart from passages when the model embeds them differently."""
        if not isinstance(text, str):
            raise TypeError(f"text is {type(text).__name__}, expected str")
        if getattr(self.inner, "query_prefix", "") == getattr(self.inner, "passage_prefix", ""):
            return self.embed_documents([text])[0]
        key = self.model_id + "#query"
        hit = self.cache.get_many(key, [text])
        if 0 in hit:
            return hit[0]
        vec = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        self.cache.put_many(key, [text], vec[None, :])
        return vec


def load_embedder(
    model_name: str | None = None,
    model_dir: str | Path | None = None,
    cache_path: str | Path | None = None,
    threads: int | None = None,
    spin_wait: bool = True,
) -> Embedder:
    """Build the configured embedder, failing fast when the model is not on disk.

    model_name: argument, else env GRAPHMEM_MODEL, else DEFAULT_MODEL.
    model_dir: argument, else env GRAPHMEM_MODEL_DIR, else (default model only)
    ``default_model_dir()``. A non-default model with no dir is downloaded by fastembed
    only if GRAPHMEM_ALLOW_DOWNLOAD=1. cache_path wraps the result in a CachedEmbedder.
    threads: ONNX Runtime intra-op threads (None: its default, every core).
    spin_wait: False lets ONNX Runtime's idle workers sleep instead of spinning ([model] spin_wait).
    """
    name = model_name or os.environ.get("GRAPHMEM_MODEL") or DEFAULT_MODEL
    spec = model_spec(name)
    if model_dir is None and os.environ.get("GRAPHMEM_MODEL_DIR"):
        model_dir = os.environ["GRAPHMEM_MODEL_DIR"]
    if model_dir is None and spec is not None:
        model_dir = default_model_dir(spec.name)

    embedder: Embedder
    if model_dir is not None:
        d = Path(model_dir).expanduser()
        ready = is_prepared(d) if spec is not None else (d / MODEL_FILE).is_file()
        if not ready:
            hint = PREPARE_HINT if spec is None or spec.name == DEFAULT_MODEL else \
                f"run `graphmem model prepare --model {spec.name}`"
            raise ModelNotPreparedError(
                f"embedding model {name!r} is not prepared in {d}; {hint}"
                + (" (or set GRAPHMEM_MODEL_DIR)" if spec is not None else "")
            )
        embedder = FastEmbedder(name, model_dir=d, threads=threads, spin_wait=spin_wait)
    elif os.environ.get("GRAPHMEM_ALLOW_DOWNLOAD") == "1":
        embedder = FastEmbedder(name, threads=threads, spin_wait=spin_wait)
    else:
        raise ModelNotPreparedError(
            f"embedding model {name!r} is not available offline: set GRAPHMEM_MODEL_DIR to a "
            f"directory with its {MODEL_FILE}, or set GRAPHMEM_ALLOW_DOWNLOAD=1 to let fastembed "
            f"download it; for the default model {PREPARE_HINT}"
        )

    if cache_path is not None:
        from graphmem.embedding.cache import EmbeddingCache

        embedder = CachedEmbedder(embedder, EmbeddingCache(cache_path))
    return embedder
