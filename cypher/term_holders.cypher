// term_holders.cypher: for each term, its $limit newest holders in the namespace (created_at
// desc, id desc): linking's lexical candidates for a whole batch of new memories, one round trip.
//
// One full-text lookup per term over the memory_text index (records.lucene_queries: the
// namespace is a required clause, so other tenants' postings are skipped); the caller
// chooses the terms under a postings budget, and each term returns at most $limit rows.
//
// Parameters: $queries (list<{term: string, query: string}>), $limit (int).
// Returns: one row per term {term, holders: list<[created_at, id]>}, newest first.
UNWIND $queries AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes('memory_text', q.query) YIELD node
  WITH node ORDER BY node.created_at DESC, node.id DESC LIMIT $limit
  RETURN collect([node.created_at, node.id]) AS holders
}
RETURN q.term AS term, holders;
