// edges_among.cypher: relation edges whose both endpoints are in the given set (subgraph).
// Parameters: $namespace (string), $ids (list<string>, distinct), $types (list<string>).
// Returns: rows {a, b, type, weight, reason} in stored direction, ordered a, b, type.
UNWIND $ids AS id
MATCH (x:Memory {namespace: $namespace, id: id})-[r]->(y:Memory)
USING INDEX SEEK x:Memory(namespace, id)
WHERE type(r) IN $types AND y.namespace = $namespace AND y.id IN $ids
RETURN x.id AS a, y.id AS b, type(r) AS type, r.weight AS weight, r.reason AS reason
ORDER BY a, b, type;
