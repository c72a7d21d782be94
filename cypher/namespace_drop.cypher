// namespace_drop.cypher: delete everything stored for one namespace (admin, test cleanup).
//
// Runs as an auto-commit query (CALL ... IN TRANSACTIONS), batching large namespaces.
// Parameters: $namespace (string).
// Returns: nothing.
CALL () {
  MATCH (n:Memory {namespace: $namespace}) RETURN n
  UNION ALL
  MATCH (n:Tag) WHERE n.namespace = $namespace RETURN n
  UNION ALL
  MATCH (n:Entity) WHERE n.namespace = $namespace RETURN n
  UNION ALL
  MATCH (n:TermDF) WHERE n.namespace = $namespace RETURN n
  UNION ALL
  MATCH (n:CategoryCount) WHERE n.namespace = $namespace RETURN n
  UNION ALL
  MATCH (n:NamespaceStats {namespace: $namespace}) RETURN n
}
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 1000 ROWS;
