// Browser: hub tags - the tags carried by the most memories in a namespace.
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'
//   :param limit => 25
MATCH (t:Tag)<-[:TAGGED]-(m:Memory)
WHERE t.namespace = $namespace
RETURN t.name AS tag,
       count(m) AS memories,
       min(m.created_at) AS first_used,
       max(m.created_at) AS last_used
ORDER BY memories DESC, tag ASC
LIMIT $limit;
