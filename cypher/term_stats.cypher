// term_stats.cypher: BM25 corpus statistics of one namespace.
// Parameters: $namespace (string), $terms (list<string>, distinct).
// Returns: one row {n_docs: int, total_length: int, df: list<[term, df]>} (terms that no
//   memory contains are absent from df).
OPTIONAL MATCH (s:NamespaceStats {namespace: $namespace}) USING INDEX SEEK s:NamespaceStats(namespace)
RETURN coalesce(s.n_docs, 0) AS n_docs,
       coalesce(s.total_length, 0) AS total_length,
       COLLECT {
         UNWIND $terms AS term
         MATCH (d:TermDF {namespace: $namespace, term: term}) USING INDEX SEEK d:TermDF(namespace, term)
         RETURN [term, d.df]
       } AS df;
