// Browser: why are two memories linked? Every relation edge between them, with its reason.
//
// One row per edge (SHARES_TAG / SAME_CATEGORY / OVERLAPS / RELATED): stored direction,
// weight and the reason JSON written at link time, plus what the graph shows today (shared
// Tag nodes, both categories) to compare with the reason.
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'
//   :param a => 'mem-id-1'
//   :param b => 'mem-id-2'
MATCH (x:Memory {namespace: $namespace, id: $a})
MATCH (y:Memory {namespace: $namespace, id: $b})
MATCH (x)-[r:SHARES_TAG|SAME_CATEGORY|OVERLAPS|RELATED]-(y)
RETURN type(r) AS type,
       startNode(r).id AS source,
       endNode(r).id AS target,
       r.weight AS weight,
       r.reason AS reason,
       COLLECT { MATCH (x)-[:TAGGED]->(t:Tag)<-[:TAGGED]-(y) RETURN t.name ORDER BY t.name } AS shared_tags,
       [x.category, y.category] AS categories
ORDER BY weight DESC, type ASC;
