"""Neo4j store (Bolt): the same contract as the embedded store, over a real graph."""
from graphmem.stores.neo4j.store import Neo4jStore

__all__ = ["Neo4jStore"]
