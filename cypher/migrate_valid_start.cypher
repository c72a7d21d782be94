// migrate_valid_start.cypher: give memories written before layout 3 their valid_start.
//
// Run once by ensure_schema on a database whose Meta.layout < 3, as an auto-commit query
// (CALL ... IN TRANSACTIONS, so a large graph is written in batches). Idempotent: only
// memories still missing valid_start are touched; memory_upsert.cypher writes the same value
// (records.memory_props: valid_from, else created_at), which as_of filters compare.
// Parameters: none.
// Returns: nothing.
MATCH (m:Memory)
WHERE m.valid_start IS NULL
CALL (m) {
  SET m.valid_start = coalesce(m.valid_from, m.created_at)
} IN TRANSACTIONS OF 5000 ROWS;
