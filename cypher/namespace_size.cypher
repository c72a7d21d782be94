// namespace_size.cypher: how many memories a namespace holds (from NamespaceStats, O(1)).
// Parameters: $namespace (string).
// Returns: one row {n_docs: int}.
OPTIONAL MATCH (s:NamespaceStats {namespace: $namespace}) USING INDEX SEEK s:NamespaceStats(namespace)
RETURN coalesce(s.n_docs, 0) AS n_docs;
