// await_indexes.cypher: wait until every index is ONLINE (after schema.cypher).
// Parameters: $timeout_seconds (int).
CALL db.awaitIndexes($timeout_seconds);
