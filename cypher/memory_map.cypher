// memory_map.cypher: the one map every memory read returns (a fragment, not a query).
// Parameters: none. The loader (graphmem/stores/neo4j/queries.py) puts it wherever a query names
// the placeholder MEMORY_MAP in double braces, for a memory node bound to `m`; records.to_memory
// reads it. A property added to :Memory is added here once, not in every read.
// The embedding is read as float32 bytes (embedding_f32: under half the Bolt size of the float
// list, decoded with one np.frombuffer); the list is only for memories written before it existed.
m {.namespace, .id, .content, .content_hash, .tags, .category, .source, .reason, .metadata,
   .created_at, .updated_at, .valid_until, .expires_at, .health, .health_reasons, .source_weight,
   .term_counts, .near_duplicate_of, .evidence, .topics, .thread, .seq,
   .valid_from, .superseded_by, .times, .entities,
   embedding: coalesce(m.embedding_f32, m.embedding)}
