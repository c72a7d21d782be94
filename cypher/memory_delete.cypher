// memory_delete.cypher: remove a memory node with every relationship touching it
// (relation edges and TAGGED links). Runs after memory_unindex.cypher in one transaction.
// Parameters: $namespace (string), $id (string).
// Returns: nothing.
MATCH (m:Memory {namespace: $namespace, id: $id}) USING INDEX SEEK m:Memory(namespace, id)
DETACH DELETE m;
