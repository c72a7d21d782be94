// term_holders.cypher: for each term, every memory of the namespace holding it (linking's
// lexical candidates for a whole batch of new memories, one round trip).
//
// One full-text lookup per term over the memory_text index (records.lucene_queries: the
// namespace is a required clause, so other tenants' postings are skipped); the caller
// chooses the terms under a postings budget, so the rows stay bounded.
//
// Parameters: $queries (list<{term: string, query: string}>).
// Returns: one row per term {term, holders: list<[created_at, id]>}.
UNWIND $queries AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes('memory_text', q.query) YIELD node
  RETURN collect([node.created_at, node.id]) AS holders
}
RETURN q.term AS term, holders;
