// memories_get.cypher: memories by id.
// Parameters: $namespace (string), $ids (list<string>, distinct).
// Returns: one row {memories: list<map>}, a map per id that exists (missing ids give none).
// One row, not a row per memory: the driver pays per record (160 bare ids: 7.7 ms as rows, 4.5 ms
// as one list; whole memories 10.1 vs 9.9 ms, where reading the properties dominates:
// bench/results/probe-neo4j-reads.json).
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id}) USING INDEX SEEK m:Memory(namespace, id)
// The embedding is read as float32 bytes (embedding_f32: under half the Bolt size of the float
// list, decoded with one np.frombuffer); the list is only for memories written before it existed.
RETURN collect(m {.namespace, .id, .content, .content_hash, .tags, .category, .source, .reason, .metadata,
         .created_at, .updated_at, .valid_until, .expires_at, .health, .health_reasons, .source_weight,
         .term_counts, .near_duplicate_of, .evidence, .topics,
         embedding: coalesce(m.embedding_f32, m.embedding)}) AS memories;
