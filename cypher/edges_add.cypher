// edges_add.cypher: create or update edges of ONE relation type, stored a -> b.
//
// {{TYPE}} is replaced by the loader with a relationship type from the fixed whitelist
// graphmem.model.EDGE_TYPES (SHARES_TAG, SAME_CATEGORY, OVERLAPS, RELATED); a type cannot
// be a parameter in MERGE. An edge whose endpoints do not both exist is skipped.
//
// Parameters: $edges (list<map {namespace, a, b, weight: float, reason: JSON string}>).
// Returns: nothing.
UNWIND $edges AS e
MATCH (a:Memory {namespace: e.namespace, id: e.a}) USING INDEX SEEK a:Memory(namespace, id)
MATCH (b:Memory {namespace: e.namespace, id: e.b}) USING INDEX SEEK b:Memory(namespace, id)
MERGE (a)-[r:{{TYPE}}]->(b)
SET r.weight = e.weight, r.reason = e.reason;
