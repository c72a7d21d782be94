// Browser: walk a supersession chain - every version of a fact, oldest first, along SUPERSEDES.
//
// Renders as a chain (newer -> older: each SUPERSEDES edge points at what it replaced). Each
// edge's reason (JSON) says when (`at`), why (`reason`) and the older memory's fields before it;
// the current version is the one with no superseded_by. Start from any version of the fact.
//
// Parameters (set them in Neo4j Browser first):
//   :param namespace => 'default'     // the memories' namespace
//   :param id => 'redis-7'            // any memory of the chain
//   :param limit => 50                // at most this many versions (chains up to 50 links are walked)
MATCH (start:Memory {namespace: $namespace, id: $id})
OPTIONAL MATCH path = (start)-[:SUPERSEDES*0..50]-(m:Memory)
WITH start, collect(DISTINCT m) AS found
WITH [x IN found WHERE x IS NOT NULL] + [start] AS versions
UNWIND versions AS v
WITH DISTINCT v ORDER BY coalesce(v.valid_start, v.created_at), v.id LIMIT $limit
WITH collect(v) AS versions
UNWIND versions AS v
OPTIONAL MATCH (v)-[s:SUPERSEDES]->(older:Memory)
  WHERE older IN versions
RETURN [x IN versions | x.id] AS chain, [x IN versions WHERE x.superseded_by IS NULL | x.id] AS current,
       versions, collect(s) AS supersedes;
