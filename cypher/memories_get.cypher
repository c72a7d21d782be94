// memories_get.cypher: memories by id.
// Parameters: $namespace (string), $ids (list<string>, distinct).
// Returns: one row {memory: map} per id that exists (missing ids give no row).
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id}) USING INDEX SEEK m:Memory(namespace, id)
RETURN m {.namespace, .id, .content, .content_hash, .tags, .category, .source, .reason, .metadata,
         .created_at, .updated_at, .valid_until, .expires_at, .embedding, .health, .health_reasons,
         .source_weight, .term_counts, .near_duplicate_of, .evidence, .topics} AS memory;
