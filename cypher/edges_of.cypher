// edges_of.cypher: every relation edge touching any of the given memories.
// Parameters: $namespace (string), $ids (list<string>, distinct), $types (list<string>),
//   $with_reasons (bool; false returns '{}' as every reason: degree accounting needs none).
// Returns: one row {edges: list<[a, b, type, weight, reason]>} in stored direction, ordered
// a, b, type (one row: a batch's prefetch reads tens of thousands of edges, and the driver pays
// per record: bench/results/probe-neo4j-reads.json).
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id})-[r]-(:Memory)
USING INDEX SEEK m:Memory(namespace, id)
WHERE type(r) IN $types
WITH DISTINCT r
WITH startNode(r).id AS a, endNode(r).id AS b, type(r) AS type, r.weight AS weight,
     CASE WHEN $with_reasons THEN r.reason ELSE '{}' END AS reason
ORDER BY a, b, type
RETURN collect([a, b, type, weight, reason]) AS edges;
