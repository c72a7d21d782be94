// Browser: a memory's neighbourhood - the memory, its relation edges and neighbours, its tags.
//
// Renders as a graph (strongest edges first). Click an edge to see weight and reason (JSON).
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'     // the memory's namespace
//   :param id => 'mem-id'             // the memory id
//   :param min_weight => 0.0          // hide edges weaker than this
//   :param limit => 25                // at most this many edges
MATCH (m:Memory {namespace: $namespace, id: $id})
OPTIONAL MATCH (m)-[r:SHARES_TAG|SAME_CATEGORY|OVERLAPS|RELATED]-(other:Memory)
  WHERE r.weight >= $min_weight
WITH m, r, other ORDER BY r.weight DESC, other.id ASC LIMIT $limit
WITH m, collect(r) AS edges, collect(other) AS neighbours
OPTIONAL MATCH (m)-[tagged:TAGGED]->(tag:Tag)
RETURN m, edges, neighbours, collect(tagged) AS tag_links, collect(tag) AS tags;
