// memory_by_hash.cypher: the oldest memory with this content hash (exact-duplicate check).
// Parameters: $namespace (string), $content_hash (string).
// Returns: zero rows or one row {memory: map}; ties on created_at broken by id.
MATCH (m:Memory {content_hash: $content_hash})
WHERE m.namespace = $namespace
WITH m ORDER BY m.created_at ASC, m.id ASC LIMIT 1
RETURN m {.namespace, .id, .content, .content_hash, .tags, .category, .source, .reason, .metadata,
         .created_at, .updated_at, .valid_until, .expires_at, .embedding, .health, .health_reasons,
         .source_weight, .term_counts, .near_duplicate_of, .evidence} AS memory;
