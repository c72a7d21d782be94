// memories_get.cypher: memories by id.
// Parameters: $namespace (string), $ids (list<string>, distinct).
// Returns: one row {memories: list<map>}, a map per id that exists (missing ids give none).
// One row, not a row per memory: the driver pays per record (160 bare ids: 7.7 ms as rows, 4.5 ms
// as one list; whole memories 10.1 vs 9.9 ms, where reading the properties dominates:
// bench/results/probe-neo4j-reads.json).
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id}) USING INDEX SEEK m:Memory(namespace, id)
// The memory map is cypher/memory_map.cypher (filled in by the loader).
RETURN collect({{MEMORY_MAP}}) AS memories;
