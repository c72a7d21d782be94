// edges_clear.cypher: drop every relation edge of one memory (save_memory replace_edges=True).
// Parameters: $namespace (string), $id (string), $types (list<string>) - the relation types.
// Returns: nothing.
MATCH (m:Memory {namespace: $namespace, id: $id})-[r]-(:Memory)
USING INDEX SEEK m:Memory(namespace, id)
WHERE type(r) IN $types
WITH DISTINCT r
DELETE r;
