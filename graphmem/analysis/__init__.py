"""Graph analysis: mirror a store's graph into networkx, measure it, export it.

- ``mirror``: ``mirror_ids``, ``mirror_query``, ``mirror_namespace`` (store contract only, so
  the embedded SQLite store and Neo4j give the same graph).
- ``metrics``: weight/degree distributions, hubs, components, communities, bridges, and
  ``edge_attribution`` (which edge types brought relevant neighbours into the top k).
- ``export``: GraphML, GEXF and the API's graph JSON.
"""

from graphmem.analysis.export import export_graph, read_graph, to_json
from graphmem.analysis.mirror import (
    iter_namespace,
    mark_results,
    mirror_ids,
    mirror_namespace,
    mirror_query,
    same_graph,
    subgraph,
)

__all__ = ["export_graph", "iter_namespace", "mark_results", "mirror_ids", "mirror_namespace", "mirror_query",
           "read_graph", "same_graph", "subgraph", "to_json"]
