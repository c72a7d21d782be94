// migrate_category_counts.cypher: create the CategoryCount nodes of a pre-layout-2 database.
//
// Run once by ensure_schema (Meta.layout < 2) after the indexes are online, as an
// auto-commit query in batches. Each count is written after its node is locked (SET c.n = 0
// first), so a writer running meanwhile is either counted here or adds its +1 after this
// commit, never both. Idempotent: recounts from the memories.
// Parameters: none.
// Returns: nothing.
MATCH (m:Memory)
WHERE m.category IS NOT NULL
WITH DISTINCT m.namespace AS namespace, m.category AS category
CALL (namespace, category) {
  MERGE (c:CategoryCount {namespace: namespace, category: category})
  SET c.n = 0
  WITH c
  SET c.n = COUNT {
    MATCH (x:Memory)
    WHERE x.namespace = namespace AND x.category = category
  }
} IN TRANSACTIONS OF 100 ROWS;
