"""The Neo4j server's version and topology (``/readyz``, ``graphmem stats``).

Refreshed in the background after the store's ping (so a readiness probe never waits on it)
and kept for ``server_info_ttl`` seconds: the version and the routing table
change rarely, and a probe every second should not add two round trips each time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neo4j.exceptions import ClientError

from graphmem.model import ServerInfo

Read = Callable[..., list[Any]]


def topology(servers: dict[str, list[str]]) -> str:
    """"cluster" when the routing table names more than one server, "single" when one,
    "unknown" when the server gave no table."""
    addresses = {a for found in servers.values() for a in found}
    if not addresses:
        return "unknown"
    return "cluster" if len(addresses) > 1 else "single"


def fetch(read: Read, database: str) -> ServerInfo:
    """Version and edition from ``dbms.components()``, roles from the routing table. A server
    that refuses the routing procedure (permissions, old versions) still reports its version."""
    rows = read("server_version")
    version, edition = (rows[0]["version"], rows[0]["edition"]) if rows else ("unknown", "unknown")
    servers: dict[str, list[str]] = {}
    try:
        for row in read("routing_table", database=database):
            servers.setdefault(str(row["role"]), []).extend(sorted(str(a) for a in row["addresses"]))
    except ClientError:
        servers = {}
    return ServerInfo("neo4j", str(version), str(edition), topology(servers), servers)
