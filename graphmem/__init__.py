"""graphmem: a graph memory service for AI agents.

Retrieval returns the matching memory *and* the related skill, config note or rule that lives in
another record, through a small deterministic and explainable layer after the first search.

The public surface is what ``_EXPORTS`` names (``__all__``); everything else is private and may
change. Calls answer with the models of ``graphmem.contract.responses`` (``CreateResult``,
``Memory``, ``Edge``, ``SearchResponse``, ...), as the HTTP client does::

    import graphmem

    with graphmem.open() as gm:          # the per-user store (data_dir="..." picks another)
        gm.add({"content": "Backups of the ledger database rotate every night", "tags": ["backups"]})
        for hit in gm.search("when do backups run?").results:   # a contract.responses.SearchResponse
            print(hit.id, hit.why)

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
    "contract": "graphmem.contract",          # the module: request and response models
    "MemoryFilter": "graphmem.model",            # an input: the filters of search and list_memories
    "SearchOutcome": "graphmem.retrieval.pipeline",
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

__all__ = ["__version__", *_EXPORTS]

if TYPE_CHECKING:      # the same names, for type checkers (the lazy loader gives them at run time)
    from graphmem import contract  # noqa: F401
    from graphmem._open import open  # noqa: F401
    from graphmem.client import GraphmemClient, GraphmemClientError  # noqa: F401
    from graphmem.config import Settings, load_settings  # noqa: F401
    from graphmem.engine import Graphmem  # noqa: F401
    from graphmem.errors import (  # noqa: F401
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
    from graphmem.model import MemoryFilter  # noqa: F401
    from graphmem.retrieval.pipeline import SearchOutcome  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    found = import_module(module)
    value = found if module == f"graphmem.{name}" else getattr(found, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
