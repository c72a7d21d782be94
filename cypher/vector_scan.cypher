// vector_scan.cypher: exact nearest memories of one namespace, without the vector index.
//
// Used instead of the index when the namespace holds no more memories than the index
// over-fetch would return anyway (so the scan is bounded by the namespace size).
// Score = vector.similarity.cosine = (1 + cos) / 2 (unit vectors: same order as the dot
// product); zero vectors score as cos 0. Ties by id.
//
// Parameters: $namespace (string), $vector (list<float>), $limit (int).
// Filter parameters (the meaning of graphmem.model.MemoryFilter.matches):
//   $include_expired (bool), $now (fixed-width ISO string; expired = expires_at <= $now),
//   $current_only (bool: drop superseded memories), $as_of (ISO string or null: only memories
//   valid then, valid_start <= $as_of < valid_until),
//   $tags (list: all required), $categories, $sources (lists: any; empty = no filter),
//   $min_health, $max_health (float or null), $created_after (inclusive),
//   $created_before (exclusive) (ISO string or null).
// Returns: up to $limit rows {id}, most similar first.
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.embedding IS NOT NULL
  AND ($include_expired OR m.expires_at IS NULL OR m.expires_at > $now)
  AND (NOT $current_only OR m.superseded_by IS NULL)
  AND ($as_of IS NULL OR (m.valid_start <= $as_of AND (m.valid_until IS NULL OR m.valid_until > $as_of)))
  AND all(tag IN $tags WHERE tag IN m.tags)
  AND (size($categories) = 0 OR m.category IN $categories)
  AND (size($sources) = 0 OR m.source IN $sources)
  AND ($min_health IS NULL OR m.health >= $min_health)
  AND ($max_health IS NULL OR m.health <= $max_health)
  AND ($created_after IS NULL OR m.created_at >= $created_after)
  AND ($created_before IS NULL OR m.created_at < $created_before)
WITH m, coalesce(vector.similarity.cosine(m.embedding, $vector), 0.5) AS score
RETURN m.id AS id
ORDER BY score DESC, id ASC
LIMIT $limit;
