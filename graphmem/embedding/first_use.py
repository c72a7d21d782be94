"""The configured embedder, prepared on first use.

Why: after ``pip install`` the first ``graphmem add`` or ``graphmem serve`` should work instead
of failing with "run `graphmem model prepare`". When ``[model] prepare_on_first_use`` is on and
the configured model is one graphmem knows how to build (``embedding/models.py``), the model is
prepared by exactly the call ``graphmem model prepare`` makes for the configured model (its
name, its ``[model] dir`` or the cache), whichever model that is; when that cannot run (e.g.
the weights package is missing), its error names the one command to run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from graphmem.config import Settings
from graphmem.embedding.embedder import Embedder, ModelNotPreparedError, load_embedder
from graphmem.embedding.models import model_spec
from graphmem.embedding.prepare import PrepareResult, prepare_model


def prepare_configured(settings: Settings, force: bool = False) -> PrepareResult:
    """``graphmem model prepare`` for the configured ``[model]`` (name and dir)."""
    target = Path(settings.model.dir).expanduser() if settings.model.dir else None
    return prepare_model(target, force=force, model=settings.model.name)


def open_embedder(settings: Settings, cache_path: Path | None = None) -> Embedder:
    """``load_embedder`` for ``[model]``; a known model not yet prepared is prepared first."""
    threads = settings.model.threads or None
    try:
        return load_embedder(settings.model.name, settings.model.dir or None, cache_path=cache_path,
                             threads=threads, spin_wait=settings.model.spin_wait)
    except ModelNotPreparedError:
        if not settings.model.prepare_on_first_use or model_spec(settings.model.name) is None:
            raise
    print(f"graphmem: preparing the embedding model {settings.model.name} (first use, as "
          "`graphmem model prepare` does) ...", file=sys.stderr, flush=True)
    result = prepare_configured(settings)
    print(f"graphmem: model ready in {result.path} ({result.seconds:.1f} s)", file=sys.stderr, flush=True)
    return load_embedder(settings.model.name, settings.model.dir or None, cache_path=cache_path,
                         threads=threads, spin_wait=settings.model.spin_wait)
