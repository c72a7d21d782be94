// stats_edges.cypher: edge count and maximum degree per relation type.
// Parameters: $namespaces (list<string>) - the namespaces in scope, $types (list<string>).
// Returns: one row {type, edges, max_degree} per type that has edges.
UNWIND $namespaces AS ns
MATCH (m:Memory {namespace: ns})-[r]-(:Memory)
WHERE type(r) IN $types
WITH type(r) AS type, m, count(r) AS degree,
     count(CASE WHEN startNode(r) = m THEN 1 END) AS outgoing
RETURN type, sum(outgoing) AS edges, max(degree) AS max_degree;
