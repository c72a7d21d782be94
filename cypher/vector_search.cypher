// vector_search.cypher: nearest memories of one namespace, filtered inside the vector index.
//
// The memory_vector index carries namespace, created_at and health as filter properties
// (schema.cypher), so the SEARCH clause keeps other tenants out during the index search
// itself: the cost follows this namespace, not the database. Null range bounds arrive as
// sentinels that pass everything ('' / '\uffff' for created_at, -1 / 2 for health). The
// filters the index cannot take (expiry, tags, categories, sources) apply to the $fetch
// hits; the caller grows $fetch when fewer than it needs pass, and scans the namespace
// exactly (vector_scan.cypher) once it is no larger than $fetch. The namespace's size (from
// NamespaceStats, O(1)) comes in the same round trip, and the index is searched only when the
// size exceeds $fetch (FILTER before SEARCH: otherwise fetched = 0, hits = []). Hits carry
// the index's own score, (1 + cos) / 2 like vector.similarity.cosine: the index re-scores its
// quantised candidates with the full vectors (measured equal to vector.similarity.cosine on
// every hit), so the embeddings are not read again here (half the query's server time).
//
// Parameters: $namespace (string), $vector (list<float>), $fetch (int),
//   $created_from, $created_to (string, never null), $health_from, $health_to (float, never null).
// Filter parameters (the meaning of graphmem.model.MemoryFilter.matches):
//   $include_expired (bool), $now (fixed-width ISO string; expired = expires_at <= $now),
//   $current_only (bool: drop superseded memories), $as_of (ISO string or null: only memories
//   valid then, valid_start <= $as_of < valid_until),
//   $tags (list: all required), $categories, $sources (lists: any; empty = no filter).
// Returns: one row {size: int (memories in the namespace), fetched: int (rows the index gave),
//   hits: list<[id, score]>}.
CYPHER 25
OPTIONAL MATCH (s:NamespaceStats {namespace: $namespace}) USING INDEX SEEK s:NamespaceStats(namespace)
WITH coalesce(s.n_docs, 0) AS size
CALL (size) {
  FILTER size > $fetch
  MATCH (m:Memory)
    SEARCH m IN (
      VECTOR INDEX memory_vector
      FOR $vector
      WHERE m.namespace = $namespace
        AND m.created_at >= $created_from AND m.created_at < $created_to
        AND m.health >= $health_from AND m.health <= $health_to
      LIMIT $fetch
    ) SCORE AS score
  WITH m, score,
       ($include_expired OR m.expires_at IS NULL OR m.expires_at > $now)
    AND (NOT $current_only OR m.superseded_by IS NULL)
    AND ($as_of IS NULL OR (m.valid_start <= $as_of AND (m.valid_until IS NULL OR m.valid_until > $as_of)))
    AND all(tag IN $tags WHERE tag IN m.tags)
    AND (size($categories) = 0 OR m.category IN $categories)
    AND (size($sources) = 0 OR m.source IN $sources)
       AS passes
  RETURN count(*) AS fetched,
         collect(CASE WHEN passes
                      THEN [m.id, score] END) AS hits
}
RETURN size, fetched, hits;
