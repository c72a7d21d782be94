// lexical_search.cypher: full-text recall over graphmem's own terms (Lucene, whitespace).
//
// The memory_text index holds each memory's terms and its namespace, and every query
// requires the namespace (records.lucene_queries: `+namespace:"ns"^0 +(terms:"a" OR ...)`),
// so Lucene skips other tenants' postings and stops at $fetch hits: the cost follows this
// namespace's matches, not the database. The other filters apply to those hits; the caller
// grows $fetch while a request has fewer than $limit passing hits and the index had more.
//
// $requests holds one entry per lookup (search passes one, batch ingest one per memory of
// its batch, in one round trip); each entry is a list of Lucene queries (the terms are
// split into chunks below Lucene's clause limit). A node's score is the sum over its entry's
// chunks, which equals the score of the single OR query (BM25 clause scores add).
//
// Parameters: $namespace (string), $requests (list<list<string>>), $fetch (int, hits asked
//   of the index per query), $limit (int, per request), $exclude_id (string; '' excludes nothing).
// Filter parameters (the meaning of graphmem.model.MemoryFilter.matches):
//   $include_expired (bool), $now (fixed-width ISO string; expired = expires_at <= $now),
//   $current_only (bool: drop superseded memories), $as_of (ISO string or null: only memories
//   valid then, valid_start <= $as_of < valid_until),
//   $tags (list: all required), $categories, $sources (lists: any; empty = no filter),
//   $min_health, $max_health (float or null), $created_after (inclusive),
//   $created_before (exclusive) (ISO string or null).
// Returns: one row per request {request: int, fetched: int (hits the index gave),
//   ids: up to $limit passing ids, best Lucene score first, ties by id}.
UNWIND range(0, size($requests) - 1) AS request
CALL (request) {
  UNWIND $requests[request] AS query
  CALL db.index.fulltext.queryNodes('memory_text', query, {limit: $fetch}) YIELD node, score
  WITH node AS m, sum(score) AS score, count(*) AS hits
  WITH m, score, hits,
       m.namespace = $namespace AND m.id <> $exclude_id
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
       AS passes
  ORDER BY score DESC, m.id ASC
  RETURN sum(hits) AS fetched, collect(CASE WHEN passes THEN m.id END)[0..$limit] AS ids
}
RETURN request, fetched, ids;
