// namespaces.cypher: every namespace that holds at least one memory, sorted.
// Parameters: none.
// Returns: rows {namespace}.
MATCH (s:NamespaceStats)
WHERE s.n_docs > 0
RETURN s.namespace AS namespace
ORDER BY namespace;
