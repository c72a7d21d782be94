"""graphmem: a graph memory service for AI agents.

Retrieval returns the matching memory *and* the related skill, config note or rule that lives in
another record, through a small deterministic and explainable layer after the first search.

The public surface is what ``__all__`` lists; everything else is private and may change::

    import graphmem

    with graphmem.open() as gm:          # the per-user store (data_dir="..." picks another)
        gm.add({"content": "Backups of the ledger database rotate every night", "tags": ["backups"]})
        for hit in gm.search("when do backups run?")["results"]:
            print(hit["id"], hit["why"])

Names load on first use, so ``import graphmem`` stays cheap for the CLI and the servers.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the private module that defines it
_EXPORTS: dict[str, str] = {
    "open": "graphmem._open",
    "Graphmem": "graphmem.engine",
    "Settings": "graphmem.config",
    "load_settings": "graphmem.config",
    "contract": "graphmem.contract",
    "Memory": "graphmem.model",
    "Edge": "graphmem.model",
    "MemoryFilter": "graphmem.model",
    "SearchOutcome": "graphmem.retrieval.pipeline",
    "IngestResult": "graphmem.ingest.service",
    "GraphmemClient": "graphmem.client",
    "GraphmemClientError": "graphmem.client",
    "GraphmemError": "graphmem.errors",
    "ValidationError": "graphmem.errors",
    "EvidenceRejected": "graphmem.errors",
    "NotFoundError": "graphmem.errors",
    "ConflictError": "graphmem.errors",
    "AuthError": "graphmem.errors",
    "ForbiddenError": "graphmem.errors",
    "StoreUnavailable": "graphmem.errors",
    "StoreConfigError": "graphmem.errors",
    "ConfigError": "graphmem.errors",
}

__all__ = [
    "__version__",
    "open",
    "Graphmem",
    "Settings",
    "load_settings",
    "contract",
    "Memory",
    "Edge",
    "MemoryFilter",
    "SearchOutcome",
    "IngestResult",
    "GraphmemClient",
    "GraphmemClientError",
    "GraphmemError",
    "ValidationError",
    "EvidenceRejected",
    "NotFoundError",
    "ConflictError",
    "AuthError",
    "ForbiddenError",
    "StoreUnavailable",
    "StoreConfigError",
    "ConfigError",
]

if TYPE_CHECKING:
    from graphmem._open import open
    from graphmem.client import GraphmemClient, GraphmemClientError
    from graphmem.config import Settings, load_settings
    from graphmem.contract import contract
    from graphmem.engine import Graphmem
    from graphmem.errors import (
        AuthError,
        ConfigError,
        ConflictError,
        EvidenceRejected,
        ForbiddenError,
        GraphmemError,
        NotFoundError,
        StoreConfigError,
        StoreUnavailable,
        ValidationError,
    )
    from graphmem.ingest.service import IngestResult
    from graphmem.model import Edge, Memory, MemoryFilter
    from graphmem.retrieval.pipeline import SearchOutcome


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
