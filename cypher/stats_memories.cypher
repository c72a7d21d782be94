// stats_memories.cypher: memory counts per namespace and health bucket.
// Parameters: $namespaces (list<string>) - the namespaces in scope.
// Returns: rows {namespace, bucket: toInteger(health * 5), memories: int}; the caller maps
//   buckets to the histogram bins 0.0-0.2 ... 0.8-1.0 (bucket 5, health = 1.0, joins the last).
UNWIND $namespaces AS ns
MATCH (m:Memory {namespace: ns})
RETURN ns AS namespace, toInteger(m.health * 5) AS bucket, count(*) AS memories;
