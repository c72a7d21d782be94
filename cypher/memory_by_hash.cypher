// memory_by_hash.cypher: for each content hash, the oldest memory with it (exact-duplicate
// check; batch ingest passes every hash of its batch).
//
// Per hash, the first entry of a seek of memory_hash_order (namespace, content_hash,
// created_at, id) is the answer, so one entry is read however many memories share the hash.
// ORDER BY names the equality-bound namespace and content_hash too (a no-op for the result):
// the planner only uses an index's order when ORDER BY starts at its first property.
//
// Parameters: $namespace (string), $hashes (list<string>, distinct).
// Returns: zero or one row {memory: map} per hash; ties on created_at broken by id.
UNWIND $hashes AS content_hash
CALL (content_hash) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, content_hash, created_at, id)
  WHERE m.namespace = $namespace AND m.content_hash = content_hash
    AND m.created_at IS NOT NULL AND m.id IS NOT NULL
  RETURN m ORDER BY m.namespace ASC, m.content_hash ASC, m.created_at ASC, m.id ASC LIMIT 1
}
// The memory map is cypher/memory_map.cypher (filled in by the loader).
RETURN {{MEMORY_MAP}} AS memory;
