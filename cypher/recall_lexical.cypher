// recall_lexical.cypher: the second step of one recall key (store.recall): the full-text arm
// over the terms the caller picked from the first step's statistics, with the memories the first
// step did not already return, in one round trip.
//
// The search and filters are lexical_search.cypher's for one request (a list of Lucene queries,
// chunked below the clause limit; a node's score is the sum over chunks). The first $limit passing
// ids are returned best first (ties by id), and the memory maps of those not in $known.
//
// Parameters: $namespace (string), $queries (list<string>), $fetch (int, hits asked of the index
//   per query), $limit (int), $known (list<string>: ids whose memories the caller has).
// Filter parameters (the meaning of graphmem.model.MemoryFilter.matches):
//   $include_expired (bool), $now (fixed-width ISO string; expired = expires_at <= $now),
//   $current_only (bool: drop superseded memories), $as_of (ISO string or null: only memories
//   valid then, valid_start <= $as_of < valid_until),
//   $tags (list: all required), $categories, $sources (lists: any; empty = no filter),
//   $min_health, $max_health (float or null), $created_after (inclusive),
//   $created_before (exclusive) (ISO string or null).
// Returns: one row {fetched: int (hits the index gave), ids: list<string>, memories: list<map>}.
UNWIND $queries AS query
CALL db.index.fulltext.queryNodes('memory_text', query, {limit: $fetch}) YIELD node, score
WITH node AS m, sum(score) AS score, count(*) AS hits
WITH m, score, hits,
     m.namespace = $namespace
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
WITH sum(hits) AS fetched, collect(CASE WHEN passes THEN m END)[0..$limit] AS top
RETURN fetched, [m IN top | m.id] AS ids,
       [m IN top WHERE NOT m.id IN $known | {{MEMORY_MAP}}] AS memories;
