// recall_vector.cypher: the first step of one recall key (store.recall): the query terms'
// statistics and the vector arm with its memories, in one round trip.
//
// The statistics are term_stats.cypher's; the vector search is vector_search.cypher's (the same
// index filter, the same filters on the $fetch hits), with the passing hits ordered here (score
// desc, id asc) and the first $limit returned with their memory maps, so no memories_get follows.
// $fetch = 0 skips the vector search (no vector arm). When the namespace holds no more than $fetch
// memories the index is not searched (fetched = 0, ids = []) and the caller scans it exactly.
//
// Parameters: $namespace (string), $terms (list<string>, distinct), $vector (list<float>),
//   $fetch (int), $limit (int), $created_from, $created_to (string, never null),
//   $health_from, $health_to (float, never null).
// Filter parameters (the meaning of graphmem.model.MemoryFilter.matches):
//   $include_expired (bool), $now (fixed-width ISO string; expired = expires_at <= $now),
//   $current_only (bool: drop superseded memories), $as_of (ISO string or null: only memories
//   valid then, valid_start <= $as_of < valid_until),
//   $tags (list: all required), $categories, $sources (lists: any; empty = no filter).
// Returns: one row {n_docs: int, total_length: int, df: list<[term, df]>, fetched: int (rows the
//   index gave), passed: int (of those, passing the filters), ids: list<string> (up to $limit,
//   most similar first), scores: list<float> (the index's (1 + cos) / 2), memories: list<map>}.
CYPHER 25
OPTIONAL MATCH (s:NamespaceStats {namespace: $namespace}) USING INDEX SEEK s:NamespaceStats(namespace)
WITH coalesce(s.n_docs, 0) AS size, coalesce(s.total_length, 0) AS total_length
CALL (size) {
  FILTER $fetch > 0 AND size > $fetch
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
  ORDER BY score DESC, m.id ASC
  WITH count(*) AS fetched, collect(CASE WHEN passes THEN [m, score] END) AS kept
  RETURN fetched, size(kept) AS passed, kept[0..$limit] AS top
}
RETURN size AS n_docs, total_length,
       COLLECT {
         UNWIND $terms AS term
         MATCH (d:TermDF {namespace: $namespace, term: term}) USING INDEX SEEK d:TermDF(namespace, term)
         RETURN [term, d.df]
       } AS df,
       fetched, passed,
       [hit IN top | hit[0].id] AS ids,
       [hit IN top | hit[1]] AS scores,
       [hit IN top | head([m IN [hit[0]] | {{MEMORY_MAP}}])] AS memories;
