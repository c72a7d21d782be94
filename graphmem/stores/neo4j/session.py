"""Write sessions of the Neo4j store: one explicit transaction held across a read-plan-write
sequence (an ingest's duplicate check, linking reads and save), under the write lock of every
namespace it touches (``cypher/namespace_lock.cypher``).

The lock is a node per namespace that each write transaction updates first, so the writers of a
namespace take turns across every process on the database, as SQLite's ``BEGIN IMMEDIATE`` makes
them take turns on a data dir. A session takes a namespace's lock before its first call naming
that namespace, and every call of the session (reads too) runs in its transaction: what an ingest
read (the id's absence, the linking candidates, degrees, statistics) is what its write applies
to, and nobody else writes the namespace before it commits (docs/reliability-processes.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from neo4j import Session, Transaction

from graphmem.model import WINDOW_NAMESPACE_PREFIX


def lock_key(namespace: str) -> str:
    """The namespace whose lock guards ``namespace``: a context-window namespace is written with
    its user namespace, so both share the user namespace's lock."""
    return namespace.removeprefix(WINDOW_NAMESPACE_PREFIX)


def lock_keys(namespaces: Iterable[str]) -> list[str]:
    """The distinct locks guarding ``namespaces``, sorted: every transaction takes them in one order."""
    return sorted({lock_key(ns) for ns in namespaces})


def named_namespaces(params: Mapping[str, Any]) -> list[str]:
    """The namespaces a query's parameters name (``namespace`` or ``namespaces``)."""
    found = [params["namespace"]] if isinstance(params.get("namespace"), str) else []
    many = params.get("namespaces")
    if isinstance(many, list):
        found += [ns for ns in many if isinstance(ns, str)]
    return found


class WriteSession:
    """This thread's open write session: its driver session and transaction (begun at the first
    call), the locks it holds, its last call (still running when the caller gave up on it), and
    the failure that ended it (a failed statement ends a Neo4j transaction: nothing more may run)."""

    def __init__(self) -> None:
        self.depth = 1
        self.session: Session | None = None
        self.tx: Transaction | None = None
        self.locked: set[str] = set()
        self.wrote = False
        self.pending: Future | None = None
        self.failed: str | None = None
        self.closed = False
