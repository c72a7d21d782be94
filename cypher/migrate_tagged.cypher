// migrate_tagged.cypher: give TAGGED links written before layout 2 their index properties.
//
// Run once by ensure_schema on a database whose Meta.layout < 2, as an auto-commit query
// (CALL ... IN TRANSACTIONS, so a large graph is written in batches). Idempotent: only
// links still missing memory_id are touched; memory_upsert.cypher sets the same values.
// Parameters: none.
// Returns: nothing.
MATCH ()-[link:TAGGED]->()
WHERE link.memory_id IS NULL
CALL (link) {
  WITH link, startNode(link) AS m, endNode(link) AS t
  SET link.namespace = m.namespace, link.tag = t.name, link.created_at = m.created_at,
      link.memory_id = m.id
} IN TRANSACTIONS OF 5000 ROWS;
