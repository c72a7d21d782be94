// memories_page.cypher: one page of memories in a chosen order (GET /v1/memories with sort, thread
// or superseded_only; the plain oldest-first listing is memories_list.cypher, an index seek).
//
// {{KEY}} is the sort property and {{DIR}} / {{OP}} its direction (ASC with >, DESC with <), filled
// in from a whitelist by graphmem.stores.neo4j.reads (model.LIST_SORTS); ties go by id the same way.
// ORDER BY names the equality-bound namespace first, so the planner may read the created_at sorts
// in the order of memory_created_order (either way); the other sorts sort the namespace's matches.
//
// Parameters: $namespace (string), $limit (int), $thread (string or null: only its turns),
//   $superseded_only (bool), $after_key (string, float or null), $after_id (string or null): the
//   previous page's last row.
// Filter parameters: those of memories_list.cypher (graphmem.model.MemoryFilter.matches).
// Returns: up to $limit rows {memory: map}.
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.id IS NOT NULL AND m.{{KEY}} IS NOT NULL
  AND ($thread IS NULL OR m.thread = $thread)
  AND (NOT $superseded_only OR m.superseded_by IS NOT NULL)
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
  AND ($after_key IS NULL OR m.{{KEY}} {{OP}} $after_key
       OR (m.{{KEY}} = $after_key AND m.id {{OP}} $after_id))
WITH m ORDER BY m.namespace {{DIR}}, m.{{KEY}} {{DIR}}, m.id {{DIR}} LIMIT $limit
// The memory map is cypher/memory_map.cypher (filled in by the loader).
RETURN {{MEMORY_MAP}} AS memory;
