// memories_list.cypher: one page of memories, oldest first (created_at asc, id asc).
//
// A seek of memory_created_order (namespace, created_at, id) from the cursor on, in index
// order, that stops after $limit matches: the last page costs what the first does, so
// iter_memories walks a namespace in O(n), not O(n^2). ORDER BY names the equality-bound
// namespace too: the planner only uses an index's order when ORDER BY starts at its first
// property.
//
// Parameters: $namespace (string), $limit (int),
//   $after_created, $after_id (strings or null): the cursor = last row of the previous page.
// Filter parameters (the meaning of graphmem.model.MemoryFilter.matches):
//   $include_expired (bool), $now (fixed-width ISO string; expired = expires_at <= $now),
//   $current_only (bool: drop superseded memories), $as_of (ISO string or null: only memories
//   valid then, valid_start <= $as_of < valid_until),
//   $tags (list: all required), $categories, $sources (lists: any; empty = no filter),
//   $min_health, $max_health (float or null), $created_after (inclusive),
//   $created_before (exclusive) (ISO string or null).
// Returns: up to $limit rows {memory: map}.
MATCH (m:Memory)
USING INDEX SEEK m:Memory(namespace, created_at, id)
WHERE m.namespace = $namespace AND m.created_at >= coalesce($after_created, '') AND m.id IS NOT NULL
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
  AND ($after_created IS NULL OR m.created_at > $after_created
       OR (m.created_at = $after_created AND m.id > $after_id))
WITH m ORDER BY m.namespace ASC, m.created_at ASC, m.id ASC LIMIT $limit
// The memory map is cypher/memory_map.cypher (filled in by the loader).
RETURN {{MEMORY_MAP}} AS memory;
