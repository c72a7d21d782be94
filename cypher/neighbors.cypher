// neighbors.cypher: one-hop expansion - each seed's strongest edges.
//
// Per seed (a CALL subquery) the edges of the requested types with weight >= $min_weight,
// strongest first (weight desc, neighbour id asc, type asc), at most $per_seed of them.
// Rows are oriented seed -> neighbour (not the stored direction).
//
// Parameters: $namespace (string), $seed_ids (list<string>, distinct), $per_seed (int),
//   $min_weight (float), $types (list<string>).
// Returns: rows {seed, other, type, weight, reason}, by seed then strength.
UNWIND $seed_ids AS seed_id
MATCH (seed:Memory {namespace: $namespace, id: seed_id}) USING INDEX SEEK seed:Memory(namespace, id)
CALL (seed) {
  MATCH (seed)-[r]-(other:Memory)
  WHERE type(r) IN $types AND r.weight >= $min_weight
  RETURN r, other
  ORDER BY r.weight DESC, other.id ASC, type(r) ASC
  LIMIT $per_seed
}
RETURN seed.id AS seed, other.id AS other, type(r) AS type, r.weight AS weight, r.reason AS reason
ORDER BY seed ASC, weight DESC, other ASC, type ASC;
