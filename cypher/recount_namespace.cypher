// recount_namespace.cypher: rebuild the maintained counts of one namespace from its memories
// (graphmem check --repair). Statements run in order in one write transaction.
// Parameters: $namespace (string).
// Returns: nothing.
MATCH (d:TermDF {namespace: $namespace}) DELETE d;
MATCH (m:Memory {namespace: $namespace})
UNWIND m.term_keys AS term
WITH term, count(*) AS df
CREATE (:TermDF {namespace: $namespace, term: term, df: df});
MATCH (c:CategoryCount {namespace: $namespace}) DELETE c;
MATCH (m:Memory {namespace: $namespace}) WHERE m.category IS NOT NULL
WITH m.category AS category, count(*) AS n
CREATE (:CategoryCount {namespace: $namespace, category: category, n: n});
MERGE (s:NamespaceStats {namespace: $namespace})
SET s.n_docs = COUNT { MATCH (m:Memory {namespace: $namespace}) },
    s.total_length = coalesce(COLLECT { MATCH (m:Memory {namespace: $namespace}) RETURN sum(m.doc_length) }[0], 0);
