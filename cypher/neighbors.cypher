// neighbors.cypher: one-hop expansion - each seed's strongest edges, and the neighbours' memories.
//
// Per seed (a CALL subquery) the edges of the requested types with weight >= $min_weight,
// strongest first (weight desc, neighbour id asc, type asc), at most $per_seed of them.
// Edges are oriented seed -> neighbour (not the stored direction). With $with_memories, the
// memories of the neighbours not in $known come in the same round trip (search expansion and
// the neighbours view read them next; the map of cypher/memory_map.cypher).
//
// Parameters: $namespace (string), $seed_ids (list<string>, distinct), $per_seed (int),
//   $min_weight (float), $types (list<string>), $with_memories (bool), $known (list<string>).
// Returns: one row {edges: list<[seed, other, type, weight, reason]> by seed then strength,
//   memories: list<map> (distinct neighbours not in $known; [] without $with_memories)}.
UNWIND $seed_ids AS seed_id
MATCH (seed:Memory {namespace: $namespace, id: seed_id}) USING INDEX SEEK seed:Memory(namespace, id)
CALL (seed) {
  MATCH (seed)-[r]-(other:Memory)
  WHERE type(r) IN $types AND r.weight >= $min_weight
  RETURN r, other
  ORDER BY r.weight DESC, other.id ASC, type(r) ASC
  LIMIT $per_seed
}
WITH seed.id AS seed, other, type(r) AS type, r.weight AS weight, r.reason AS reason
ORDER BY seed ASC, weight DESC, other.id ASC, type ASC
WITH collect([seed, other.id, type, weight, reason]) AS edges,
     collect(DISTINCT CASE WHEN $with_memories AND NOT other.id IN $known THEN other END) AS others
// The memory map is cypher/memory_map.cypher (filled in by the loader).
RETURN edges, [m IN others | {{MEMORY_MAP}}] AS memories;
