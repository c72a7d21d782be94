// edges_remove.cypher: delete the given edges (matched in their stored direction a -> b).
// Parameters: $edges (list<map {namespace, a, b, type}>).
// Returns: nothing.
UNWIND $edges AS e
MATCH (a:Memory {namespace: e.namespace, id: e.a})-[r]->(b:Memory {namespace: e.namespace, id: e.b})
USING INDEX SEEK a:Memory(namespace, id)
WHERE type(r) = e.type
DELETE r;
