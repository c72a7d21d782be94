// vector_search.cypher: over-fetch from the vector index, keep the namespace's matches.
//
// The index spans every namespace, so it is asked for the $fetch nearest nodes and those
// outside $namespace or failing the filter are dropped here. The caller grows $fetch when
// fewer than it needs pass, and scans the namespace exactly (vector_scan.cypher) once the
// namespace is no larger than $fetch. Hits are re-scored exactly with
// vector.similarity.cosine (the index score may be quantised); zero vectors score as cos 0.
//
// Parameters: $namespace (string), $vector (list<float>), $fetch (int).
// Filter parameters (the meaning of graphmem.model.MemoryFilter.matches):
//   $include_expired (bool), $now (fixed-width ISO string; expired = expires_at <= $now),
//   $tags (list: all required), $categories, $sources (lists: any; empty = no filter),
//   $min_health, $max_health (float or null), $created_after (inclusive),
//   $created_before (exclusive) (ISO string or null).
// Returns: one row {fetched: int (rows the index gave), hits: list<[id, score]>}.
CALL db.index.vector.queryNodes('memory_embedding', $fetch, $vector) YIELD node AS m
WITH m,
     m.namespace = $namespace
  AND ($include_expired OR m.expires_at IS NULL OR m.expires_at > $now)
  AND all(tag IN $tags WHERE tag IN m.tags)
  AND (size($categories) = 0 OR m.category IN $categories)
  AND (size($sources) = 0 OR m.source IN $sources)
  AND ($min_health IS NULL OR m.health >= $min_health)
  AND ($max_health IS NULL OR m.health <= $max_health)
  AND ($created_after IS NULL OR m.created_at >= $created_after)
  AND ($created_before IS NULL OR m.created_at < $created_before)
     AS passes
RETURN count(*) AS fetched,
       collect(CASE WHEN passes
                    THEN [m.id, coalesce(vector.similarity.cosine(m.embedding, $vector), 0.5)] END) AS hits;
